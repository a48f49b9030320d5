//! Users' own tools asking over `@@marvin-interact` (README "Your own tools"), through the real
//! binary with the shell-script tools of tests/fixtures/user_tools: an approval with scopes (a
//! session grant remembered on the next call, an always grant in the next run), an input form
//! with bounds that the tool refuses and asks again with an error, the reprompt limit, the
//! limit of questions in one call, a question left pending whose late answer reaches the model
//! on the next turn, a cancelled turn heard by the tool, and malformed requests answered with
//! what to fix.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::asking::Script;
use crate::common::pty::Pty;
use crate::common::{ReplayServer, Reply, TempDir, marvin, stderr};

/// Installs the fixture tool `name` (tests/fixtures/user_tools/) in the MARVIN_HOME of `home`.
fn install(home: &TempDir, name: &str) {
    crate::common::install_user_tool(home.path(), "user_tools", name);
}

fn call(id: &str, name: &str, args: Value) -> Reply {
    Reply::tool_calls(&[(id, name, &args.to_string())])
}

/// A run of the tools of this file, asked to use the tool, answered on stdin.
fn use_the_tool(home: &TempDir, server: &ReplayServer) -> Script {
    let mut command = marvin(home.path());
    command
        .current_dir(crate::common::work(home.path()))
        .env("OPENAI_COMPAT_URL", server.url())
        // Every tool is offered (`--tools all`): these tests are of a tool's questions, not of which tools a request offers.
        .env("MARVIN_TOOLS", "all")
        .args(["--non-interactive", "--json", "--on-ask", "stdin"])
        .args(["--prompt", "use the tool"]);
    Script::spawn(command)
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

/// The JSON a tool printed after `label: ` on a line of its result.
fn printed(result: &str, label: &str) -> Value {
    let line = result
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{label}: ")))
        .unwrap_or_else(|| panic!("no {label} line in {result}"));
    serde_json::from_str(line).unwrap()
}

#[test]
fn a_tool_asks_approval_and_a_port_refuses_one_and_its_session_grant_is_remembered() {
    let home = TempDir::new("user-tool-deploy");
    install(&home, "deploy");
    let server = ReplayServer::start(vec![
        call("c1", "deploy", json!({"env": "prod"})),
        call("c2", "deploy", json!({"env": "prod", "ask_port": false})),
        Reply::text(&["Deployed twice."]),
    ]);
    let mut script = use_the_tool(&home, &server);
    let approval = script.next("approval");
    assert_eq!(approval["tool"], "deploy");
    assert_eq!(approval["summary"], "Deploy v2 to prod?");
    assert_eq!(approval["detail"], "3 services restart");
    assert_eq!(approval["scopes"], json!(["once", "session", "always"]));
    assert_eq!(
        approval["choices"],
        json!(["once", "session", "always", "no"])
    );
    script.send(json!({"id": approval["id"], "approve": "session"}));

    // The form has the tool's bounds: an answer outside them is refused by Marvin itself.
    let form = script.next("input");
    assert_eq!(form["tool"], "deploy");
    assert_eq!(form["prompt"], "Where should it listen?");
    let port = field(&form, "port");
    assert_eq!(
        (port["minimum"].clone(), port["maximum"].clone()),
        (json!(1024), json!(65535))
    );
    assert!(form.get("error").is_none(), "{form}");
    script.send(json!({"id": form["id"], "input": {"port": 80}}));
    let error = script.next("answer_error");
    assert!(
        error["message"].as_str().unwrap().contains("1024"),
        "{error}"
    );
    // A valid answer the tool refuses: it asks again, with its error and the values given.
    script.send(json!({"id": form["id"], "input": {"port": "8080", "tls": "yes"}}));
    let again = script.fill(json!({"port": 9090, "tls": true}));
    assert_eq!(again["error"], "Port 8080 is taken");
    assert_ne!(again["id"], form["id"]);
    assert_eq!(field(&again, "port")["initial"], 8080);
    assert_eq!(field(&again, "tls")["initial"], true);
    assert_eq!(script.next("message")["text"], "Deployed twice.");
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));

    let first = server.requests()[1].last_tool_result();
    let granted = printed(&first, "approval");
    assert_eq!(granted["action"], "approve");
    assert_eq!(granted["approvalScope"], "session");
    assert_eq!(granted["requestId"], "c1/1");
    let refused = printed(&first, "refused");
    assert_eq!(
        (refused["action"].clone(), refused["input"].clone()),
        (json!("submit"), json!({"port": 8080, "tls": true})),
        "the input is typed"
    );
    let taken = printed(&first, "input");
    assert_eq!(taken["input"], json!({"port": 9090, "tls": true}));
    assert_eq!(taken["requestId"], "c1/3");
    assert!(first.ends_with("deployed to prod on port 9090"), "{first}");
    // The second call was not asked: the session grant answered at once.
    let second = server.requests()[2].last_tool_result();
    let remembered = printed(&second, "approval");
    assert_eq!(
        remembered,
        json!({"action": "approve", "approvalScope": "session", "remembered": true, "requestId": "c2/1"})
    );
    assert!(second.ends_with("deployed to prod"), "{second}");
}

