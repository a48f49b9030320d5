//! The Steam Web API's player calls, with STEAM_API_KEY: who a user is (a custom URL name
//! resolved with ResolveVanityURL; `success: 42` is no such name, a group's id is not a
//! person's), their profile (GetPlayerSummaries v0002), their games by playtime
//! (GetOwnedGames; an empty `response` is a private profile) and their achievements in one
//! game (GetPlayerAchievements; its `playerstats.error` says "Profile is not public"). A
//! private profile says how to open it.

use serde_json::Value;

use super::date;
use crate::services::STEAM_API;
use crate::tools::ToolContext;
use crate::tools::kit::web::Call;

/// Where a key comes from.
const GET_KEY: &str = "https://steamcommunity.com/dev/apikey";
/// What to do about a private profile.
const MAKE_PUBLIC: &str = "its owner can set 'My profile' and 'Game details' to Public in Steam's privacy settings (Steam → Profile → Edit Profile → Privacy Settings)";
/// The first digits of every 64-bit SteamID of a person.
const ID_PREFIX: &str = "7656119";
/// Unlocks listed at most.
const RECENT_UNLOCKS: usize = 5;

/// The key, or the sentence saying where to get one.
fn key(ctx: &ToolContext) -> Result<String, String> {
    ctx.settings.web.key(&STEAM_API).ok_or_else(|| {
        format!(
            "The Steam Web API needs a key: set STEAM_API_KEY (or save it in the file ~/.ssh/STEAM_API_KEY). Get one, signed in to Steam, at {GET_KEY}."
        )
    })
}

/// One call (the key added): the JSON, or a sentence. An answer about `playerstats` comes
/// back whatever its status, for the caller to read its `error`.
fn ask(ctx: &ToolContext, key: &str, path: &str, pairs: &[(&str, &str)]) -> Result<Value, String> {
    let web = &ctx.settings.web;
    let mut query = vec![("key", key)];
    query.extend_from_slice(pairs);
    let call = Call {
        query: &query,
        ..Call::default()
    };
    let fetched = web.call(&STEAM_API, path, &call, &ctx.cancel)?;
    if let Ok(value) = serde_json::from_slice::<Value>(&fetched.body) {
        if value.pointer("/playerstats/error").is_some() {
            return Ok(value);
        }
    }
    if fetched.status == 401 || fetched.status == 403 {
        return Err(format!(
            "The Steam Web API refused the key in STEAM_API_KEY (HTTP {}): check it at {GET_KEY}.",
            fetched.status
        ));
    }
    web.read_json(&STEAM_API, &fetched)
}

/// How the person named the user.
#[derive(Debug, PartialEq)]
enum Named {
    Id(String),
    Vanity(String),
}

/// A SteamID, a profile address (`/profiles/<id>` or `/id/<name>`) or a custom URL name.
fn named(user: &str) -> Result<Named, String> {
    let user = user.trim().trim_end_matches('/');
    let user = match user.rsplit_once("/profiles/").or(user.rsplit_once("/id/")) {
        Some((_, rest)) => rest.split('/').next().unwrap_or_default(),
        None => user,
    };
    let digits = !user.is_empty() && user.bytes().all(|b| b.is_ascii_digit());
    if digits && user.len() == 17 && user.starts_with(ID_PREFIX) {
        return Ok(Named::Id(user.to_string()));
    }
    if user.is_empty() || user.contains(char::is_whitespace) || (digits && user.len() == 17) {
        return Err(format!(
            "'{user}' is neither a 64-bit SteamID (17 digits starting {ID_PREFIX}) nor a custom URL name: give either, as in the profile's address (steamcommunity.com/profiles/<id> or /id/<name>)."
        ));
    }
    Ok(Named::Vanity(user.to_string()))
}

