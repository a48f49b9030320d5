//! A tool call as the person sees it: the tool's name with its key argument
//! (`run_command  cargo test`, `read_file  src/main.rs:1-80`), then ✓ or ✗ with the time; for
//! run_command also its exit code and the last lines of what it printed; a call the ticket
//! gate turned back on one dim line, as the step it is.

use serde_json::Value;

use super::sanitize::sanitize;
use super::style::Style;
use super::width::{truncate, width};

/// How many of a command's last output lines are shown under its line.
pub(crate) const TAIL: usize = 8;

/// Arguments that say best what a call is about, in order of preference.
const KEYS: &[&str] = &[
    "command",
    "path",
    "file_path",
    "url",
    "query",
    "pattern",
    "name",
    "location",
    "city",
    "title",
    "text",
    "expression",
    "topic",
    "id",
];

/// The one argument that says what the call does, on one line: a path with its line range, a
/// command, a query; for a patch, the files it touches. Empty when there is none.
pub(crate) fn key_argument(name: &str, arguments: &Value, style: Style) -> String {
    let text = match arguments {
        Value::String(raw) => patch_files(raw).unwrap_or_else(|| raw.clone()),
        Value::Object(map) => {
            if let Some(patch) = map.get("patch").and_then(Value::as_str) {
                patch_files(patch).unwrap_or_default()
            } else {
                let chosen = KEYS.iter().find_map(|key| map.get(*key).and_then(scalar));
                let chosen = chosen.or_else(|| map.values().find_map(scalar));
                match chosen {
                    Some(text) if name == "read_file" => text + &line_range(map),
                    Some(text) => text,
                    None => String::new(),
                }
            }
        }
        _ => String::new(),
    };
    one_line(&text, style)
}

/// A string or a number, as text; nothing for an empty string.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.trim().is_empty() => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// `:10-80`, `:10-` or nothing, from read_file's start_line and end_line.
fn line_range(map: &serde_json::Map<String, Value>) -> String {
    let line = |key| map.get(key).and_then(Value::as_u64);
    match (line("start_line"), line("end_line")) {
        (Some(start), Some(end)) => format!(":{start}-{end}"),
        (Some(start), None) => format!(":{start}-"),
        (None, Some(end)) => format!(":1-{end}"),
        (None, None) => String::new(),
    }
}

/// The files a patch in the Codex format adds, updates or deletes, comma-separated.
fn patch_files(patch: &str) -> Option<String> {
    let files: Vec<&str> = patch
        .lines()
        .filter_map(|line| {
            ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
                .iter()
                .find_map(|mark| line.strip_prefix(mark))
        })
        .map(str::trim)
        .collect();
    (!files.is_empty()).then(|| files.join(", "))
}

/// Text on one line: made safe, and cut at the first line break with `…` after it.
fn one_line(text: &str, style: Style) -> String {
    let text = sanitize(text.trim());
    match text.split_once('\n') {
        Some((first, _)) => format!("{} {}", first.trim_end(), style.glyph("…", "...")),
        None => text.into_owned(),
    }
}

/// The line of a call under way, for the spinner: `run_command  cargo test`.
pub(crate) fn running(name: &str, key: &str, room: usize, style: Style) -> String {
    let name = sanitize(name);
    if key.is_empty() {
        return truncate(&name, room, style.unicode);
    }
    let room_for_key = room.saturating_sub(width(&name) + 2);
    format!("{name}  {}", truncate(key, room_for_key, style.unicode))
}

/// What a finished call shows.
pub(crate) struct Finished<'a> {
    pub name: &'a str,
    pub key: &'a str,
    pub seconds: f64,
    pub is_error: bool,
    pub output: &'a str,
}

/// A command's result as run_command reports it: its output, and how it ended.
pub(crate) struct CommandResult<'a> {
    pub output: &'a str,
    /// `exit 0`, `exit 101`, `signal 9`.
    pub ending: String,
    pub succeeded: bool,
}

/// Splits run_command's result (`OUTPUT\n[exit code: N]` or `[killed by signal N]`).
pub(crate) fn command_result(text: &str) -> Option<CommandResult<'_>> {
    let (output, last) = text.rsplit_once('\n').unwrap_or(("", text));
    let (ending, succeeded) = if let Some(code) = last
        .strip_prefix("[exit code: ")
        .and_then(|rest| rest.strip_suffix(']'))
    {
        (format!("exit {code}"), code == "0")
    } else {
        let signal = last
            .strip_prefix("[killed by signal ")
            .and_then(|rest| rest.strip_suffix(']'))?;
        (format!("signal {signal}"), false)
    };
    let output = output.strip_suffix("(no output)").unwrap_or(output);
    Some(CommandResult {
        output: output.trim_end_matches('\n'),
        ending,
        succeeded,
    })
}

