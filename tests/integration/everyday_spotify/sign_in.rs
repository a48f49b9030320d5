//! spotify_auth under a pseudo-terminal: the authorisation address shown with the `ssh -L`
//! line (no display over SSH), the test playing the browser on the callback (a wrong state and
//! a foreign Host refused, the flow still waiting), a local authorisation server that accepts
//! the code only with the verifier whose SHA-256 is the challenge it was sent, the tokens kept
//! 0600 and `/me` said; a declined sign-in, a code the server refuses, strangers holding
//! connections, Ctrl+C, no UI and no client id.

use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::json;

use super::{CLIENT_ID, field, form, now, profile, saved_token};
use crate::common::pty::Pty;
use crate::common::{Recorded, ReplayServer, Reply, TempDir, http_exchange, marvin, status_of};
use crate::everyday_web::call;
use crate::stranger_connections::hold_strangers;

/// What the authorisation server was told of the sign-in: the challenge from the address.
type Challenge = Arc<Mutex<Option<String>>>;

/// A local Spotify accounts service: `/api/token` gives tokens for the code `good-code` sent
/// with the verifier of the challenge (set once the address is on screen), and refuses
/// anything else as Spotify does.
fn accounts(challenge: &Challenge) -> ReplayServer {
    let challenge = Arc::clone(challenge);
    ReplayServer::answering(move |request: &Recorded| {
        let fields = form(&request.raw);
        let verifier = field(&fields, "code_verifier").unwrap_or_default();
        let expected = challenge.lock().unwrap().clone().unwrap_or_default();
        let refuse = |description: &str| {
            Reply::json(
                400,
                json!({"error": "invalid_grant", "error_description": description}).to_string(),
            )
        };
        if field(&fields, "code") != Some("good-code") {
            return refuse("Invalid authorization code");
        }
        if s256(verifier) != expected {
            return refuse("code_verifier was incorrect");
        }
        Reply::json(
            200,
            r#"{"access_token": "NEW-ACCESS", "token_type": "Bearer", "scope": "playlist-modify-private playlist-modify-public user-read-private", "expires_in": 3600, "refresh_token": "NEW-REFRESH"}"#,
        )
    })
}

