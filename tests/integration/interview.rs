//! The `interview` tool through the real binary under a pseudo-terminal: the address and the
//! ssh hint shown, answers posted as the page posts them reaching the model, cancel, timeout,
//! Ctrl+C, a questions file, a bad file, and no UI.

use std::net::TcpStream;
use std::time::Duration;

use crate::common::pty::Pty;
use crate::common::{ReplayServer, Reply, TempDir, http_exchange, marvin, status_of, stdout};
use serde_json::{Value, json};

pub(crate) fn start(home: &TempDir, server: &ReplayServer, env: &[(&str, &str)]) -> Pty {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        // Every tool is offered (`--tools all`): these tests are of the form, not of which tools a request offers.
        .env("MARVIN_TOOLS", "all")
        .env("TERM", "xterm");
    for (key, value) in env {
        command.env(key, value);
    }
    Pty::spawn(command)
}

pub(crate) fn interview_call(arguments: Value) -> Reply {
    Reply::tool_calls(&[("i1", "interview", &arguments.to_string())])
}

pub(crate) fn questions() -> Value {
    json!({
        "title": "Project setup",
        "questions": [
            {"id": "db", "type": "single", "question": "Which database?", "options": ["SQLite", "PostgreSQL"]},
            {"id": "name", "type": "text", "question": "Name?"}
        ]
    })
}

/// A form of [`questions`] open, asked for with "set up the project" and no browser: the
/// model's server, the terminal, and the form's port and token.
pub(crate) fn open_form(home: &TempDir) -> (ReplayServer, Pty, u16, String) {
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": questions()})),
        Reply::text(&["PostgreSQL it is."]),
    ]);
    let mut pty = start(home, &server, &[("MARVIN_NO_BROWSER", "1")]);
    pty.wait_for("› ");
    pty.send("set up the project\r");
    let (port, token) = address(&pty, 1);
    (server, pty, port, token)
}

/// Answers the form of [`open_form`] as its page does, and waits for the model's answer.
pub(crate) fn answer_form(pty: &Pty, port: u16, token: &str) {
    let answers = json!({"token": token, "responses": [
        {"id": "db", "value": "PostgreSQL"}, {"id": "name", "value": "ledger"}]});
    assert_eq!(post(port, "/submit", answers), 200);
    pty.wait_for("PostgreSQL it is.");
}

