//! The event pump of a turn, on the thread that called `submit`: the worker's steps become
//! events for the front-end (and the turn's tally, partial text and audit log), tools'
//! questions go to the front-end with a handle to answer them now or later (the first answer
//! wins), and Ctrl+C or a broken pipe cancels the turn. A front-end that panics showing an
//! event loses the event, never the turn.

use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::relay::{Finished, Interaction, Reply, WorkerMessage};
use super::{
    Answered, Correlation, Deferred, Event, Session, TurnUi, describe_request, describe_response,
};
use crate::agent::AgentEvent;
use crate::audit;
use crate::cancel::CancelToken;
use crate::interact::{Prompt, Response, form};
use crate::usage::Tally;

/// How long a cancelled turn may take to wind down before the session stops waiting for it.
const CANCEL_GRACE: Duration = Duration::from_secs(3);
/// How long a cancelled turn winds down before the person is told a second Ctrl+C stops
/// waiting.
const HINT_AFTER: Duration = Duration::from_millis(700);
/// How often the pump looks for Ctrl+C while it waits for messages.
const POLL: Duration = Duration::from_millis(50);

/// A question shown and not answered yet.
struct Open {
    tool: SyncSender<Response>,
    prompt: Prompt,
    correlation: Correlation,
}

pub(super) struct Pump<'a> {
    session: &'a mut Session,
    ui: &'a mut dyn TurnUi,
    cancel: CancelToken,
    /// Where answers come back: the same channel as the worker's messages, so they are
    /// handled in order with them.
    answers: mpsc::Sender<WorkerMessage>,
    /// Questions shown and not yet answered, by id: the asking tool waits on the sender.
    open: HashMap<u64, Open>,
    /// The round of each tool call of the turn, by call id: a question names the model
    /// response whose call asks.
    rounds: HashMap<String, usize>,
    tally: Tally,
    /// The answer's text since the last model call, kept if the turn is cancelled.
    partial: String,
    cancelled_at: Option<Instant>,
    /// The front-end said "not interrupted" since the cancel: an interrupt now is a second
    /// one. (A stop by SIGTERM reads as interrupted on every look, and must still let the
    /// turn wind down: its tools remove what they half made.)
    calm_since_cancel: bool,
    /// The person was told what a second Ctrl+C does.
    hinted: bool,
    /// The last model call's answer was cut at the cap.
    cut: bool,
    /// The front-end panicked showing an event (said once a turn).
    ui_broke: bool,
}

/// What the pump gathered while the turn ran.
pub(super) struct Pumped {
    /// The worker's result and conversation; `None` when it never came.
    pub outcome: Option<Finished>,
    pub tally: Tally,
    pub partial: String,
    /// The answer the turn ended with was cut at the cap.
    pub cut: bool,
}

impl<'a> Pump<'a> {
    pub(super) fn new(
        session: &'a mut Session,
        ui: &'a mut dyn TurnUi,
        cancel: CancelToken,
        answers: mpsc::Sender<WorkerMessage>,
    ) -> Self {
        Self {
            session,
            ui,
            cancel,
            answers,
            open: HashMap::new(),
            rounds: HashMap::new(),
            tally: Tally::default(),
            partial: String::new(),
            cancelled_at: None,
            calm_since_cancel: false,
            hinted: false,
            cut: false,
            ui_broke: false,
        }
    }

