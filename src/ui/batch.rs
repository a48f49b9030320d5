//! The non-interactive writer (seed 002 §6.5): raw answer tokens on stdout, `  🔧 a, b` before
//! each tool round, or with --json one event object per line; and what happens when a tool
//! asks (`--on-ask`): nothing reaches this view (deny), the run ends (fail), or the question
//! goes out as an event and its answer comes on stdin or from the phone (see `batch_ask`);
//! a question its tool left open is asked again after the turn (see `late`).

mod late;

use serde_json::{Value, json};

use std::time::Duration;

use super::ask_json::{RUN_FIELDS, question_event, response_to};
use super::batch_ask::{Answers, Surfaces};
use super::output::{Out, warn};
use super::park;
use super::signal::{self, Watch};
use crate::config::OnAsk;
use crate::interact::{Request, Response};
use crate::session::{
    Event, Interaction, Level, TurnEnd, TurnReport, TurnUi, describe_request, tools_line,
};
use crate::store::sessions::Meta;
use crate::tools::everyday::ntfy::Ntfy;

/// The exit status of a run that ended on a question with `--on-ask fail`.
pub(crate) const ASKED: u8 = 3;
/// The exit status of a run parked on a question (`--on-ask park`).
pub(crate) const PARKED: u8 = 4;

/// Characters of a tool result shown in a `tool_result` event.
const PREVIEW_CHARS: usize = 200;

pub(crate) struct BatchView {
    out: Out,
    json: bool,
    /// `--verbose`: the tools each request offers, said on stderr.
    verbose: bool,
    watch: Watch,
    /// Line breaks that ended the text so far, held back until more text follows: the answer
    /// keeps every newline inside it and ends with exactly one.
    held_breaks: String,
    on_ask: OnAsk,
    /// `--on-ask stdin` or `notify`: the questions out and their answers in, once something
    /// was asked.
    answers: Option<Answers>,
    /// `--on-ask notify`: the ntfy server and the run's topic.
    phone: Option<(Ntfy, String)>,
    /// `--on-ask fail`: what was asked, which ends the run.
    failed_on: Option<String>,
    /// `--resume ID --answer TEXT`: the answer (as JSON), and the question it answers as the
    /// parked run showed it; it answers that question only, asked again.
    preset: Option<(Value, Value)>,
    /// `--on-ask park`: the questions the run stopped on, as their events have them.
    parked: Vec<Value>,
    /// The last turn's answer was written (its `message` event, or its closing newline):
    /// a question left open was asked after it.
    answer_said: bool,
}

impl TurnUi for BatchView {
    fn event(&mut self, event: &Event) {
        if let (Event::QuestionClosed { id, .. }, Some(answers)) = (event, &mut self.answers) {
            // Said whole where its question was asked.
            if answers.forget(*id) {
                let closed = serde_json::to_value(event).unwrap_or(Value::Null);
                self.asked(vec![closed]);
            }
        }
        self.on_event(event);
    }

    fn ask(&mut self, interaction: Interaction) {
        self.out.flush();
        if let Some((answer, answered)) = self.preset.take() {
            let asked = question_event(
                interaction.id,
                &interaction.prompt,
                &interaction.correlation,
            );
            if as_parked(asked) != answered {
                // Something else is asked (the question changed, or another call asks first):
                // the answer given was not to this.
                self.preset = Some((answer, answered));
            } else {
                match response_to(&interaction.prompt.request, &answer) {
                    Ok(response) => return interaction.reply.send(response),
                    Err(why) => warn(&format!("--answer does not fit the question asked: {why}")),
                }
            }
        }
        match self.on_ask {
            // With `deny` tools have no interactor; were one to ask, nobody would answer.
            OnAsk::Deny => interaction.reply.send(Response::TimedOut),
            OnAsk::Fail => {
                self.failed_on
                    .get_or_insert_with(|| describe_request(&interaction.prompt.request));
                interaction.reply.send(Response::Cancelled);
            }
            OnAsk::Park => self.park(interaction),
            OnAsk::Stdin | OnAsk::Notify | OnAsk::Wait(_) => {
                let Some(answers) = self.answers() else {
                    return interaction.reply.send(Response::TimedOut);
                };
                let events = answers.ask(interaction);
                self.asked(events);
            }
        }
    }

