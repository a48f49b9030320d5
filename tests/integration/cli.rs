//! The built binary against local replay servers: flags, set-up help, the non-interactive
//! contract, the tool loop, errors, stdin handling, Ctrl+C and closed pipes.

use std::io::{Read, Write};
use std::process::Stdio;

use crate::common::{
    self, ReplayServer, Reply, TempDir, git, last_stderr_line, marvin, non_interactive,
    run_with_stdin, stderr, stdout,
};
use serde_json::Value;

/// `marvin` pointed at `server` through the openai-compat provider, with model gpt-4o.
fn against(home: &TempDir, server: &ReplayServer) -> std::process::Command {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("OPENAI_COMPAT_API_KEY", "sk-test-secret")
        .env("MARVIN_MODEL", "gpt-4o");
    command
}

/// `marvin --non-interactive --prompt PROMPT` against `server`, run to the end.
fn ask(home: &TempDir, server: &ReplayServer, prompt: &str) -> std::process::Output {
    non_interactive(&mut against(home, server), prompt)
}

fn cost_line(output: &std::process::Output) -> Value {
    let line = last_stderr_line(output);
    let json = line
        .strip_prefix("MARVIN_COST:")
        .unwrap_or_else(|| panic!("last stderr line: {line:?}"));
    serde_json::from_str(json).unwrap()
}

/// What --version should say for this checkout: the version, and the commit with `dirty` when
/// tracked files differ from it (the binary was built from the tree the tests run in).
fn expected_version() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    let version = env!("CARGO_PKG_VERSION");
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(hash) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|changes| !changes.is_empty());
            let dirty = if dirty { " dirty" } else { "" };
            format!("marvin {version} (commit {hash}{dirty})\n")
        }
        None => format!("marvin {version}\n"),
    }
}

#[test]
fn version_and_help_need_no_configuration() {
    let home = TempDir::new("version");
    let output = marvin(home.path()).arg("--version").output().unwrap();
    assert!(output.status.success());
    assert_eq!(stdout(&output), expected_version());
    let output = marvin(home.path()).arg("--help").output().unwrap();
    assert!(output.status.success());
    assert!(stdout(&output).contains("--non-interactive"));
    assert!(stdout(&output).contains("MARVIN_HOME"));
    // The services' variables come from the table in src/services.rs.
    assert!(stdout(&output).contains("\n  ntfy           ntfy notifications: NTFY_URL"));
}

#[test]
fn nothing_configured_explains_the_setup_and_exits_1() {
    let home = TempDir::new("setup");
    let output = marvin(home.path()).arg("hello").output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.starts_with("marvin: no language model is set up."),
        "{err}"
    );
    assert!(err.contains("export OPENAI_API_KEY=sk-..."), "{err}");
    assert!(err.contains("OPENAI_COMPAT_URL"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    assert_eq!(stdout(&output), "");
}

#[test]
fn bad_flags_and_providers_are_one_clear_line() {
    let home = TempDir::new("badflags");
    // A command line that cannot be run is a usage error: status 2.
    let usage: &[(&[&str], &str)] = &[
        (
            &["--bogus"],
            "marvin: unknown option --bogus; run `marvin --help` for the options\n",
        ),
        (
            &["--modle", "x", "hi"],
            "marvin: unknown option --modle; did you mean --model?\n",
        ),
        (
            &["-1 times -1?"],
            "marvin: unknown option -1; to ask a question that starts with \"-\", put -- before it: marvin -- \"-1 times -1?\"\n",
        ),
    ];
    for (args, expected) in usage {
        let output = marvin(home.path()).args(*args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&output), *expected, "{args:?}");
    }
    let cases: &[(&[&str], &str)] = &[
        (
            &["--provider", "claude", "hi"],
            "marvin: unknown provider \"claude\"; choose one of copilot, gemini, groq, openai, ollama, openai-compat\n",
        ),
        (
            &["--provider", "groq", "hi"],
            "marvin: groq needs an API key: set GROQ_API_KEY or put the key in ~/.ssh/GROQ_API_KEY\n",
        ),
        (
            &["--working-dir", "/no/such/dir", "--provider", "groq", "hi"],
            "marvin: --working-dir /no/such/dir: No such file or directory (os error 2)\n",
        ),
    ];
    for (args, expected) in cases {
        let output = marvin(home.path()).args(*args).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&output), *expected, "{args:?}");
    }
}

#[test]
fn a_model_without_a_known_price_costs_unknown_and_get_usage_counts_the_turn_under_way() {
    let home = TempDir::new("ni-unpriced");
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "get_usage", "{}")]),
        Reply::text(&["Two calls so far."]),
    ]);
    // openai-compat's own default model, qwen/qwen3-32b, has no known price.
    let output = non_interactive(
        marvin(home.path()).env("OPENAI_COMPAT_URL", server.url()),
        "what has this cost?",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        last_stderr_line(&output),
        r#"MARVIN_COST:{"cost_unknown":true,"llm_turns":2,"model_cost":{},"model_turns":{"qwen/qwen3-32b":2},"session_cost":null}"#
    );
    // The call that asked for the usage is counted, its price unknown, not $0.00.
    let usage = server.requests()[1].result_of("c1");
    assert_eq!(
        usage,
        "This session  1 model call, 0 tokens in / 0 out, cost unknown\n  qwen/qwen3-32b: 1 call, price unknown\nAll time      1 model call, 0 tokens in / 0 out, cost unknown"
    );
}