impl Finished<'_> {
    /// The call's line, then what it adds: the first line of an error, or a command's exit
    /// code on its line and its last lines of output under it; each within `line` columns.
    pub(crate) fn lines(&self, style: Style, line: usize) -> Vec<String> {
        self.shown(style, line, true)
    }

    /// The same without a command's output (where `/last` cannot show it): the call's line,
    /// and why it failed.
    pub(crate) fn lines_without_output(&self, style: Style, line: usize) -> Vec<String> {
        self.shown(style, line, false)
    }

    fn shown(&self, style: Style, line: usize, with_output: bool) -> Vec<String> {
        let command = (self.name == "run_command" && !self.is_error)
            .then(|| command_result(self.output))
            .flatten();
        let failed = self.is_error || command.as_ref().is_some_and(|c| !c.succeeded);
        let mark = if failed {
            style.red(style.glyph("✗", "x"))
        } else {
            style.paint_green(style.glyph("✓", "+"))
        };
        let took = match &command {
            Some(command) => format!("({:.1}s, {})", self.seconds, command.ending),
            None => format!("({:.1}s)", self.seconds),
        };
        let room = line.saturating_sub(4 + width(&took) + 2);
        let head = running(self.name, self.key, room, style);
        let mut lines = vec![format!("  {mark} {head}  {}", style.dim(&took))];
        let stopped = (self.name == "run_command" && self.is_error)
            .then(|| crate::tools::coding::shell::stopped(self.output))
            .flatten();
        if let Some((why, output)) = stopped {
            let why = one_line(why.trim_start_matches("Error: "), style);
            let why = truncate(&why, line.saturating_sub(4), style.unicode);
            lines.push(format!("    {}", style.red(&why)));
            if with_output {
                lines.extend(tail(output, style, line));
            }
        } else if self.is_error {
            let first = self.output.lines().find(|l| !l.trim().is_empty());
            // The ✗ says it failed already: the model's "Error: " prefix is not repeated.
            let first = first.map(|l| l.trim_start().trim_start_matches("Error: "));
            let first = one_line(first.unwrap_or("(no message)"), style);
            let shown = truncate(&first, line.saturating_sub(4), style.unicode);
            lines.push(format!("    {}", style.red(&shown)));
        } else if let Some(command) = command.filter(|_| with_output) {
            lines.extend(tail(command.output, style, line));
        }
        lines
    }
}

/// The dim line of a call the ticket gate turned back (seed 002 invariant 21): not a failure
/// but the way work starts, so no ✗ and no error under it.
pub(crate) fn turned_back(name: &str, key: &str, style: Style, line: usize) -> String {
    let why = match name {
        "tk" => "the ticket gate asks for a fuller description",
        _ => "waits for a ticket",
    };
    let why = format!("({why})");
    let room = line.saturating_sub(4 + width(&why) + 2);
    let head = running(name, key, room, style);
    style.dim(&format!("  {} {head}  {why}", style.glyph("·", "-")))
}

