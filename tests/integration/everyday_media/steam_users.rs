//! steam_user_summary, steam_user_games and steam_player_stats against a local Steam Web API:
//! the recorded steam_getplayersummaries_v0001_anonymised (served as v0002 answers it, the
//! same players in `response.players[]`), steam_getownedgames_anonymised (one game, playtimes
//! in minutes) and steam_resolvevanityurl_success_group (ResolveVanityURL's tab-indented
//! answer for the GROUP name "valve", its id a string) and steam_getplayerachievements_391220_TRIMMED
//! (GetPlayerAchievements asked without `l`: API names only). A person's name resolved
//! (`{"response": {"steamid", "success": 1}}`), `success: 42` with `"message": "No match"`,
//! GetPlayerAchievements with `l=english` (`{"playerstats":
//! {steamID, gameName, achievements: [{apiname, achieved, unlocktime, name, description}],
//! success}}`; HTTP 403 `{"playerstats": {"error": "Profile is not public", "success":
//! false}}`), the empty `{"response": {}}` of a private profile's games and the HTML 403 of a
//! refused key were not recorded: they follow Valve's Web API documentation
//! (developer.valvesoftware.com/wiki/Steam_Web_API, partner.steamgames.com/doc/webapi) and
//! what clients of it report, kept minimal.

use serde_json::{Value, json};

use super::{KEY, Silent, call, portal};
use crate::common::{ReplayServer, Reply, TempDir, fixture};

const ID: &str = "76561197960435530";
const MAKE_PUBLIC: &str = "its owner can set 'My profile' and 'Game details' to Public in Steam's privacy settings (Steam → Profile → Edit Profile → Privacy Settings).";

fn env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![
        ("STEAM_API_URL", server.root()),
        ("STEAM_API_KEY", KEY.into()),
    ]
}

/// The recorded players, as GetPlayerSummaries v0002 lists them (`response.players[]`).
fn summaries_v2(index: usize) -> Reply {
    let recorded: Value = serde_json::from_slice(&fixture(
        "apis/steam_getplayersummaries_v0001_anonymised.json",
    ))
    .unwrap();
    let player = recorded["response"]["players"]["player"][index].clone();
    Reply::json(200, json!({"response": {"players": [player]}}).to_string())
}

