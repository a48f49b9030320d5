//! Showing a turn to a person: the answer as it streams, `  🔧` lines with their duration, and
//! one dim status line at the end. Decorations go to stderr when stdout is not a terminal.

use std::time::Duration;

use super::output::{Out, warn};
use super::sanitize::sanitize;
use super::style::Style;
use crate::session::{Event, Level, TurnEnd, TurnReport};
use crate::usage::format_cost;

/// What the status line after an answer shows besides the turn's usage.
pub(crate) struct Status<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub profile: &'a str,
    /// Messages in the conversation.
    pub messages: usize,
    pub coding: bool,
}

/// How to ask a question on the terminal from another thread (see [`TerminalView::hand_over`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Handover {
    pub style: Style,
    pub dumb: bool,
    /// Questions go to stderr (stdout is not a terminal) rather than stdout.
    pub to_stderr: bool,
}

pub(crate) struct TerminalView {
    answer: Out,
    /// Where tool lines, notices and the status line go when not to `answer`.
    side: Option<Out>,
    style: Style,
    /// TERM=dumb: questions are answered with typed numbers.
    dumb: bool,
    /// The `  🔧` line of the round under way and its calls (id, name), so progress can
    /// rewrite it in place.
    round: Option<(String, Vec<(String, String)>)>,
    /// Whether progress rewrote the round's line.
    progress_shown: bool,
    /// Whether a [`Self::transient`] line is on screen, to be rewritten or erased (never
    /// ended with a newline).
    transient_shown: bool,
}

/// The most a progress line takes, so it never wraps on an 80-column terminal (a wrapped line
/// cannot be rewritten in place).
const PROGRESS_WIDTH: usize = 79;

impl TerminalView {
    /// Colour when the environment allows it and stdout is a terminal; symbols as the locale
    /// allows.
    pub(crate) fn new(config: &crate::config::Config) -> Self {
        let answer = Out::stdout(false);
        let terminal = answer.is_terminal();
        Self {
            side: (!terminal).then(Out::stderr),
            style: Style {
                colour: config.colour_allowed && terminal,
                unicode: config.unicode,
            },
            answer,
            dumb: config.dumb_terminal,
            round: None,
            progress_shown: false,
            transient_shown: false,
        }
    }

    /// Shows a tool's question and returns what the person did.
    pub(crate) fn ask(&mut self, prompt: &crate::interact::Prompt) -> crate::interact::Response {
        self.answer.end_line();
        let (style, dumb) = (self.style, self.dumb);
        let out = self.side.as_mut().unwrap_or(&mut self.answer);
        super::ask::Asker {
            out,
            style,
            dumb,
            elsewhere: None,
            withdrawn: None,
        }
        .ask(prompt)
    }

    /// Ends the lines in progress and flushes, so that another thread may ask a question on
    /// the terminal; says how (this view writes nothing until it is answered).
    pub(crate) fn hand_over(&mut self) -> Handover {
        self.answer.end_line();
        if let Some(side) = &mut self.side {
            side.end_line();
        }
        self.answer.flush();
        Handover {
            style: self.style,
            dumb: self.dumb,
            to_stderr: self.side.is_some(),
        }
    }

    pub(crate) fn style(&self) -> Style {
        self.style
    }

    /// Nobody reads stdout any more: the turn should stop.
    pub(crate) fn is_broken(&self) -> bool {
        self.answer.is_broken()
    }

    fn side(&mut self) -> &mut Out {
        self.side.as_mut().unwrap_or(&mut self.answer)
    }

    /// A line of decoration, starting on a fresh line.
    pub(crate) fn side_line(&mut self, text: &str) {
        self.clear_transient();
        self.answer.end_line();
        let side = self.side();
        side.end_line();
        side.write(text);
        side.write("\n");
    }

    /// A line rewritten in place (a recording's seconds, its level) when the decorations go to
    /// a terminal; nothing elsewhere. [`Self::clear_transient`] erases it.
    pub(crate) fn transient(&mut self, text: &str) {
        if !self.transient_shown {
            self.answer.end_line();
            self.side().end_line();
        }
        let side = self.side();
        if side.is_terminal() {
            // The previous frame is erased, not ended: the line is rewritten in place.
            side.erase_line();
            side.write(text);
            self.transient_shown = true;
        }
    }

    /// Erases the line [`Self::transient`] wrote, leaving the cursor at its start.
    pub(crate) fn clear_transient(&mut self) {
        if std::mem::take(&mut self.transient_shown) {
            self.side().erase_line();
        }
    }

