//! The terminal as a person sees it at 80 columns: the spinner while waiting, each tool call's
//! line with ✓ or ✗ (the ticket gate's turn-backs quiet), a command's output tail and `/last`,
//! the resume notice and fresh starts, what Marvin prints itself fitting 80 columns, ASCII
//! where the locale is not UTF-8.

use std::sync::{Mutex, mpsc};
use std::time::Duration;

use crate::common::pty::{Pty, at_80, repl_at};
use crate::common::{self, ReplayServer, Reply, StallServer, TempDir, marvin};

#[test]
fn a_c_locale_gets_ascii_instead_of_symbols() {
    let home = TempDir::new("ux-ascii");
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "system_info", "{}")]),
        Reply::text(&["Fine."]),
    ]);
    let mut pty = at_80(
        &home,
        &server.url(),
        &[("LANG", "C")],
        &["--once", "how is the machine?"],
    );
    pty.wait_for("Fine.");
    assert!(pty.wait_exit().success());
    let screen = pty.visible().text();
    assert!(screen.contains("  + system_info  (0.0s)"), "{screen}");
    assert!(screen.is_ascii(), "{screen}");

    // The REPL too: its banner, prompt and commands.
    let mut pty = at_80(&home, &server.url(), &[("LANG", "C")], &[]);
    pty.wait_for("\x1b[K> ");
    pty.send("/model\r");
    pty.wait_for("/model NAME switches");
    pty.send("/hepl\r");
    pty.wait_for("did you mean /help?");
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
    let screen = pty.visible().text();
    assert!(
        screen.contains("Marvin | openai-compat | gpt-4o"),
        "{screen}"
    );
    assert!(screen.is_ascii(), "{screen}");
}

fn command_call(command: &str) -> Reply {
    let arguments = serde_json::json!({ "command": command }).to_string();
    Reply::tool_calls(&[("c1", "run_command", &arguments)])
}

/// The REPL in coding mode at 80 columns, with `args`, after `prompt` was sent.
fn coding_at_80(home: &TempDir, server: &ReplayServer, args: &[&str], prompt: &str) -> Pty {
    let mut pty = at_80(home, &server.url(), &[], args);
    pty.send_in_coding_mode(prompt);
    pty
}

#[test]
fn a_spinner_turns_while_the_model_is_waited_for_and_leaves_nothing_behind() {
    let home = TempDir::new("ux-spinner");
    let (release, released) = mpsc::channel::<()>();
    let released = Mutex::new(released);
    let server = ReplayServer::answering(move |_| {
        // Held until the test has seen the spinner.
        let _ = released
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(20));
        Reply::text(&["Here it is."])
    });
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    pty.send("take your time\r");
    pty.wait_for("thinking · 0s");
    release.send(()).unwrap();
    pty.wait_for("Here it is.");
    let screen = pty.visible();
    assert!(!screen.text().contains("thinking"), "{}", screen.text());
    let lines = screen.lines();
    let asked = lines
        .iter()
        .position(|l| l.ends_with("take your time"))
        .unwrap();
    assert_eq!(lines[asked + 1], "Here it is.", "{}", screen.text());
    assert!(pty.leave().success());
}