#[test]
fn the_reprompt_limit_refuses_the_sixth_time_a_tool_asks_again() {
    let home = TempDir::new("user-tool-stubborn");
    install(&home, "stubborn");
    let server = ReplayServer::start(vec![
        call("c1", "stubborn", json!({})),
        Reply::text(&["It gave up."]),
    ]);
    let mut script = use_the_tool(&home, &server);
    let first = script.fill(json!({"name": "marvin"}));
    assert!(first.get("error").is_none(), "{first}");
    for n in 1..=5 {
        let again = script.fill(json!({"name": format!("marvin {n}")}));
        assert_eq!(again["error"], format!("Not that name (try {n})"));
        let previous = if n == 1 {
            "marvin".to_string()
        } else {
            format!("marvin {}", n - 1)
        };
        assert_eq!(field(&again, "name")["initial"], previous.as_str());
    }
    assert_eq!(script.next("message")["text"], "It gave up.");
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result = server.requests()[1].last_tool_result();
    let last = printed(&result, "after 6 refusals");
    assert_eq!(last["action"], "refused");
    assert!(
        last["error"]
            .as_str()
            .unwrap()
            .contains("too many reprompts"),
        "{last}"
    );
    assert_eq!(last["requestId"], "c1/7");
}

#[test]
fn a_tool_that_asks_without_end_is_refused_after_twenty_questions() {
    let home = TempDir::new("user-tool-insistent");
    install(&home, "insistent");
    let server = ReplayServer::start(vec![
        call("c1", "insistent", json!({})),
        Reply::text(&["It stopped asking."]),
    ]);
    let mut script = use_the_tool(&home, &server);
    let mut asked = 0;
    loop {
        let event = script.next_of(&["approval", "message"]);
        if event["type"] == "message" {
            assert_eq!(event["text"], "It stopped asking.");
            break;
        }
        asked += 1;
        assert_eq!(event["summary"], format!("Delete file {asked}?"));
        script.send(json!({"id": event["id"], "approve": "no"}));
    }
    assert_eq!(asked, 20, "the person is asked twenty times, not a hundred");
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result = server.requests()[1].last_tool_result();
    let last = printed(&result, "after 21 asks");
    assert_eq!(
        last,
        json!({
            "action": "refused",
            "error": "too many questions: this call has asked the person 20 times, the most one call may; go on without the answer, or end and say in the result what is missing",
            "requestId": "c1/21"
        })
    );
    assert!(
        result.ends_with("(insistent asked the person more than 20 questions in one call: Marvin refused the rest, so its result may lack answers it wanted. If you need more from the person, ask them in plain text.)"),
        "{result}"
    );
}

#[test]
fn a_cancelled_turn_reaches_the_tool_before_it_is_stopped() {
    let home = TempDir::new("user-tool-cancel");
    install(&home, "hold");
    let server = ReplayServer::start(vec![call("c1", "hold", json!({})), Reply::text(&["never"])]);
    let script = use_the_tool(&home, &server);
    script.next("input");
    unsafe { libc::kill(script.child.id() as i32, libc::SIGTERM) };
    let output = script.finish();
    assert_ne!(output.status.code(), Some(0), "{}", stderr(&output));
    let marker = home.path().join("work/hold.marker");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the tool wrote no reply down");
        std::thread::sleep(Duration::from_millis(20));
    }
    let reply: Value = serde_json::from_str(&std::fs::read_to_string(&marker).unwrap()).unwrap();
    assert_eq!(reply, json!({"action": "cancelled", "requestId": "c1/1"}));
}

