//! `POST /api/sessions/ID/respond` (seed 003's tool_interaction_response) through real HTTP
//! against the built binary: questions submitted or dismissed, approvals given only an offered
//! scope or denied, 400/404/409 as the older routes; and the `interaction_request` and
//! `interaction_response` events in order with their correlation, as a reload replays them.

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
