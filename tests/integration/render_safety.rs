//! Issue 41, finding 5, through the binary: an answer that crashed the Markdown renderer (an
//! unclosed backtick, then a run of six across its 256-byte window) ended the REPL with exit
//! 101 and the turn was never stored. Now it is shown as written, the turn is in the chat log
//! and the conversation, and the REPL takes the next question.

use serde_json::Value;

use crate::common::pty::at_80;
use crate::common::{ReplayServer, Reply, TempDir};

/// The 280-byte answer of the finding.
fn backticks_across_the_window() -> String {
    format!("`{}``````{}\n", "a".repeat(250), "b".repeat(22))
}

/// The chat log's entries from `role`, their text.
fn logged(home: &TempDir, role: &str) -> Vec<String> {
    let path = home
        .path()
        .join("marvin-home/profiles/default/chat_log.jsonl");
    let log = std::fs::read_to_string(&path).unwrap_or_default();
    log.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|entry| entry["role"] == role)
        .map(|entry| entry["text"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn the_repl_shows_and_stores_an_answer_with_backticks_across_the_window() {
    let home = TempDir::new("render-backticks");
    let answer = backticks_across_the_window();
    assert_eq!(answer.len(), 280);
    // In pieces, as a model streams it: the run of six arrives in two.
    let (front, back) = answer.split_at(253);
    let server = ReplayServer::start(vec![
        Reply::text(&[&front[..120], &front[120..], back]),
        Reply::text(&["Still here."]),
    ]);
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    pty.send("show me some backticks\r");
    pty.wait_for("· 2 messages");
    pty.send("are you still there?\r");
    pty.wait_for("Still here.");
    assert!(pty.leave().success(), "{}", pty.screen());
    // Shown as written: one word, broken only where the rows end.
    let rows = pty.visible().lines().concat();
    assert!(rows.contains(answer.trim_end()), "{}", pty.visible().text());
    assert!(!pty.screen().contains("panicked"), "{}", pty.screen());
    assert_eq!(logged(&home, "assistant"), [answer.as_str(), "Still here."]);
    // The second question went with the first answer before it.
    let messages = &server.requests()[1].body["messages"];
    assert_eq!(messages[2]["content"].as_str(), Some(answer.as_str()));
}
