//! Interactive tools under a real pseudo-terminal: ask_user (single, multi, Other, schema
//! errors, parallel questions, reprompt, timeout and a late answer, Ctrl+C), approvals (each
//! choice, `always` across a restart and revoked), and the permission modes.

use crate::common::pty::Pty;
use crate::common::{self, ReplayServer, Reply, TempDir, marvin, stderr, stdout};
use serde_json::{Value, json};

const DOWN: &str = "\x1b[B";

fn start(home: &TempDir, server: &ReplayServer, args: &[&str]) -> Pty {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("TERM", "xterm")
        .args(args);
    Pty::spawn(command)
}

fn ask_user(questions: Value) -> Reply {
    Reply::tool_calls(&[(
        "q1",
        "ask_user",
        &json!({"questions": questions}).to_string(),
    )])
}

fn db_question(multi: bool) -> Value {
    json!([{"header": "Database", "question": "Which database?", "multiSelect": multi, "options": [
        {"label": "SQLite", "description": "one file"}, {"label": "PostgreSQL", "description": "a server"}, {"label": "MySQL", "description": "another server"}]}])
}

fn answers(result: &str) -> Value {
    serde_json::from_str::<Value>(result.lines().next().unwrap()).unwrap()["answers"].clone()
}

#[test]
fn single_select_with_arrows_and_enter() {
    let home = TempDir::new("ask-single");
    let server = ReplayServer::start(vec![
        ask_user(db_question(false)),
        Reply::text(&["PostgreSQL it is."]),
    ]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("set up the app\r");
    pty.wait_for("Enter chooses");
    let screen = pty.screen();
    assert!(
        screen.contains("[Database]") && screen.contains("Which database?"),
        "{screen}"
    );
    assert!(
        screen.contains("1. SQLite") && screen.contains("one file") && screen.contains("4. Other"),
        "{screen}"
    );
    pty.send(DOWN);
    pty.send("\r");
    pty.wait_for("PostgreSQL it is.");
    let result = server.requests()[1].last_message()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(answers(&result), json!({"Which database?": "PostgreSQL"}));
    assert!(
        result.ends_with("The user answered: Database: PostgreSQL"),
        "{result}"
    );
    assert!(
        pty.screen().contains("✓ Database: PostgreSQL"),
        "{}",
        pty.screen()
    );
    let log = std::fs::read_to_string(
        home.path()
            .join("marvin-home/profiles/default/chat_log.jsonl"),
    )
    .unwrap();
    assert!(
        log.contains("ask_user asked: Which database? [SQLite | PostgreSQL | MySQL]")
            && log.contains("answered: PostgreSQL"),
        "{log}"
    );
    assert!(pty.leave().success());
}

#[test]
fn multi_select_with_digits_and_space_and_other_with_text() {
    let home = TempDir::new("ask-multi");
    let questions = json!([
        {"header": "Stores", "question": "Which stores?", "multiSelect": true, "options": [
            {"label": "Redis", "description": ""}, {"label": "S3", "description": ""}]},
        {"header": "Name", "question": "Project name?", "multiSelect": false, "options": [
            {"label": "alpha", "description": ""}, {"label": "beta", "description": ""}]}]);
    let server = ReplayServer::start(vec![ask_user(questions), Reply::text(&["Thanks."])]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("plan it\r");
    pty.wait_for("Space toggles");
    pty.send("1 2 \r");
    pty.wait_for("Project name?");
    pty.send("3\r");
    pty.wait_for("Your answer:");
    pty.send("gamma ray\r");
    pty.wait_for("Thanks.");
    let result = server.requests()[1].last_message()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        answers(&result),
        json!({"Which stores?": ["Redis", "S3"], "Project name?": "Other: gamma ray"})
    );
    pty.leave();
}

#[test]
fn an_empty_other_is_asked_again_with_the_reason() {
    let home = TempDir::new("ask-reprompt");
    let server = ReplayServer::start(vec![ask_user(db_question(false)), Reply::text(&["ok"])]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("go\r");
    pty.wait_for("Enter chooses");
    pty.send("4\r");
    pty.wait_for("Your answer:");
    pty.send("\r");
    pty.wait_for("Please type an answer after choosing Other");
    pty.wait_for_nth("Enter chooses", 2);
    // "Other" is still chosen; the person picks an option instead.
    pty.send("1\r");
    pty.wait_for("ok");
    assert_eq!(
        answers(
            server.requests()[1].last_message()["content"]
                .as_str()
                .unwrap()
        ),
        json!({"Which database?": "SQLite"})
    );
    pty.leave();
}

#[test]
fn schema_errors_reach_the_model_without_asking() {
    let home = TempDir::new("ask-schema");
    let bad = json!([{"header": "Far too long a header", "question": "Q?", "multiSelect": false, "options": [{"label": "a", "description": ""}, {"label": "b", "description": ""}]}]);
    let server = ReplayServer::start(vec![ask_user(bad), Reply::text(&["fixed"])]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("go\r");
    pty.wait_for("fixed");
    let result = server.requests()[1].last_message()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        result.starts_with("Error: questions[0].header: at most 12 characters"),
        "{result}"
    );
    assert!(!pty.screen().contains("Enter chooses"));
    pty.leave();
}

#[test]
fn parallel_questions_are_asked_one_at_a_time_and_answered_in_call_order() {
    let home = TempDir::new("ask-parallel");
    let first = json!({"questions": [{"header": "One", "question": "First question?", "multiSelect": false, "options": [{"label": "x1", "description": ""}, {"label": "y1", "description": ""}]}]}).to_string();
    let second = json!({"questions": [{"header": "Two", "question": "Second question?", "multiSelect": false, "options": [{"label": "x2", "description": ""}, {"label": "y2", "description": ""}]}]}).to_string();
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("a", "ask_user", &first), ("b", "ask_user", &second)]),
        Reply::text(&["both"]),
    ]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("go\r");
    pty.wait_for("Enter chooses");
    let screen = pty.screen();
    // Exactly one question is on screen; they come in the order the tools asked.
    assert_eq!(screen.matches("question?").count(), 1, "{screen}");
    let first_shown = if screen.contains("First question?") {
        "First"
    } else {
        "Second"
    };
    pty.send("\r");
    pty.wait_for_nth("Enter chooses", 2);
    pty.send(DOWN);
    pty.send("\r");
    pty.wait_for("both");
    // Results come back in call order whichever was asked first.
    let results = server.requests()[1].tool_results();
    let (first, second) = if first_shown == "First" {
        ("x1", "y2")
    } else {
        ("y1", "x2")
    };
    assert_eq!(answers(&results[0]), json!({"First question?": first}));
    assert_eq!(answers(&results[1]), json!({"Second question?": second}));
    pty.leave();
}