#[test]
fn without_a_key_each_tool_says_where_to_get_one() {
    let home = TempDir::new("steam-nokey");
    let server = ReplayServer::unused();
    let said: Vec<String> = [
        ("steam_user_summary", r#"{"user": "gabelogannewell"}"#),
        ("steam_user_games", r#"{"user": "76561197960435530"}"#),
        (
            "steam_player_stats",
            r#"{"user": "76561197960435530", "app_id": 620}"#,
        ),
    ]
    .iter()
    .map(|(tool, arguments)| call(&home, tool, arguments, &[("STEAM_API_URL", server.root())]))
    .collect();
    for text in said {
        assert_eq!(
            text,
            "Error: The Steam Web API needs a key: set STEAM_API_KEY (or save it in the file ~/.ssh/STEAM_API_KEY). Get one, signed in to Steam, at https://steamcommunity.com/dev/apikey."
        );
    }
}

#[test]
fn a_custom_name_is_resolved_and_a_private_profile_said() {
    let home = TempDir::new("steam-summary");
    let server = ReplayServer::start(vec![
        Reply::json(
            200,
            r#"{"response": {"steamid": "12345678901234567", "success": 1}}"#,
        ),
        summaries_v2(0),
    ]);
    let text = call(
        &home,
        "steam_user_summary",
        r#"{"user": "https://steamcommunity.com/id/testaccount1/"}"#,
        &env(&server),
    );
    assert_eq!(
        text,
        format!(
            "testaccount1 (SteamID 12345678901234567)\n\
             Real name: John Dough\n\
             Status: online, playing The Witcher: Enhanced Edition (app_id 20900)\n\
             Profile: https://steamcommunity.com/profiles/123456789/\n\
             Account created: 2010-05-15\n\
             Last seen online: 2026-04-05\n\
             The profile is private: Steam shows others only its name and picture, not its games or achievements; {MAKE_PUBLIC}"
        )
    );
    let asked = server.requests();
    assert_eq!(
        asked[0].url,
        format!("/ISteamUser/ResolveVanityURL/v0001/?key={KEY}&vanityurl=testaccount1")
    );
    assert_eq!(
        asked[1].url,
        format!("/ISteamUser/GetPlayerSummaries/v0002/?key={KEY}&steamids=12345678901234567")
    );
}

/// The recorded answer resolves a group's name (it was asked with `url_type=2`): its id, kept
/// as the text it came as, is said to be a group's, and no player call is made with it.
#[test]
fn a_custom_name_of_a_group_is_said_to_be_no_person() {
    let home = TempDir::new("steam-group");
    let server = ReplayServer::start(vec![Reply::json(
        200,
        fixture("apis/steam_resolvevanityurl_success_group.json"),
    )]);
    let text = call(
        &home,
        "steam_user_summary",
        r#"{"user": "valve"}"#,
        &env(&server),
    );
    assert_eq!(
        text,
        "Error: 'valve' is the custom URL name of a Steam group (group id 103582791429521412, steamcommunity.com/groups/valve), not of a person: these tools read a person's profile. Give the person's custom URL name (steamcommunity.com/id/<name>) or 17-digit SteamID instead."
    );
    let asked = server.requests();
    assert_eq!(
        asked.len(),
        1,
        "{asked:?}",
        asked = asked.iter().map(|r| &r.url).collect::<Vec<_>>()
    );
    assert_eq!(
        asked[0].url,
        format!("/ISteamUser/ResolveVanityURL/v0001/?key={KEY}&vanityurl=valve")
    );
}

#[test]
fn a_custom_name_nobody_has_and_an_id_steam_does_not_know() {
    let home = TempDir::new("steam-nomatch");
    let server = ReplayServer::start(vec![
        Reply::json(
            200,
            r#"{"response": {"success": 42, "message": "No match"}}"#,
        ),
        Reply::json(200, r#"{"response": {"players": []}}"#),
    ]);
    let nobody = call(
        &home,
        "steam_user_games",
        r#"{"user": "no-such-name-zzqx"}"#,
        &env(&server),
    );
    assert_eq!(
        nobody,
        "Error: No Steam profile has the custom URL name 'no-such-name-zzqx' (steamcommunity.com/id/no-such-name-zzqx): check the spelling, or give the 17-digit SteamID from the profile's address."
    );
    let unknown = call(
        &home,
        "steam_user_summary",
        &format!(r#"{{"user": "{ID}"}}"#),
        &env(&server),
    );
    assert_eq!(
        unknown,
        format!("Error: Steam has no profile for SteamID {ID}: check the SteamID.")
    );
    assert_eq!(server.requests().len(), 2, "a SteamID is not resolved");
}

#[test]
fn owned_games_most_played_first_in_hours_and_a_private_list() {
    let home = TempDir::new("steam-games");
    let server = ReplayServer::start(vec![
        Reply::json(200, fixture("apis/steam_getownedgames_anonymised.json")),
        Reply::json(200, r#"{"response": {}}"#),
    ]);
    let text = call(
        &home,
        "steam_user_games",
        &format!(r#"{{"user": "{ID}"}}"#),
        &env(&server),
    );
    // 5531 and 396 minutes; rtime_last_played 1782145718.
    assert_eq!(
        text,
        format!(
            "SteamID {ID} owns 1 game, 92.2 h played in all; most played first:\n\
             1. The Witcher: Enhanced Edition (app_id 20900): 92.2 h, 6.6 h in the last two weeks, last played 2026-06-22"
        )
    );
    assert_eq!(
        server.requests()[0].url,
        format!(
            "/IPlayerService/GetOwnedGames/v0001/?key={KEY}&steamid={ID}&include_appinfo=1&include_played_free_games=1"
        )
    );
    let private = call(
        &home,
        "steam_user_games",
        &format!(r#"{{"user": "{ID}"}}"#),
        &env(&server),
    );
    assert_eq!(
        private,
        format!(
            "Error: Steam does not show the games of SteamID {ID}: the profile's game details are private; {MAKE_PUBLIC}"
        )
    );
}

#[test]
fn achievements_unlocked_and_a_profile_that_is_not_public() {
    let home = TempDir::new("steam-achievements");
    let server = ReplayServer::start(vec![
        Reply::json(
            200,
            r#"{"playerstats": {"steamID": "76561197960435530", "gameName": "Portal 2", "achievements": [
              {"apiname": "ACH_SURVIVE_CONTAINER_RIDE", "achieved": 1, "unlocktime": 1700000000, "name": "Wake Up Call", "description": "Survive the manual override of Aperture Science's relaxation chamber."},
              {"apiname": "ACH_WAKE_UP", "achieved": 1, "unlocktime": 1700003600, "name": "You Monster", "description": "Reunite with GLaDOS."},
              {"apiname": "ACH_LASER", "achieved": 0, "unlocktime": 0, "name": "Undiscouraged", "description": "Complete the first Thermal Discouragement Beam test."}
            ], "success": true}}"#,
        ),
        Reply::json(
            403,
            r#"{"playerstats": {"error": "Profile is not public", "success": false}}"#,
        ),
    ]);
    let text = call(
        &home,
        "steam_player_stats",
        &format!(r#"{{"user": "{ID}", "app_id": 620}}"#),
        &env(&server),
    );
    assert_eq!(
        text,
        format!(
            "Achievements of SteamID {ID} in Portal 2 (app_id 620): 2 of 3 unlocked (67%).\n\
             Latest unlocks:\n\
             - You Monster: Reunite with GLaDOS. (2023-11-14)\n\
             - Wake Up Call: Survive the manual override of Aperture Science's relaxation chamber. (2023-11-14)"
        )
    );
    assert_eq!(
        server.requests()[0].url,
        format!(
            "/ISteamUserStats/GetPlayerAchievements/v0001/?key={KEY}&steamid={ID}&appid=620&l=english"
        )
    );
    let private = call(
        &home,
        "steam_player_stats",
        &format!(r#"{{"user": "{ID}", "app_id": 620}}"#),
        &env(&server),
    );
    assert_eq!(
        private,
        format!(
            "Error: Steam does not show the achievements of SteamID {ID}: the profile's game details are private; {MAKE_PUBLIC}"
        )
    );
}

#[test]
fn recorded_achievements_without_names_are_told_by_their_api_names() {
    let home = TempDir::new("steam-achievements-recorded");
    let server = ReplayServer::start(vec![Reply::json(
        200,
        fixture("apis/steam_getplayerachievements_391220_TRIMMED.json"),
    )]);
    let player = "76561198109613067";
    let text = call(
        &home,
        "steam_player_stats",
        &format!(r#"{{"user": "{player}", "app_id": 391220}}"#),
        &env(&server),
    );
    // Newest first, whatever the answer's order; the API name where no name came.
    assert_eq!(
        text,
        format!(
            "Achievements of SteamID {player} in Rise of the Tomb Raider (app_id 391220): 2 of 2 unlocked (100%).\n\
             Latest unlocks:\n\
             - NEW_ACHIEVEMENT_3_1 (2019-01-05)\n\
             - NEW_ACHIEVEMENT_3_2 (2019-01-01)"
        )
    );
}

#[test]
fn a_refused_key_a_web_page_and_silence() {
    let home = TempDir::new("steam-api-errors");
    // What the Web API sends for a wrong key: an HTML 403.
    let forbidden = super::reply(
        403,
        "text/html",
        "<html><head><title>Forbidden</title></head><body><h1>Forbidden</h1>Access is denied. Retrying will not help. Please verify your <pre>key=</pre> parameter.</body></html>",
    );
    let server = ReplayServer::start(vec![forbidden, portal()]);
    let arguments = format!(r#"{{"user": "{ID}"}}"#);
    let refused = call(&home, "steam_user_summary", &arguments, &env(&server));
    assert_eq!(
        refused,
        "Error: The Steam Web API refused the key in STEAM_API_KEY (HTTP 403): check it at https://steamcommunity.com/dev/apikey."
    );
    let page = call(&home, "steam_user_games", &arguments, &env(&server));
    assert!(
        page.starts_with(
            "Error: Steam Web API answered with a web page instead of data (HTTP 200)"
        ),
        "{page}"
    );
    assert!(
        page.contains("STEAM_API_URL") && !page.contains(KEY),
        "{page}"
    );
    let silent = Silent::start();
    let text = call(
        &home,
        "steam_user_summary",
        &arguments,
        &[
            ("STEAM_API_URL", silent.url()),
            ("STEAM_API_KEY", KEY.into()),
            ("MARVIN_TOOL_TIMEOUT", "1".into()),
        ],
    );
    assert_eq!(
        text,
        "Error: Steam Web API request timed out after 1s. Try again or rephrase query."
    );
}