    /// Pumps until the worker is done (or gone, or the turn was given up after a cancel).
    pub(super) fn run(
        mut self,
        receiver: &Receiver<WorkerMessage>,
        worker: Option<JoinHandle<()>>,
    ) -> Pumped {
        let outcome = loop {
            self.show_warnings();
            // What has come is shown before the front-end is told it may write out what it
            // holds: a burst of tokens read at once is written at once, and nothing is held
            // while the pump waits.
            let next = match receiver.try_recv() {
                Ok(message) => Ok(message),
                Err(TryRecvError::Empty) => {
                    self.ui.idle();
                    receiver.recv_timeout(POLL)
                }
                Err(TryRecvError::Disconnected) => Err(RecvTimeoutError::Disconnected),
            };
            let message = match next {
                Ok(message) => Some(message),
                // The worker ended without a word (it panicked, or never started).
                Err(RecvTimeoutError::Timeout)
                    if worker.as_ref().is_none_or(JoinHandle::is_finished) =>
                {
                    match receiver.try_recv() {
                        Ok(message) => Some(message),
                        Err(_) => break None,
                    }
                }
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break None,
            };
            match message {
                Some(WorkerMessage::Done(result, messages)) => break Some((result, messages)),
                Some(message) => self.handle(message),
                None => {}
            }
            if self.ui.interrupted() {
                // A second interrupt while winding down: stop waiting at once.
                if self.cancelled_at.is_some() && self.calm_since_cancel {
                    self.show(&Event::Notice {
                        level: super::event::Level::Info,
                        message:
                            "stopped waiting: what the turn still runs is stopped in the background"
                                .into(),
                    });
                    break None;
                }
                self.cancel_turn();
            } else if self.cancelled_at.is_some() {
                self.calm_since_cancel = true;
            }
            if self
                .cancelled_at
                .is_some_and(|at| at.elapsed() > CANCEL_GRACE)
            {
                break None;
            }
            if !self.hinted
                && self
                    .cancelled_at
                    .is_some_and(|at| at.elapsed() > HINT_AFTER)
            {
                self.hinted = true;
                // Ctrl+C again stops waiting; the page's Stop has no second press.
                let message = match self.cancel.stopped_by() {
                    crate::cancel::StoppedBy::CtrlC => {
                        "stopping the turn; Ctrl+C again stops waiting for it"
                    }
                    crate::cancel::StoppedBy::Page => "stopping the turn",
                };
                self.show(&Event::Notice {
                    level: super::event::Level::Info,
                    message: message.into(),
                });
            }
        };
        self.close_open();
        self.show_warnings();
        self.ui.idle();
        Pumped {
            outcome,
            tally: self.tally,
            partial: self.partial,
            cut: self.cut,
        }
    }

    fn handle(&mut self, message: WorkerMessage) {
        match message {
            WorkerMessage::Step(step) => self.step(step),
            WorkerMessage::Steps(steps) => {
                for step in steps {
                    self.step(step);
                }
            }
            WorkerMessage::Ask(prompt, reply) => self.ask(prompt, reply),
            WorkerMessage::Answer(id, response) => self.answer(id, response),
            WorkerMessage::Defer(prompt, render) => {
                self.session.log(&format!(
                    "kept open for later: {}",
                    describe_request(&prompt.request)
                ));
                let correlation = self.correlation(&prompt, 0);
                self.session.deferred.push(Deferred {
                    prompt,
                    render,
                    correlation,
                });
            }
            WorkerMessage::Done(..) => {}
        }
    }

    /// A step of the agent loop: counted, logged where it must be, and shown.
    fn step(&mut self, step: AgentEvent) {
        match &step {
            AgentEvent::Text(piece) => self.partial.push_str(piece),
            AgentEvent::ToolRoundStarted { round, calls } => {
                for call in calls {
                    self.rounds.insert(call.id.clone(), *round);
                }
            }
            AgentEvent::ToolFinished {
                call,
                elapsed,
                outcome,
                ..
            } => {
                // An interview answered in the browser: its answers, readable, in the chat log.
                if let Some(line) = form::record::of_result(&call.function.name, &outcome.content) {
                    self.session.log(&line);
                }
                if let Some(log) = &self.session.settings.subagent_log {
                    if let Err(error) = audit::append(log, call, outcome, *elapsed) {
                        self.session.warnings.push(format!(
                            "cannot write the audit log {}: {error}",
                            log.display()
                        ));
                    }
                }
            }
            AgentEvent::ModelCall { model, usage, cut } => {
                self.tally.record(model, usage.as_ref());
                self.partial.clear();
                self.cut = *cut;
            }
            _ => {}
        }
        self.show(&Event::from(step));
    }

