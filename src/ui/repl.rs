//! The plain REPL: rustyline input with history in the profile directory, answers streamed
//! by [`TerminalView`], Ctrl+C to clear a line or stop an answer, Ctrl+D or `quit` to leave.

use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config as EditorConfig, Editor};

use super::signal::Watch;
use super::terminal::TerminalView;
use crate::agent::AgentEvent;
use crate::commands::{self, Command};
use crate::config::Config;
use crate::interact::{Prompt, Response};
use crate::session::{Session, TurnEnd, TurnUi};

const PROMPT: &str = "› ";
const CODE_PROMPT: &str = "code› ";

const HELP: &str = "\
Commands:
  !code                 turn coding mode on or off
  /provider             the providers, their models and credentials
  /approvals            actions always allowed here; /approvals revoke N
  /tools                your own tools and where each came from
  /help                 this list
  quit, exit, Ctrl+D    leave
Keys: Ctrl+C clears the line or stops an answer; Ctrl+R searches the history.";

/// The terminal during a turn: events to the view, Ctrl+C to cancel, questions answered
/// with the chooser.
struct Ui<'a> {
    view: &'a mut TerminalView,
    watch: Watch,
}

impl TurnUi for Ui<'_> {
    fn event(&mut self, event: &AgentEvent) {
        self.view.on_event(event);
    }

    fn interrupted(&mut self) -> bool {
        self.watch.fired() || self.view.is_broken()
    }

    fn interact(&mut self, prompt: &Prompt) -> Response {
        self.view.ask(prompt)
    }
}

/// Runs one turn and shows it; returns how it ended.
pub fn ask(session: &mut Session, view: &mut TerminalView, text: &str) -> TurnEnd {
    let mut ui = Ui {
        view,
        watch: Watch::new(),
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
    let mut view = TerminalView::new(config.colour_allowed, config.dumb_terminal);
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
        ask(session, &mut view, question);
        ask_deferred(session, &mut view);
    }
    loop {
        let prompt = if session.coding_mode() {
            CODE_PROMPT
        } else {
            PROMPT
        };
        let line = match editor.readline(prompt) {
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
        match commands::parse(text) {
            Command::Quit => break,
            Command::ToggleCode => {
                session.set_coding_mode(!session.coding_mode());
                let state = if session.coding_mode() {
                    "on: file, shell and git tools are offered"
                } else {
                    "off"
                };
                view.side_line(&style.dim(&format!("Coding mode {state}.")));
            }
            Command::Providers => {
                view.side_line(providers(session.provider_name(), session.model()).trim_end())
            }
            Command::ListApprovals => view.side_line(&approvals_list(session)),
            Command::Revoke(which) => view.side_line(&revoke(session, &which)),
            Command::Help => view.side_line(&format!("{HELP}\n{}", tools_list(session))),
            Command::Tools => view.side_line(&tools_list(session)),
            Command::Unknown(word) => view.side_line(&format!(
                "Unknown command {word}; /help lists the commands."
            )),
            Command::Prompt(prompt) => {
                ask(session, &mut view, &prompt);
                ask_deferred(session, &mut view);
            }
        }
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

/// Questions tools left open: asked now that the turn is over; answers go to the next turn.
fn ask_deferred(session: &mut Session, view: &mut TerminalView) {
    for mut deferred in session.take_deferred() {
        deferred.prompt.error =
            Some("An earlier question is still open (its tool went on without the answer):".into());
        deferred.prompt.timeout = crate::interact::DEFAULT_TIMEOUT;
        let response = view.ask(&deferred.prompt);
        session.answer_later(deferred, &response);
    }
}

fn approvals_list(session: &Session) -> String {
    let grants = session.grants().always();
    if grants.is_empty() {
        return "No lasting approvals in this project.".to_string();
    }
    let mut lines =
        vec!["Always allowed in this project (revoke with /approvals revoke N):".to_string()];
    lines.extend(
        grants
            .iter()
            .enumerate()
            .map(|(i, g)| format!("  {}. {g}", i + 1)),
    );
    lines.join("\n")
}

fn revoke(session: &Session, which: &str) -> String {
    let grants = session.grants().always();
    let key = match which.trim().parse::<usize>() {
        Ok(n) if (1..=grants.len()).contains(&n) => grants[n - 1].clone(),
        Ok(_) => return format!("There is no approval {which}; /approvals lists them."),
        Err(_) => which.trim().to_string(),
    };
    match session.grants().revoke(&key) {
        Ok(true) => format!("Revoked: {key}"),
        Ok(false) => format!("There is no approval {key}; /approvals lists them."),
        Err(error) => format!("Could not revoke: {error}"),
    }
}

fn tools_list(session: &Session) -> String {
    let tools = session.custom_tools();
    if tools.is_empty() {
        return "No tools of your own (add them in $MARVIN_HOME/tools/ or .marvin/tools/)."
            .to_string();
    }
    let mut lines = vec!["Your tools:".to_string()];
    lines.extend(
        tools
            .iter()
            .map(|t| format!("  {:<20} {}", t.name, t.definition.display())),
    );
    lines.join("\n")
}
