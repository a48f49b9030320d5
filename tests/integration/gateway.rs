//! `marvin serve` through real HTTP against the built binary: the token, Host and Origin
//! checks; a session made, a turn streamed as server-sent events and resumed with `since`; a
//! question answered through the API (400 for an answer that does not fit, 404 for no such
//! question, 409 for one answered already) and a message refused while a turn runs.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{ReplayServer, Reply, TempDir, ask_one, database_question, marvin};

/// A running `marvin serve` and the address it printed.
pub(crate) struct Gateway {
    child: Child,
    pub port: u16,
    pub token: String,
}

impl Gateway {
    pub fn start(home: &TempDir, provider: &str) -> Self {
        Self::start_with(home, provider, &[])
    }

    pub fn start_with(home: &TempDir, provider: &str, env: &[(&str, &str)]) -> Self {
        let (child, host, port, token) = serve(home, provider, env, &[], Stdio::null());
        assert_eq!(host, "127.0.0.1");
        Self { child, port, token }
    }

    /// A new session's id.
    pub fn new_session(&self) -> String {
        let (_, made) = self.call("POST", "/api/sessions", Some(json!({})));
        made["id"].as_str().unwrap().to_string()
    }

    /// A new session, and `marvin --attach` following it from a terminal of `width` by
    /// `height`.
    pub fn attach_new(
        &self,
        home: &TempDir,
        width: u16,
        height: u16,
    ) -> (String, crate::common::pty::Pty) {
        let id = self.new_session();
        let pty = self.attach(home, &id, width, height);
        (id, pty)
    }

    /// `marvin --attach` following session `id` from a terminal of `width` by `height`.
    pub fn attach(
        &self,
        home: &TempDir,
        id: &str,
        width: u16,
        height: u16,
    ) -> crate::common::pty::Pty {
        let mut command = marvin(home.path());
        command
            .env("TERM", "xterm")
            .args(["--attach", &format!("{}#{id}", self.page())]);
        crate::common::pty::Pty::spawn_sized(command, width, height)
    }

    /// The process's id, to look at it in /proc.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The page's address, token included, as `marvin serve` printed it.
    pub fn page(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }

    /// One request with the token, the right Host and no Origin; its status and JSON.
    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let auth = format!("Authorization: Bearer {}\r\n", self.token);
        self.raw(method, path, &auth, body)
    }

    /// One request with the headers given (besides Host, set right).
    fn raw(&self, method: &str, path: &str, headers: &str, body: Option<Value>) -> (u16, Value) {
        let host = format!("Host: 127.0.0.1:{}\r\n", self.port);
        self.raw_with_host(method, path, &format!("{host}{headers}"), body)
    }

    fn raw_with_host(
        &self,
        method: &str,
        path: &str,
        headers: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        self.send_text(method, path, headers, &body)
    }

    /// One request whose body is `body` as it is (JSON or not), with Host set right.
    fn raw_body(&self, method: &str, path: &str, headers: &str, body: &str) -> (u16, Value) {
        let host = format!("Host: 127.0.0.1:{}\r\n", self.port);
        self.send_text(method, path, &format!("{host}{headers}"), body)
    }

    fn send_text(&self, method: &str, path: &str, headers: &str, body: &str) -> (u16, Value) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        stream
            .read_to_string(&mut reply)
            .unwrap_or_else(|e| panic!("no answer to {method} {path}: {e}"));
        let status = reply[9..12].parse().unwrap();
        let json = reply
            .split_once("\r\n\r\n")
            .and_then(|(_, body)| serde_json::from_str(body).ok())
            .unwrap_or(Value::Null);
        (status, json)
    }

    /// The session's events from `since` on, read until one of type `until` (included).
    pub(crate) fn events_until(&self, id: &str, since: u64, until: &str) -> Vec<Value> {
        self.events_as("a-test", id, since, until)
    }

    /// The same, following the session as client `client`.
    pub(crate) fn events_as(&self, client: &str, id: &str, since: u64, until: &str) -> Vec<Value> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        write!(
            stream,
            "GET /api/sessions/{id}/events?since={since}&client={client}&token={} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
            self.token, self.port
        )
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut events = Vec::new();
        for line in BufReader::new(stream).lines() {
            assert!(Instant::now() < deadline, "no {until} event: {events:?}");
            let line = line.unwrap();
            if let Some(data) = line.strip_prefix("data: ") {
                let event: Value = serde_json::from_str(data).unwrap();
                let done = event["type"] == until;
                events.push(event);
                if done {
                    return events;
                }
            }
        }
        panic!("the stream ended before {until}: {events:?}");
    }
}

