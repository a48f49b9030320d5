//! Questions in runs without a terminal (`--on-ask`): denied by default, the run ended with
//! exit status 3 (`fail`), or asked on the --json stream and answered by a script on stdin
//! (`stdin`), malformed answers reported and asked again; from the phone by ntfy (`notify`);
//! and a sub-agent's questions reaching the person who started it.

use std::process::Stdio;

use serde_json::{Value, json};

use crate::common::asking::Script;
use crate::common::ntfy::{NtfyServer, press};
use crate::common::{self, ReplayServer, Reply, TempDir, in_project, last_stderr_line, stderr};

fn ask_user() -> Reply {
    let questions = json!([
        {"header": "Database", "question": "Which database?", "multiSelect": false, "options": [
            {"label": "SQLite", "description": "one file"}, {"label": "PostgreSQL", "description": "a server"}]},
        {"header": "Extras", "question": "Which extras?", "multiSelect": true, "options": [
            {"label": "Backups", "description": "nightly"}, {"label": "Metrics", "description": "graphs"}]}
    ]);
    Reply::tool_calls(&[(
        "q1",
        "ask_user",
        &json!({"questions": questions}).to_string(),
    )])
}

/// The runs of this file: `--on-ask MODE` in a project, asked to set it up.
impl Script {
    pub(crate) fn start(home: &TempDir, server: &ReplayServer, extra: &[&str]) -> Self {
        Self::start_asking(home, server, "stdin", extra)
    }

    /// The same with `--on-ask MODE`.
    fn start_asking(home: &TempDir, server: &ReplayServer, mode: &str, extra: &[&str]) -> Self {
        let work = common::work(home.path());
        let mut command = in_project(home.path(), &server.url(), &work);
        command
            .env("MARVIN_MODEL", "gpt-4o")
            .args(["--non-interactive", "--json", "--on-ask", mode])
            .args(extra)
            .args(["--prompt", "set it up"]);
        Self::spawn(command)
    }
}

#[test]
fn a_script_answers_questions_on_stdin_and_a_malformed_answer_is_asked_again() {
    let home = TempDir::new("headless-stdin");
    let server = ReplayServer::start(vec![ask_user(), Reply::text(&["Set up."])]);
    let mut script = Script::start(&home, &server, &[]);
    let question = script.next("question");
    assert_eq!(question["tool"], "ask_user");
    assert_eq!(question["questions"][0]["question"], "Which database?");
    assert_eq!(
        question["questions"][0]["options"][1]["label"],
        "PostgreSQL"
    );
    assert_eq!(question["questions"][1]["multi_select"], true);
    let id = question["id"].as_u64().unwrap();

    script.answer("this is not json");
    let error = script.next("answer_error");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("one JSON object per line"),
        "{error}"
    );
    script.answer(&json!({"id": id + 7, "answers": ["SQLite", ["Backups"]]}).to_string());
    let error = script.next("answer_error");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains(&format!("the open ones are {id}")),
        "{error}"
    );
    script.answer(&json!({"id": id, "answers": ["SQLite"]}).to_string());
    let error = script.next("answer_error");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("2 questions were asked and 1 answers given"),
        "{error}"
    );

    script
        .answer(&json!({"id": id, "answers": ["Postgres 17", ["Backups", "Metrics"]]}).to_string());
    assert_eq!(script.next("message")["text"], "Set up.");
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(last_stderr_line(&output).starts_with("MARVIN_COST:"));
    let result = server.requests()[1].last_tool_result();
    let answers: Value = serde_json::from_str(result.lines().next().unwrap()).unwrap();
    assert_eq!(
        answers["answers"],
        json!({"Which database?": "Other: Postgres 17", "Which extras?": ["Backups", "Metrics"]}),
        "{result}"
    );
}

