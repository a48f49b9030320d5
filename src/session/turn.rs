//! One turn, step by step: prepare the conversation (system prompt, late answers, the cap,
//! the user's message), run the agent loop on a worker thread, pump its messages to the
//! front-end, settle how it ended, and finish (chat log, totals, the lifetime ledger).

use std::rc::Rc;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use super::pump::{Pump, Pumped};
use super::relay::{Finished, Relay, WorkerMessage};
use super::{Event, Session, TurnEnd, TurnReport, TurnUi};
use crate::agent::{AgentEvent, Turn, resume_turn, run_turn};
use crate::cancel::CancelToken;
use crate::interact::Interactor;
use crate::interact::approvals::PermissionMode;
use crate::llm::{ErrorKind, LlmError};
use crate::message::Message;
use crate::store;
use crate::tools::{Progress, ToolContext};
use crate::usage::Tally;

impl Session {
    /// Runs one turn for `text`. Events and questions reach `ui` on this thread, in order;
    /// when `ui.interrupted()` turns true the turn is cancelled, its partial text kept and
    /// marked `[Cancelled]`. Warnings raised meanwhile reach `ui` as notices.
    pub fn submit(&mut self, text: &str, ui: &mut dyn TurnUi) -> TurnReport {
        self.run(Some(text), Vec::new(), ui)
    }

    /// Takes up the turn a question parked (see `park`): the calls that asked are made again,
    /// the first question asked goes to `ui` first (which has the answer that came), and the
    /// turn goes on as if it had never stopped.
    pub fn resume_parked(&mut self, ui: &mut dyn TurnUi) -> TurnReport {
        let parked = self.take_parked();
        self.run(None, parked, ui)
    }

    /// A turn whose prompt is the late answers that came since the last turn (see
    /// `answer_later`), for a front-end with nobody to type the next prompt (a
    /// non-interactive run); `None` when none came.
    pub fn submit_follow_ups(&mut self, ui: &mut dyn TurnUi) -> Option<TurnReport> {
        let last = self.take_follow_up()?;
        Some(self.submit(&last, ui))
    }

    /// The message of a follow-up turn for the late answers that came, to be submitted: the
    /// last answer (the others go before it, as with any prompt); `None` when none came.
    pub fn take_follow_up(&mut self) -> Option<String> {
        self.follow_ups.pop()
    }

    /// Whether the stored session this conversation took up waits for an answer.
    pub(crate) fn is_parked(&self) -> bool {
        self.stored().is_some_and(|m| m.parked.is_some())
    }

    fn run(&mut self, text: Option<&str>, parked: Vec<String>, ui: &mut dyn TurnUi) -> TurnReport {
        let started = Instant::now();
        // Every prompt, on every surface, first hears what came on the profile's ntfy
        // subscriptions (two seconds at most; a server that does not answer is skipped).
        if text.is_some() {
            for message in self.notifications() {
                super::pump::show(ui, &Event::Notification { message });
            }
        }
        self.turn_id = format!(
            "turn-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis())
        );
        let cancel = CancelToken::new();
        let (sender, receiver) = mpsc::channel();
        let ctx = self.tool_context(cancel.clone(), &sender);
        let follow_ups = self.prepare(text, &ctx);
        let worker = self.spawn_worker(ctx, sender.clone(), parked);
        let mut pumped = Pump::new(self, ui, cancel.clone(), sender).run(&receiver, worker);
        let outcome = pumped.outcome.take();
        let end = self.settle(outcome, cancel.is_cancelled(), &pumped.partial);
        if let (TurnEnd::Failed(_), Some(text)) = (&end, text) {
            self.forget_failed_prompt(text, follow_ups);
        }
        self.finish(&end, &pumped);
        for warning in self.warnings.take() {
            super::pump::show(ui, &Event::warning(warning));
        }
        let exit_requested = self
            .shared
            .exit_requested
            .swap(false, std::sync::atomic::Ordering::SeqCst);
        TurnReport {
            end,
            tally: pumped.tally,
            elapsed: started.elapsed(),
            exit_requested,
            context: self.context(),
        }
    }

