//! The chat log of a profile: append-only JSON lines of `{role, text, time}` with roles
//! `you`, `assistant` and `system`. Each entry is one append-mode write, so concurrent
//! marvin processes never interleave their lines.

use std::fs::OpenOptions;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::SystemTime;

use serde_json::json;

use crate::clock::iso8601;

pub(crate) const FILE: &str = "chat_log.jsonl";

/// The `system` entry `/new` and `/clear` write: a resumed conversation starts after the last
/// one.
pub(crate) const NEW_CONVERSATION: &str = "a new conversation starts here";

/// Appends one entry to `profile_dir/chat_log.jsonl`.
pub(crate) fn append(profile_dir: &Path, role: &str, text: &str) -> io::Result<()> {
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

/// One entry of the log.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub(crate) struct Entry {
    pub role: String,
    pub text: String,
    #[serde(default)]
    pub time: String,
}

/// The last `count` entries, read from the end of the file; lines that do not parse (a line
/// cut by a crash) are skipped.
pub(crate) fn recent(profile_dir: &Path, count: usize) -> Vec<Entry> {
    const TAIL: u64 = 256 * 1024;
    let Ok(mut file) = std::fs::File::open(profile_dir.join(FILE)) else {
        return Vec::new();
    };
    let size = file.metadata().map_or(0, |m| m.len());
    let start = size.saturating_sub(TAIL);
    if file.seek(SeekFrom::Start(start)).is_err() {
        return Vec::new();
    }
    let mut bytes = Vec::new();
    let _ = file.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    if start > 0 && !lines.is_empty() {
        lines.remove(0); // the first line may be cut
    }
    let entries: Vec<Entry> = lines
        .iter()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    entries[entries.len().saturating_sub(count)..].to_vec()
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

    #[test]
    fn recent_returns_the_last_entries_and_skips_broken_lines() {
        let dir = crate::test_support::TempDir::new("chatlog-recent");
        for i in 0..30 {
            append(
                dir.path(),
                if i % 2 == 0 { "you" } else { "assistant" },
                &format!("line {i}"),
            )
            .unwrap();
        }
        let mut file = OpenOptions::new()
            .append(true)
            .open(dir.path().join(FILE))
            .unwrap();
        file.write_all(b"{\"role\": \"you\", \"text\": \"cut by a cra")
            .unwrap();
        let last = recent(dir.path(), 20);
        assert_eq!(last.len(), 20);
        assert_eq!(last[0].text, "line 10");
        assert_eq!(last[19].text, "line 29");
        assert!(recent(&dir.path().join("none"), 5).is_empty());
    }
}