/// The user's 64-bit SteamID, a custom URL name resolved.
fn steam_id(ctx: &ToolContext, key: &str, user: &str) -> Result<String, String> {
    let name = match named(user)? {
        Named::Id(id) => return Ok(id),
        Named::Vanity(name) => name,
    };
    let value = ask(
        ctx,
        key,
        "/ISteamUser/ResolveVanityURL/v0001/",
        &[("vanityurl", &name)],
    )?;
    resolved(&value, &name)
}

/// ResolveVanityURL's answer: `{"response": {"steamid", "success": 1}}`, or `success: 42`
/// with `message: "No match"`. The id comes as a string (a 64-bit number a double would
/// round) and is kept as text; one that names a group, not a person, is said.
fn resolved(value: &Value, name: &str) -> Result<String, String> {
    let response = &value["response"];
    let id = match &response["steamid"] {
        Value::String(id) => Some(id.trim().to_string()),
        Value::Number(id) => id.as_u64().map(|id| id.to_string()),
        _ => None,
    };
    match (response["success"].as_i64(), id) {
        (Some(1), Some(id)) if is_group(&id) => Err(format!(
            "'{name}' is the custom URL name of a Steam group (group id {id}, steamcommunity.com/groups/{name}), not of a person: these tools read a person's profile. Give the person's custom URL name (steamcommunity.com/id/<name>) or 17-digit SteamID instead."
        )),
        (Some(1), Some(id)) => Ok(id),
        (Some(42), _) => Err(format!(
            "No Steam profile has the custom URL name '{name}' (steamcommunity.com/id/{name}): check the spelling, or give the 17-digit SteamID from the profile's address."
        )),
        (code, _) => Err(format!(
            "The Steam Web API could not resolve '{name}' ({}). Give the 17-digit SteamID instead.",
            response["message"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| format!("success {}", code.unwrap_or(0)))
        )),
    }
}

/// Whether a 64-bit SteamID is a group's (account type 7, "clan", in bits 52-55: ids that
/// start 1035…), which no player call takes.
fn is_group(id: &str) -> bool {
    id.parse::<u64>().is_ok_and(|id| (id >> 52) & 0xF == 7)
}

/// `'name' (SteamID …)`, or the id alone when that is what was given.
fn who(user: &str, id: &str) -> String {
    if user.trim() == id {
        format!("SteamID {id}")
    } else {
        format!("'{}' (SteamID {id})", user.trim())
    }
}

pub(super) fn summary(ctx: &ToolContext, user: &str) -> Result<String, String> {
    let key = key(ctx)?;
    let id = steam_id(ctx, &key, user)?;
    let value = ask(
        ctx,
        &key,
        "/ISteamUser/GetPlayerSummaries/v0002/",
        &[("steamids", &id)],
    )?;
    match players(&value).first() {
        Some(player) => Ok(profile(player)),
        None => Err(format!(
            "Steam has no profile for {}: check the SteamID.",
            who(user, &id)
        )),
    }
}

/// The players of GetPlayerSummaries: v0002's `response.players[]`, or v0001's
/// `response.players.player[]`.
fn players(value: &Value) -> &[Value] {
    let players = &value["response"]["players"];
    players
        .as_array()
        .or_else(|| players["player"].as_array())
        .map_or(&[], Vec::as_slice)
}

const STATES: [&str; 7] = [
    "offline",
    "online",
    "busy",
    "away",
    "snooze",
    "looking to trade",
    "looking to play",
];

