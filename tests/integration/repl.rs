//! The REPL under a real pseudo-terminal: streaming answers, tool lines, the status line,
//! Ctrl+C at the prompt and during an answer (no `^C` left in it), Ctrl+D, quit, history and
//! sanitising.

use crate::common::pty::Pty;
use crate::common::{self, ReplayServer, Reply, StallServer, TempDir, marvin};

fn repl(home: &TempDir, url: &str, args: &[&str]) -> Pty {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", url)
        .env("MARVIN_MODEL", "gpt-4o")
        .env("TERM", "xterm")
        .args(args);
    Pty::spawn(command)
}

#[test]
fn asks_answers_and_remembers_the_input() {
    let home = TempDir::new("repl-basic");
    let server = ReplayServer::start(vec![
        Reply::text(&["Hello ", "from Marvin."]),
        Reply::text(&["Second."]),
    ]);
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("hi there\r");
    pty.wait_for("from Marvin.");
    pty.wait_for("openai-compat · gpt-4o · 10 in / 5 out");
    pty.wait_for("· 2 messages");
    assert!(
        !pty.screen().contains("profile default"),
        "the default profile goes without saying"
    );
    pty.send("and again\r");
    pty.wait_for("Second.");
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
    // The second request carries the whole conversation.
    let messages = &server.requests()[1].body["messages"];
    assert_eq!(messages[1]["content"], "hi there");
    assert_eq!(messages[2]["content"], "Hello from Marvin.");
    assert_eq!(messages[3]["content"], "and again");
    let history =
        std::fs::read_to_string(home.path().join("marvin-home/profiles/default/history")).unwrap();
    assert!(
        history.contains("hi there") && history.contains("and again"),
        "{history}"
    );
    // Colour is on in a terminal: the status line is dim.
    assert!(
        pty.screen().contains("\x1b[2mopenai-compat · gpt-4o"),
        "{}",
        pty.screen()
    );
}

