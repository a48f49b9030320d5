//! The plain REPL: rustyline input with history in the profile directory, answers streamed
//! by [`TerminalView`], Ctrl+C to clear a line or stop an answer, Ctrl+D or `quit` to leave.

use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config as EditorConfig, Editor};

use super::sanitize::sanitize;
use super::signal::Watch;
use super::terminal::TerminalView;
use crate::agent::AgentEvent;
use crate::config::Config;
use crate::session::{Session, TurnEnd, TurnUi};

const PROMPT: &str = "› ";

/// The terminal during a turn: events to the view, Ctrl+C to cancel, questions answered
/// at a line prompt.
struct Ui<'a> {
    view: &'a mut TerminalView,
    watch: Watch,
    editor: Option<&'a mut Editor<(), FileHistory>>,
}

impl TurnUi for Ui<'_> {
    fn event(&mut self, event: &AgentEvent) {
        self.view.on_event(event);
    }

    fn interrupted(&mut self) -> bool {
        self.watch.fired() || self.view.is_broken()
    }

    fn confirm(&mut self, question: &str) -> bool {
        let style = self.view.style();
        self.view.side_line(&style.yellow(&sanitize(question)));
        let Some(editor) = self.editor.as_deref_mut() else {
            self.view
                .side_line(&style.dim("(no terminal to answer on: declined)"));
            return false;
        };
        let answer = editor.readline("Allow? [y/N] ");
        // Ctrl+C at the question cancels the whole turn, as it does anywhere else in it.
        if matches!(answer, Err(ReadlineError::Interrupted)) {
            // SAFETY: raising SIGINT on ourselves; the installed handler only counts it.
            unsafe { libc::raise(libc::SIGINT) };
        }
        matches!(
            answer.as_deref().map(str::trim),
            Ok("y" | "Y" | "yes" | "Yes")
        )
    }
}

/// Runs one turn and shows it; returns how it ended. Questions from tools are asked with
/// `editor`, or declined when there is none (stdin is not a terminal).
pub fn ask(
    session: &mut Session,
    view: &mut TerminalView,
    text: &str,
    editor: Option<&mut Editor<(), FileHistory>>,
) -> TurnEnd {
    let mut ui = Ui {
        view,
        watch: Watch::new(),
        editor,
    };
    let report = session.submit(text, &mut ui);
    ui.view
        .finish(&report, session.provider_name(), session.model());
    report.end
}

/// The interactive loop. `first` is asked before the first prompt; `providers` renders the
/// provider table for `/provider`, given the provider and model in use.
pub fn run(
    config: &Config,
    session: &mut Session,
    first: Option<&str>,
    providers: &dyn Fn(&str, &str) -> String,
) -> Result<(), String> {
    let mut view = TerminalView::new(config.colour_allowed);
    let mut editor = new_editor()?;
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
        ask(session, &mut view, question, Some(&mut editor));
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
        if matches!(text, "/provider" | "/providers") {
            view.side_line(providers(session.provider_name(), session.model()).trim_end());
            continue;
        }
        ask(session, &mut view, text, Some(&mut editor));
    }
    Ok(())
}

/// The line editor (history is loaded separately, by the REPL).
pub fn new_editor() -> Result<Editor<(), FileHistory>, String> {
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
