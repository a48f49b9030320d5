//! Riding out passing trouble and saying plainly what went wrong, through the built binary:
//! 502/503/504 and lost connections retried, an idle (not total) timeout, mistyped base URLs
//! and models explained, a captive portal's page told apart from an answer.

use crate::common::{
    ReplayServer, Reply, StallServer, TempDir, epoch, fixture, last_stderr_line, marvin,
    non_interactive, stderr, stdout,
};
use crate::scripted::{Conn, STREAM_END, Script, ScriptServer, compat, text_event};
use serde_json::json;

/// What llama.cpp's server answers while it loads its model.
const LOADING: &str =
    r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#;

fn loading() -> Reply {
    Reply::json(503, LOADING).header("Retry-After", "0.1")
}

/// A Copilot fallback: its token exchange, then one answer.
fn backup() -> ReplayServer {
    ReplayServer::start_with(|root| {
        let grant = json!({"token": "tid=backup", "expires_at": epoch() + 1800, "endpoints": {"api": root}});
        vec![
            Reply::json(200, grant.to_string()),
            Reply::text(&["Answered by the fallback."]),
        ]
    })
}

#[test]
fn a_model_still_loading_is_waited_for() {
    let home = TempDir::new("retry-loading");
    let mut replies: Vec<Reply> = (0..5).map(|_| loading()).collect();
    replies.push(Reply::text(&["Ready."]));
    let server = ReplayServer::start(replies);
    let output = non_interactive(&mut compat(&home, &server.url()), "hi");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Ready.\n");
    assert_eq!(server.requests().len(), 6);
    let err = stderr(&output);
    // Said once, however many times the server says it; the wait it asks for is taken.
    assert_eq!(
        err.matches(
            "openai-compat is still loading its model; waiting up to 60s for it (MARVIN_LOAD_WAIT)"
        )
        .count(),
        1,
        "{err}"
    );
    assert!(
        last_stderr_line(&output).starts_with("MARVIN_COST:"),
        "{err}"
    );
}

