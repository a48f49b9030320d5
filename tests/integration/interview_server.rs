//! The interview form's server over real HTTP on 127.0.0.1: the token and Host checks, every
//! limit, answer checking, first-answer-wins, and that every way out stops the server and
//! joins its thread.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::common::TempDir;
use marvin::interact::form::questions::{self, Reply, ReplyValue};
use marvin::interact::form::server::{Assets, FormEvent, FormServer, MAX_BODY_BYTES, Setup, State};
use marvin::interact::form::uploads::encode_base64;
use serde_json::{Value, json};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01";

const ASSETS: Assets = Assets {
    html: "<script type=\"application/json\" id=\"data\">/* __INTERVIEW_DATA_PLACEHOLDER__ */</script><link href=\"/styles.css?session=__SESSION_TOKEN__\">",
    css: "body { color: black }",
    js: "console.log('form')",
    blocks: "console.log('blocks')",
};

fn start(home: &TempDir) -> FormServer {
    let interview = questions::parse(&json!({
        "title": "Setup </script><b>",
        "questions": [
            {"id": "db", "type": "single", "question": "Which database?", "options": ["SQLite", "PostgreSQL"]},
            {"id": "features", "type": "multi", "question": "Which?", "options": ["auth", "search"]},
            {"id": "notes", "type": "text", "question": "Anything else?", "optional": true},
            {"id": "logo", "type": "image", "question": "A logo?", "optional": true}
        ]
    }))
    .unwrap();
    FormServer::start(interview, ASSETS, home.path().join("uploads"), 600).unwrap()
}

/// Answers to the two required questions of [`start`]'s form.
fn required_answers() -> Value {
    json!([{"id": "db", "value": "SQLite"}, {"id": "features", "value": ["auth"]}])
}

struct Answer {
    status: u16,
    headers: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// One HTTP/1.1 request with exactly the Host given, read to the end.
fn request(port: u16, method: &str, path: &str, host: &str, body: &[u8]) -> Answer {
    request_as(port, method, path, host, "", body)
}

/// A request with the session token where the page sends it.
fn request_as(port: u16, method: &str, path: &str, host: &str, token: &str, body: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nX-Marvin-Session: {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) before the whole body is sent, and close.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (headers, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = headers
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Answer {
        status,
        headers: headers.to_ascii_lowercase(),
        body: body.to_string(),
    }
}

fn get(server: &FormServer, path: &str) -> Answer {
    let host = format!("127.0.0.1:{}", server.port());
    request(server.port(), "GET", path, &host, b"")
}

/// A POST as the page sends it: a `"token"` given in `body` goes in the header instead.
fn post(server: &FormServer, path: &str, mut body: Value) -> Answer {
    let host = format!("localhost:{}", server.port());
    let token = body
        .as_object_mut()
        .and_then(|fields| fields.remove("token"))
        .and_then(|token| token.as_str().map(str::to_string))
        .unwrap_or_default();
    request_as(
        server.port(),
        "POST",
        path,
        &host,
        &token,
        body.to_string().as_bytes(),
    )
}

/// Threads of this test process named `name`.
fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm")).is_ok_and(|comm| comm.trim() == name)
        })
        .count()
}

fn is_stopped(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_err()
}

