//! A session served to clients over HTTP: the `Session` behind a lock, each turn on a thread of
//! its own, everything it says broadcast as numbered events, and the questions its tools ask
//! held until a client answers. The first answer counts; a later one is told it came second.
//! A question its tool left open ("pending", seed 003) is asked again after the turn and kept
//! until someone answers it; that late answer starts a follow-up turn, announced to every
//! client as its `user_message` (`"followUp": true`), once no turn is under way.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::answers::Refused;
use super::broadcast::Broadcaster;
use super::events;
use super::followers::Followers;
use super::legacy_events;
use super::questions::{NotTaken, Questions, Which};
use super::text::Waiting;
use crate::interact::{Request, Response};
use crate::session::{
    Answered, Deferred, Event, Interaction, Session, TurnEnd, TurnReport, TurnUi,
};

pub(crate) struct Served {
    pub id: String,
    session: Mutex<Session>,
    pub events: Broadcaster,
    /// A turn is under way: one prompt at a time (seed 002 §1.5).
    running: AtomicBool,
    /// Held while a turn starts or ends, so a client that saw `done` and sends at once finds
    /// the turn over, and no turn's first event comes before the last one's `done`.
    turn_gate: Mutex<()>,
    /// A client asked to stop the turn.
    cancel: AtomicBool,
    /// It was a client's Stop (not the gateway stopping): the turn's tools say so.
    stopped_from_page: AtomicBool,
    questions: Mutex<Questions>,
    /// How long a question waits for a client (MARVIN_QUESTION_TIMEOUT), else the tool's own.
    question_timeout: Option<Duration>,
    /// The clients following the session, and which of them answer questions.
    pub followers: Followers,
}

/// What a turn starts with.
enum Start {
    /// A person's message.
    Message(String),
    /// A parked run's question, asked again.
    Parked,
    /// The late answers that came, as a message (none came: no turn).
    FollowUp,
}

/// How long a question waits for a client that answers questions to connect, when none is.
const NOBODY_GRACE: Duration = Duration::from_secs(2);
impl Served {
    pub(crate) fn new(
        id: String,
        mut session: Session,
        events: Broadcaster,
        question_timeout: Option<Duration>,
    ) -> Self {
        session.number_questions_after(events.last_interaction());
        // Asked in the session's earlier life and never answered: nobody waits on them now.
        for asked in events.unanswered() {
            events.publish("interaction_response", events::no_longer_open(&asked));
        }
        if events.turn_unfinished() {
            events.publish(
                "error",
                json!({"kind": "interrupted",
                       "message": "the gateway stopped during this turn, before it was saved: the model never saw this message; send it again"}),
            );
        }
        Self {
            id,
            session: Mutex::new(session),
            events,
            running: AtomicBool::new(false),
            turn_gate: Mutex::new(()),
            cancel: AtomicBool::new(false),
            stopped_from_page: AtomicBool::new(false),
            questions: Mutex::new(Questions::default()),
            question_timeout,
            followers: Followers::default(),
        }
    }

    pub(crate) fn is_running(&self) -> bool {
        self.running.load(Ordering::SeqCst)
    }

    /// Starts a turn for `text` on a thread of its own; false when one is under way already.
    pub(crate) fn start_turn(self: &Arc<Self>, text: String) -> Result<(), String> {
        self.start(Start::Message(text))
    }

    /// Takes up the turn a parked run stopped on (`--on-ask park`): its question goes to the
    /// clients, and the turn goes on with the first answer.
    pub(crate) fn resume_parked(self: &Arc<Self>) -> Result<(), String> {
        self.start(Start::Parked)
    }

    /// Starts a follow-up turn for the late answers that came (seed 003: a late answer is a
    /// new message), as `--on-ask stdin` does; while a turn runs they wait for its end.
    fn follow_up(self: &Arc<Self>) {
        // Under way already: the turn takes the answers, or starts this when it ends.
        let _ = self.start(Start::FollowUp);
    }