/// The address of the `nth` form shown on the terminal: (port, token).
pub(crate) fn address(pty: &Pty, nth: usize) -> (u16, String) {
    pty.wait_for_nth("/?session=", nth);
    let screen = pty.screen();
    let start = screen.rfind("http://127.0.0.1:").unwrap() + "http://127.0.0.1:".len();
    let rest = &screen[start..];
    let port: u16 = rest[..rest.find('/').unwrap()].parse().unwrap();
    let token_at = rest.find("?session=").unwrap() + "?session=".len();
    let token: String = rest[token_at..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    assert_eq!(token.len(), 32, "{screen}");
    (port, token)
}

/// A POST as the page sends it: the `"token"` of `body` goes in the session header; the
/// status code.
pub(crate) fn post(port: u16, path: &str, body: Value) -> u16 {
    status_of(&post_answer(port, path, body))
}

/// [`post`], the whole answer.
pub(crate) fn post_answer(port: u16, path: &str, mut body: Value) -> String {
    let token = body
        .as_object_mut()
        .and_then(|fields| fields.remove("token"))
        .and_then(|token| token.as_str().map(str::to_string))
        .unwrap_or_default();
    let body = body.to_string();
    http_exchange(
        port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Marvin-Session: {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

#[test]
fn answers_from_the_form_reach_the_model() {
    let home = TempDir::new("interview-answers");
    let mut asked = questions();
    asked["description"] = json!("Two choices before I start.");
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": asked})),
        Reply::text(&["PostgreSQL it is."]),
    ]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("set up the project\r");
    pty.wait_for("Project setup");
    let (port, token) = address(&pty, 1);
    // No display in the test environment: the address is shown with the reason.
    pty.wait_for("Not opening a browser because there is no display here");
    let answers = json!({"token": token, "responses": [
        {"id": "db", "value": "PostgreSQL"}, {"id": "name", "value": "ledger"}]});
    assert_eq!(post(port, "/submit", answers), 200);
    pty.wait_for("PostgreSQL it is.");
    // The same questions were offered in the terminal, under the form's description; the
    // browser answered first, and what it answered is shown here too.
    let screen = pty.screen();
    assert!(screen.contains("Two choices before I start."), "{screen}");
    assert!(screen.contains("(answered in the browser)"), "{screen}");
    assert!(
        screen.contains("answered in the browser: db: PostgreSQL; name: ledger"),
        "{screen}"
    );
    assert!(pty.leave().success());
    let result = server.requests()[1].last_tool_result();
    assert!(
        result.starts_with(
            "User completed the interview form.\n\nResponses:\n- db: PostgreSQL\n- name: ledger"
        ),
        "{result}"
    );
    assert!(result.contains(r#""status":"completed""#), "{result}");
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the form's server stops with the tool"
    );
    // The session token lives only in the page's address on screen: no file keeps it.
    let log = std::fs::read_to_string(
        home.path()
            .join("marvin-home/profiles/default/chat_log.jsonl"),
    )
    .unwrap();
    // The chat log keeps the questions and the browser's answers, readable, never the
    // address.
    let texts: Vec<String> = log
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for expected in [
        "interview \"Project setup\" asked: db (single: SQLite | PostgreSQL) Which database?; name (text) Name?",
        "interview answered in the browser: db: PostgreSQL; name: ledger",
    ] {
        assert!(texts.iter().any(|t| t == expected), "{expected}\n{log}");
    }
    assert!(!log.contains("127.0.0.1"), "{log}");
    assert!(result.contains(r#""answered_in":"browser""#), "{result}");
    assert_eq!(files_containing(home.path(), &token), Vec::<String>::new());
}

/// Files under `dir` whose bytes contain `needle`.
fn files_containing(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            found.extend(files_containing(&path, needle));
        } else if std::fs::read(&path)
            .unwrap()
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
        {
            found.push(path.display().to_string());
        }
    }
    found
}

#[test]
fn over_ssh_the_tunnel_line_is_shown_and_a_cancel_reaches_the_model() {
    let home = TempDir::new("interview-ssh");
    std::fs::write(home.path().join("questions.json"), questions().to_string()).unwrap();
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": "questions.json"})),
        Reply::text(&["Cancelled, fine."]),
    ]);
    let mut pty = start(
        &home,
        &server,
        &[
            ("DISPLAY", ":0"),
            ("SSH_CONNECTION", "203.0.113.9 52100 198.51.100.7 22"),
            ("USER", "ada"),
        ],
    );
    pty.wait_for("› ");
    pty.send("ask me\r");
    let (port, token) = address(&pty, 1);
    pty.wait_for(&format!("ssh -L {port}:127.0.0.1:{port} ada@198.51.100.7"));
    assert_eq!(post(port, "/cancel", json!({"token": token})), 200);
    pty.wait_for("Cancelled, fine.");
    assert!(pty.leave().success());
    assert!(
        server.requests()[1]
            .last_tool_result()
            .starts_with("User cancelled the interview form.")
    );
}

#[test]
fn an_unanswered_form_times_out_and_ctrl_c_stops_the_wait() {
    let home = TempDir::new("interview-timeout");
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": questions(), "timeout": 1})),
        Reply::text(&["No answer, moving on."]),
        interview_call(json!({"questions": questions()})),
    ]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("first\r");
    pty.wait_for("No answer, moving on.");
    assert!(
        server.requests()[1]
            .last_tool_result()
            .starts_with("Interview form timed out after 1 seconds.")
    );
    pty.wait_for_nth("› ", 2);
    pty.send("second\r");
    let (port, _) = address(&pty, 2);
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    pty.wait_for_nth("› ", 3);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    assert!(pty.leave().success());
}

#[test]
fn bad_questions_and_no_ui_are_told_to_the_model() {
    let home = TempDir::new("interview-errors");
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": {"questions": [
            {"id": "db", "type": "single", "question": "Which?"}]}})),
        interview_call(json!({"questions": "missing.json"})),
        Reply::text(&["I will ask differently."]),
    ]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("go\r");
    pty.wait_for("I will ask differently.");
    assert!(pty.leave().success());
    let first = server.requests()[1].last_tool_result();
    assert!(
        first.contains("Question \"db\": options: required for type \"single\""),
        "{first}"
    );
    let second = server.requests()[2].last_tool_result();
    assert!(
        second.contains("Cannot read the questions file 'missing.json'"),
        "{second}"
    );

    // Nobody can answer a --non-interactive run: even with every tool offered the interview
    // is not, and a call of it all the same is told why.
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": questions()})).made_up(),
        Reply::text(&["Then in plain text."]),
    ]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        // Every tool is offered (`--tools all`): these tests are of the form, not of which tools a request offers.
        .env("MARVIN_TOOLS", "all")
        .args(["--non-interactive", "--prompt", "ask me"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&output).trim_end().lines().last(),
        Some("Then in plain text.")
    );
    let offered = server.requests()[0].body["tools"].to_string();
    assert!(!offered.contains("\"interview\""), "{offered}");
    assert!(
        server.requests()[1]
            .last_tool_result()
            .contains("Interview tool requires interactive mode.")
    );
}

