//! The plain REPL: rustyline input with history in the profile directory, answers streamed
//! by [`TerminalView`], Ctrl+C to clear a line or stop an answer, Ctrl+D or `quit` to leave.

use std::cell::Cell;
use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config as EditorConfig, Editor};

use super::signal::Watch;
use super::terminal::TerminalView;
use crate::config::Config;
use crate::session::{Session, TurnEnd};

const PROMPT: &str = "› ";

/// Runs one turn and shows it; returns how it ended.
pub fn ask(session: &mut Session, view: &mut TerminalView, text: &str) -> TurnEnd {
    let mut watch = Watch::new();
    let broken = Cell::new(false);
    let report = session.submit(
        text,
        &mut |event| {
            view.on_event(event);
            broken.set(view.is_broken());
        },
        &mut || watch.fired() || broken.get(),
    );
    view.finish(&report, session.provider_name(), session.model());
    report.end
}

/// The interactive loop. `first` is asked before the first prompt.
pub fn run(config: &Config, session: &mut Session, first: Option<&str>) -> Result<(), String> {
    let mut view = TerminalView::new(config.colour_allowed);
    let mut editor = editor()?;
    let history = history_file(config);
    if let Some(path) = &history {
        // A missing history file is the normal first run.
        let _ = editor.load_history(path);
    }
    let style = view.style();
    view.side_line(&style.dim(&format!(
        "Marvin · {} · {} — Ctrl+D or `quit` to leave, Ctrl+C stops an answer",
        session.provider_name(),
        session.model()
    )));
    if let Some(question) = first {
        ask(session, &mut view, question);
    }
    loop {
        let line = match editor.readline(PROMPT) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(error) => return Err(format!("reading input: {error}")),
        };
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        remember(&mut editor, history.as_ref(), text);
        if matches!(text, "quit" | "exit") {
            break;
        }
        ask(session, &mut view, text);
    }
    Ok(())
}

fn editor() -> Result<Editor<(), FileHistory>, String> {
    let config = EditorConfig::builder()
        .max_history_size(1000)
        .map_err(|e| format!("setting up the prompt: {e}"))?
        .history_ignore_dups(true)
        .map_err(|e| format!("setting up the prompt: {e}"))?
        .history_ignore_space(true)
        .auto_add_history(false)
        .build();
    Editor::with_config(config).map_err(|e| format!("setting up the prompt: {e}"))
}

/// `MARVIN_HOME/profiles/<name>/history`, with its directory created private.
fn history_file(config: &Config) -> Option<PathBuf> {
    let dir = config.profile_dir()?;
    if let Err(error) = std::fs::create_dir_all(&dir) {
        eprintln!(
            "marvin: input history is off: cannot create {}: {error}",
            dir.display()
        );
        return None;
    }
    set_private(&dir);
    Some(dir.join("history"))
}

fn set_private(dir: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
}

/// Adds the line to the history and appends it to the file at once, so a crash loses nothing.
fn remember(editor: &mut Editor<(), FileHistory>, file: Option<&PathBuf>, line: &str) {
    if editor.add_history_entry(line).unwrap_or(false) {
        if let Some(path) = file {
            if let Err(error) = editor.append_history(path) {
                eprintln!(
                    "marvin: cannot save input history to {}: {error}",
                    path.display()
                );
            }
        }
    }
}