#[test]
fn non_interactive_streams_raw_text_and_reports_cost_last() {
    let home = TempDir::new("ni-text");
    let server = ReplayServer::start(vec![Reply::fixture("openai_text_basic.sse")]);
    let output = ask(&home, &server, "weather?");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.\n"
    );
    // 14 input and 30 output tokens of gpt-4o at $2.50 / $10 per million.
    assert_eq!(
        last_stderr_line(&output),
        r#"MARVIN_COST:{"llm_turns":1,"model_cost":{"gpt-4o":0.000335},"model_turns":{"gpt-4o":1},"session_cost":0.000335}"#
    );
    let request = &server.requests()[0];
    assert_eq!(request.body["model"], "gpt-4o");
    assert_eq!(request.body["messages"][0]["role"], "system");
    assert_eq!(request.body["messages"][1]["content"], "weather?");
    assert_eq!(
        request.header("authorization"),
        Some("Bearer sk-test-secret")
    );
    let tools: Vec<&str> = request.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    // Non-interactive mode is coding mode: the coding and write tools are offered, with the
    // family the question asks for ("weather?") and the core.
    for tool in [
        "read_file",
        "apply_patch",
        "run_command",
        "git_commit",
        "weather_forecast",
        "find_tools",
    ] {
        assert!(tools.contains(&tool), "{tool} missing from {tools:?}");
    }
}

#[test]
fn newlines_inside_the_answer_are_kept_and_it_ends_with_exactly_one() {
    let home = TempDir::new("ni-newlines");
    let server = ReplayServer::start(vec![Reply::text(&[
        "Step 1: install",
        "\n",
        "Step 2: run\n",
        "\n",
        "```sh\nmake\n```",
        "\n\n",
    ])]);
    let output = ask(&home, &server, "x");
    assert_eq!(
        stdout(&output),
        "Step 1: install\nStep 2: run\n\n```sh\nmake\n```\n"
    );
}

#[test]
fn a_recorded_stream_with_newline_chunks_prints_the_whole_answer() {
    let home = TempDir::new("ni-newline-fixture");
    let note = String::from_utf8(common::fixture("openai_text_obfuscation_usage_null.md")).unwrap();
    let json = &note[note.find("```json").unwrap() + 7..];
    let expected: Value = serde_json::from_str(&json[..json.find("```").unwrap()]).unwrap();
    let content = expected["choices"]["0"]["content"].as_str().unwrap();
    assert!(content.contains("\n\n**Traditions:**\n\n1. "));
    let server = ReplayServer::start(vec![Reply::fixture(
        "openai_text_obfuscation_usage_null.sse",
    )]);
    let output = ask(&home, &server, "invent a holiday");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), format!("{content}\n"));
}

#[test]
fn tool_rounds_are_marked_and_results_reach_the_model() {
    let home = TempDir::new("ni-tools");
    std::fs::write(home.path().join("notes.txt"), "the answer is 42\n").unwrap();
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[
            ("call_a", "read_file", r#"{"path":"notes.txt"}"#),
            ("call_b", "get_working_dir", "{}"),
        ]),
        Reply::text(&["It says 42."]),
    ]);
    let output = against(&home, &server)
        .args([
            "--non-interactive",
            "--prompt",
            "what is in notes.txt? and which folder is this?",
            "--working-dir",
        ])
        .arg(home.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "  🔧 read_file, get_working_dir\nIt says 42.\n"
    );
    let second = &server.requests()[1].body["messages"];
    let n = second.as_array().unwrap().len();
    assert_eq!(second[n - 3]["tool_calls"][0]["id"], "call_a");
    assert_eq!(second[n - 2]["role"], "tool");
    assert_eq!(second[n - 2]["tool_call_id"], "call_a");
    assert_eq!(second[n - 2]["content"], "the answer is 42\n");
    assert_eq!(second[n - 1]["tool_call_id"], "call_b");
    assert_eq!(
        second[n - 1]["content"],
        format!("Working directory: {}", home.path().display())
    );
    assert_eq!(cost_line(&output)["llm_turns"], 2);
}

#[test]
fn text_before_a_tool_round_ends_its_line_first() {
    let home = TempDir::new("ni-text-then-tool");
    let server = ReplayServer::start(vec![
        Reply::fixture("anthropic_compat_text_then_tool_index1.sse"),
        Reply::text(&["done"]),
    ]);
    let output = ask(&home, &server, "read a.txt");
    assert_eq!(stdout(&output), "Reading it.\n  🔧 read_file\ndone\n");
    let messages = &server.requests()[1].body["messages"];
    let result = messages.as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        result.starts_with("Error: File not found: 'a.txt'."),
        "{result}"
    );
}