/// base64url(SHA-256(verifier)) without padding, as RFC 7636 computes the challenge.
fn s256(verifier: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    let bits: String = digest.as_ref().iter().map(|b| format!("{b:08b}")).collect();
    bits.as_bytes()
        .chunks(6)
        .map(|six| {
            let six = format!("{:0<6}", std::str::from_utf8(six).unwrap());
            ALPHABET[usize::from_str_radix(&six, 2).unwrap()] as char
        })
        .collect()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A REPL over SSH whose model calls spotify_auth, then answers "All set.".
fn start(
    home: &TempDir,
    model: &ReplayServer,
    api: &ReplayServer,
    accounts: &ReplayServer,
    port: u16,
) -> Pty {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("TERM", "xterm")
        .env("SPOTIFY_CLIENT_ID", CLIENT_ID)
        .env("SPOTIFY_API_URL", api.root())
        .env("SPOTIFY_ACCOUNTS_URL", accounts.root())
        .env("SPOTIFY_REDIRECT_PORT", port.to_string())
        .env("SSH_CONNECTION", "203.0.113.9 52100 198.51.100.7 22")
        .env("USER", "ada");
    profile(home);
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("sign me in to spotify\r");
    pty
}

fn model() -> ReplayServer {
    ReplayServer::start(vec![
        Reply::tool_calls(&[("s1", "spotify_auth", "{}")]),
        Reply::text(&["All set."]),
    ])
}

/// The query of the authorisation address shown, as (name, value) pairs.
fn shown_address(pty: &Pty, accounts: &ReplayServer) -> Vec<(String, String)> {
    let start = format!("{}/authorize?", accounts.root());
    pty.wait_for(&start);
    let screen = pty.screen();
    let at = screen.find(&start).unwrap() + start.len();
    let query: String = screen[at..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '\x1b')
        .collect();
    form(&query)
}

/// A GET as a browser sends it; the status and the page.
fn get(port: u16, host: &str, path: &str) -> (u16, String) {
    let answer = http_exchange(
        port,
        &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
    );
    (status_of(&answer), answer)
}

#[test]
fn the_sign_in_checks_state_and_verifier_and_keeps_the_tokens() {
    let home = TempDir::new("spotify-sign-in");
    let challenge = Challenge::default();
    let accounts = accounts(&challenge);
    let api = ReplayServer::start(vec![Reply::json(
        200,
        r#"{"display_name": "Ada L.", "id": "ada"}"#,
    )]);
    let model = model();
    let port = free_port();
    let mut pty = start(&home, &model, &api, &accounts, port);
    let query = shown_address(&pty, &accounts);
    let redirect = format!("http://127.0.0.1:{port}/callback");
    assert_eq!(field(&query, "client_id"), Some(CLIENT_ID));
    assert_eq!(field(&query, "response_type"), Some("code"));
    assert_eq!(field(&query, "redirect_uri"), Some(redirect.as_str()));
    assert_eq!(field(&query, "code_challenge_method"), Some("S256"));
    assert_eq!(
        field(&query, "scope"),
        Some("playlist-modify-private playlist-modify-public user-read-private")
    );
    let state = field(&query, "state").unwrap().to_string();
    *challenge.lock().unwrap() = field(&query, "code_challenge").map(str::to_string);
    // Over SSH: the tunnel for the callback's port; the page is named for what it is.
    pty.wait_for(&format!("ssh -L {port}:127.0.0.1:{port} ada@198.51.100.7"));
    pty.wait_for("Waiting for the sign-in to finish in the browser; Ctrl+C stops waiting.");
    assert!(pty.screen().contains("[sign-in]"));
    assert!(!pty.screen().contains("[interview]"));
    // Another sign-in's answer, and a page of another site, are refused; the wait goes on.
    let (status, page) = get(
        port,
        &format!("127.0.0.1:{port}"),
        "/callback?code=good-code&state=not-ours",
    );
    assert_eq!(status, 400);
    assert!(
        page.contains("does not belong to the sign-in Marvin is waiting for"),
        "{page}"
    );
    let callback = format!("/callback?code=good-code&state={state}");
    let (status, _) = get(port, &format!("evil.example:{port}"), &callback);
    assert_eq!(status, 403);
    let (status, page) = get(port, &format!("127.0.0.1:{port}"), &callback);
    assert_eq!(status, 200);
    assert!(page.contains("You can close this tab"), "{page}");
    pty.wait_for("All set.");
    assert!(pty.leave().success());
    assert_eq!(
        model.requests()[1].last_tool_result(),
        "Signed in to Spotify as Ada L. (user id ada). The sign-in is kept in this profile and renewed as needed; spotify_search, spotify_create_playlist and spotify_add_tracks can be used now."
    );
    let exchange = form(&accounts.requests()[0].raw);
    assert_eq!(field(&exchange, "grant_type"), Some("authorization_code"));
    assert_eq!(field(&exchange, "redirect_uri"), Some(redirect.as_str()));
    assert_eq!(field(&exchange, "client_id"), Some(CLIENT_ID));
    assert_eq!(field(&exchange, "code_verifier").unwrap().len(), 64);
    assert_eq!(api.requests()[0].url, "/me");
    assert_eq!(
        api.requests()[0].header("Authorization"),
        Some("Bearer NEW-ACCESS")
    );
    let saved = saved_token(&home);
    assert_eq!(saved["access_token"], "NEW-ACCESS");
    assert_eq!(saved["refresh_token"], "NEW-REFRESH");
    assert!(
        saved["expires_at"].as_i64().unwrap() > now() + 3500,
        "{saved}"
    );
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the callback's server stops with the tool"
    );
    // The state and challenge live only in the address on screen: the chat log keeps none.
    let log = std::fs::read_to_string(profile(&home).join("chat_log.jsonl")).unwrap();
    assert!(
        log.contains(&format!(
            "sign-in page shown: Sign in to Spotify at {}/authorize",
            accounts.root()
        )),
        "{log}"
    );
    assert!(!log.contains(&state), "{log}");
}

