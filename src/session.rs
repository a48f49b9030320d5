//! One conversation: its messages and totals, and `submit`, which runs a turn on a worker
//! thread while the calling (main) thread renders its events and watches for Ctrl+C.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant, SystemTime};

use crate::agent::{AgentEvent, Turn, run_turn};
use crate::audit;
use crate::cancel::CancelToken;
use crate::config::Config;
use crate::llm::chain::ProviderChain;
use crate::llm::{ErrorKind, LlmError};
use crate::message::Message;
use crate::prompt::{PromptFacts, system_prompt};
use crate::tools::{Confirm, Registry, SessionTools, ToolContext, ToolSettings, Workspace};
use crate::usage::Tally;

/// How long a cancelled turn may take to wind down before the session stops waiting for it.
const CANCEL_GRACE: Duration = Duration::from_secs(3);
/// How often the main thread looks for Ctrl+C while it waits for events.
const POLL: Duration = Duration::from_millis(50);

/// How a turn ended.
#[derive(Debug)]
pub enum TurnEnd {
    Answered(Message),
    Cancelled,
    Failed(LlmError),
}

/// The end of a turn and what it cost.
#[derive(Debug)]
pub struct TurnReport {
    pub end: TurnEnd,
    pub tally: Tally,
    pub elapsed: Duration,
}

/// What the person at the terminal sees and answers during a turn. Called on the thread that
/// called `submit`, which owns the terminal.
pub trait TurnUi {
    fn event(&mut self, event: &AgentEvent);
    /// Polled while the turn runs: true cancels it (Ctrl+C, or nobody reads the output).
    fn interrupted(&mut self) -> bool;
    /// A yes/no question from a tool. Without an answer, the answer is no.
    fn confirm(&mut self, question: &str) -> bool;
}

enum WorkerMessage {
    Event(AgentEvent),
    Confirm(String, SyncSender<bool>),
    Done(Result<Message, LlmError>, Vec<Message>),
}

pub struct Session {
    providers: Arc<ProviderChain>,
    registry: Arc<Registry>,
    messages: Vec<Message>,
    totals: Tally,
    workspace: Arc<Workspace>,
    settings: Arc<ToolSettings>,
    shared: Arc<SessionTools>,
    /// Every tool call is appended here as a JSON line when set (MARVIN_SUBAGENT_LOG).
    subagent_log: Option<std::path::PathBuf>,
    coding_mode: bool,
    readonly: bool,
    non_interactive: bool,
    max_rounds: usize,
}

impl Session {
    pub fn new(config: &Config, providers: Arc<ProviderChain>, registry: Arc<Registry>) -> Self {
        let active = providers.active();
        let (provider_name, model) = (active.name().to_string(), active.model().to_string());
        Self {
            providers,
            registry,
            messages: vec![Message::system(String::new())],
            totals: Tally::default(),
            workspace: Arc::new(Workspace::new(config.working_dir.clone())),
            settings: Arc::new(tool_settings(config, provider_name, model)),
            shared: Arc::new(SessionTools::default()),
            subagent_log: config.subagent_log.clone(),
            coding_mode: config.coding_mode,
            readonly: config.readonly,
            non_interactive: config.non_interactive,
            max_rounds: config.max_rounds,
        }
    }

    pub fn provider_name(&self) -> &str {
        self.providers.active().name()
    }

    pub fn model(&self) -> &str {
        self.providers.active().model()
    }