#[test]
fn an_approval_is_asked_on_stdin_and_a_no_carries_its_reason() {
    let home = TempDir::new("headless-approval");
    let command = |c: &str| {
        let arguments = json!({ "command": c }).to_string();
        Reply::tool_calls(&[("c1", "run_command", &arguments)])
    };
    let server = ReplayServer::start(common::ticketed(vec![
        command("echo from-the-script > made.txt"),
        Reply::text(&["Ran it."]),
    ]));
    let mut script = Script::start(&home, &server, &["--permission-mode", "default"]);
    let approval = script.next("approval");
    assert_eq!(approval["tool"], "run_command");
    assert_eq!(approval["detail"], "echo from-the-script > made.txt");
    assert_eq!(
        approval["choices"],
        json!(["once", "session", "always", "no"])
    );
    assert_eq!(approval["scopes"], json!(["once", "session", "always"]));
    let id = approval["id"].as_u64().unwrap();
    script.answer(&json!({"id": id, "approve": "all_edits"}).to_string());
    assert_eq!(
        script.next("answer_error")["message"],
        "\"approve\" is one of \"once\", \"session\", \"always\" or \"no\" (with a \"reason\")"
    );
    script.answer(&json!({"id": id, "approve": "once"}).to_string());
    assert_eq!(script.next("message")["text"], "Ran it.");
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(home.path().join("work/made.txt")).unwrap(),
        "from-the-script\n"
    );

    // A no, with what to do instead, reaches the model.
    let server = ReplayServer::start(common::ticketed(vec![
        command("rm -rf /"),
        Reply::text(&["Did not."]),
    ]));
    let mut script = Script::start(&home, &server, &["--permission-mode", "default"]);
    let approval = script.next("approval");
    let id = approval["id"].as_u64().unwrap();
    script.answer(&json!({"id": id, "approve": "no", "reason": "never that"}).to_string());
    assert_eq!(script.next("message")["text"], "Did not.");
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result = server.requests().last().unwrap().last_tool_result();
    assert!(result.contains("never that"), "{result}");
}

#[test]
fn questions_open_when_stdin_ends_are_denied_and_the_run_goes_on() {
    let home = TempDir::new("headless-eof");
    let server = ReplayServer::start(vec![ask_user(), Reply::text(&["Without answers."])]);
    let mut script = Script::start(&home, &server, &[]);
    let question = script.next("question");
    script.close_stdin();
    let closed = script.next("question_closed");
    assert_eq!(closed["id"], question["id"]);
    assert!(
        closed["outcome"]
            .as_str()
            .unwrap()
            .contains("stdin was closed"),
        "{closed}"
    );
    assert_eq!(script.next("message")["text"], "Without answers.");
    assert_eq!(script.finish().status.code(), Some(0));
    let result = server.requests()[1].last_tool_result();
    assert!(result.contains("no answer"), "{result}");
}

#[test]
fn multi_select_spelt_as_the_event_spells_it_is_refused_to_the_model_not_shown_as_one_choice() {
    let home = TempDir::new("headless-multi-spelling");
    let questions = json!([{"header": "Extras", "question": "Which extras?", "multi_select": true,
        "options": [{"label": "Backups", "description": "nightly"}, {"label": "Metrics", "description": "graphs"}]}]);
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[(
            "q1",
            "ask_user",
            &json!({"questions": questions}).to_string(),
        )]),
        Reply::text(&["Asked again."]),
    ]);
    let script = Script::start(&home, &server, &[]);
    let first = script.next_of(&["question", "message"]);
    assert_eq!(first["type"], "message", "nothing is asked: {first}");
    assert_eq!(script.finish().status.code(), Some(0));
    assert_eq!(
        server.requests()[1].last_tool_result(),
        "Error: questions[0].multi_select: the key is \"multiSelect\" (true where several options may be chosen), not \"multi_select\"; ask again with \"multiSelect\"."
    );
}