#[test]
fn without_a_browser_the_questions_can_be_answered_in_the_terminal() {
    let home = TempDir::new("interview-terminal");
    // A 1×1 PNG, and a text file that only claims to be one.
    std::fs::write(home.path().join("logo.png"), PNG).unwrap();
    std::fs::write(home.path().join("fake.png"), "<svg/>").unwrap();
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": {"title": "Setup", "questions": [
            {"id": "intro", "type": "info", "question": "Two quick ones."},
            {"id": "db", "type": "single", "question": "Which database?",
             "options": ["SQLite", "PostgreSQL"], "recommended": "SQLite"},
            {"id": "extras", "type": "multi", "question": "Extras?", "options": ["auth", "search"]},
            {"id": "name", "type": "text", "question": "Name?"},
            {"id": "logo", "type": "image", "question": "Logo?"},
            {"id": "notes", "type": "text", "question": "Notes?", "optional": true},
            {"id": "color", "type": "single", "question": "Colour?", "options": ["red", "blue"],
             "optional": true}]}})),
        Reply::text(&["Got it."]),
    ]);
    let mut pty = start(&home, &server, &[("MARVIN_NO_BROWSER", "1")]);
    pty.wait_for("› ");
    pty.send("set it up\r");
    pty.wait_for("Not opening a browser because MARVIN_NO_BROWSER is set.");
    pty.wait_for("Or answer here");
    pty.wait_for("recommended");
    pty.send("2\r");
    pty.wait_for("✓ db: PostgreSQL");
    pty.wait_for("search");
    pty.send(" ");
    pty.send("\x1b[B \r");
    pty.wait_for("✓ extras: auth, search");
    pty.wait_for("Your answer: ");
    // A required question is asked again until it is answered.
    pty.send("\r");
    pty.wait_for("This question needs an answer.");
    pty.send("ledger\r");
    pty.wait_for("Path of an image file: ");
    // A typed path must name a readable picture.
    pty.send("missing.png\r");
    pty.wait_for("missing.png: no such file.");
    pty.send("fake.png\r");
    pty.wait_for("fake.png is not a PNG, JPEG, GIF or WebP image.");
    pty.send("logo.png\r");
    pty.wait_for("Your answer (Enter to skip): ");
    pty.send("\r");
    pty.wait_for("✓ notes: (skipped)");
    // An optional choice offers Skip after Other.
    pty.wait_for("leave this one unanswered");
    pty.send("4\r");
    pty.wait_for("✓ color: (skipped)");
    pty.wait_for("Got it.");
    assert!(pty.leave().success());
    let result = server.requests()[1].last_tool_result();
    let logo = std::fs::canonicalize(home.path().join("logo.png")).unwrap();
    assert!(
        result.starts_with(&format!("User completed the interview form.\n\nResponses:\n- db: PostgreSQL\n- extras: auth, search\n- name: ledger\n- logo: image files: {}\n- notes: (skipped)\n- color: (skipped)\n\n", logo.display())),
        "{result}"
    );
}

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0,
    1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89,
];

