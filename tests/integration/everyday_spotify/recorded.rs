//! spotify_search for albums, artists and playlists, spotify_create_playlist and
//! spotify_add_tracks against Spotify's own answers (recorded by spotify-web-api-java, with
//! their notes in tests/fixtures/apis/): every fact a note lists that the result should carry,
//! and the 2018 quirks said in words the model can act on (albums without a release date,
//! owners without a display name, the old user-scoped playlist URIs and http links).

use serde_json::json;

use super::{CLIENT_ID, recorded, signed_in};
use crate::common::{ReplayServer, Reply};
use crate::everyday_web::call;

/// The Web API at `api`; the accounts service (a token that is not about to expire) unused.
fn env(api: &ReplayServer, accounts: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![
        ("SPOTIFY_API_URL", api.root()),
        ("SPOTIFY_ACCOUNTS_URL", accounts.root()),
        ("SPOTIFY_CLIENT_ID", CLIENT_ID.to_string()),
    ]
}

/// A search for `kind` "Muse" against the recording `file`: what the tool said.
fn search(name: &str, kind: &str, file: &str) -> String {
    let home = signed_in(name, "A1", 3600);
    let api = ReplayServer::start(vec![recorded(200, file)]);
    let arguments = json!({"query": "Muse", "type": kind, "limit": 10}).to_string();
    let accounts = ReplayServer::unused();
    let text = call(&home, "spotify_search", &arguments, &env(&api, &accounts));
    assert_eq!(
        api.requests()[0].url,
        format!("/search?q=Muse&type={kind}&limit=10")
    );
    // The bulk of every answer, the markets and the images, stays out.
    for bulk in ["available_markets", "\"AD\"", "i.scdn.co", "images"] {
        assert!(!text.contains(bulk), "{bulk}: {text}");
    }
    text
}

#[test]
fn albums_without_a_release_date_say_where_dates_are() {
    let text = search("spotify-albums", "album", "spotify_search_albums.json");
    assert!(
        text.starts_with(
            "Spotify has 1032 albums for \"Muse\" (results 6-15):\n\
             1. Absolution — Muse · album\n   \
             spotify:album:0HcHPBu9aaF1MxOiZmUQTl · https://open.spotify.com/album/0HcHPBu9aaF1MxOiZmUQTl\n\
             2. Origin Of Symmetry (New 09 version) — Muse · album\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n3. Muse — Polyphia · album\n")
            && text.contains("\n4. Dig Down — Muse · single\n"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "\n10. Muse — Edgar Sandoval Jr · single\n   \
             spotify:album:7twRq45szqKHttKsuktIGY · https://open.spotify.com/album/7twRq45szqKHttKsuktIGY\n\
             Spotify gave no release date for these albums: music_search with kind \"album\" finds when an album came out."
        ),
        "{text}"
    );
    assert_eq!(text.lines().count(), 22, "{text}");
}

#[test]
fn artists_come_with_followers_and_popularity_and_no_image_is_needed() {
    let text = search("spotify-artists", "artist", "spotify_search_artists.json");
    assert!(
        text.starts_with(
            "Spotify has 171 artists for \"Muse\" (results 6-15):\n\
             1. Muse And The Forgetting · 2 followers · popularity 17 of 100\n   \
             spotify:artist:5l8lZmnKzCAUKKtNZMzbVO · https://open.spotify.com/artist/5l8lZmnKzCAUKKtNZMzbVO\n\
             2. Muse · 5072 followers · popularity 9 of 100\n"
        ),
        "{text}"
    );
    // No genres, no images (3 of the 10), one follower: each said as it is.
    assert!(
        text.contains("\n3. M.U.S.E. · 10 followers · popularity 0 of 100\n")
            && text.contains("\n4. MUSE · 1 follower · popularity 0 of 100\n")
            && text.contains(
                "\n5. Dangerous Muse · alternative dance · 1613 followers · popularity 15 of 100\n"
            )
            && text.contains(
                "\n6. Celtic Muse · harp, string folk · 269 followers · popularity 10 of 100\n"
            ),
        "{text}"
    );
    assert_eq!(text.lines().count(), 21, "{text}");
}