    /// The answer's text is written as it comes but flushed here, when the turn has nothing
    /// more for now: one write(2) for the tokens of a burst instead of one a token.
    fn idle(&mut self) {
        self.out.flush();
    }

    fn interrupted(&mut self) -> bool {
        if let Some(answers) = &mut self.answers {
            let events = answers.poll();
            self.asked(events);
        }
        self.watch.fired() || self.out.is_broken() || self.failed_on.is_some()
    }
}

impl BatchView {
    /// Flushes every event: the parent process reads the stream as it comes.
    pub(crate) fn new(json: bool, verbose: bool, on_ask: OnAsk) -> Self {
        Self {
            out: Out::stdout(true),
            json,
            verbose,
            watch: Watch::new(),
            held_breaks: String::new(),
            on_ask,
            answers: None,
            phone: None,
            failed_on: None,
            preset: None,
            parked: Vec::new(),
            answer_said: false,
        }
    }

    /// `--resume ID --answer TEXT`: `answer` (checked against `question`, the one the run
    /// waits for) answers that question when it is asked again, and nothing else.
    pub(crate) fn with_answer(mut self, answer: Value, question: Value) -> Self {
        self.preset = Some((answer, as_parked(question)));
        self
    }

    /// `--on-ask park`: the question is kept, and the run stops once the round is done. A page
    /// to fill in (the interview) lives only as long as the run: it cannot wait.
    fn park(&mut self, interaction: Interaction) {
        if let Request::Form(form) = &interaction.prompt.request {
            warn(&format!(
                "{} cannot wait for a later answer (--on-ask park): it was not shown",
                form.title
            ));
            return interaction.reply.send(Response::Cancelled);
        }
        let asked = question_event(
            interaction.id,
            &interaction.prompt,
            &interaction.correlation,
        );
        self.parked.push(as_parked(asked));
        interaction.reply.send(Response::Parked);
    }

