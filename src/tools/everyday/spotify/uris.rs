//! Spotify items as people and models write them: a bare id (22 letters and digits), a
//! `spotify:track:<id>` URI, or an `open.spotify.com/track/<id>` link (with or without
//! `https://`, an `intl-xx/` part or a `?si=` query), all turned into the URI the API takes.
//! Playlists also come in the older user-scoped forms Spotify answered with until about 2018
//! (`spotify:user:<user>:playlist:<id>`, `open.spotify.com/user/<user>/playlist/<id>`).

/// The URI of a track or episode, or why `text` is not one.
pub(super) fn item_uri(text: &str) -> Option<String> {
    let (kind, id) = kind_and_id(text, "track")?;
    matches!(kind, "track" | "episode").then(|| format!("spotify:{kind}:{id}"))
}

/// The id of a playlist given as an id, a URI or a link.
pub(super) fn playlist_id(text: &str) -> Option<String> {
    match kind_and_id(text, "playlist")? {
        ("playlist", id) => Some(id.to_string()),
        _ => None,
    }
}

/// The open.spotify.com link of a URI (`spotify:track:<id>`).
pub(super) fn link(uri: &str) -> Option<String> {
    let mut parts = uri.split(':');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("spotify"), Some(kind), Some(id), None) => {
            Some(format!("https://open.spotify.com/{kind}/{id}"))
        }
        _ => None,
    }
}

/// The kind and id `text` names; a bare id is of kind `bare`.
fn kind_and_id<'a>(text: &'a str, bare: &'a str) -> Option<(&'a str, &'a str)> {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix("spotify:") {
        let rest = without_user(rest, ':');
        let (kind, id) = rest.split_once(':')?;
        return is_id(id).then_some((kind, id));
    }
    let path = ["https://", "http://"]
        .iter()
        .find_map(|scheme| text.strip_prefix(scheme))
        .unwrap_or(text);
    if let Some(path) = path.strip_prefix("open.spotify.com/") {
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let path = without_user(path.trim_start_matches('/'), '/');
        let mut parts = path.split('/').filter(|p| !p.is_empty());
        let mut kind = parts.next()?;
        if kind.starts_with("intl-") {
            kind = parts.next()?;
        }
        let id = parts.next()?;
        return (parts.next().is_none() && is_id(id)).then_some((kind, id));
    }
    is_id(text).then_some((bare, text))
}

/// `playlist<sep><id>` for `user<sep><user><sep>playlist<sep><id>`, the older form of a
/// playlist's URI and link; anything else as it is.
fn without_user(text: &str, sep: char) -> &str {
    let Some(rest) = text.strip_prefix("user").and_then(|r| r.strip_prefix(sep)) else {
        return text;
    };
    match rest.split_once(sep) {
        Some((_, playlist)) if playlist.starts_with("playlist") => playlist,
        _ => text,
    }
}

/// Spotify's ids are 22 base-62 characters.
fn is_id(text: &str) -> bool {
    text.len() == 22 && text.chars().all(|c| c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "3lPr8ghNDBLc2uZovNyLs9";

    #[test]
    fn tracks_are_read_from_ids_uris_and_links() {
        let track = Some(format!("spotify:track:{ID}"));
        let cases = [
            (ID.to_string(), track.clone()),
            (format!(" spotify:track:{ID} "), track.clone()),
            (
                format!("https://open.spotify.com/track/{ID}"),
                track.clone(),
            ),
            (
                format!("https://open.spotify.com/track/{ID}?si=a1b2c3"),
                track.clone(),
            ),
            (
                format!("open.spotify.com/intl-de/track/{ID}"),
                track.clone(),
            ),
            (format!("http://open.spotify.com/track/{ID}/"), track),
            (
                format!("spotify:episode:{ID}"),
                Some(format!("spotify:episode:{ID}")),
            ),
            (format!("spotify:album:{ID}"), None),
            (format!("https://open.spotify.com/album/{ID}"), None),
            ("spotify:track:short".to_string(), None),
            (format!("{ID}x"), None),
            ("Supermassive Black Hole".to_string(), None),
            (format!("https://example.com/track/{ID}"), None),
            (format!("https://open.spotify.com/track/{ID}/extra"), None),
            (String::new(), None),
        ];
        for (text, expected) in cases {
            assert_eq!(item_uri(&text), expected, "{text:?}");
        }
    }

    #[test]
    fn playlists_and_links() {
        let id = "3cEYpjA9oz9GiPac4AsH4n";
        for text in [
            id.to_string(),
            format!("spotify:playlist:{id}"),
            format!("https://open.spotify.com/playlist/{id}?si=x"),
            // The older user-scoped forms, in Spotify's answers until about 2018.
            format!("spotify:user:spotify:playlist:{id}"),
            format!("http://open.spotify.com/user/thelinmichael/playlist/{id}"),
        ] {
            assert_eq!(playlist_id(&text).as_deref(), Some(id), "{text}");
        }
        for text in [
            format!("spotify:track:{id}"),
            format!("spotify:user:{id}"),
            format!("https://open.spotify.com/user/{id}"),
            format!("spotify:user:x:track:{id}"),
        ] {
            assert_eq!(playlist_id(&text), None, "{text}");
        }
        assert_eq!(
            link(&format!("spotify:track:{ID}")).as_deref(),
            Some("https://open.spotify.com/track/3lPr8ghNDBLc2uZovNyLs9")
        );
        assert_eq!(link("spotify:track"), None);
    }
}
