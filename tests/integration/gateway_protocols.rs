//! The gateway speaks every seed's protocol (issue 43), through real HTTP against the built
//! binary: each question goes out as seed 003's `interaction_request` and, for the same
//! prompt, seed 001's `question_prompt` or seed 004's `approval_required`, both replayed and
//! both closed by one `interaction_response`; seed 001's answers keyed by index, with
//! multi-select answers as JSON arrays; a client whose interactive mode is off refused (403);
//! the model told why nobody could answer, in the gateway's words; a late answer starting a
//! follow-up turn once the turn under way ends.

use serde_json::{Value, json};

use crate::common::{ReplayServer, Reply, TempDir, ask_one, database_question};
use crate::gateway::{Gateway, session_with_message};

/// The events of `kind`.
fn of<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// ask_user asking, as call `id`, a single-choice question and a multi-select one.
fn two_questions(id: &str) -> Reply {
    let option = |label: &str| json!({"label": label, "description": ""});
    let questions = json!([
        {"header": "Database", "question": "Which database?", "multiSelect": false,
         "options": [option("SQLite"), option("PostgreSQL")]},
        {"header": "Features", "question": "Which features?", "multiSelect": true,
         "options": [option("Auth"), option("Search"), option("Export")]},
    ]);
    let arguments = json!({ "questions": questions }).to_string();
    Reply::tool_calls(&[(id, "ask_user", &arguments)])
}

#[test]
fn a_question_is_sent_as_seed_003_s_and_seed_001_s_event_and_one_answer_closes_both() {
    let home = TempDir::new("gateway-protocols-question");
    let server = ReplayServer::start(vec![database_question(), Reply::text(&["SQLite it is."])]);
    let gateway = Gateway::start(&home, &server.url());
    let id = session_with_message(&gateway, "set up the database");
    let asked = gateway.events_until(&id, 0, "question_prompt");
    let request = of(&asked, "interaction_request")[0];
    let prompt = asked.last().unwrap();
    // Seed 001's fields, and the prompt's id, so the response that closes it is known.
    assert_eq!(prompt["toolCallId"], "q1");
    assert_eq!(prompt["interactionId"], request["interactionId"]);
    assert_eq!(
        prompt["questions"],
        json!([{"header": "Database", "question": "Which database?", "multiSelect": false,
                "options": [{"label": "SQLite", "description": ""},
                            {"label": "PostgreSQL", "description": ""}]}])
    );
    assert_eq!(prompt["seq"], request["seq"].as_u64().unwrap() + 1);
    // Answered as seed 001's client does: by toolCallId, keyed by index.
    let (status, body) = gateway.call(
        "POST",
        &format!("/api/sessions/{id}/submit-answers"),
        Some(json!({"toolCallId": "q1", "answers": {"0": "SQLite"}})),
    );
    assert_eq!(status, 200, "{body}");
    let all = gateway.events_until(&id, 0, "done");
    assert_eq!(all.last().unwrap()["answer"], "SQLite it is.");
    // A reload replays both, and the one response names the prompt both ways.
    assert_eq!(of(&all, "interaction_request").len(), 1);
    assert_eq!(of(&all, "question_prompt").len(), 1);
    let closed = of(&all, "interaction_response");
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0]["interactionId"], prompt["interactionId"]);
    assert_eq!(closed[0]["toolCallId"], prompt["toolCallId"]);
    assert_eq!(closed[0]["outcome"], "answered: SQLite");
    let result = server.requests()[1].result_of("q1");
    assert!(result.contains("SQLite"), "{result}");
}

