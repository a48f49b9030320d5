//! Every provider through local servers speaking its real protocol, and every fallback path:
//! a server error, a silent server, a connection dropped mid-answer, a 429 storm, and a
//! fallback that fails too.

use std::time::Duration;

use crate::common::{
    self, DropServer, ReplayServer, Reply, StallServer, TempDir, closed_port, epoch, fixture,
    last_stderr_line, marvin, non_interactive, stderr, stdout,
};
use marvin::cancel::CancelToken;
use marvin::config::{ProviderKind, ProviderSettings};
use marvin::llm::ollama::Ollama;
use marvin::llm::{ChatRequest, ErrorKind, Provider};
use marvin::message::Message;
use serde_json::{Value, json};

fn ollama_settings(url: String) -> ProviderSettings {
    ProviderSettings {
        kind: ProviderKind::Ollama,
        model: "llama3.2".into(),
        model_hint: "OLLAMA_MODEL".into(),
        base_url: url,
        api_key: None,
        key_hint: "OLLAMA_URL".into(),
        timeout: Duration::from_secs(20),
        proxy: None,
        token_url: String::new(),
        token_cache: None,
        facts_cache: None,
    }
}

fn ollama_chat(
    reply: Reply,
) -> (
    Result<marvin::llm::ChatResult, marvin::llm::LlmError>,
    String,
    common::Recorded,
) {
    // The recordings call the tools their own clients offered.
    let server = ReplayServer::start(vec![reply.made_up()]);
    let provider = Ollama::new(ollama_settings(server.root()));
    let messages = [Message::user("weather in Tokyo?")];
    let mut streamed = String::new();
    let result = provider.chat(
        &ChatRequest {
            messages: &messages,
            tools: None,
            tokens: 0,
        },
        &mut |t| streamed.push_str(t),
        &CancelToken::new(),
        &mut |_| {},
    );
    (result, streamed, server.requests().remove(0))
}

#[test]
fn ollama_tool_call_stream_assembles() {
    let (result, _, request) = ollama_chat(Reply::ndjson(fixture(
        "ollama_chat_stream_tool_call.ndjson",
    )));
    let result = result.unwrap();
    assert_eq!(request.url, "/api/chat");
    assert_eq!(request.body["stream"], true);
    assert_eq!(request.body["model"], "llama3.2");
    let call = &result.message.tool_calls[0];
    assert_eq!(
        (
            call.function.name.as_str(),
            call.function.arguments.as_str()
        ),
        ("get_weather", r#"{"city":"Tokyo"}"#)
    );
    assert!(!call.id.is_empty());
    let usage = result.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (169, 15));
    assert_eq!(result.finish_reason.as_deref(), Some("stop"));
}

#[test]
fn ollama_minimal_lines_with_ids_assemble() {
    let (result, _, _) = ollama_chat(Reply::ndjson(fixture(
        "ollama_chat_stream_tool_call_with_id_minimal.ndjson",
    )));
    let result = result.unwrap();
    let call = &result.message.tool_calls[0];
    assert_eq!(
        (call.id.as_str(), call.function.name.as_str()),
        ("call_1", "web_search")
    );
    assert_eq!(
        serde_json::from_str::<Value>(&call.function.arguments).unwrap(),
        json!({"query": "latest Ollama release"})
    );
    assert_eq!(result.usage.unwrap().output_tokens, 4);
}

#[test]
fn ollama_error_line_ends_the_answer_after_the_partial_text() {
    let (result, streamed, _) = ollama_chat(Reply::ndjson(fixture(
        "ollama_stream_midstream_error.ndjson",
    )));
    assert_eq!(streamed, " Yes.Ican");
    let error = result.unwrap_err();
    assert_eq!(error.kind, ErrorKind::Server);
    assert!(
        error
            .message
            .contains("an error was encountered while running the model"),
        "{}",
        error.message
    );
}