    /// The questions the run parked on, for `Session::park`.
    pub(crate) fn take_parked(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.parked)
    }

    /// The end of a parked run: how to go on (the `parked` event with --json), exit status 4;
    /// or why it could not be parked (exit status 1).
    pub(crate) fn finish_parked(
        &mut self,
        report: &TurnReport,
        parked: Result<Meta, String>,
    ) -> u8 {
        self.out.end_line();
        let meta = match parked {
            Ok(meta) => meta,
            Err(why) => {
                let message =
                    format!("the run stopped on a question and could not be parked: {why}");
                if self.json {
                    self.emit(json!({"type": "error", "kind": "park", "message": message}));
                    self.emit_usage(report);
                }
                warn(&message);
                self.out.flush();
                return 1;
            }
        };
        let expires = meta.parked.as_ref().map_or("", |p| p.expires_at.as_str());
        let answer_with = park::how_to_answer(&meta);
        if self.json {
            let questions = meta.parked.as_ref().map(|p| p.questions.clone());
            self.emit(json!({
                "type": "parked", "session": meta.id, "questions": questions,
                "answer_with": answer_with, "expires_at": expires,
            }));
            self.emit_usage(report);
        }
        warn(&format!(
            "parked: the run waits for {}; go on with: {answer_with} (it waits until {expires})",
            park::waits_for(&meta)
        ));
        self.out.flush();
        PARKED
    }

    /// Events of questions asked from outside: on the --json stream; without it (questions
    /// sent to the phone) the plain answer stays clean and stderr says what was asked.
    fn asked(&mut self, events: Vec<Value>) {
        if !events.is_empty() {
            self.out.flush();
        }
        for event in events {
            if self.json {
                self.emit(event);
                continue;
            }
            match event["type"].as_str().unwrap_or("") {
                "question" | "approval" | "input" => {
                    warn("a question was sent to the phone by ntfy; the run waits for its answer")
                }
                "question_closed" => warn(&format!(
                    "the question was closed: {}",
                    event["outcome"].as_str().unwrap_or("")
                )),
                _ => warn(event["message"].as_str().unwrap_or("")),
            }
        }
    }

    /// `--on-ask notify`: questions go to `topic` on `ntfy`.
    pub(crate) fn with_phone(mut self, ntfy: Ntfy, topic: String) -> Self {
        self.phone = Some((ntfy, topic));
        self
    }

    /// Where answers come from, started at the first question; `None` (said on stderr) when
    /// the phone cannot be reached that way.
    fn answers(&mut self) -> Option<&mut Answers> {
        if self.answers.is_none() {
            let surfaces = match (self.on_ask, self.phone.take()) {
                (OnAsk::Stdin, _) => Surfaces {
                    stdin: true,
                    phone: None,
                    wait: None,
                },
                (OnAsk::Notify, phone) => Surfaces {
                    stdin: false,
                    phone,
                    wait: None,
                },
                (OnAsk::Wait(seconds), phone) => Surfaces {
                    stdin: self.json,
                    phone,
                    wait: Some(Duration::from_secs(seconds)),
                },
                (OnAsk::Deny | OnAsk::Fail | OnAsk::Park, _) => return None,
            };
            // A phone that could not be reached before is not tried again: nothing is asked.
            if !surfaces.stdin && surfaces.phone.is_none() {
                return None;
            }
            self.answers = match Answers::start(surfaces) {
                Ok(answers) => Some(answers),
                Err(why) => {
                    warn(&format!("--on-ask: {why}"));
                    None
                }
            };
        }
        self.answers.as_mut()
    }

    pub(crate) fn is_broken(&self) -> bool {
        self.out.is_broken()
    }

    fn emit(&mut self, value: Value) {
        self.out.write(&format!("{value}\n"));
    }

    pub(crate) fn on_event(&mut self, event: &Event) {
        // The answer's text held back goes out before anything else is said (on stderr too).
        if !matches!(event, Event::Text { .. }) {
            self.out.flush();
        }
        // Warnings from below (a store file moved aside) go to stderr in both modes.
        if let Event::Notice {
            level: Level::Warning,
            message,
        } = event
        {
            return warn(message);
        }
        if self.json {
            if let Some(value) = json_event(event) {
                self.emit(value);
            }
            return;
        }
        match event {
            Event::Text { text } => self.write_text(text),
            Event::ToolRound { calls, .. } => {
                let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
                self.held_breaks.clear();
                self.out.end_line();
                self.out
                    .write_outside(&format!("  🔧 {}\n", names.join(", ")));
            }
            Event::Notice { message, .. } => warn(message),
            // On stderr: stdout is the answer alone. `--json` gives the message whole.
            Event::Notification { message } => {
                let width = crate::ui::width::line_width();
                eprintln!(
                    "{}",
                    super::notification::one_line("🔔", message, width, true)
                );
            }
            Event::ToolsOffered {
                families,
                tools,
                bytes,
            } if self.verbose => warn(&tools_line(families, *tools, *bytes)),
            _ => {}
        }
    }

    /// Writes a streamed chunk. Services send `"\n"` and `"\n\n"` as chunks of their own, so a
    /// chunk's trailing line breaks are held until more text shows they were inside the answer;
    /// the ones still held at the end give way to the single final newline (seed 002 §6.5).
    /// The chunk is not flushed: the pump's `idle` (or what is written next) flushes it.
    fn write_text(&mut self, text: &str) {
        let body = text.trim_end_matches(['\n', '\r']);
        if !body.is_empty() {
            let held = std::mem::take(&mut self.held_breaks);
            self.out.write_held(&held);
            self.out.write_outside_held(body);
        }
        self.held_breaks.push_str(&text[body.len()..]);
    }

    /// Writes the end of the turn and returns the exit status: 0, 1, or 128 + the signal that
    /// stopped it (130 Ctrl+C, 143 SIGTERM, 129 SIGHUP).
    pub(crate) fn finish(&mut self, report: &TurnReport) -> u8 {
        if let Some(asked) = self.failed_on.take() {
            return self.finish_asked(report, &asked);
        }
        let code = match &report.end {
            TurnEnd::Answered(_) => 0,
            TurnEnd::Failed(_) | TurnEnd::Parked => 1,
            TurnEnd::Cancelled => signal::stopped_status(),
        };
        if self.json {
            self.finish_json(report);
        } else {
            match &report.end {
                TurnEnd::Answered(_) if self.answer_said => {}
                TurnEnd::Answered(_) => self.out.write("\n"),
                TurnEnd::Cancelled => self.out.write("\n[Cancelled]\n"),
                TurnEnd::Failed(_) | TurnEnd::Parked => self.out.end_line(),
            }
        }
        if let TurnEnd::Failed(error) = &report.end {
            warn(&error.message);
        }
        self.out.flush();
        code
    }

    /// `--on-ask fail`: the run ended on a question nobody could answer; exit status 3.
    fn finish_asked(&mut self, report: &TurnReport, asked: &str) -> u8 {
        let message = format!(
            "a tool asked and --on-ask fail ends the run: {asked}; run it where someone can answer, or with --on-ask stdin"
        );
        if self.json {
            self.emit(json!({"type": "error", "kind": "question", "message": message}));
            self.emit_usage(report);
        } else {
            self.out.end_line();
        }
        warn(&message);
        self.out.flush();
        ASKED
    }

    fn finish_json(&mut self, report: &TurnReport) {
        match &report.end {
            TurnEnd::Answered(_) if self.answer_said => {}
            TurnEnd::Answered(message) => {
                self.emit(json!({"type": "message", "text": message.text()}))
            }
            TurnEnd::Cancelled => self.emit(
                json!({"type": "error", "kind": "cancelled", "message": signal::stopped_by()}),
            ),
            TurnEnd::Failed(error) => {
                let mut event =
                    json!({"type": "error", "kind": error.kind.as_str(), "message": error.message});
                // The answer broke off: the text events before are its start, not all of it.
                if error.cut {
                    event["cut"] = Value::Bool(true);
                }
                self.emit(event);
            }
            TurnEnd::Parked => self.emit(
                json!({"type": "error", "kind": "park", "message": "the run stopped on a question"}),
            ),
        }
        self.emit_usage(report);
    }

    fn emit_usage(&mut self, report: &TurnReport) {
        let tally = &report.tally;
        let cost = if tally.model_cost.is_empty() {
            Value::Null
        } else {
            json!(tally.cost)
        };
        self.emit(json!({
            "type": "usage",
            "input_tokens": tally.input_tokens,
            "cached_tokens": tally.cached_tokens,
            "output_tokens": tally.output_tokens,
            "llm_turns": tally.llm_turns,
            "cost_usd": cost,
            "context": report.context,
        }));
    }
}

