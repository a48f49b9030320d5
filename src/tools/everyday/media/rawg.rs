//! RAWG (api.rawg.io): a search of games by name (`/games?search=`) and one game's details
//! (`/games/{id or slug}`: the plain `description_raw` rather than the HTML, the number of
//! ratings, the playtime in hours, Metacritic per platform), read into text. An unknown game
//! is a 404 (`{"detail": "Not found."}`), a refused key a 401 (`{"error": "..."}`); each is
//! one sentence.

use serde_json::Value;

use crate::services::RAWG;
use crate::tools::ToolContext;
use crate::tools::kit::web::{Call, Fetched, encode};

/// Where a key comes from.
pub(super) const GET_KEY: &str = "https://rawg.io/apidocs";
/// The most of a description shown.
const MAX_DESCRIPTION: usize = 3000;

/// One request (the key added): the JSON, `None` for a 404, or a sentence.
fn ask(
    ctx: &ToolContext,
    key: &str,
    path: &str,
    pairs: &[(&str, &str)],
) -> Result<Option<Value>, String> {
    let web = &ctx.settings.web;
    let mut query = vec![("key", key)];
    query.extend_from_slice(pairs);
    let call = Call {
        query: &query,
        ..Call::default()
    };
    let fetched = web.call(&RAWG, path, &call, &ctx.cancel)?;
    if let Some(refused) = refused(&fetched) {
        return Err(web.redact(&RAWG, &refused));
    }
    if fetched.status == 404 && !crate::net::is_html(fetched.content_type.as_deref(), &fetched.body)
    {
        return Ok(None);
    }
    web.read_json(&RAWG, &fetched).map(Some)
}