#[test]
fn ollama_http_errors_and_refused_connections_say_what_to_do() {
    let (result, _, _) = ollama_chat(Reply::json(
        404,
        r#"{"error":"model \"llama3.2\" not found, try pulling it first"}"#,
    ));
    let error = result.unwrap_err();
    assert!(
        error.message.contains("ollama pull llama3.2"),
        "{}",
        error.message
    );
    let home = TempDir::new("ollama-refused");
    let url = format!("http://127.0.0.1:{}", closed_port());
    let output = marvin(home.path())
        .env("OLLAMA_URL", &url)
        .args(["--non-interactive", "--prompt", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains(&format!(
            "marvin: Cannot connect to Ollama at {url}. Is Ollama running? Start with: ollama serve"
        )),
        "{}",
        stderr(&output)
    );
}

#[test]
fn ollama_runs_the_tool_loop_with_translated_messages() {
    let home = TempDir::new("ollama-loop");
    std::fs::write(home.path().join("a.txt"), "alpha").unwrap();
    let call = r#"{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"read_file","arguments":{"path":"a.txt"}}}]},"done":false}
{"message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":10,"eval_count":3}
"#;
    let answer = r#"{"message":{"role":"assistant","content":"It says "},"done":false}
{"message":{"role":"assistant","content":"alpha."},"done":false}
{"message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":20,"eval_count":4}
"#;
    let server = ReplayServer::start(vec![Reply::ndjson(call), Reply::ndjson(answer)]);
    let output = marvin(home.path())
        .env("OLLAMA_URL", server.root())
        .env("OLLAMA_MODEL", "qwen3")
        .args(["--non-interactive", "--prompt", "read a.txt"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "  🔧 read_file\nIt says alpha.\n");
    let messages = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let n = messages.len();
    assert_eq!(
        messages[n - 2]["tool_calls"][0]["function"],
        json!({"name": "read_file", "arguments": {"path": "a.txt"}})
    );
    assert_eq!(
        messages[n - 1],
        json!({"role": "tool", "content": "alpha", "tool_name": "read_file"})
    );
    assert!(
        stderr(&output).contains(r#""model_turns":{"qwen3":2}"#),
        "{}",
        stderr(&output)
    );
}

/// The token exchange's answer: a session token valid for `seconds`, chats sent to `api`.
fn grant(token: &str, seconds: i64, api: &str) -> Reply {
    let expires = (epoch() as i64 + seconds) as u64;
    Reply::json(200, json!({"token": token, "expires_at": expires, "refresh_in": 1500, "endpoints": {"api": api}}).to_string())
}

/// `marvin` on Copilot through `server`, which answers both the exchange and the chats.
fn copilot(home: &TempDir, server: &ReplayServer) -> std::process::Command {
    let mut command = marvin(home.path());
    command.env("COPILOT_GITHUB_TOKEN", "gho_test_login").env(
        "COPILOT_TOKEN_URL",
        format!("{}/copilot_internal/v2/token", server.root()),
    );
    command
}

#[test]
fn copilot_exchanges_the_login_then_chats_with_editor_headers_and_caches_the_session() {
    let home = TempDir::new("copilot");
    let server = ReplayServer::start_with(|root| {
        vec![
            grant("tid=session-1", 1800, root),
            Reply::text(&["Hello from Copilot."]),
            Reply::text(&["Again."]),
        ]
    });
    let first = non_interactive(&mut copilot(&home, &server), "hi");
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(stdout(&first), "Hello from Copilot.\n");
    // A second run reuses the cached session: no second exchange.
    let second = non_interactive(&mut copilot(&home, &server), "again");
    assert_eq!(stdout(&second), "Again.\n", "{}", stderr(&second));
    let requests = server.requests();
    let urls: Vec<&str> = requests.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "/copilot_internal/v2/token",
            "/chat/completions",
            "/chat/completions"
        ]
    );
    assert_eq!(
        requests[0].header("authorization"),
        Some("token gho_test_login")
    );
    assert!(requests[0].header("editor-version").is_some());
    assert_eq!(
        requests[1].header("authorization"),
        Some("Bearer tid=session-1")
    );
    assert_eq!(
        requests[1].header("copilot-integration-id"),
        Some("vscode-chat")
    );
    assert!(requests[1].header("editor-plugin-version").is_some());
    assert_eq!(requests[1].body["model"], "claude-haiku-4.5");
    use std::os::unix::fs::PermissionsExt;
    let cache = home.path().join("marvin-home/copilot-token.json");
    assert_eq!(
        std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(
        !std::fs::read_to_string(&cache)
            .unwrap()
            .contains("gho_test_login"),
        "the login itself is never cached"
    );
}

#[test]
fn an_expiring_session_is_exchanged_again_before_the_next_call() {
    let home = TempDir::new("copilot-expiry");
    let server = ReplayServer::start_with(|root| {
        vec![
            grant("tid=short", 30, root),
            Reply::tool_calls(&[("c1", "get_working_dir", "{}")]),
            grant("tid=renewed", 1800, root),
            Reply::text(&["done"]),
        ]
    });
    let output = non_interactive(&mut copilot(&home, &server), "which folder am I in?");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let requests = server.requests();
    assert_eq!(
        requests[1].header("authorization"),
        Some("Bearer tid=short")
    );
    assert_eq!(requests[2].url, "/copilot_internal/v2/token");
    assert_eq!(
        requests[3].header("authorization"),
        Some("Bearer tid=renewed")
    );
}

#[test]
fn a_rejected_session_is_renewed_once_and_the_chat_retried() {
    let home = TempDir::new("copilot-401");
    let server = ReplayServer::start_with(|root| {
        vec![
            grant("tid=revoked", 1800, root),
            Reply::json(401, r#"{"error":{"message":"token expired"}}"#),
            grant("tid=fresh", 1800, root),
            Reply::text(&["ok"]),
        ]
    });
    let output = non_interactive(&mut copilot(&home, &server), "x");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "ok\n");
    assert_eq!(
        server.requests()[3].header("authorization"),
        Some("Bearer tid=fresh")
    );
}

#[test]
fn no_copilot_subscription_is_explained() {
    let home = TempDir::new("copilot-denied");
    let server = ReplayServer::start(vec![Reply::json(404, r#"{"message":"Not Found"}"#)]);
    let output = non_interactive(&mut copilot(&home, &server), "x");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("GitHub did not grant a Copilot session (HTTP 404). Make sure the account has a Copilot subscription"), "{err}");
    assert!(
        err.contains("the login came from COPILOT_GITHUB_TOKEN"),
        "{err}"
    );
    assert!(!err.contains("gho_test_login"));
}

#[test]
fn a_session_that_cannot_be_cached_is_used_and_the_user_is_told() {
    let home = TempDir::new("copilot-no-cache");
    // A directory where the cache file should go: the session cannot be written there.
    let cache = home.path().join("marvin-home/copilot-token.json");
    std::fs::create_dir_all(&cache).unwrap();
    let server = ReplayServer::start_with(|root| {
        vec![
            grant("tid=uncached", 1800, root),
            Reply::text(&["Still here."]),
            grant("tid=uncached-2", 1800, root),
            Reply::text(&["Again."]),
        ]
    });
    let output = non_interactive(&mut copilot(&home, &server), "hi");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Still here.\n");
    let err = stderr(&output);
    let notice = format!(
        "marvin: cannot cache the Copilot session in {}: ",
        cache.display()
    );
    assert!(err.lines().any(|line| line.starts_with(&notice)), "{err}");
    assert!(
        last_stderr_line(&output).starts_with("MARVIN_COST:"),
        "{err}"
    );
    // It is an event of the turn, so --json carries it to integrators.
    let output = non_interactive(copilot(&home, &server).arg("--json"), "again");
    let notices: Vec<Value> = stdout(&output)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["type"] == "notice")
        .collect();
    assert_eq!(notices.len(), 1, "{}", stdout(&output));
    let message = notices[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&notice["marvin: ".len()..]),
        "{message}"
    );
}

#[test]
fn gh_auth_token_is_the_last_resort_login() {
    let home = TempDir::new("copilot-gh");
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(
        bin.join("gh"),
        "#!/bin/sh\n[ \"$1 $2\" = \"auth token\" ] && echo gho_from_gh_cli\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("gh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = ReplayServer::start_with(|root| {
        vec![grant("tid=gh", 1800, root), Reply::text(&["via gh"])]
    });
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let output = marvin(home.path())
        .env("PATH", path)
        .env(
            "COPILOT_TOKEN_URL",
            format!("{}/copilot_internal/v2/token", server.root()),
        )
        .args([
            "--provider",
            "copilot",
            "--non-interactive",
            "--prompt",
            "x",
        ])
        .output()
        .unwrap();
    assert_eq!(stdout(&output), "via gh\n", "{}", stderr(&output));
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("token gho_from_gh_cli")
    );
}

/// `marvin` on openai-compat at `primary` with Copilot (through `backup`) as the fallback.
fn with_fallback(home: &TempDir, primary: &str, backup: &ReplayServer) -> std::process::Command {
    let mut command = copilot(home, backup);
    command
        .env("LLM_PROVIDER", "openai-compat")
        .env("OPENAI_COMPAT_URL", primary);
    command
}

fn backup() -> ReplayServer {
    ReplayServer::start_with(|root| {
        vec![
            grant("tid=backup", 1800, root),
            Reply::text(&["Answered by the fallback."]),
        ]
    })
}

#[test]
fn a_server_error_falls_back_to_copilot_without_retyping() {
    let home = TempDir::new("fallback-5xx");
    let primary = ReplayServer::start(vec![Reply::json(
        500,
        r#"{"error":{"message":"overloaded"}}"#,
    )]);
    let backup = backup();
    let output = with_fallback(&home, &primary.url(), &backup)
        .args(["--non-interactive", "--prompt", "the question"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Answered by the fallback.\n");
    assert!(stderr(&output).contains("marvin: openai-compat failed: openai-compat had a server error (HTTP 500: overloaded) — falling back to copilot (claude-haiku-4.5)"), "{}", stderr(&output));
    assert_eq!(
        backup.requests()[1].body["messages"][1]["content"],
        "the question"
    );
    assert!(
        stderr(&output).contains(r#""model_turns":{"claude-haiku-4.5":1}"#),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_silent_server_times_out_and_falls_back() {
    let home = TempDir::new("fallback-silent");
    let silent = StallServer::start(": keep-alive\n\n");
    let backup = backup();
    let output = with_fallback(&home, &silent.url(), &backup)
        .env("MARVIN_TIMEOUT", "1")
        .args(["--non-interactive", "--prompt", "x"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&output),
        "Answered by the fallback.\n",
        "{}",
        stderr(&output)
    );
    let err = stderr(&output);
    // A run that answers once has no next call to rebuild a session for.
    assert!(!err.contains("will be rebuilt"), "{err}");
    assert!(
        err.contains("openai-compat stopped answering: no data for 1s after the answer started (MARVIN_TIMEOUT) — falling back to copilot"),
        "{err}"
    );
}

#[test]
fn a_connection_dropped_mid_answer_falls_back() {
    let home = TempDir::new("fallback-drop");
    let dropping = DropServer::start(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Half\"}}]}\n\n",
    );
    let backup = backup();
    let output = with_fallback(&home, &dropping.url(), &backup)
        .args(["--non-interactive", "--prompt", "x"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).ends_with("Answered by the fallback.\n"),
        "{}",
        stdout(&output)
    );
    assert!(
        stderr(&output).contains("— falling back to copilot"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_429_storm_is_retried_then_falls_back() {
    let home = TempDir::new("fallback-429");
    let limited =
        Reply::json(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after-ms", "10");
    let primary = ReplayServer::start(vec![
        limited.clone(),
        limited.clone(),
        limited.clone(),
        limited,
    ]);
    let backup = backup();
    let output = with_fallback(&home, &primary.url(), &backup)
        .args(["--non-interactive", "--prompt", "x"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&output),
        "Answered by the fallback.\n",
        "{}",
        stderr(&output)
    );
    assert_eq!(primary.requests().len(), 4, "three retries first");
    assert!(stderr(&output).contains("(3/3)"), "{}", stderr(&output));
}

#[test]
fn when_the_fallback_fails_too_the_error_is_shown() {
    let home = TempDir::new("fallback-both");
    let primary = ReplayServer::start(vec![Reply::json(
        500,
        r#"{"error":{"message":"primary down"}}"#,
    )]);
    let backup = ReplayServer::start(vec![Reply::json(500, r#"{"message":"github down"}"#)]);
    let output = with_fallback(&home, &primary.url(), &backup)
        .args(["--non-interactive", "--prompt", "x"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("falling back to copilot"), "{err}");
    assert!(
        err.contains("marvin: copilot had a server error (HTTP 500"),
        "{err}"
    );
    assert!(
        err.lines().last().unwrap().starts_with("MARVIN_COST:"),
        "{err}"
    );
}

#[test]
fn auth_errors_fall_back_and_marvin_fallback_chooses_the_chain() {
    let home = TempDir::new("fallback-chain");
    let primary = ReplayServer::start(vec![Reply::json(
        401,
        fixture("openai_401_invalid_api_key.json"),
    )]);
    let gemini = ReplayServer::start(vec![Reply::text(&["Gemini here."])]);
    let output = marvin(home.path())
        .env("OPENAI_API_KEY", "sk-bad")
        .env("OPENAI_BASE_URL", primary.url())
        .env("GEMINI_API_KEY", "g-key")
        .env("GEMINI_BASE_URL", gemini.url())
        .env("MARVIN_FALLBACK", "gemini")
        .args(["--provider", "openai", "--non-interactive", "--prompt", "x"])
        .output()
        .unwrap();
    assert_eq!(stdout(&output), "Gemini here.\n", "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("Check OPENAI_API_KEY. — falling back to gemini (gemini-3-pro-preview)"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        gemini.requests()[0].header("authorization"),
        Some("Bearer g-key")
    );
}

#[test]
fn list_providers_shows_models_and_sources_never_keys() {
    let home = TempDir::new("list");
    let output = marvin(home.path())
        .env("GROQ_API_KEY", "gsk-secret-value")
        .env("OLLAMA_URL", "http://127.0.0.1:1")
        .arg("--list-providers")
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(
        text.contains("groq           llama-3.3-70b-versatile  GROQ_API_KEY ← in use"),
        "{text}"
    );
    // Nothing answers at OLLAMA_URL: the row says so instead of offering it as ready.
    assert!(
        text.contains("ollama         qwen3-coder:30b          no server answers at"),
        "{text}"
    );
    assert!(
        text.contains("openai         gpt-5.1                  not set up: an API key: set"),
        "{text}"
    );
    assert!(
        text.contains("copilot") && !text.contains("gsk-secret-value"),
        "{text}"
    );
    for line in text.lines() {
        assert!(line.chars().count() < 80, "wider than 80 columns: {line}");
    }
}

#[test]
fn list_providers_shows_where_a_running_ollama_is() {
    let home = TempDir::new("list-ollama");
    let ollama = ReplayServer::answering(|_| Reply::json(200, r#"{"models": []}"#));
    let output = marvin(home.path())
        .env("OLLAMA_URL", ollama.root())
        .arg("--list-providers")
        .output()
        .unwrap();
    let words = stdout(&output)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains(&format!(
            "🦙 ollama qwen3-coder:30b {}, no key needed ← in use",
            ollama.root()
        )),
        "{words}"
    );
    assert!(ollama.requests().iter().any(|r| r.url == "/api/tags"));
}

#[test]
fn each_key_provider_uses_its_own_url_key_and_default_model() {
    let cases = [
        (
            "openai",
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "gpt-5.1",
            "groq_tool_call_single_chunk.sse",
        ),
        (
            "groq",
            "GROQ_API_KEY",
            "GROQ_BASE_URL",
            "llama-3.3-70b-versatile",
            "groq_reasoning_then_tool_call.sse",
        ),
        (
            "gemini",
            "GEMINI_API_KEY",
            "GEMINI_BASE_URL",
            "gemini-3-pro-preview",
            "gemini_openai_compat_tool_call_single_chunk.sse",
        ),
        (
            "openai-compat",
            "OPENAI_COMPAT_API_KEY",
            "OPENAI_COMPAT_URL",
            "qwen/qwen3-32b",
            "openrouter_tool_call_repeated_id_and_name.sse",
        ),
    ];
    for (name, key_var, url_var, model, stream) in cases {
        let home = TempDir::new(name);
        // A recorded tool call from that family of services, then a plain answer.
        let server =
            ReplayServer::start(vec![Reply::fixture(stream).made_up(), Reply::text(&[name])]);
        let output = marvin(home.path())
            .env(key_var, format!("key-for-{name}"))
            .env(url_var, server.url())
            .args(["--provider", name, "--non-interactive", "--prompt", "x"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        assert!(
            stdout(&output).ends_with(&format!("\n{name}\n")),
            "{name}: {}",
            stdout(&output)
        );
        let requests = server.requests();
        assert_eq!(requests[0].url, "/v1/chat/completions", "{name}");
        assert_eq!(
            requests[0].header("authorization"),
            Some(format!("Bearer key-for-{name}").as_str()),
            "{name}"
        );
        assert_eq!(requests[0].body["model"], model, "{name}");
        // The recorded call was answered (as an unknown-tool error the model can act on).
        let last = requests[1].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(last["role"], "tool", "{name}");
        assert!(
            last["content"]
                .as_str()
                .unwrap()
                .starts_with("Error: Unknown tool"),
            "{name}: {last}"
        );
    }
}