#[test]
fn server_errors_and_rate_limits_each_keep_their_own_retries() {
    let home = TempDir::new("retry-kinds");
    let limited =
        || Reply::json(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after-ms", "10");
    let server = ReplayServer::start(vec![
        loading(),
        loading(),
        limited(),
        limited(),
        limited(),
        Reply::text(&["Through."]),
    ]);
    let output = non_interactive(&mut compat(&home, &server.url()), "hi");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Through.\n");
    assert_eq!(server.requests().len(), 6);
    assert!(
        stderr(&output).contains("retrying in 0.0s (3/3)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn three_transient_failures_fall_back() {
    let home = TempDir::new("retry-then-fallback");
    let gateway = |status| Reply::json(status, "bad gateway").header("retry-after-ms", "10");
    let primary = ReplayServer::start(vec![gateway(502), gateway(504), gateway(503)]);
    let backup = backup();
    let output = compat(&home, &primary.url())
        .env("COPILOT_GITHUB_TOKEN", "gho_test")
        .env(
            "COPILOT_TOKEN_URL",
            format!("{}/copilot_internal/v2/token", backup.root()),
        )
        .args(["--non-interactive", "--prompt", "x"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Answered by the fallback.\n");
    assert_eq!(primary.requests().len(), 3, "two retries, no more");
    let err = stderr(&output);
    assert!(
        err.contains("(HTTP 502: bad gateway); retrying in 0.0s (1/2)"),
        "{err}"
    );
    assert!(
        err.contains("(HTTP 504: bad gateway); retrying in 0.0s (2/2)"),
        "{err}"
    );
    assert!(
        err.contains(
            "openai-compat had a server error (HTTP 503: bad gateway) — falling back to copilot"
        ),
        "{err}"
    );
}

#[test]
fn a_model_that_never_finishes_loading_is_waited_for_no_longer_than_asked() {
    let home = TempDir::new("retry-exhausted");
    let server = ReplayServer::start((0..100).map(|_| loading()).collect());
    let output = non_interactive(
        compat(&home, &server.url()).env("MARVIN_LOAD_WAIT", "1"),
        "x",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(server.requests().len() > 2, "{}", server.requests().len());
    let err = stderr(&output);
    assert!(
        err.contains(
            "marvin: openai-compat had a server error (HTTP 503 unavailable_error: Loading model); the server was still loading its model after 1s (MARVIN_LOAD_WAIT sets how long to wait)\n"
        ),
        "{err}"
    );
    assert!(
        last_stderr_line(&output).starts_with("MARVIN_COST:"),
        "{err}"
    );
}

#[test]
fn without_a_fallback_the_last_transient_error_is_shown() {
    let home = TempDir::new("retry-gateway");
    let gateway = || Reply::json(502, "bad gateway").header("retry-after-ms", "10");
    let server = ReplayServer::start(vec![gateway(), gateway(), gateway()]);
    let output = non_interactive(&mut compat(&home, &server.url()), "x");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(server.requests().len(), 3);
    let err = stderr(&output);
    assert!(
        err.contains("marvin: openai-compat had a server error (HTTP 502: bad gateway)\n"),
        "{err}"
    );
}

#[test]
fn a_connection_closed_before_any_byte_is_retried() {
    let home = TempDir::new("retry-closed");
    let scripts: Vec<Script> = vec![
        Box::new(Conn::close),
        Box::new(|conn: &mut Conn| {
            conn.start(200, "text/event-stream");
            conn.chunk(&text_event("Back again."));
            conn.chunk(STREAM_END.as_bytes());
            conn.end();
        }),
    ];
    let server = ScriptServer::start(scripts);
    let output = non_interactive(&mut compat(&home, &server.url()), "x");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Back again.\n");
    assert_eq!(server.requests(), 2);
    let err = stderr(&output);
    assert!(
        err.contains(&format!(
            "marvin: the connection to {} was closed before any answer",
            server.url()
        )) && err.contains("(1/2)"),
        "{err}"
    );
}

#[test]
fn a_long_answer_that_keeps_streaming_is_never_cut() {
    let home = TempDir::new("idle-steady");
    let script: Script = Box::new(|conn: &mut Conn| {
        conn.start(200, "text/event-stream");
        // Ten pieces 250 ms apart: the answer takes longer than MARVIN_TIMEOUT=1, yet
        // something arrives well within every second.
        for i in 0..10 {
            conn.pause(250);
            conn.chunk(&text_event(&format!("{i}")));
        }
        conn.chunk(STREAM_END.as_bytes());
        conn.end();
    });
    let server = ScriptServer::start(vec![script]);
    let output = non_interactive(
        compat(&home, &server.url()).env("MARVIN_TIMEOUT", "1"),
        "count",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "0123456789\n");
}

#[test]
fn silence_before_the_first_byte_says_so() {
    let headers_only: Script = Box::new(|conn: &mut Conn| {
        conn.start(200, "text/event-stream");
        conn.hold();
    });
    // Nothing at all, then the headers of a stream whose body never starts.
    for script in [Box::new(Conn::hold), headers_only] {
        let home = TempDir::new("idle-before");
        let server = ScriptServer::start(vec![script]);
        let output = non_interactive(compat(&home, &server.url()).env("MARVIN_TIMEOUT", "1"), "x");
        assert_eq!(output.status.code(), Some(1));
        let err = stderr(&output);
        assert!(
            err.contains("marvin: openai-compat did not start answering: no data for 1s after the request (MARVIN_TIMEOUT)"),
            "{err}"
        );
        assert!(
            last_stderr_line(&output).starts_with("MARVIN_COST:"),
            "{err}"
        );
    }
}

#[test]
fn silence_in_the_middle_of_an_answer_says_so() {
    let home = TempDir::new("idle-during");
    let server = StallServer::start(&String::from_utf8(text_event("Half")).unwrap());
    let output = non_interactive(compat(&home, &server.url()).env("MARVIN_TIMEOUT", "1"), "x");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "Half\n");
    let err = stderr(&output);
    assert!(
        err.contains("marvin: openai-compat stopped answering: no data for 1s after the answer started (MARVIN_TIMEOUT)"),
        "{err}"
    );
}

#[test]
fn a_base_url_without_a_scheme_is_explained() {
    let cases = [
        (
            "OPENAI_COMPAT_URL",
            "openai-compat",
            "localhost:8080/v1",
            "http://localhost:8080/v1",
        ),
        (
            "OLLAMA_URL",
            "ollama",
            "gpu-box:11434",
            "http://gpu-box:11434",
        ),
        (
            "GROQ_BASE_URL",
            "groq",
            "ftp://api.groq.com/openai/v1",
            "https://api.groq.com/openai/v1",
        ),
    ];
    for (var, provider, url, example) in cases {
        let home = TempDir::new("no-scheme");
        let output = marvin(home.path())
            .env("GROQ_API_KEY", "gsk-test")
            .env(var, url)
            .args(["--provider", provider, "--non-interactive", "--prompt", "x"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{var}");
        let expected = format!(
            "marvin: {var} must start with http:// or https://, not {url:?}; e.g. {var}={example}\n"
        );
        assert!(
            stderr(&output).starts_with(&expected),
            "{}",
            stderr(&output)
        );
        assert!(last_stderr_line(&output).starts_with("MARVIN_COST:"));
    }
}

/// Environment, arguments, the model asked for and the variable that chose it.
type ModelCase = (
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
    &'static str,
    &'static str,
);

#[test]
fn an_unknown_model_names_the_variable_to_change() {
    let body = fixture("gemini_openai_compat_error_array_404.json");
    let cases: [ModelCase; 4] = [
        (&[], &[], "qwen/qwen3-32b", "OPENAI_COMPAT_MODEL"),
        (
            &[("OPENAI_COMPAT_MODEL", "no-such-model-xyz")],
            &[],
            "no-such-model-xyz",
            "OPENAI_COMPAT_MODEL",
        ),
        (&[("MARVIN_MODEL", "m1")], &[], "m1", "MARVIN_MODEL"),
        (
            &[("MARVIN_MODEL", "m1")],
            &["--model", "m2"],
            "m2",
            "--model",
        ),
    ];
    for (env, args, model, variable) in cases {
        let home = TempDir::new("unknown-model");
        let server = ReplayServer::start(vec![Reply::json(404, body.clone())]);
        let mut command = compat(&home, &server.url());
        command.envs(env.iter().copied()).args(args);
        let output = non_interactive(&mut command, "x");
        assert_eq!(output.status.code(), Some(1), "{variable}");
        let err = stderr(&output);
        assert!(
            err.contains(&format!(
                "marvin: openai-compat does not know the model {model:?} (HTTP 404 NOT_FOUND: models/no-such-model-xyz is not found"
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "Change {variable} to a model openai-compat serves.\n"
            )),
            "{err}"
        );
    }
}

#[test]
fn an_unknown_ollama_model_can_be_pulled_or_changed() {
    let home = TempDir::new("unknown-ollama-model");
    let server = ReplayServer::start(vec![Reply::json(
        404,
        r#"{"error":"model \"llama9\" not found, try pulling it first"}"#,
    )]);
    let output = marvin(home.path())
        .env("OLLAMA_URL", server.root())
        .env("OLLAMA_MODEL", "llama9")
        .args(["--non-interactive", "--prompt", "x"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("marvin: ollama does not know the model \"llama9\" (HTTP 404: model \"llama9\" not found, try pulling it first). Change OLLAMA_MODEL to a model ollama serves. Or pull it first: ollama pull llama9\n"),
        "{err}"
    );
}

#[test]
fn a_captive_portal_page_is_a_protocol_error_not_an_empty_answer() {
    let page = "<!DOCTYPE html>\n<html><head><title>Hotel WiFi</title></head><body>Accept the terms to continue</body></html>\n";
    let html = |content_type: &str| Reply {
        status: 200,
        headers: vec![("Content-Type".into(), content_type.into())],
        body: page.into(),
        calls: Default::default(),
    };
    for reply in [
        html("text/html; charset=utf-8"),
        html("text/event-stream"),
        html("application/json"),
    ] {
        let home = TempDir::new("captive-portal");
        let server = ReplayServer::start(vec![reply]);
        let output = non_interactive(&mut compat(&home, &server.url()), "x");
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(stdout(&output), "");
        let err = stderr(&output);
        assert!(
            err.contains(&format!(
                "marvin: openai-compat answered with an HTML page, not the model API: a captive portal or proxy login page, or a wrong base URL (check OPENAI_COMPAT_URL: {})\n",
                server.url()
            )),
            "{err}"
        );
    }
    let home = TempDir::new("captive-portal-ollama");
    let server = ReplayServer::start(vec![html("text/html")]);
    let output = marvin(home.path())
        .env("OLLAMA_URL", server.root())
        .args(["--non-interactive", "--prompt", "x"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("marvin: ollama answered with an HTML page, not the model API"),
        "{}",
        stderr(&output)
    );
}