#[test]
fn a_failed_call_is_marked_as_such_with_its_error() {
    let home = TempDir::new("ux-failed");
    let server = ReplayServer::start(vec![
        // A name no request offered: the model made it up.
        Reply::tool_calls(&[("c1", "no_such_tool", r#"{"path": "notes.txt"}"#)]).made_up(),
        Reply::text(&["Sorry."]),
    ]);
    let mut pty = at_80(&home, &server.url(), &[], &["--once", "try it"]);
    pty.wait_for("Sorry.");
    assert!(pty.wait_exit().success());
    let screen = pty.visible().text();
    let line = screen
        .lines()
        .position(|l| l.starts_with("  ✗ no_such_tool  notes.txt  ("))
        .unwrap_or_else(|| panic!("{screen}"));
    let error = screen.lines().nth(line + 1).unwrap();
    assert!(
        error.starts_with("    ") && error.contains("no_such_tool"),
        "{screen}"
    );
    assert!(!screen.contains('✓'), "{screen}");
}

#[test]
fn a_command_shows_a_spinner_then_its_exit_code_and_last_lines() {
    let home = TempDir::new("ux-command");
    let server = ReplayServer::start(common::ticketed(vec![
        command_call("while [ ! -e go ]; do sleep 0.05; done; seq 1 20; exit 3"),
        Reply::text(&["It failed."]),
    ]));
    let mut pty = coding_at_80(&home, &server, &["--permission-mode", "bypass"], "run it");
    // The command waits for `go`: until then only the spinner says it runs.
    pty.wait_for("run_command  while [ ! -e go ]");
    std::fs::write(home.path().join("go"), "").unwrap();
    pty.wait_for("It failed.");
    let screen = pty.visible();
    let lines = screen.lines();
    let call = lines
        .iter()
        .position(|l| l.starts_with("  ✗ run_command  while [ ! -e go ]"))
        .unwrap_or_else(|| panic!("{}", screen.text()));
    assert!(lines[call].ends_with(", exit 3)"), "{}", lines[call]);
    assert_eq!(
        lines[call + 1],
        "    │ … 12 more lines above: /last shows them all"
    );
    let tail: Vec<&str> = lines[call + 2..call + 10]
        .iter()
        .map(|l| l.as_str())
        .collect();
    let expected: Vec<String> = (13..=20).map(|n| format!("    │ {n}")).collect();
    assert_eq!(tail, expected);
    assert_eq!(lines[call + 10], "It failed.");
    assert!(screen.wrapped.is_empty(), "{:?}", screen.wrapped);
    pty.send("/last\r");
    pty.wait_for("$ while [ ! -e go ]");
    pty.wait_for("[exit code: 3]");
    let shown = pty.visible().text();
    let after = &shown[shown.rfind("$ while").unwrap()..];
    for n in 1..=20 {
        assert!(
            after.lines().any(|l| l == n.to_string()),
            "{n} missing:\n{after}"
        );
    }
    assert!(pty.leave().success());
}

#[test]
fn a_command_stopped_by_ctrl_c_keeps_what_it_printed() {
    let home = TempDir::new("ux-command-stopped");
    let server = ReplayServer::start(common::ticketed(vec![
        command_call("seq 1 3; sleep 60"),
        Reply::text(&["unused"]),
    ]));
    let mut pty = coding_at_80(&home, &server, &["--permission-mode", "bypass"], "run it");
    pty.wait_for("run_command  seq 1 3");
    // The spinner shows the last line the command printed, well before a second is up.
    pty.wait_for("run_command  seq 1 3; sleep 60 · 3 · ");
    pty.wait_for(" · 1s");
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    let screen = pty.visible();
    let lines = screen.lines();
    let call = lines
        .iter()
        .position(|l| l.starts_with("  ✗ run_command  seq 1 3"))
        .unwrap_or_else(|| panic!("{}", screen.text()));
    assert_eq!(
        lines[call + 1],
        "    The command was cancelled by the user (Ctrl+C).",
        "{}",
        screen.text()
    );
    let tail: Vec<&str> = lines[call + 2..call + 5]
        .iter()
        .map(|l| l.as_str())
        .collect();
    assert_eq!(tail, ["    │ 1", "    │ 2", "    │ 3"], "{}", screen.text());
    pty.send("/last\r");
    pty.wait_for("$ seq 1 3");
    let shown = pty.visible().text();
    let after = &shown[shown.rfind("$ seq 1 3").unwrap()..];
    assert!(after.lines().any(|l| l == "3"), "{after}");
    assert!(!after.contains("No command has run"), "{after}");
    assert!(pty.leave().success());
}

#[test]
fn a_slow_stop_says_what_a_second_ctrl_c_does() {
    let home = TempDir::new("ux-second-ctrl-c");
    // The command ignores SIGTERM: it takes the whole grace before SIGKILL to stop.
    let server = ReplayServer::start(common::ticketed(vec![command_call(
        "trap '' TERM; sleep 60",
    )]));
    let mut pty = coding_at_80(&home, &server, &["--permission-mode", "bypass"], "run it");
    pty.wait_for(" · 1s");
    pty.send("\x03");
    pty.wait_for("Ctrl+C again stops waiting for it");
    pty.send("\x03");
    pty.wait_for("stopped waiting");
    pty.wait_for("[Cancelled]");
    // At the prompt, a second Ctrl+C in a row says how to leave.
    pty.wait_for_nth("code› ", 2);
    pty.send("\x03");
    pty.wait_for_nth("code› ", 3);
    pty.send("\x03");
    pty.wait_for("Ctrl+D or quit leaves Marvin.");
    assert!(pty.leave().success());
}

#[test]
fn the_ticket_gates_turn_backs_are_quiet_lines_not_failures() {
    let home = TempDir::new("ux-gate");
    let write = r#"{"path": "notes.txt", "content": "milk"}"#;
    let server = ReplayServer::start(vec![
        // A write before any ticket, then the usual two creates (the first turned back).
        Reply::tool_calls(&[("w1", "create_file", write)]),
        common::ticket_round(),
        Reply::tool_calls(&[("w2", "create_file", write)]),
        Reply::text(&["Written."]),
    ]);
    let mut pty = coding_at_80(&home, &server, &["--permission-mode", "bypass"], "note it");
    pty.wait_for("Written.");
    let screen = pty.visible();
    let text = screen.text();
    assert!(!text.contains('✗'), "{text}");
    let lines = screen.lines();
    let has = |line: &str| lines.iter().any(|l| l == line);
    assert!(
        has("  · create_file  notes.txt  (waits for a ticket)"),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  · tk  create \"The task\"")
                && l.ends_with("(the ticket gate asks for a fuller description)")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  ✓ tk  create \"The task\"")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  ✓ create_file  notes.txt")),
        "{text}"
    );
    // Dim, not red: the quiet lines are drawn in the dim style.
    assert!(
        pty.screen()
            .contains("\x1b[2m  · create_file  notes.txt  (waits for a ticket)"),
        "{:?}",
        pty.screen()
    );
    assert!(pty.leave().success());
}

#[test]
fn the_time_spent_on_an_approval_goes_into_the_call_line() {
    let home = TempDir::new("ux-approval");
    let server = ReplayServer::start(common::ticketed(vec![
        command_call("echo approved"),
        Reply::text(&["Done."]),
        command_call("echo denied"),
        Reply::text(&["Stopped."]),
    ]));
    let mut pty = coding_at_80(&home, &server, &[], "say it");
    pty.wait_for("Enter chooses");
    pty.send("\r");
    pty.wait_for("Done.");
    let screen = pty.visible();
    let text = screen.text();
    assert!(
        text.lines().any(|l| l.starts_with("  ✓ run_command  echo approved  (")
            && l.ends_with(", exit 0)")),
        "{text}"
    );
    assert!(text.lines().any(|l| l == "    │ approved"), "{text}");
    // A denied command leaves /last to the one that ran.
    pty.send("again\r");
    pty.wait_for_nth("Enter chooses", 2);
    pty.send("4\r");
    pty.wait_for("What should Marvin do instead?");
    pty.send("\r");
    pty.wait_for("Stopped.");
    pty.send("/last\r");
    pty.wait_for("$ echo approved");
    // No line holds a time alone, as the old tool line left after a question.
    assert!(
        !text
            .lines()
            .any(|l| l.trim_start().starts_with('(') && l.trim_end().ends_with("s)")),
        "{text}"
    );
    assert!(pty.leave().success());
}

#[test]
fn the_repl_says_what_it_resumed_and_new_or_once_start_fresh() {
    let home = TempDir::new("ux-resume");
    let server = ReplayServer::start(vec![
        Reply::text(&["First answer."]),
        Reply::text(&["Second answer."]),
        Reply::text(&["Fresh answer."]),
        Reply::text(&["After new."]),
        Reply::text(&["Once answer."]),
        Reply::text(&["Last answer."]),
    ]);
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    assert!(!pty.screen().contains("Resumed"), "{}", pty.screen());
    pty.send("remember the milk\r");
    pty.wait_for("First answer.");
    assert!(pty.leave().success());

    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("/new starts fresh");
    let screen = pty.visible().text();
    assert!(
        screen.contains("Resumed \"remember the milk\": 2 messages from today "),
        "{screen}"
    );
    pty.send("what did I say?\r");
    pty.wait_for("Second answer.");
    assert!(pty.leave().success());

    // --new starts afresh once; the chat log is left as it was.
    let mut pty = at_80(&home, &server.url(), &[], &["--new"]);
    pty.wait_for("› ");
    assert!(!pty.screen().contains("Resumed"), "{}", pty.screen());
    pty.send("anything?\r");
    pty.wait_for("Fresh answer.");
    // /new starts a new session: the model sees nothing from before it.
    pty.send("/new\r");
    pty.wait_for("A new conversation starts here");
    pty.send("and now?\r");
    pty.wait_for("After new.");
    assert!(pty.leave().success());
    let messages = &server.requests()[1].body["messages"];
    assert_eq!(messages[1]["content"], "remember the milk");
    assert_eq!(messages[2]["content"], "First answer.");

    let mut pty = at_80(&home, &server.url(), &[], &["--once", "quick one"]);
    pty.wait_for("Once answer.");
    assert!(pty.wait_exit().success());
    let requests = server.requests();
    for fresh in &requests[2..] {
        let messages = fresh.body["messages"].as_array().unwrap();
        assert_eq!(
            messages.len(),
            2,
            "system prompt and the question: {messages:?}"
        );
    }

    // A one-shot answer is a session of its own: the next REPL here takes it up alone.
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("Resumed \"quick one\": 2 messages from today ");
    pty.send("go on\r");
    pty.wait_for("Last answer.");
    assert!(pty.leave().success());
    let messages = server.requests()[5].body["messages"].clone();
    let contents: Vec<&str> = messages.as_array().unwrap()[1..]
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["quick one", "Once answer.", "go on"]);
}

