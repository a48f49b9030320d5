//! Prompt caches hold, through the real binary: within a conversation each request starts
//! byte for byte as the one before it (the system prompt, the tools, the messages already
//! sent), in a one-shot taken up with `-c`, with `--resume`, and from turn to turn of the
//! REPL; what moves (the time) goes with the person's newest message, and is right.

use serde_json::Value;

use crate::common::pty::Pty;
use crate::common::{ReplayServer, Reply, TempDir, answered, marvin, stderr};

/// Request `later` starts as request `earlier` was: the same system prompt, its tools first
/// (in order, byte for byte), and every message it sent.
fn starts_as(server: &ReplayServer, earlier: usize, later: usize) {
    let requests = server.requests();
    let (a, b) = (&requests[earlier].sent, &requests[later].sent);
    let tools = |body: &Value| -> Vec<String> {
        body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(Value::to_string)
            .collect()
    };
    let (tools_a, tools_b) = (tools(a), tools(b));
    assert!(
        tools_b.starts_with(&tools_a),
        "request {later}'s tools do not start with request {earlier}'s"
    );
    let (said_a, said_b) = (
        a["messages"].as_array().unwrap(),
        b["messages"].as_array().unwrap(),
    );
    assert_eq!(said_a[0], said_b[0], "the system prompt changed");
    assert!(said_b.len() > said_a.len());
    assert_eq!(
        said_a[..],
        said_b[..said_a.len()],
        "the conversation sent before changed"
    );
}

/// The time the newest message of request `index` tells the model, as `YYYY-MM-DDTHH:MM`.
fn told_time(server: &ReplayServer, index: usize) -> String {
    let body = &server.requests()[index].sent;
    let last = body["messages"].as_array().unwrap().last().unwrap();
    let text = last["content"].as_str().unwrap();
    let at = text.rfind("[Current time (UTC): ").expect(text);
    text[at + 21..at + 37].to_string()
}

/// Now, as `YYYY-MM-DDTHH:MM` (UTC), from `date`.
fn now() -> String {
    let out = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn a_conversation_taken_up_with_dash_c_or_resume_starts_each_request_as_before() {
    let home = TempDir::new("cache-continue");
    let server = ReplayServer::start(vec![
        Reply::text(&["Hi."]),
        Reply::text(&["Hello Ada."]),
        Reply::text(&["You are Ada."]),
        Reply::text(&["Still Ada."]),
    ]);
    // An earlier conversation, so the next one's prompt carries a compact history.
    answered(&home, &server, &["hello there"]);
    let before = now();
    answered(&home, &server, &["my name is Ada"]);
    let system = server.requests()[1].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("Recent conversation:\n") && system.contains("\nUser: hello there\n"),
        "{system}"
    );
    assert!(!system.contains("Current time"), "{system}");
    let told = told_time(&server, 1);
    assert!(told >= before && told <= now(), "{told}");
    answered(&home, &server, &["-c", "who am I?"]);
    starts_as(&server, 1, 2);
    // The chat log grew meanwhile; the conversation's prompt did not.
    answered(&home, &server, &["--resume", "my name is ada", "and now?"]);
    starts_as(&server, 2, 3);
    assert!(told_time(&server, 3) >= told);
}

#[test]
fn each_turn_of_the_repl_starts_its_request_as_the_turn_before() {
    let home = TempDir::new("cache-repl");
    let server = ReplayServer::start(vec![
        Reply::text(&["Paris."]),
        Reply::text(&["Lyon, then."]),
        Reply::text(&["Marseille."]),
    ]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("TERM", "xterm")
        .arg("--new");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("the capital of France?\r");
    pty.wait_for("Paris.");
    pty.send("and the second city? will it rain there tomorrow?\r");
    pty.wait_for("Lyon, then.");
    pty.send("thanks, and the third?\r");
    pty.wait_for("Marseille.");
    assert!(pty.leave().success());
    starts_as(&server, 0, 1);
    starts_as(&server, 1, 2);
}

#[test]
fn anthropic_models_through_an_openai_compatible_router_get_cache_marks_and_others_none() {
    let home = TempDir::new("cache-marks");
    let server = ReplayServer::start(vec![Reply::text(&["Hi."]), Reply::text(&["Hi."])]);
    for model in ["anthropic/claude-sonnet-4.5", "gpt-4o"] {
        let output = marvin(home.path())
            .env("OPENAI_COMPAT_URL", server.url())
            .env("MARVIN_MODEL", model)
            .args(["--new", "hello"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    }
    let requests = server.requests();
    let marked = requests[0].sent["messages"].as_array().unwrap();
    for message in [&marked[0], marked.last().unwrap()] {
        assert_eq!(message["content"][0]["type"], "text", "{message}");
        assert_eq!(message["content"][0]["cache_control"]["type"], "ephemeral");
    }
    assert!(
        marked[0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("You are Marvin")
    );
    let plain = requests[1].sent["messages"].as_array().unwrap();
    assert!(plain.iter().all(|m| m["content"].is_string()), "{plain:?}");
}

#[test]
fn marvin_digest_off_leaves_the_digest_out_and_a_wrong_value_is_refused() {
    let home = TempDir::new("cache-no-digest");
    let server = ReplayServer::start(vec![Reply::text(&["Hi."]), Reply::text(&["Paris."])]);
    answered(&home, &server, &["hello there"]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .env("MARVIN_DIGEST", "off")
        .arg("what is the capital of France?")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let system = server.requests()[1].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!system.contains("Recent conversation"), "{system}");
    let wrong = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .env("MARVIN_DIGEST", "sometimes")
        .arg("hello")
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        stderr(&wrong).contains("MARVIN_DIGEST must be on or off, not \"sometimes\""),
        "{}",
        stderr(&wrong)
    );
}
