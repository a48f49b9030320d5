//! Streams that never get anywhere, through the built binary: keep-alives, empty events and
//! blank lines do not hold a run past MARVIN_TIMEOUT (it times out and falls back).

use std::process::{Command, Output};

use crate::common::{
    ReplayServer, Reply, TempDir, epoch, last_stderr_line, marvin, non_interactive, stderr, stdout,
};
use crate::scripted::{Conn, Script, ScriptServer, compat, text_event};
use serde_json::json;

/// A keep-alive comment, as OpenAI-compatible servers send them.
const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";
/// A chunk whose delta carries nothing.
const EMPTY_DELTA: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}]}\n\n";
/// A data event with nothing a chat answer has.
const UNREAD_EVENT: &[u8] = b"data: {\"object\":\"ping\"}\n\n";
/// An Ollama line that adds nothing to the answer.
const EMPTY_LINE: &[u8] =
    b"{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":false}\n";

/// A 200 of `content_type` that sends `first`, then `filler` every 50 ms until the client
/// hangs up, and after 30 s ends (without an end mark): a run still reading by then was held.
fn filler(content_type: &'static str, first: Vec<u8>, filler: &'static [u8]) -> Script {
    Box::new(move |conn: &mut Conn| {
        conn.start(200, content_type);
        conn.chunk(&first);
        for _ in 0..600 {
            if !conn.chunk(filler) {
                return;
            }
            conn.pause(50);
        }
        conn.end();
    })
}

/// Marvin against the Ollama server at `root`.
fn ollama(home: &TempDir, root: &str) -> Command {
    let mut command = marvin(home.path());
    command.env("OLLAMA_URL", root);
    command
}

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

#[test]
fn keep_alives_alone_time_out_and_fall_back() {
    let home = TempDir::new("keep-alives-fall-back");
    let primary = ScriptServer::start(vec![filler("text/event-stream", Vec::new(), KEEP_ALIVE)]);
    let backup = ReplayServer::start_with(|root| {
        let grant = json!({"token": "tid=backup", "expires_at": epoch() + 1800, "endpoints": {"api": root}});
        vec![
            Reply::json(200, grant.to_string()),
            Reply::text(&["Answered by the fallback."]),
        ]
    });
    let output = non_interactive(
        compat(&home, &primary.url())
            .env("MARVIN_TIMEOUT", "1")
            .env("COPILOT_GITHUB_TOKEN", "gho_test")
            .env(
                "COPILOT_TOKEN_URL",
                format!("{}/copilot_internal/v2/token", backup.root()),
            ),
        "x",
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert_eq!(stdout(&output), "Answered by the fallback.\n");
    assert!(
        err.contains("openai-compat timed out; its session will be rebuilt"),
        "{err}"
    );
    assert!(
        err.contains("openai-compat did not start answering: nothing but keep-alives or empty events for 1s after the request (MARVIN_TIMEOUT) — falling back to copilot"),
        "{err}"
    );
}

#[test]
fn events_that_carry_nothing_time_out() {
    let started = |what: &str| {
        format!(
            "marvin: openai-compat {what}: nothing but keep-alives or empty events for 1s after"
        )
    };
    let cases = [
        (
            Vec::new(),
            KEEP_ALIVE,
            started("did not start answering"),
            "",
        ),
        (
            Vec::new(),
            EMPTY_DELTA,
            started("did not start answering"),
            "",
        ),
        (
            Vec::new(),
            UNREAD_EVENT,
            started("did not start answering"),
            "",
        ),
        (
            text_event("Half"),
            KEEP_ALIVE,
            started("stopped answering") + " the answer started (MARVIN_TIMEOUT)",
            "Half\n",
        ),
        (
            text_event("Half"),
            EMPTY_DELTA,
            started("stopped answering"),
            "Half\n",
        ),
    ];
    for (first, filling, message, shown) in cases {
        let home = TempDir::new("empty-events");
        let server = ScriptServer::start(vec![filler("text/event-stream", first, filling)]);
        let output = non_interactive(compat(&home, &server.url()).env("MARVIN_TIMEOUT", "1"), "x");
        failed_with(&output, &message);
        assert_eq!(stdout(&output), shown, "{message}");
    }
}

#[test]
fn ollama_blank_and_empty_lines_time_out() {
    for filling in [&b"\n"[..], EMPTY_LINE] {
        let home = TempDir::new("ollama-empty-lines");
        let server = ScriptServer::start(vec![filler("application/x-ndjson", Vec::new(), filling)]);
        let output = non_interactive(
            ollama(&home, &server.root()).env("MARVIN_TIMEOUT", "1"),
            "x",
        );
        failed_with(
            &output,
            "marvin: ollama did not start answering: nothing but keep-alives or empty events for 1s after the request (MARVIN_TIMEOUT)\n",
        );
    }
}
