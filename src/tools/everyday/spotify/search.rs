//! `spotify_search`: Spotify's `/search` for one type, each result as one line (name, artists,
//! album, length, album type and release, followers and popularity, owner) and a second with
//! its URI and link. The limit is Spotify's own for apps in Development Mode since February
//! 2026: at most 10.

use serde::Deserialize;
use serde_json::Value;

use super::{api, uris};
use crate::tools::ToolContext;

/// At most this many results a search (Spotify's limit for Development Mode apps).
const MAX_LIMIT: i64 = 10;

#[derive(Deserialize)]
pub(super) struct SearchArgs {
    query: String,
    #[serde(rename = "type")]
    kind: Option<String>,
    limit: Option<i64>,
}

pub(super) fn spotify_search(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = args.query.trim();
    if query.is_empty() {
        return Err("The query is empty: say what to look for.".into());
    }
    let kind = args.kind.as_deref().unwrap_or("track");
    let limit = args.limit.unwrap_or(5);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(format!(
            "limit must be between 1 and {MAX_LIMIT} (Spotify's most for one search), not {limit}."
        ));
    }
    let limit = limit.to_string();
    let query_pairs = [("q", query), ("type", kind), ("limit", limit.as_str())];
    let answer = api::get(ctx, "/search", &query_pairs)?;
    Ok(render(&answer, kind, query))
}

/// The results of a search for `kind`s.
fn render(answer: &Value, kind: &str, query: &str) -> String {
    let page = &answer[format!("{kind}s")];
    // Spotify leaves a hole (null) where an item it found cannot be shown.
    let items: Vec<&Value> = page["items"]
        .as_array()
        .map(|items| items.iter().filter(|i| i.is_object()).collect())
        .unwrap_or_default();
    if items.is_empty() {
        return format!("Spotify found no {kind}s for \"{query}\".");
    }
    let offset = page["offset"].as_u64().unwrap_or(0);
    let total = page["total"].as_u64().unwrap_or(items.len() as u64);
    let plural = if total == 1 { "" } else { "s" };
    let mut out = format!(
        "Spotify has {total} {kind}{plural} for \"{query}\" (results {}-{}):",
        offset + 1,
        offset + items.len() as u64
    );
    for (n, item) in items.iter().enumerate() {
        out.push_str(&format!("\n{}. {}", n + 1, describe(item, kind)));
        let (uri, link) = addresses(item, kind);
        out.push_str(&format!("\n   {uri} · {link}"));
    }
    // Simplified albums came without a date until about 2018, and may again.
    if kind == "album" && items.iter().any(|i| i["release_date"].as_str().is_none()) {
        let which = match items.iter().all(|i| i["release_date"].as_str().is_none()) {
            true => "these albums",
            false => "some of these albums",
        };
        out.push_str(&format!(
            "\nSpotify gave no release date for {which}: music_search with kind \"album\" finds when an album came out."
        ));
    }
    out
}

/// The result's URI and link in their current forms, made from its id: Spotify answered with
/// user-scoped ones for playlists until about 2018 (`spotify:user:<user>:playlist:<id>`,
/// `http://open.spotify.com/user/<user>/playlist/<id>`).
fn addresses(item: &Value, kind: &str) -> (String, String) {
    let uri = match item["id"].as_str() {
        Some(id) => format!("spotify:{kind}:{id}"),
        None => item["uri"].as_str().unwrap_or_default().to_string(),
    };
    let link = uris::link(&uri)
        .or_else(|| {
            item["external_urls"]["spotify"]
                .as_str()
                .map(str::to_string)
        })
        .unwrap_or_default();
    (uri, link)
}

/// One line about one result.
fn describe(item: &Value, kind: &str) -> String {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let name = text(&item["name"]);
    let mut parts = vec![match artists(item) {
        Some(artists) => format!("{name} — {artists}"),
        None => name,
    }];
    match kind {
        "track" => {
            parts.push(text(&item["album"]["name"]));
            parts.extend(item["duration_ms"].as_u64().map(length));
        }
        "album" => {
            parts.push(text(&item["album_type"]));
            parts.push(text(&item["release_date"]));
            parts.extend(item["total_tracks"].as_u64().map(|n| format!("{n} tracks")));
        }
        "artist" => {
            let genres: Vec<&str> = item["genres"]
                .as_array()
                .map(|g| g.iter().filter_map(Value::as_str).take(3).collect())
                .unwrap_or_default();
            parts.push(genres.join(", "));
            // What tells the band from its namesakes.
            parts.extend(item["followers"]["total"].as_u64().map(|n| match n {
                1 => "1 follower".to_string(),
                n => format!("{n} followers"),
            }));
            parts.extend(
                item["popularity"]
                    .as_u64()
                    .map(|p| format!("popularity {p} of 100")),
            );
        }
        _ => {
            // The display name is null for many users: their user id then.
            let owner = &item["owner"];
            let owner = match (owner["display_name"].as_str(), owner["id"].as_str()) {
                (Some(name), _) if !name.trim().is_empty() => Some(name.to_string()),
                (_, Some(id)) => Some(format!("user {id}")),
                _ => None,
            };
            parts.extend(owner.map(|o| format!("by {o}")));
            // `items` since February 2026, `tracks` before.
            let count = item["items"]["total"]
                .as_u64()
                .or(item["tracks"]["total"].as_u64());
            parts.extend(count.map(|n| format!("{n} tracks")));
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.join(" · ")
}

/// The artists' names, joined.
fn artists(item: &Value) -> Option<String> {
    let names: Vec<&str> = item["artists"]
        .as_array()?
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// `m:ss`, or `h:mm:ss` from an hour on.
fn length(ms: u64) -> String {
    let secs = (ms + 500) / 1000;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    match h {
        0 => format!("{m}:{s:02}"),
        _ => format!("{h}:{m:02}:{s:02}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lengths_are_minutes_and_seconds() {
        let cases = [
            (212_439, "3:32"),
            (0, "0:00"),
            (59_600, "1:00"),
            (3_723_000, "1:02:03"),
        ];
        for (ms, shown) in cases {
            assert_eq!(length(ms), shown, "{ms}");
        }
    }

    #[test]
    fn albums_artists_playlists_and_holes() {
        let albums = json!({"albums": {"total": 1, "offset": 0, "items": [null, {
            "name": "Absolution", "artists": [{"name": "Muse"}], "release_date": "2003-09-15",
            "total_tracks": 14, "uri": "spotify:album:0eFHYz8NmK75zSplL5qlfM"}]}});
        assert_eq!(
            render(&albums, "album", "absolution"),
            "Spotify has 1 album for \"absolution\" (results 1-1):\n1. Absolution — Muse · 2003-09-15 · 14 tracks\n   spotify:album:0eFHYz8NmK75zSplL5qlfM · https://open.spotify.com/album/0eFHYz8NmK75zSplL5qlfM"
        );
        let artist = json!({"name": "Muse", "genres": ["rock", "alternative rock"]});
        assert_eq!(describe(&artist, "artist"), "Muse · rock, alternative rock");
        let playlist =
            json!({"name": "Drive", "owner": {"display_name": "Ada"}, "items": {"total": 12}});
        assert_eq!(
            describe(&playlist, "playlist"),
            "Drive · by Ada · 12 tracks"
        );
        let empty = json!({"tracks": {"total": 0, "items": []}});
        assert_eq!(
            render(&empty, "track", "zzz"),
            "Spotify found no tracks for \"zzz\"."
        );
    }
}