#[test]
fn the_page_and_its_files_need_the_token_and_a_loopback_host() {
    let home = TempDir::new("form-token");
    let server = start(&home);
    let token = server.token().to_string();
    assert_eq!(token.len(), 32, "128 bits as hex");
    assert!(
        server
            .url()
            .ends_with(&format!(":{}/?session={token}", server.port()))
    );

    let page = get(&server, &format!("/?session={token}"));
    assert_eq!(page.status, 200);
    assert!(
        page.headers
            .contains("content-security-policy: default-src 'none'"),
        "{}",
        page.headers
    );
    assert!(page.headers.contains("cache-control: no-store"));
    assert!(!page.headers.contains("access-control-allow-origin"));
    assert!(page.body.contains(&format!("/styles.css?session={token}")));
    // The data is inlined safely: the title cannot close the script element.
    assert!(
        page.body
            .contains("Setup \\u003c/script\\u003e\\u003cb\\u003e"),
        "{}",
        page.body
    );
    let start = page.body.find("id=\"data\">").unwrap() + 10;
    let end = page.body.find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page.body[start..end]).unwrap();
    assert_eq!(data["questions"][0]["options"][1]["label"], "PostgreSQL");
    assert_eq!(
        (data["sessionToken"].as_str(), data["timeout"].as_u64()),
        (Some(token.as_str()), Some(600))
    );

    assert_eq!(
        get(&server, &format!("/styles.css?session={token}")).body,
        ASSETS.css
    );
    let script = get(&server, &format!("/script.js?session={token}"));
    assert!(
        script
            .headers
            .contains("content-type: application/javascript")
    );
    assert_eq!(
        get(&server, &format!("/health?session={token}")).json()["state"],
        "open"
    );

    for path in [
        "/",
        "/?session=",
        "/styles.css?session=0000",
        "/health?session=x",
    ] {
        assert_eq!(get(&server, path).status, 403, "{path}");
    }
    let wrong = format!("/?session={}", "0".repeat(32));
    assert_eq!(get(&server, &wrong).status, 403);
    for host in [
        "evil.example:80",
        &format!("evil.example:{}", server.port()),
        "127.0.0.1:1",
        "",
    ] {
        let answer = request(
            server.port(),
            "GET",
            &format!("/?session={token}"),
            host,
            b"",
        );
        assert_eq!(
            (answer.status, answer.body.as_str()),
            (403, "Invalid host"),
            "{host}"
        );
    }
    assert_eq!(
        post(
            &server,
            "/submit",
            json!({"token": "nope", "responses": []})
        )
        .status,
        403
    );
    assert_eq!(post(&server, "/cancel", json!({})).status, 403);
    assert_eq!(
        get(&server, &format!("/secret?session={token}")).status,
        404
    );
    assert!(
        server.wait(Duration::ZERO).is_none(),
        "nothing reached the tool"
    );
}