#[test]
fn json_mode_emits_one_event_per_line() {
    let home = TempDir::new("ni-json");
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "get_working_dir", "{}")]),
        Reply::text(&["Hi", " there"]),
    ]);
    let output = against(&home, &server)
        .args([
            "--non-interactive",
            "--json",
            "--prompt",
            "which folder am I in?",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let events: Vec<Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "tools",
            "tool_round",
            "tool_result",
            "text",
            "text",
            "message",
            "usage"
        ]
    );
    // The tools of each request: the core, coding's, and the families that came and why.
    let families = |event: &Value| -> Vec<(String, String)> {
        event["families"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["family"].as_str().unwrap().into(),
                    f["why"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let first = families(&events[0]);
    assert_eq!(first[0], ("core".into(), "always".into()));
    // The ticket tool first: the gate it opens stands before every write.
    assert_eq!(first[1], ("coding/tickets".into(), "coding mode".into()));
    assert_eq!(first[2], ("coding/files".into(), "coding mode".into()));
    assert!(events[0]["tools"].as_u64().unwrap() > 10);
    assert!(events[0]["bytes"].as_u64().unwrap() > 1000);
    // The working directory's family came with the question, which named it ("folder").
    assert!(
        first.contains(&("coding/workdir".into(), "folder".into())),
        "{first:?}"
    );
    // The second request offers the same: no "tools" event for it.
    assert_eq!(events[1]["calls"][0]["name"], "get_working_dir");
    assert_eq!(events[1]["calls"][0]["arguments"], serde_json::json!({}));
    assert_eq!(events[2]["is_error"], false);
    assert!(events[2]["elapsed_ms"].is_u64());
    assert!(
        events[2]["preview"]
            .as_str()
            .unwrap()
            .starts_with("Working directory: ")
    );
    assert_eq!(events[5]["text"], "Hi there");
    assert_eq!(events[6]["llm_turns"], 2);
    assert_eq!(events[6]["input_tokens"], 10);
    assert!(last_stderr_line(&output).starts_with("MARVIN_COST:"));
}

#[test]
fn prompt_comes_from_stdin_without_prompt_flag() {
    let home = TempDir::new("ni-stdin");
    let server = ReplayServer::start(vec![Reply::text(&["ok"])]);
    let output = run_with_stdin(
        against(&home, &server)
            .arg("--non-interactive")
            .to_owned_command(),
        "  from stdin\n",
    );
    assert_eq!(stdout(&output), "ok\n");
    assert_eq!(
        server.requests()[0].body["messages"][1]["content"],
        "from stdin"
    );
}

#[test]
fn empty_stdin_prompt_is_an_error_with_a_cost_line() {
    let home = TempDir::new("ni-empty");
    let server = ReplayServer::unused();
    let output = run_with_stdin(
        against(&home, &server)
            .arg("--non-interactive")
            .to_owned_command(),
        "\n \n",
    );
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.starts_with("marvin: the prompt on stdin is empty\n"),
        "{err}"
    );
    assert_eq!(cost_line(&output)["llm_turns"], 0);
}

#[test]
fn every_non_interactive_failure_still_ends_with_the_cost_line() {
    let home = TempDir::new("ni-fail");
    let cases: &[&[&str]] = &[
        &["--non-interactive", "--prompt", "x"],
        &["--non-interactive", "--bogus"],
    ];
    for args in cases {
        let output = marvin(home.path()).args(*args).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(
            last_stderr_line(&output).starts_with("MARVIN_COST:{"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn auth_errors_name_the_variable_and_hide_the_key() {
    let home = TempDir::new("auth");
    let server = ReplayServer::start(vec![Reply::json(
        401,
        common::fixture("openai_401_invalid_api_key.json"),
    )]);
    let output = marvin(home.path())
        .env("OPENAI_API_KEY", "sk-VKMIs-real-secret")
        .env("OPENAI_BASE_URL", server.url())
        .args(["--non-interactive", "--prompt", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("marvin: openai rejected the API key (HTTP 401 invalid_api_key: Incorrect API key provided"), "{err}");
    assert!(err.contains("Check OPENAI_API_KEY."), "{err}");
    assert!(
        !err.contains("sk-VKMIs-real-secret") && !stdout(&output).contains("real-secret"),
        "{err}"
    );
    assert_eq!(server.requests().len(), 1, "auth errors are not retried");
}

#[test]
fn rate_limits_are_retried_after_the_asked_wait() {
    let home = TempDir::new("429");
    let limited = Reply::json(
        429,
        r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
    )
    .header("retry-after-ms", "50");
    let server = ReplayServer::start(vec![limited.clone(), limited, Reply::text(&["finally"])]);
    let output = ask(&home, &server, "x");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "finally\n");
    assert_eq!(server.requests().len(), 3);
    let err = stderr(&output);
    assert!(
        err.contains("marvin: openai-compat is rate limiting; retrying in 0.1s (1/3)"),
        "{err}"
    );
    assert!(err.contains("(2/3)"), "{err}");
}

#[test]
fn a_rate_limit_that_never_ends_gives_up_after_three_retries() {
    let home = TempDir::new("429-storm");
    let limited = Reply::json(429, r#"{"error":{"message":"Rate limit reached"}}"#)
        .header("retry-after-ms", "20");
    let server = ReplayServer::start(vec![
        limited.clone(),
        limited.clone(),
        limited.clone(),
        limited,
    ]);
    let output = ask(&home, &server, "x");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(server.requests().len(), 4);
    assert!(
        stderr(&output).contains(
            "marvin: openai-compat is rate limiting requests (HTTP 429: Rate limit reached)"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn errors_inside_a_stream_fail_the_run() {
    let home = TempDir::new("midstream");
    let server = ReplayServer::start(vec![Reply::fixture("groq_midstream_error_event.sse")]);
    let output = ask(&home, &server, "x");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("openai-compat reported an error mid-answer (tool_use_failed): Tool call validation failed"), "{err}");
    assert!(last_stderr_line(&output).starts_with("MARVIN_COST:"));
}

#[test]
fn a_cut_off_answer_is_pointed_out() {
    let home = TempDir::new("length");
    let server = ReplayServer::start(vec![Reply::fixture("openai_finish_length.sse")]);
    let output = ask(&home, &server, "x");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "{\"\n");
    assert!(
        stderr(&output)
            .contains("marvin: the answer was cut off at its limit (about 8192 tokens, the room the model's window leaves for it); say \"go on\" for the rest"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn context_length_errors_say_so() {
    let home = TempDir::new("context");
    let server = ReplayServer::start(vec![Reply::json(
        400,
        common::fixture("openai_400_context_length_exceeded.json"),
    )]);
    let output = ask(&home, &server, "x");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("the conversation is too long for the model"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn piped_text_is_appended_in_a_fence_and_marvin_exits() {
    let home = TempDir::new("pipe");
    let server = ReplayServer::start(vec![Reply::text(&["Looks fine."])]);
    let output = run_with_stdin(
        against(&home, &server)
            .arg("review")
            .arg("this")
            .to_owned_command(),
        "+added line\n-removed line\n",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Looks fine.\n");
    let content = server.requests()[0].body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        content,
        "review this\n\n```\n+added line\n-removed line\n```"
    );
    // Decorations go to stderr when stdout is not a terminal.
    assert!(
        stderr(&output).contains("openai-compat · gpt-4o · 10 in / 5 out"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn no_question_and_no_terminal_does_not_wait() {
    let home = TempDir::new("no-question");
    let server = ReplayServer::unused();
    // stdin is /dev/null: not a terminal, not a pipe.
    let output = against(&home, &server).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("no question: stdin is not a terminal"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn question_with_stdin_from_dev_null_is_answered() {
    let home = TempDir::new("devnull");
    let server = ReplayServer::start(vec![Reply::text(&["Paris."])]);
    let output = against(&home, &server)
        .arg("capital of France?")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Paris.\n");
    assert_eq!(
        server.requests()[0].body["messages"][1]["content"],
        "capital of France?"
    );
    // Outside coding mode no coding tools are sent; a question of fact gets Wikipedia.
    let tools: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(tools.contains(&"wiki_summary".to_string()), "{tools:?}");
    assert!(
        !tools.iter().any(|t| t == "read_file" || t == "run_command"),
        "{tools:?}"
    );
}

#[test]
fn non_interactive_takes_its_prompt_as_words_with_any_piped_text() {
    let home = TempDir::new("batch-words");
    let server = ReplayServer::start(vec![Reply::text(&["Rust."]), Reply::text(&["Looks fine."])]);
    let output = against(&home, &server)
        .args(["--non-interactive", "which", "language?"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Rust.\n");
    assert!(last_stderr_line(&output).starts_with("MARVIN_COST:"));
    assert_eq!(
        server.requests()[0].body["messages"][1]["content"],
        "which language?"
    );
    let mut piped = against(&home, &server);
    piped.args(["--non-interactive", "review", "this"]);
    let output = common::run_with_stdin(piped, "fn main() {}\n");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let prompt = server.requests()[1].body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        prompt.starts_with("review this") && prompt.contains("fn main() {}"),
        "{prompt}"
    );
}

#[test]
fn ctrl_c_keeps_the_partial_answer_and_exits_130() {
    let home = TempDir::new("sigint");
    let server = common::StallServer::start(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Partial ans\"}}]}\n\n",
    );
    let mut child = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .args(["--non-interactive", "--prompt", "x"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 11];
    out.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"Partial ans");
    // SAFETY: sending SIGINT to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    assert_eq!(rest, "\n[Cancelled]\n");
    assert!(
        last_stderr_line(&output).starts_with("MARVIN_COST:"),
        "{}",
        stderr(&output)
    );
    // The call was made: it counts, at a cost nobody reported.
    let cost = cost_line(&output);
    assert_eq!(cost["llm_turns"], 1, "{cost}");
    assert_eq!(cost["cost_unknown"], true, "{cost}");
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let home = TempDir::new("epipe");
    // Far more than a pipe buffer holds, so writes fail once the reader is gone.
    let piece = "x".repeat(100);
    let pieces: Vec<&str> = (0..5000).map(|_| piece.as_str()).collect();
    let server = ReplayServer::start(vec![Reply::text(&pieces)]);
    let mut child = against(&home, &server)
        .args(["--non-interactive", "--prompt", "x"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 8];
    out.read_exact(&mut first).unwrap();
    drop(out);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!stderr(&output).contains("panicked"), "{}", stderr(&output));
}

#[test]
fn a_closed_pipe_ends_a_single_shot_answer_quietly() {
    let home = TempDir::new("epipe-single");
    let piece = "y".repeat(100);
    let pieces: Vec<&str> = (0..5000).map(|_| piece.as_str()).collect();
    let server = ReplayServer::start(vec![Reply::text(&pieces)]);
    let mut child = against(&home, &server)
        .arg("say a lot")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 8];
    out.read_exact(&mut first).unwrap();
    drop(out);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), "", "a closed pipe ends quietly");
}

/// `Command` builder methods return `&mut Command`; tests pass owned commands around.
trait ToOwnedCommand {
    fn to_owned_command(&mut self) -> std::process::Command;
}

impl ToOwnedCommand for std::process::Command {
    fn to_owned_command(&mut self) -> std::process::Command {
        let mut copy = std::process::Command::new(self.get_program());
        copy.args(self.get_args());
        copy.env_clear();
        for (key, value) in self.get_envs() {
            if let Some(value) = value {
                copy.env(key, value);
            }
        }
        if let Some(dir) = self.get_current_dir() {
            copy.current_dir(dir);
        }
        copy
    }
}

#[test]
fn ctrl_c_during_a_command_kills_its_whole_process_group() {
    stop_during_a_command(libc::SIGINT, 130);
}

#[test]
fn sigterm_during_a_command_kills_its_whole_process_group() {
    stop_during_a_command(libc::SIGTERM, 143);
}

/// A run_command whose process group is stopped with `signal` sent to marvin mid-command.
fn stop_during_a_command(signal: i32, status: i32) {
    let home = TempDir::new("sigint-command");
    let script = r#"{"command": "echo $$ > started; sleep 60 & sleep 60"}"#;
    let server = ReplayServer::start(common::ticketed(vec![Reply::tool_calls(&[(
        "c1",
        "run_command",
        script,
    )])]));
    let work = common::work(home.path());
    let child = against(&home, &server)
        .current_dir(&work)
        .args(["--non-interactive", "--prompt", "wait a minute"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = work.join("started");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !std::fs::read_to_string(&started).is_ok_and(|s| s.ends_with('\n')) {
        assert!(
            std::time::Instant::now() < deadline,
            "the command never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let group: i32 = std::fs::read_to_string(&started)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(child.id() as i32, signal) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(status), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "  🔧 tk, tk\n  🔧 run_command\n\n[Cancelled]\n"
    );
    // Killed processes may linger as zombies until reaped; none may still be running.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while running_in_group(group) > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "processes of the command outlived Marvin"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_command_whose_daemon_keeps_the_output_open_still_returns() {
    let home = TempDir::new("setsid-command");
    // The stray process says where it is only once it has left the group.
    let script = r#"{"command": "setsid sh -c 'echo $$ > stray; exec sleep 30' & while [ ! -s stray ]; do sleep 0.05; done; echo started"}"#;
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[("c1", "run_command", script)]),
        Reply::text(&["ok"]),
    ]));
    let work = common::work(home.path());
    let output = non_interactive(against(&home, &server).current_dir(&work), "start it");
    let stray: i32 = std::fs::read_to_string(work.join("stray"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SAFETY: ending the stray sleep this test started; it was alive until now.
    unsafe { libc::kill(stray, libc::SIGKILL) };
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let messages = &server.requests()[2].body["messages"];
    let result = messages.as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        result.starts_with("started\n\n[Stopped reading: a process that left"),
        "{result}"
    );
    assert!(result.ends_with("[exit code: 0]"), "{result}");
}

/// Processes of process group `group` that are not zombies, from /proc.
fn running_in_group(group: i32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            // Fields after the command name: state, ppid, pgrp, ...
            let rest = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.len() > 2 && fields[0] != "Z" && fields[2] == group.to_string()
        })
        .count()
}

#[test]
fn the_model_edits_tests_and_commits_through_the_tools() {
    let home = TempDir::new("e2e-home");
    let project = TempDir::new("e2e-project");
    let decoy = TempDir::new("e2e-decoy");
    let dir = project.path();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.org"]);
    std::fs::write(dir.join("add.sh"), "echo $(( $1 - $2 ))\n").unwrap();
    std::fs::write(
        dir.join("test.sh"),
        "[ \"$(sh add.sh 2 3)\" = 5 ] && echo PASS || { echo FAIL; exit 1; }\n",
    )
    .unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "start"]);
    git(decoy.path(), &["init", "-q"]);

    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[(
            "c1",
            "apply_patch",
            r#"{"path":"add.sh","old_str":"$1 - $2","new_str":"$1 + $2"}"#,
        )]),
        Reply::tool_calls(&[("c2", "run_command", r#"{"command":"sh test.sh"}"#)]),
        Reply::tool_calls(&[(
            "c3",
            "git_commit",
            r#"{"message":"Fix addition","files":["add.sh"]}"#,
        )]),
        Reply::text(&["Fixed, tested and committed."]),
    ]));
    let output = against(&home, &server)
        .env("GIT_DIR", decoy.path().join(".git"))
        .args([
            "--non-interactive",
            "--prompt",
            "fix add.sh",
            "--working-dir",
        ])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "  🔧 tk, tk\n  🔧 apply_patch\n  🔧 run_command\n  🔧 git_commit\nFixed, tested and committed.\n"
    );
    let result = |request: usize| {
        let messages = server.requests()[request].body["messages"].clone();
        messages.as_array().unwrap().last().unwrap()["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        result(2),
        "Patched 'add.sh': lines 1–1 replaced (1 lines → 1 lines)."
    );
    assert_eq!(result(3), "PASS\n\n[exit code: 0]");
    assert!(result(4).contains("Fix addition"), "{}", result(4));
    assert_eq!(git(dir, &["log", "--format=%s"]), "Fix addition\nstart\n");
    // The ticket opened for the work is the only change left, for the user to keep or not.
    assert_eq!(git(dir, &["status", "--porcelain"]), "?? .tickets/\n");
    // The decoy repository named by GIT_DIR was never touched.
    assert!(
        std::process::Command::new("git")
            .args(["log"])
            .current_dir(decoy.path())
            .env_remove("GIT_DIR")
            .output()
            .unwrap()
            .stdout
            .is_empty()
    );
}

#[test]
fn a_sub_agent_chain_stops_at_depth_five_and_is_audited() {
    let home = TempDir::new("agents-home");
    let project = TempDir::new("agents-project");
    let server = ReplayServer::start(vec![
        // The parent (depth 4) launches a sub-agent on ticket T-1 with the codex tier.
        Reply::tool_calls(&[(
            "p1",
            "launch_agent",
            r#"{"ticket_id":"T-1","prompt":"do the work","model":"codex"}"#,
        )]),
        // The sub-agent (depth 5) tries to go deeper and to write before having a ticket.
        Reply::tool_calls(&[
            (
                "c1",
                "launch_agent",
                r#"{"ticket_id":"T-2","prompt":"go deeper"}"#,
            ),
            ("c2", "run_command", r#"{"command":"touch written"}"#),
        ]),
        Reply::text(&["child done"]),
        Reply::text(&["parent done"]),
    ]);
    let output = against(&home, &server)
        .env("MARVIN_DEPTH", "4")
        .env("GIT_DIR", "/nonexistent/.git")
        .args(["--non-interactive", "--prompt", "delegate", "--working-dir"])
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "  🔧 launch_agent\nparent done\n");
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(
        requests[1].body["model"], "gpt-5.3-codex",
        "the codex tier reached the child"
    );
    assert_eq!(requests[1].body["messages"][1]["content"], "do the work");
    let child_results: Vec<String> = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert!(
        child_results[0].starts_with("Error: Sub-agent depth limit (5) reached"),
        "{}",
        child_results[0]
    );
    assert!(
        child_results[1].starts_with("Error: You must create a ticket with 'tk create'"),
        "{}",
        child_results[1]
    );
    assert!(!project.path().join("written").exists());
    let parent_result = requests[3].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        parent_result.starts_with(
            "Sub-agent (gpt-5.3-codex) finished:\n  🔧 launch_agent, run_command\nchild done"
        ),
        "{parent_result}"
    );
    // gpt-5.3-codex has no known price: its cost is unknown, not $0.
    assert!(
        parent_result.contains("[cost: unknown, 2 model calls]"),
        "{parent_result}"
    );
    // The child logged both of its tool calls; the parent, without MARVIN_SUBAGENT_LOG, did not.
    let log = std::fs::read_to_string(project.path().join(".marvin/logs/subagents.jsonl")).unwrap();
    let tools: Vec<String> = log
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["tool"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(tools.len(), 2);
    assert!(
        tools.contains(&"launch_agent".to_string()) && tools.contains(&"run_command".to_string()),
        "{tools:?}"
    );
}

#[test]
fn the_context_budget_cuts_big_results_and_compacts_with_a_backup() {
    let home = TempDir::new("budget");
    let line = "The quick brown fox jumps over the lazy dog.\n";
    std::fs::write(home.path().join("big.txt"), line.repeat(200)).unwrap();
    let big = Reply::tool_calls(&[(
        "r1",
        "read_file",
        r#"{"path":"big.txt","start_line":1,"end_line":200}"#,
    )]);
    let small = Reply::tool_calls(&[(
        "r2",
        "read_file",
        r#"{"path":"big.txt","start_line":1,"end_line":2}"#,
    )]);
    let compact = Reply::tool_calls(&[("c1", "compact_history", "{}")]);
    let mut replies = vec![big];
    replies.extend(std::iter::repeat_n(small, 5));
    replies.extend([compact, Reply::text(&["summarised"])]);
    let server = ReplayServer::start(replies);
    let output = against(&home, &server)
        .env("MARVIN_CONTEXT_BUDGET", "2000")
        .args([
            "--non-interactive",
            "--prompt",
            "read big.txt, then compact the history",
            "--working-dir",
        ])
        .arg(home.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("summarised"));
    let tool_results = |request: usize| -> Vec<String> {
        let messages = server.requests()[request].body["messages"]
            .as_array()
            .unwrap()
            .clone();
        messages
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect()
    };
    // The big result was cut to fit...
    let first = tool_results(1).pop().unwrap();
    assert!(
        first.contains("[Result truncated — ")
            && first.contains("chars omitted due to context budget"),
        "{first}"
    );
    // ...then shortened to make room, so later results arrive whole.
    let second = tool_results(2);
    assert!(
        second[0].starts_with("[Result removed to save context: it was"),
        "{}",
        second[0]
    );
    assert!(
        second[1].starts_with("[Lines 1–2 of 200 in 'big.txt']"),
        "{}",
        second[1]
    );
    // compact_history: the last request carries the summary, and the backup exists.
    let last = server.requests().last().unwrap().body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let at = last
        .iter()
        .position(|m| {
            m["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("[Context compacted."))
        })
        .expect("a summary");
    // The question the dropped tool rounds answered stays, right after the summary: no
    // provider takes a tool call without the person's message before it.
    assert_eq!(
        (&last[at + 1]["role"], &last[at + 1]["content"]),
        (
            &serde_json::json!("user"),
            &serde_json::json!("read big.txt, then compact the history")
        )
    );
    let logs: Vec<_> = std::fs::read_dir(home.path().join(".marvin/logs"))
        .unwrap()
        .filter_map(Result::ok)
        .collect();
    assert!(
        logs.iter().any(|e| e
            .file_name()
            .to_string_lossy()
            .starts_with("context-backup-")),
        "{logs:?}"
    );
    assert!(
        stderr(&output).contains(
            "marvin: context compacted: 0 older messages summarised, 1 old tool results shortened"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn one_huge_argument_leaves_the_other_results_of_its_round_whole() {
    let home = TempDir::new("huge-argument");
    let content = "z".repeat(10 * 1024 * 1024);
    let create = serde_json::json!({"path": "big.txt", "content": content}).to_string();
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[
            ("c1", "create_file", &create),
            ("c2", "get_working_dir", "{}"),
        ]),
        Reply::text(&["done"]),
    ]));
    let output = ask(
        &home,
        &server,
        "write a big file, then tell me which folder I am in",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        std::fs::metadata(home.path().join("big.txt"))
            .unwrap()
            .len(),
        content.len() as u64
    );
    let messages = server.requests()[2].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let n = messages.len();
    let arguments = messages[n - 3]["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap();
    assert!(
        arguments.contains("characters of arguments were left out"),
        "{arguments}"
    );
    assert!(
        messages[n - 2]["content"]
            .as_str()
            .unwrap()
            .starts_with("Created 'big.txt'"),
        "{}",
        messages[n - 2]["content"]
    );
    assert_eq!(
        messages[n - 1]["content"],
        format!("Working directory: {}", home.path().display())
    );
}

#[test]
fn a_round_of_many_commands_runs_a_few_at_a_time() {
    let home = TempDir::new("many-commands");
    let command = r#"{"command": "echo s >> log; sleep 0.2; echo e >> log"}"#;
    let ids: Vec<String> = (0..30).map(|i| format!("c{i}")).collect();
    let calls: Vec<(&str, &str, &str)> = ids
        .iter()
        .map(|id| (id.as_str(), "run_command", command))
        .collect();
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&calls),
        Reply::text(&["ok"]),
    ]));
    let work = common::work(home.path());
    let output = non_interactive(against(&home, &server).current_dir(&work), "run them all");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let log = std::fs::read_to_string(work.join("log")).unwrap();
    let (mut running, mut most) = (0i32, 0i32);
    for line in log.lines() {
        running += if line == "s" { 1 } else { -1 };
        most = most.max(running);
    }
    assert_eq!(log.lines().count(), 60);
    assert!(most <= 8, "{most} commands ran at once");
}

#[test]
fn once_with_a_question_does_not_wait_for_a_pipe_that_never_closes() {
    let home = TempDir::new("once-open-pipe");
    let server = ReplayServer::start(vec![Reply::text(&["Tokyo time."]), Reply::text(&["Seen."])]);
    // As `ssh host 'marvin --once …'`: stdin is a pipe nobody writes to or closes.
    let mut child = against(&home, &server)
        .args(["--once", "what time is it in Tokyo?"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let open_stdin = child.stdin.take();
    let output = child.wait_with_output().unwrap();
    drop(open_stdin);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Tokyo time.\n");
    assert_eq!(
        server.requests()[0].body["messages"][1]["content"],
        "what time is it in Tokyo?"
    );
    // Text that is there to read is still taken.
    let (reader, mut writer) = std::io::pipe().unwrap();
    writer.write_all(b"line one\n").unwrap();
    drop(writer);
    let output = against(&home, &server)
        .args(["--once", "summarise"])
        .stdin(reader)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let messages = server.requests()[1].body["messages"].clone();
    assert_eq!(
        messages.as_array().unwrap().last().unwrap()["content"],
        "summarise\n\n```\nline one\n```"
    );
}

#[test]
fn non_interactive_words_do_not_wait_for_a_pipe_that_never_closes() {
    let home = TempDir::new("batch-open-pipe");
    let server = ReplayServer::start(vec![Reply::text(&["Hi."])]);
    // As `ssh host 'marvin --non-interactive "say hi"'`: stdin open, silent, never closed.
    let mut child = against(&home, &server)
        .args(["--non-interactive", "say", "hi"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let open_stdin = child.stdin.take();
    let output = child.wait_with_output().unwrap();
    drop(open_stdin);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Hi.\n");
    assert!(
        stderr(&output).contains("stdin is not read: nothing arrived on it within 0.3 s"),
        "{}",
        stderr(&output)
    );
    assert!(last_stderr_line(&output).starts_with("MARVIN_COST:"));
    assert_eq!(
        server.requests()[0].body["messages"][1]["content"],
        "say hi"
    );
}

#[test]
fn helper_programs_never_see_the_keys() {
    use std::os::unix::fs::PermissionsExt;
    let home = TempDir::new("helper-env");
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for program in ["tk", "uv"] {
        let script = bin.join(program);
        std::fs::write(
            &script,
            format!("#!/bin/sh\nenv > {program}.env\necho ok\n"),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[
            ("c1", "tk", r#"{"args": "ls"}"#),
            ("c2", "install_packages", r#"{"packages": ["httpx"]}"#),
        ]),
        Reply::text(&["done"]),
    ]);
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let work = common::work(home.path());
    let output = against(&home, &server)
        .current_dir(&work)
        .env("PATH", path)
        .env("GH_TOKEN", "gh-secret-token")
        .args([
            "--non-interactive",
            "--prompt",
            "install the httpx python package",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    for program in ["tk", "uv"] {
        let env = std::fs::read_to_string(work.join(format!("{program}.env"))).unwrap();
        assert!(env.contains("PATH="), "{program}: {env}");
        assert!(!env.contains("sk-test-secret"), "{program}: {env}");
        assert!(!env.contains("gh-secret-token"), "{program}: {env}");
    }
}

#[test]
fn writes_wait_for_a_ticket_even_without_the_tk_program() {
    let home = TempDir::new("gate-no-tk");
    let create = r#"{"path": "a.txt", "content": "x"}"#;
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "create_file", create)]),
        common::ticket_round(),
        Reply::tool_calls(&[("c2", "create_file", create)]),
        Reply::text(&["done"]),
    ]);
    // PATH without any tk: only what the tools below need.
    let output = against(&home, &server)
        .env("PATH", "/usr/bin:/bin")
        .args(["--non-interactive", "--prompt", "write a.txt"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let last = |request: usize| -> Vec<String> {
        let messages = server.requests()[request].body["messages"].clone();
        let messages = messages.as_array().unwrap().clone();
        let round = messages
            .iter()
            .rposition(|m| m["role"] == "assistant")
            .unwrap();
        messages[round + 1..]
            .iter()
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        last(1),
        [
            "Error: You must create a ticket with 'tk create' before writing files. Create a ticket describing your task first."
        ]
    );
    let tickets = last(2);
    assert_eq!(
        tickets.iter().filter(|t| t.contains("too brief")).count(),
        1,
        "{tickets:?}"
    );
    let made = tickets.iter().find(|t| t.starts_with("---\nid: ")).unwrap();
    let id = made.lines().nth(1).unwrap().strip_prefix("id: ").unwrap();
    assert_eq!(
        std::fs::read_to_string(home.path().join(format!(".tickets/{id}.md"))).unwrap(),
        *made
    );
    assert_eq!(last(3), ["Created 'a.txt' (1 lines)."]);
}

/// What bash completes for `words` (the last one being completed) with the script loaded.
fn bash_completes(home: &TempDir, script: &std::path::Path, words: &[&str]) -> String {
    let line = words
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let program = format!(
        "source '{}'; COMP_WORDS=({line}); COMP_CWORD={}; _marvin; echo \"${{COMPREPLY[*]}}\"",
        script.display(),
        words.len() - 1
    );
    let output = std::process::Command::new("bash")
        .args(["--norc", "-c", &program])
        .env("MARVIN_HOME", home.path().join("marvin-home"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output).trim().to_string()
}

#[test]
fn completion_scripts_load_and_complete_flags_providers_and_profiles() {
    let home = TempDir::new("completions");
    let output = marvin(home.path())
        .args(["--completions", "bash"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let script = home.path().join("marvin.bash");
    std::fs::write(&script, stdout(&output)).unwrap();
    let checked = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", stderr(&checked));
    assert_eq!(
        bash_completes(&home, &script, &["marvin", "--prov"]),
        "--provider"
    );
    assert_eq!(
        bash_completes(&home, &script, &["marvin", "--provider", "o"]),
        "openai ollama openai-compat"
    );
    std::fs::create_dir_all(home.path().join("marvin-home/profiles/work")).unwrap();
    std::fs::create_dir_all(home.path().join("marvin-home/profiles/weekend")).unwrap();
    assert_eq!(
        bash_completes(&home, &script, &["marvin", "--profile", "w"]),
        "weekend work"
    );
    // `serve` as the first word, wait: among --on-ask's modes, and the stored sessions (ids
    // and names, a name of several words quoted) after --resume.
    assert_eq!(bash_completes(&home, &script, &["marvin", "se"]), "serve");
    assert_eq!(
        bash_completes(&home, &script, &["marvin", "--on-ask", "w"]),
        "wait:"
    );
    let sessions = home.path().join("marvin-home/sessions");
    for (id, name) in [
        ("0a1b2c3d", "fix the parser"),
        ("11223344", "weekly report"),
    ] {
        std::fs::create_dir_all(sessions.join(id)).unwrap();
        let meta = serde_json::json!({"id": id, "name": name, "messages": 2});
        std::fs::write(
            sessions.join(id).join("meta.json"),
            serde_json::to_string_pretty(&meta).unwrap(),
        )
        .unwrap();
    }
    assert_eq!(
        bash_completes(&home, &script, &["marvin", "--resume", "f"]),
        "fix\\ the\\ parser"
    );
    assert_eq!(
        bash_completes(&home, &script, &["marvin", "--resume", "1"]),
        "11223344"
    );
    // The other shells' scripts parse, where the shell is installed.
    for (shell, check) in [("zsh", ["-n"]), ("fish", ["--no-execute"])] {
        let output = marvin(home.path())
            .args(["--completions", shell])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        let file = home.path().join(format!("marvin.{shell}"));
        std::fs::write(&file, stdout(&output)).unwrap();
        match std::process::Command::new(shell)
            .args(check)
            .arg(&file)
            .output()
        {
            Ok(checked) => assert!(checked.status.success(), "{shell}: {}", stderr(&checked)),
            Err(_) => eprintln!("skipped: {shell} is not installed, so its script was not parsed"),
        }
    }
    let output = marvin(home.path())
        .args(["--completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("no script for \"tcsh\""),
        "{}",
        stderr(&output)
    );
}

#[test]
fn make_install_puts_the_binary_manual_and_completions_in_place_and_uninstall_takes_them_away() {
    let home = TempDir::new("install");
    let root = home.path().join("root");
    let make = |target: &str| {
        let output = std::process::Command::new("make")
            .args(["-s", target])
            .arg(format!("BIN={}", env!("CARGO_BIN_EXE_marvin")))
            .arg(format!("DESTDIR={}", root.display()))
            .arg("PREFIX=/usr")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "make {target}: {}",
            stderr(&output)
        );
    };
    make("install");
    let manual = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/doc/marvin.1"));
    let installed = [
        ("usr/bin/marvin", 0o755),
        ("usr/share/man/man1/marvin.1", 0o644),
        ("usr/share/bash-completion/completions/marvin", 0o644),
        ("usr/share/zsh/site-functions/_marvin", 0o644),
        ("usr/share/fish/vendor_completions.d/marvin.fish", 0o644),
    ];
    for (path, mode) in installed {
        let meta = std::fs::metadata(root.join(path)).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(meta.permissions().mode() & 0o777, mode, "{path}");
    }
    assert_eq!(
        std::fs::read_to_string(root.join("usr/share/man/man1/marvin.1")).unwrap(),
        manual.unwrap()
    );
    let bash = marvin(home.path())
        .args(["--completions", "bash"])
        .output()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("usr/share/bash-completion/completions/marvin")).unwrap(),
        stdout(&bash)
    );
    make("uninstall");
    for (path, _) in installed {
        assert!(!root.join(path).exists(), "{path} is still there");
    }
}

#[test]
fn the_manual_page_renders_without_a_warning() {
    let manual = concat!(env!("CARGO_MANIFEST_DIR"), "/doc/marvin.1");
    let Ok(output) = std::process::Command::new("groff")
        .args(["-ww", "-man", "-Tutf8", "-P", "-cbou", manual])
        .output()
    else {
        eprintln!("skipped: groff is not installed, so the manual page was not rendered");
        return;
    };
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stderr(&output), "", "groff warns about doc/marvin.1");
    let text = stdout(&output);
    assert!(text.contains("REPL COMMANDS"));
    // The synopsis names every way to run it.
    let synopsis = &text[text.find("SYNOPSIS").unwrap()..text.find("DESCRIPTION").unwrap()];
    for form in [
        "marvin serve [--port N]",
        "marvin --attach URL",
        "marvin --resume [NAME|ID]",
        "wait:SECONDS",
    ] {
        assert!(synopsis.contains(form), "{form}: {synopsis}");
    }
}

/// The port of a replay server.
fn port_of(server: &ReplayServer) -> String {
    server.root().rsplit(':').next().unwrap().to_string()
}

#[test]
fn with_nothing_set_up_a_local_openai_compatible_server_is_found_and_used() {
    let home = TempDir::new("local-model");
    let server = ReplayServer::answering_all(|request| {
        Some(match request.url.as_str() {
            "/api/tags" => Reply::json(404, r#"{"error": "not found"}"#),
            "/v1/models" => Reply::json(
                200,
                r#"{"object": "list", "data": [{"id": "smollm2-135m-instruct", "object": "model"}]}"#,
            ),
            "/props" => Reply::json(404, r#"{"error": "not found"}"#),
            _ => Reply::text(&["Hello from a small model."]),
        })
    });
    // The first port has nothing on it; the second has the server.
    let ports = format!("{},{}", common::closed_port(), port_of(&server));
    let output = common::non_interactive(
        marvin(home.path()).env("MARVIN_LOCAL_PORTS", &ports),
        "hello",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Hello from a small model.\n");
    assert!(
        stderr(&output).starts_with(&format!(
            "marvin: no provider is set up; using the local OpenAI-compatible server at 127.0.0.1:{} (model smollm2-135m-instruct)",
            port_of(&server)
        )),
        "{}",
        stderr(&output)
    );
    let chat = server
        .requests()
        .into_iter()
        .find(|r| r.url == "/v1/chat/completions")
        .unwrap();
    assert_eq!(chat.body["model"], "smollm2-135m-instruct");
    // --list-providers says what it found.
    let listed = marvin(home.path())
        .env("MARVIN_LOCAL_PORTS", &ports)
        .arg("--list-providers")
        .output()
        .unwrap();
    assert!(
        stdout(&listed).contains("found the local OpenAI-compatible server at 127.0.0.1:"),
        "{}",
        stdout(&listed)
    );
}

#[test]
fn a_local_ollama_is_told_apart_and_nothing_listening_leaves_the_setup_help() {
    let home = TempDir::new("local-ollama");
    let server = ReplayServer::answering(|request| match request.url.as_str() {
        "/api/tags" => Reply::json(
            200,
            r#"{"models": [{"name": "llama3.2:1b", "size": 1}, {"name": "qwen3:4b", "size": 2}]}"#,
        ),
        _ => Reply::json(404, "{}"),
    });
    let listed = marvin(home.path())
        .env("MARVIN_LOCAL_PORTS", port_of(&server))
        .arg("--list-providers")
        .output()
        .unwrap();
    // The line wraps within 80 columns: read it with its line breaks as spaces.
    let words = stdout(&listed)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains(&format!(
            "found the local Ollama at 127.0.0.1:{} (model llama3.2:1b); used while no provider is set up (models: llama3.2:1b, qwen3:4b)",
            port_of(&server)
        )),
        "{}",
        stdout(&listed)
    );
    let output = marvin(home.path())
        .env("MARVIN_LOCAL_PORTS", common::closed_port().to_string())
        .arg("hello")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).starts_with("marvin: no language model is set up."));
    let bad = marvin(home.path())
        .env("MARVIN_LOCAL_PORTS", "11434,ollama")
        .arg("hello")
        .output()
        .unwrap();
    assert_eq!(
        stderr(&bad),
        "marvin: MARVIN_LOCAL_PORTS must be port numbers separated by commas, not \"11434,ollama\"\n"
    );
}