#[test]
fn while_a_question_is_on_the_terminal_the_session_goes_on_and_the_next_one_waits_its_turn() {
    let home = TempDir::new("ask-pump");
    let question = |n: &str| {
        json!({"questions": [{"header": n, "question": format!("{n} question?"), "multiSelect": false, "options": [{"label": "x", "description": ""}, {"label": "y", "description": ""}]}]}).to_string()
    };
    let (first, second) = (question("First"), question("Second"));
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("a", "ask_user", &first), ("b", "ask_user", &second)]),
        Reply::text(&["both"]),
    ]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("go\r");
    pty.wait_for("Enter chooses");
    // The session took the second question while the first is shown (it is in the chat log
    // already), but the terminal shows one question at a time.
    let log = home
        .path()
        .join("marvin-home/profiles/default/chat_log.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let asked = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .matches("ask_user asked")
            .count()
    };
    while asked() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(asked(), 2, "the second question reached the session");
    assert_eq!(
        pty.screen().matches("question?").count(),
        1,
        "{}",
        pty.screen()
    );
    pty.send("\r");
    pty.wait_for_nth("Enter chooses", 2);
    pty.send("\r");
    pty.wait_for("both");
    assert_eq!(
        pty.screen().matches("question?").count(),
        2,
        "{}",
        pty.screen()
    );
    pty.leave();
}