/// An executable shell script `name` in `dir`, for BROWSER to name.
fn browser_script(dir: &std::path::Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

#[test]
fn the_browser_named_by_browser_gets_the_form_without_the_keys() {
    let home = TempDir::new("interview-browser-var");
    let opened = home.path().join("opened");
    let browser = browser_script(
        home.path(),
        "mybrowser",
        &format!(
            "printf '%s %s\\n' \"$1\" \"${{OPENAI_COMPAT_API_KEY-no key}}\" > {}",
            opened.display()
        ),
    );
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": questions()})),
        Reply::text(&["SQLite then."]),
    ]);
    // No DISPLAY: BROWSER alone says a browser can be started here.
    let mut pty = start(
        &home,
        &server,
        &[
            ("BROWSER", &format!("{browser} %s")),
            ("OPENAI_COMPAT_API_KEY", "sk-do-not-pass"),
        ],
    );
    pty.wait_for("› ");
    pty.send("set up the project\r");
    pty.wait_for("Project setup");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let line = loop {
        match std::fs::read_to_string(&opened) {
            Ok(line) if line.ends_with('\n') => break line,
            _ if std::time::Instant::now() > deadline => panic!("{}", pty.screen()),
            _ => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    let (url, key) = line.trim_end().split_once(' ').unwrap();
    assert_eq!(key, "no key");
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let port: u16 = rest[..rest.find('/').unwrap()].parse().unwrap();
    let token = &rest[rest.find("?session=").unwrap() + "?session=".len()..];
    let answers = json!({"token": token, "responses": [
        {"id": "db", "value": "SQLite"}, {"id": "name", "value": "ledger"}]});
    assert_eq!(post(port, "/submit", answers), 200);
    pty.wait_for("SQLite then.");
    // Opened: no reason, and the questions were not asked in the terminal as well.
    let screen = pty.screen();
    assert!(!screen.contains("Not opening a browser"), "{screen}");
    assert!(!screen.contains("Or answer here"), "{screen}");
    assert!(pty.leave().success());
}

#[test]
fn when_the_browser_fails_to_open_the_questions_are_asked_in_the_terminal() {
    let home = TempDir::new("interview-browser-fails");
    let bin = home.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let browser = browser_script(&bin, "brokenbrowser", "exit 1");
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": {"title": "Setup", "questions": [
            {"id": "name", "type": "text", "question": "Name?"}]}})),
        Reply::text(&["Noted."]),
    ]);
    // Only the broken browser on PATH, so no real opener is tried after it.
    let mut pty = start(
        &home,
        &server,
        &[
            ("DISPLAY", ":0"),
            ("BROWSER", &browser),
            ("PATH", &bin.display().to_string()),
        ],
    );
    pty.wait_for("› ");
    pty.send("set it up\r");
    pty.wait_for("The browser could not be opened:");
    pty.wait_for("brokenbrowser exited with status 1.");
    pty.wait_for("Your answer: ");
    pty.send("ledger\r");
    pty.wait_for("Noted.");
    assert!(pty.leave().success());
    let result = server.requests()[1].last_tool_result();
    assert!(
        result.starts_with("User completed the interview form.\n\nResponses:\n- name: ledger"),
        "{result}"
    );
}

#[test]
fn a_questions_file_a_model_wrote_loosely_is_repaired_and_the_repair_is_said() {
    let home = TempDir::new("interview-repair");
    let written = "```json\n{\n  // what to build\n  \"title\": \"Setup\",\n  \"questions\": [\n    {\"id\": \"db\", \"type\": \"single\", \"question\": \"Which?\",\n     \"options\": [{\"label\": \"SQLite\", \"recommended\": true}, \"PostgreSQL\",],\n     \"codeBlock\": {\"code\": \"let db = open();\", \"lang\": \"rust\"}},\n  ],\n}\n```\n";
    std::fs::write(home.path().join("questions.json"), written).unwrap();
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": "questions.json"})),
        Reply::text(&["Understood."]),
    ]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("ask me\r");
    let (port, token) = address(&pty, 1);
    assert_eq!(post(port, "/cancel", json!({"token": token})), 200);
    pty.wait_for("Understood.");
    assert!(pty.leave().success());
    let result = server.requests()[1].last_tool_result();
    assert!(
        result.ends_with("\n\nNotes on the questions:\n- The questions were not valid JSON as written; Marvin removed the Markdown code fence around the JSON, removed a comment, removed 3 trailing commas before reading them.\n- Question \"db\": the legacy \"codeBlock\" was read as \"content\" (its \"code\" as \"source\"); write \"content\" next time."),
        "{result}"
    );
}