    /// Usage over the whole session.
    pub fn totals(&self) -> &Tally {
        &self.totals
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The context of this turn's tools. In interactive mode, `confirm` carries questions to
    /// the main thread over `sender` and waits for the answer (no while cancelled).
    fn tool_context(
        &self,
        cancel: CancelToken,
        sender: &mpsc::Sender<WorkerMessage>,
    ) -> ToolContext {
        let confirm: Option<Confirm> = (!self.non_interactive).then(|| {
            let sender = sender.clone();
            let cancel = cancel.clone();
            Arc::new(move |question: &str| ask_main_thread(&sender, &cancel, question)) as Confirm
        });
        ToolContext {
            workspace: Arc::clone(&self.workspace),
            settings: Arc::clone(&self.settings),
            shared: Arc::clone(&self.shared),
            coding_mode: self.coding_mode,
            readonly: self.readonly,
            non_interactive: self.non_interactive,
            cancel,
            confirm,
        }
    }

    /// Runs one turn for `text`. Events reach `on_event` on this thread, in order. When
    /// `interrupted` turns true the turn is cancelled; partial text is kept, marked `[Cancelled]`.
    pub fn submit(&mut self, text: &str, ui: &mut dyn TurnUi) -> TurnReport {
        let started = Instant::now();
        let cancel = CancelToken::new();
        let (sender, receiver) = mpsc::channel();
        let ctx = self.tool_context(cancel.clone(), &sender);
        let names = self.registry.names(&ctx);
        let working_dir = ctx.working_dir();
        self.messages[0] = Message::system(system_prompt(&PromptFacts {
            coding_mode: self.coding_mode,
            non_interactive: self.non_interactive,
            readonly: self.readonly,
            working_dir: &working_dir,
            tool_names: &names,
            jobs: &self.shared.jobs.running(),
            now: SystemTime::now(),
        }));
        self.messages.push(Message::user(text));
        self.spawn_worker(ctx, sender);

        let mut tally = Tally::default();
        let mut partial = String::new();
        let mut cancelled_at: Option<Instant> = None;
        let outcome = loop {
            match receiver.recv_timeout(POLL) {
                Ok(WorkerMessage::Event(event)) => {
                    match &event {
                        AgentEvent::Text(piece) => partial.push_str(piece),
                        AgentEvent::ToolFinished {
                            call,
                            elapsed,
                            outcome,
                            ..
                        } => {
                            if let Some(log) = &self.subagent_log {
                                if let Err(error) = audit::append(log, call, outcome, *elapsed) {
                                    eprintln!(
                                        "marvin: cannot write the audit log {}: {error}",
                                        log.display()
                                    );
                                }
                            }
                        }
                        AgentEvent::ModelCall { model, usage } => {
                            tally.record(model, usage.as_ref());
                            partial.clear();
                        }
                        _ => {}
                    }
                    ui.event(&event);
                }
                Ok(WorkerMessage::Confirm(question, reply)) => {
                    let _ = reply.send(ui.confirm(&question));
                }
                Ok(WorkerMessage::Done(result, messages)) => break Some((result, messages)),
                Err(RecvTimeoutError::Disconnected) => break None,
                Err(RecvTimeoutError::Timeout) => {}
            }
            if ui.interrupted() {
                match cancelled_at {
                    // A second interrupt while winding down: stop waiting at once.
                    Some(_) => break None,
                    None => {
                        cancel.cancel();
                        cancelled_at = Some(Instant::now());
                    }
                }
            }
            if cancelled_at.is_some_and(|at| at.elapsed() > CANCEL_GRACE) {
                break None;
            }
        };
        let end = self.settle(outcome, cancel.is_cancelled(), &partial);
        self.totals.add(&tally);
        TurnReport {
            end,
            tally,
            elapsed: started.elapsed(),
        }
    }

    fn spawn_worker(&self, ctx: ToolContext, sender: mpsc::Sender<WorkerMessage>) {
        let providers = Arc::clone(&self.providers);
        let registry = Arc::clone(&self.registry);
        let mut messages = self.messages.clone();
        let max_rounds = self.max_rounds;
        let spawned = std::thread::Builder::new()
            .name("marvin-turn".into())
            .spawn(move || {
                let emit = |event| {
                    let _ = sender.send(WorkerMessage::Event(event));
                };
                let turn = Turn {
                    providers: &providers,
                    registry: &registry,
                    ctx: &ctx,
                    max_rounds,
                    emit: &emit,
                };
                let result = run_turn(&turn, &mut messages);
                let _ = sender.send(WorkerMessage::Done(result, messages));
            });
        if let Err(error) = spawned {
            // The receiver sees the sender dropped with the closure: the turn fails below.
            eprintln!("marvin: cannot start a worker thread: {error}");
        }
    }

    /// Takes over the worker's conversation and decides how the turn ended.
    fn settle(
        &mut self,
        outcome: Option<(Result<Message, LlmError>, Vec<Message>)>,
        cancelled: bool,
        partial: &str,
    ) -> TurnEnd {
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
        match result {
            Ok(answer) => TurnEnd::Answered(answer),
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
}

/// Sends `question` to the main thread and waits for the answer, giving up when cancelled.
fn ask_main_thread(
    sender: &mpsc::Sender<WorkerMessage>,
    cancel: &CancelToken,
    question: &str,
) -> bool {
    let (reply, answer) = mpsc::sync_channel(1);
    if sender
        .send(WorkerMessage::Confirm(question.to_string(), reply))
        .is_err()
    {
        return false;
    }
    while !cancel.is_cancelled() {
        match answer.recv_timeout(POLL) {
            Ok(yes) => return yes,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return false,
        }
    }
    false
}

fn tool_settings(config: &Config, provider: String, model: String) -> ToolSettings {
    ToolSettings {
        search_path: config.search_path.clone(),
        notes_home: config.notes_home.clone(),
        depth: config.depth,
        ticket: config.ticket.clone(),
        subagent_log: config.subagent_log.clone(),
        executable: std::env::current_exe().ok(),
        provider,
        model,
        code_model_high: config.code_model_high.clone(),
        code_model_low: config.code_model_low.clone(),
    }
}
