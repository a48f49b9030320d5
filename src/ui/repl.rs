//! The plain REPL: rustyline input with history in the profile directory, answers streamed
//! by [`TerminalView`], Ctrl+C to clear a line or stop an answer, Ctrl+D or `quit` to leave.
//! What the commands do is in `actions`.

use std::path::PathBuf;

use rustyline::error::ReadlineError;

use super::actions;
use super::complete::Completion;
use super::input::{self, Continuations, LineEditor};
use super::output::warn;
use super::sanitize::sanitize;
use super::shell;
use super::signal;
use super::terminal::TerminalView;
use super::turn::TerminalTurn;
use super::voice;
use crate::commands::{self, Command};
use crate::config::Config;
use crate::session::{Session, TurnEnd, TurnReport};

/// Typed text longer than this is sent, with a warning: it is probably a paste gone wrong.
const LONG_INPUT: usize = 10_000;

/// Runs one turn and shows it; returns how it ended.
pub(crate) fn ask(session: &mut Session, view: &mut TerminalView, text: &str) -> TurnReport {
    shown_turn(session, view, |session, ui| session.submit(text, ui))
}

/// Takes up the turn the session was parked on: its question is asked here, and the turn
/// goes on as if it had never stopped.
pub(crate) fn resume_parked(session: &mut Session, view: &mut TerminalView) -> TurnReport {
    shown_turn(session, view, |session, ui| session.resume_parked(ui))
}

/// A turn `run` starts, on the terminal: questions left unanswered go to the phone when
/// MARVIN_PHONE_TOPIC is set; the status line follows it.
fn shown_turn(
    session: &mut Session,
    view: &mut TerminalView,
    run: impl FnOnce(&mut Session, &mut TerminalTurn<'_>) -> TurnReport,
) -> TurnReport {
    let _armed = signal::arm_turn();
    // Ctrl+C stops the turn without leaving `^C` in the answer's text.
    let _echo = super::keys::RawMode::no_control_echo();
    let away = view
        .phone_relay()
        .map(|relay| super::away::Away::new(session.ntfy().clone(), relay.clone()));
    let mut ui = TerminalTurn::new(view, away);
    let report = run(session, &mut ui);
    ui.close();
    let status = super::terminal::Status {
        provider: session.provider_name(),
        model: session.model(),
        profile: session.profile(),
        messages: session.spoken_messages(),
        coding: session.coding_mode(),
    };
    view.finish(&report, &status);
    report
}

/// Everything the loop works with.
pub(crate) struct Repl<'a> {
    pub config: &'a Config,
    pub session: &'a mut Session,
    pub view: TerminalView,
    pub editor: LineEditor,
    /// The `\` continuations of the entry being typed.
    pub continuations: Continuations,
    pub history: Option<PathBuf>,
    /// Lines run as shell commands (`!shell`).
    pub shell_mode: bool,
    pub providers: &'a dyn ProviderDesk,
}

/// What the REPL needs from the app about providers, which only the app can build: the REPL
/// names no provider type.
pub(crate) trait ProviderDesk {
    /// The provider table, marking `name` with `model` as the one in use.
    fn table(&self, name: &str, model: &str) -> String;
    /// Makes provider `name` with `model` (or its configured one) answer `session` from the
    /// next message on; or says why it cannot.
    fn switch(&self, session: &mut Session, name: &str, model: Option<&str>) -> Result<(), String>;
}

