//! The sub-agent audit log (MARVIN_SUBAGENT_LOG): one JSON line per tool call, appended by
//! every marvin process that has the variable set, so a parent can see what its agents did.
//! In a project (`.marvin/logs/…`) the log is reached without following symlinks and kept
//! out of git; anywhere, the log itself must be a regular file, never a symlink.

use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::json;

use crate::clock::iso8601;
use crate::message::ToolCall;
use crate::tools::ToolOutcome;
use crate::tools::kit::confined;

fn cut(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

/// Appends one entry: `{ts, tool, args (≤ 200 chars), result (≤ 400 chars), elapsed_ms}`.
/// The line goes out in a single append-mode write, so processes sharing the log do not
/// interleave their lines.
pub(crate) fn append(
    log: &Path,
    call: &ToolCall,
    outcome: &ToolOutcome,
    elapsed: Duration,
) -> io::Result<()> {
    let entry = json!({
        "ts": iso8601(SystemTime::now()),
        "tool": call.function.name,
        "args": cut(&call.function.arguments, 200),
        "result": cut(&outcome.content, 400),
        "elapsed_ms": elapsed.as_millis() as u64,
    });
    append_entry(log, &entry)
}

/// Appends who asked and who answered a sub-agent's question that its parent relayed:
/// `{ts, tool, event: "question_relayed", asked (≤ 200 chars), answered_by, answer (≤ 400)}`.
pub(crate) fn relayed(log: &Path, tool: &str, asked: &str, answer: &str) -> io::Result<()> {
    let entry = json!({
        "ts": iso8601(SystemTime::now()),
        "tool": tool,
        "event": "question_relayed",
        "asked": cut(asked, 200),
        "answered_by": "the person who started the sub-agent",
        "answer": cut(answer, 400),
    });
    append_entry(log, &entry)
}

fn append_entry(log: &Path, entry: &serde_json::Value) -> io::Result<()> {
    let mut line = entry.to_string();
    line.push('\n');
    let (Some(dir), Some(name)) = (log.parent(), log.file_name()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the audit log must be a file",
        ));
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    confined::append(&confined::log_dir(dir)?, name, line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_cut_and_appended() {
        let dir = crate::test_support::TempDir::new("audit");
        let log = dir.path().join("logs/agents.jsonl");
        let call = ToolCall::new(
            "1",
            "read_file",
            format!("{{\"path\": \"{}\"}}", "a".repeat(300)),
        );
        let outcome = ToolOutcome {
            content: "b".repeat(500),
            is_error: false,
            turned_back: false,
        };
        append(&log, &call, &outcome, Duration::from_millis(12)).unwrap();
        append(&log, &call, &outcome, Duration::from_millis(3)).unwrap();
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["tool"], "read_file");
        assert_eq!(lines[0]["args"].as_str().unwrap().chars().count(), 200);
        assert_eq!(lines[0]["result"].as_str().unwrap().chars().count(), 400);
        assert_eq!(lines[0]["elapsed_ms"], 12);
        assert!(lines[1]["ts"].as_str().unwrap().ends_with('Z'));
    }
}