#[test]
fn an_approval_is_sent_as_seed_004_s_approval_required_too_and_a_restart_replays_both() {
    let home = TempDir::new("gateway-protocols-approval");
    let code = "print('hi')";
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[(
            "b1",
            "blender_execute_code",
            &json!({ "code": code }).to_string(),
        )]),
        Reply::text(&["Tried."]),
    ]);
    let env = [("BLENDER_MCP_PORT", "9")];
    let gateway = Gateway::start_with(&home, &server.url(), &env);
    let id = session_with_message(&gateway, "run some code");
    let asked = gateway.events_until(&id, 0, "approval_required");
    let request = of(&asked, "interaction_request")[0];
    let approval = asked.last().unwrap();
    assert_eq!(approval["toolCallId"], "b1");
    assert_eq!(approval["toolName"], "blender_execute_code");
    assert_eq!(approval["interactionId"], request["interactionId"]);
    // `input` is the call's input as a JSON string.
    let input: Value = serde_json::from_str(approval["input"].as_str().unwrap()).unwrap();
    assert_eq!(input, json!({ "code": code }));
    let (status, body) = gateway.call(
        "POST",
        &format!("/api/sessions/{id}/approve"),
        Some(json!({"toolCallId": "b1"})),
    );
    assert_eq!(status, 200, "{body}");
    let all = gateway.events_until(&id, 0, "done");
    let closed = of(&all, "interaction_response");
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0]["interactionId"], approval["interactionId"]);
    assert_eq!(closed[0]["action"], "approve");
    drop(gateway);

    // Served again after a restart: the log replays both, closed once.
    let again = Gateway::start_with(&home, &server.url(), &env);
    let (status, _) = again.call("POST", "/api/sessions", Some(json!({"resume": id})));
    assert_eq!(status, 201);
    let replayed = again.events_until(&id, 0, "done");
    assert_eq!(of(&replayed, "approval_required").len(), 1);
    assert_eq!(of(&replayed, "interaction_request").len(), 1);
    assert_eq!(of(&replayed, "interaction_response").len(), 1);
}

#[test]
fn answers_keyed_by_index_or_text_take_arrays_and_joined_labels_through_the_endpoint() {
    let home = TempDir::new("gateway-protocols-answers");
    let shapes = [
        // Seed 001: by index, the multi-select answer a JSON array serialized in a string.
        json!({"0": "SQLite", "1": "[\"Auth\", \"Export\"]"}),
        // By index, the multi-select answer an array, with the person's own words.
        json!({"0": "PostgreSQL", "1": ["Search", "offline mode"]}),
        // By text, labels joined by ", ".
        json!({"Which database?": "DuckDB", "Which features?": "Auth, Search"}),
    ];
    let mut replies = Vec::new();
    for n in 0..shapes.len() {
        replies.push(two_questions(&format!("q{n}")));
        replies.push(Reply::text(&["Noted."]));
    }
    let server = ReplayServer::start(replies);
    let gateway = Gateway::start(&home, &server.url());
    let id = gateway.new_session();
    let mut since = 0;
    let expected = [
        "answered: SQLite; Auth, Export",
        "answered: PostgreSQL; Search, Other: offline mode",
        "answered: Other: DuckDB; Auth, Search",
    ];
    for (n, answers) in shapes.iter().enumerate() {
        let path = format!("/api/sessions/{id}/messages");
        let sent = gateway.call("POST", &path, Some(json!({"content": "plan it"})));
        assert_eq!(sent.0, 202);
        gateway.events_until(&id, since, "question_prompt");
        let answer = |answers: &Value| {
            gateway.call(
                "POST",
                &format!("/api/sessions/{id}/submit-answers"),
                Some(json!({"toolCallId": format!("q{n}"), "answers": answers})),
            )
        };
        // An array where one is chosen is refused, with why.
        let (status, refused) = answer(&json!({"0": ["SQLite", "PostgreSQL"], "1": []}));
        assert_eq!(status, 400, "{refused}");
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .contains("only one answer"),
            "{refused}"
        );
        let (status, body) = answer(answers);
        assert_eq!(status, 200, "{answers}: {body}");
        let events = gateway.events_until(&id, since, "done");
        let closed = of(&events, "interaction_response")[0];
        assert_eq!(closed["outcome"], expected[n], "{answers}");
        since += events.len() as u64;
    }
}