/// The last [`TAIL`] lines of `output`, each on a dim `│ ` bar, after a line saying how many
/// came before them and how to see them.
fn tail(output: &str, style: Style, room: usize) -> Vec<String> {
    if output.trim().is_empty() {
        return Vec::new();
    }
    let all: Vec<&str> = output.lines().collect();
    let start = all.len().saturating_sub(TAIL);
    let bar = style.glyph("│", "|");
    let mut lines = Vec::new();
    if start > 0 {
        let dots = style.glyph("…", "...");
        let more = format!("{bar} {dots} {start} more lines above: /last shows them all");
        let more = truncate(&more, room.saturating_sub(4), style.unicode);
        lines.push(format!("    {}", style.dim(&more)));
    }
    for line in &all[start..] {
        let shown = truncate(
            &sanitize(line).replace('\t', "    "),
            room.saturating_sub(6),
            style.unicode,
        );
        lines.push(format!("    {}", style.dim(&format!("{bar} {shown}"))));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LINE: usize = 79;

    const PLAIN: Style = Style::PLAIN;

    #[test]
    fn the_key_argument_says_what_the_call_is_about() {
        let cases = [
            (
                "run_command",
                json!({"command": "cargo test", "timeout": 60}),
                "cargo test",
            ),
            (
                "read_file",
                json!({"path": "src/main.rs", "start_line": 1, "end_line": 80}),
                "src/main.rs:1-80",
            ),
            ("read_file", json!({"path": "a.rs"}), "a.rs"),
            ("web_search", json!({"query": "rust", "count": 3}), "rust"),
            ("weather", json!({"days": 3, "location": "Oslo"}), "Oslo"),
            (
                "something",
                json!({"zeta": "last", "alpha": "first"}),
                "first",
            ),
            (
                "run_command",
                json!({"command": "echo a\necho b"}),
                "echo a …",
            ),
            (
                "apply_patch",
                json!(
                    "*** Begin Patch\n*** Update File: a.rs\n@@\n*** Add File: b.rs\n+x\n*** End Patch"
                ),
                "a.rs, b.rs",
            ),
            ("system_info", json!({}), ""),
            (
                "run_command",
                json!({"command": "printf '\u{1b}[2J'"}),
                "printf '^[[2J'",
            ),
        ];
        for (name, arguments, expected) in cases {
            assert_eq!(
                key_argument(name, &arguments, PLAIN),
                expected,
                "{name} {arguments}"
            );
        }
    }

    #[test]
    fn a_finished_call_shows_its_mark_time_and_failure() {
        let ok = Finished {
            name: "read_file",
            key: "src/main.rs:1-80",
            seconds: 0.04,
            is_error: false,
            output: "fn main() {}",
        };
        assert_eq!(
            ok.lines(PLAIN, LINE),
            ["  ✓ read_file  src/main.rs:1-80  (0.0s)"]
        );
        let failed = Finished {
            name: "read_file",
            key: "nope.rs",
            seconds: 0.0,
            is_error: true,
            output: "\nError: File not found: nope.rs. Check the path.\nmore",
        };
        assert_eq!(
            failed.lines(PLAIN, LINE),
            [
                "  ✗ read_file  nope.rs  (0.0s)",
                "    File not found: nope.rs. Check the path."
            ]
        );
        let ascii = Style {
            colour: false,
            unicode: false,
        };
        assert!(failed.lines(ascii, LINE)[0].starts_with("  x read_file"));
        assert!(ok.lines(ascii, LINE)[0].starts_with("  + read_file"));
    }

    #[test]
    fn a_command_shows_its_exit_code_and_last_lines() {
        let output: String =
            (1..=12).map(|n| format!("line {n}\n")).collect::<String>() + "[exit code: 3]";
        let call = Finished {
            name: "run_command",
            key: "make",
            seconds: 2.04,
            is_error: false,
            output: &output,
        };
        let lines = call.lines(PLAIN, LINE);
        assert_eq!(lines[0], "  ✗ run_command  make  (2.0s, exit 3)");
        assert_eq!(lines[1], "    │ … 4 more lines above: /last shows them all");
        assert_eq!(lines[2], "    │ line 5");
        assert_eq!(lines[9], "    │ line 12");
        assert_eq!(lines.len(), 10);
        // Where /last cannot show the output, the call's line says how it ended, alone.
        assert_eq!(
            call.lines_without_output(PLAIN, LINE),
            ["  ✗ run_command  make  (2.0s, exit 3)"]
        );
        let failed = Finished {
            is_error: true,
            output: "Error: no such program: make",
            ..call
        };
        assert_eq!(
            failed.lines_without_output(PLAIN, LINE),
            ["  ✗ run_command  make  (2.0s)", "    no such program: make"]
        );
        let quiet = Finished {
            output: "(no output)\n[exit code: 0]",
            ..call
        };
        assert_eq!(
            quiet.lines(PLAIN, LINE),
            ["  ✓ run_command  make  (2.0s, exit 0)"]
        );
        let killed = Finished {
            output: "partial\n[killed by signal 9]",
            ..quiet
        };
        assert_eq!(
            killed.lines(PLAIN, LINE)[0],
            "  ✗ run_command  make  (2.0s, signal 9)"
        );
    }

    #[test]
    fn a_call_the_ticket_gate_turned_back_is_one_quiet_line() {
        assert_eq!(
            turned_back("tk", "create \"Fix it\"", PLAIN, LINE),
            "  · tk  create \"Fix it\"  (the ticket gate asks for a fuller description)"
        );
        assert_eq!(
            turned_back("create_file", "a.txt", PLAIN, LINE),
            "  · create_file  a.txt  (waits for a ticket)"
        );
        let long = turned_back("create_file", &"x".repeat(300), PLAIN, LINE);
        assert!(width(&long) <= LINE, "{long}");
    }

    #[test]
    fn every_line_fits_80_columns() {
        let long = "x".repeat(300);
        let output = format!("{long}\n[exit code: 0]");
        let call = Finished {
            name: "run_command",
            key: &long,
            seconds: 1234.5,
            is_error: false,
            output: &output,
        };
        for line in call.lines(PLAIN, LINE) {
            assert!(width(&line) <= LINE, "{line}");
        }
        let failed = Finished {
            is_error: true,
            output: &long,
            ..call
        };
        for line in failed.lines(PLAIN, LINE) {
            assert!(width(&line) <= LINE, "{line}");
        }
    }
}
