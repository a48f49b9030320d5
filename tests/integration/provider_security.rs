//! What a hostile or broken server cannot do to Marvin, through the built binary: make it
//! buffer without end (an event or an answer that never stops ends as a protocol error with
//! the cost line still last), or make it print the credentials it sent.

use std::process::Output;

use crate::common::{
    ReplayServer, Reply, TempDir, closed_port, epoch, last_stderr_line, marvin, non_interactive,
    stderr, stdout,
};
use crate::scripted::{Conn, Script, ScriptServer, compat, text_event};
use serde_json::json;

/// The run failed with `message` on stderr, exit 1, and the cost line last.
fn failed_with(output: &Output, message: &str) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains(message), "{err}");
    assert!(
        last_stderr_line(output).starts_with("MARVIN_COST:"),
        "{err}"
    );
}

/// A script that starts a 200 of `content_type` and then sends `make()` without end.
fn endless(content_type: &'static str, prefix: &'static [u8], piece: Vec<u8>) -> Script {
    Box::new(move |conn: &mut Conn| {
        conn.start(200, content_type);
        conn.chunk(prefix);
        conn.endless(|| piece.clone());
    })
}

#[test]
fn an_event_that_never_ends_is_a_protocol_error() {
    let cases = [
        // One data line without a newline.
        (&b"data: "[..], vec![b'x'; 64 * 1024]),
        // Data lines without the blank line that ends an event.
        (
            &b""[..],
            b"data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(1024),
        ),
    ];
    for (prefix, piece) in cases {
        let home = TempDir::new("endless-event");
        let server = ScriptServer::start(vec![endless("text/event-stream", prefix, piece)]);
        let output = non_interactive(&mut compat(&home, &server.url()), "x");
        failed_with(
            &output,
            "marvin: openai-compat sent an event of more than 16 MB that never ended; that is not a chat answer, so Marvin stopped reading\n",
        );
    }
}

#[test]
fn text_that_never_stops_is_a_protocol_error() {
    let home = TempDir::new("endless-text");
    let piece = text_event(&"x".repeat(64 * 1024));
    let server = ScriptServer::start(vec![endless("text/event-stream", b"", piece)]);
    let output = non_interactive(&mut compat(&home, &server.url()), "x");
    failed_with(
        &output,
        "marvin: openai-compat sent an answer of more than 32 MB; that is not a chat answer, so Marvin stopped reading\n",
    );
    // What came before the cut was shown, as with any answer that fails midway.
    assert!(output.stdout.len() >= 32 << 20);
}

#[test]
fn ollama_lines_and_answers_are_capped_too() {
    let line =
        json!({"message": {"role": "assistant", "content": "x".repeat(64 * 1024)}, "done": false});
    let cases = [
        (
            endless(
                "application/x-ndjson",
                b"{\"message\":",
                vec![b' '; 64 * 1024],
            ),
            "marvin: ollama sent a line of more than 16 MB that never ended; that is not a chat answer, so Marvin stopped reading\n",
        ),
        (
            endless(
                "application/x-ndjson",
                b"",
                format!("{line}\n").into_bytes(),
            ),
            "marvin: ollama sent an answer of more than 32 MB; that is not a chat answer, so Marvin stopped reading\n",
        ),
    ];
    for (script, message) in cases {
        let home = TempDir::new("endless-ollama");
        let server = ScriptServer::start(vec![script]);
        let output = marvin(home.path())
            .env("OLLAMA_URL", server.root())
            .args(["--non-interactive", "--prompt", "x"])
            .output()
            .unwrap();
        failed_with(&output, message);
    }
}

/// A key that must never be printed, nor any recognisable part of it.
const KEY: &str = "sk-Zq8vR4mT7pL2xN9cW1bY6hK3jF5dG0";

fn assert_never_shown(output: &Output, secrets: &[&str]) {
    let shown = format!("{}{}", stdout(output), stderr(output));
    for secret in secrets {
        assert!(
            !shown.contains(&secret[..secret.len().min(12)]),
            "{secret} leaked: {shown}"
        );
    }
}

/// What a broken server does with the request's Authorization header.
fn echo(reply: fn(&mut Conn, String)) -> Script {
    Box::new(move |conn: &mut Conn| {
        let sent = conn.header("authorization").unwrap_or_default();
        reply(conn, format!("you sent Authorization: {sent}"));
    })
}

/// A chunk that is not JSON, the header placed where a 200-character cut would halve it.
fn malformed_chunk(conn: &mut Conn, echoed: String) {
    conn.start(200, "text/event-stream");
    let padding = "p".repeat(150);
    conn.chunk(format!("data: {{{padding} {echoed}\n\n").as_bytes());
    conn.end();
}