#[test]
fn marvins_own_lines_fit_80_columns() {
    own_lines_fit(80);
}

#[test]
fn marvins_own_lines_fit_a_narrow_terminal_too() {
    own_lines_fit(50);
}

/// The banner, a tool line, the status line, `/provider` and `usage` on a terminal `width`
/// columns wide, with long names: no row runs past the margin.
fn own_lines_fit(width: u16) {
    let home = TempDir::new(&format!("ux-{width}"));
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "system_info", "{}")]),
        Reply::text(&["Fine."]),
    ]);
    let mut pty = repl_at(
        width,
        &home,
        &server.url(),
        &[(
            "MARVIN_MODEL",
            "a-model-with-a-rather-long-name-of-forty-two-c",
        )],
        &["--profile", "a-long-profile-name"],
    );
    pty.wait_for("› ");
    pty.send("how is the machine?\r");
    pty.wait_for("Fine.");
    pty.wait_for(" messages");
    pty.send("/provider\r");
    pty.wait_for("ollama");
    pty.send("usage\r");
    pty.wait_for("All time");
    let screen = pty.visible();
    assert!(
        screen.wrapped.is_empty(),
        "{:?}\n{}",
        screen.wrapped,
        screen.text()
    );
    assert!(pty.leave().success());
}

const MARKDOWN: &str =
    "# Plan\n\nSome **bold** words.\n\n- one\n- two\n\n```rust\nfn main() {  }\n```\n";

