//! `marvin --attach URL`: the terminal as one more client of a session `marvin serve` serves.
//! It shows the session's events as they come (printed above the prompt, which stays usable),
//! sends what is typed as messages, and answers the same questions the browsers see:
//! `/answer ID 2` (an option's number, a label or your own words; `;` between the answers of
//! several questions), `/approve ID [once|session|always]`, `/deny ID [what instead]`. The first
//! answer from any client counts; a late one is told so.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rustyline::ExternalPrinter;
use rustyline::error::ReadlineError;
use serde_json::{Value, json};

use super::sanitize::sanitize;

/// Where the served session is: the gateway's address, its token, the session.
#[derive(Debug, PartialEq)]
pub(crate) struct Target {
    pub host: String,
    pub token: String,
    pub session: Option<String>,
}

impl Target {
    /// `http://HOST:PORT/?token=TOKEN`, with the session as `&session=ID` or `#ID`.
    pub(crate) fn parse(url: &str) -> Result<Target, String> {
        let wrong = || {
            format!(
                "--attach takes the address marvin serve printed, e.g. http://127.0.0.1:8765/?token=…#SESSION, not {url:?}"
            )
        };
        let rest = url.trim().strip_prefix("http://").ok_or_else(wrong)?;
        let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
        let (host, query) = rest.split_once("/?").ok_or_else(wrong)?;
        let param = |name: &str| {
            query
                .split('&')
                .filter_map(|pair| pair.split_once('='))
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        };
        let token = param("token").filter(|t| !t.is_empty()).ok_or_else(wrong)?;
        let session = param("session").or((!fragment.is_empty()).then(|| fragment.to_string()));
        if host.is_empty() || host.contains('/') {
            return Err(wrong());
        }
        Ok(Target {
            host: host.to_string(),
            token,
            session,
        })
    }

    /// One request; its status and JSON body.
    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Value), String> {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut stream = self.connect()?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.host,
            self.token,
            body.len()
        )
        .map_err(|e| format!("cannot reach the gateway at {}: {e}", self.host))?;
        let mut reply = String::new();
        stream
            .read_to_string(&mut reply)
            .map_err(|e| format!("the gateway at {} did not answer: {e}", self.host))?;
        let status = reply
            .get(9..12)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("the gateway at {} answered oddly", self.host))?;
        let json = reply
            .split_once("\r\n\r\n")
            .and_then(|(_, body)| serde_json::from_str(body).ok())
            .unwrap_or(Value::Null);
        Ok((status, json))
    }

    fn connect(&self) -> Result<TcpStream, String> {
        let stream = TcpStream::connect(&self.host)
            .map_err(|e| format!("cannot reach the gateway at {}: {e}", self.host))?;
        let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
        Ok(stream)
    }
}

/// The questions shown, by id: what to map an option's number to.
type Open = Arc<Mutex<HashMap<String, Value>>>;

/// Attaches the terminal until Ctrl+D or `quit`.
pub(crate) fn run(url: &str) -> Result<(), String> {
    let target = Arc::new(Target::parse(url)?);
    let session = match &target.session {
        Some(id) => id.clone(),
        None => only_served(&target)?,
    };
    let mut editor = rustyline::DefaultEditor::new().map_err(|e| format!("the prompt: {e}"))?;
    let printer = editor
        .create_external_printer()
        .map_err(|e| format!("the prompt: {e}"))?;
    let open: Open = Arc::default();
    let events = events(&target, &session)?;
    let shown = Arc::clone(&open);
    std::thread::Builder::new()
        .name("attach-events".into())
        .spawn(move || show_events(events, printer, &shown))
        .map_err(|e| format!("cannot follow the session: {e}"))?;
    println!(
        "Attached to session {session}: type to send, /answer ID N, /approve ID, /deny ID, Ctrl+D leaves."
    );
    loop {
        let line = match editor.readline("attached› ") {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(_) => return Ok(()),
        };
        let line = line.trim();
        if line == "quit" || line == "exit" {
            return Ok(());
        }
        if !line.is_empty() {
            let _ = editor.add_history_entry(line);
            println!("{}", act(&target, &session, line, &open));
        }
    }
}

/// The one session served now, or why there is not exactly one.
fn only_served(target: &Target) -> Result<String, String> {
    let (_, listed) = target.call("GET", "/api/sessions", None)?;
    let served: Vec<String> = listed["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["served"] == true)
        .filter_map(|s| s["id"].as_str().map(str::to_string))
        .collect();
    match served.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err("no session is served there yet: open one in the page first".into()),
        many => Err(format!(
            "several sessions are served ({}): add #ID to the address",
            many.join(", ")
        )),
    }
}