#[test]
fn a_declined_sign_in_and_a_refused_code_are_said() {
    for (callback, said) in [
        (
            "error=access_denied",
            "The user declined the Spotify sign-in (access_denied). Ask them whether they want Marvin to use Spotify.",
        ),
        (
            "code=stolen-code",
            "Spotify refused the sign-in code (invalid_grant: Invalid authorization code). Run spotify_auth again and finish signing in within a few minutes.",
        ),
    ] {
        let home = TempDir::new("spotify-declined");
        // A declined sign-in never reaches the token endpoint.
        let accounts = match callback.starts_with("code") {
            true => accounts(&Challenge::default()),
            false => ReplayServer::unused(),
        };
        let api = ReplayServer::unused();
        let model = model();
        let port = free_port();
        let mut pty = start(&home, &model, &api, &accounts, port);
        let query = shown_address(&pty, &accounts);
        let state = field(&query, "state").unwrap();
        let (status, _) = get(
            port,
            &format!("localhost:{port}"),
            &format!("/callback?{callback}&state={state}"),
        );
        assert_eq!(status, 200);
        pty.wait_for("All set.");
        assert!(pty.leave().success());
        assert_eq!(
            model.requests()[1].last_tool_result(),
            format!("Error: {said}")
        );
        // The profile's tokens.json (made with the profile) holds no Spotify sign-in.
        let kept = std::fs::read_to_string(profile(&home).join("tokens.json")).unwrap();
        assert_eq!(kept.trim(), "{}");
    }
}

#[test]
fn a_body_of_100_tb_announced_to_the_callback_is_refused_and_the_sign_in_goes_on() {
    let home = TempDir::new("spotify-huge-body");
    // A declined sign-in never reaches the token endpoint.
    let (accounts, api, model) = (ReplayServer::unused(), ReplayServer::unused(), model());
    let port = free_port();
    let mut pty = start(&home, &model, &api, &accounts, port);
    let query = shown_address(&pty, &accounts);
    let state = field(&query, "state").unwrap();
    let refused = http_exchange(
        port,
        &format!(
            "POST /callback HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 100000000000000\r\n\r\n"
        ),
    );
    let callback = format!("/callback?error=access_denied&state={state}");
    let (status, _) = get(port, &format!("127.0.0.1:{port}"), &callback);
    assert_eq!(status, 200);
    pty.wait_for("All set.");
    assert!(pty.leave().success());
    assert!(refused.starts_with("HTTP/1.1 413 "), "{refused}");
    assert!(refused.contains("takes no request body"), "{refused}");
}

#[test]
fn ctrl_c_stops_waiting_and_frees_the_port() {
    let home = TempDir::new("spotify-ctrl-c");
    let accounts = ReplayServer::unused();
    let api = ReplayServer::unused();
    let model = ReplayServer::start(vec![Reply::tool_calls(&[("s1", "spotify_auth", "{}")])]);
    let port = free_port();
    let mut pty = start(&home, &model, &api, &accounts, port);
    shown_address(&pty, &accounts);
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    assert!(pty.leave().success());
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    assert!(accounts.requests().is_empty());
}

#[test]
fn without_a_terminal_or_a_client_id_the_sentence_says_what_to_do() {
    let home = TempDir::new("spotify-no-ui");
    profile(&home);
    let text = call(
        &home,
        "spotify_auth",
        "{}",
        &[("SPOTIFY_CLIENT_ID", CLIENT_ID.into())],
    );
    assert!(
        text.starts_with(
            "Error: spotify_auth needs someone at the terminal to sign in in a browser"
        ),
        "{text}"
    );
    let text = call(
        &home,
        "spotify_auth",
        "{}",
        &[("SPOTIFY_REDIRECT_PORT", "8765".into())],
    );
    assert_eq!(
        text,
        "Error: Spotify needs SPOTIFY_CLIENT_ID: create an app at https://developer.spotify.com/dashboard (Web API), add the redirect URI http://127.0.0.1:8765/callback to it exactly, and set SPOTIFY_CLIENT_ID to its Client ID before starting Marvin."
    );
}

#[test]
fn strangers_holding_connections_keep_the_browsers_answer_from_nobody() {
    let home = TempDir::new("spotify-strangers");
    // A declined sign-in never reaches the token endpoint.
    let (accounts, api, model) = (ReplayServer::unused(), ReplayServer::unused(), model());
    let port = free_port();
    let mut pty = start(&home, &model, &api, &accounts, port);
    let query = shown_address(&pty, &accounts);
    let state = field(&query, "state").unwrap();
    let held = hold_strangers(
        port,
        &format!(
            "GET /callback?code=good-code&state=not-ours HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
        ),
    );
    let callback = format!("/callback?error=access_denied&state={state}");
    let (status, page) = get(port, &format!("127.0.0.1:{port}"), &callback);
    assert_eq!(status, 200, "{page}");
    pty.wait_for("All set.");
    assert!(pty.leave().success());
    drop(held);
}