/// The interactive loop. `first` is asked before the first prompt.
pub(crate) fn run(
    config: &Config,
    session: &mut Session,
    first: Option<&str>,
    providers: &dyn ProviderDesk,
) -> Result<(), String> {
    let (editor, continuations) = input::new_editor(Completion {
        home: config.home.clone(),
    })?;
    let mut repl = Repl {
        config,
        view: TerminalView::new(config),
        editor,
        continuations,
        history: None,
        session,
        shell_mode: false,
        providers,
    };
    repl.load_history();
    let banner = super::banner::lines(
        repl.view.style(),
        repl.session.provider_name(),
        repl.session.model(),
        repl.session.resumed(),
        crate::clock::unix_now(),
        super::width::line_width(),
    );
    repl.view.side_line(&banner.join("\n"));
    repl.show_warnings();
    super::sessions::say_parked(&mut repl);
    if repl.session.is_parked() {
        resume_parked(repl.session, &mut repl.view);
    }
    if let Some(question) = first {
        // Shown as if typed at the prompt, so its answer has the question above it.
        let mark = repl.view.style().glyph("›", ">");
        let mode = if repl.session.coding_mode() {
            "code"
        } else {
            ""
        };
        repl.view
            .side_line(&format!("{mode}{mark} {}", sanitize(question)));
        if !repl.prompt(question) {
            return Ok(());
        }
    }
    // Ctrl+C at the prompt only clears the line: a second in a row says how to leave.
    let mut interrupts = 0;
    // A turn stopped by SIGTERM or SIGHUP ends the session too.
    while signal::stop_signal().is_none() {
        let mark = repl.view.style().glyph("›", ">");
        let prompt = if repl.shell_mode {
            format!("sh{mark} ")
        } else if repl.session.coding_mode() {
            format!("code{mark} ")
        } else {
            format!("{mark} ")
        };
        let line = match input::read(&mut repl.editor, &repl.continuations, &prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                interrupts += 1;
                if interrupts == 2 {
                    let style = repl.view.style();
                    repl.view.side_line(
                        &style.dim("Ctrl+C clears the line; Ctrl+D or quit leaves Marvin."),
                    );
                }
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(error) => return Err(format!("reading input: {error}")),
        };
        interrupts = 0;
        let text = commands::normalise(&line);
        if text.is_empty() {
            continue;
        }
        repl.remember(&text);
        let more = repl.dispatch(&text);
        repl.show_warnings();
        if !more {
            break;
        }
    }
    Ok(())
}