#[test]
fn a_questions_file_outside_the_working_directory_is_read_after_approval_and_verbose_lists_requests()
 {
    let home = TempDir::new("interview-absolute");
    let elsewhere = TempDir::new("interview-absolute-elsewhere");
    let file = elsewhere.path().join("questions.json");
    std::fs::write(&file, questions().to_string()).unwrap();
    let file = std::fs::canonicalize(&file).unwrap().display().to_string();
    let inside = home.path().join("inside.json");
    std::fs::write(&inside, questions().to_string()).unwrap();
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": file, "verbose": true})),
        Reply::text(&["Fine."]),
        interview_call(json!({"questions": inside.display().to_string()})),
        Reply::text(&["Again."]),
    ]);
    let mut pty = start(&home, &server, &[]);
    pty.wait_for("› ");
    pty.send("ask me\r");
    // The approval names the file, read only.
    pty.wait_for_words("working directory (read only, to show them in the form):");
    pty.wait_for(&file);
    pty.wait_for("Yes, once");
    pty.send("\r");
    let (port, token) = address(&pty, 1);
    assert_eq!(post(port, "/cancel", json!({"token": token})), 200);
    pty.wait_for("Fine.");
    let result = server.requests()[1].last_tool_result();
    assert!(
        result.starts_with("User cancelled the interview form."),
        "{result}"
    );
    assert!(
        result.ends_with("\n\nThe form's requests (verbose):\n- POST /cancel 200"),
        "{result}"
    );
    assert!(!result.contains(&token), "{result}");
    // An absolute path inside the working directory needs no approval.
    pty.wait_for_nth("› ", 2);
    pty.send("again\r");
    let (port, token) = address(&pty, 2);
    assert_eq!(post(port, "/cancel", json!({"token": token})), 200);
    pty.wait_for("Again.");
    assert_eq!(pty.screen().matches("Yes, once").count(), 1);
    assert!(pty.leave().success());
}

