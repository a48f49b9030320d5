//! What `marvin --attach` shows on a terminal of a fixed width, seen through a real pty: its
//! banner whole above the replay every time, a finished call of the replay as the one line the
//! REPL shows (and a call still running as running), and its own lines wrapped at words at 80
//! columns and at 50, an option's description continuing under itself.

use serde_json::json;

use crate::common::{ReplayServer, Reply, TempDir, database_question};
use crate::gateway::{Gateway, session_with_message};

const ASKED: &str = "look around: system info and my usage";

/// The rows of the banner on `lines` (its first and those indented under it), read as one.
fn banner(lines: &[String], id: &str) -> (String, usize) {
    let start = lines
        .iter()
        .position(|l| l.starts_with(&format!("Attached to session {id}: ")))
        .unwrap_or_else(|| panic!("no banner:\n{}", lines.join("\n")));
    let rows = 1 + lines[start + 1..]
        .iter()
        .take_while(|l| l.starts_with("  "))
        .count();
    let read: Vec<&str> = lines[start..start + rows]
        .iter()
        .map(|l| l.trim())
        .collect();
    (read.join(" "), start + rows)
}

/// The rows of `lines` that name tool `name`.
fn rows_of<'a>(lines: &'a [String], name: &str) -> Vec<&'a String> {
    lines.iter().filter(|l| l.contains(name)).collect()
}

#[test]
fn each_attach_shows_the_banner_whole_and_the_replay_s_finished_calls_one_line_each() {
    let home = TempDir::new("attach-replay");
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "system_info", "{}"), ("c2", "get_usage", "{}")]),
        Reply::text(&["Both done."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let id = session_with_message(&gateway, ASKED);
    gateway.events_until(&id, 0, "done");
    let said = format!(
        "Attached to session {id}: type to send; Enter on an empty line answers what waits (or /answer, /approve, /deny WHY, /dismiss); /cancel stops the turn; Ctrl+D leaves."
    );
    for attach in 1..=10 {
        let mut pty = gateway.attach(&home, &id, 80, 40);
        // The prompt may be drawn before the replay and again under it: wait for the latter.
        pty.wait_for_words("Both done. attached›");
        let screen = pty.visible();
        let (lines, text) = (screen.lines(), screen.text());
        let (read, after) = banner(&lines, &id);
        assert_eq!(read, said, "attach {attach}:\n{text}");
        assert_eq!(
            lines[after],
            format!("› {ASKED}"),
            "attach {attach}:\n{text}"
        );
        for name in ["system_info", "get_usage"] {
            let rows = rows_of(&lines, name);
            assert_eq!(rows.len(), 1, "attach {attach}, {name}:\n{text}");
            let finished =
                rows[0].starts_with(&format!("  ✓ {name}  (")) && rows[0].ends_with("s)");
            assert!(finished, "attach {attach}, {name}:\n{text}");
        }
        // The replay's last line is kept, and the prompt comes under it.
        let tail: Vec<&str> = lines.iter().rev().take(2).map(String::as_str).collect();
        assert_eq!(
            tail,
            ["attached›", "Both done."],
            "attach {attach}:\n{text}"
        );
        assert!(screen.wrapped.is_empty(), "{:?}\n{text}", screen.wrapped);
        pty.send("quit\r");
        assert!(pty.wait_exit().success());
    }
}

#[test]
fn a_call_still_running_when_the_replay_ends_shows_as_running_then_finished() {
    let home = TempDir::new("attach-running");
    let server = ReplayServer::start(vec![
        database_question(),
        Reply::text(&["PostgreSQL then."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let id = session_with_message(&gateway, "set up the database");
    gateway.events_until(&id, 0, "interaction_request");
    let mut pty = gateway.attach(&home, &id, 80, 40);
    pty.wait_for("attached› ");
    pty.wait_for_words("… ask_user");
    let text = pty.visible().text();
    assert!(text.contains("\n  2. PostgreSQL\n"), "{text}");
    let lines = pty.visible().lines();
    assert_eq!(rows_of(&lines, "ask_user"), ["  … ask_user"], "{text}");
    pty.send("/answer 2\r");
    pty.wait_for_words("PostgreSQL then.");
    pty.wait_for_words("✓ ask_user");
    let screen = pty.visible();
    let lines = screen.lines();
    let rows = rows_of(&lines, "ask_user");
    assert_eq!(rows.len(), 2, "{}", screen.text());
    assert!(rows[1].starts_with("  ✓ ask_user  ("), "{}", screen.text());
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
}

#[test]
fn an_attached_terminal_wraps_its_own_lines_at_words_at_80_and_50_columns() {
    for width in [80, 50] {
        asked_at(width);
    }
}

/// A question whose second option's description runs over several lines.
const LONG: &str = "a server of its own, which takes a little more setting up but lets many \
    programs write at once and answers the questions of the reports too";

fn long_question() -> Reply {
    let questions = json!([{"header": "Database",
        "question": "Which database should the service keep its orders and customers in?",
        "multiSelect": false, "options": [
            {"label": "SQLite", "description": "one file, no server"},
            {"label": "PostgreSQL", "description": LONG}]}]);
    let arguments = json!({ "questions": questions }).to_string();
    Reply::tool_calls(&[("q1", "ask_user", &arguments)])
}

/// Attached at `width` columns: the long question asked live and answered, and the answer
/// after it; then no row ran past the margin, and the long description went on under its
/// first word.
fn asked_at(width: u16) {
    let home = TempDir::new(&format!("attach-wrap-{width}"));
    let server = ReplayServer::start(vec![long_question(), Reply::text(&["SQLite it is."])]);
    let gateway = Gateway::start(&home, &server.url());
    let (_, mut pty) = gateway.attach_new(&home, width, 50);
    pty.wait_for("attached› ");
    pty.send("set up the database\r");
    pty.wait_for("Other: your own words");
    pty.send("/answer 1\r");
    pty.wait_for_words("SQLite it is.");
    let screen = pty.visible();
    let (lines, text) = (screen.lines(), screen.text());
    assert!(
        text.contains("([Database] answered: SQLite)"),
        "{width}:\n{text}"
    );
    let wrapped = &screen.wrapped;
    assert!(wrapped.is_empty(), "{width}: {wrapped:?}\n{text}");
    let lead = "  2. PostgreSQL — ";
    let first = lines.iter().position(|l| l.starts_with(lead));
    let first = first.unwrap_or_else(|| panic!("{width}:\n{text}"));
    let under = " ".repeat(lead.chars().count());
    let more: Vec<&str> = lines[first + 1..]
        .iter()
        .take_while(|l| l.starts_with(&under) && !l[under.len()..].starts_with(' '))
        .map(|l| l.trim())
        .collect();
    assert!(!more.is_empty(), "{width}:\n{text}");
    let read = format!("{} {}", &lines[first][lead.len()..], more.join(" "));
    assert_eq!(read, LONG, "{width}:\n{text}");
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
}