    fn start(self: &Arc<Self>, start: Start) -> Result<(), String> {
        let _gate = self
            .turn_gate
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.is_running() {
            return Err("a turn is under way: wait for its done event, or cancel it".into());
        }
        // Every client hears the turn's message: the person's, or the late answer's.
        let text = match start {
            Start::Message(text) => {
                self.publish("user_message", json!({ "content": text }));
                Some(text)
            }
            Start::Parked => None,
            Start::FollowUp => {
                let Some(text) = self.take_follow_up() else {
                    return Ok(());
                };
                self.publish("user_message", json!({"content": text, "followUp": true}));
                Some(text)
            }
        };
        self.running.store(true, Ordering::SeqCst);
        self.cancel.store(false, Ordering::SeqCst);
        self.stopped_from_page.store(false, Ordering::SeqCst);
        let served = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("gateway-turn".into())
            .spawn(move || served.run_turn(text.as_deref()));
        spawned.map(|_| ()).map_err(|error| {
            self.running.store(false, Ordering::SeqCst);
            format!("cannot start the turn: {error}")
        })
    }

    /// The late answers that came, given to the session; the message that carries the last
    /// (the others go before it), none when none came (answers a failed turn left wait for
    /// the next message, as in the REPL). Only between turns, under the gate.
    fn take_follow_up(&self) -> Option<String> {
        let answered = std::mem::take(
            &mut self
                .questions
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .late_answers,
        );
        if answered.is_empty() {
            return None;
        }
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        for (deferred, response) in answered {
            session.answer_later(deferred, &response);
        }
        session.take_follow_up()
    }

    fn run_turn(self: Arc<Self>, text: Option<&str>) {
        let (report, late) = {
            let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
            let answered = {
                let mut questions = self
                    .questions
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                // Only this turn's calls ask from now on.
                questions.arguments.clear();
                std::mem::take(&mut questions.late_answers)
            };
            for (deferred, response) in answered {
                session.answer_later(deferred, &response);
            }
            let mut ui = Clients::new(Arc::clone(&self));
            let report = match text {
                Some(text) => session.submit(text, &mut ui),
                None => session.resume_parked(&mut ui),
            };
            ui.send_text();
            let late: Vec<(u64, Deferred)> = session
                .take_deferred()
                .into_iter()
                .map(|deferred| (session.next_question_id(), deferred))
                .collect();
            (report, late)
        };
        // Over before `done` is told: a client that saw it finds the turn over everywhere,
        // and one that sends at once waits at the gate until `done` has gone out.
        let gate = self
            .turn_gate
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        self.running.store(false, Ordering::SeqCst);
        self.finish(&report);
        self.ask_late(late);
        drop(gate);
        // Late answers that came during the turn start the next one.
        self.follow_up();
    }

    fn finish(&self, report: &TurnReport) {
        let tally = &report.tally;
        let usage = json!({
            "input_tokens": tally.input_tokens, "output_tokens": tally.output_tokens,
            "llm_turns": tally.llm_turns, "cost_usd": tally.cost,
            "elapsed_ms": report.elapsed.as_millis() as u64,
            "elapsed_us": report.elapsed.as_micros() as u64,
        });
        match &report.end {
            TurnEnd::Answered(answer) => {
                self.publish("done", json!({"answer": answer.text(), "usage": usage}))
            }
            TurnEnd::Cancelled => self.publish(
                "error",
                json!({"kind": "cancelled", "message": "the turn was cancelled", "usage": usage}),
            ),
            TurnEnd::Failed(error) => self.publish(
                "error",
                json!({"kind": error.kind.as_str(), "message": error.message, "usage": usage}),
            ),
            // Clients ask themselves: a served turn never parks.
            TurnEnd::Parked => {}
        }
    }

    /// Turns coding mode on or off (`!code` from a page, `{"code": true}` at creation), between
    /// turns only; every client hears of it.
    pub(crate) fn set_coding(&self, on: Option<bool>) -> Result<bool, String> {
        let _gate = self
            .turn_gate
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.is_running() {
            return Err("a turn is under way: change the mode after its done event".into());
        }
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        let on = on.unwrap_or(!session.coding_mode());
        session.set_coding_mode(on);
        let message = match on {
            true => {
                "coding mode on: the tools that change files, run commands and commit are offered too (send !code again to turn it off)"
            }
            false => "coding mode off: the project is only read",
        };
        self.publish(
            "notice",
            json!({"level": "info", "message": message, "coding": on}),
        );
        Ok(on)
    }

