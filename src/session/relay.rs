//! Carrying tool questions from the worker thread to the front-end and answers back: each
//! request travels with its own reply channel, the front-end gets a handle that may answer now
//! or later, from any thread, and the asking tool waits (giving up if the turn is cancelled).

use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crate::agent::AgentEvent;
use crate::cancel::CancelToken;
use crate::interact::{FollowUp, FormPurpose, Interactor, Prompt, Request, Response, Unavailable};
use crate::llm::LlmError;
use crate::message::Message;

/// How often a waiting tool looks at the cancel token.
const POLL: Duration = Duration::from_millis(50);

/// The worker's result and its conversation.
pub(super) type Finished = (Result<Message, LlmError>, Vec<Message>);

/// What reaches the pump: the worker's steps, questions and result, and front-ends' answers.
pub(super) enum WorkerMessage {
    Step(AgentEvent),
    /// Steps the worker held (the text of a burst of tokens), in their order.
    Steps(Vec<AgentEvent>),
    Ask(Prompt, SyncSender<Response>),
    /// A front-end's answer to question `id`.
    Answer(u64, Response),
    Defer(Prompt, FollowUp),
    Done(Result<Message, LlmError>, Vec<Message>),
}

/// A tool's question as a front-end gets it: show `prompt`, and answer through `reply`, at
/// once or later. `id` names the question in `Event::QuestionClosed`.
pub struct Interaction {
    pub id: u64,
    pub prompt: Prompt,
    pub reply: Reply,
    /// Where it belongs: its turn, model response, call and tool (seed 003's
    /// `interaction_request` fields), stamped when it was asked.
    pub correlation: super::Correlation,
}

/// Answers one question. It may be cloned to every surface that shows the question and used
/// from any thread; the first answer to reach the session counts, later ones are dropped.
#[derive(Clone)]
pub struct Reply {
    id: u64,
    sender: mpsc::Sender<WorkerMessage>,
}

impl Reply {
    pub(super) fn new(id: u64, sender: mpsc::Sender<WorkerMessage>) -> Self {
        Self { id, sender }
    }

    pub fn send(&self, response: Response) {
        // After the turn nobody listens: a late answer has nowhere to go.
        let _ = self.sender.send(WorkerMessage::Answer(self.id, response));
    }
}

/// The worker's side of the relay.
pub(super) struct Relay {
    sender: Mutex<mpsc::Sender<WorkerMessage>>,
    cancel: CancelToken,
}

impl Relay {
    pub(super) fn new(sender: mpsc::Sender<WorkerMessage>, cancel: CancelToken) -> Self {
        Self {
            sender: Mutex::new(sender),
            cancel,
        }
    }

    fn send(&self, message: WorkerMessage) -> bool {
        self.sender
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .send(message)
            .is_ok()
    }
}

impl Interactor for Relay {
    fn ask(&self, prompt: &Prompt) -> Result<Response, Unavailable> {
        let (reply, answer) = mpsc::sync_channel(1);
        if !self.send(WorkerMessage::Ask(prompt.clone(), reply)) {
            return Err(Unavailable::Cancelled);
        }
        while !self.cancel.is_cancelled() {
            match answer.recv_timeout(POLL) {
                Ok(response) => return Ok(response),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(Unavailable::Cancelled),
            }
        }
        Err(Unavailable::Cancelled)
    }

    fn defer(&self, prompt: Prompt, render: FollowUp) {
        self.send(WorkerMessage::Defer(prompt, render));
    }
}

/// A question kept open after its tool finished; answered at the prompt later.
pub struct Deferred {
    pub prompt: Prompt,
    pub(super) render: FollowUp,
    /// Where the question was first asked (its turn, response and call).
    pub correlation: super::Correlation,
}

/// One line for the chat log: what was asked.
pub fn describe_request(request: &Request) -> String {
    match request {
        Request::Approval(approval) => {
            let detail = approval.detail.lines().next().unwrap_or("");
            format!("approval asked: {} {detail}", approval.summary)
        }
        Request::Questions(questions) => {
            let asked: Vec<String> = questions
                .iter()
                .map(|q| {
                    let labels: Vec<&str> = q.options.iter().map(|o| o.label.as_str()).collect();
                    format!("{} [{}]", q.question, labels.join(" | "))
                })
                .collect();
            format!("ask_user asked: {}", asked.join("; "))
        }
        Request::Input(form) => {
            let fields: Vec<&str> = form.fields.iter().map(|f| f.label.as_str()).collect();
            format!("form asked: {} [{}]", form.prompt, fields.join(" | "))
        }
        Request::Form(form) => {
            // The URL's query carries the form's session token, which no file may keep; an
            // interview is logged as its questions, never its address.
            let address = form.url.split('?').next().unwrap_or_default();
            match (form.purpose, &form.record) {
                (_, Some(record)) => record.clone(),
                (FormPurpose::Interview, None) => format!("interview form opened: {}", form.title),
                (FormPurpose::SignIn, None) => {
                    format!("sign-in page shown: {} at {address}", form.title)
                }
            }
        }
    }
}

/// One line for the chat log: what the person did.
pub fn describe_response(response: &Response) -> String {
    crate::interact::describe(response)
}