#[test]
fn answers_are_checked_saved_and_handed_to_the_tool_once() {
    let home = TempDir::new("form-submit");
    let server = start(&home);
    let token = server.token().to_string();
    assert!(server.last_heartbeat().is_none());
    assert_eq!(
        post(&server, "/heartbeat", json!({"token": token})).json()["state"],
        "open"
    );
    assert!(server.last_heartbeat().is_some());

    let wrong = post(
        &server,
        "/submit",
        json!({"token": token, "responses": [{"id": "features", "value": "auth"}]}),
    );
    assert_eq!(
        (wrong.status, wrong.json()["field"].as_str()),
        (400, Some("features"))
    );
    let unknown = post(
        &server,
        "/submit",
        json!({"token": token, "responses": [{"id": "color", "value": "red"}]}),
    );
    assert_eq!(
        (unknown.status, unknown.json()["field"].as_str()),
        (400, Some("color"))
    );
    let not_an_image = post(
        &server,
        "/submit",
        json!({"token": token, "responses": required_answers(), "images": [
        {"id": "logo", "filename": "x.png", "mimeType": "image/png", "data": encode_base64(b"<svg/>")}]}),
    );
    assert_eq!(not_an_image.status, 400);
    assert!(
        not_an_image.json()["error"]
            .as_str()
            .unwrap()
            .contains("not a PNG")
    );
    let image_for_text = post(
        &server,
        "/submit",
        json!({"token": token, "responses": required_answers(), "images": [
        {"id": "notes", "filename": "x.png", "data": encode_base64(PNG)}]}),
    );
    assert_eq!(
        (
            image_for_text.status,
            image_for_text.json()["field"].as_str()
        ),
        (400, Some("notes"))
    );
    let too_many: Vec<Value> = (0..13)
        .map(|_| json!({"id": "logo", "filename": "x.png", "data": encode_base64(PNG)}))
        .collect();
    let answer = post(
        &server,
        "/submit",
        json!({"token": token, "images": too_many}),
    );
    assert_eq!(
        (answer.status, answer.json()["field"].as_str()),
        (400, Some("images"))
    );
    assert!(
        server.wait(Duration::ZERO).is_none(),
        "refused answers never reach the tool"
    );

    let ok = post(
        &server,
        "/submit",
        json!({"token": token,
        "responses": [
            {"id": "db", "value": "SQLite"},
            {"id": "features", "value": ["auth", "search"]},
            {"id": "notes", "value": "none"}],
        "images": [
            {"id": "logo", "filename": "../../logo.png", "mimeType": "image/png", "data": encode_base64(PNG)},
            {"id": "notes", "filename": "sketch.png", "data": encode_base64(PNG), "isAttachment": true}]}),
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
    let Some(FormEvent::Submitted(replies)) = server.wait(Duration::from_secs(5)) else {
        panic!("no answers reached the tool");
    };
    let logo = server.upload_dir().join("logo.png");
    assert_eq!(std::fs::read(&logo).unwrap(), PNG);
    assert_eq!(
        replies.iter().find(|r| r.id == "logo").unwrap(),
        &Reply {
            id: "logo".into(),
            value: ReplyValue::Many(vec![logo.display().to_string()]),
            attachments: vec![],
        }
    );
    let notes = replies.iter().find(|r| r.id == "notes").unwrap();
    assert_eq!(notes.value, ReplyValue::One("none".into()));
    assert!(notes.attachments[0].ends_with("/sketch.png"));

    let again = post(&server, "/submit", json!({"token": token, "responses": []}));
    assert_eq!(
        (again.status, again.json()["state"].as_str()),
        (409, Some("submitted"))
    );
    assert_eq!(
        post(&server, "/cancel", json!({"token": token})).status,
        409
    );
    assert!(server.wait(Duration::ZERO).is_none());
}

#[test]
fn an_untouched_form_sends_nothing_and_typed_image_paths_are_checked() {
    let home = TempDir::new("form-required");
    let interview = questions::parse(&json!({"questions": [
        {"id": "intro", "type": "info", "question": "Read me."},
        {"id": "db", "type": "single", "question": "Which?", "options": ["SQLite", "PostgreSQL"]},
        {"id": "name", "type": "text", "question": "Name?"},
        {"id": "logo", "type": "image", "question": "A logo?"},
        {"id": "notes", "type": "text", "question": "Notes?", "optional": true}]}))
    .unwrap();
    std::fs::write(home.path().join("logo file.png"), PNG).unwrap();
    std::fs::write(home.path().join("fake.png"), "<svg/>").unwrap();
    let setup = Setup {
        uploads: home.path().join("uploads"),
        timeout_secs: 600,
        base_dir: home.path().to_path_buf(),
        verbose: true,
        draft: Default::default(),
    };
    let server = FormServer::start_with(interview, ASSETS, setup).unwrap();
    let token = server.token().to_string();
    // Untouched: every required question is named, each for its own field.
    let untouched = post(&server, "/submit", json!({"token": token, "responses": []}));
    assert_eq!(untouched.status, 400);
    let errors = untouched.json()["errors"].clone();
    assert_eq!(
        errors,
        json!([
            {"field": "db", "message": "\"db\" needs an answer."},
            {"field": "name", "message": "\"name\" needs an answer."},
            {"field": "logo", "message": "\"logo\" needs an answer."}
        ])
    );
    assert_eq!(untouched.json()["field"], "db");
    // Blank answers are no answers.
    let blank = post(
        &server,
        "/submit",
        json!({"token": token, "responses": [{"id": "db", "value": ""},
            {"id": "name", "value": "  "}, {"id": "logo", "value": []}]}),
    );
    assert_eq!(blank.json()["errors"].as_array().unwrap().len(), 3);
    // Typed paths must name readable pictures; every bad one is said at its field.
    let answers = |logo: Value| {
        json!({"token": token, "responses": [{"id": "db", "value": "SQLite"},
            {"id": "name", "value": "ledger"}, {"id": "logo", "value": logo}]})
    };
    let bad = post(
        &server,
        "/submit",
        answers(json!(["missing.png", "fake.png"])),
    );
    assert_eq!(
        bad.json()["errors"],
        json!([
            {"field": "logo", "message": "missing.png: no such file."},
            {"field": "logo", "message": "fake.png is not a PNG, JPEG, GIF or WebP image."}
        ])
    );
    assert!(server.wait(Duration::ZERO).is_none());
    let ok = post(&server, "/submit", answers(json!("'logo file.png'")));
    assert_eq!(ok.status, 200, "{}", ok.body);
    let Some(FormEvent::Submitted(replies)) = server.wait(Duration::from_secs(5)) else {
        panic!("no answers reached the tool");
    };
    let logo = std::fs::canonicalize(home.path().join("logo file.png")).unwrap();
    assert_eq!(
        replies[2].value,
        ReplyValue::Many(vec![logo.display().to_string()])
    );
    // verbose: every request, repeats counted, never the token.
    assert_eq!(
        server.trace(),
        ["POST /submit 400 (×3)", "POST /submit 200"]
    );
}

#[test]
fn bodies_over_15_mb_are_refused() {
    let home = TempDir::new("form-limit");
    let server = start(&home);
    let mut body = b"{\"pad\":\"".to_vec();
    body.resize(MAX_BODY_BYTES + 10, b'a');
    let host = format!("127.0.0.1:{}", server.port());
    let token = server.token().to_string();
    let answer = request_as(server.port(), "POST", "/submit", &host, &token, &body);
    assert_eq!(answer.status, 413, "{}", answer.body);
    let not_an_object = request_as(server.port(), "POST", "/submit", &host, &token, b"\"x\"");
    assert_eq!(not_an_object.status, 400);
    let broken = request_as(server.port(), "POST", "/cancel", &host, &token, b"{\"x\": ");
    assert_eq!(broken.status, 400);
}

#[test]
fn a_cancel_or_an_answer_in_the_terminal_ends_the_form_once() {
    let home = TempDir::new("form-cancel");
    let server = start(&home);
    let token = server.token().to_string();
    assert_eq!(
        post(&server, "/cancel", json!({"token": token})).status,
        200
    );
    assert_eq!(
        server.wait(Duration::from_secs(5)),
        Some(FormEvent::Cancelled)
    );

    let other = start(&home);
    other.close(State::AnsweredInTerminal);
    let health = get(&other, &format!("/health?session={}", other.token()));
    assert_eq!(health.json()["state"], "answered-in-terminal");
    assert_eq!(
        health.json()["message"],
        "This interview was answered in the terminal."
    );
    let late = post(
        &other,
        "/submit",
        json!({"token": other.token(), "responses": [{"id": "db", "value": "SQLite"}]}),
    );
    assert_eq!(late.status, 409);
    assert!(other.wait(Duration::ZERO).is_none());
}

#[test]
fn every_way_out_stops_the_server_and_joins_its_thread() {
    let home = TempDir::new("form-stop");
    // Submitted, cancelled, never answered (timeout), and a panic in the tool.
    let submitted = {
        let server = start(&home);
        // The thread names itself as it starts.
        let name = format!("form-{}", server.port());
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while threads_named(&name) == 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(threads_named(&name), 1);
        post(
            &server,
            "/submit",
            json!({"token": server.token(), "responses": required_answers()}),
        );
        assert!(server.wait(Duration::from_secs(5)).is_some());
        server.port()
    };
    let cancelled = {
        let server = start(&home);
        post(&server, "/cancel", json!({"token": server.token()}));
        server.port()
    };
    let timed_out = {
        let server = start(&home);
        assert!(server.wait(Duration::from_millis(50)).is_none());
        server.port()
    };
    let port = std::sync::Mutex::new(0);
    let panicked = std::panic::catch_unwind(|| {
        let server = start(&home);
        *port.lock().unwrap() = server.port();
        panic!("a tool bug");
    });
    assert!(panicked.is_err());
    let panicked = *port.lock().unwrap();
    for port in [submitted, cancelled, timed_out, panicked] {
        assert!(is_stopped(port), "port {port} still answers");
        assert_eq!(
            threads_named(&format!("form-{port}")),
            0,
            "form-{port} still runs"
        );
    }
    // No images: the private upload directory is not left behind.
    assert!(!home.path().join("uploads").exists());
}

#[test]
fn the_built_in_page_gets_its_data_and_token() {
    let home = TempDir::new("form-page");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/form/example-questions.json"
    ))
    .unwrap();
    let interview = questions::parse(&serde_json::from_str(&text).unwrap()).unwrap();
    let server = FormServer::start(
        interview,
        marvin::interact::form::page(),
        home.path().join("uploads"),
        90,
    )
    .unwrap();
    let token = server.token().to_string();
    let page = get(&server, &format!("/?session={token}")).body;
    assert!(!page.contains("__SESSION_TOKEN__") && !page.contains("PLACEHOLDER"));
    assert!(page.contains(&format!("/script.js?session={token}")));
    assert!(page.contains(&format!("/styles.css?session={token}")));
    let start = page.find("id=\"interview-data\">").unwrap() + 20;
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end]).unwrap();
    assert_eq!(data["timeout"], 90);
    assert_eq!(data["questions"][1]["recommended"][0], "SQLite");
    let script = get(&server, &format!("/script.js?session={token}")).body;
    assert!(script.contains("interview-data") && script.contains("/heartbeat"));
}