/// The session's event stream, its headers read.
fn events(target: &Target, session: &str) -> Result<BufReader<TcpStream>, String> {
    let mut stream = target.connect()?;
    let client = format!("terminal-{}", std::process::id());
    write!(
        stream,
        "GET /api/sessions/{session}/events?since=0&client={client} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\r\n",
        target.host, target.token
    )
    .map_err(|e| format!("cannot follow the session: {e}"))?;
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader
        .read_line(&mut status)
        .map_err(|e| format!("cannot follow the session: {e}"))?;
    if !status.contains(" 200 ") {
        return Err(format!(
            "the gateway refused to show session {session}: {}",
            status.trim()
        ));
    }
    Ok(reader)
}

/// Prints each event above the prompt; text is printed a line at a time.
fn show_events(events: BufReader<TcpStream>, mut printer: impl ExternalPrinter, open: &Open) {
    let mut text = String::new();
    for line in events.lines() {
        let Ok(line) = line else { break };
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        let Ok(event) = serde_json::from_str::<Value>(data) else {
            continue;
        };
        let shown = render(&event, &mut text, open);
        if !shown.is_empty() {
            let _ = printer.print(shown);
        }
    }
    let _ = printer.print("The gateway closed the session's stream.".into());
}

/// What an event shows; text deltas are held until a line is whole.
fn render(event: &Value, text: &mut String, open: &Open) -> String {
    let field = |key: &str| sanitize(event[key].as_str().unwrap_or("")).into_owned();
    match event["type"].as_str().unwrap_or("") {
        "text_delta" => {
            text.push_str(&field("text"));
            match text.rfind('\n') {
                Some(end) => text
                    .drain(..=end)
                    .collect::<String>()
                    .trim_end()
                    .to_string(),
                None => String::new(),
            }
        }
        "user_message" => format!("› {}", field("content")),
        "tool_call_start" => {
            let names: Vec<&str> = event["calls"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["name"].as_str())
                .collect();
            format!("  … {}", names.join(", "))
        }
        "tool_result" => {
            let mark = if event["is_error"] == true {
                "✗"
            } else {
                "✓"
            };
            format!("  {mark} {}", field("name"))
        }
        "question_prompt" => {
            let id = field("toolCallId");
            open.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(id.clone(), event["questions"].clone());
            question_text(&id, &event["questions"])
        }
        "approval_required" => format!(
            "[{}] {}\n{}\n  /approve {id} [once|session|always] or /deny {id} WHAT INSTEAD",
            field("tool"),
            field("summary"),
            field("detail"),
            id = field("toolCallId")
        ),
        "interaction_response" => {
            format!("  (question {} is over: {})", event["id"], field("outcome"))
        }
        "done" => std::mem::take(text),
        "error" => format!("{}\n  error: {}", std::mem::take(text), field("message")),
        "notice" => format!("  {}", field("message")),
        _ => String::new(),
    }
}

fn question_text(id: &str, questions: &Value) -> String {
    let mut lines = Vec::new();
    for question in questions.as_array().into_iter().flatten() {
        let text = |key: &str| sanitize(question[key].as_str().unwrap_or("")).into_owned();
        lines.push(format!("[{}] {}", text("header"), text("question")));
        for (n, option) in question["options"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let label = sanitize(option["label"].as_str().unwrap_or("")).into_owned();
            lines.push(format!("  {}. {label}", n + 1));
        }
    }
    lines.push(format!(
        "  /answer {id} N (a number, a label or your own words; ; between several answers)"
    ));
    lines.join("\n")
}

