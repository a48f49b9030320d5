//! `POST /api/sessions/ID/respond` (seed 003's tool_interaction_response) through real HTTP
//! against the built binary: questions submitted or dismissed, approvals given only an offered
//! scope or denied, an input form's wrong answer refused with each field (the form stays open)
//! and a right one reaching the tool typed, 400/404/409 as the older routes; and the
//! `interaction_request` and `interaction_response` events in order with their correlation, as
//! a reload replays them. The forms and scoped approvals are asked by user tools (shell scripts
//! in tests/fixtures/gateway_tools/).

use serde_json::{Value, json};

use crate::common::{ReplayServer, Reply, TempDir, database_question};
use crate::gateway::{Gateway, session_with_message};

/// The fields that say where a question belongs, on its request and its response alike.
const CORRELATION: [&str; 6] = [
    "timestamp",
    "turnId",
    "responseId",
    "toolCallId",
    "interactionId",
    "toolName",
];

/// Copies the user tools `names` (from tests/fixtures/gateway_tools/) into `home`'s profile.
pub(crate) fn user_tools(home: &TempDir, names: &[&str]) {
    for name in names {
        crate::common::install_user_tool(home.path(), "gateway_tools", name);
    }
}

/// What the user tool said it was replied, one JSON object a line (`reply: {…}`).
fn replies(result: &str) -> Vec<Value> {
    result
        .lines()
        .filter_map(|line| line.strip_prefix("reply: "))
        .map(|reply| serde_json::from_str(reply).unwrap_or_else(|e| panic!("{e}: {reply}")))
        .collect()
}

fn respond(gateway: &Gateway, id: &str, body: Value) -> (u16, Value) {
    gateway.call("POST", &format!("/api/sessions/{id}/respond"), Some(body))
}

/// The events of `kind`.
fn of<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