/// The user messages of a request, in order.
fn user_messages(request: &common::Recorded) -> Vec<String> {
    request.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn a_prompt_that_failed_is_not_sent_again_but_can_be_recalled() {
    let home = TempDir::new("repl-failed-prompts");
    // The server fails the first two prompts; sent again later, the second is answered.
    let mut failed_again = false;
    let server = ReplayServer::answering(move |request| {
        match request.last_message()["content"].as_str().unwrap_or("") {
            "hi" => Reply::json(500, r#"{"error":{"message":"upstream broke"}}"#),
            "hi again" if !failed_again => {
                failed_again = true;
                Reply::json(400, r#"{"error":{"message":"bad request body"}}"#)
            }
            "third" => Reply::text(&["Third answer."]),
            _ => Reply::text(&["Again answer."]),
        }
    });
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("hi\r");
    pty.wait_for("upstream broke");
    pty.send("hi again\r");
    pty.wait_for("bad request body");
    pty.send("third\r");
    pty.wait_for("Third answer.");
    pty.wait_for("· 2 messages");
    pty.wait_for_prompt();
    // The failed prompts stay in the input history: Up twice brings back the second.
    pty.send("\x1b[A\x1b[A\r");
    pty.wait_for("Again answer.");
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
    let requests = server.requests();
    let third = requests
        .iter()
        .find(|r| r.last_message()["content"] == "third")
        .unwrap();
    assert_eq!(user_messages(third), ["third"]);
    let again = requests.last().unwrap();
    assert_eq!(user_messages(again), ["third", "hi again"]);
    assert_eq!(again.body["messages"][2]["content"], "Third answer.");
}

#[test]
fn question_argument_is_answered_then_the_prompt_stays() {
    let home = TempDir::new("repl-first");
    let server = ReplayServer::start(vec![Reply::text(&["Forty-two."])]);
    let mut pty = repl(&home, &server.url(), &["what", "is", "the", "answer?"]);
    pty.wait_for("Forty-two.");
    // The question is shown as if typed at the prompt, above its answer; then the prompt.
    let screen = pty.screen();
    let (asked, answered) = (
        screen.find("› what is the answer?").expect(&screen),
        screen.find("Forty-two.").unwrap(),
    );
    assert!(asked < answered, "{screen}");
    pty.wait_for_nth("› ", 2);
    assert!(pty.leave().success());
    assert_eq!(
        server.requests()[0].body["messages"][1]["content"],
        "what is the answer?"
    );
}

#[test]
fn once_exits_after_the_answer() {
    let home = TempDir::new("repl-once");
    let server = ReplayServer::start(vec![Reply::text(&["Done."])]);
    let mut pty = repl(&home, &server.url(), &["--once", "quick question"]);
    pty.wait_for("Done.");
    assert!(pty.wait_exit().success());
    assert!(!pty.screen().contains("› "), "{}", pty.screen());
}

#[test]
fn ctrl_c_clears_the_line_and_ctrl_d_leaves() {
    let home = TempDir::new("repl-keys");
    let server = ReplayServer::unused();
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("half a thought");
    pty.wait_for("half a thought");
    pty.send("\x03");
    pty.wait_for_nth("› ", 2);
    assert!(pty.leave().success());
}

#[test]
fn ctrl_c_during_an_answer_keeps_it_and_returns_to_the_prompt() {
    let home = TempDir::new("repl-cancel");
    let server = StallServer::start(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Thinking hard\"}}]}\n\n",
    );
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("long question\r");
    pty.wait_for("Thinking hard");
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    pty.wait_for_nth("› ", 2);
    // The cut call's usage never came: said so, not counted as nothing.
    assert!(
        pty.screen().contains("gpt-4o · cancelled, usage unknown"),
        "{}",
        pty.screen()
    );
    assert!(!pty.screen().contains("0 in / 0 out"), "{}", pty.screen());
    pty.send("exit\r");
    assert!(pty.wait_exit().success());
}

#[test]
fn ctrl_c_during_an_answer_leaves_no_caret_c_in_its_text() {
    let home = TempDir::new("repl-caret");
    let server = StallServer::start(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"The answer is forty-t\"}}]}\n\n",
    );
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("long question\r");
    pty.wait_for("The answer is");
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    pty.wait_for_nth("› ", 2);
    // The terminal's own echo of the key (`^C`) is not in the answer, nor anywhere else.
    assert!(!pty.screen().contains("^C"), "{:?}", pty.screen());
    let screen = pty.visible();
    let lines = screen.lines();
    let at = lines
        .iter()
        .position(|l| l.starts_with("The answer is"))
        .unwrap();
    assert_eq!(lines[at], "The answer is forty-t", "{}", screen.text());
    assert_eq!(lines[at + 1], "[Cancelled]", "{}", screen.text());
    pty.send("exit\r");
    assert!(pty.wait_exit().success());
}

#[test]
fn one_message_count_and_an_unknown_price_said_as_such() {
    let home = TempDir::new("repl-counts");
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "get_usage", "{}")]),
        Reply::text(&["Counted."]),
    ]);
    let model = [("MARVIN_MODEL", "qwen/qwen3-32b")];
    let mut pty = common::pty::repl_at(120, &home, &server.url(), &model, &[]);
    pty.wait_for("› ");
    pty.send("what did this cost?\r");
    pty.wait_for("Counted.");
    // The person's message and the answer; the tool round is not two more.
    pty.wait_for("2 messages");
    assert!(
        pty.screen().contains("· cost unknown ·"),
        "{}",
        pty.screen()
    );
    pty.send("usage\r");
    pty.wait_for("All time      2 model calls");
    assert!(
        pty.screen()
            .contains("This session  2 model calls, 10 tokens in / 5 out, cost unknown"),
        "{}",
        pty.screen()
    );
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
    // Taken up again, the banner counts the same two.
    let again = ReplayServer::unused();
    let mut pty = common::pty::repl_at(120, &home, &again.url(), &model, &[]);
    pty.wait_for("› ");
    assert!(
        pty.screen()
            .contains("Resumed \"what did this cost?\": 2 messages"),
        "{}",
        pty.screen()
    );
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
}

#[test]
fn a_timeout_promises_a_rebuilt_session_only_where_a_next_call_can_come() {
    let stalled = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Half\"}}]}\n\n";
    let home = TempDir::new("repl-timeout-once");
    let server = StallServer::start(stalled);
    let mut pty = common::pty::at_80(
        &home,
        &server.url(),
        &[("MARVIN_TIMEOUT", "1")],
        &["--once", "hi"],
    );
    assert!(!pty.wait_exit().success());
    let screen = pty.screen();
    assert!(screen.contains("stopped answering"), "{screen}");
    assert!(!screen.contains("rebuilt for the next call"), "{screen}");
    // At the prompt there is a next call: it is said there.
    let server = StallServer::start(stalled);
    let mut pty = common::pty::at_80(&home, &server.url(), &[("MARVIN_TIMEOUT", "1")], &[]);
    pty.wait_for("› ");
    pty.send("hi\r");
    pty.wait_for("openai-compat timed out; its session will be rebuilt for the next call");
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
}