/// `marvin serve ARGS` in `home` against `provider`, and the address it printed first on
/// stdout: the host, the port and the token.
fn serve(
    home: &TempDir,
    provider: &str,
    env: &[(&str, &str)],
    args: &[&str],
    stderr: Stdio,
) -> (Child, String, u16, String) {
    let mut child = marvin(home.path())
        .env("OPENAI_COMPAT_URL", provider)
        // The server's private socket directory goes with the test's: the test kills the
        // gateway, which then cannot remove it.
        .env("TMPDIR", home.path())
        .envs(env.iter().copied())
        .env("MARVIN_MODEL", "gpt-4o")
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let address = first
        .trim()
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once("/?token="))
        .unwrap_or_else(|| panic!("no address first on stdout: {first:?}"));
    let (host, port) = address.0.rsplit_once(':').unwrap();
    let token = address.1.to_string();
    (child, host.to_string(), port.parse().unwrap(), token)
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn only_the_token_holder_on_this_host_and_no_other_site_gets_in() {
    let home = TempDir::new("gateway-auth");
    // No model is called: a provider address nothing answers on will do.
    let gateway = Gateway::start(&home, "http://127.0.0.1:9/v1");
    assert_eq!(gateway.call("GET", "/api", None).0, 200);
    assert_eq!(gateway.raw("GET", "/api", "", None).0, 401);
    let wrong = "Authorization: Bearer 0123456789abcdef0123456789abcdef\r\n";
    assert_eq!(gateway.raw("GET", "/api", wrong, None).0, 401);
    let by_query = format!("/api/sessions?token={}", gateway.token);
    assert_eq!(gateway.raw("GET", &by_query, "", None).0, 200);
    let auth = format!("Authorization: Bearer {}\r\n", gateway.token);
    let rebound = format!("Host: attacker.example:{}\r\n{auth}", gateway.port);
    assert_eq!(gateway.raw_with_host("GET", "/api", &rebound, None).0, 403);
    let foreign = format!("{auth}Origin: http://attacker.example\r\n");
    let (status, refused) = gateway.raw("POST", "/api/sessions", &foreign, Some(json!({})));
    assert_eq!(status, 403, "{refused}");
    assert_eq!(gateway.call("GET", "/api/nothing", None).0, 404);
    // SIGTERM stops it the way it stops a run.
    let mut gateway = gateway;
    unsafe { libc::kill(gateway.child.id() as i32, libc::SIGTERM) };
    assert_eq!(gateway.child.wait().unwrap().code(), Some(143));
}

#[test]
fn every_route_refuses_what_it_cannot_do_with_a_status_that_says_why() {
    let home = TempDir::new("gateway-routes");
    // No model is called: a provider address nothing answers on will do.
    let gateway = Gateway::start(&home, "http://127.0.0.1:9/v1");
    let (status, made) = gateway.call("POST", "/api/sessions", Some(json!({})));
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_str().unwrap().to_string();
    let on = |action: &str| format!("/api/sessions/{id}/{action}");
    let cases: &[(&str, String, Option<Value>, u16)] = &[
        ("GET", "/api/sessions".into(), None, 200),
        (
            "POST",
            "/api/sessions".into(),
            Some(json!({"resume": "no such session"})),
            404,
        ),
        (
            "POST",
            "/api/sessions/nope/messages".into(),
            Some(json!({"content": "hi"})),
            404,
        ),
        ("GET", "/api/sessions/nope/events".into(), None, 404),
        ("POST", on("frobnicate"), Some(json!({})), 404),
        ("POST", on("messages"), Some(json!({"content": 3})), 400),
        ("POST", on("cancel"), Some(json!({})), 200),
        // No body at all is {}: cancel needs nothing.
        ("POST", on("cancel"), None, 200),
        (
            "POST",
            "/api/sessions".into(),
            Some(json!({"resum": "x"})),
            400,
        ),
        (
            "POST",
            "/api/sessions".into(),
            Some(json!({"resume": 5})),
            400,
        ),
        (
            "POST",
            on("interaction-mode"),
            Some(json!({"client": "a"})),
            400,
        ),
        (
            "POST",
            on("interaction-mode"),
            Some(json!({"client": "a", "enabled": false})),
            200,
        ),
        ("POST", on("approve"), Some(json!({"scope": "once"})), 400),
        (
            "POST",
            on("approve"),
            Some(json!({"toolCallId": "c9", "scope": "once"})),
            404,
        ),
        (
            "POST",
            on("deny"),
            Some(json!({"interactionId": "not a number"})),
            400,
        ),
        (
            "POST",
            on("deny"),
            Some(json!({"interactionId": "42", "reason": ""})),
            404,
        ),
        (
            "POST",
            on("submit-answers"),
            Some(json!({"toolCallId": "c9", "answers": {}})),
            404,
        ),
    ];
    for (method, path, body, expected) in cases {
        let (status, reply) = gateway.call(method, path, body.clone());
        assert_eq!(status, *expected, "{method} {path} {body:?}: {reply}");
        if status >= 400 {
            assert!(
                reply["error"].as_str().is_some_and(|e| !e.is_empty()),
                "{reply}"
            );
        }
    }
    let (_, cancelled) = gateway.call("POST", &on("cancel"), Some(json!({})));
    assert_eq!(cancelled["running"], false);
    // A body that is not JSON.
    let auth = format!("Authorization: Bearer {}\r\n", gateway.token);
    // --attach says what the gateway said, before it needs a terminal.
    let attach = |address: String| {
        let out = marvin(home.path())
            .args(["--attach", &address])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said = attach(format!("{}#nope", gateway.page()));
    assert!(said.contains("no session nope is served at"), "{said}");
    let wrong = format!(
        "http://127.0.0.1:{}/?token=0123456789abcdef#{id}",
        gateway.port
    );
    assert!(attach(wrong).contains("token"), "wrong token");
    let said = attach(format!("{}#{id}", gateway.page()));
    assert!(said.contains("needs a terminal"), "{said}");
    let (status, refused) = gateway.raw_body("POST", &on("messages"), &auth, "{not json");
    assert_eq!(status, 400);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .starts_with("the body is not JSON"),
        "{refused}"
    );
}