/// The sentence for a key RAWG does not take.
fn refused(fetched: &Fetched) -> Option<String> {
    if fetched.status != 401 && fetched.status != 403 {
        return None;
    }
    let said = serde_json::from_slice::<Value>(&fetched.body)
        .ok()
        .and_then(|v| {
            v["error"]
                .as_str()
                .or(v["detail"].as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| format!("HTTP {}", fetched.status));
    Some(format!(
        "RAWG refused the key in RAWG_API_KEY ({said}): check it, or get a free one at {GET_KEY}."
    ))
}

pub(super) fn search(
    ctx: &ToolContext,
    key: &str,
    query: &str,
    max: &str,
) -> Result<String, String> {
    let pairs = [("search", query), ("page_size", max)];
    let value = ask(ctx, key, "/games", &pairs)?.unwrap_or_default();
    Ok(list(&value, query, max.parse().unwrap_or(usize::MAX)))
}

/// A search's games, numbered, each with its id for get_game_details: no more than were asked
/// for, whatever the page holds.
fn list(value: &Value, query: &str, max: usize) -> String {
    let games = value["results"].as_array().map_or(&[][..], Vec::as_slice);
    let games = &games[..games.len().min(max)];
    if games.is_empty() {
        return format!("RAWG has no game matching '{query}'. Try other or fewer words.");
    }
    let mut out = format!("RAWG games for '{query}'");
    match value["count"].as_u64() {
        Some(count) if count > games.len() as u64 => {
            out.push_str(&format!(" ({count} in all, the first {}):", games.len()));
        }
        _ => out.push(':'),
    }
    for (i, game) in games.iter().enumerate() {
        out.push_str(&format!("\n\n{}. {}", i + 1, summary(game)));
    }
    out.push_str("\n\nDetails of one with get_game_details (its id or slug).");
    out
}

/// A game's name, id, slug and the facts a search gives.
fn summary(game: &Value) -> String {
    let mut text = format!(
        "{} (id {}, slug {})",
        text_of(game, "name").unwrap_or("(unnamed)"),
        game["id"].as_i64().unwrap_or(0),
        text_of(game, "slug").unwrap_or("unknown")
    );
    let facts = facts(game);
    if !facts.is_empty() {
        text.push_str(&format!("\n   {}", facts.join("; ")));
    }
    text
}

/// Released, rating, Metacritic, platforms, genres: those the answer has.
fn facts(game: &Value) -> Vec<String> {
    let released = match text_of(game, "released") {
        Some(date) => Some(format!("released {date}")),
        None if game["tba"].as_bool() == Some(true) => Some("release date to be announced".into()),
        None => None,
    };
    // Players rate 1 to 5; `rating_top` is the rating given most, not the scale.
    let rating = game["rating"]
        .as_f64()
        .filter(|r| *r > 0.0)
        .map(|r| format!("rating {r:.2}/5"));
    let metacritic = game["metacritic"]
        .as_i64()
        .map(|m| format!("Metacritic {m}"));
    let platforms = names(game, "platforms", "/platform/name").map(|p| format!("on {p}"));
    let genres = names(game, "genres", "/name").map(|g| format!("genres {g}"));
    let esrb = game
        .pointer("/esrb_rating/name")
        .and_then(Value::as_str)
        .map(|name| format!("ESRB {name}"));
    [released, rating, metacritic, platforms, genres, esrb]
        .into_iter()
        .flatten()
        .collect()
}

pub(super) fn details(ctx: &ToolContext, key: &str, game: &str) -> Result<String, String> {
    let wanted = id_or_slug(game);
    if wanted.is_empty() {
        return Err(format!(
            "'{game}' is not a RAWG id, slug or name: find the game with search_games."
        ));
    }
    match ask(ctx, key, &format!("/games/{}", encode(&wanted)), &[])? {
        None => Err(format!(
            "RAWG has no game '{wanted}': find it with search_games and ask with its id."
        )),
        Some(value) => Ok(describe(&value)),
    }
}

/// An id as it is; a name or slug as RAWG's slugs are made (`The Witcher 3: Wild Hunt` →
/// `the-witcher-3-wild-hunt`).
fn id_or_slug(game: &str) -> String {
    let game = game.trim();
    if game.bytes().all(|b| b.is_ascii_digit()) {
        return game.to_string();
    }
    let mut slug = String::new();
    for c in game.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') && c != '\'' {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_string()
}

/// One game's details as text.
fn describe(game: &Value) -> String {
    let mut lines = vec![summary(game)];
    let counted = [
        game["ratings_count"]
            .as_u64()
            .filter(|n| *n > 0)
            .map(|n| format!("rated by {n} RAWG users")),
        game["playtime"]
            .as_u64()
            .filter(|h| *h > 0)
            .map(|h| format!("average playtime {h} hours")),
    ];
    let counted: Vec<String> = counted.into_iter().flatten().collect();
    if !counted.is_empty() {
        lines.push(capitalised(&counted.join("; ")));
    }
    if let Some(scores) = platform_scores(game) {
        lines.push(format!("Metacritic by platform: {scores}"));
    }
    for (label, field) in [("Developers", "developers"), ("Publishers", "publishers")] {
        if let Some(list) = names(game, field, "/name") {
            lines.push(format!("{label}: {list}"));
        }
    }
    if let Some(site) = text_of(game, "website") {
        lines.push(format!("Website: {site}"));
    }
    if let Some(slug) = text_of(game, "slug") {
        lines.push(format!("RAWG: https://rawg.io/games/{slug}"));
    }
    let mut out = lines.join("\n");
    let description = text_of(game, "description_raw")
        .map(str::to_string)
        .or_else(|| text_of(game, "description").map(crate::tools::kit::html::fragment));
    if let Some(text) = description {
        out.push_str(&format!("\n\n{}", cut(&text)));
    }
    out
}

/// `PC 96, PlayStation 3 97`: `metacritic_platforms`, each platform's own score.
fn platform_scores(game: &Value) -> Option<String> {
    let scores: Vec<String> = game["metacritic_platforms"]
        .as_array()?
        .iter()
        .filter_map(|item| {
            let name = item.pointer("/platform/name").and_then(Value::as_str)?;
            Some(format!("{name} {}", item["metascore"].as_i64()?))
        })
        .collect();
    (!scores.is_empty()).then(|| scores.join(", "))
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn cut(text: &str) -> String {
    if text.len() <= MAX_DESCRIPTION {
        return text.to_string();
    }
    let mut end = MAX_DESCRIPTION;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", text[..end].trim_end())
}

fn text_of<'a>(value: &'a Value, name: &str) -> Option<&'a str> {
    value[name]
        .as_str()
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

/// `PC, PlayStation 4`: the names at `at` in each item of the list `field`.
fn names(value: &Value, field: &str, at: &str) -> Option<String> {
    let list: Vec<&str> = value[field]
        .as_array()?
        .iter()
        .filter_map(|item| item.pointer(at).and_then(Value::as_str))
        .collect();
    (!list.is_empty()).then(|| list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_become_slugs() {
        for (given, wanted) in [
            ("3328", "3328"),
            ("the-witcher-3-wild-hunt", "the-witcher-3-wild-hunt"),
            ("The Witcher 3: Wild Hunt", "the-witcher-3-wild-hunt"),
            ("Baldur's Gate 3", "baldurs-gate-3"),
            ("  Half-Life 2  ", "half-life-2"),
            ("???", ""),
        ] {
            assert_eq!(id_or_slug(given), wanted, "{given}");
        }
    }

    #[test]
    fn a_game_without_most_facts() {
        let game = json!({"id": 1, "slug": "x", "name": "X", "released": null, "tba": true,
            "rating": 0, "rating_top": 0, "metacritic": null, "platforms": null, "genres": []});
        assert_eq!(
            summary(&game),
            "X (id 1, slug x)\n   release date to be announced"
        );
        assert_eq!(
            list(&json!({"count": 0, "results": []}), "zz", 10),
            "RAWG has no game matching 'zz'. Try other or fewer words."
        );
    }
}