fn error_body(conn: &mut Conn, echoed: String) {
    conn.reply(400, &[("Content-Type", "text/plain")], echoed.as_bytes());
}

fn json_error(conn: &mut Conn, echoed: String) {
    let body = json!({"error": {"message": echoed, "code": "bad_header"}});
    conn.reply(
        500,
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    );
}

#[test]
fn an_echoed_api_key_is_redacted_everywhere() {
    let cases = [
        (
            malformed_chunk as fn(&mut Conn, String),
            "marvin: openai-compat sent a chunk that is not JSON: {ppp",
        ),
        (
            error_body,
            "marvin: openai-compat refused the request (HTTP 400: you sent Authorization: Bearer [redacted])",
        ),
        (
            json_error,
            "marvin: openai-compat had a server error (HTTP 500 bad_header: you sent Authorization: Bearer [redacted])",
        ),
    ];
    for (reply, message) in cases {
        let home = TempDir::new("echo-key");
        let server = ScriptServer::start(vec![echo(reply)]);
        let output = non_interactive(
            compat(&home, &server.url()).env("OPENAI_COMPAT_API_KEY", KEY),
            "x",
        );
        failed_with(&output, message);
        assert_never_shown(&output, &[KEY]);
    }
}

const LOGIN: &str = "gho_Lx7Qw2Er9Ty4Ui1Op6As3Df8Gh5Jk0";
const SESSION: &str = "tid=9f8e7d6c5b4a;exp=1999999999;sku=copilot_pro;8kp=1:a1b2c3d4e5f6";

/// The scripts of a server, given its root URL.
type Scripts = fn(&str) -> Vec<Script>;

/// The token exchange's answer: the session token, chats sent to `root`.
fn grant(root: &str) -> Script {
    let body = json!({"token": SESSION, "expires_at": epoch() + 1800, "endpoints": {"api": root}});
    Box::new(move |conn: &mut Conn| {
        let body = body.to_string();
        conn.reply(
            200,
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        )
    })
}

#[test]
fn copilot_tokens_are_redacted_from_the_exchange_and_the_chat() {
    let cases: [(Scripts, &str); 3] = [
        (
            |root| vec![grant(root), echo(malformed_chunk)],
            "marvin: copilot sent a chunk that is not JSON: {ppp",
        ),
        (
            |root| vec![grant(root), echo(json_error)],
            "marvin: copilot had a server error (HTTP 500 bad_header: you sent Authorization: Bearer [redacted])",
        ),
        (
            |_| vec![echo(json_error)],
            "marvin: copilot had a server error (HTTP 500 bad_header: you sent Authorization: token [redacted])",
        ),
    ];
    for (scripts, message) in cases {
        let home = TempDir::new("echo-copilot");
        let server = ScriptServer::start_with(scripts);
        let output = non_interactive(
            marvin(home.path()).env("COPILOT_GITHUB_TOKEN", LOGIN).env(
                "COPILOT_TOKEN_URL",
                format!("{}/copilot_internal/v2/token", server.root()),
            ),
            "x",
        );
        failed_with(&output, message);
        assert_never_shown(&output, &[LOGIN, SESSION, "9f8e7d6c5b4a"]);
    }
}

#[test]
fn credentials_in_a_base_url_are_never_printed() {
    let home = TempDir::new("url-credentials");
    let port = closed_port();
    let url = format!("http://alice:pw-Hunter2-secret@127.0.0.1:{port}/v1");
    let output = non_interactive(&mut compat(&home, &url), "x");
    failed_with(
        &output,
        &format!("marvin: cannot connect to http://127.0.0.1:{port}/v1: connection refused\n"),
    );
    assert_never_shown(&output, &["pw-Hunter2-secret", "alice:"]);

    let home = TempDir::new("url-credentials-html");
    let server = ReplayServer::start(vec![Reply {
        status: 200,
        headers: vec![("Content-Type".into(), "text/html".into())],
        body: b"<html>Sign in to the hotel WiFi</html>".to_vec(),
        calls: Default::default(),
    }]);
    let url = server
        .url()
        .replace("http://", "http://alice:pw-Hunter2-secret@");
    let output = non_interactive(&mut compat(&home, &url), "x");
    failed_with(
        &output,
        &format!("(check OPENAI_COMPAT_URL: {})\n", server.url()),
    );
    assert_never_shown(&output, &["pw-Hunter2-secret", "alice:"]);
}