#[test]
fn a_turn_streams_its_events_a_question_is_answered_once_and_a_reload_resumes() {
    let home = TempDir::new("gateway-turn");
    let server = ReplayServer::start(vec![
        database_question(),
        Reply::text(&["SQLite ", "it is."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let (status, made) = gateway.call("POST", "/api/sessions", Some(json!({})));
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_str().unwrap().to_string();
    let send = |content: &str| {
        gateway.call(
            "POST",
            &format!("/api/sessions/{id}/messages"),
            Some(json!({ "content": content })),
        )
    };
    assert_eq!(send("  ").0, 400);
    assert_eq!(send("set up the database").0, 202);
    let asked = gateway.events_until(&id, 0, "interaction_request");
    let kinds: Vec<&str> = asked.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds[0], "user_message");
    assert!(kinds.contains(&"tool_call_start"), "{kinds:?}");
    let prompt = asked.last().unwrap();
    assert_eq!(prompt["questions"][0]["question"], "Which database?");
    // One prompt at a time: the turn waits for the answer.
    assert_eq!(send("and another thing").0, 409);

    let answer = |body: Value| {
        gateway.call(
            "POST",
            &format!("/api/sessions/{id}/submit-answers"),
            Some(body),
        )
    };
    // Named by the model's call, and by the prompt itself.
    assert_eq!(prompt["toolCallId"], "q1");
    assert!(prompt["interactionId"].as_str().is_some(), "{prompt}");
    let call_id = prompt["toolCallId"].clone();
    assert_eq!(answer(json!({"toolCallId": call_id, "answers": {}})).0, 400);
    assert_eq!(
        answer(json!({"answers": {"Which database?": "SQLite"}})).0,
        400
    );
    assert_eq!(
        answer(json!({"toolCallId": "999", "answers": {"Which database?": "SQLite"}})).0,
        404
    );
    let good = json!({"toolCallId": call_id, "answers": {"Which database?": "SQLite"}});
    assert_eq!(answer(good.clone()).0, 200);
    assert_eq!(answer(good).0, 409);

    let all = gateway.events_until(&id, 0, "done");
    let done = all.last().unwrap();
    assert_eq!(done["answer"], "SQLite it is.");
    let seqs: Vec<u64> = all.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    let texts: Vec<&str> = all
        .iter()
        .filter(|e| e["type"] == "text_delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.concat(), "SQLite it is.");
    assert!(all.iter().any(|e| e["type"] == "interaction_response"));
    // A client that reconnects with since gets only what came after.
    let since = seqs[seqs.len() - 2];
    let tail = gateway.events_until(&id, since, "done");
    assert_eq!(tail.len(), 1);
    // The model got the answer as the tool's result.
    let result = server.requests()[1].result_of("q1");
    assert!(result.contains("SQLite"), "{result}");
    // The session is stored, with its events, and listed.
    let (_, listed) = gateway.call("GET", "/api/sessions", None);
    assert_eq!(listed["sessions"][0]["id"], id.as_str());
    let log = home
        .path()
        .join("marvin-home/sessions")
        .join(&id)
        .join("events.jsonl");
    assert!(
        std::fs::read_to_string(log)
            .unwrap()
            .contains("\"type\":\"done\"")
    );
}

/// A session made on `gateway`, with `content` sent to it.
pub(crate) fn session_with_message(gateway: &Gateway, content: &str) -> String {
    let id = gateway.new_session();
    let path = format!("/api/sessions/{id}/messages");
    assert_eq!(
        gateway
            .call("POST", &path, Some(json!({ "content": content })))
            .0,
        202
    );
    id
}

#[test]
fn approvals_are_given_or_refused_through_the_api_and_an_unanswered_question_is_answered_late() {
    let home = TempDir::new("gateway-approval");
    let code = |c: &str| {
        Reply::tool_calls(&[(
            "b1",
            "blender_execute_code",
            &json!({"code": c}).to_string(),
        )])
    };
    let server = ReplayServer::start(vec![
        code("print('approved')"),
        Reply::text(&["Tried."]),
        code("print('denied')"),
        Reply::text(&["Understood."]),
        ask_one("q1", "Colour", "Which colour?", &["Red", "Blue"]),
        Reply::text(&["Going on without."]),
        Reply::text(&["Blue it is."]),
    ]);
    let gateway = Gateway::start_with(
        &home,
        &server.url(),
        &[("BLENDER_MCP_PORT", "9"), ("MARVIN_QUESTION_TIMEOUT", "1")],
    );
    let id = session_with_message(&gateway, "run some code");
    let asked = gateway.events_until(&id, 0, "interaction_request");
    let approval = asked.last().unwrap();
    assert_eq!(approval["tool"], "blender_execute_code");
    assert!(
        approval["detail"]
            .as_str()
            .unwrap()
            .contains("print('approved')")
    );
    let act = |action: &str, body: Value| {
        gateway.call("POST", &format!("/api/sessions/{id}/{action}"), Some(body))
    };
    let call_id = approval["toolCallId"].clone();
    assert_eq!(
        act(
            "approve",
            json!({"toolCallId": call_id, "scope": "forever"})
        )
        .0,
        400
    );
    assert_eq!(
        act(
            "submit-answers",
            json!({"toolCallId": call_id, "answers": {}})
        )
        .0,
        400
    );
    assert_eq!(
        act("approve", json!({"toolCallId": call_id, "scope": "once"})).0,
        200
    );
    let first = gateway.events_until(&id, 0, "done");
    // Approved: the code went to Blender, which is not running here.
    let result = first.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert!(
        !result["output"].as_str().unwrap().contains("declined"),
        "{result}"
    );

    let since = first.len() as u64;
    let path = format!("/api/sessions/{id}/messages");
    assert_eq!(
        gateway
            .call("POST", &path, Some(json!({"content": "again"})))
            .0,
        202
    );
    let asked = gateway.events_until(&id, since, "interaction_request");
    let call_id = asked.last().unwrap()["toolCallId"].clone();
    assert_eq!(
        act("deny", json!({"toolCallId": call_id, "reason": "not now"})).0,
        200
    );
    let second = gateway.events_until(&id, since, "done");
    let result = second.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert!(
        result["output"].as_str().unwrap().contains("not now"),
        "{result}"
    );

    // Nobody answers: after MARVIN_QUESTION_TIMEOUT the question ends and the turn goes on.
    let since = since + second.len() as u64;
    assert_eq!(
        gateway
            .call("POST", &path, Some(json!({"content": "ask me"})))
            .0,
        202
    );
    let third = gateway.events_until(&id, since, "done");
    let closed = third
        .iter()
        .find(|e| e["type"] == "interaction_response")
        .unwrap();
    assert_eq!(closed["outcome"], "timed out");
    assert_eq!(third.last().unwrap()["answer"], "Going on without.");

    // ask_user left its question open: it is asked again after the turn, and kept.
    let since = since + third.len() as u64;
    let late = gateway.events_until(&id, since, "interaction_request");
    let late = late.last().unwrap();
    assert_eq!(late["toolCallId"], "q1");
    assert_ne!(late["interactionId"], closed["interactionId"]);
    // Asked again as a prompt of its own, where it was first asked: its turn and response.
    let first_asked = third
        .iter()
        .find(|e| e["type"] == "interaction_request")
        .unwrap();
    for field in ["turnId", "responseId", "toolName"] {
        assert_eq!(late[field], first_asked[field], "{field}");
    }
    assert_eq!(
        late["timeoutMs"],
        Value::Null,
        "a late question has no deadline"
    );
    assert!(
        late["error"]
            .as_str()
            .unwrap()
            .starts_with("An earlier question is still open"),
        "{late}"
    );
    std::thread::sleep(Duration::from_millis(1500));
    // Nothing would ask it again: an empty answer is refused here.
    let (status, refused) = act(
        "submit-answers",
        json!({"toolCallId": "q1", "answers": {"Which colour?": ""}}),
    );
    assert_eq!(status, 400, "{refused}");
    let (status, _) = act(
        "submit-answers",
        json!({"toolCallId": "q1", "answers": {"Which colour?": "Blue"}}),
    );
    assert_eq!(status, 200, "a late question does not time out");
    // The late answer starts a follow-up turn at once, announced to every client.
    let answered = gateway.events_until(&id, since, "done");
    let over = answered
        .iter()
        .rfind(|e| e["type"] == "interaction_response")
        .unwrap();
    assert_eq!(over["interactionId"], late["interactionId"]);
    assert_eq!(over["turnId"], late["turnId"]);
    assert_eq!(over["outcome"], "answered: Blue");
    assert_eq!(over["completed"], json!(["Which colour?: Blue"]));
    assert_eq!(
        act(
            "submit-answers",
            json!({"toolCallId": "q1", "answers": {"Which colour?": "Red"}})
        )
        .0,
        409
    );
    let follow_up = answered
        .iter()
        .find(|e| e["type"] == "user_message")
        .unwrap();
    assert_eq!(follow_up["followUp"], true);
    let content = follow_up["content"].as_str().unwrap();
    assert!(
        content.starts_with("(Late answer to your earlier ask_user question)")
            && content.contains("Blue"),
        "{follow_up}"
    );
    assert!(follow_up["seq"].as_u64() > over["seq"].as_u64());
    assert_eq!(answered.last().unwrap()["answer"], "Blue it is.");
    // The model got the late answer as the follow-up turn's message.
    let sent = server.requests().last().unwrap().body["messages"].clone();
    let last = sent.as_array().unwrap().last().unwrap().to_string();
    assert!(
        last.contains("Late answer to your earlier ask_user question"),
        "{last}"
    );
    assert!(last.contains("Blue"), "{last}");
    assert_eq!(server.requests().len(), 7, "one follow-up turn");
}

#[test]
fn a_question_that_no_client_answers_is_unavailable_to_the_tool() {
    let home = TempDir::new("gateway-opt-out");
    let server = ReplayServer::start(vec![
        ask_one("q1", "Colour", "Which colour?", &["Red", "Blue"]),
        Reply::text(&["I will assume blue."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let id = gateway.new_session();
    // The only client watches with interactive mode off.
    let mode = format!("/api/sessions/{id}/interaction-mode");
    let (status, set) = gateway.call(
        "POST",
        &mode,
        Some(json!({"client": "watcher", "enabled": false})),
    );
    assert_eq!(
        (status, &set["answering_clients"]),
        (200, &json!(0)),
        "{set}"
    );
    assert_eq!(
        gateway
            .call("POST", &mode, Some(json!({"enabled": false})))
            .0,
        400
    );
    let path = format!("/api/sessions/{id}/messages");
    assert_eq!(
        gateway
            .call("POST", &path, Some(json!({"content": "pick"})))
            .0,
        202
    );
    let events = gateway.events_as("watcher", &id, 0, "done");
    assert!(
        events.iter().any(|e| e["type"] == "interaction_request"),
        "the card is still shown"
    );
    let closed = events
        .iter()
        .find(|e| e["type"] == "interaction_response")
        .unwrap();
    assert_eq!(closed["outcome"], "nobody there to answer");
    let result = events.iter().find(|e| e["type"] == "tool_result").unwrap();
    // The reason is the gateway's: its only client switched interactive mode off.
    let why = "Nobody can answer questions here (every client connected to the gateway switched its interactive mode off).";
    assert!(result["output"].as_str().unwrap().contains(why), "{result}");
    assert!(server.requests()[1].result_of("q1").contains(why));
    assert_eq!(events.last().unwrap()["answer"], "I will assume blue.");
}

#[test]
fn listen_puts_the_gateway_on_one_address_said_on_stderr_and_requests_must_name_it() {
    let home = TempDir::new("gateway-listen");
    let args = ["--listen", "127.0.0.2"];
    let provider = "http://127.0.0.1:9/v1";
    let (child, host, port, token) = serve(&home, provider, &[], &args, Stdio::piped());
    assert_eq!(host, "127.0.0.2");
    let ask = |host: &str| {
        let mut stream = TcpStream::connect(("127.0.0.2", port)).unwrap();
        write!(
            stream,
            "GET /api?token={token} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        reply[9..12].to_string()
    };
    assert_eq!(ask(&format!("127.0.0.2:{port}")), "200");
    assert_eq!(ask(&format!("attacker.example:{port}")), "403");
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    // 127.0.0.2 is this machine only: no warning that the network reaches it.
    assert!(
        stderr.contains("serving sessions at that address"),
        "{stderr}"
    );
    assert!(!stderr.contains("reachable from the network"), "{stderr}");
    // An address that is not this machine's gets its error, and no warning before it.
    let refused = marvin(home.path())
        .env("OPENAI_COMPAT_URL", provider)
        .env("MARVIN_MODEL", "gpt-4o")
        .args(["serve", "--listen", "192.0.2.99"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        said.starts_with("marvin: cannot listen on 192.0.2.99: ") && said.contains("ip addr"),
        "{said}"
    );
}

#[test]
fn a_question_asked_again_comes_with_its_error_and_what_was_entered_under_the_same_call() {
    let home = TempDir::new("gateway-reprompt");
    let server = ReplayServer::start(vec![database_question(), Reply::text(&["DuckDB, noted."])]);
    let gateway = Gateway::start(&home, &server.url());
    let id = session_with_message(&gateway, "set up the database");
    let first = gateway.events_until(&id, 0, "interaction_request");
    let first = first.last().unwrap().clone();
    let path = format!("/api/sessions/{id}/submit-answers");
    // "Other" with nothing typed: the tool asks again, as in the terminal.
    let empty = json!({"toolCallId": "q1", "answers": {"Which database?": ""}});
    assert_eq!(gateway.call("POST", &path, Some(empty)).0, 200);
    let since = first["seq"].as_u64().unwrap();
    let again = gateway.events_until(&id, since, "interaction_request");
    let closed = again
        .iter()
        .find(|e| e["type"] == "interaction_response")
        .unwrap();
    assert_eq!(closed["toolCallId"], "q1");
    assert_eq!(closed["interactionId"], first["interactionId"]);
    let again = again.last().unwrap();
    assert_eq!(again["toolCallId"], "q1");
    assert_ne!(again["interactionId"], first["interactionId"]);
    assert!(
        again["error"]
            .as_str()
            .unwrap()
            .starts_with("Please type an answer after choosing Other"),
        "{again}"
    );
    assert_eq!(
        again["questions"][0]["initial"],
        json!({"chosen": [], "other": ""})
    );
    // The first prompt is over; the call's prompt now is the second one.
    let late =
        json!({"interactionId": first["interactionId"], "answers": {"Which database?": "SQLite"}});
    assert_eq!(gateway.call("POST", &path, Some(late)).0, 409);
    let typed = json!({"toolCallId": "q1", "answers": {"Which database?": "DuckDB"}});
    assert_eq!(gateway.call("POST", &path, Some(typed.clone())).0, 200);
    assert_eq!(gateway.call("POST", &path, Some(typed)).0, 409);
    gateway.events_until(&id, since, "done");
    let answered = server.requests()[1].last_message()["content"].to_string();
    assert!(answered.contains("DuckDB"), "{answered}");
}

#[test]
fn a_terminal_attached_to_a_served_session_chats_and_answers_and_a_second_answer_is_refused() {
    let home = TempDir::new("gateway-attach");
    let ask = database_question;
    let server = ReplayServer::start(vec![
        ask(),
        Reply::text(&["PostgreSQL then."]),
        ask(),
        Reply::text(&["SQLite, as the page said."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let (id, mut pty) = gateway.attach_new(&home, 100, 30);
    pty.wait_for(&format!("Attached to session {id}"));
    pty.wait_for("attached› ");
    pty.send("set up the database\r");
    pty.wait_for("[Database] Which database?");
    pty.wait_for("2. PostgreSQL");
    // The only question waiting needs no number.
    pty.send("/answer 2\r");
    pty.wait_for("PostgreSQL then.");

    // The page answers the next question first: the terminal's answer is refused.
    let since = gateway.events_until(&id, 0, "done").len() as u64;
    pty.send("again\r");
    pty.wait_for_nth("[Database] Which database?", 2);
    let events = gateway.events_until(&id, since, "interaction_request");
    let second = events
        .iter()
        .rfind(|e| e["type"] == "interaction_request")
        .unwrap();
    let path = format!("/api/sessions/{id}/submit-answers");
    let body =
        json!({"toolCallId": second["toolCallId"], "answers": {"Which database?": "SQLite"}});
    assert_eq!(gateway.call("POST", &path, Some(body)).0, 200);
    pty.wait_for("SQLite, as the page said.");
    let number = second["interactionId"].as_str().unwrap();
    pty.send(&format!("/answer {number} 2\r"));
    pty.wait_for(&format!("Question {number} is over (answered: SQLite)."));
    pty.send("/cancel\r");
    pty.wait_for("No turn is under way.");
    pty.send("/frob\r");
    pty.wait_for("There is no /frob here. Commands:");
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
}

#[test]
fn an_attached_terminal_shows_each_option_s_description_and_other_and_says_each_message_once() {
    let home = TempDir::new("gateway-attach-shown");
    let questions = json!([{"header": "Database", "question": "Which database?",
        "multiSelect": false, "options": [
            {"label": "SQLite", "description": "one file, no server"},
            {"label": "PostgreSQL", "description": "a server of its own"}]}]);
    let arguments = json!({ "questions": questions }).to_string();
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("q1", "ask_user", &arguments)]),
        Reply::text(&["SQLite it is."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let (id, mut pty) = gateway.attach_new(&home, 100, 30);
    pty.wait_for("attached› ");
    pty.send("set up the database\r");
    // The only question waiting is answered without a number of its own.
    pty.wait_for(
        "[Database] Which database?\r\n  1. SQLite — one file, no server\r\n  2. PostgreSQL — a server of its own\r\n  Other: your own words\r\n  /answer N (a number, a label, or Other: your own words)",
    );
    pty.send("/answer 1\r");
    pty.wait_for("  ([Database] answered: SQLite)");
    pty.wait_for("SQLite it is.");
    let shown = pty.visible().text();
    assert_eq!(shown.matches("set up the database").count(), 1, "{shown}");
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
    // An unknown session: what to run instead, not an API call.
    let out = marvin(home.path())
        .args(["--attach", &format!("{}#nope", gateway.page())])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "marvin: no session nope is served at 127.0.0.1:{}; the one served is {id} (set up the database): leave out #nope to attach to it\n",
            gateway.port
        )
    );
}

#[test]
fn parallel_calls_stream_in_order_and_a_turn_waiting_on_a_question_is_cancelled() {
    let home = TempDir::new("gateway-order");
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "system_info", "{}"), ("c2", "get_usage", "{}")]),
        Reply::text(&["Both done."]),
        ask_one("q1", "Colour", "Which colour?", &["Red", "Blue"]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let id = session_with_message(&gateway, "look around: system info and my usage");
    let events = gateway.events_until(&id, 0, "done");
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let at = |kind: &str| kinds.iter().position(|k| *k == kind).unwrap();
    let results: Vec<usize> = kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| **k == "tool_result")
        .map(|(n, _)| n)
        .collect();
    assert_eq!(results.len(), 2, "{kinds:?}");
    assert!(
        at("tool_call_start") < results[0] && results[1] < at("tool_call_end"),
        "{kinds:?}"
    );
    assert!(at("tool_call_end") < at("text_delta"), "{kinds:?}");
    let started = &events[at("tool_call_start")]["calls"];
    assert_eq!(
        (started[0]["id"].as_str(), started[1]["id"].as_str()),
        (Some("c1"), Some("c2"))
    );

    let since = events.len() as u64;
    let path = format!("/api/sessions/{id}/messages");
    assert_eq!(
        gateway
            .call("POST", &path, Some(json!({"content": "ask"})))
            .0,
        202
    );
    gateway.events_until(&id, since, "interaction_request");
    let cancel = format!("/api/sessions/{id}/cancel");
    let (status, cancelled) = gateway.call("POST", &cancel, Some(json!({})));
    assert_eq!((status, &cancelled["running"]), (200, &json!(true)));
    let end = gateway.events_until(&id, since, "error");
    assert_eq!(end.last().unwrap()["kind"], "cancelled");
    // Nothing runs any more: a new message is taken.
    let (_, listed) = gateway.call("GET", "/api/sessions", None);
    assert_eq!(listed["sessions"][0]["running"], false);
}

#[test]
fn a_parked_run_taken_up_by_the_gateway_asks_its_clients_and_goes_on() {
    let home = TempDir::new("gateway-parked");
    // Into `out/`: the sandbox lets commands add nothing at the top of the home, which holds
    // Marvin's.
    std::fs::create_dir_all(home.path().join("out")).unwrap();
    let command = json!({"command": "echo answered-in-the-page > out/made.txt"}).to_string();
    let server = ReplayServer::start(crate::common::ticketed(vec![
        Reply::tool_calls(&[("c1", "run_command", &command)]),
        Reply::text(&["Made it."]),
    ]));
    let parked = crate::common::in_project(home.path(), &server.url(), home.path())
        .env("MARVIN_MODEL", "gpt-4o")
        .args(["--non-interactive", "--json", "--on-ask", "park"])
        .args(["--permission-mode", "default", "--prompt", "make the file"])
        .output()
        .unwrap();
    assert_eq!(parked.status.code(), Some(4));
    let id = String::from_utf8_lossy(&parked.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "parked")
        .unwrap()["session"]
        .as_str()
        .unwrap()
        .to_string();
    let gateway = Gateway::start(&home, &server.url());
    let (_, listed) = gateway.call("GET", "/api/sessions", None);
    assert_eq!(listed["sessions"][0]["parked"], true);
    let (status, taken) = gateway.call("POST", "/api/sessions", Some(json!({"resume": id})));
    assert_eq!((status, &taken["parked"]), (201, &json!(true)), "{taken}");
    let asked = gateway.events_until(&id, 0, "interaction_request");
    let approval = asked.last().unwrap();
    assert!(!home.path().join("out/made.txt").exists());
    let path = format!("/api/sessions/{id}/approve");
    let body = json!({"toolCallId": approval["toolCallId"], "scope": "once"});
    assert_eq!(gateway.call("POST", &path, Some(body)).0, 200);
    let done = gateway.events_until(&id, 0, "done");
    assert_eq!(done.last().unwrap()["answer"], "Made it.");
    assert_eq!(
        std::fs::read_to_string(home.path().join("out/made.txt")).unwrap(),
        "answered-in-the-page\n"
    );
}

#[test]
fn a_question_left_open_when_the_gateway_stopped_is_closed_when_its_session_is_served_again() {
    let home = TempDir::new("gateway-restart");
    let server = ReplayServer::start(vec![Reply::text(&["Hello."]), database_question()]);
    let gateway = Gateway::start(&home, &server.url());
    let id = session_with_message(&gateway, "hi");
    gateway.events_until(&id, 0, "done");
    let path = format!("/api/sessions/{id}/messages");
    let sent = gateway.call(
        "POST",
        &path,
        Some(json!({"content": "set up the database"})),
    );
    assert_eq!(sent.0, 202);
    let asked = gateway.events_until(&id, 0, "interaction_request");
    let asked = asked.last().unwrap().clone();
    drop(gateway);

    let again = Gateway::start(&home, &server.url());
    let (status, taken) = again.call("POST", "/api/sessions", Some(json!({"resume": id})));
    assert_eq!(status, 201, "{taken}");
    let replayed = again.events_until(&id, 0, "interaction_response");
    let closed = replayed.last().unwrap();
    assert_eq!(closed["interactionId"], asked["interactionId"]);
    assert!(
        closed["outcome"]
            .as_str()
            .unwrap()
            .starts_with("no longer open"),
        "{closed}"
    );
    // The turn it was in never ended: the clients are told, and what to do.
    let ended = again.events_until(&id, 0, "error");
    let ended = ended.last().unwrap();
    assert_eq!(ended["kind"], "interrupted");
    assert!(ended["message"].as_str().unwrap().contains("send it again"));
    let late =
        json!({"interactionId": asked["interactionId"], "answers": {"Which database?": "SQLite"}});
    let path = format!("/api/sessions/{id}/submit-answers");
    assert_eq!(again.call("POST", &path, Some(late)).0, 404);
}

/// A session is made in coding mode (`{"code": true}`), or turned to it by `!code` sent from a
/// page as in the REPL: the mode changes, every client hears of it, nothing goes to the model.
#[test]
fn coding_mode_is_asked_for_at_creation_or_by_code_from_the_page() {
    let home = TempDir::new("gateway-code");
    let server = ReplayServer::start(vec![Reply::text(&["Ready."]), Reply::text(&["Ready."])]);
    let gateway = Gateway::start(&home, &server.url());
    let offers_commands = |request: &crate::common::Recorded| {
        crate::mcp::tool_names(request).contains(&"run_command".to_string())
    };
    let (status, made) = gateway.call("POST", "/api/sessions", Some(json!({"code": true})));
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["coding"], true);
    let coding = made["id"].as_str().unwrap().to_string();
    let path = format!("/api/sessions/{coding}/messages");
    assert_eq!(
        gateway
            .call("POST", &path, Some(json!({"content": "hello"})))
            .0,
        202
    );
    gateway.events_until(&coding, 0, "done");
    assert!(offers_commands(&server.requests()[0]));

    let (_, made) = gateway.call("POST", "/api/sessions", Some(json!({})));
    assert_eq!(made["coding"], false);
    let plain = made["id"].as_str().unwrap().to_string();
    let path = format!("/api/sessions/{plain}/messages");
    let (status, toggled) = gateway.call("POST", &path, Some(json!({"content": "!code"})));
    assert_eq!(
        (status, toggled["coding"].clone()),
        (200, json!(true)),
        "{toggled}"
    );
    let events = gateway.events_until(&plain, 0, "notice");
    let notice = events.last().unwrap();
    assert_eq!(notice["coding"], true, "{notice}");
    assert!(
        notice["message"]
            .as_str()
            .unwrap()
            .starts_with("coding mode on"),
        "{notice}"
    );
    assert_eq!(server.requests().len(), 1, "!code went to the model");
    assert_eq!(
        gateway
            .call("POST", &path, Some(json!({"content": "hi"})))
            .0,
        202
    );
    gateway.events_until(&plain, 0, "done");
    assert!(offers_commands(&server.requests()[1]));

    let (status, refused) = gateway.call("POST", "/api/sessions", Some(json!({"code": "yes"})));
    assert_eq!(status, 400, "{refused}");
}