/// A GET of the page as a browser sends it; the body.
pub(crate) fn get_page(port: u16, token: &str) -> String {
    http_exchange(
        port,
        &format!(
            "GET /?session={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        ),
    )
}

#[test]
fn the_terminal_continues_from_the_pages_draft_and_the_page_from_the_terminals() {
    let home = TempDir::new("interview-draft");
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": {"questions": [
            {"id": "first", "type": "text", "question": "First?"},
            {"id": "db", "type": "single", "question": "Which database?",
             "options": ["SQLite", "PostgreSQL"], "recommended": "SQLite"},
            {"id": "name", "type": "text", "question": "Name?"}]}})),
        Reply::text(&["Got it."]),
    ]);
    let mut pty = start(&home, &server, &[("MARVIN_NO_BROWSER", "1")]);
    pty.wait_for("› ");
    pty.send("set it up\r");
    let (port, token) = address(&pty, 1);
    pty.wait_for("Your answer: ");
    // The page typed some answers and went away.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let draft = json!({"token": token, "at": now, "answers": {
        "db": {"picks": [], "other": "MariaDB"}, "name": {"text": "ledger"}}});
    assert_eq!(post(port, "/draft", draft), 200);
    pty.send("hello\r");
    pty.wait_for("✓ first: hello");
    // The page opened again starts from the terminal's answer too.
    let page = get_page(port, &token);
    assert!(page.contains(r#""first":{"text":"hello"}"#), "{page}");
    assert!(page.contains(r#""other":"MariaDB""#), "{page}");
    // The chooser starts on Other, the draft's text kept with Enter.
    pty.wait_for("Enter chooses");
    pty.send("\r");
    pty.wait_for("From the draft: MariaDB");
    pty.send("\r");
    pty.wait_for("✓ db: MariaDB");
    pty.wait_for("From the draft: ledger");
    pty.send("\r");
    pty.wait_for("Got it.");
    assert!(pty.leave().success());
    let result = server.requests()[1].last_tool_result();
    assert!(
        result.starts_with("User completed the interview form.\n\nResponses:\n- first: hello\n- db: Other: \"MariaDB\"\n- name: ledger\n\n"),
        "{result}"
    );
    assert!(result.contains(r#""db":{"other":"MariaDB"}"#), "{result}");
}

/// The time left that Marvin put in a served page (`remainingMs`).
fn remaining_ms(page: &str) -> u64 {
    let start = page.find("id=\"interview-data\">").unwrap() + 20;
    let data: Value =
        serde_json::from_str(&page[start..][..page[start..].find("</script>").unwrap()]).unwrap();
    data["remainingMs"]
        .as_u64()
        .expect("the page says how long is left")
}

#[test]
fn a_page_opened_late_counts_down_from_what_is_left() {
    use crate::common::webdriver::Browser;
    use std::time::Instant;
    let Some(browser) = Browser::start(1280, 900) else {
        return;
    };
    let home = TempDir::new("interview-late");
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": questions(), "timeout": 60})),
        Reply::text(&["Fine."]),
    ]);
    let mut pty = start(&home, &server, &[("MARVIN_NO_BROWSER", "1")]);
    pty.wait_for("› ");
    pty.send("set it up\r");
    let (port, token) = address(&pty, 1);
    // Someone reaches the address late (through the ssh tunnel): Marvin has already waited
    // a few seconds of its minute, and the page says what is really left.
    let patience = Instant::now() + Duration::from_secs(20);
    while remaining_ms(&get_page(port, &token)) > 55_000 {
        assert!(Instant::now() < patience, "the form's time never ran");
        std::thread::sleep(Duration::from_millis(100));
    }
    browser.open(&format!("http://127.0.0.1:{port}/?session={token}"));
    browser.wait_until(
        "return !document.getElementById('countdown').hidden",
        "the countdown shows",
    );
    let shown = browser.text("#countdown .countdown-value");
    let (minutes, seconds) = shown.split_once(':').unwrap();
    let left = minutes.parse::<u64>().unwrap() * 60 + seconds.parse::<u64>().unwrap();
    assert!((30..=55).contains(&left), "{shown}");
    assert_eq!(
        post(
            port,
            "/submit",
            json!({"token": token, "responses": [{"id": "db", "value": "SQLite"}, {"id": "name", "value": "ledger"}]})
        ),
        200
    );
    pty.wait_for("Fine.");
    assert!(pty.leave().success());
}

#[test]
fn a_fresh_form_shows_its_top_below_the_header_on_a_desktop_and_a_phone() {
    use crate::common::webdriver::Browser;
    let long = "Marvin found three ways to set up the service. Each is described below with what it costs and what it changes; read them before choosing. ".repeat(3);
    let server = ReplayServer::start(vec![
        interview_call(json!({"questions": {"title": "Setting up the service",
            "description": "A few choices before Marvin starts.",
            "questions": [
                {"id": "intro", "type": "info", "question": long},
                {"id": "plan", "type": "single", "question": "Which plan?",
                 "context": "The plan decides how the service is deployed and backed up.",
                 "options": [
                    {"label": "Small", "description": "One machine, nightly backups, no replicas."},
                    {"label": "Medium", "description": "Two machines behind a balancer, hourly backups."},
                    {"label": "Large", "description": "A cluster of five with continuous backups."},
                    {"label": "Custom", "description": "Tell Marvin what you need in the next step."}],
                 "recommended": "Custom"},
                {"id": "name", "type": "text", "question": "Name?"}]}})),
        Reply::text(&["Fine."]),
    ]);
    let home = TempDir::new("interview-top");
    let mut pty = start(&home, &server, &[("MARVIN_NO_BROWSER", "1")]);
    pty.wait_for("› ");
    pty.send("set it up\r");
    let (port, token) = address(&pty, 1);
    for (width, height) in [(1280, 720), (390, 844)] {
        let Some(browser) = Browser::start(width, height) else {
            return;
        };
        browser.open(&format!("http://127.0.0.1:{port}/?session={token}"));
        // Ready for the keyboard: the first question has the focus…
        browser.wait_until(
            "return document.activeElement.closest('#q-plan') !== null",
            "the first question has the focus",
        );
        // …and the info block and the question are in view, below the sticky header.
        let at = browser.script(
            "const header = document.querySelector('header.top').getBoundingClientRect().bottom;
             const top = (id) => document.getElementById(id).getBoundingClientRect().top;
             return {header, intro: top('q-intro'), plan: top('q-plan'), height: innerHeight};",
            json!([]),
        );
        let number = |name: &str| at[name].as_f64().unwrap();
        assert!(
            number("intro") >= number("header") && number("plan") >= number("header"),
            "{width} px: {at}"
        );
        assert!(number("plan") < number("height"), "{width} px: {at}");
    }
    assert_eq!(
        post(
            port,
            "/submit",
            json!({"token": token, "responses": [{"id": "plan", "value": "Small"}, {"id": "name", "value": "ledger"}]})
        ),
        200
    );
    pty.wait_for("Fine.");
    assert!(pty.leave().success());
}