#[test]
fn markdown_is_rendered_on_a_terminal_and_raw_elsewhere() {
    let home = TempDir::new("ux-markdown");
    let pieces: Vec<String> = MARKDOWN.chars().map(String::from).collect();
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let server = ReplayServer::start(vec![
        Reply::text(&pieces),
        Reply::text(&pieces),
        Reply::text(&pieces),
    ]);
    let mut pty = at_80(&home, &server.url(), &[], &["--once", "plan it"]);
    pty.wait_for("fn main");
    assert!(pty.wait_exit().success());
    let screen = pty.visible().text();
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines.contains(&"Some bold words."), "{screen}");
    assert!(
        lines.contains(&"• one") && lines.contains(&"• two"),
        "{screen}"
    );
    // Code is left exactly as written, ready to copy.
    assert!(lines.contains(&"fn main() {  }"), "{screen}");
    assert!(
        !screen.contains("**") && !screen.contains("# Plan"),
        "{screen}"
    );
    assert!(
        pty.screen().contains("1mbold\x1b[0m"),
        "bold is bold: {:?}",
        pty.screen()
    );
    assert!(pty.visible().wrapped.is_empty(), "{screen}");

    let mut pty = at_80(&home, &server.url(), &[], &["--once", "--raw", "plan it"]);
    pty.wait_for("```\r\n");
    assert!(pty.wait_exit().success());
    let screen = pty.visible().text();
    assert!(
        screen.contains("# Plan\nSome **bold** words.")
            || screen.contains("# Plan\n\nSome **bold** words."),
        "{screen}"
    );
    assert!(screen.contains("- one\n- two"), "{screen}");

    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("TERM", "xterm")
        .args(["--once", "plan it"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout), MARKDOWN);
}

#[test]
fn a_stream_that_falls_silent_after_text_gets_its_spinner_back() {
    let home = TempDir::new("ux-silent");
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": "I will look it up.\n"}}]});
    // The text, then nothing: as a model writing a long tool call's arguments.
    let server = StallServer::start(&format!("data: {chunk}\n\n"));
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    pty.send("look it up\r");
    pty.wait_for("I will look it up.");
    pty.wait_for("thinking · 2s");
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    let screen = pty.visible().text();
    assert!(
        !screen.contains("thinking"),
        "erased when the turn ends: {screen}"
    );
    assert!(pty.leave().success());
}

#[test]
fn no_spinner_when_the_answer_goes_to_a_pipe() {
    let home = TempDir::new("ux-piped");
    let server = ReplayServer::answering(|_| {
        // Long enough for a spinner to have been drawn, were there one.
        std::thread::sleep(Duration::from_millis(600));
        Reply::text(&["Piped."])
    });
    // stdout into a pipe (cat), stderr still the terminal.
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("TERM", "xterm")
        .env("MARVIN", env!("CARGO_BIN_EXE_marvin"));
    let mut shell = std::process::Command::new("sh");
    shell.env_clear().current_dir(home.path());
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            shell.env(key, value);
        }
    }
    shell.args(["-c", "\"$MARVIN\" --once quick | cat"]);
    let mut pty = Pty::spawn_sized(shell, 80, 24);
    pty.wait_for("Piped.");
    pty.wait_exit();
    assert!(!pty.screen().contains("thinking"), "{:?}", pty.screen());
}
