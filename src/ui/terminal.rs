//! Showing a turn to a person: the answer as it streams, a spinner while the model or a tool
//! is waited for, each tool call's line with ✓ or ✗ as it ends, and one dim status line at the
//! end. Decorations go to stderr when stdout is not a terminal.

use std::time::{Duration, Instant};

use super::calls::{self, Finished};
use super::markdown::Markdown;
use super::output::{Out, warn};
use super::sanitize::sanitize;
use super::spinner::Spinner;
use super::style::Style;
use super::width::line_width;
use crate::session::{Event, Level, TurnEnd, TurnReport, tools_line};
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
    /// `--verbose`: the tools each request offers, on a side line.
    verbose: bool,
    answer: Out,
    /// Where tool lines, notices and the status line go when not to `answer`.
    side: Option<Out>,
    style: Style,
    /// TERM=dumb: questions are answered with typed numbers.
    dumb: bool,
    /// The tool round under way.
    round: Option<Round>,
    /// What is waited for, while something is.
    spinner: Option<Spinner>,
    /// Whether a [`Self::transient`] line is on screen, to be rewritten or erased (never
    /// ended with a newline).
    transient_shown: bool,
    /// The last command run_command ran and all it printed, for `/last`.
    last_output: Option<(String, String)>,
    /// A turn is under way (between `begin_turn` and `finish`).
    in_turn: bool,
    /// When the answer's text last arrived: a stream that falls silent after it (the model
    /// writing a long tool call) gets its spinner back.
    last_text: Option<Instant>,
    /// Renders the answer's Markdown as it streams: on a terminal, unless `--raw`.
    markdown: Option<Markdown>,
    /// Where a question left unanswered goes (MARVIN_PHONE_TOPIC), and after how long.
    phone: Option<crate::config::PhoneRelay>,
}

/// How long the answer's text may pause before the spinner comes back.
const QUIET: Duration = Duration::from_secs(2);

/// How long the answer's text may pause before the word held until its end (to wrap it
/// whole) is shown as it is.
const HOLD: Duration = Duration::from_millis(250);

/// The calls of a tool round, and which are still running.
struct Round {
    started: Instant,
    calls: Vec<RoundCall>,
    running: Vec<String>,
}

/// A call as the round shows it.
struct RoundCall {
    id: String,
    name: String,
    /// What the call is about, on one line (see [`calls::key_argument`]).
    key: String,
    /// run_command's whole command, for `/last`.
    command: Option<String>,
}

impl Round {
    fn call(&self, id: &str) -> Option<&RoundCall> {
        self.calls.iter().find(|call| call.id == id)
    }

    /// What the spinner says while the round runs: the one call, or how many and which.
    fn label(&self, room: usize, style: Style) -> String {
        let running: Vec<&RoundCall> = self
            .calls
            .iter()
            .filter(|call| self.running.contains(&call.id))
            .collect();
        match running.as_slice() {
            [call] => calls::running(&call.name, &call.key, room, style),
            many => {
                let names: Vec<&str> = many.iter().map(|call| call.name.as_str()).collect();
                format!("{} tools: {}", many.len(), sanitize(&names.join(", ")))
            }
        }
    }
}

impl TerminalView {
    /// Colour when the environment allows it and stdout is a terminal; symbols as the locale
    /// allows.
    pub(crate) fn new(config: &crate::config::Config) -> Self {
        let answer = Out::stdout(false);
        let terminal = answer.is_terminal();
        let style = Style {
            colour: config.colour_allowed && terminal,
            unicode: config.unicode,
        };
        Self {
            side: (!terminal).then(Out::stderr),
            markdown: (terminal && !config.raw)
                .then(|| Markdown::new(style, super::width::terminal_width() - 1)),
            style,
            answer,
            dumb: config.dumb_terminal,
            round: None,
            spinner: None,
            transient_shown: false,
            last_output: None,
            in_turn: false,
            last_text: None,
            phone: config.phone.clone(),
            verbose: config.verbose,
        }
    }

    /// Where questions left unanswered go, if anywhere.
    pub(crate) fn phone_relay(&self) -> Option<&crate::config::PhoneRelay> {
        self.phone.as_ref()
    }

    /// A turn begins: the model is waited for.
    pub(crate) fn begin_turn(&mut self) {
        self.spinner = Some(Spinner::new("thinking".into()));
        self.in_turn = true;
        self.last_text = None;
    }

    /// Shows the word the renderer held when the answer pauses in the middle of it; draws the
    /// spinner's next frame, when one is due, on a terminal that can rewrite a line (none when
    /// the answer goes to a pipe or a file, nor with TERM=dumb).
    pub(crate) fn tick(&mut self) {
        if let (Some(markdown), Some(at)) = (&mut self.markdown, self.last_text) {
            if at.elapsed() >= HOLD && !self.transient_shown {
                let held = markdown.release();
                self.answer.write(&held);
            }
        }
        let (style, dumb) = (self.style, self.dumb);
        if dumb || !self.answer.is_terminal() {
            return;
        }
        let silent = self.last_text.filter(|at| at.elapsed() >= QUIET);
        if let (None, None, true, Some(since)) = (&self.spinner, &self.round, self.in_turn, silent)
        {
            self.spinner = Some(Spinner::since("thinking".into(), since));
        }
        let room = line_width();
        let frame = self
            .spinner
            .as_mut()
            .and_then(|s| s.frame(Instant::now(), room, style));
        if let Some(frame) = frame {
            self.transient(&frame);
        }
    }