#[test]
fn malformed_requests_are_answered_with_what_to_fix_and_nobody_there_is_unavailable() {
    let home = TempDir::new("user-tool-sloppy");
    install(&home, "sloppy");
    let server = ReplayServer::start(vec![
        call("c1", "sloppy", json!({})),
        Reply::text(&["Noted."]),
    ]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        // Every tool is offered (`--tools all`): these tests are of a tool's questions, not of which tools a request offers.
        .env("MARVIN_TOOLS", "all")
        .args(["--non-interactive", "--prompt", "use the tool"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result = server.requests()[1].last_tool_result();
    let replies: Vec<Value> = result
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert_eq!(replies.len(), 7, "{result}");
    let expected = [
        "the request is not JSON",
        "\"type\" is \"approval\" or \"input\"",
        "\"prompt\" is missing",
        "needs a \"key\"",
        "there is no field \"timeout\" here",
        "this request follows no submitted form",
    ];
    for (n, (reply, said)) in replies.iter().zip(expected).enumerate() {
        assert_eq!(reply["action"], "invalid", "{reply}");
        assert_eq!(reply["requestId"], format!("c1/{}", n + 1), "{reply}");
        assert!(reply["error"].as_str().unwrap().contains(said), "{reply}");
    }
    assert_eq!(
        replies[6],
        json!({"action": "unavailable", "requestId": "c1/7"})
    );
}

#[test]
fn a_question_left_pending_is_answered_after_the_turn_and_the_model_hears_it_next() {
    let home = TempDir::new("user-tool-pending");
    install(&home, "listen");
    let server = ReplayServer::start(vec![
        call("c1", "listen", json!({})),
        Reply::text(&["It runs on the default port for now."]),
        Reply::text(&["Moving it to 8080."]),
    ]);
    let mut command = marvin(home.path());
    // Every tool is offered (`--tools all`): this test is of a tool's question, not of
    // which tools a request offers.
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("TERM", "xterm")
        .env("MARVIN_TOOLS", "all");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("start the server\r");
    pty.wait_for("Which port should it listen on?");
    pty.wait_for("(no answer in time)");
    pty.wait_for("It runs on the default port for now.");
    let result = server.requests()[1].last_tool_result();
    let pending = printed(&result, "reply");
    assert_eq!(pending, json!({"action": "pending", "requestId": "c1/1"}));
    assert!(
        result.contains("started on the default port"),
        "the tool went on: {result}"
    );
    assert!(
        result.contains("is still open (the server starts on the default port meanwhile)"),
        "{result}"
    );
    // After the turn the question comes back; its answer goes with the next prompt.
    pty.wait_for("An earlier question is still open");
    pty.send("8080\r");
    pty.wait_for_nth("› ", 2);
    pty.send("and now?\r");
    pty.wait_for("Moving it to 8080.");
    let messages = server.requests()[2].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let n = messages.len();
    assert_eq!(
        messages[n - 2]["content"],
        "The person answered the earlier question of listen (\"Which port should it listen on?\"): Port: 8080"
    );
    assert_eq!(messages[n - 1]["content"], "and now?");
    pty.leave();
}

#[test]
fn an_always_grant_of_a_tools_key_lasts_into_the_next_run() {
    let home = TempDir::new("user-tool-always");
    install(&home, "deploy");
    let staging = || call("c1", "deploy", json!({"env": "staging", "ask_port": false}));
    let server = ReplayServer::start(vec![staging(), Reply::text(&["Deployed."])]);
    let mut script = use_the_tool(&home, &server);
    let approval = script.next("approval");
    script.send(json!({"id": approval["id"], "approve": "always"}));
    assert_eq!(script.next("message")["text"], "Deployed.");
    assert_eq!(script.finish().status.code(), Some(0));
    let granted = printed(&server.requests()[1].last_tool_result(), "approval");
    assert_eq!(granted["approvalScope"], "always");

    // The next run asks nothing: the grant is Marvin's, under the tool's own key.
    let server = ReplayServer::start(vec![staging(), Reply::text(&["Again."])]);
    let script = use_the_tool(&home, &server);
    assert_eq!(script.next("message")["text"], "Again.");
    assert_eq!(script.finish().status.code(), Some(0));
    let remembered = printed(&server.requests()[1].last_tool_result(), "approval");
    assert_eq!(
        (
            remembered["approvalScope"].clone(),
            remembered["remembered"].clone()
        ),
        (json!("always"), json!(true))
    );
    let store = std::fs::read_to_string(home.path().join("marvin-home/approvals.json")).unwrap();
    assert!(store.contains("user-tool-ask:deploy:staging"), "{store}");
}