#[test]
fn wait_denies_a_question_nobody_answered_in_time_and_the_run_goes_on() {
    let home = TempDir::new("headless-wait");
    let server = ReplayServer::start(vec![ask_user(), Reply::text(&["Went on."])]);
    // stdin stays open and silent: only the wait ends the question.
    let script = Script::start_asking(&home, &server, "wait:1", &[]);
    let question = script.next("question");
    let closed = script.next("question_closed");
    assert_eq!(closed["id"], question["id"]);
    assert_eq!(
        closed["outcome"],
        "denied: no answer within 1 s (--on-ask wait)"
    );
    assert_eq!(closed["action"], "deny");
    assert_eq!(script.next("message")["text"], "Went on.");
    assert_eq!(script.finish().status.code(), Some(0));
}

#[test]
fn fail_ends_the_run_with_status_3_and_names_the_question() {
    let home = TempDir::new("headless-fail");
    let server = ReplayServer::start(vec![ask_user(), Reply::text(&["never sent"])]);
    let mut command = in_project(home.path(), &server.url(), home.path());
    command.args([
        "--non-interactive",
        "--on-ask",
        "fail",
        "--prompt",
        "set it up",
    ]);
    let output = common::run_with_stdin(command, "");
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.contains("marvin: a tool asked and --on-ask fail ends the run: ask_user asked: Which database? [SQLite | PostgreSQL]"),
        "{err}"
    );
    assert!(last_stderr_line(&output).starts_with("MARVIN_COST:"));
    assert_eq!(server.requests().len(), 1, "the model is not asked again");

    let mut command = in_project(home.path(), &server.url(), home.path());
    command.args([
        "--non-interactive",
        "--json",
        "--on-ask",
        "fail",
        "--prompt",
        "again",
    ]);
    let server_b = ReplayServer::start(vec![ask_user()]);
    command.env("OPENAI_COMPAT_URL", server_b.url());
    let output = common::run_with_stdin(command, "");
    assert_eq!(output.status.code(), Some(3));
    let events: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let error = events.iter().find(|e| e["type"] == "error").unwrap();
    assert_eq!(error["kind"], "question");
    assert_eq!(events.last().unwrap()["type"], "usage");
}

#[test]
fn by_default_nobody_is_asked_and_the_model_is_told() {
    let home = TempDir::new("headless-deny");
    // Nobody can answer, so no request offers ask_user; a model that calls it all the same
    // (a name it knew from elsewhere) is told why there is no answer.
    let server = ReplayServer::start(vec![
        ask_user().made_up(),
        Reply::text(&["Assumed SQLite."]),
    ]);
    let mut command = in_project(home.path(), &server.url(), home.path());
    command.args(["--non-interactive", "--prompt", "set it up"]);
    let output = common::run_with_stdin(command, "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let offered = server.requests()[0].body["tools"].to_string();
    assert!(!offered.contains("\"ask_user\""), "{offered}");
    let result = server.requests()[1].last_tool_result();
    assert!(
        result.contains("Nobody can answer questions here"),
        "{result}"
    );
}

#[test]
fn a_sub_agents_question_is_answered_in_the_parents_terminal() {
    let home = TempDir::new("headless-subagent");
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[(
            "a1",
            "launch_agent",
            r#"{"ticket_id": "T-1", "prompt": "set up the database"}"#,
        )]),
        ask_user(),
        Reply::text(&["child chose"]),
        Reply::text(&["parent done"]),
    ]));
    let mut command = in_project(home.path(), &server.url(), home.path());
    command.env("MARVIN_MODEL", "gpt-4o").env("TERM", "xterm");
    let mut pty = crate::common::pty::Pty::spawn_sized(command, 80, 24);
    pty.wait_for("› ");
    pty.send("!code\r");
    pty.wait_for("code› ");
    pty.send("delegate it\r");
    // The launch is approved here, then the child's question shows in this same terminal.
    pty.wait_for("wants to start a sub-agent");
    pty.wait_for("Enter chooses");
    pty.send("\r");
    pty.wait_for("(sub-agent) Which database?");
    pty.wait_for_nth("Enter chooses", 2);
    pty.send("\r");
    pty.wait_for("(sub-agent) Which extras?");
    pty.wait_for("Enter confirms");
    pty.send(" \r");
    pty.wait_for("parent done");
    assert!(pty.leave().success());
    let requests = server.requests();
    // The child's tool result holds the parent's person's answers.
    let child_result = requests[3].last_tool_result();
    assert!(
        child_result.contains("\"Which database?\":\"SQLite\""),
        "{child_result}"
    );
    // The audit log says who asked and who answered.
    let log = std::fs::read_to_string(home.path().join(".marvin/logs/subagents.jsonl")).unwrap();
    let relayed: Value = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["event"] == "question_relayed")
        .unwrap_or_else(|| panic!("{log}"));
    assert_eq!(relayed["tool"], "ask_user");
    assert_eq!(
        relayed["answered_by"],
        "the person who started the sub-agent"
    );
    assert!(
        relayed["asked"]
            .as_str()
            .unwrap()
            .contains("Which database?"),
        "{relayed}"
    );
    assert!(
        relayed["answer"].as_str().unwrap().contains("SQLite"),
        "{relayed}"
    );
    let parent_result = requests[4].last_tool_result();
    assert!(
        parent_result.starts_with("Sub-agent (gpt-4o) finished:\n  🔧 ask_user\nchild chose"),
        "{parent_result}"
    );
}