    /// The context of this turn's tools. With a UI, questions travel to this thread over
    /// `sender`; without one, tools learn at once that nobody can answer.
    fn tool_context(
        &self,
        cancel: CancelToken,
        sender: &mpsc::Sender<WorkerMessage>,
    ) -> ToolContext {
        let interactor = self
            .has_ui
            .then(|| Arc::new(Relay::new(sender.clone(), cancel.clone())) as Arc<dyn Interactor>);
        ToolContext {
            workspace: Arc::clone(&self.workspace),
            settings: Arc::clone(&self.settings),
            shared: Arc::clone(&self.shared),
            coding_mode: self.coding_mode,
            readonly: self.readonly || self.settings.permission_mode == PermissionMode::Plan,
            non_interactive: self.non_interactive,
            cancel,
            interactor,
            call_id: String::new(),
            progress: if self.has_ui {
                progress_to(sender.clone())
            } else {
                Progress::default()
            },
        }
    }

    /// The conversation as the model will see it: a fresh system prompt, answers to earlier
    /// questions, the cap, and the user's message (which goes to the chat log too). A parked
    /// turn taken up (no message) keeps the conversation as it stopped. The answers to earlier
    /// questions that went in are returned, for [`Self::forget_failed_prompt`].
    fn prepare(&mut self, text: Option<&str>, ctx: &ToolContext) -> Vec<String> {
        // Nobody to ask: a project's unapproved MCP servers are skipped (with a warning) and
        // the others waited for, so the first request offers their tools.
        if let (Some(hub), None) = (self.registry.mcp(), &ctx.interactor) {
            hub.prepare(ctx, true);
        }
        self.messages[0] = Message::system(self.system_prompt(&ctx.working_dir(), ctx));
        let Some(text) = text else {
            return Vec::new();
        };
        let follow_ups = std::mem::take(&mut self.follow_ups);
        for follow_up in &follow_ups {
            self.messages.push(Message::user(follow_up.clone()));
        }
        self.cap_messages();
        let sent = crate::prompt::stamped(text, std::time::SystemTime::now());
        self.messages.push(Message::user(sent));
        self.record("you", text);
        follow_ups
    }

    /// A prompt whose turn failed before the model answered or a tool ran is not part of the
    /// conversation: it leaves the messages (and so the stored session), or the next request
    /// would carry it beside the next prompt as two user messages in a row. The answers to
    /// earlier questions that went with it wait for the next prompt. (The REPL keeps the
    /// prompt in its input history, to be sent again.) A turn that failed after a tool round
    /// keeps its prompt: the round's calls need it before them.
    fn forget_failed_prompt(&mut self, text: &str, mut follow_ups: Vec<String>) {
        let last = self.messages.last();
        let asked = |m: &Message| {
            m.role == crate::message::Role::User && crate::prompt::unstamped(m.text()) == text
        };
        if self.messages.len() < 2 || last.is_none_or(|m| !asked(m)) {
            return;
        }
        self.messages.pop();
        let mut kept = follow_ups.len();
        while kept > 0
            && self.messages.len() > 1
            && self.messages.last() == Some(&Message::user(follow_ups[kept - 1].clone()))
        {
            self.messages.pop();
            kept -= 1;
        }
        // Answers cut by the cap are not asked again; the others go with the next prompt.
        follow_ups.drain(..kept);
        follow_ups.append(&mut self.follow_ups);
        self.follow_ups = follow_ups;
    }

    /// Starts the agent loop on a copy of the conversation; it hands the copy back when done.
    /// `None` when no thread could be started (the pump then ends the turn as failed).
    fn spawn_worker(
        &self,
        ctx: ToolContext,
        sender: mpsc::Sender<WorkerMessage>,
        parked: Vec<String>,
    ) -> Option<JoinHandle<()>> {
        let providers = Arc::clone(&self.providers);
        let budget = Arc::clone(&self.budget);
        let backup_dir = self.backup_dir(&ctx.working_dir());
        let registry = Arc::clone(&self.registry);
        let mut messages = self.messages.clone();
        let max_rounds = self.max_rounds;
        let spawned = std::thread::Builder::new()
            .name("marvin-turn".into())
            .spawn(move || {
                // The answer's text is held and sent on in one message before the worker may
                // wait (a read from the network, any other step, the end): one wake-up of the
                // pump for a burst of tokens instead of one a token.
                let outbox = Arc::new(Outbox {
                    sender,
                    held: Mutex::new(Vec::new()),
                });
                let _hook = {
                    let outbox = Arc::clone(&outbox);
                    crate::llm::progress::on_wait(Rc::new(move || outbox.send_held()))
                };
                let emit = |event| outbox.send(event);
                let turn = Turn {
                    providers: &providers,
                    budget: &budget,
                    backup_dir: &backup_dir,
                    registry: &registry,
                    ctx: &ctx,
                    max_rounds,
                    emit: &emit,
                };
                let result = if parked.is_empty() {
                    run_turn(&turn, &mut messages)
                } else {
                    resume_turn(&turn, &mut messages, &parked)
                        .and_then(|()| run_turn(&turn, &mut messages))
                };
                outbox.send_held();
                let _ = outbox.sender.send(WorkerMessage::Done(result, messages));
            });
        spawned
            .inspect_err(|error| {
                self.warnings
                    .push(format!("cannot start a worker thread: {error}"))
            })
            .ok()
    }