#[test]
fn pro_answers_one_prompt_with_the_high_tier_then_the_model_before_it() {
    let home = TempDir::new("repl-pro");
    let server = ReplayServer::start(vec![
        Reply::text(&["Deep answer."]),
        Reply::text(&["Plain answer."]),
    ]);
    let high = [("MARVIN_CODE_MODEL_HIGH", "big-model")];
    let mut pty = common::pty::at_80(&home, &server.url(), &high, &[]);
    pty.wait_for("› ");
    pty.send("!pro prove it\r");
    pty.wait_for("Deep answer.");
    pty.wait_for("openai-compat · big-model ·");
    pty.send("and now?\r");
    pty.wait_for("Plain answer.");
    pty.wait_for("openai-compat · gpt-4o ·");
    pty.send("!pro\r");
    pty.wait_for("!pro PROMPT");
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body["model"], "big-model");
    assert_eq!(requests[0].last_message()["content"], "prove it");
    // The conversation carries on with the model before it, the high tier's answer in it.
    assert_eq!(requests[1].body["model"], "gpt-4o");
    let messages = requests[1].body["messages"].as_array().unwrap();
    assert!(
        messages.iter().any(|m| m["content"] == "Deep answer."),
        "{messages:?}"
    );
}

#[test]
fn sigterm_during_an_answer_keeps_it_and_ends_the_session_with_143() {
    use std::os::unix::process::ExitStatusExt;
    let home = TempDir::new("repl-sigterm");
    let server = StallServer::start(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Thinking hard\"}}]}\n\n",
    );
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("long question\r");
    pty.wait_for("Thinking hard");
    pty.signal(libc::SIGTERM);
    pty.wait_for("[Cancelled]");
    let status = pty.wait_exit();
    assert_eq!(status.code(), Some(143), "{status:?}");
    let log = std::fs::read_to_string(
        home.path()
            .join("marvin-home/profiles/default/chat_log.jsonl"),
    )
    .unwrap();
    assert!(log.contains("long question"), "{log}");

    // At the prompt there is nothing to save: SIGTERM ends Marvin as it would any program.
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.signal(libc::SIGTERM);
    assert_eq!(pty.wait_exit().signal(), Some(libc::SIGTERM));
}

#[test]
fn a_failed_turn_ends_with_its_error_and_no_status_line() {
    let home = TempDir::new("repl-failed");
    let server = ReplayServer::start(vec![
        Reply::json(401, common::fixture("openai_401_invalid_api_key.json")),
        Reply::text(&["Fine now."]),
    ]);
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("hello\r");
    pty.wait_for("marvin:");
    pty.wait_for_nth("› ", 2);
    let screen = pty.screen();
    let after_error = &screen[screen.find("marvin:").unwrap()..];
    assert!(!after_error.contains(" in / "), "{screen}");
    pty.send("again\r");
    pty.wait_for("Fine now.");
    pty.wait_for("10 in / 5 out");
    assert!(pty.leave().success());
}

