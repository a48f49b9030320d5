//! spotify_search, spotify_create_playlist and spotify_add_tracks as the signed-in user: the
//! recorded search, a token refreshed before it expires (and kept 0600, the refresh token
//! kept when the answer has none), no sign-in, a 401 before and after a refresh, the accounts
//! service's invalid_client, 429 with Retry-After, HTML, a timeout; playlists created and
//! filled 100 tracks a request, tracks that are not tracks refused before any request, and a
//! change Spotify did not answer in time said as one that may have happened.

use serde_json::{Value, json};

use super::{CLIENT_ID, field, form, now, recorded, saved_token, signed_in};
use crate::common::{ReplayServer, Reply, TempDir};
use crate::everyday_web::{Silent, call, reply};

fn env(api: &ReplayServer, accounts: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![
        ("SPOTIFY_API_URL", api.root()),
        ("SPOTIFY_ACCOUNTS_URL", accounts.root()),
        ("SPOTIFY_CLIENT_ID", CLIENT_ID.to_string()),
    ]
}

const MUSE: &str = r#"{"query": "Muse", "limit": 10}"#;

#[test]
fn a_search_lists_the_recorded_tracks_with_their_uris_and_links() {
    let home = signed_in("spotify-search", "A1", 3600);
    let api = ReplayServer::start(vec![recorded(200, "spotify_search_tracks.json")]);
    let accounts = ReplayServer::unused();
    let text = call(&home, "spotify_search", MUSE, &env(&api, &accounts));
    assert!(
        text.starts_with(
            "Spotify has 11113 tracks for \"Muse\" (results 6-15):\n\
             1. Supermassive Black Hole — Muse · Black Holes And Revelations · 3:32\n   \
             spotify:track:3lPr8ghNDBLc2uZovNyLs9 · https://open.spotify.com/track/3lPr8ghNDBLc2uZovNyLs9\n\
             2. Psycho — Muse · Drones · 5:17\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n8. Keep Me Around — The Wood Brothers · The Muse · 3:39\n"),
        "{text}"
    );
    assert_eq!(
        text.lines().count(),
        21,
        "a header and two lines a track: {text}"
    );
    // The bulk of the answer, the markets, stays out.
    assert!(
        !text.contains("\"AD\"") && !text.contains("available"),
        "{text}"
    );
    let asked = &api.requests()[0];
    assert_eq!(asked.url, "/search?q=Muse&type=track&limit=10");
    assert_eq!(asked.header("Authorization"), Some("Bearer A1"));
}

#[test]
fn an_expiring_token_is_refreshed_first_and_kept_private() {
    // Expires in 30 s: within the minute's margin.
    let home = signed_in("spotify-refresh", "OLD", 30);
    let api = ReplayServer::start(vec![Reply::json(
        200,
        r#"{"tracks": {"total": 0, "items": []}}"#,
    )]);
    let accounts =
        ReplayServer::start(vec![recorded(200, "spotify_token_client_credentials.json")]);
    let text = call(
        &home,
        "spotify_search",
        r#"{"query": "zzzz"}"#,
        &env(&api, &accounts),
    );
    assert_eq!(text, "Spotify found no tracks for \"zzzz\".");
    let refresh = &accounts.requests()[0];
    assert_eq!(refresh.url, "/api/token");
    let fields = form(&refresh.raw);
    assert_eq!(field(&fields, "grant_type"), Some("refresh_token"));
    assert_eq!(field(&fields, "refresh_token"), Some("R1"));
    assert_eq!(field(&fields, "client_id"), Some(CLIENT_ID));
    let fixture: Value = serde_json::from_slice(&crate::common::fixture(
        "apis/spotify_token_client_credentials.json",
    ))
    .unwrap();
    let access = fixture["access_token"].as_str().unwrap();
    assert_eq!(
        api.requests()[0].header("Authorization"),
        Some(format!("Bearer {access}").as_str())
    );
    assert_eq!(api.requests()[0].url, "/search?q=zzzz&type=track&limit=5");
    let saved = saved_token(&home);
    assert_eq!(saved["access_token"], access);
    // The answer has no refresh token (the note says so): the old one is kept.
    assert_eq!(saved["refresh_token"], "R1");
    let expires_at = saved["expires_at"].as_i64().unwrap();
    assert!(
        (now() + 3500..=now() + 3600).contains(&expires_at),
        "{saved}"
    );
    assert_eq!(
        saved["scope"],
        "playlist-modify-private playlist-modify-public user-read-private"
    );
}