/// Carries out a typed line; what to say.
fn act(target: &Target, session: &str, line: &str, open: &Open) -> String {
    let words: Vec<&str> = line.splitn(3, ' ').collect();
    let path = |action: &str| format!("/api/sessions/{session}/{action}");
    let (action, body) = match words.as_slice() {
        ["/answer", id, answer] => match answers(open, id, answer) {
            Ok(answers) => (
                "submit-answers",
                json!({"toolCallId": id, "answers": answers}),
            ),
            Err(why) => return why,
        },
        ["/approve", id] => ("approve", json!({"toolCallId": id, "scope": "once"})),
        ["/approve", id, scope] => ("approve", json!({"toolCallId": id, "scope": scope.trim()})),
        ["/deny", id] => ("deny", json!({"toolCallId": id, "reason": ""})),
        ["/deny", id, reason] => ("deny", json!({"toolCallId": id, "reason": reason})),
        ["/cancel"] => ("cancel", json!({})),
        [command, ..] if command.starts_with('/') => {
            return "Commands: /answer ID N, /approve ID [once|session|always], /deny ID [why], /cancel; quit leaves.".into();
        }
        _ => ("messages", json!({ "content": line })),
    };
    match target.call("POST", &path(action), Some(&body)) {
        Ok((200 | 202, _)) => String::new(),
        Ok((409, _)) if action == "messages" => {
            "A turn is under way: wait for it to end, or /cancel it.".into()
        }
        Ok((409, _)) => "That question was answered already (elsewhere, perhaps).".into(),
        Ok((_, reply)) => format!(
            "Not taken: {}",
            reply["error"].as_str().unwrap_or("the gateway refused it")
        ),
        Err(why) => why,
    }
}

/// `/answer ID …`: each question's answer (`;` between them), an option's number standing for
/// its label; keyed by the question's text as the API wants it.
fn answers(open: &Open, id: &str, typed: &str) -> Result<Value, String> {
    let open = open.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(questions) = open.get(id).and_then(Value::as_array) else {
        return Err(format!("No question {id} is shown here."));
    };
    let given: Vec<&str> = typed.split(';').map(str::trim).collect();
    if given.len() != questions.len() {
        return Err(format!(
            "{} questions, {} answers: put ; between them",
            questions.len(),
            given.len()
        ));
    }
    let mut answers = serde_json::Map::new();
    for (question, answer) in questions.iter().zip(given) {
        let options = question["options"].as_array().cloned().unwrap_or_default();
        let label = |word: &str| match word.parse::<usize>() {
            Ok(n) if (1..=options.len()).contains(&n) => {
                options[n - 1]["label"].as_str().unwrap_or(word).to_string()
            }
            _ => word.to_string(),
        };
        let chosen: Vec<String> = answer.split(',').map(|w| label(w.trim())).collect();
        let text = question["question"].as_str().unwrap_or("").to_string();
        answers.insert(text, json!(chosen.join(", ")));
    }
    Ok(Value::Object(answers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_names_the_gateway_the_token_and_the_session() {
        assert_eq!(
            Target::parse("http://127.0.0.1:8765/?token=abc#s1").unwrap(),
            Target {
                host: "127.0.0.1:8765".into(),
                token: "abc".into(),
                session: Some("s1".into())
            }
        );
        let by_query = Target::parse("http://127.0.0.1:8765/?token=abc&session=s2").unwrap();
        assert_eq!(by_query.session.as_deref(), Some("s2"));
        assert_eq!(
            Target::parse("http://127.0.0.1:8765/?token=abc")
                .unwrap()
                .session,
            None
        );
        for wrong in [
            "127.0.0.1:8765",
            "http://127.0.0.1:8765/",
            "https://x/?token=a",
        ] {
            assert!(Target::parse(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn typed_answers_become_the_api_s_and_events_read_as_lines() {
        let open: Open = Arc::default();
        let questions = json!([{"header": "Db", "question": "Which database?", "multiSelect": false,
            "options": [{"label": "SQLite"}, {"label": "Postgres"}]}]);
        let mut text = String::new();
        let shown = render(
            &json!({"type": "question_prompt", "toolCallId": "4", "questions": questions}),
            &mut text,
            &open,
        );
        assert!(
            shown.contains("[Db] Which database?\n  1. SQLite\n  2. Postgres"),
            "{shown}"
        );
        assert_eq!(
            answers(&open, "4", "2").unwrap(),
            json!({"Which database?": "Postgres"})
        );
        assert_eq!(
            answers(&open, "4", "DuckDB").unwrap(),
            json!({"Which database?": "DuckDB"})
        );
        assert!(answers(&open, "9", "1").is_err());
        assert!(
            answers(&open, "4", "1; 2")
                .unwrap_err()
                .contains("put ; between")
        );
        assert_eq!(
            render(
                &json!({"type": "text_delta", "text": "Hello "}),
                &mut text,
                &open
            ),
            ""
        );
        assert_eq!(
            render(
                &json!({"type": "text_delta", "text": "world\nmore"}),
                &mut text,
                &open
            ),
            "Hello world"
        );
        assert_eq!(render(&json!({"type": "done"}), &mut text, &open), "more");
    }
}
