//! Input forms in runs without a terminal, through the real binary and the user tools of
//! tests/fixtures/headless_tools (they ask over `@@marvin-interact` and print what they got):
//! answered on stdin (`--on-ask stdin`: each wrong field named, then typed values reach the
//! tool; closed without an answer), a question its tool left open asked again after the turn
//! (its answer a follow-up turn; the run ending first), the phone (words answered, wrong words
//! told back, buttons for a yes-or-no), a parked run taken up with words, and a sub-agent's
//! form answered by the person who started it.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::asking::Script;
use crate::common::ntfy::{NtfyServer, press};
use crate::common::{self, ReplayServer, Reply, TempDir, marvin, stderr};

/// What the model reads after a question was left open (interact::STILL_OPEN).
const STILL_OPEN: &str = "An earlier question is still open (its tool went on without the answer):";
pub(crate) const TOPIC: &str = "my-runs-5e0c2b9a41f7d36e";

/// Installs the fixture tool `name` (tests/fixtures/headless_tools/) in the MARVIN_HOME of `home`.
pub(crate) fn install(home: &TempDir, name: &str) {
    crate::common::install_user_tool(home.path(), "headless_tools", name);
}

pub(crate) fn call(id: &str, name: &str) -> Reply {
    Reply::tool_calls(&[(id, name, "{}")])
}

/// `marvin --non-interactive` against `server`, with `flags` and the prompt.
fn run(home: &TempDir, server: &ReplayServer, flags: &[&str]) -> std::process::Command {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        // Every tool is offered (`--tools all`): these tests are of forms answered on stdin, not of which tools a request offers.
        .env("MARVIN_TOOLS", "all")
        .args(["--non-interactive"])
        .args(flags)
        .args(["--prompt", "set the server up"]);
    command
}

/// `--json --on-ask stdin`, its events read and its stdin answering.
fn script(home: &TempDir, server: &ReplayServer) -> Script {
    Script::spawn(run(home, server, &["--json", "--on-ask", "stdin"]))
}

/// The field `id` of an input event's form.
fn field<'a>(form: &'a Value, id: &str) -> &'a Value {
    form["inputSchema"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .unwrap_or_else(|| panic!("no field {id} in {form}"))
}

/// The reply a fixture tool printed (`reply: {…}`) in its result.
pub(crate) fn reply_in(result: &str) -> Value {
    let line = result
        .lines()
        .find_map(|line| line.strip_prefix("reply: "))
        .unwrap_or_else(|| panic!("no reply in {result}"));
    serde_json::from_str(line).unwrap()
}

fn answer(script: &mut Script, answer: Value) {
    script.answer(&answer.to_string());
}