#[test]
fn playlists_name_their_owner_and_take_the_uri_spotify_add_tracks_reads() {
    let text = search(
        "spotify-playlists",
        "playlist",
        "spotify_search_playlists.json",
    );
    // The recording's URIs and links are the old user-scoped ones
    // (spotify:user:spotify:playlist:…, open.spotify.com/user/spotify/playlist/…): the
    // result gives the current forms, which spotify_add_tracks takes.
    assert!(
        text.starts_with(
            "Spotify has 21476 playlists for \"Muse\" (results 6-15):\n\
             1. This Is: Neil Young · by Spotify · 50 tracks\n   \
             spotify:playlist:37i9dQZF1DWT6VDwxLyl0W · https://open.spotify.com/playlist/37i9dQZF1DWT6VDwxLyl0W\n\
             2. Muse — Madness · by Eric Dosal · 76 tracks\n"
        ),
        "{text}"
    );
    // display_name null on 5 of the 10: the owner's user id instead.
    for line in [
        "\n4. Muse Radio · by user anoymusid · 164 tracks\n",
        "\n5. Muse - Hysteria · by user musicdeche · 170 tracks\n",
        "\n7. MUSE: Band's Picks · by user muse_official · 38 tracks\n",
        "\n8. Madness – Muse · by user tyronecleggburrell · 3 tracks\n",
        "\n10. Best of Muse · by user doggybluescarf · 86 tracks\n",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    // `public` is null in search results: nothing is said of it.
    assert!(
        !text.contains("null") && !text.contains("public") && !text.contains("private"),
        "{text}"
    );
    assert!(!text.contains("spotify:user:"), "{text}");
    assert_eq!(text.lines().count(), 21, "{text}");
}

#[test]
fn a_playlist_is_created_from_the_recorded_answer_and_filled_by_its_old_link() {
    let home = signed_in("spotify-recorded-playlist", "A1", 3600);
    let playlist = "7d2D2S200NyUE5KYs80PwO";
    let api = ReplayServer::start(vec![
        recorded(201, "spotify_create_playlist.json"),
        recorded(201, "spotify_add_items_to_playlist.json"),
        // Asked public, made private: the same recording, asked otherwise.
        recorded(201, "spotify_create_playlist.json"),
    ]);
    let accounts = ReplayServer::unused();
    let env = env(&api, &accounts);
    let created = call(
        &home,
        "spotify_create_playlist",
        r#"{"name": "A New Playlist"}"#,
        &env,
    );
    // The recorded link is http://open.spotify.com/user/thelinmichael/playlist/…: the result
    // gives the current https one; the playlist is new and empty (tracks.total 0) and the
    // description Spotify answered (null) is not read as text.
    assert_eq!(
        created,
        format!(
            "Created the private playlist \"A New Playlist\" (empty): id {playlist}, https://open.spotify.com/playlist/{playlist}. Add tracks with spotify_add_tracks."
        )
    );
    assert_eq!(api.requests()[0].url, "/me/playlists");
    assert_eq!(
        api.requests()[0].body,
        json!({"name": "A New Playlist", "public": false})
    );
    // The old link as the model may have kept it from elsewhere.
    let old_link = format!("http://open.spotify.com/user/thelinmichael/playlist/{playlist}");
    let arguments = json!({"playlist_id": old_link,
        "tracks": ["spotify:track:01iyCAUm8EvOFqVWYJ3dVX", "https://open.spotify.com/track/3lPr8ghNDBLc2uZovNyLs9"]});
    let added = call(&home, "spotify_add_tracks", &arguments.to_string(), &env);
    // The answer is only a snapshot id (with / and +, kept as it is): the count is what was
    // sent, and success is the 201.
    assert_eq!(
        added,
        format!(
            "Added 2 tracks to playlist {playlist} in 1 request (snapshot JbtmHBDBAYu3/bt8BOXKjzKx3i0b6LCa/wVjyl6qQ2Yf6nFXkbmzuEa+ZI/U1yF+): https://open.spotify.com/playlist/{playlist}"
        )
    );
    let asked = &api.requests()[1];
    assert_eq!(asked.url, format!("/playlists/{playlist}/items"));
    assert_eq!(
        asked.body,
        json!({"uris": ["spotify:track:01iyCAUm8EvOFqVWYJ3dVX", "spotify:track:3lPr8ghNDBLc2uZovNyLs9"]})
    );
    let public = call(
        &home,
        "spotify_create_playlist",
        r#"{"name": "A New Playlist", "public": true}"#,
        &env,
    );
    assert_eq!(
        public,
        format!(
            "Created the private playlist \"A New Playlist\" (empty): id {playlist}, https://open.spotify.com/playlist/{playlist}. Spotify made it private although public was asked: the user can change that in Spotify. Add tracks with spotify_add_tracks."
        )
    );
}

#[test]
fn an_add_answered_without_a_snapshot_still_says_what_was_added() {
    let home = signed_in("spotify-no-snapshot", "A1", 3600);
    let api = ReplayServer::start(vec![Reply::json(201, "{}")]);
    let accounts = ReplayServer::unused();
    let arguments = json!({"playlist_id": "spotify:user:spotify:playlist:37i9dQZF1DWT6VDwxLyl0W",
        "tracks": ["3lPr8ghNDBLc2uZovNyLs9"]});
    let added = call(
        &home,
        "spotify_add_tracks",
        &arguments.to_string(),
        &env(&api, &accounts),
    );
    assert_eq!(
        added,
        "Added 1 track to playlist 37i9dQZF1DWT6VDwxLyl0W in 1 request: https://open.spotify.com/playlist/37i9dQZF1DWT6VDwxLyl0W"
    );
}
