//! `spotify_create_playlist` (POST /me/playlists, the current endpoint) and
//! `spotify_add_tracks` (POST /playlists/{id}/items, which replaced `/tracks` in February 2026;
//! at most 100 a request, so longer lists go in chunks). Every track is checked before the
//! first request: one that is not a track leaves the playlist as it was.

use serde::Deserialize;
use serde_json::json;

use super::{api, uris};
use crate::tools::ToolContext;

/// Spotify takes at most this many items a request.
const CHUNK: usize = 100;

#[derive(Deserialize)]
pub(super) struct CreateArgs {
    name: String,
    description: Option<String>,
    public: Option<bool>,
}

pub(super) fn create_playlist(args: CreateArgs, ctx: &ToolContext) -> Result<String, String> {
    let name = args.name.trim();
    if name.is_empty() {
        return Err("The playlist needs a name.".into());
    }
    let public = args.public.unwrap_or(false);
    let mut body = json!({"name": name, "public": public});
    if let Some(description) = args.description.as_deref().map(str::trim) {
        body["description"] = json!(description);
    }
    let check = format!(
        "whether the user now has a playlist named \"{name}\" (ask them to look in Spotify)"
    );
    let made = api::post(ctx, "/me/playlists", &body, &check)?;
    let id = made["id"]
        .as_str()
        .ok_or("Spotify answered without the new playlist's id; look for it in the user's playlists before trying again.")?;
    // The link made from the id: Spotify answered with http://open.spotify.com/user/<user>/
    // playlist/<id> ones until about 2018.
    let link = format!("https://open.spotify.com/playlist/{id}");
    let name = made["name"].as_str().unwrap_or(name);
    let made_public = made["public"].as_bool().unwrap_or(public);
    let kind = |public| if public { "public" } else { "private" };
    let empty = match made["tracks"]["total"].as_u64() {
        Some(0) => " (empty)",
        _ => "",
    };
    let differs = match made_public == public {
        true => String::new(),
        false => format!(
            " Spotify made it {} although {} was asked: the user can change that in Spotify.",
            kind(made_public),
            kind(public)
        ),
    };
    Ok(format!(
        "Created the {} playlist \"{name}\"{empty}: id {id}, {link}.{differs} Add tracks with spotify_add_tracks.",
        kind(made_public)
    ))
}

#[derive(Deserialize)]
pub(super) struct AddArgs {
    playlist_id: String,
    tracks: Vec<String>,
}

pub(super) fn add_tracks(args: AddArgs, ctx: &ToolContext) -> Result<String, String> {
    let playlist = uris::playlist_id(&args.playlist_id).ok_or_else(|| {
        format!(
            "'{}' is not a Spotify playlist: give its id (22 letters and digits), its spotify:playlist: URI or its open.spotify.com/playlist link.",
            args.playlist_id.trim()
        )
    })?;
    let items = track_uris(&args.tracks)?;
    let path = format!("/playlists/{playlist}/items");
    let check = format!(
        "which tracks the playlist has now (ask the user to look at https://open.spotify.com/playlist/{playlist})"
    );
    let mut added = 0;
    let mut snapshot = None;
    for chunk in items.chunks(CHUNK) {
        let body = json!({"uris": chunk});
        let answer = api::post(ctx, &path, &body, &check).map_err(|e| match added {
            0 => e,
            _ => format!(
                "Added the first {added} of {} tracks, then: {e}",
                items.len()
            ),
        })?;
        added += chunk.len();
        // The whole answer is `{"snapshot_id": …}`: the 201 says it worked, the count is ours.
        snapshot = answer["snapshot_id"].as_str().map(str::to_string);
    }
    let requests = items.len().div_ceil(CHUNK);
    let plural = |n: usize, one: &str, many: &str| if n == 1 { one } else { many }.to_string();
    let snapshot = snapshot.map_or(String::new(), |s| format!(" (snapshot {s})"));
    Ok(format!(
        "Added {added} {} to playlist {playlist} in {requests} {}{snapshot}: https://open.spotify.com/playlist/{playlist}",
        plural(added, "track", "tracks"),
        plural(requests, "request", "requests"),
    ))
}

/// The URIs of `tracks`, or one sentence naming every one that is not a track.
fn track_uris(tracks: &[String]) -> Result<Vec<String>, String> {
    if tracks.is_empty() {
        return Err("No tracks to add: give at least one track id, URI or link.".into());
    }
    let mut wrong = Vec::new();
    let mut found = Vec::new();
    for (n, track) in tracks.iter().enumerate() {
        match uris::item_uri(track) {
            Some(uri) => found.push(uri),
            None => wrong.push(format!("'{}' (item {})", track.trim(), n + 1)),
        }
    }
    if wrong.is_empty() {
        return Ok(found);
    }
    Err(format!(
        "Nothing was added: {} {} not a Spotify track. Give track ids (22 letters and digits), spotify:track: URIs or open.spotify.com/track links (spotify_search finds them).",
        wrong.join(", "),
        if wrong.len() == 1 { "is" } else { "are" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_wrong_track_is_named_before_anything_is_sent() {
        let tracks = [
            "3lPr8ghNDBLc2uZovNyLs9".to_string(),
            "Hysteria".to_string(),
            "https://open.spotify.com/album/0eFHYz8NmK75zSplL5qlfM".to_string(),
        ];
        let said = track_uris(&tracks).unwrap_err();
        assert!(
            said.starts_with("Nothing was added: 'Hysteria' (item 2), 'https://open.spotify.com/album/0eFHYz8NmK75zSplL5qlfM' (item 3) are not a Spotify track."),
            "{said}"
        );
        assert_eq!(
            track_uris(&tracks[..1]).unwrap(),
            ["spotify:track:3lPr8ghNDBLc2uZovNyLs9"]
        );
        assert!(track_uris(&[]).is_err());
    }
}