#[test]
fn tool_rounds_show_names_and_duration() {
    let home = TempDir::new("repl-tools");
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "system_info", "{}")]),
        Reply::text(&["You have CPUs."]),
    ]);
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("what machine is this?\r");
    pty.wait_for("You have CPUs.");
    let screen = pty.screen();
    let tool_line = screen
        .lines()
        .find(|l| l.contains("system_info"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(
        tool_line.ends_with("  \x1b[32m✓\x1b[0m system_info  \x1b[2m(0.0s)\x1b[0m"),
        "{tool_line:?}"
    );
    pty.leave();
}

#[test]
fn escape_sequences_from_the_model_are_shown_not_obeyed() {
    let home = TempDir::new("repl-sanitise");
    let server = ReplayServer::start(vec![Reply::text(&["safe \x1b]0;pwned\x07 \x1b[2J text"])]);
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("hi\r");
    pty.wait_for("text");
    let screen = pty.screen();
    assert!(
        screen.contains("safe ^[]0;pwned\u{fffd} ^[[2J text"),
        "{screen}"
    );
    assert!(!screen.contains("\x1b]0;pwned"), "{screen}");
    pty.leave();
}

#[test]
fn no_color_turns_colour_off() {
    let home = TempDir::new("repl-nocolor");
    let server = ReplayServer::start(vec![Reply::text(&["plain"])]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .args(["--once", "hi"]);
    let mut pty = Pty::spawn(command);
    pty.wait_for("plain");
    pty.wait_exit();
    assert!(!pty.screen().contains("\x1b[2m"), "{}", pty.screen());
}

#[test]
fn provider_command_lists_providers_with_the_one_in_use() {
    let home = TempDir::new("repl-provider");
    let server = ReplayServer::unused();
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("/provider\r");
    pty.wait_for("← in use");
    // The list may go on after the provider in use: wait for the one asserted below too.
    pty.wait_for("ollama");
    let screen = pty.visible();
    let lines = screen.lines();
    let row = lines
        .iter()
        .position(|l| l.starts_with("🔮 openai-compat "))
        .unwrap_or_else(|| panic!("{}", screen.text()));
    assert!(lines[row].contains("gpt-4o"), "{}", lines[row]);
    // The row's last column may wrap: its marker ends the row, before the next provider.
    let rest: Vec<&String> = lines[row..]
        .iter()
        .take_while(|l| l.starts_with(' ') || l.starts_with("🔮 openai-compat "))
        .collect();
    assert!(
        rest.iter().any(|l| l.ends_with("← in use")),
        "{}",
        screen.text()
    );
    assert!(screen.text().contains("ollama"), "{}", screen.text());
    assert!(screen.wrapped.is_empty(), "{:?}", screen.wrapped);
    // A key-less server says where it is, not that its key is missing.
    let about: String = rest.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(
        about.contains(&format!("{}, no key", server.url())),
        "{about}"
    );
    assert!(!screen.text().contains("(not set)"), "{}", screen.text());
    assert!(pty.leave().success());
}

#[test]
fn provider_shows_a_found_local_server_with_its_url_and_no_ollama_that_is_not_there() {
    let home = TempDir::new("repl-provider-local");
    let server = ReplayServer::answering_all(|request| match request.url.as_str() {
        "/v1/models" => Some(Reply::json(
            200,
            r#"{"object": "list", "data": [{"id": "smollm2", "object": "model"}]}"#,
        )),
        _ => Some(Reply::json(404, "{}")),
    });
    let port = server.port().to_string();
    let mut command = marvin(home.path());
    command
        .env("MARVIN_LOCAL_PORTS", &port)
        .env("TERM", "xterm");
    let mut pty = Pty::spawn_sized(command, 120, 40);
    pty.wait_for("› ");
    pty.send("/provider\r");
    pty.wait_for("← in use");
    pty.wait_for("🔮 openai-compat");
    let text = pty.visible().text();
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(&format!(
            "🔮 openai-compat smollm2 http://127.0.0.1:{port}/v1, no key ← in use"
        )),
        "{text}"
    );
    // Each provider its own emoji, and no Ollama offered as ready when none is set up.
    assert!(words.contains("🧠 openai gpt-5.1 not set up"), "{text}");
    assert!(
        words.contains("🦙 ollama qwen3-coder:30b not set up: a running Ollama server"),
        "{text}"
    );
    assert!(pty.leave().success());
}

#[test]
fn a_copilot_session_that_cannot_be_cached_is_a_notice_line() {
    let home = TempDir::new("repl-copilot-no-cache");
    // A directory where the cache file should go: the session cannot be written there.
    std::fs::create_dir_all(home.path().join("marvin-home/copilot-token.json")).unwrap();
    let server = ReplayServer::start_with(|root| {
        let grant = serde_json::json!({"token": "tid=uncached", "expires_at": 4_000_000_000u64,
            "endpoints": {"api": root}});
        vec![
            Reply::json(200, grant.to_string()),
            Reply::text(&["Still here."]),
        ]
    });
    let mut command = marvin(home.path());
    command
        .env("COPILOT_GITHUB_TOKEN", "gho_test_login")
        .env(
            "COPILOT_TOKEN_URL",
            format!("{}/copilot_internal/v2/token", server.root()),
        )
        .env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("hi\r");
    pty.wait_for("⚠ cannot cache the Copilot");
    pty.wait_for("Still here.");
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
}

#[test]
fn tab_completes_commands() {
    let home = TempDir::new("repl-tab");
    let server = ReplayServer::unused();
    let mut pty = repl(&home, &server.url(), &[]);
    pty.wait_for("› ");
    pty.send("/appr\t");
    pty.wait_for("/approvals");
    pty.send("\r");
    pty.wait_for("No lasting approvals in this project.");
    assert!(pty.leave().success());
}

#[test]
fn model_and_provider_switch_mid_conversation_and_a_bad_switch_changes_nothing() {
    let home = TempDir::new("repl-switch");
    let openai = ReplayServer::start(vec![Reply::text(&["From the mini model."])]);
    let ollama = ReplayServer::start(vec![Reply::ndjson(concat!(
        r#"{"model":"qwen3","message":{"role":"assistant","content":"From llama."},"done":false}"#,
        "\n",
        r#"{"model":"qwen3","message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":9,"eval_count":3}"#,
        "\n"
    ))]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", openai.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("OLLAMA_URL", ollama.root())
        .env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for_nth("› ", 1);
    pty.send("/model\r");
    pty.wait_for("openai-compat · gpt-4o — /model NAME");
    pty.wait_for_nth("› ", 2);
    pty.send("/model gpt-4o-mini\r");
    pty.wait_for("Now using openai-compat · gpt-4o-mini");
    pty.wait_for_nth("› ", 3);
    pty.send("first question\r");
    pty.wait_for("From the mini model.");
    pty.wait_for_nth("› ", 4);
    pty.send("/provider gemini\r");
    pty.wait_for("Cannot switch: gemini needs an API key: set GEMINI_API_KEY");
    pty.wait_for("Still using openai-compat · gpt-4o-mini.");
    pty.wait_for_nth("› ", 5);
    pty.send("/provider ollama\r");
    pty.wait_for("Now using ollama · ");
    pty.wait_for_nth("› ", 6);
    pty.send("/model qwen3\r");
    pty.wait_for("Now using ollama · qwen3");
    pty.wait_for_nth("› ", 7);
    pty.send("second question\r");
    pty.wait_for("From llama.");
    pty.wait_for("ollama · qwen3");
    assert!(pty.leave().success());
    assert_eq!(openai.requests()[0].body["model"], "gpt-4o-mini");
    let asked = &ollama.requests()[0];
    assert!(asked.url.ends_with("/api/chat"), "{}", asked.url);
    assert_eq!(asked.body["model"], "qwen3");
    // The conversation carried over to the new provider.
    let contents: Vec<&str> = asked.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(contents.contains(&"first question"), "{contents:?}");
    assert!(contents.contains(&"From the mini model."), "{contents:?}");
    assert!(contents.contains(&"second question"), "{contents:?}");
}

#[test]
fn a_provider_that_does_not_answer_is_not_switched_to_and_none_means_no_fallback() {
    let home = TempDir::new("repl-switch-check");
    let openai = ReplayServer::unused();
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", openai.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("MARVIN_FALLBACK", "none")
        .env("OLLAMA_URL", format!("http://127.0.0.1:{closed}"))
        .env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for_nth("› ", 1);
    pty.send("/provider ollama\r");
    pty.wait_for(&format!(
        "Cannot switch: no ollama server answers at http://127.0.0.1:{closed}"
    ));
    pty.wait_for("refused): start it with `ollama serve`.");
    pty.wait_for("Still using openai-compat · gpt-4o.");
    assert!(pty.leave().success());

    // One that answers, then fails: with MARVIN_FALLBACK=none the provider left is not
    // fallen back to.
    let busy = r#"{"error": "busy"}"#;
    let ollama = ReplayServer::start(vec![
        Reply::json(503, busy),
        Reply::json(503, busy),
        Reply::json(503, busy),
    ]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", openai.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("MARVIN_FALLBACK", "none")
        .env("OLLAMA_URL", ollama.root())
        .env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for_nth("› ", 1);
    pty.send("/provider ollama\r");
    pty.wait_for("Now using ollama · ");
    pty.wait_for_nth("› ", 2);
    pty.send("hello there\r");
    pty.wait_for_nth("› ", 3);
    assert!(pty.leave().success());
    assert!(openai.requests().is_empty(), "{:?}", openai.requests());
}

#[test]
fn a_round_stopped_by_ctrl_c_stays_in_the_conversation_with_what_each_call_said() {
    let home = TempDir::new("repl-cancel-round");
    let search = common::tools::Silent::start();
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "web_search", r#"{"query": "rust"}"#)]),
        Reply::text(&["Noted."]),
    ]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("DDG_URL", search.url())
        .env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("look it up\r");
    pty.wait_for("web_search");
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    pty.wait_for_nth("› ", 2);
    pty.send("what happened?\r");
    pty.wait_for("Noted.");
    assert!(pty.leave().success());
    // The next turn sees the call the stopped round made and what it said.
    let messages = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "user"],
        "{messages:?}"
    );
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["name"],
        "web_search"
    );
    assert_eq!(messages[3]["tool_call_id"], "c1");
    let said = messages[3]["content"].as_str().unwrap();
    assert!(said.contains("cancelled"), "{said}");
    assert_eq!(messages[4]["content"], "[Cancelled]");
}
