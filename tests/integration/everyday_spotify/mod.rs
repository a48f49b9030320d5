//! The Spotify family of issue 16 through the built binary: the sign-in (Authorization Code
//! with PKCE) under a pseudo-terminal against a local authorisation server that checks the
//! verifier against the challenge it was sent, the test playing the browser on the callback;
//! then the Web API tools against local servers replaying Spotify's recorded answers (notes
//! in tests/fixtures/apis/): spotify_search_tracks.json, spotify_token_client_credentials.json
//! (a token answer without a refresh token) and spotify_token_400_invalid_client.json in
//! `api`; spotify_search_albums.json, spotify_search_artists.json,
//! spotify_search_playlists.json, spotify_create_playlist.json and
//! spotify_add_items_to_playlist.json in `recorded`. The errors Spotify was not recorded giving
//! (401, 403, 429), the chunked adds and `/me` follow the Web API reference, reduced to the
//! fields the tools read.

mod api;
mod recorded;
mod sign_in;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::common::{Reply, TempDir, fixture};

pub const CLIENT_ID: &str = "marvin-test-client";

/// A recorded answer from tests/fixtures/apis/, as JSON with this status.
pub fn recorded(status: u16, name: &str) -> Reply {
    Reply::json(status, fixture(&format!("apis/{name}")))
}

/// The default profile's directory under `home`, made.
pub fn profile(home: &TempDir) -> PathBuf {
    let dir = home.path().join("marvin-home/profiles/default");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A home whose profile is signed in with access token `access`, expiring `expires_in`
/// seconds from now (negative: already expired), refresh token `R1`.
pub fn signed_in(name: &str, access: &str, expires_in: i64) -> TempDir {
    let home = TempDir::new(name);
    let tokens = json!({"spotify": {
        "access_token": access,
        "refresh_token": "R1",
        "expires_at": now() + expires_in,
        "scope": "playlist-modify-private playlist-modify-public user-read-private"
    }});
    std::fs::write(profile(&home).join("tokens.json"), tokens.to_string()).unwrap();
    home
}

/// The profile's Spotify entry in tokens.json, after checking the file is private.
pub fn saved_token(home: &TempDir) -> Value {
    let path = profile(home).join("tokens.json");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o777,
        0o600,
        "tokens.json is readable by the user alone"
    );
    let all: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    all["spotify"].clone()
}

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// The fields of a form body (`a=1&b=2`), decoded.
pub fn form(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}

pub fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// Percent-decoding (and `+` as a space), as a server reads a form or a query.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}
