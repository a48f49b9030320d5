//! The chat log of a profile: append-only JSON lines of `{role, text, time}` with roles
//! `you`, `assistant` and `system`. Each entry is one append-mode write, so concurrent
//! marvin processes never interleave their lines.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;
use std::time::SystemTime;

use serde_json::json;

use crate::clock::iso8601;

pub const FILE: &str = "chat_log.jsonl";

/// Appends one entry to `profile_dir/chat_log.jsonl`.
pub fn append(profile_dir: &Path, role: &str, text: &str) -> io::Result<()> {
    std::fs::create_dir_all(profile_dir)?;
    let mut line =
        json!({"role": role, "text": text, "time": iso8601(SystemTime::now())}).to_string();
    line.push('\n');
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(profile_dir.join(FILE))?
        .write_all(line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_json_lines_with_role_text_and_time() {
        let dir = crate::test_support::TempDir::new("chatlog");
        append(dir.path(), "system", "asked: which port?").unwrap();
        append(dir.path(), "system", "answered: 443").unwrap();
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        let entries: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1]["role"], "system");
        assert_eq!(entries[1]["text"], "answered: 443");
        assert!(entries[0]["time"].as_str().unwrap().ends_with('Z'));
    }
}