    /// A warning from below the front-end (a store file moved aside), on a line of its own
    /// as the house writes them: `marvin: ...` on stderr.
    pub(crate) fn warning(&mut self, message: &str) {
        self.answer.end_line();
        self.side().end_line();
        self.answer.flush();
        warn(message);
    }

    pub(crate) fn on_event(&mut self, event: &Event) {
        let style = self.style;
        match event {
            Event::Text { text } => self.answer.write_outside(text),
            Event::Notice {
                level: Level::Info,
                message,
            } => {
                let sign = style.glyph("⚠", "!");
                self.side_line(&style.yellow(&format!("  {sign} {}", sanitize(message))))
            }
            Event::Notice {
                level: Level::Warning,
                message,
            } => self.warning(message),
            Event::ToolRound { calls, .. } => {
                let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
                let wrench = style.glyph("🔧", "*");
                let line = format!("  {wrench} {}", sanitize(&names.join(", ")));
                self.answer.end_line();
                let side = self.side();
                side.end_line();
                side.write(&style.dim(&line));
                let calls = calls.iter().map(|c| (c.id.clone(), c.name.clone()));
                self.round = Some((line, calls.collect()));
                self.progress_shown = false;
            }
            Event::ToolProgress { id, text } => self.progress(id, text),
            Event::ToolRoundFinished { elapsed, .. } => {
                let took = format!(" ({})", seconds(*elapsed));
                let rewrite = std::mem::take(&mut self.progress_shown);
                let line = self.round.take().map(|(line, _)| line).unwrap_or_default();
                let side = self.side();
                if rewrite {
                    side.write(&format!("\r\x1b[2K{}", style.dim(&line)));
                }
                side.write(&style.dim(&took));
                side.write("\n");
            }
            Event::ModelCall { .. } | Event::ToolResult { .. } | Event::QuestionClosed { .. } => {}
        }
    }

    /// Rewrites the round's `  🔧` line with how far call `id` is, when the line is on a
    /// terminal that can rewrite it; elsewhere progress is not shown (a log keeps no spinner).
    fn progress(&mut self, id: &str, text: &str) {
        let Some((line, calls)) = &self.round else {
            return;
        };
        let name = calls
            .iter()
            .find(|(call, _)| call == id)
            .map(|(_, name)| name);
        let (Some(name), false) = (name, self.dumb) else {
            return;
        };
        let shown = match calls.len() {
            1 => format!("{line} · {}", sanitize(text)),
            _ => format!("{line} · {}: {}", sanitize(name), sanitize(text)),
        };
        let shown: String = shown.chars().take(PROGRESS_WIDTH).collect();
        let style = self.style;
        let side = self.side();
        if side.is_terminal() {
            side.write(&format!("\r\x1b[2K{}", style.dim(&shown)));
            self.progress_shown = true;
        }
    }

    /// Closes the turn: the cancel marker and the status line, or the error alone.
    pub(crate) fn finish(&mut self, report: &TurnReport, status: &Status<'_>) {
        if self.answer.is_broken() {
            return; // Nobody reads the answer: end quietly.
        }
        let style = self.style;
        match &report.end {
            TurnEnd::Answered(message) if message.text().trim().is_empty() => {
                self.side_line(&style.dim("(the model gave no answer)"));
            }
            TurnEnd::Answered(_) => {}
            TurnEnd::Cancelled => {
                self.answer.end_line();
                self.answer.write(&style.yellow("[Cancelled]"));
                self.answer.write("\n");
            }
            TurnEnd::Failed(error) => {
                self.answer.end_line();
                let mut err = Out::stderr();
                err.write(&format!(
                    "{} {}\n",
                    style.red("marvin:"),
                    sanitize(&error.message)
                ));
                // The error is the last word: a status line under it would read as success.
                self.answer.flush();
                return;
            }
        }
        self.answer.end_line();
        let tally = &report.tally;
        let mut parts = vec![
            status.provider.to_string(),
            status.model.to_string(),
            format!("{} in / {} out", tally.input_tokens, tally.output_tokens),
        ];
        parts.extend(format_cost(tally));
        parts.push(seconds(report.elapsed));
        parts.push(format!("profile {}", status.profile));
        parts.push(format!("{} messages", status.messages));
        if status.coding {
            parts.push("code".into());
        }

        let separator = format!(" {} ", style.glyph("·", "|"));
        self.side_line(&style.dim(&parts.join(&separator)));
        self.answer.flush();
    }
}

fn seconds(elapsed: Duration) -> String {
    format!("{:.1}s", elapsed.as_secs_f64())
}