#[test]
fn an_approval_is_answered_from_the_phone_and_a_forged_answer_is_ignored() {
    let home = TempDir::new("headless-phone");
    let ntfy = NtfyServer::start();
    let arguments = json!({"command": "echo from-the-phone > phoned.txt"}).to_string();
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[("c1", "run_command", &arguments)]),
        Reply::text(&["Phoned."]),
    ]));
    let work = common::work(home.path());
    let mut command = in_project(home.path(), &server.url(), &work);
    command
        .env("NTFY_URL", ntfy.root())
        .env("NTFY_TOKEN", "tk_only-for-my-ntfy-server")
        .args([
            "--non-interactive",
            "--on-ask",
            "notify",
            "--ntfy",
            "my-runs-5e0c2b9a41f7d36e",
        ])
        .args(["--permission-mode", "default", "--prompt", "do it"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().unwrap();
    let asked = ntfy.asked("my-runs-5e0c2b9a41f7d36e");
    assert_eq!(asked["title"], "Marvin asks: run_command");
    assert!(
        asked["message"]
            .as_str()
            .unwrap()
            .contains("echo from-the-phone"),
        "{asked}"
    );
    let buttons = asked["actions"].as_array().unwrap();
    assert_eq!(buttons[0]["label"], "Allow once");
    // A publish to the reply topic without the question's secret approves nothing.
    let mut forged: Value = serde_json::from_str(buttons[0]["body"].as_str().unwrap()).unwrap();
    forged["secret"] = json!("guessed");
    press(&json!({"url": buttons[0]["url"], "body": forged.to_string()}));
    press(&buttons[0]);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "  🔧 tk, tk\n  🔧 run_command\nPhoned.\n"
    );
    assert!(
        stderr(&output).contains("the answer does not carry its question's secret"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read_to_string(work.join("phoned.txt")).unwrap(),
        "from-the-phone\n"
    );
    // Every publish and poll of Marvin's carried the access token (the phone's presses are
    // the ntfy app's own), and no message shows it.
    let calls = ntfy.calls.lock().unwrap().clone();
    let marvins: Vec<_> = calls
        .iter()
        .filter(|(method, url, _)| method == "GET" || url == "/")
        .collect();
    assert!(marvins.len() >= 2, "{calls:?}");
    for (method, url, authorization) in marvins {
        assert_eq!(
            authorization, "Bearer tk_only-for-my-ntfy-server",
            "{method} {url}"
        );
    }
    assert!(!stderr(&output).contains("tk_only"), "{}", stderr(&output));
}