    /// The last command run_command ran in this session and everything it printed.
    pub(crate) fn last_output(&self) -> Option<(&str, &str)> {
        self.last_output
            .as_ref()
            .map(|(command, output)| (command.as_str(), output.as_str()))
    }

    /// Shows a tool's question and returns what the person did.
    pub(crate) fn ask(&mut self, prompt: &crate::interact::Prompt) -> crate::interact::Response {
        self.clear_transient();
        self.settle_answer();
        self.answer.end_line();
        let (style, dumb) = (self.style, self.dumb);
        let out = self.side.as_mut().unwrap_or(&mut self.answer);
        super::ask::Asker::new(out, style, dumb).ask(prompt)
    }

    /// Ends the lines in progress and flushes, so that another thread may ask a question on
    /// the terminal; says how (this view writes nothing until it is answered).
    pub(crate) fn hand_over(&mut self) -> Handover {
        self.clear_transient();
        self.settle_answer();
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

    /// Writes what the Markdown renderer still holds of the answer so far (the text before a
    /// tool round, a question or a notice is a document of its own).
    fn settle_answer(&mut self) {
        if let Some(markdown) = &mut self.markdown {
            let rest = markdown.finish();
            self.answer.write(&rest);
        }
    }

    /// A line (or several) of Marvin's own, starting on a fresh line; a line too wide for the
    /// terminal is wrapped at its spaces.
    pub(crate) fn side_line(&mut self, text: &str) {
        self.side_text(&super::width::fit(text, line_width()));
    }

    /// Text shown as it is (a command's output), starting on a fresh line.
    pub(crate) fn side_text(&mut self, text: &str) {
        self.clear_transient();
        self.settle_answer();
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
        if let Some(spinner) = &mut self.spinner {
            spinner.hidden();
        }
    }

    /// A warning from below the front-end (a store file moved aside), on a line of its own
    /// as the house writes them: `marvin: ...` on stderr.
    pub(crate) fn warning(&mut self, message: &str) {
        self.clear_transient();
        self.settle_answer();
        self.answer.end_line();
        self.side().end_line();
        self.answer.flush();
        warn(message);
    }

    pub(crate) fn on_event(&mut self, event: &Event) {
        let style = self.style;
        match event {
            Event::Text { text } => {
                self.spinner = None;
                self.last_text = Some(Instant::now());
                self.clear_transient();
                match &mut self.markdown {
                    Some(markdown) => {
                        let shown = markdown.push(text);
                        self.answer.write(&shown);
                    }
                    None => self.answer.write_outside(text),
                }
            }
            Event::Notice {
                level: Level::Info,
                message,
            } => {
                let sign = style.glyph("⚠", "!");
                let first = format!("  {sign} ");
                let text = super::width::wrap(&first, &sanitize(message), 4, line_width());
                self.side_line(&style.yellow(&text))
            }
            Event::Notice {
                level: Level::Warning,
                message,
            } => self.warning(message),
            Event::Notification { message } => {
                let bell = style.glyph("🔔", "*");
                let line =
                    super::notification::one_line(bell, message, line_width(), style.unicode);
                self.side_line(&line);
            }
            Event::ToolRound { calls, .. } => {
                let calls: Vec<RoundCall> = calls
                    .iter()
                    .map(|c| RoundCall {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        key: calls::key_argument(&c.name, &c.arguments, style),
                        command: c.arguments["command"].as_str().map(str::to_string),
                    })
                    .collect();
                let round = Round {
                    started: Instant::now(),
                    running: calls.iter().map(|call| call.id.clone()).collect(),
                    calls,
                };
                let label = round.label(line_width(), style);
                self.spinner = Some(Spinner::since(label, round.started));
                self.round = Some(round);
                self.clear_transient();
                self.settle_answer();
            }
            Event::ToolProgress { id, text } => self.progress(id, text),
            Event::ToolsOffered {
                families,
                tools,
                bytes,
            } => {
                if self.verbose {
                    let line = format!("  {}", tools_line(families, *tools, *bytes));
                    let line = self.style.dim(&sanitize(&line));
                    self.side_line(&line);
                }
            }
            Event::ToolResult {
                id,
                name,
                turned_back: true,
                ..
            } => self.turned_back(id, name),
            Event::ToolResult {
                id,
                name,
                elapsed,
                is_error,
                output,
                ..
            } => self.call_finished(id, name, *elapsed, *is_error, output),
            Event::ToolRoundFinished { .. } => {
                self.round = None;
                self.clear_transient();
                self.spinner = Some(Spinner::new("thinking".into()));
            }
            Event::ModelCall { .. } | Event::QuestionClosed { .. } => {}
        }
    }

    /// A call of the round ended: its line (and what it adds) goes above the spinner, which
    /// goes on for the calls still running.
    fn call_finished(
        &mut self,
        id: &str,
        name: &str,
        elapsed: Duration,
        is_error: bool,
        output: &str,
    ) {
        let style = self.style;
        let call = self.round.as_ref().and_then(|round| round.call(id));
        let key = call.map(|c| c.key.clone()).unwrap_or_default();
        let command = call.and_then(|c| c.command.clone());
        let finished = Finished {
            name,
            key: &key,
            seconds: elapsed.as_secs_f64(),
            is_error,
            output,
        };
        let lines = finished.lines(style, line_width()).join("\n");
        self.side_line(&lines);
        // An interview answered in the browser: what was answered there is shown here too.
        if let Some(said) = crate::interact::form::record::of_result(name, output) {
            let said = said.replacen("interview answered", "answered", 1);
            let text = super::width::wrap("    ", &sanitize(&said), 6, line_width());
            self.side_line(&style.dim(&text));
        }
        // A command that ran, or ran until it was stopped: a refused one leaves the last one's.
        let ran = match (name, is_error) {
            ("run_command", false) => Some(output),
            ("run_command", true) => crate::tools::coding::shell::stopped(output).map(|s| s.1),
            _ => None,
        };
        if let (Some(command), Some(output)) = (command, ran) {
            self.last_output = Some((command, output.to_string()));
        }
        self.call_ended(id);
    }

    /// Call `id` is over: the spinner goes on for the calls of the round still running.
    fn call_ended(&mut self, id: &str) {
        let style = self.style;
        if let Some(round) = &mut self.round {
            round.running.retain(|call| call != id);
            let label = round.label(line_width(), style);
            match (&mut self.spinner, round.running.is_empty()) {
                (_, true) => self.spinner = None,
                (Some(spinner), false) => spinner.relabel(label),
                (None, false) => self.spinner = Some(Spinner::since(label, round.started)),
            }
        }
    }

    /// The ticket gate turned call `id` back: one dim line, and the round goes on.
    fn turned_back(&mut self, id: &str, name: &str) {
        let call = self.round.as_ref().and_then(|round| round.call(id));
        let key = call.map(|c| c.key.clone()).unwrap_or_default();
        let line = calls::turned_back(name, &key, self.style, line_width());
        self.side_line(&line);
        self.call_ended(id);
    }

    /// Call `id` says how far it is: the spinner shows it (on a terminal; a log keeps none).
    fn progress(&mut self, id: &str, text: &str) {
        let Some(round) = &self.round else {
            return;
        };
        let Some(RoundCall { name, .. }) = round.call(id) else {
            return;
        };
        // The spinner's one line: a command's progress is its output's last lines, of which
        // the last is shown.
        let text = text.lines().last().unwrap_or_default();
        let detail = match round.running.len() {
            1 => sanitize(text).into_owned(),
            _ => format!("{}: {}", sanitize(name), sanitize(text)),
        };
        if let Some(spinner) = &mut self.spinner {
            spinner.detail(detail);
        }
        self.tick();
    }

    /// Closes the turn: the cancel marker and the status line, or the error alone.
    pub(crate) fn finish(&mut self, report: &TurnReport, status: &Status<'_>) {
        self.spinner = None;
        self.round = None;
        self.in_turn = false;
        self.clear_transient();
        self.settle_answer();
        if self.answer.is_broken() {
            return; // Nobody reads the answer: end quietly.
        }
        let style = self.style;
        match &report.end {
            TurnEnd::Answered(message) if message.text().trim().is_empty() => {
                self.side_line(&style.dim("(the model gave no answer)"));
            }
            TurnEnd::Answered(_) => {}
            // The terminal asks itself: a turn here never parks.
            TurnEnd::Parked => {}
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
        // A call cut short by Ctrl+C reports no usage: nothing known is not zero.
        let tokens = match (&report.end, tally.input_tokens + tally.output_tokens) {
            (TurnEnd::Cancelled, 0) => "cancelled, usage unknown".to_string(),
            _ if tally.cached_tokens > 0 => format!(
                "{} in ({} cached) / {} out",
                tally.input_tokens, tally.cached_tokens, tally.output_tokens
            ),
            _ => format!("{} in / {} out", tally.input_tokens, tally.output_tokens),
        };
        let mut parts = vec![
            status.provider.to_string(),
            status.model.to_string(),
            tokens,
        ];
        parts.extend(format_cost(tally));
        parts.push(seconds(report.elapsed));
        // The default profile goes without saying.
        if status.profile != "default" {
            parts.push(format!("profile {}", status.profile));
        }
        parts.push(format!("{} messages", status.messages));
        if status.coding {
            parts.push("code".into());
        }

        let separator = format!(" {} ", style.glyph("·", "|"));
        let lines = super::width::join_within(&parts, &separator, line_width(), style.unicode);
        for line in lines {
            self.side_line(&style.dim(&line));
        }
        self.answer.flush();
    }
}

fn seconds(elapsed: Duration) -> String {
    format!("{:.1}s", elapsed.as_secs_f64())
}
