//! `marvin --attach URL`: the terminal as one more client of a session `marvin serve` serves.
//! It shows the session's events as they come (printed above the prompt, which stays usable;
//! `shown`), sends what is typed as messages, and answers the same questions the browsers see:
//! by typed commands (`acts`) or asked here as the REPL asks them (`ask`), Enter on an empty
//! line taking up the one that waits. The first answer from any client counts; a late one is
//! told so, and a question answered elsewhere says so.

mod acts;
mod ask;
mod calls;
mod request;
mod shown;

use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use rustyline::ExternalPrinter;
use rustyline::error::ReadlineError;
use serde_json::Value;

use super::sanitize::sanitize;
use super::style::Style;
use ask::{Desk, Hold};
use shown::{Open, Sent, Shown};

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

/// Attaches the terminal until Ctrl+D or `quit`; the answer is shown in `style`, as Markdown
/// unless `raw`.
pub(crate) fn run(url: &str, style: Style, raw: bool) -> Result<(), String> {
    let target = Arc::new(Target::parse(url)?);
    let session: String = match &target.session {
        Some(id) => id.clone(),
        None => only_served(&target)?,
    };
    let client = format!("terminal-{}", std::process::id());
    let replay_end = events_so_far(&target, &session);
    let events = events(&target, &session, &client)?;
    if !std::io::stdin().is_terminal() {
        return Err("--attach needs a terminal to type in: stdin is not one".into());
    }
    let mut editor = rustyline::DefaultEditor::new().map_err(|e| format!("the prompt: {e}"))?;
    let printer = editor
        .create_external_printer()
        .map_err(|e| format!("the prompt: {e}"))?;
    let desk = Desk {
        target,
        session,
        client,
        open: Open::default(),
        hold: Hold::default(),
        style,
    };
    let sent: Sent = Arc::default();
    let width = super::width::terminal_width() - 1;
    let shown = Shown::new(style, width, raw, Arc::clone(&sent), replay_end);
    // The banner first, whole: the replay comes under it.
    let banner = format!(
        "Attached to session {}: type to send; Enter on an empty line answers what waits (or /answer, /approve, /deny WHY, /dismiss); /cancel stops the turn; Ctrl+D leaves.",
        desk.session
    );
    ask::say(&desk.hold, &banner);
    let (open, hold) = (Arc::clone(&desk.open), Arc::clone(&desk.hold));
    std::thread::Builder::new()
        .name("attach-events".into())
        .spawn(move || show_events(events, printer, shown, &open, &hold))
        .map_err(|e| format!("cannot follow the session: {e}"))?;
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
        let said = match line.is_empty() {
            true => acts::waiting(&desk),
            false => {
                let _ = editor.add_history_entry(line);
                acts::act(&desk, line, &sent)
            }
        };
        if !said.is_empty() {
            ask::say(&desk.hold, &said);
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

/// How many events session `id` has had: the stream replays these first; 0 when the
/// gateway does not say (then everything shown counts as happening now).
fn events_so_far(target: &Target, id: &str) -> u64 {
    let listed = target
        .call("GET", "/api/sessions", None)
        .unwrap_or_default()
        .1;
    let sessions = listed["sessions"].as_array().cloned().unwrap_or_default();
    let this = sessions
        .iter()
        .find(|s| s["id"] == id && s["served"] == true);
    this.and_then(|s| s["events"].as_u64()).unwrap_or(0)
}

/// Why session `asked` cannot be followed, and what to run instead: the sessions served there,
/// or how to take up a stored one.
fn not_served(target: &Target, asked: &str) -> String {
    let listed = target
        .call("GET", "/api/sessions", None)
        .map(|(_, listed)| listed)
        .unwrap_or_default();
    let sessions = listed["sessions"].as_array().cloned().unwrap_or_default();
    let asked = sanitize(asked);
    let stored = sessions
        .iter()
        .find(|s| s["served"] == false && (s["id"] == *asked || s["name"] == *asked));
    if let Some(stored) = stored {
        let id = sanitize(stored["id"].as_str().unwrap_or("")).into_owned();
        return format!(
            "session {asked} is stored but not served: open it in the page (the list has it), then run marvin --attach again; or take it up here with marvin --resume {id}"
        );
    }
    let served: Vec<String> = sessions
        .iter()
        .filter(|s| s["served"] == true)
        .filter_map(|s| {
            let id = sanitize(s["id"].as_str()?).into_owned();
            Some(match s["name"].as_str() {
                Some(name) => format!("{id} ({})", sanitize(name)),
                None => id,
            })
        })
        .collect();
    let address = format!("http://{}/?token=…", target.host);
    match served.as_slice() {
        [] => format!(
            "no session {asked} is served at {}, nor any other: start one in the page, then run marvin --attach '{address}'",
            target.host
        ),
        [one] => format!(
            "no session {asked} is served at {}; the one served is {one}: leave out #{asked} to attach to it",
            target.host
        ),
        many => format!(
            "no session {asked} is served at {}; served there: {}: name one, marvin --attach '{address}#ID'",
            target.host,
            many.join(", ")
        ),
    }
}

/// The `error` a refusal's JSON body gives, its headers read first.
fn refusal(reader: &mut BufReader<TcpStream>) -> Option<String> {
    let _ = reader
        .get_ref()
        .set_read_timeout(Some(Duration::from_secs(5)));
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length.min(64 * 1024)];
    reader.read_exact(&mut body).ok()?;
    let json: Value = serde_json::from_slice(&body).ok()?;
    json["error"].as_str().map(|e| sanitize(e).into_owned())
}

/// The session's event stream as `client`, its headers read.
fn events(target: &Target, session: &str, client: &str) -> Result<BufReader<TcpStream>, String> {
    let mut stream = target.connect()?;
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
    if status.contains(" 404 ") {
        return Err(not_served(target, session));
    }
    if !status.contains(" 200 ") {
        let why = refusal(&mut reader).unwrap_or_else(|| status.trim().to_string());
        return Err(format!(
            "the gateway refused to show session {session}: {why}"
        ));
    }
    Ok(reader)
}

/// Prints each event above the prompt, or after the question asked here meanwhile. Each ends
/// with its line break: while the prompt is not up, the printer writes it as it is, and the
/// prompt then clears the row the cursor is on.
fn show_events(
    events: BufReader<TcpStream>,
    mut printer: impl ExternalPrinter,
    mut shown: Shown,
    open: &Open,
    hold: &Hold,
) {
    for line in events.lines() {
        let Ok(line) = line else { break };
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        let Ok(event) = serde_json::from_str::<Value>(data) else {
            continue;
        };
        let lines = shown.event(&event, open);
        ask::show(hold, &event, lines, |lines| {
            let _ = printer.print(format!("{lines}\n"));
        });
    }
    let closed = serde_json::json!({"type": "closed"});
    ask::show(
        hold,
        &closed,
        "The gateway closed the session's stream.".into(),
        |lines| {
            let _ = printer.print(format!("{lines}\n"));
        },
    );
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
}