#[test]
fn without_a_sign_in_the_model_is_told_to_run_spotify_auth() {
    let home = TempDir::new("spotify-none");
    super::profile(&home);
    let api = ReplayServer::unused();
    let accounts = ReplayServer::unused();
    let text = call(&home, "spotify_search", MUSE, &env(&api, &accounts));
    assert_eq!(
        text,
        "Error: Marvin is not signed in to Spotify in this profile: run spotify_auth first (the user signs in once in a browser), then try again."
    );
}

#[test]
fn the_accounts_services_invalid_client_names_spotify_client_id() {
    let home = signed_in("spotify-invalid-client", "OLD", -10);
    let api = ReplayServer::unused();
    let accounts =
        ReplayServer::start(vec![recorded(400, "spotify_token_400_invalid_client.json")]);
    let text = call(&home, "spotify_search", MUSE, &env(&api, &accounts));
    assert_eq!(
        text,
        "Error: Spotify's accounts service does not know the client id (invalid_client: Invalid client): set SPOTIFY_CLIENT_ID to the Client ID of your app at https://developer.spotify.com/dashboard, then run spotify_auth again."
    );
    // The expired token is left as it was.
    assert_eq!(saved_token(&home)["access_token"], "OLD");
}

#[test]
fn a_401_renews_the_token_once_and_a_401_after_renewing_says_sign_in_again() {
    let expired = || {
        Reply::json(
            401,
            r#"{"error": {"status": 401, "message": "The access token expired"}}"#,
        )
    };
    let new_token = || Reply::json(200, r#"{"access_token": "A2", "expires_in": 3600}"#);
    // A token refused before its time is renewed, and the call made again.
    let home = signed_in("spotify-401-retry", "A1", 3600);
    let api = ReplayServer::start(vec![expired(), recorded(200, "spotify_search_tracks.json")]);
    let accounts = ReplayServer::start(vec![new_token()]);
    let text = call(&home, "spotify_search", MUSE, &env(&api, &accounts));
    assert!(text.starts_with("Spotify has 11113 tracks"), "{text}");
    let bearers: Vec<_> = api
        .requests()
        .iter()
        .map(|r| r.header("Authorization").unwrap().to_string())
        .collect();
    assert_eq!(bearers, ["Bearer A1", "Bearer A2"]);
    assert_eq!(saved_token(&home)["access_token"], "A2");
    // Refused right after a renewal: nothing more to try.
    let home = signed_in("spotify-401-after", "OLD", -10);
    let api = ReplayServer::start(vec![expired()]);
    let accounts = ReplayServer::start(vec![new_token()]);
    let text = call(&home, "spotify_search", MUSE, &env(&api, &accounts));
    assert_eq!(
        text,
        "Error: Spotify no longer accepts Marvin's sign-in (HTTP 401: The access token expired). Run spotify_auth to sign in again."
    );
    assert_eq!((api.requests().len(), accounts.requests().len()), (1, 1));
}

#[test]
fn rate_limits_web_pages_and_silence() {
    let home = signed_in("spotify-errors", "A1", 3600);
    let accounts = ReplayServer::unused();
    let api = ReplayServer::start(vec![
        // Longer than the client waits for: said, with the wait.
        Reply::json(
            429,
            r#"{"error": {"status": 429, "message": "API rate limit exceeded"}}"#,
        )
        .header("Retry-After", "30"),
        // Short: waited for once, then the answer.
        Reply::json(429, "{}").header("Retry-After", "1"),
        recorded(200, "spotify_search_tracks.json"),
        reply(
            502,
            "text/html",
            "<!DOCTYPE html><html><body>Bad gateway</body></html>",
        ),
    ]);
    let env = env(&api, &accounts);
    let said: Vec<String> = (0..3)
        .map(|_| call(&home, "spotify_search", MUSE, &env))
        .collect();
    assert_eq!(
        said[0],
        "Error: Spotify is limiting requests (HTTP 429): wait 30 s and try again."
    );
    assert!(
        said[1].starts_with("Spotify has 11113 tracks"),
        "{}",
        said[1]
    );
    assert!(
        said[2].starts_with("Error: Spotify answered with a web page instead of data (HTTP 502)")
            && said[2].contains("SPOTIFY_API_URL"),
        "{}",
        said[2]
    );
    let silent = Silent::start();
    let timed_out = call(
        &home,
        "spotify_search",
        MUSE,
        &[
            ("SPOTIFY_API_URL", silent.url()),
            ("SPOTIFY_CLIENT_ID", CLIENT_ID.into()),
            ("MARVIN_TOOL_TIMEOUT", "1".into()),
        ],
    );
    assert_eq!(
        timed_out,
        "Error: Spotify request timed out after 1s. Try again or rephrase query."
    );
}

/// 22 base-62 characters made from `n`.
fn track_id(n: usize) -> String {
    format!("{n:0>22}")
}

#[test]
fn a_playlist_is_created_and_filled_a_hundred_tracks_a_request() {
    let home = signed_in("spotify-playlists", "A1", 3600);
    let accounts = ReplayServer::unused();
    let playlist = "3cEYpjA9oz9GiPac4AsH4n";
    let api = ReplayServer::start(vec![
        Reply::json(
            201,
            json!({"id": playlist, "name": "Road trip", "public": false,
                   "external_urls": {"spotify": format!("https://open.spotify.com/playlist/{playlist}")},
                   "uri": format!("spotify:playlist:{playlist}")})
            .to_string(),
        ),
        Reply::json(201, r#"{"snapshot_id": "s1"}"#),
        Reply::json(201, r#"{"snapshot_id": "s2"}"#),
        Reply::json(201, r#"{"snapshot_id": "s3"}"#),
    ]);
    let env = env(&api, &accounts);
    let created = call(
        &home,
        "spotify_create_playlist",
        r#"{"name": " Road trip ", "description": "Songs for the drive"}"#,
        &env,
    );
    assert_eq!(
        created,
        format!(
            "Created the private playlist \"Road trip\": id {playlist}, https://open.spotify.com/playlist/{playlist}. Add tracks with spotify_add_tracks."
        )
    );
    let asked = &api.requests()[0];
    assert_eq!(asked.url, "/me/playlists");
    assert_eq!(asked.header("Content-Type"), Some("application/json"));
    assert_eq!(
        asked.body,
        json!({"name": "Road trip", "description": "Songs for the drive", "public": false})
    );
    // 230 tracks as ids, URIs and links, in that order.
    let tracks: Vec<String> = (0..230)
        .map(|n| match n % 3 {
            0 => track_id(n),
            1 => format!("spotify:track:{}", track_id(n)),
            _ => format!("https://open.spotify.com/track/{}?si=x{n}", track_id(n)),
        })
        .collect();
    let arguments = json!({"playlist_id": format!("https://open.spotify.com/playlist/{playlist}"), "tracks": tracks});
    let added = call(&home, "spotify_add_tracks", &arguments.to_string(), &env);
    assert_eq!(
        added,
        format!(
            "Added 230 tracks to playlist {playlist} in 3 requests (snapshot s3): https://open.spotify.com/playlist/{playlist}"
        )
    );
    let requests = api.requests();
    let sent: Vec<Vec<String>> = requests[1..]
        .iter()
        .map(|r| {
            assert_eq!(r.url, format!("/playlists/{playlist}/items"));
            serde_json::from_value(r.body["uris"].clone()).unwrap()
        })
        .collect();
    assert_eq!(
        sent.iter().map(Vec::len).collect::<Vec<_>>(),
        [100, 100, 30]
    );
    let expected: Vec<String> = (0..230)
        .map(|n| format!("spotify:track:{}", track_id(n)))
        .collect();
    assert_eq!(sent.concat(), expected);
}

#[test]
fn tracks_that_are_not_tracks_are_refused_before_any_request() {
    let home = signed_in("spotify-bad-tracks", "A1", 3600);
    let api = ReplayServer::unused();
    let accounts = ReplayServer::unused();
    let arguments = json!({"playlist_id": "3cEYpjA9oz9GiPac4AsH4n",
        "tracks": [track_id(1), "Hysteria by Muse", "spotify:album:0eFHYz8NmK75zSplL5qlfM"]});
    let text = call(
        &home,
        "spotify_add_tracks",
        &arguments.to_string(),
        &env(&api, &accounts),
    );
    assert_eq!(
        text,
        "Error: Nothing was added: 'Hysteria by Muse' (item 2), 'spotify:album:0eFHYz8NmK75zSplL5qlfM' (item 3) are not a Spotify track. Give track ids (22 letters and digits), spotify:track: URIs or open.spotify.com/track links (spotify_search finds them)."
    );
    let bad_playlist = json!({"playlist_id": "my road trip", "tracks": [track_id(1)]});
    let text = call(
        &home,
        "spotify_add_tracks",
        &bad_playlist.to_string(),
        &env(&api, &accounts),
    );
    assert!(
        text.starts_with("Error: 'my road trip' is not a Spotify playlist"),
        "{text}"
    );
}

#[test]
fn a_failure_half_way_says_how_many_were_added() {
    let home = signed_in("spotify-half-way", "A1", 3600);
    let accounts = ReplayServer::unused();
    let api = ReplayServer::start(vec![
        Reply::json(201, r#"{"snapshot_id": "s1"}"#),
        Reply::json(
            403,
            r#"{"error": {"status": 403, "message": "You cannot add tracks to a playlist you don't own."}}"#,
        ),
    ]);
    let tracks: Vec<String> = (0..150).map(track_id).collect();
    let arguments = json!({"playlist_id": "3cEYpjA9oz9GiPac4AsH4n", "tracks": tracks});
    let text = call(
        &home,
        "spotify_add_tracks",
        &arguments.to_string(),
        &env(&api, &accounts),
    );
    assert_eq!(
        text,
        "Error: Added the first 100 of 150 tracks, then: Spotify refused this (HTTP 403: You cannot add tracks to a playlist you don't own.). If it is about permissions, run spotify_auth again; an app in Development Mode serves only the users added to it at developer.spotify.com."
    );
}

#[test]
fn a_change_spotify_did_not_answer_says_to_check_before_trying_again() {
    let home = signed_in("spotify-write-timeout", "A1", 3600);
    let silent = Silent::start();
    let env = [
        ("SPOTIFY_API_URL", silent.url()),
        ("SPOTIFY_CLIENT_ID", CLIENT_ID.into()),
        ("MARVIN_TOOL_TIMEOUT", "1".into()),
    ];
    let created = call(
        &home,
        "spotify_create_playlist",
        r#"{"name": "Road trip"}"#,
        &env,
    );
    assert_eq!(
        created,
        "Error: Spotify request timed out after 1s, but the change may still have happened (Spotify may have received the request): check whether the user now has a playlist named \"Road trip\" (ask them to look in Spotify) before trying again, so it is not done twice."
    );
    let playlist = "3cEYpjA9oz9GiPac4AsH4n";
    let arguments = json!({"playlist_id": playlist, "tracks": [track_id(1)]});
    let added = call(&home, "spotify_add_tracks", &arguments.to_string(), &env);
    assert_eq!(
        added,
        format!(
            "Error: Spotify request timed out after 1s, but the change may still have happened (Spotify may have received the request): check which tracks the playlist has now (ask the user to look at https://open.spotify.com/playlist/{playlist}) before trying again, so it is not done twice."
        )
    );
}
