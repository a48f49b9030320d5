//! A served session's tool calls as an attached terminal shows them: a finished call as the
//! one line the REPL shows (`  ✓ name  key  (0.1s)`, and why it failed), a call under way as
//! running: at once when it starts live, and at the replay's end when it was still running
//! then (a call that started and finished before this terminal attached shows only finished).

use serde_json::Value;

use crate::ui::calls::{Finished, key_argument, running, turned_back};
use crate::ui::style::Style;

/// The calls started and not finished yet, and where the replay ends.
pub(super) struct Calls {
    running: Vec<Running>,
    /// The `seq` of the last event that happened before this terminal attached.
    replay_end: u64,
    style: Style,
    /// The widest line, in columns.
    line: usize,
}

/// A call under way: its id, its name and the argument that says what it does.
struct Running {
    id: String,
    name: String,
    key: String,
}

impl Calls {
    pub(super) fn new(style: Style, line: usize, replay_end: u64) -> Self {
        Self {
            running: Vec::new(),
            replay_end,
            style,
            line,
        }
    }

    /// Whether `event` came after the replay: seen as it happens.
    fn live(&self, event: &Value) -> bool {
        event["seq"]
            .as_u64()
            .is_none_or(|seq| seq > self.replay_end)
    }

    /// A round's calls start (`tool_call_start`): shown running when live, else kept until
    /// the replay says whether they finished.
    pub(super) fn started(&mut self, event: &Value) -> String {
        let calls = event["calls"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let started: Vec<Running> = calls
            .iter()
            .map(|call| {
                let name = call["name"].as_str().unwrap_or("").to_string();
                let key = key_argument(&name, &call["arguments"], self.style);
                let id = call["id"].as_str().unwrap_or("").to_string();
                Running { id, name, key }
            })
            .collect();
        let shown = match self.live(event) {
            true => self.running_lines(&started),
            false => String::new(),
        };
        self.running.extend(started);
        shown
    }

    /// A call finished (`tool_result`): its line.
    pub(super) fn finished(&mut self, event: &Value) -> String {
        let id = event["id"].as_str().unwrap_or("");
        let name = event["name"].as_str().unwrap_or("");
        let at = self.running.iter().position(|call| call.id == id);
        let key = at.map(|at| self.running.remove(at).key).unwrap_or_default();
        if event["turned_back"] == true {
            return turned_back(name, &key, self.style, self.line);
        }
        let output = event["output"].as_str().unwrap_or("");
        let finished = Finished {
            name,
            key: &key,
            seconds: event["elapsed_ms"].as_f64().unwrap_or(0.0) / 1000.0,
            is_error: event["is_error"] == true,
            output,
        };
        let lines = finished.lines_without_output(self.style, self.line);
        lines.join("\n")
    }

    /// After `event`: the calls a round's or a turn's end leaves are over; the replay's last
    /// event shows those still running.
    pub(super) fn after(&mut self, event: &Value) -> String {
        if matches!(
            event["type"].as_str(),
            Some("tool_call_end" | "done" | "error")
        ) {
            self.running.clear();
        }
        match event["seq"].as_u64() == Some(self.replay_end) {
            true => self.running_lines(&self.running),
            false => String::new(),
        }
    }

    /// Each call's running line: `  … name  key`.
    fn running_lines(&self, calls: &[Running]) -> String {
        let mark = self.style.glyph("…", "...");
        let room = self.line.saturating_sub(3 + mark.chars().count());
        let lines: Vec<String> = calls
            .iter()
            .map(|call| {
                let shown = running(&call.name, &call.key, room, self.style);
                format!("  {mark} {shown}")
            })
            .collect();
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PLAIN: Style = Style::PLAIN;

    fn round(seq: u64) -> Value {
        json!({"type": "tool_call_start", "seq": seq, "calls": [
            {"id": "c1", "name": "read_file", "arguments": {"path": "src/main.rs"}},
            {"id": "c2", "name": "run_command", "arguments": {"command": "sleep 100"}}]})
    }

    fn result(seq: u64) -> Value {
        json!({"type": "tool_result", "seq": seq, "id": "c1", "name": "read_file",
               "elapsed_ms": 120, "is_error": false, "output": "fn main() {}"})
    }

    #[test]
    fn a_replayed_call_shows_finished_alone_and_one_still_running_at_the_replay_s_end() {
        let mut calls = Calls::new(PLAIN, 79, 2);
        assert_eq!(calls.started(&round(1)), "");
        assert_eq!(calls.after(&round(1)), "");
        assert_eq!(
            calls.finished(&result(2)),
            "  ✓ read_file  src/main.rs  (0.1s)"
        );
        assert_eq!(calls.after(&result(2)), "  … run_command  sleep 100");
    }

    #[test]
    fn a_live_call_shows_running_then_finished_and_a_round_s_end_leaves_none() {
        let mut calls = Calls::new(PLAIN, 79, 0);
        assert_eq!(
            calls.started(&round(1)),
            "  … read_file  src/main.rs\n  … run_command  sleep 100"
        );
        let failed = json!({"type": "tool_result", "seq": 2, "id": "c2", "name": "run_command",
            "elapsed_ms": 3000, "is_error": true, "output": "Error: no shell here"});
        assert_eq!(
            calls.finished(&failed),
            "  ✗ run_command  sleep 100  (3.0s)\n    no shell here"
        );
        calls.after(&json!({"type": "tool_call_end", "seq": 3}));
        assert!(calls.running.is_empty());
    }

    #[test]
    fn every_line_fits_the_width() {
        let long = json!({"type": "tool_call_start", "seq": 1, "calls": [
            {"id": "c1", "name": "run_command", "arguments": {"command": "x ".repeat(80)}}]});
        let mut calls = Calls::new(PLAIN, 49, 0);
        let started = calls.started(&long);
        let finished = calls.finished(&json!({"type": "tool_result", "id": "c1",
            "name": "run_command", "elapsed_ms": 10, "is_error": false,
            "output": "done\n[exit code: 0]"}));
        for line in started.lines().chain(finished.lines()) {
            assert!(crate::ui::width::width(line) <= 49, "{line}");
        }
        assert!(finished.ends_with("…  (0.0s, exit 0)"), "{finished}");
    }
}