impl Repl<'_> {
    /// Carries out one line; false to leave.
    fn dispatch(&mut self, text: &str) -> bool {
        let command = commands::parse(text);
        // In shell mode every line is bash but Marvin's own `!` commands and leaving.
        let own = matches!(
            command,
            Command::ToggleShell
                | Command::ToggleCode
                | Command::Pro(_)
                | Command::Blender
                | Command::Record(_)
                | Command::Listen
                | Command::Quit
        );
        if self.shell_mode && !own {
            shell::run(self, text.strip_prefix('!').unwrap_or(text));
            return true;
        }
        match command {
            Command::Quit => return false,
            Command::ToggleCode => actions::toggle_code(self),
            Command::Pro(prompt) => return self.pro(&prompt),
            Command::ToggleShell => actions::toggle_shell(self),
            Command::Shell(command) => shell::run(self, &command),
            Command::Blender => actions::blender(self),
            Command::Record(Ok(seconds)) => return voice::record(self, seconds),
            Command::Record(Err(why)) => self.view.side_line(&why),
            Command::Listen => return voice::listen(self),
            Command::Preferences => actions::preferences(self),
            Command::Profiles(None) => actions::list_profiles(self),
            Command::Profiles(Some(name)) => actions::switch_profile(self, &name),
            Command::Usage => {
                let report = self.session.usage_report();
                self.view.side_line(&wrapped(&report));
            }
            Command::Context => {
                let mut report = self.session.learn_context().describe();
                let totals = self.session.totals();
                if totals.input_tokens > 0 {
                    report.push_str(&format!(
                        "\nThis session's requests: {} input tokens, {} of them read from the provider's cache of the prompt's start.",
                        totals.input_tokens, totals.cached_tokens
                    ));
                }
                self.view.side_line(&wrapped(&report));
            }
            Command::Last => actions::last_output(self),
            Command::Saved => actions::saved(self),
            Command::Notifications => actions::notifications(self),
            Command::Sessions => super::sessions::list(self),
            Command::Resume(key) => super::sessions::resume(self, &key),
            Command::Rename(name) => super::sessions::rename(self, &name),
            Command::Fork => super::sessions::fork(self),
            Command::Pending(action) => super::sessions::pending(self, action),
            Command::Clear => {
                self.session.clear();
                self.view.side_line(
                    &self
                        .view
                        .style()
                        .dim("The conversation is cleared (the chat log keeps it)."),
                );
            }
            Command::New => {
                self.session.clear();
                self.view.side_line(
                    &self
                        .view
                        .style()
                        .dim("A new conversation starts here (the chat log keeps the old one)."),
                );
            }
            Command::Providers => self.view.side_line(&sanitize(
                self.providers
                    .table(self.session.provider_name(), self.session.model())
                    .trim_end(),
            )),
            Command::SwitchProvider(name) => actions::switch_provider(self, &name, None),
            Command::Model(None) => actions::show_model(self),
            Command::Model(Some(model)) => {
                let provider = self.session.provider_name().to_string();
                actions::switch_provider(self, &provider, Some(&model));
            }
            // Tool definitions and grants come from files a repository may ship.
            Command::Help => self.view.side_line(&format!(
                "{}\n{}",
                super::help::text(super::width::terminal_width()),
                sanitize(&actions::tools_list(self.session))
            )),
            Command::Tools => self
                .view
                .side_line(&sanitize(&actions::tools_list(self.session))),
            Command::ListApprovals => self
                .view
                .side_line(&sanitize(&actions::approvals_list(self.session))),
            Command::Revoke(which) => self
                .view
                .side_line(&sanitize(&actions::revoke(self.session, &which))),
            // Server names and tool names come from files a repository may ship.
            Command::Mcp(None) => self.view.side_line(&sanitize(&self.session.mcp_report())),
            Command::Mcp(Some(name)) => {
                let said = match self.session.mcp_restart(&name) {
                    Ok(text) | Err(text) => text,
                };
                self.view.side_line(&sanitize(&said));
            }
            Command::Misused(usage) => self.view.side_line(&actions::misused(usage)),
            Command::Unknown { word, closest } => {
                let line = actions::unknown(self.view.style(), &sanitize(&word), closest);
                self.view.side_line(&line);
            }
            Command::Prompt(prompt) => return self.prompt(&prompt),
        }
        true
    }

    /// Asks the model; false when the answer asked to end the session (exit_app) and the turn
    /// was not stopped meanwhile.
    pub(super) fn prompt(&mut self, text: &str) -> bool {
        if text.chars().count() > LONG_INPUT {
            let style = self.view.style();
            self.view.side_line(&style.yellow(&format!(
                "  {} that is {} characters; sending it anyway",
                style.glyph("⚠", "!"),
                text.chars().count()
            )));
        }
        let report = ask(self.session, &mut self.view, text);
        if report.exit_requested && !matches!(report.end, TurnEnd::Cancelled) {
            return false;
        }
        actions::ask_deferred(self.session, &mut self.view);
        true
    }

    /// `!pro PROMPT`: this one prompt answered by the high model tier
    /// (MARVIN_CODE_MODEL_HIGH) of the provider in use; the providers before it answer the
    /// next one, as they were.
    fn pro(&mut self, prompt: &str) -> bool {
        let style = self.view.style();
        let before = self.session.providers();
        let name = self.session.provider_name().to_string();
        let model = self.session.model().to_string();
        let high = self.config.code_model_high.clone();
        if let Err(why) = self.providers.switch(self.session, &name, Some(&high)) {
            let said = format!("Cannot ask {high} (MARVIN_CODE_MODEL_HIGH): {why}.");
            self.view.side_line(&super::width::wrap(
                "",
                &said,
                0,
                super::width::line_width(),
            ));
            return true;
        }
        let said = format!(
            "{high} answers this one {} then {model} again.",
            style.glyph("—", "-")
        );
        self.view.side_line(&style.dim(&said));
        let more = self.prompt(prompt);
        self.session.restore_providers(before);
        more
    }

    /// Warnings the session collected outside a turn (a command read a corrupt store file).
    fn show_warnings(&mut self) {
        for warning in self.session.take_warnings() {
            self.view.warning(&warning);
        }
    }

    /// (Re)loads the input history of the active profile.
    pub(crate) fn load_history(&mut self) {
        self.history = history_file(self.session.profile_dir());
        let _ = self.editor.clear_history();
        if let Some(path) = &self.history {
            // A missing history file is the normal first run.
            let _ = self.editor.load_history(path);
        }
    }

    /// Adds the line to the history and appends it to the file at once, so a crash loses nothing.
    pub(super) fn remember(&mut self, line: &str) {
        if self.editor.add_history_entry(line).unwrap_or(false) {
            if let Some(path) = &self.history {
                if let Err(error) = self.editor.append_history(path) {
                    warn(&format!(
                        "cannot save input history to {}: {error}",
                        path.display()
                    ));
                }
            }
        }
    }
}

/// `<profile dir>/history`, with the directory created private.
fn history_file(profile_dir: Option<PathBuf>) -> Option<PathBuf> {
    let dir = profile_dir?;
    crate::store::history_file(&dir)
        .inspect_err(|error| {
            warn(&format!(
                "input history is off: cannot create {}: {error}",
                dir.display()
            ));
        })
        .ok()
}

/// A report of several lines as the terminal shows it: a line wider than the terminal wraps
/// at a word, its next rows indented.
fn wrapped(report: &str) -> String {
    let width = super::width::line_width();
    let lines: Vec<String> = report
        .lines()
        .map(|line| match super::width::width(line) <= width {
            true => line.to_string(),
            false => super::width::wrap("", line, 4, width),
        })
        .collect();
    lines.join("\n")
}