    /// Asks the turn under way to stop; false when none is.
    pub(crate) fn cancel(&self) -> bool {
        self.cancel.store(true, Ordering::SeqCst);
        self.is_running()
    }

    /// A client's Stop (`POST …/cancel`): [`Self::cancel`], and the turn's tools tell the
    /// model it was stopped from the page, not by Ctrl+C.
    pub(crate) fn stop_from_page(&self) -> bool {
        self.stopped_from_page.store(true, Ordering::SeqCst);
        self.cancel()
    }

    fn publish(&self, kind: &str, event: Value) {
        if let Some(problem) = self.events.publish(kind, event) {
            // The clients hear of it; the session goes on without its log.
            self.events
                .publish("notice", json!({"level": "warning", "message": problem}));
        }
    }

    /// Answers the question `which` names with what `answer` builds from its request.
    /// `by` is the client answering, when it says; one whose interactive mode is off is
    /// refused.
    pub(crate) fn answer(
        self: &Arc<Self>,
        which: &Which,
        by: Option<&str>,
        answer: impl FnOnce(&Request) -> Result<Response, Refused>,
    ) -> Result<(), NotTaken> {
        if let Some(client) = by.filter(|client| self.followers.watches_only(client)) {
            return Err(NotTaken::ReadOnly(client.to_string()));
        }
        let mut questions = self
            .questions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let id = questions.find(which)?;
        if let Some((open, _)) = questions.open.get(&id) {
            let response = answer(&open.prompt.request).map_err(NotTaken::Invalid)?;
            questions
                .answered
                .insert(id, events::answered_by(by, &response));
            if let Some(reply) = questions.close(id) {
                reply.send(response);
            }
            return Ok(());
        }
        // Left open by a finished tool: nothing will ask again, so the answer must be whole.
        let Some(late) = questions.late.remove(&id) else {
            return Err(NotTaken::Unknown);
        };
        let response = match answer(&late.prompt.request) {
            Ok(response) if !super::answers::leaves_other_empty(&response) => response,
            refused => {
                questions.late.insert(id, late);
                return Err(NotTaken::Invalid(
                    refused
                        .err()
                        .unwrap_or_else(|| Refused::from(crate::interact::EMPTY_OTHER)),
                ));
            }
        };
        let answer = Answered::new(&late.prompt, &response, late.correlation.clone());
        let closed = events::response(
            id,
            crate::session::describe_response(&response),
            answer,
            Some(events::answered_by(by, &response)),
        );
        questions
            .closed
            .insert(id, late.correlation.tool_call_id.clone());
        questions.late_answers.push((late, response));
        drop(questions);
        self.publish("interaction_response", closed);
        self.follow_up();
        Ok(())
    }

    /// Asks again, after the turn, the questions its tools left open; each keeps its place
    /// until someone answers it. Each is a prompt of its own (a new `interactionId`) that
    /// belongs where it was first asked (its turn, response and call).
    fn ask_late(&self, late: Vec<(u64, Deferred)>) {
        for (id, mut deferred) in late {
            deferred.prompt.error = Some(crate::interact::STILL_OPEN.into());
            let correlation = &mut deferred.correlation;
            correlation.interaction_id = id.to_string();
            correlation.timestamp = crate::clock::iso8601_millis(std::time::SystemTime::now());
            if deferred.prompt.call_id.is_empty() {
                correlation.tool_call_id = format!("interaction-{id}");
            }
            let asked = self.prompt_events(&deferred.prompt, &deferred.correlation, None);
            self.questions
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .late
                .insert(id, deferred);
            for (kind, value) in asked {
                self.publish(kind, value);
            }
        }
    }