/// A question's event as a parked run keeps it: without what names it in one run only (its
/// id, turn, call, time) and a reprompt's error.
fn as_parked(mut event: Value) -> Value {
    if let Some(fields) = event.as_object_mut() {
        fields.remove("id");
        fields.remove("error");
        for name in RUN_FIELDS {
            fields.remove(name);
        }
    }
    event
}

/// The --json stream's line for an event (a contract of its own: see tests/integration/cli.rs).
fn json_event(event: &Event) -> Option<Value> {
    Some(match event {
        Event::Text { text } => json!({"type": "text", "text": text}),
        Event::Notice { message, .. } => json!({"type": "notice", "message": message}),
        Event::Notification { message } => json!({"type": "notification", "message": message}),
        Event::ToolRound { round, calls } => {
            let calls: Vec<Value> = calls
                .iter()
                .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
                .collect();
            json!({"type": "tool_round", "round": round, "calls": calls})
        }
        Event::ToolResult {
            round,
            id,
            name,
            elapsed,
            is_error,
            output,
            ..
        } => {
            let preview: String = output.chars().take(PREVIEW_CHARS).collect();
            json!({
                "type": "tool_result",
                "round": round,
                "id": id,
                "name": name,
                "elapsed_ms": elapsed.as_millis() as u64,
                "is_error": is_error,
                "preview": preview,
            })
        }
        Event::ToolsOffered {
            families,
            tools,
            bytes,
        } => json!({"type": "tools", "families": families, "tools": tools, "bytes": bytes}),
        Event::ModelCall { .. }
        | Event::ToolProgress { .. }
        | Event::ToolRoundFinished { .. }
        | Event::QuestionClosed { .. } => return None,
    })
}