/// One player's profile as text.
fn profile(player: &Value) -> String {
    let text = |name: &str| player[name].as_str().filter(|s| !s.is_empty());
    let mut lines = vec![format!(
        "{} (SteamID {})",
        text("personaname").unwrap_or("(no name)"),
        text("steamid").unwrap_or("unknown")
    )];
    if let Some(name) = text("realname") {
        lines.push(format!("Real name: {name}"));
    }
    let state = player["personastate"].as_u64().unwrap_or(0) as usize;
    let mut status = STATES.get(state).copied().unwrap_or("unknown").to_string();
    if let Some(game) = text("gameextrainfo") {
        status.push_str(&format!(", playing {game}"));
        if let Some(app) = text("gameid") {
            status.push_str(&format!(" (app_id {app})"));
        }
    }
    lines.push(format!("Status: {status}"));
    if let Some(url) = text("profileurl") {
        lines.push(format!("Profile: {url}"));
    }
    if let Some(created) = player["timecreated"].as_i64() {
        lines.push(format!("Account created: {}", date(created)));
    }
    if let Some(last) = player["lastlogoff"].as_i64() {
        lines.push(format!("Last seen online: {}", date(last)));
    }
    if player["communityvisibilitystate"].as_i64() != Some(3) {
        lines.push(format!(
            "The profile is private: Steam shows others only its name and picture, not its games or achievements; {MAKE_PUBLIC}."
        ));
    }
    lines.join("\n")
}

pub(super) fn games(ctx: &ToolContext, user: &str, max: usize) -> Result<String, String> {
    let key = key(ctx)?;
    let id = steam_id(ctx, &key, user)?;
    let value = ask(
        ctx,
        &key,
        "/IPlayerService/GetOwnedGames/v0001/",
        &[
            ("steamid", &id),
            ("include_appinfo", "1"),
            ("include_played_free_games", "1"),
        ],
    )?;
    owned(&value["response"], &who(user, &id), max)
}

/// GetOwnedGames' `response`, most played first; empty (no `games`, no `game_count`) for a
/// private profile.
fn owned(response: &Value, who: &str, max: usize) -> Result<String, String> {
    let Some(games) = response["games"].as_array() else {
        if response["game_count"].as_u64() == Some(0) {
            return Ok(format!("{who} owns no games."));
        }
        return Err(format!(
            "Steam does not show the games of {who}: the profile's game details are private; {MAKE_PUBLIC}."
        ));
    };
    let mut games: Vec<&Value> = games.iter().collect();
    games.sort_by_key(|g| std::cmp::Reverse(g["playtime_forever"].as_u64().unwrap_or(0)));
    let count = response["game_count"]
        .as_u64()
        .unwrap_or(games.len() as u64);
    let total: u64 = games
        .iter()
        .map(|g| g["playtime_forever"].as_u64().unwrap_or(0))
        .sum();
    let mut out = format!(
        "{who} owns {count} game{}, {} played in all; most played first:",
        if count == 1 { "" } else { "s" },
        hours(total)
    );
    for (i, game) in games.iter().take(max).enumerate() {
        out.push_str(&format!("\n{}. {}", i + 1, owned_game(game)));
    }
    if games.len() > max {
        out.push_str(&format!("\n({} more.)", games.len() - max));
    }
    Ok(out)
}

/// `Name (app_id N): 92.2 h, 6.6 h in the last two weeks, last played 2026-06-22`.
fn owned_game(game: &Value) -> String {
    let played = game["playtime_forever"].as_u64().unwrap_or(0);
    let mut text = format!(
        "{} (app_id {}): ",
        game["name"].as_str().unwrap_or("(unnamed)"),
        game["appid"].as_u64().unwrap_or(0)
    );
    if played == 0 {
        text.push_str("never played");
        return text;
    }
    text.push_str(&hours(played));
    if let Some(recent) = game["playtime_2weeks"].as_u64().filter(|m| *m > 0) {
        text.push_str(&format!(", {} in the last two weeks", hours(recent)));
    }
    if let Some(last) = game["rtime_last_played"].as_i64().filter(|t| *t > 0) {
        text.push_str(&format!(", last played {}", date(last)));
    }
    text
}

/// Minutes as hours: `92.2 h`.
fn hours(minutes: u64) -> String {
    format!("{:.1} h", minutes as f64 / 60.0)
}

