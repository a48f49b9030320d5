//! Streams that never get anywhere or stop short, through the built binary: keep-alives, empty
//! events and blank lines do not hold a run past MARVIN_TIMEOUT (it times out and falls back),
//! and a stream that ends without its end mark is an error, not a finished answer: sent again
//! when none of it was shown, never when it was, and `cut` in the `--json` error event.

use std::process::{Command, Output};

use crate::common::{
    ReplayServer, Reply, TempDir, epoch, last_stderr_line, marvin, non_interactive, stderr, stdout,
};
use crate::scripted::{Conn, Script, ScriptServer, compat, text_event};
use serde_json::{Value, json};

/// A keep-alive comment, as OpenAI-compatible servers send them.
const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";
/// A chunk whose delta carries nothing.
const EMPTY_DELTA: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}]}\n\n";
/// A data event with nothing a chat answer has.
const UNREAD_EVENT: &[u8] = b"data: {\"object\":\"ping\"}\n\n";
/// An Ollama line that adds nothing to the answer.
const EMPTY_LINE: &[u8] =
    b"{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":false}\n";
/// The start of an answer that stops there.
const CUT: &str =
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"The answer is\"}}]}\n\n";

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
    // A run that answers once has no next call to rebuild a session for.
    assert!(!err.contains("rebuilt for the next call"), "{err}");
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

/// The error of a stream cut after "The answer is" was shown.
const CUT_SHOWN: &str = "marvin: the answer from openai-compat ended early: its stream closed without a finish reason or [DONE] (cut by a proxy or the server); the text shown is only its start\n";

#[test]
fn a_stream_cut_after_text_is_an_error_and_not_asked_again() {
    let home = TempDir::new("cut-shown");
    // Were the cut answer asked for again, the second would follow the first on stdout.
    let server = ReplayServer::start(vec![Reply::sse(CUT), Reply::text(&["The answer is 42."])]);
    let output = non_interactive(&mut compat(&home, &server.url()), "x");
    failed_with(&output, CUT_SHOWN);
    assert_eq!(stdout(&output), "The answer is\n");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn json_says_the_answer_was_cut() {
    let home = TempDir::new("cut-json");
    let server = ReplayServer::start(vec![Reply::sse(CUT)]);
    let output = non_interactive(compat(&home, &server.url()).arg("--json"), "x");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    // The request's tools come first, then what the answer said before it broke off.
    let events: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["type"] != "tools")
        .collect();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0], json!({"type": "text", "text": "The answer is"}));
    let message = CUT_SHOWN
        .trim_start_matches("marvin: ")
        .trim_end_matches('\n');
    assert_eq!(
        events[1],
        json!({"type": "error", "kind": "network", "message": message, "cut": true})
    );
    assert_eq!(events[2]["type"], "usage");
}

#[test]
fn a_stream_cut_before_any_text_is_sent_again() {
    let home = TempDir::new("cut-unseen");
    let role_only = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n";
    let server = ReplayServer::start(vec![Reply::sse(role_only), Reply::text(&["Whole."])]);
    let output = non_interactive(&mut compat(&home, &server.url()), "x");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert_eq!(stdout(&output), "Whole.\n");
    assert_eq!(server.requests().len(), 2);
    assert!(
        err.contains("marvin: the answer from openai-compat ended early: its stream closed without a finish reason or [DONE] (cut by a proxy or the server); retrying in"),
        "{err}"
    );
}

#[test]
fn an_empty_stream_is_an_error_after_its_retries() {
    let home = TempDir::new("cut-empty");
    let server = ReplayServer::start(vec![Reply::sse(""), Reply::sse(""), Reply::sse("")]);
    let output = non_interactive(&mut compat(&home, &server.url()), "x");
    failed_with(
        &output,
        "marvin: the answer from openai-compat ended early: its stream closed without a finish reason or [DONE] (cut by a proxy or the server)\n",
    );
    assert_eq!(stdout(&output), "");
    assert_eq!(server.requests().len(), 3, "two retries");
}

#[test]
fn an_ollama_stream_without_its_last_line_is_an_error() {
    let home = TempDir::new("cut-ollama");
    let line = "{\"message\":{\"role\":\"assistant\",\"content\":\"Partly\"},\"done\":false}\n";
    let server = ReplayServer::start(vec![Reply::ndjson(line)]);
    let output = non_interactive(&mut ollama(&home, &server.root()), "x");
    failed_with(
        &output,
        "marvin: the answer from ollama ended early: its stream closed without the line that says \"done\": true (cut by a proxy or the server); the text shown is only its start\n",
    );
    assert_eq!(stdout(&output), "Partly\n");
    assert_eq!(server.requests().len(), 1);
}
