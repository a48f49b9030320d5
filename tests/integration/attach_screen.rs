//! What `marvin --attach` shows on a terminal of a fixed width, seen through a real pty: its
//! banner whole above the replay every time, the replay under it to its last line.

use crate::common::{ReplayServer, Reply, TempDir};
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

#[test]
fn each_attach_shows_the_banner_whole_and_the_replay_under_it_to_its_last_line() {
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
        pty.wait_for("Both done.");
        pty.wait_for("attached› ");
        let screen = pty.visible();
        let (lines, text) = (screen.lines(), screen.text());
        let (read, after) = banner(&lines, &id);
        assert_eq!(read, said, "attach {attach}:\n{text}");
        assert_eq!(
            lines[after],
            format!("› {ASKED}"),
            "attach {attach}:\n{text}"
        );
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