    /// The events that ask `prompt`: seed 003's `interaction_request`, then for the same
    /// prompt seed 001's `question_prompt` or seed 004's `approval_required`, for clients
    /// written to those seeds (see `legacy_events`).
    fn prompt_events(
        &self,
        prompt: &crate::interact::Prompt,
        correlation: &crate::session::Correlation,
        waits: Option<Duration>,
    ) -> Vec<(&'static str, Value)> {
        let request = events::request(prompt, correlation, waits);
        let questions = self
            .questions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let arguments = questions.arguments.get(&correlation.tool_call_id);
        let older = legacy_events::for_prompt(prompt, correlation, arguments);
        std::iter::once((events::REQUEST, request))
            .chain(older)
            .collect()
    }
}

impl Served {
    /// Questions nobody answered in time end as not answered, and questions no client can
    /// answer (none connected answers questions) end as unavailable, saying why; the tool
    /// tells the model.
    fn time_out_questions(&self) {
        let nobody = self.followers.why_nobody_answers();
        let mut questions = self
            .questions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let ended: Vec<(u64, Response)> = questions
            .open
            .iter()
            .filter_map(|(id, (open, asked))| {
                let waited = asked.elapsed();
                let ended = match nobody {
                    _ if waited >= self.question_timeout.unwrap_or(open.prompt.timeout) => {
                        Response::TimedOut
                    }
                    Some(why) if waited >= NOBODY_GRACE => Response::Unavailable(why.into()),
                    _ => return None,
                };
                Some((*id, ended))
            })
            .collect();
        for (id, response) in ended {
            if let Some(reply) = questions.close(id) {
                reply.send(response);
            }
        }
    }
}

/// The served session's clients, as the turn's front-end.
struct Clients {
    served: Arc<Served>,
    text: Waiting,
}

impl Clients {
    fn new(served: Arc<Served>) -> Self {
        Self {
            served,
            text: Waiting::default(),
        }
    }

    /// Sends the text that waits as one `text_delta`.
    fn send_text(&mut self) {
        if let Some(text) = self.text.take() {
            self.publish(&Event::Text { text });
        }
    }

    fn publish(&self, event: &Event) {
        for (kind, value) in events::from_event(event) {
            self.served.publish(kind, value);
        }
    }
}

impl TurnUi for Clients {
    fn event(&mut self, event: &Event) {
        if let Event::Text { text } = event {
            if self.text.push(text, Instant::now()) {
                self.send_text();
            }
            return;
        }
        // Whatever comes next comes after the text before it.
        self.send_text();
        if let Event::ToolRound { calls, .. } = event {
            // An approval's `approval_required` shows the arguments of the call that asks.
            let mut questions = self
                .served
                .questions
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            for call in calls {
                questions
                    .arguments
                    .insert(call.id.clone(), call.arguments.clone());
            }
        }
        if let Event::QuestionClosed { id, .. } = event {
            let answered = {
                let mut questions = self
                    .served
                    .questions
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                questions.close(*id);
                questions.answered.remove(id)
            };
            // The session's `QuestionClosed` (its correlation names the prompt and the call),
            // with who answered and what was chosen.
            for (kind, mut value) in events::from_event(event) {
                if let (Some(fields), Some(Value::Object(more))) =
                    (value.as_object_mut(), answered.clone())
                {
                    fields.extend(more);
                }
                self.served.publish(kind, value);
            }
            return;
        }
        self.publish(event);
    }

    fn ask(&mut self, interaction: Interaction) {
        self.send_text();
        let waits = self
            .served
            .question_timeout
            .unwrap_or(interaction.prompt.timeout);
        let asked =
            self.served
                .prompt_events(&interaction.prompt, &interaction.correlation, Some(waits));
        self.served
            .questions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .open
            .insert(interaction.id, (interaction, Instant::now()));
        for (kind, value) in asked {
            self.served.publish(kind, value);
        }
    }

    fn interrupted(&mut self) -> bool {
        if self.text.due(Instant::now()) {
            self.send_text();
        }
        self.served.time_out_questions();
        self.served.cancel.load(Ordering::SeqCst)
    }

    fn stopped_by(&self) -> crate::cancel::StoppedBy {
        match self.served.stopped_from_page.load(Ordering::SeqCst) {
            true => crate::cancel::StoppedBy::Page,
            false => crate::cancel::StoppedBy::CtrlC,
        }
    }
}