    /// Hands `event` to the front-end (see [`show`]); the first time it breaks in a turn,
    /// a warning says the turn goes on.
    fn show(&mut self, event: &Event) {
        if !show(self.ui, event) && !std::mem::replace(&mut self.ui_broke, true) {
            self.session
                .warnings
                .push("showing this turn failed (a bug in Marvin); the turn goes on and is saved");
        }
    }

    /// A tool's question: logged, then handed to the front-end with its own reply handle. The
    /// pump goes on while it is open.
    fn ask(&mut self, prompt: Prompt, reply: SyncSender<Response>) {
        let id = self.session.next_question_id();
        self.session.log(&describe_request(&prompt.request));
        let correlation = self.correlation(&prompt, id);
        self.open.insert(
            id,
            Open {
                tool: reply,
                prompt: prompt.clone(),
                correlation: correlation.clone(),
            },
        );
        if self.cancel.is_cancelled() {
            // Asked in the moment the turn was cancelled: nobody is shown it.
            self.close(id, Response::Cancelled);
            return;
        }
        self.ui.ask(Interaction {
            id,
            prompt,
            reply: Reply::new(id, self.answers.clone()),
            correlation,
        });
    }

    /// Where prompt `id` belongs, stamped now: the turn, the model response (the round) whose
    /// call asks, the call (or the prompt itself, asked outside one) and the tool.
    fn correlation(&self, prompt: &Prompt, id: u64) -> Correlation {
        let turn = &self.session.turn_id;
        let round = self.rounds.get(&prompt.call_id).copied().unwrap_or(0);
        Correlation {
            timestamp: crate::clock::iso8601_millis(std::time::SystemTime::now()),
            turn_id: turn.clone(),
            response_id: format!("{turn}/{round}"),
            tool_call_id: match prompt.call_id.is_empty() {
                true => format!("interaction-{id}"),
                false => prompt.call_id.clone(),
            },
            interaction_id: id.to_string(),
            tool_name: prompt.tool.clone(),
        }
    }

    /// An answer from a front-end. The first for a question counts; a later one (another
    /// surface, or a question given up) is dropped.
    fn answer(&mut self, id: u64, response: Response) {
        if !self.open.contains_key(&id) {
            return;
        }
        if response == Response::Cancelled {
            self.cancel_turn();
        }
        self.close(id, response);
    }

    /// Ends an open question with `response`: logged, passed to the asking tool, and every
    /// surface told.
    fn close(&mut self, id: u64, response: Response) {
        let Some(open) = self.open.remove(&id) else {
            return;
        };
        let outcome = describe_response(&response);
        self.session.log(&outcome);
        let answer = Box::new(Answered::new(&open.prompt, &response, open.correlation));
        // The tool may have stopped waiting (the turn was cancelled): nothing to tell it.
        let _ = open.tool.send(response);
        self.show(&Event::QuestionClosed {
            id,
            outcome,
            answer,
        });
    }

    /// Questions still open when the turn ends are cancelled.
    fn close_open(&mut self) {
        let mut ids: Vec<u64> = self.open.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            self.close(id, Response::Cancelled);
        }
    }

    /// Cancels the turn (once): the worker stops, and the questions still open end.
    fn cancel_turn(&mut self) {
        if self.cancelled_at.is_none() {
            self.cancel.cancel_by(self.ui.stopped_by());
            self.cancelled_at = Some(Instant::now());
            self.close_open();
        }
    }

    /// Warnings raised since the last look (by the session, the store, the grants), shown
    /// as notices in order with the rest.
    fn show_warnings(&mut self) {
        for warning in self.session.warnings.take() {
            self.show(&Event::warning(warning));
        }
    }
}

/// Hands `event` to `ui`; `false` when the front-end panicked showing it (a bug there). The
/// event is lost to that front-end, not the turn: the pump goes on, and the turn is stored as
/// if it had been shown.
pub(super) fn show(ui: &mut dyn TurnUi, event: &Event) -> bool {
    panic::catch_unwind(AssertUnwindSafe(|| ui.event(event))).is_ok()
}