pub(super) fn achievements(ctx: &ToolContext, user: &str, app: u64) -> Result<String, String> {
    let key = key(ctx)?;
    let id = steam_id(ctx, &key, user)?;
    let app_text = app.to_string();
    let value = ask(
        ctx,
        &key,
        "/ISteamUserStats/GetPlayerAchievements/v0001/",
        &[("steamid", &id), ("appid", &app_text), ("l", "english")],
    )?;
    unlocked(&value["playerstats"], &who(user, &id), app)
}

/// GetPlayerAchievements' `playerstats`: achieved of all and the latest unlocks, or its error.
fn unlocked(stats: &Value, who: &str, app: u64) -> Result<String, String> {
    if let Some(error) = stats["error"].as_str() {
        let lower = error.to_ascii_lowercase();
        return Err(if lower.contains("not public") {
            format!(
                "Steam does not show the achievements of {who}: the profile's game details are private; {MAKE_PUBLIC}."
            )
        } else if lower.contains("no stats") {
            format!(
                "Steam app {app} has no achievements to read ({error}): check the app_id with steam_search."
            )
        } else {
            format!("The Steam Web API refused the request: {error}")
        });
    }
    let game = stats["gameName"]
        .as_str()
        .filter(|s| !s.is_empty())
        .map_or_else(
            || format!("app {app}"),
            |name| format!("{name} (app_id {app})"),
        );
    let list = stats["achievements"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    if list.is_empty() {
        return Ok(format!("{game} has no achievements."));
    }
    let mut done: Vec<&Value> = list
        .iter()
        .filter(|a| a["achieved"].as_i64() == Some(1))
        .collect();
    let mut out = format!(
        "Achievements of {who} in {game}: {} of {} unlocked ({}%).",
        done.len(),
        list.len(),
        (done.len() * 100 + list.len() / 2) / list.len()
    );
    done.sort_by_key(|a| std::cmp::Reverse(a["unlocktime"].as_i64().unwrap_or(0)));
    if !done.is_empty() {
        out.push_str("\nLatest unlocks:");
    }
    for achievement in done.iter().take(RECENT_UNLOCKS) {
        out.push_str(&format!("\n- {}", unlock(achievement)));
    }
    Ok(out)
}

/// `Name: description (2023-11-14)`.
fn unlock(achievement: &Value) -> String {
    let name = achievement["name"]
        .as_str()
        .or(achievement["apiname"].as_str())
        .unwrap_or("(unnamed)");
    let mut text = name.to_string();
    if let Some(about) = achievement["description"]
        .as_str()
        .filter(|s| !s.is_empty())
    {
        text.push_str(&format!(": {about}"));
    }
    if let Some(time) = achievement["unlocktime"].as_i64().filter(|t| *t > 0) {
        text.push_str(&format!(" ({})", date(time)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn users_are_named_by_id_address_or_custom_name() {
        let id = |s: &str| Ok(Named::Id(s.to_string()));
        let vanity = |s: &str| Ok(Named::Vanity(s.to_string()));
        let cases: &[(&str, Result<Named, ()>)] = &[
            ("76561197960435530", id("76561197960435530")),
            (" 76561197960435530 ", id("76561197960435530")),
            (
                "https://steamcommunity.com/profiles/76561197960435530/",
                id("76561197960435530"),
            ),
            (
                "https://steamcommunity.com/id/gabelogannewell",
                vanity("gabelogannewell"),
            ),
            ("gabelogannewell", vanity("gabelogannewell")),
            ("12345678901234567", Err(())),
            ("two words", Err(())),
            ("", Err(())),
        ];
        for (user, expected) in cases {
            assert_eq!(named(user).map_err(|_| ()), *expected, "{user}");
        }
    }

    #[test]
    fn vanity_answers() {
        let found = json!({"response": {"steamid": "76561197960287930", "success": 1}});
        assert_eq!(resolved(&found, "x"), Ok("76561197960287930".into()));
        let none = json!({"response": {"success": 42, "message": "No match"}});
        assert!(
            resolved(&none, "nobody")
                .unwrap_err()
                .starts_with("No Steam profile has the custom URL name 'nobody'")
        );
        let number = json!({"response": {"steamid": 76561197960287930_u64, "success": 1}});
        assert_eq!(resolved(&number, "x"), Ok("76561197960287930".into()));
        let group = json!({"response": {"steamid": "103582791429521412", "success": 1}});
        assert!(resolved(&group, "valve").unwrap_err().starts_with(
            "'valve' is the custom URL name of a Steam group (group id 103582791429521412,"
        ));
        assert!(!is_group("76561197960287930") && !is_group("12345678901234567"));
        let odd = json!({"response": {"success": 2}});
        assert!(resolved(&odd, "x").unwrap_err().contains("(success 2)"));
    }

    #[test]
    fn both_versions_of_player_summaries() {
        let v1: Value = serde_json::from_str(include_str!(
            "../../../../tests/fixtures/apis/steam_getplayersummaries_v0001_anonymised.json"
        ))
        .unwrap();
        let listed = players(&v1);
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0]["steamid"], "12345678901234567");
        let v2 = json!({"response": {"players": [listed[1].clone()]}});
        let text = profile(&players(&v2)[0]);
        assert!(
            text.starts_with("testaccount2 (SteamID 12345678912345678)\nStatus: busy\n"),
            "{text}"
        );
        assert!(!text.contains("Real name"), "{text}");
        assert!(text.contains("The profile is private"), "{text}");
        assert!(players(&json!({"response": {}})).is_empty());
    }

    #[test]
    fn owned_games_and_private_ones() {
        let recorded: Value = serde_json::from_str(include_str!(
            "../../../../tests/fixtures/apis/steam_getownedgames_anonymised.json"
        ))
        .unwrap();
        assert_eq!(
            owned(&recorded["response"], "SteamID 1", 10).unwrap(),
            "SteamID 1 owns 1 game, 92.2 h played in all; most played first:\n\
             1. The Witcher: Enhanced Edition (app_id 20900): 92.2 h, 6.6 h in the last two weeks, last played 2026-06-22"
        );
        let private = owned(&json!({}), "SteamID 1", 10).unwrap_err();
        assert!(private.contains("private"), "{private}");
        assert_eq!(
            owned(&json!({"game_count": 0}), "x", 10).unwrap(),
            "x owns no games."
        );
        let many = json!({"game_count": 3, "games": [
            {"appid": 1, "name": "A", "playtime_forever": 30},
            {"appid": 2, "name": "B", "playtime_forever": 0},
            {"appid": 3, "name": "C", "playtime_forever": 600}
        ]});
        assert_eq!(
            owned(&many, "x", 2).unwrap(),
            "x owns 3 games, 10.5 h played in all; most played first:\n1. C (app_id 3): 10.0 h\n2. A (app_id 1): 0.5 h\n(1 more.)"
        );
    }

    #[test]
    fn achievements_and_their_errors() {
        let stats = json!({"steamID": "1", "gameName": "Portal 2", "success": true, "achievements": [
            {"apiname": "A", "achieved": 1, "unlocktime": 1_700_000_000, "name": "First", "description": "Do it"},
            {"apiname": "B", "achieved": 0, "unlocktime": 0},
            {"apiname": "C", "achieved": 1, "unlocktime": 1_600_000_000}
        ]});
        assert_eq!(
            unlocked(&stats, "x", 620).unwrap(),
            "Achievements of x in Portal 2 (app_id 620): 2 of 3 unlocked (67%).\nLatest unlocks:\n- First: Do it (2023-11-14)\n- C (2020-09-13)"
        );
        let private = json!({"error": "Profile is not public", "success": false});
        assert!(unlocked(&private, "x", 1).unwrap_err().contains("private"));
        let none = json!({"error": "Requested app has no stats", "success": false});
        assert!(
            unlocked(&none, "x", 1)
                .unwrap_err()
                .starts_with("Steam app 1 has no achievements")
        );
    }
}
