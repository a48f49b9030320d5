//! The line editor at the prompt: rustyline with its history settings and completion, and
//! entries of several lines: Alt+Enter inserts a line break; Enter after a trailing `\` does
//! too, and the `\` is taken out when the entry is sent; a bracketed paste keeps its own line
//! breaks (rustyline inserts it as pasted).

use std::sync::{Arc, Mutex, PoisonError};

use rustyline::history::FileHistory;
use rustyline::{
    Cmd, ConditionalEventHandler, Config as EditorConfig, Editor, Event, EventContext,
    EventHandler, KeyCode, KeyEvent, Modifiers, RepeatCount,
};

use super::complete::Completion;

/// The prompt's editor.
pub(crate) type LineEditor = Editor<Completion, FileHistory>;

/// The line editor (history is loaded separately), and where it notes the `\` continuations
/// of the entry being typed.
pub(crate) fn new_editor(completion: Completion) -> Result<(LineEditor, Continuations), String> {
    let config = EditorConfig::builder()
        .max_history_size(1000)
        .map_err(|e| format!("setting up the prompt: {e}"))?
        .history_ignore_dups(true)
        .map_err(|e| format!("setting up the prompt: {e}"))?
        .history_ignore_space(true)
        .auto_add_history(false)
        .bracketed_paste(true)
        .build();
    let mut editor =
        Editor::with_config(config).map_err(|e| format!("setting up the prompt: {e}"))?;
    editor.set_helper(Some(completion));
    editor.bind_sequence(KeyEvent(KeyCode::Enter, Modifiers::ALT), Cmd::Newline);
    let continuations = Continuations::default();
    editor.bind_sequence(
        KeyEvent(KeyCode::Enter, Modifiers::NONE),
        EventHandler::Conditional(Box::new(continuations.clone())),
    );
    Ok((editor, continuations))
}

/// Reads one entry at `prompt`: as typed or pasted, each `\` that continued it taken out.
pub(crate) fn read(
    editor: &mut LineEditor,
    continuations: &Continuations,
    prompt: &str,
) -> rustyline::Result<String> {
    continuations.forget();
    let line = editor.readline(prompt)?;
    Ok(continuations.take_out(&line))
}

/// Where the entry being typed had a `\` at its end when Enter was pressed (its byte offset):
/// Enter put a line break after it instead of sending, and it goes when the entry is sent.
/// (rustyline cannot take the `\` out at once and leave the cursor after the line break.)
/// A `\` that came with a paste is not one of them, and stays.
#[derive(Clone, Default)]
pub(crate) struct Continuations(Arc<Mutex<Vec<usize>>>);

impl Continuations {
    fn offsets(&self) -> std::sync::MutexGuard<'_, Vec<usize>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn forget(&self) {
        self.offsets().clear();
    }

    /// `line` without the `\` of each continuation (one still followed by its line break;
    /// an edit earlier in the entry may have moved it, and then it is left).
    fn take_out(&self, line: &str) -> String {
        let mut offsets = std::mem::take(&mut *self.offsets());
        offsets.sort_unstable();
        let mut text = line.to_string();
        for offset in offsets.into_iter().rev() {
            if text
                .get(offset..)
                .is_some_and(|rest| rest.starts_with("\\\n"))
            {
                text.remove(offset);
            }
        }
        text
    }
}

/// Enter on an entry that ends in `\` (the cursor at its end) inserts a line break and notes
/// the `\`; any other Enter does what it always does.
impl ConditionalEventHandler for Continuations {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        if !continues(ctx.line(), ctx.pos()) {
            return None;
        }
        self.offsets().push(ctx.pos() - 1);
        Some(Cmd::Newline)
    }
}

/// Whether Enter at `pos` in `line` continues the entry instead of sending it.
fn continues(line: &str, pos: usize) -> bool {
    pos == line.len() && line.ends_with('\\')
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustyline::history::History;

    #[test]
    fn only_a_trailing_backslash_with_the_cursor_after_it_continues() {
        let cases: &[(&str, usize, bool)] = &[
            ("first line\\", 11, true),
            ("one\ntwo\\", 8, true),
            ("first line\\", 5, false),
            ("no backslash", 12, false),
            ("C:\\ and more", 12, false),
            ("", 0, false),
        ];
        for (line, pos, expected) in cases {
            assert_eq!(continues(line, *pos), *expected, "{line:?} at {pos}");
        }
    }

    #[test]
    fn only_the_noted_backslashes_are_taken_out() {
        let cases: &[(&str, &[usize], &str)] = &[
            ("one\\\ntwo", &[3], "one\ntwo"),
            ("a\\\nb\\\nc", &[1, 4], "a\nb\nc"),
            // Pasted: not noted, kept.
            ("ls \\\n  -la", &[], "ls \\\n  -la"),
            ("typed\\\npasted \\\nrest", &[5], "typed\npasted \\\nrest"),
            // Moved by an edit before it: left as it is.
            ("xx one\\\ntwo", &[3], "xx one\\\ntwo"),
        ];
        for (line, offsets, expected) in cases {
            let continuations = Continuations::default();
            continuations.offsets().extend_from_slice(offsets);
            assert_eq!(continuations.take_out(line), *expected, "{line:?}");
            assert!(continuations.offsets().is_empty());
        }
    }

    #[test]
    fn an_entry_of_several_lines_survives_the_history_file() {
        let dir = crate::test_support::TempDir::new("input-history");
        let path = dir.path().join("history");
        let entries = [
            "first",
            "one\ntwo\nthree",
            "a \\ backslash\\n literal",
            "last",
        ];
        let mut history = FileHistory::new();
        for entry in entries {
            history.add(entry).unwrap();
            // Appended one by one, as the REPL does after each entry.
            history.append(&path).unwrap();
        }
        let mut read = FileHistory::new();
        read.load(&path).unwrap();
        let back: Vec<String> = (0..read.len())
            .map(|i| {
                read.get(i, rustyline::history::SearchDirection::Forward)
                    .unwrap()
                    .unwrap()
                    .entry
                    .into_owned()
            })
            .collect();
        assert_eq!(back, entries);
    }
}