#[test]
fn a_question_left_out_names_both_ways_to_key_it() {
    let home = TempDir::new("gateway-protocols-left-out");
    let server = ReplayServer::start(vec![
        ask_one("q1", "Colour", "Which colour?", &["Red", "Blue"]),
        Reply::text(&["Blue."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let id = session_with_message(&gateway, "pick");
    gateway.events_until(&id, 0, "question_prompt");
    let path = format!("/api/sessions/{id}/submit-answers");
    let (status, refused) = gateway.call(
        "POST",
        &path,
        Some(json!({"toolCallId": "q1", "answers": {"1": "Blue"}})),
    );
    assert_eq!(status, 400);
    assert_eq!(
        refused["error"],
        "no answer for the question \"Which colour?\": key it by its text or by its index, \"0\""
    );
    let (status, _) = gateway.call(
        "POST",
        &path,
        Some(json!({"toolCallId": "q1", "answers": {"0": ["Blue"]}})),
    );
    assert_eq!(status, 200);
    let events = gateway.events_until(&id, 0, "done");
    assert_eq!(events.last().unwrap()["answer"], "Blue.");
}

/// Follows session `id` as `client` for as long as the stream returned is kept (unread).
fn follow(gateway: &Gateway, id: &str, client: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", gateway.port)).unwrap();
    write!(
        stream,
        "GET /api/sessions/{id}/events?client={client}&token={} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        gateway.token, gateway.port
    )
    .unwrap();
    stream
}

#[test]
fn a_client_that_switched_interactive_mode_off_has_its_answers_refused_until_it_switches_on() {
    let home = TempDir::new("gateway-protocols-read-only");
    let server = ReplayServer::start(vec![database_question(), Reply::text(&["SQLite."])]);
    let gateway = Gateway::start(&home, &server.url());
    let id = gateway.new_session();
    // Two clients follow: one answers questions, one only watches.
    let _answers = follow(&gateway, &id, "desk");
    let _watches = follow(&gateway, &id, "phone");
    let mode = format!("/api/sessions/{id}/interaction-mode");
    let set = |enabled: bool| {
        gateway.call(
            "POST",
            &mode,
            Some(json!({"client": "phone", "enabled": enabled})),
        )
    };
    assert_eq!(set(false).0, 200);
    let path = format!("/api/sessions/{id}/messages");
    let sent = gateway.call(
        "POST",
        &path,
        Some(json!({"content": "set up the database"})),
    );
    assert_eq!(sent.0, 202);
    let asked = gateway.events_as("phone", &id, 0, "interaction_request");
    let interaction = asked.last().unwrap()["interactionId"].clone();
    let act = |action: &str, body: Value| {
        gateway.call("POST", &format!("/api/sessions/{id}/{action}"), Some(body))
    };
    let (status, refused) = act(
        "respond",
        json!({"interactionId": interaction, "action": "submit", "by": "phone",
               "answers": {"Which database?": "SQLite"}}),
    );
    assert_eq!(status, 403, "{refused}");
    assert_eq!(
        refused["error"],
        format!(
            "client \"phone\" switched its interactive mode off, so it only watches and its answers are not taken: switch it on (POST /api/sessions/{id}/interaction-mode {{\"client\": \"phone\", \"enabled\": true}}, or tick \"Answer questions in this page\") and answer again"
        )
    );
    // The older route, which names the client `client`, the same.
    let by_client = json!({"toolCallId": "q1", "client": "phone", "answers": {"0": "SQLite"}});
    assert_eq!(act("submit-answers", by_client.clone()).0, 403);
    // Switched on while the question waits, it answers it (seed 003).
    assert_eq!(set(true).0, 200);
    assert_eq!(act("submit-answers", by_client).0, 200);
    let events = gateway.events_until(&id, 0, "done");
    let closed = of(&events, "interaction_response")[0];
    assert_eq!(
        (&closed["by"], &closed["outcome"]),
        (&json!("phone"), &json!("answered: SQLite"))
    );
}

#[test]
fn a_question_nobody_is_connected_to_answer_tells_the_model_so() {
    let home = TempDir::new("gateway-protocols-nobody");
    let server = ReplayServer::start(vec![
        ask_one("q1", "Colour", "Which colour?", &["Red", "Blue"]),
        Reply::text(&["I will assume blue."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let id = gateway.new_session();
    let path = format!("/api/sessions/{id}/messages");
    let sent = gateway.call("POST", &path, Some(json!({"content": "pick"})));
    assert_eq!(sent.0, 202);
    // No client follows the session: the turn ends without one (the list says when).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while server.requests().len() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the turn never went on"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let result = server.requests()[1].result_of("q1");
    assert!(
        result
            .contains("Nobody can answer questions here (no client is connected to the gateway)."),
        "{result}"
    );
    assert!(!result.contains("stdin"), "{result}");
    let events = gateway.events_as("late-reader", &id, 0, "done");
    assert_eq!(events.last().unwrap()["answer"], "I will assume blue.");
}

#[test]
fn a_late_answer_that_comes_during_a_turn_starts_a_follow_up_turn_when_it_ends() {
    let home = TempDir::new("gateway-protocols-follow-up");
    let (reached, at_third) = std::sync::mpsc::channel();
    let (release, held) = std::sync::mpsc::channel::<()>();
    let mut replies = vec![
        ask_one("q1", "Colour", "Which colour?", &["Red", "Blue"]),
        Reply::text(&["Going on without."]),
        Reply::text(&["Busy done."]),
        Reply::text(&["Blue, noted."]),
    ]
    .into_iter();
    let mut seen = 0;
    // The third request (the second message's) waits until the test lets it go.
    let server = ReplayServer::answering(move |_| {
        seen += 1;
        if seen == 3 {
            reached.send(()).unwrap();
            held.recv().unwrap();
        }
        replies.next().unwrap()
    });
    let env = [("MARVIN_QUESTION_TIMEOUT", "1")];
    let gateway = Gateway::start_with(&home, &server.url(), &env);
    let id = session_with_message(&gateway, "ask me");
    let first = gateway.events_until(&id, 0, "done");
    let since = first.len() as u64;
    // ask_user went on without the answer: its question is asked again after the turn.
    gateway.events_until(&id, since, "question_prompt");
    let path = format!("/api/sessions/{id}/messages");
    let sent = gateway.call("POST", &path, Some(json!({"content": "meanwhile"})));
    assert_eq!(sent.0, 202);
    at_third
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the second message reaches the model");
    let late = json!({"toolCallId": "q1", "answers": {"0": "Blue"}});
    let answered = gateway.call(
        "POST",
        &format!("/api/sessions/{id}/submit-answers"),
        Some(late),
    );
    assert_eq!(answered.0, 200, "{}", answered.1);
    release.send(()).unwrap();
    // The turn under way ends, then the follow-up turn starts with the late answer.
    let events = gateway.events_until(&id, since, "done");
    assert_eq!(events.last().unwrap()["answer"], "Busy done.");
    let rest = gateway.events_until(&id, since + events.len() as u64, "done");
    let messages = of(&rest, "user_message");
    assert_eq!(messages.len(), 1, "{rest:?}");
    assert_eq!(messages[0]["followUp"], true);
    assert_eq!(rest.last().unwrap()["answer"], "Blue, noted.");
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert!(
        !requests[2].body["messages"]
            .to_string()
            .contains("Late answer")
    );
    let last = requests[3].last_message().to_string();
    assert!(
        last.contains("Late answer") && last.contains("Blue"),
        "{last}"
    );
}