#[test]
fn respond_answers_a_question_and_its_request_and_response_replay_in_order_with_their_correlation()
{
    let home = TempDir::new("gateway-respond");
    let server = ReplayServer::start(vec![database_question(), Reply::text(&["SQLite it is."])]);
    let gateway = Gateway::start(&home, &server.url());
    let (_, index) = gateway.call("GET", "/api", None);
    assert!(
        index["routes"].as_array().unwrap().iter().any(|r| r
            .as_str()
            .unwrap()
            .starts_with("POST /api/sessions/:id/respond")),
        "{index}"
    );
    let id = session_with_message(&gateway, "set up the database");
    let asked = gateway.events_until(&id, 0, "interaction_request");
    let request = asked.last().unwrap().clone();
    assert_eq!(request["interactionType"], "questions");
    assert_eq!(request["toolName"], "ask_user");
    assert_eq!(request["presentation"], "questionnaire");
    assert_eq!(request["timeoutMs"], 600_000);
    assert_eq!(request["completedView"]["showInputs"], true);
    for field in CORRELATION {
        assert!(
            request[field].as_str().is_some_and(|v| !v.is_empty()),
            "{field} in {request}"
        );
    }
    let call = request["toolCallId"].clone();
    let cases: &[(Value, u16, &str)] = &[
        (json!({"action": "submit"}), 400, "name the question"),
        (
            json!({"toolCallId": "nope", "action": "submit", "answers": {}}),
            404,
            "no question",
        ),
        (
            json!({"toolCallId": call, "action": "maybe"}),
            400,
            "approve, deny, submit or cancel",
        ),
        (
            json!({"toolCallId": call, "action": "approve"}),
            400,
            "that is a question",
        ),
        (
            json!({"toolCallId": call, "action": "submit", "answers": {}}),
            400,
            "no answer for the question",
        ),
    ];
    for (body, status, said) in cases {
        let (got, reply) = respond(&gateway, &id, body.clone());
        assert_eq!(got, *status, "{body}: {reply}");
        assert!(
            reply["error"].as_str().unwrap().contains(said),
            "{body}: {reply}"
        );
    }
    let answer = json!({"interactionId": request["interactionId"], "action": "submit",
                        "answers": {"Which database?": "SQLite"}, "by": "script-1"});
    assert_eq!(respond(&gateway, &id, answer.clone()).0, 200);
    assert_eq!(respond(&gateway, &id, answer).0, 409);
    gateway.events_until(&id, 0, "done");

    // A client that comes later (a reload) gets both, in order, the response naming the
    // request's prompt and call, with the completed view and who answered.
    let replayed = gateway.events_until(&id, 0, "done");
    let requests = of(&replayed, "interaction_request");
    let responses = of(&replayed, "interaction_response");
    assert_eq!((requests.len(), responses.len()), (1, 1));
    let (asked, over) = (requests[0], responses[0]);
    assert!(asked["seq"].as_u64() < over["seq"].as_u64());
    for field in [
        "turnId",
        "responseId",
        "toolCallId",
        "interactionId",
        "toolName",
    ] {
        assert_eq!(asked[field], over[field], "{field}");
    }
    assert!(over["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert_eq!(over["action"], "submit");
    assert_eq!(over["by"], "script-1");
    assert_eq!(over["completed"], json!(["Which database?: SQLite"]));
    assert_eq!(over["answers"][0]["chosen"], json!(["SQLite"]));
    let tool_result = of(&replayed, "tool_result")[0]["seq"].as_u64();
    assert!(
        over["seq"].as_u64() < tool_result,
        "answered before the tool's result"
    );
    assert!(server.requests()[1].result_of("q1").contains("SQLite"));
}

#[test]
fn a_question_cancelled_is_dismissed_and_the_turn_goes_on() {
    let home = TempDir::new("gateway-respond-cancel");
    let server = ReplayServer::start(vec![
        database_question(),
        Reply::text(&["No database, then."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let id = session_with_message(&gateway, "set up the database");
    gateway.events_until(&id, 0, "interaction_request");
    let (status, reply) = respond(
        &gateway,
        &id,
        json!({"toolCallId": "q1", "action": "cancel"}),
    );
    assert_eq!(status, 200, "{reply}");
    let events = gateway.events_until(&id, 0, "done");
    let over = of(&events, "interaction_response")[0];
    assert_eq!(over["action"], "cancel");
    assert_eq!(over["completed"], json!(["dismissed without an answer"]));
    assert_eq!(events.last().unwrap()["answer"], "No database, then.");
    let result = server.requests()[1].result_of("q1");
    assert!(result.contains("no answer"), "{result}");
}

#[test]
fn an_approval_takes_only_an_offered_scope_or_a_denial_with_its_reason() {
    let home = TempDir::new("gateway-respond-approval");
    let code = |c: &str| {
        Reply::tool_calls(&[(
            "b1",
            "blender_execute_code",
            &json!({"code": c}).to_string(),
        )])
    };
    let server = ReplayServer::start(vec![
        code("print('one')"),
        Reply::text(&["Tried."]),
        code("print('two')"),
        Reply::text(&["Understood."]),
    ]);
    let gateway = Gateway::start_with(&home, &server.url(), &[("BLENDER_MCP_PORT", "9")]);
    let id = session_with_message(&gateway, "run some code");
    let asked = gateway.events_until(&id, 0, "interaction_request");
    let approval = asked.last().unwrap();
    assert_eq!(approval["interactionType"], "approval");
    assert_eq!(approval["scopes"], json!(["once", "session", "always"]));
    let call = approval["toolCallId"].clone();
    for (scope, said) in [
        (json!("all_edits"), "\"all_edits\" is not offered"),
        (json!("forever"), "once, session, always"),
    ] {
        let body = json!({"toolCallId": call, "action": "approve", "approvalScope": scope});
        let (status, reply) = respond(&gateway, &id, body);
        assert_eq!(status, 400, "{reply}");
        assert!(reply["error"].as_str().unwrap().contains(said), "{reply}");
    }
    let body = json!({"toolCallId": call, "action": "submit", "input": {}});
    assert_eq!(respond(&gateway, &id, body).0, 400);
    let body = json!({"toolCallId": call, "action": "approve", "approvalScope": "once"});
    assert_eq!(respond(&gateway, &id, body).0, 200);
    let first = gateway.events_until(&id, 0, "done");
    let over = of(&first, "interaction_response")[0];
    assert_eq!(
        (&over["action"], &over["approvalScope"]),
        (&json!("approve"), &json!("once"))
    );
    assert_eq!(over["completed"], json!(["approved once"]));

    // Denied, with what to do instead: the model reads it.
    let since = first.len() as u64;
    let path = format!("/api/sessions/{id}/messages");
    let again = Some(json!({"content": "again"}));
    assert_eq!(gateway.call("POST", &path, again).0, 202);
    let asked = gateway.events_until(&id, since, "interaction_request");
    let call = asked.last().unwrap()["toolCallId"].clone();
    let body = json!({"toolCallId": call, "action": "deny", "reason": "not on this machine"});
    assert_eq!(respond(&gateway, &id, body).0, 200);
    let second = gateway.events_until(&id, since, "done");
    let over = of(&second, "interaction_response")[0];
    assert_eq!(over["reason"], "not on this machine");
    let result = &of(&second, "tool_result")[0]["output"];
    assert!(
        result.as_str().unwrap().contains("not on this machine"),
        "{result}"
    );
}

#[test]
fn an_input_form_refuses_a_wrong_input_with_each_field_and_stays_open_then_takes_it_typed() {
    let home = TempDir::new("gateway-respond-input");
    user_tools(&home, &["listen"]);
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("l1", "listen", "{}")]),
        Reply::text(&["Listening."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let id = session_with_message(&gateway, "start the server");
    let asked = gateway.events_until(&id, 0, "interaction_request");
    let form = asked.last().unwrap().clone();
    assert_eq!(form["interactionType"], "input");
    assert_eq!(form["toolName"], "listen");
    assert_eq!(form["toolCallId"], "l1");
    assert_eq!(form["presentation"], "tool");
    assert_eq!(form["prompt"], "Where should the server listen?");
    let port = &form["inputSchema"]["fields"][0];
    assert_eq!(
        (
            &port["id"],
            &port["type"],
            &port["minimum"],
            &port["maximum"]
        ),
        (
            &json!("port"),
            &json!("integer"),
            &json!(1024),
            &json!(65535)
        )
    );
    // Every field that is wrong, in the form's order after a field it does not have; the
    // question stays open.
    let wrong =
        json!({"toolCallId": "l1", "action": "submit", "input": {"port": 80, "colour": "red"}});
    let (status, refused) = respond(&gateway, &id, wrong);
    assert_eq!(status, 400, "{refused}");
    let fields: Vec<&str> = refused["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["colour", "port", "mode"], "{refused}");
    assert!(
        refused["fields"][1]["message"]
            .as_str()
            .unwrap()
            .contains("1024"),
        "{refused}"
    );
    // Typed from what a person types; the tool itself refuses 8080 and asks again.
    let typed = json!({"interactionId": form["interactionId"], "action": "submit",
                       "input": {"port": "8080", "mode": "Production", "tls": "yes"}});
    assert_eq!(respond(&gateway, &id, typed.clone()).0, 200);
    let since = form["seq"].as_u64().unwrap();
    let again = gateway.events_until(&id, since, "interaction_request");
    let over = of(&again, "interaction_response")[0];
    // The field left out (`host`) gets its default.
    assert_eq!(
        over["input"],
        json!({"port": 8080, "mode": "prod", "tls": true, "host": "127.0.0.1"})
    );
    assert!(
        over["completed"]
            .as_array()
            .unwrap()
            .contains(&json!("Port: 8080")),
        "{over}"
    );
    let reprompt = again.last().unwrap();
    assert_eq!(reprompt["error"], "Port 8080 is taken");
    assert_eq!(reprompt["toolCallId"], "l1");
    assert_ne!(reprompt["interactionId"], form["interactionId"]);
    assert_eq!(reprompt["inputSchema"]["fields"][0]["initial"], 8080);
    // The first prompt is over: by its interactionId the answer comes too late.
    assert_eq!(respond(&gateway, &id, typed).0, 409);
    let right =
        json!({"toolCallId": "l1", "action": "submit", "input": {"port": 9090, "mode": "dev"}});
    assert_eq!(respond(&gateway, &id, right).0, 200);
    let events = gateway.events_until(&id, 0, "done");
    assert_eq!(events.last().unwrap()["answer"], "Listening.");
    let heard = replies(&server.requests()[1].result_of("l1"));
    assert_eq!(heard.len(), 2, "{heard:?}");
    assert_eq!(heard[0]["input"]["port"], 8080);
    assert_eq!(
        (&heard[1]["action"], &heard[1]["input"]["port"]),
        (&json!("submit"), &json!(9090))
    );
}

#[test]
fn an_input_form_cancelled_tells_the_tool_and_a_tool_s_approval_takes_only_its_scopes() {
    let home = TempDir::new("gateway-respond-tools");
    user_tools(&home, &["listen", "deploy"]);
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("l1", "listen", "{}")]),
        Reply::text(&["Not listening."]),
        Reply::tool_calls(&[("p1", "deploy", "{}")]),
        Reply::text(&["Deployed."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let id = session_with_message(&gateway, "start the server");
    gateway.events_until(&id, 0, "interaction_request");
    let cancel = json!({"toolCallId": "l1", "action": "cancel"});
    assert_eq!(respond(&gateway, &id, cancel).0, 200);
    let first = gateway.events_until(&id, 0, "done");
    assert_eq!(of(&first, "interaction_response")[0]["action"], "cancel");
    let heard = replies(&server.requests()[1].result_of("l1"));
    assert_eq!(heard[0]["action"], "cancel", "{heard:?}");

    let since = first.len() as u64;
    let path = format!("/api/sessions/{id}/messages");
    assert_eq!(
        gateway
            .call("POST", &path, Some(json!({"content": "deploy"})))
            .0,
        202
    );
    let asked = gateway.events_until(&id, since, "interaction_request");
    let approval = asked.last().unwrap();
    assert_eq!(approval["interactionType"], "approval");
    assert_eq!(approval["scopes"], json!(["once", "session"]));
    assert_eq!(approval["toolName"], "deploy");
    for scope in ["always", "all_edits"] {
        let body = json!({"toolCallId": "p1", "action": "approve", "approvalScope": scope});
        let (status, refused) = respond(&gateway, &id, body);
        assert_eq!(status, 400, "{refused}");
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .ends_with("not offered for this approval: once, session"),
            "{refused}"
        );
    }
    // The older route keeps to the offered scopes too.
    let old = json!({"toolCallId": "p1", "scope": "always"});
    let approve = format!("/api/sessions/{id}/approve");
    assert_eq!(gateway.call("POST", &approve, Some(old)).0, 400);
    let body = json!({"toolCallId": "p1", "action": "approve", "approvalScope": "session"});
    assert_eq!(respond(&gateway, &id, body).0, 200);
    let second = gateway.events_until(&id, since, "done");
    assert_eq!(
        of(&second, "interaction_response")[0]["approvalScope"],
        "session"
    );
    let heard = replies(&server.requests()[3].result_of("p1"));
    assert_eq!(
        (&heard[0]["action"], &heard[0]["approvalScope"]),
        (&json!("approve"), &json!("session"))
    );
}

#[test]
fn an_input_form_left_pending_is_asked_again_where_it_was_asked_and_its_late_answer_checked() {
    let home = TempDir::new("gateway-respond-late");
    user_tools(&home, &["later"]);
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("w1", "later", "{}")]),
        Reply::text(&["Started on the default port."]),
        Reply::text(&["Moving to 9090."]),
    ]);
    // Every tool is offered: the person's own tool, which "start it" names for the model.
    let gateway = Gateway::start_with(&home, &server.url(), &[("MARVIN_TOOLS", "all")]);
    let id = session_with_message(&gateway, "start it");
    let first = gateway.events_until(&id, 0, "done");
    let asked = of(&first, "interaction_request")[0];
    assert!(
        replies(&server.requests()[1].result_of("w1"))[0]["action"] == "pending",
        "the tool went on without the answer"
    );
    // After the turn the form is asked again: a prompt of its own, where it was first asked,
    // with no deadline.
    let since = first.len() as u64;
    let late = gateway.events_until(&id, since, "interaction_request");
    let late = late.last().unwrap();
    assert_eq!(late["interactionType"], "input");
    for field in ["turnId", "responseId", "toolCallId", "toolName"] {
        assert_eq!(late[field], asked[field], "{field}");
    }
    assert_ne!(late["interactionId"], asked["interactionId"]);
    assert_eq!(late["timeoutMs"], Value::Null);
    assert!(
        late["error"]
            .as_str()
            .unwrap()
            .starts_with("An earlier question is still open")
    );
    // Checked as any form: a wrong input is refused at its field and the question kept.
    let wrong = json!({"toolCallId": "w1", "action": "submit", "input": {"port": 80}});
    let (status, refused) = respond(&gateway, &id, wrong);
    assert_eq!(
        (status, &refused["fields"][0]["field"]),
        (400, &json!("port")),
        "{refused}"
    );
    let right =
        json!({"toolCallId": "w1", "action": "submit", "input": {"port": "9090"}, "by": "page-2"});
    assert_eq!(respond(&gateway, &id, right.clone()).0, 200);
    assert_eq!(respond(&gateway, &id, right).0, 409);
    // The late answer starts a follow-up turn, announced to every client.
    let answered = gateway.events_until(&id, since, "done");
    let over = of(&answered, "interaction_response");
    let over = over.last().unwrap();
    assert_eq!(over["interactionId"], late["interactionId"]);
    assert_eq!(over["turnId"], asked["turnId"]);
    assert_eq!(
        (&over["action"], &over["input"]),
        (&json!("submit"), &json!({"port": 9090}))
    );
    assert_eq!(over["completed"], json!(["Port: 9090"]));
    assert_eq!(over["by"], "page-2");
    let follow_up = of(&answered, "user_message");
    assert_eq!(follow_up.len(), 1);
    assert_eq!(follow_up[0]["followUp"], true);
    assert!(
        follow_up[0]["content"].as_str().unwrap().contains("9090"),
        "{}",
        follow_up[0]
    );
    assert_eq!(answered.last().unwrap()["answer"], "Moving to 9090.");
    let sent = server.requests().last().unwrap().body["messages"].to_string();
    assert!(sent.contains("9090"), "{sent}");
}