#[test]
fn a_form_on_stdin_names_each_wrong_field_then_the_tool_gets_typed_values() {
    let home = TempDir::new("headless-form");
    install(&home, "listen_on");
    let server = ReplayServer::start(vec![
        call("c1", "listen_on"),
        call("c2", "listen_on"),
        Reply::text(&["Listening on 8080."]),
    ]);
    let mut script = script(&home, &server);
    let form = script.next("input");
    let id = form["id"].as_u64().unwrap();
    assert_eq!(form["tool"], "listen_on");
    assert_eq!(form["prompt"], "Where should it listen?");
    assert_eq!(form["presentation"], "tool");
    assert_eq!(
        form["completedView"],
        json!({"showInputs": false, "summaryTemplate": "Listening on {{port}}"})
    );
    // Where the question belongs: the turn, the model response whose call asks, the call.
    let turn = form["turnId"].as_str().unwrap();
    assert!(turn.starts_with("turn-"), "{form}");
    assert_eq!(form["responseId"], format!("{turn}/1"));
    assert_eq!(form["toolCallId"], "c1");
    assert_eq!(form["interactionId"], id.to_string());
    assert!(form["timestamp"].as_str().unwrap().ends_with('Z'), "{form}");
    let port = field(&form, "port");
    assert_eq!(port["type"], "integer");
    assert_eq!(port["hint"], "A whole number from 1024 to 65535.");
    assert_eq!(
        field(&form, "mode")["options"][1],
        json!({"value": "prod", "label": "Production"})
    );

    // Each wrong field is named, and the question stays open.
    answer(
        &mut script,
        json!({"id": id, "input": {"port": 80, "tls": "maybe"}}),
    );
    let error = script.next("answer_error");
    assert_eq!(error["id"], id);
    let named: Vec<&str> = error["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(named, ["port", "tls"], "{error}");
    assert!(
        error["fields"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Port: "),
        "{error}"
    );
    assert_eq!(error["fields"][1]["message"], "TLS: answer yes or no.");
    answer(
        &mut script,
        json!({"id": id, "input": {"port": "8080", "tls": "yes", "mode": "Production"}}),
    );
    let closed = script.next("question_closed");
    assert_eq!(closed["id"], id);
    assert_eq!(closed["action"], "submit");
    assert_eq!(
        closed["input"],
        json!({"port": 8080, "tls": true, "mode": "prod"})
    );
    assert_eq!(closed["completed"], json!(["Listening on 8080"]));
    assert_eq!(closed["toolCallId"], "c1");

    // Closed without an answer: the tool hears cancel, and the turn goes on.
    let second = script.next("input");
    answer(&mut script, json!({"id": second["id"], "cancel": true}));
    assert_eq!(script.next("question_closed")["action"], "cancel");
    assert_eq!(script.next("message")["text"], "Listening on 8080.");
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let requests = server.requests();
    let typed = reply_in(&requests[1].last_tool_result());
    assert_eq!(typed["action"], "submit");
    assert_eq!(
        typed["input"],
        json!({"port": 8080, "tls": true, "mode": "prod"})
    );
    assert_eq!(
        reply_in(&requests[2].last_tool_result())["action"],
        "cancel"
    );
}

#[test]
fn a_question_left_open_is_asked_after_the_turn_and_its_answer_is_a_follow_up_turn() {
    let home = TempDir::new("headless-late");
    install(&home, "later");
    let server = ReplayServer::start(vec![
        call("c1", "later"),
        Reply::text(&["It runs on port 3000 for now."]),
        Reply::text(&["Moving it to 8080."]),
    ]);
    let mut script = script(&home, &server);
    let first = script.next("input");
    // Nobody answered within the tool's second: it went on, and the question closed for it.
    let timed_out = script.next("question_closed");
    assert_eq!(timed_out["id"], first["id"]);
    assert_eq!(timed_out["action"], "timeout");
    assert_eq!(
        script.next("message")["text"],
        "It runs on port 3000 for now."
    );
    let late = script.next("input");
    assert_eq!(late["late"], true);
    assert_eq!(late["error"], STILL_OPEN);
    assert_eq!(late["prompt"], first["prompt"]);
    assert_eq!(late["toolCallId"], "c1");
    assert_ne!(late["id"], first["id"]);
    answer(
        &mut script,
        json!({"id": late["id"], "input": {"port": 8080}}),
    );
    let closed = script.next("question_closed");
    assert_eq!(
        (closed["id"].clone(), closed["action"].clone()),
        (late["id"].clone(), json!("submit"))
    );
    assert_eq!(script.next("message")["text"], "Moving it to 8080.");
    assert_eq!(script.next("usage")["llm_turns"], 3);
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let requests = server.requests();
    let pending = reply_in(&requests[1].last_tool_result());
    assert_eq!(pending["action"], "pending");
    // The late answer is the prompt of the next turn.
    let said = requests[2].last_message()["content"].clone();
    let said = said.as_str().unwrap();
    assert!(said.contains("Which port should it listen on?"), "{said}");
    assert!(said.contains("Port: 8080"), "{said}");
}

#[test]
fn a_question_left_open_closes_unanswered_when_stdin_ends_first() {
    let home = TempDir::new("headless-late-eof");
    install(&home, "later");
    let server = ReplayServer::start(vec![call("c1", "later"), Reply::text(&["On 3000."])]);
    let mut script = script(&home, &server);
    script.next("input");
    assert_eq!(script.next("message")["text"], "On 3000.");
    let late = script.next("input");
    script.close_stdin();
    let closed = script.next("question_closed");
    assert_eq!(closed["id"], late["id"]);
    assert_eq!(closed["action"], "timeout");
    assert_eq!(
        closed["outcome"],
        "no answer: stdin was closed before the question was answered"
    );
    assert_eq!(script.next("usage")["llm_turns"], 2);
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        server.requests().len(),
        2,
        "no turn for an answer that never came"
    );
}

/// Waits for a message on `topic` whose title is `title`, after the first `skip` of them.
pub(crate) fn published(ntfy: &NtfyServer, topic: &str, title: &str, skip: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let found = ntfy
            .messages
            .lock()
            .unwrap()
            .iter()
            .filter(|(t, m)| t == topic && m["title"] == title)
            .nth(skip)
            .map(|(_, m)| m.clone());
        if let Some(message) = found {
            return message;
        }
        assert!(Instant::now() < deadline, "no {title:?} on {topic}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The words line of a form's notification: the reply topic's address, and what starts the
/// answer (the question's number and code).
pub(crate) fn words_line(notification: &Value) -> (String, String) {
    let text = notification["message"].as_str().unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("Reply on "))
        .unwrap_or_else(|| panic!("no words in {text}"));
    let (url, words) = line.split_once(" with: ").unwrap();
    let mut parts = words.splitn(3, ' ');
    let start = format!("{} {}", parts.next().unwrap(), parts.next().unwrap());
    (url.to_string(), start)
}

fn phone_run(home: &TempDir, server: &ReplayServer, ntfy: &NtfyServer) -> std::process::Child {
    run(home, server, &["--on-ask", "notify", "--ntfy", TOPIC])
        .env("NTFY_URL", ntfy.root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn the_phone_answers_a_form_in_words_and_is_told_what_to_change() {
    let home = TempDir::new("headless-phone-form");
    install(&home, "listen_on");
    let ntfy = NtfyServer::start();
    let server = ReplayServer::start(vec![call("c1", "listen_on"), Reply::text(&["Listening."])]);
    let child = phone_run(&home, &server, &ntfy);
    let asked = published(&ntfy, TOPIC, "Marvin asks", 0);
    let text = asked["message"].as_str().unwrap();
    for line in [
        "Where should it listen?",
        "port: Port (required). A whole number from 1024 to 65535.",
        "tls: TLS. yes or no.",
        "mode: Mode. One of: Development, Production.",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}: {text}");
    }
    let (url, start) = words_line(&asked);
    assert!(
        url.starts_with(&format!("{}/{TOPIC}-", ntfy.root())),
        "{url}"
    );
    // A wrong answer is told back, saying what to change; the question stays open.
    press(&json!({"url": url, "body": format!("{start} port=80, tls=yes")}));
    let told = published(&ntfy, TOPIC, "Marvin: answer not used", 0);
    let told = told["message"].as_str().unwrap();
    assert!(told.contains("Port: "), "{told}");
    assert!(told.contains(&format!("Answer again: {start}")), "{told}");
    // Words a phone keyboard types, a field by its label too.
    press(&json!({"url": url, "body": format!("{start} Port=8080, tls=yes, mode=Production")}));
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(common::stdout(&output), "  🔧 listen_on\nListening.\n");
    let typed = reply_in(&server.requests()[1].last_tool_result());
    assert_eq!(
        typed["input"],
        json!({"port": 8080, "tls": true, "mode": "prod"})
    );
}

#[test]
fn a_yes_or_no_form_gets_buttons_on_the_phone() {
    let home = TempDir::new("headless-phone-yes");
    install(&home, "confirm");
    let ntfy = NtfyServer::start();
    let server = ReplayServer::start(vec![call("c1", "confirm"), Reply::text(&["Restarted."])]);
    let child = phone_run(&home, &server, &ntfy);
    let asked = ntfy.asked(TOPIC);
    let buttons = asked["actions"].as_array().unwrap();
    let labels: Vec<&str> = buttons
        .iter()
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Yes", "No", "Dismiss"]);
    press(&buttons[0]);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let reply = reply_in(&server.requests()[1].last_tool_result());
    assert_eq!(reply["input"], json!({"go": true}));
}

#[test]
fn a_form_parks_the_run_and_words_take_it_up() {
    let home = TempDir::new("headless-park-form");
    install(&home, "listen_on");
    let server = ReplayServer::start(vec![call("c1", "listen_on"), Reply::text(&["Listening."])]);
    let output = run(&home, &server, &["--json", "--on-ask", "park"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let parked = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "parked")
        .unwrap();
    let id = parked["session"].as_str().unwrap().to_string();
    assert_eq!(parked["questions"][0]["type"], "input");
    assert_eq!(parked["questions"][0]["prompt"], "Where should it listen?");
    assert_eq!(
        parked["answer_with"],
        format!("marvin --resume {id} --answer 'port=…, tls=…, mode=…'")
    );
    let answering = |words: &str| {
        marvin(home.path())
            .env("OPENAI_COMPAT_URL", server.url())
            .args(["--resume", &id, "--answer", words])
            .output()
            .unwrap()
    };
    // Checked before anything runs: the field is named.
    let wrong = answering("port=80");
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        stderr(&wrong).contains("--answer \"port=80\": Port: "),
        "{}",
        stderr(&wrong)
    );
    assert_eq!(server.requests().len(), 1);
    let done = answering("port=8080, tls=no");
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    assert_eq!(common::stdout(&done), "  🔧 listen_on\nListening.\n");
    let typed = reply_in(&server.requests()[1].last_tool_result());
    assert_eq!(typed["input"], json!({"port": 8080, "tls": false}));
}

#[test]
fn a_sub_agents_form_is_answered_by_the_person_who_started_it() {
    let home = TempDir::new("headless-subagent-form");
    install(&home, "listen_on");
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[(
            "a1",
            "launch_agent",
            r#"{"ticket_id": "T-1", "prompt": "set the server up"}"#,
        )]),
        call("c1", "listen_on"),
        call("c2", "listen_on"),
        Reply::text(&["child done"]),
        Reply::text(&["parent done"]),
    ]));
    let mut command = run(&home, &server, &["--json", "--on-ask", "stdin"]);
    command.arg("--working-dir").arg(home.path());
    let mut script = Script::spawn(command);
    let form = script.next("input");
    assert_eq!(form["prompt"], "(sub-agent) Where should it listen?");
    assert_eq!(field(&form, "port")["maximum"], 65535);
    // Checked here first, each wrong field named, as the child would.
    answer(
        &mut script,
        json!({"id": form["id"], "input": {"port": 80}}),
    );
    assert_eq!(script.next("answer_error")["fields"][0]["field"], "port");
    answer(
        &mut script,
        json!({"id": form["id"], "input": {"port": 8443, "tls": true}}),
    );
    // Closed here: the child's tool hears cancel.
    let second = script.next("input");
    answer(&mut script, json!({"id": second["id"], "cancel": true}));
    assert_eq!(script.next("message")["text"], "parent done");
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let requests = server.requests();
    let typed = reply_in(&requests[3].last_tool_result());
    assert_eq!(typed["input"], json!({"port": 8443, "tls": true}));
    assert_eq!(
        reply_in(&requests[4].last_tool_result())["action"],
        "cancel"
    );
    assert!(
        requests[5].last_tool_result().contains("child done"),
        "{}",
        requests[5].last_tool_result()
    );
}

#[test]
fn a_parked_form_answered_from_the_phone_in_words_is_taken_up_by_resume() {
    let home = TempDir::new("headless-park-phone");
    install(&home, "listen_on");
    let ntfy = NtfyServer::start();
    let server = ReplayServer::start(vec![call("c1", "listen_on"), Reply::text(&["Listening."])]);
    let output = run(&home, &server, &["--on-ask", "park", "--ntfy", TOPIC])
        .env("NTFY_URL", ntfy.root())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let asked = published(&ntfy, TOPIC, "Marvin asks", 0);
    let message = asked["message"].as_str().unwrap();
    let id = message.rsplit("marvin --resume ").next().unwrap().trim();
    let (url, start) = words_line(&asked);
    press(&json!({"url": url, "body": format!("{start} port=9000, mode=dev")}));
    let done = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .args(["--resume", id])
        .output()
        .unwrap();
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    let typed = reply_in(&server.requests()[1].last_tool_result());
    assert_eq!(typed["input"], json!({"port": 9000, "mode": "dev"}));
}