#[test]
fn an_unanswered_question_goes_pending_and_its_late_answer_follows_up() {
    let home = TempDir::new("ask-pending");
    let call = Reply::tool_calls(&[(
        "q1",
        "ask_user",
        &json!({"questions": db_question(false), "timeout_seconds": 1}).to_string(),
    )]);
    let server = ReplayServer::start(vec![
        call,
        Reply::text(&["I will wait for your choice."]),
        Reply::text(&["Got it: MySQL."]),
    ]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("set up\r");
    pty.wait_for("(no answer in time)");
    pty.wait_for("I will wait for your choice.");
    let pending = server.requests()[1].last_message()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        pending.starts_with("The user has not answered yet (waited 1s). The question stays open"),
        "{pending}"
    );
    // After the turn the question comes back; the answer goes with the next prompt.
    pty.wait_for("An earlier question is still open");
    pty.wait_for_nth("Enter chooses", 2);
    pty.send("3\r");
    pty.wait_for_nth("› ", 2);
    pty.send("what now?\r");
    pty.wait_for("Got it: MySQL.");
    let messages = server.requests()[2].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let n = messages.len();
    let late = messages[n - 2]["content"].as_str().unwrap();
    assert!(
        late.starts_with("(Late answer to your earlier ask_user question)"),
        "{late}"
    );
    assert!(late.contains(r#""Which database?":"MySQL""#), "{late}");
    assert_eq!(messages[n - 1]["content"], "what now?");
    pty.leave();
}

#[test]
fn ctrl_c_while_asking_cancels_the_question_and_the_turn() {
    let home = TempDir::new("ask-cancel");
    let server = ReplayServer::start(vec![ask_user(db_question(false))]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("go\r");
    pty.wait_for("Enter chooses");
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    pty.wait_for_nth("› ", 2);
    assert_eq!(
        server.requests().len(),
        1,
        "nothing more was asked of the model"
    );
    assert!(pty.leave().success());
}

#[test]
fn a_dumb_terminal_answers_with_typed_numbers() {
    let home = TempDir::new("ask-dumb");
    let server = ReplayServer::start(vec![ask_user(db_question(true)), Reply::text(&["noted"])]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("TERM", "dumb");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("go\r");
    pty.wait_for("Numbers, separated by commas:");
    assert!(
        !pty.screen().contains("\x1b[2m"),
        "no escape sequences on a dumb terminal"
    );
    // A number that is no option is refused as every surface refuses it.
    pty.send("9\r");
    pty.wait_for(
        "There is no option 9: the options are 1 to 4. For your own words, choose 4 (Other)",
    );
    pty.send("many\r");
    pty.wait_for("Please type numbers between 1 and 4.");
    pty.send("1,3\r");
    pty.wait_for("noted");
    assert_eq!(
        answers(
            server.requests()[1].last_message()["content"]
                .as_str()
                .unwrap()
        ),
        json!({"Which database?": ["SQLite", "MySQL"]})
    );
    pty.leave();
}

fn command_call(command: &str) -> Reply {
    Reply::tool_calls(&[(
        "c1",
        "run_command",
        &json!({"command": command}).to_string(),
    )])
}

/// The REPL in coding mode, `prompt` sent, the approval prompt on screen.
fn coding_repl(home: &TempDir, server: &ReplayServer, args: &[&str], prompt: &str) -> Pty {
    let mut pty = start(home, server, args);
    pty.send_in_coding_mode(prompt);
    pty
}

#[test]
fn approve_once_runs_and_asks_again_next_time() {
    let home = TempDir::new("approve-once");
    let server = ReplayServer::start(vec![
        common::ticket_round(),
        command_call("touch one"),
        Reply::text(&["done"]),
        command_call("touch one"),
        Reply::text(&["again"]),
    ]);
    // Its own working directory: the sandbox lets `touch` add no file to the home's top.
    let work = common::work(home.path()).display().to_string();
    let mut pty = coding_repl(&home, &server, &["--working-dir", &work], "make it");
    // The hint comes after every option: the whole chooser is on screen.
    pty.wait_for("Enter chooses");
    let screen = pty.screen();
    assert!(
        screen.contains("[run_command]")
            && screen.contains("wants to run:")
            && !screen.contains("run_command wants"),
        "{screen}"
    );
    assert!(screen.contains("touch one"), "{screen}");
    assert!(
        screen.contains("Yes, and don't ask again this session for `touch one …`"),
        "{screen}"
    );
    pty.send("\r");
    pty.wait_for("done");
    assert_eq!(
        server.requests()[2].last_message()["content"],
        "(no output)\n[exit code: 0]"
    );
    pty.send("once more\r");
    pty.wait_for_nth("Yes, once", 2);
    pty.send("\r");
    pty.wait_for("again");
    pty.leave();
}

#[test]
fn no_with_instructions_reaches_the_model() {
    let home = TempDir::new("approve-no");
    let server = ReplayServer::start(vec![
        common::ticket_round(),
        command_call("rm -rf build"),
        Reply::text(&["understood"]),
    ]);
    let mut pty = coding_repl(&home, &server, &[], "clean up");
    pty.wait_for("Yes, once");
    pty.send("4\r");
    pty.wait_for("What should Marvin do instead?");
    pty.send("only delete build/tmp\r");
    pty.wait_for("understood");
    assert_eq!(
        server.requests()[2].last_message()["content"],
        "Error: The user declined this run_command call and said: only delete build/tmp"
    );
    assert!(!pty.screen().contains("[exit code"));
    pty.leave();
}

#[test]
fn always_survives_a_restart_and_can_be_revoked() {
    let home = TempDir::new("approve-always");
    let project = TempDir::new("approve-always-project");
    let dir = project.path().to_str().unwrap().to_string();
    let args = ["--working-dir", dir.as_str()];
    let server = ReplayServer::start(vec![
        common::ticket_round(),
        command_call("cargo --version"),
        Reply::text(&["first"]),
    ]);
    let mut pty = coding_repl(&home, &server, &args, "check");
    pty.wait_for("Always in this project");
    pty.send("3\r");
    pty.wait_for("first");
    pty.send("/approvals\r");
    pty.wait_for("1. run_command:cargo --version");
    pty.leave();
    // A new process: the grant is still there, nothing is asked.
    let server = ReplayServer::start(vec![
        common::ticket_round(),
        command_call("cargo --version"),
        Reply::text(&["second"]),
    ]);
    let mut pty = coding_repl(&home, &server, &args, "check again");
    pty.wait_for("second");
    assert!(!pty.screen().contains("Yes, once"), "{}", pty.screen());
    pty.send("/approvals revoke 1\r");
    pty.wait_for("Revoked: run_command:cargo --version");
    pty.leave();
    let server = ReplayServer::start(vec![
        common::ticket_round(),
        command_call("cargo --version"),
        Reply::text(&["third"]),
    ]);
    let mut pty = coding_repl(&home, &server, &args, "and again");
    pty.wait_for("Yes, once");
    pty.send("\r");
    pty.wait_for("third");
    pty.leave();
}

#[test]
fn an_always_grant_that_cannot_be_saved_is_told_in_the_result_not_printed() {
    let home = TempDir::new("approve-unsaved");
    // A directory where the approvals file goes: the grant cannot be written.
    let store = home.path().join("marvin-home/approvals.json");
    std::fs::create_dir_all(&store).unwrap();
    let project = TempDir::new("approve-unsaved-project");
    let dir = project.path().to_str().unwrap().to_string();
    let server = ReplayServer::start(vec![
        common::ticket_round(),
        command_call("echo ran"),
        Reply::text(&["checked"]),
    ]);
    let mut pty = coding_repl(&home, &server, &["--working-dir", dir.as_str()], "check");
    pty.wait_for("Always in this project");
    pty.send("3\r");
    pty.wait_for("checked");
    let result = server.requests()[2].last_message()["content"]
        .as_str()
        .unwrap()
        .to_string();
    let note = format!(
        "\n(The approval could not be saved for later: cannot save approvals to {}: ",
        store.display()
    );
    assert!(result.starts_with("ran\n\n[exit code: 0]\n"), "{result}");
    assert!(result.contains(&note), "{result}");
    assert!(
        !pty.screen().contains("marvin: cannot save approvals"),
        "{}",
        pty.screen()
    );
    pty.leave();
}

#[test]
fn file_changes_show_a_diff_and_session_grants_cover_the_file() {
    let home = TempDir::new("approve-edit");
    let project = TempDir::new("approve-edit-project");
    std::fs::write(project.path().join("app.py"), "print('hello')\n").unwrap();
    let patch = json!({"path": "app.py", "old_str": "hello", "new_str": "world"}).to_string();
    let patch_back = json!({"path": "app.py", "old_str": "world", "new_str": "again"}).to_string();
    let server = ReplayServer::start(vec![
        common::ticket_round(),
        Reply::tool_calls(&[("p1", "apply_patch", &patch)]),
        Reply::tool_calls(&[("p2", "apply_patch", &patch_back)]),
        Reply::text(&["edited"]),
    ]);
    let dir = project.path().to_str().unwrap().to_string();
    let mut pty = coding_repl(&home, &server, &["--working-dir", &dir], "edit it");
    pty.wait_for("Yes, once");
    let screen = pty.screen();
    assert!(
        screen.contains("[apply_patch]") && screen.contains("wants to change app.py:"),
        "{screen}"
    );
    assert!(
        screen.contains("\x1b[31m-print('hello')") && screen.contains("\x1b[32m+print('world')"),
        "{screen}"
    );
    pty.send("2\r");
    pty.wait_for("edited");
    assert_eq!(
        std::fs::read_to_string(project.path().join("app.py")).unwrap(),
        "print('again')\n"
    );
    assert_eq!(
        pty.screen().matches("wants to change app.py").count(),
        1,
        "the session grant covered the second change"
    );
    pty.leave();
}

#[test]
fn accept_edits_asks_only_before_commands_and_plan_offers_no_writes() {
    let home = TempDir::new("mode-accept");
    let project = TempDir::new("mode-accept-project");
    let dir = project.path().to_str().unwrap().to_string();
    let create = json!({"path": "new.txt", "content": "x"}).to_string();
    let server = ReplayServer::start(vec![
        common::ticket_round(),
        Reply::tool_calls(&[("f", "create_file", &create)]),
        command_call("ls"),
        Reply::text(&["ok"]),
    ]);
    let mut pty = coding_repl(
        &home,
        &server,
        &["--working-dir", &dir, "--permission-mode", "accept-edits"],
        "go",
    );
    pty.wait_for("Yes, once");
    assert!(
        project.path().join("new.txt").exists(),
        "the edit went ahead without asking"
    );
    assert!(pty.screen().contains("wants to run:"));
    pty.send("\r");
    pty.wait_for("ok");
    pty.leave();

    let server = ReplayServer::start(vec![Reply::text(&["read only"])]);
    let mut pty = coding_repl(&home, &server, &["--permission-mode", "plan"], "go");
    pty.wait_for("read only");
    let tools: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        tools.contains(&"read_file".to_string())
            && !tools.contains(&"run_command".to_string())
            && !tools.contains(&"apply_patch".to_string()),
        "{tools:?}"
    );
    pty.leave();
}

#[test]
fn bypass_never_asks() {
    let home = TempDir::new("mode-bypass");
    let server = ReplayServer::start(common::ticketed(vec![
        command_call("true"),
        Reply::text(&["ran"]),
    ]));
    let mut pty = coding_repl(&home, &server, &["--permission-mode", "bypass"], "go");
    pty.wait_for("ran");
    assert!(!pty.screen().contains("Yes, once"));
    pty.leave();
}

#[test]
fn non_interactive_modes_never_hang() {
    let cases = [
        (
            Some("default"),
            "Error: no one to ask: denied. run_command needs approval in permission mode default",
        ),
        (
            Some("accept-edits"),
            "Error: no one to ask: denied. run_command needs approval in permission mode accept-edits",
        ),
        (None, "(no output)\n[exit code: 0]"),
        (Some("bypass"), "(no output)\n[exit code: 0]"),
    ];
    for (mode, expected) in cases {
        let home = TempDir::new("mode-ni");
        let server = ReplayServer::start(common::ticketed(vec![
            command_call("true"),
            Reply::text(&["done"]),
        ]));
        let mut command = marvin(home.path());
        command.env("OPENAI_COMPAT_URL", server.url()).args([
            "--non-interactive",
            "--prompt",
            "go",
        ]);
        if let Some(mode) = mode {
            command.args(["--permission-mode", mode]);
        }
        let output = command.output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{mode:?}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), "  🔧 tk, tk\n  🔧 run_command\ndone\n");
        let result = server.requests()[2].last_message()["content"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(result.starts_with(expected), "{mode:?}: {result}");
    }
    let home = TempDir::new("mode-ni-plan");
    let server = ReplayServer::start(vec![Reply::text(&["planned"])]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .args([
            "--non-interactive",
            "--prompt",
            "go",
            "--permission-mode",
            "plan",
        ])
        .output()
        .unwrap();
    assert_eq!(stdout(&output), "planned\n");
    let tools = server.requests()[0].body["tools"].to_string();
    assert!(
        !tools.contains("run_command") && tools.contains("read_file"),
        "{tools}"
    );
    // Nobody can answer: ask_user is not offered, and a call of it all the same is told why.
    let ask = ReplayServer::start(vec![
        ask_user(db_question(false)).made_up(),
        Reply::text(&["assumed"]),
    ]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", ask.url())
        .args(["--non-interactive", "--prompt", "go"])
        .output()
        .unwrap();
    assert_eq!(stdout(&output), "  🔧 ask_user\nassumed\n");
    assert!(
        ask.requests()[1].last_message()["content"]
            .as_str()
            .unwrap()
            .starts_with("Error: Nobody can answer questions here")
    );
}