    /// Takes over the worker's conversation and decides how the turn ended.
    fn settle(&mut self, outcome: Option<Finished>, cancelled: bool, partial: &str) -> TurnEnd {
        let result = match outcome {
            Some((result, messages)) => {
                self.messages = messages;
                result
            }
            None if cancelled => Err(LlmError::cancelled()),
            None => Err(LlmError::new(
                ErrorKind::Protocol,
                "the turn stopped unexpectedly (internal error)",
            )),
        };
        let parked = self.shared.parked.take();
        match result {
            Ok(answer) => TurnEnd::Answered(answer),
            Err(_) if !parked.is_empty() && !cancelled => {
                self.parked_calls = parked;
                TurnEnd::Parked
            }
            Err(error) if error.kind == ErrorKind::Cancelled || cancelled => {
                let kept = if partial.is_empty() {
                    "[Cancelled]".to_string()
                } else {
                    format!("{partial}\n[Cancelled]")
                };
                self.messages.push(Message::assistant(kept));
                TurnEnd::Cancelled
            }
            Err(error) => TurnEnd::Failed(error),
        }
    }

    /// The turn's end in the chat log, its usage in the session's totals and in the lifetime
    /// ledger.
    fn finish(&mut self, end: &TurnEnd, pumped: &Pumped) {
        let (tally, partial) = (&pumped.tally, pumped.partial.as_str());
        match end {
            // An answer cut at the cap is marked, so that no digest takes it for a whole one.
            TurnEnd::Answered(answer) if pumped.cut => self.record(
                "assistant",
                &format!("{} {}", answer.text(), crate::prompt::CUT_OFF),
            ),
            TurnEnd::Answered(answer) => self.record("assistant", answer.text()),
            TurnEnd::Cancelled => self.record("assistant", &format!("{partial} [Cancelled]")),
            TurnEnd::Failed(error) => self.record("system", &format!("error: {}", error.message)),
            TurnEnd::Parked => self.record("system", "parked: waiting for an answer"),
        }
        self.shared
            .usage
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .add(tally);
        // The turn is in the session's totals now, no longer under way.
        *self
            .shared
            .turn_usage
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Tally::default();
        if let (Some(home), true) = (&self.settings.marvin_home, tally.llm_turns > 0) {
            if let Err(error) = store::ledger::add(home, tally, &self.warnings) {
                self.warnings.push(format!(
                    "cannot update the usage ledger in {}: {error}",
                    home.display()
                ));
            }
        }
        self.save_session(tally);
    }
}

/// Where the worker's steps go: to the pump, the answer's text held until the worker may wait.
/// (The calls of a tool round run on threads of their own and send their steps here too.)
struct Outbox {
    sender: mpsc::Sender<WorkerMessage>,
    held: Mutex<Vec<AgentEvent>>,
}

impl Outbox {
    fn send(&self, event: AgentEvent) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let AgentEvent::Text(_) = event {
            return held.push(event);
        }
        // Under the lock: a step of another thread cannot pass the text held before it.
        if !held.is_empty() {
            let _ = self
                .sender
                .send(WorkerMessage::Steps(std::mem::take(&mut *held)));
        }
        let _ = self.sender.send(WorkerMessage::Step(event));
    }

    fn send_held(&self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if !held.is_empty() {
            let _ = self
                .sender
                .send(WorkerMessage::Steps(std::mem::take(&mut *held)));
        }
    }
}

/// Progress of the turn's calls, sent to the pump as the agent's own steps are.
fn progress_to(sender: mpsc::Sender<WorkerMessage>) -> Progress {
    Progress::new(move |call_id, text| {
        let step = AgentEvent::ToolProgress {
            call_id: call_id.to_string(),
            text,
        };
        let _ = sender.send(WorkerMessage::Step(step));
    })
}