#[test]
fn a_post_without_the_token_is_refused_before_its_body_and_a_slow_body_stalls_nothing() {
    let home = TempDir::new("form-trickle");
    let server = start(&home);
    let port = server.port();
    // A stranger announces a large body and never sends it: refused on its headers alone.
    let mut stranger = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stranger
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        stranger,
        "POST /submit HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{{"
    )
    .unwrap();
    let mut head = [0u8; 12];
    stranger.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 403");
    // The page itself trickling a body holds up neither the page nor the heartbeat.
    let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        slow,
        "POST /heartbeat HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Marvin-Session: {}\r\nContent-Length: 100000\r\n\r\n{{",
        server.token()
    )
    .unwrap();
    let health = get(&server, &format!("/health?session={}", server.token()));
    assert_eq!(health.json()["state"], "open");
    let beat = post(&server, "/heartbeat", json!({"token": server.token()}));
    assert_eq!(beat.status, 200);
    drop(slow);
}

#[test]
fn many_slow_bodies_take_a_bounded_number_of_threads() {
    let home = TempDir::new("form-many-trickles");
    let server = start(&home);
    let port = server.port();
    let trickle = |token: &str| {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            stream,
            "POST /heartbeat HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Marvin-Session: {token}\r\nContent-Length: 100000\r\n\r\n{{"
        )
        .unwrap();
        stream
    };
    // Bodies with the token: four are read at once, the next is told to come back.
    let _readers: Vec<TcpStream> = (0..4).map(|_| trickle(server.token())).collect();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while threads_named(&format!("form-{port}-body")) < 4 {
        assert!(
            std::time::Instant::now() < deadline,
            "the readers never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut fifth = trickle(server.token());
    let mut head = [0u8; 12];
    fifth.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 503");
    // Strangers are refused by one draining thread, which they can only keep busy themselves.
    let mut strangers: Vec<TcpStream> = (0..3).map(|_| trickle("nope")).collect();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let refused = 'wait: loop {
        for stranger in &mut strangers {
            stranger
                .set_read_timeout(Some(Duration::from_millis(50)))
                .unwrap();
            if stranger.read_exact(&mut head).is_ok() {
                break 'wait head;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no stranger was refused"
        );
    };
    assert_eq!(&refused, b"HTTP/1.1 403");
    assert_eq!(threads_named(&format!("form-{port}-body")), 4);
    assert_eq!(threads_named(&format!("form-{port}-sink")), 1);
    let health = get(&server, &format!("/health?session={}", server.token()));
    assert_eq!(health.json()["state"], "open");
}

#[test]
fn a_page_of_another_origin_is_refused_even_with_the_token() {
    let home = TempDir::new("form-origin");
    let server = start(&home);
    let port = server.port();
    let send = |origin: &str| {
        crate::common::http_exchange(
            port,
            &format!(
                "POST /heartbeat HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: {origin}\r\nX-Marvin-Session: {}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}",
                server.token()
            ),
        )
    };
    let foreign = send("http://evil.example");
    assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
    assert!(foreign.ends_with("Invalid origin"), "{foreign}");
    let own = send(&format!("http://127.0.0.1:{port}"));
    assert!(own.starts_with("HTTP/1.1 200"), "{own}");
}
