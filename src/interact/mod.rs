//! The interaction framework (seeds 001, 003, 004): tools ask the person something mid-run
//! through [`Interactor`], and decide from the answer whether to complete, ask again with an
//! error shown, or finish now and take the answer later ("pending").

pub(crate) mod approvals;
pub(crate) mod diff;
pub mod form;
pub mod input;
pub(crate) mod numbered;
pub mod view;
pub(crate) mod wire;

pub use input::InputForm;
pub use view::{CompletedView, Presentation};

use std::time::Duration;

/// Questions a tool may ask.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Permission before acting: what will happen, and the scopes the person may grant.
    Approval(Approval),
    /// One to four multiple-choice questions (ask_user).
    Questions(Vec<Question>),
    /// A form of fields to fill in (seed 003's `input`): answered with `Submitted`, or
    /// `Dismissed` when the person closes it.
    Input(InputForm),
    /// The interview form is open at an address: tell the person where (answered with
    /// `Shown`; the answers come from the browser).
    Form(FormNotice),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FormNotice {
    /// What the page is for: the interview's questions, or a service's sign-in.
    pub purpose: FormPurpose,
    pub title: String,
    /// The form's address, session token included.
    pub url: String,
    /// Whether a browser was opened on it.
    pub opened: bool,
    /// When no browser could be opened here: why, and how to reach the form from elsewhere
    /// (the `ssh -L` line over SSH).
    pub reach: Option<String>,
    /// The same questions to answer in the terminal instead (when no browser was opened);
    /// answered with `FormAnswers`, or `Shown` once the browser answered first.
    pub terminal: Option<TerminalForm>,
    /// What the chat log keeps of the page instead of its address (the interview's
    /// questions); `None` for a page without questions.
    pub record: Option<String>,
}

/// What a page opened for the person is for; the front-ends name it and say what they wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormPurpose {
    /// The interview's questions.
    Interview,
    /// Signing in to a service (spotify_auth): the answer is the service's redirect.
    SignIn,
}

impl FormPurpose {
    /// The tag shown before the page's title.
    pub fn tag(self) -> &'static str {
        match self {
            Self::Interview => "interview",
            Self::SignIn => "sign-in",
        }
    }

    /// What is awaited, when nothing can be answered in the terminal.
    pub fn waiting(self) -> &'static str {
        match self {
            Self::Interview => "Waiting for the answers; Ctrl+C stops waiting.",
            Self::SignIn => {
                "Waiting for the sign-in to finish in the browser; Ctrl+C stops waiting."
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct TerminalForm {
    /// The form's description (what the page shows under its title), shown before the
    /// questions.
    pub description: Option<String>,
    pub questions: Vec<form::questions::FormQuestion>,
    /// What image paths typed in the terminal are relative to: the working directory.
    pub working_dir: std::path::PathBuf,
    /// The answers in progress, shared with the page: the terminal starts from it and adds
    /// each answer it takes.
    pub draft: form::draft::Draft,
    /// Set when the form was answered in the browser: the terminal stops asking.
    pub answered_elsewhere: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl PartialEq for TerminalForm {
    fn eq(&self, other: &Self) -> bool {
        self.questions == other.questions
            && self.draft == other.draft
            && std::sync::Arc::ptr_eq(&self.answered_elsewhere, &other.answered_elsewhere)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    /// The tool asking, e.g. `run_command`.
    pub tool: String,
    /// One line: what it wants to do.
    pub summary: String,
    /// The command, or a unified diff of the file change.
    pub detail: String,
    /// What a session or `always` grant covers, in words: `` `cargo test …` ``,
    /// `apply_patch changes to src/main.rs`, `this exact command`.
    pub covers: String,
    /// A file edit asked in the `default` mode: "allow all file edits in this session"
    /// (`Scope::AllEdits`) is offered too.
    pub all_edits: bool,
    /// The scopes the tool offers (seed 003's `approvalScopes`); empty: once, session and
    /// always.
    pub scopes: Vec<Scope>,
}

/// `summary` as shown after the tool's tag: "[run_command] wants to run:", not the tool's
/// name twice ("run_command wants to run:" is what the seed's clients get).
pub fn shown_after_tag<'a>(tool: &str, summary: &'a str) -> &'a str {
    summary
        .strip_prefix(tool)
        .and_then(|rest| rest.strip_prefix(' '))
        .filter(|_| !tool.is_empty())
        .unwrap_or(summary)
}

impl Approval {
    /// The scopes a surface offers, in order: the tool's own, or once, session and always;
    /// with all file edits where `all_edits` says so.
    pub fn offered(&self) -> Vec<Scope> {
        let mut scopes = match self.scopes.is_empty() {
            true => vec![Scope::Once, Scope::Session, Scope::Always],
            false => self.scopes.clone(),
        };
        if self.all_edits && !scopes.contains(&Scope::AllEdits) {
            scopes.push(Scope::AllEdits);
        }
        scopes
    }

    /// Whether `scope` may be granted.
    pub fn offers(&self, scope: Scope) -> bool {
        self.offered().contains(&scope)
    }

    /// The scope an answer names (`once`, `session`, `always`, `all_edits`; none named is
    /// once: a bare yes never grants more than this call), when it is offered; else the names
    /// of the scopes that are, for the surface to say.
    pub fn scope_named(&self, name: Option<&str>) -> Result<Scope, Vec<&'static str>> {
        let offered = self.offered();
        let name = name.unwrap_or("once");
        offered
            .iter()
            .copied()
            .find(|scope| view::scope_name(*scope) == name)
            .ok_or_else(|| offered.into_iter().map(view::scope_name).collect())
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Question {
    /// A short tag (≤ 12 characters).
    pub header: String,
    pub question: String,
    pub options: Vec<Choice>,
    pub multi_select: bool,
    /// What the person entered last time, shown chosen again: a reprompt keeps their input
    /// (seed 003's `initialValues`).
    pub initial: Option<Answer>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Choice {
    pub label: String,
    pub description: String,
}

/// A request as shown: with the error of the previous answer, if any, and a deadline.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub request: Request,
    /// Why the last answer was not accepted (a reprompt).
    pub error: Option<String>,
    pub timeout: Duration,
    /// The model's tool call that asks (empty when not known): a reprompt has the same one, so
    /// a front-end shows it where the first prompt was.
    pub call_id: String,
    /// The tool that asks (empty when not known).
    pub tool: String,
    /// Inside the tool's block, or a block of its own (seed 003's `presentation`).
    pub presentation: Presentation,
    /// What the question shows once answered (seed 003's `completedView`).
    pub completed: CompletedView,
}

impl Prompt {
    /// `request`, asked for the first time, presented in its tool's block.
    pub fn new(request: Request, timeout: Duration) -> Self {
        Self {
            request,
            error: None,
            timeout,
            call_id: String::new(),
            tool: String::new(),
            presentation: Presentation::default(),
            completed: CompletedView::default(),
        }
    }
}

/// How far an approval reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Once,
    Session,
    Always,
    /// This edit, and every file edit after it in this session (`accept-edits` from now on).
    AllEdits,
}

/// One answer to one question.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    One(String),
    Many(Vec<String>),
    Other(String),
}

impl Answer {
    /// "Other" chosen with no text typed.
    pub fn leaves_other_empty(&self) -> bool {
        match self {
            Answer::Other(text) => text.trim().is_empty(),
            Answer::Many(labels) => labels.iter().any(|label| label.trim() == "Other:"),
            Answer::One(_) => false,
        }
    }
}

/// What the person did.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    Approved(Scope),
    /// Declined, with what to do instead (may be empty).
    Denied(String),
    Answers(Vec<Answer>),
    /// The deadline passed without an answer.
    TimedOut,
    /// Ctrl+C: the question and the turn are cancelled.
    Cancelled,
    /// A notice (`Request::Form`) was shown; nothing to answer.
    Shown,
    /// The interview answered in the terminal.
    FormAnswers(Vec<form::questions::Reply>),
    /// An input form submitted: its values by field id, checked against the form and typed
    /// (seed 003's `submit` with `input`).
    Submitted(serde_json::Map<String, serde_json::Value>),
    /// The person closed an input form without submitting it (seed 003's `cancel` action);
    /// the turn goes on.
    Dismissed,
    /// `--on-ask park`: nobody answers now; the run stops after this round and is saved, and
    /// the call is made again when the answer comes (`marvin --resume ID --answer ...`).
    Parked,
    /// No surface that answers questions is there (every client of `marvin serve` switched
    /// interactive mode off, or none is connected): as without a UI, `why` saying what
    /// happened there in words the model reads (see [`nobody_answers`]).
    Unavailable(String),
}

/// Why no answer could be had at all.
#[derive(Debug, Clone, PartialEq)]
pub enum Unavailable {
    /// Nobody is there to ask (non-interactive mode, or stdin is not a terminal).
    NoUi,
    /// The turn was cancelled while waiting.
    Cancelled,
}

/// Shows prompts to the person and returns what they did. Implemented by the session, which
/// carries the prompt to the thread that owns the terminal.
pub trait Interactor: Send + Sync {
    fn ask(&self, prompt: &Prompt) -> Result<Response, Unavailable>;
    /// Keeps a question open after its tool has finished: when the person answers later,
    /// `render` turns the answer into a follow-up message for the model.
    fn defer(&self, prompt: Prompt, render: FollowUp);
}

/// Turns a late answer into the message the model receives.
pub type FollowUp = Box<dyn Fn(&Response) -> String + Send>;

/// What a tool's response handler decides.
pub enum Outcome {
    /// Finish the tool call with this result.
    Complete(Result<String, String>),
    /// Ask again, showing this error above the question.
    Reprompt(Request, String),
    /// Finish the tool call now with this message; keep the question open for a later answer.
    Pending(String),
}

/// At most this many reprompts before the tool gives up.
pub const MAX_REPROMPTS: usize = 5;
/// At most this many questions one tool call (a user's tool, an MCP server's call) puts to
/// the person. A form holds many questions at once, and a tool that asks per item can be
/// granted the session; one that asks more than this is in a loop, and the person would be
/// asked without end (a tool asked 887 approvals in a minute, the run never ending).
pub const MAX_QUESTIONS: usize = 20;
/// How long a question waits by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Why "Other" with nothing typed is asked again.
pub const EMPTY_OTHER: &str =
    "Please type an answer after choosing Other, or pick one of the options.";

/// The result of a call whose question parked the run: replaced when the run is resumed.
pub const PARKED: &str = "The run was parked until the person answers this question; this call is made again with their answer.";

/// Shown above a question its tool left open ("pending") when it is asked after the turn.
pub const STILL_OPEN: &str =
    "An earlier question is still open (its tool went on without the answer):";

/// What the model hears when nobody can answer in the terminal's run: [`nobody_answers`]
/// with [`NO_TERMINAL`].
pub const NO_UI: &str = "Nobody can answer questions here (non-interactive mode, or stdin is not a terminal). Ask in plain text in your reply instead, or carry on with clearly stated assumptions.";

/// Why nobody can answer in a run of the terminal.
pub const NO_TERMINAL: &str = "non-interactive mode, or stdin is not a terminal";

/// What the model hears when nobody can answer a question, `why` saying what happened on the
/// surface that asked ("no client is connected to the gateway").
pub fn nobody_answers(why: &str) -> String {
    format!(
        "Nobody can answer questions here ({why}). Ask in plain text in your reply instead, or carry on with clearly stated assumptions."
    )
}

/// Whether a tool's error is [`nobody_answers`]'s, for whatever reason.
pub fn is_nobody_answers(error: &str) -> bool {
    error.starts_with("Nobody can answer questions here (")
        && error.ends_with("or carry on with clearly stated assumptions.")
}

/// How asking ended: with the tool's result, or with the run parked (`--on-ask park`; the call
/// is made again when the answer comes).
#[derive(Debug, PartialEq)]
pub enum Asked {
    Finished(Result<String, String>),
    Parked,
}

impl Asked {
    /// The tool's result; a parked call's is the placeholder [`PARKED`].
    pub fn result(self) -> Result<String, String> {
        match self {
            Asked::Finished(result) => result,
            Asked::Parked => Err(PARKED.into()),
        }
    }
}

/// What a tool asks, and how it is shown.
pub struct Ask {
    pub request: Request,
    pub timeout: Duration,
    pub presentation: Presentation,
    pub completed: CompletedView,
}

impl Ask {
    pub fn new(request: Request, timeout: Duration) -> Self {
        Self {
            request,
            timeout,
            presentation: Presentation::default(),
            completed: CompletedView::default(),
        }
    }
}

/// How a tool hears what became of its question (seed 003's hooks).
pub struct Hooks<'a> {
    /// The person answered: complete, reprompt or go pending.
    pub on_response: &'a mut dyn FnMut(Response) -> Outcome,
    /// Nobody answered in time.
    pub on_timeout: &'a mut dyn FnMut() -> Outcome,
    /// The turn was cancelled while the question was open (Ctrl+C, `/cancel`, the gateway's
    /// cancel, SIGTERM): the tool may clean up; its call ends as cancelled.
    pub on_cancel: &'a mut dyn FnMut(),
    /// Turns a late answer (after `Pending`) into the message the model receives.
    pub follow_up: Option<FollowUp>,
}

/// What a cancelled question's call returns.
pub const CANCELLED: &str = "The question was cancelled with the turn.";

/// The loop of seed 003 with the old hooks: see [`run`].
pub fn interact(
    interactor: Option<&dyn Interactor>,
    request: Request,
    timeout: Duration,
    on_response: &mut dyn FnMut(Response) -> Outcome,
    on_timeout: &mut dyn FnMut() -> Outcome,
    follow_up: Option<FollowUp>,
) -> Asked {
    let hooks = Hooks {
        on_response,
        on_timeout,
        on_cancel: &mut || {},
        follow_up,
    };
    run(interactor, Ask::new(request, timeout), hooks)
}

/// The loop of seed 003: ask, let `on_response` decide, ask again on a reprompt (at most
/// [`MAX_REPROMPTS`] times). Without an interactor the answer is `NO_UI` at once; a cancelled
/// turn calls `on_cancel` and ends with [`CANCELLED`].
pub fn run(interactor: Option<&dyn Interactor>, ask: Ask, hooks: Hooks) -> Asked {
    let Hooks {
        on_response,
        on_timeout,
        on_cancel,
        follow_up,
    } = hooks;
    let Some(interactor) = interactor else {
        return Asked::Finished(Err(NO_UI.to_string()));
    };
    let mut prompt = Prompt {
        presentation: ask.presentation,
        completed: ask.completed,
        ..Prompt::new(ask.request, ask.timeout)
    };
    for _ in 0..=MAX_REPROMPTS {
        let response = match interactor.ask(&prompt) {
            Ok(response) => response,
            Err(Unavailable::NoUi) => return Asked::Finished(Err(NO_UI.to_string())),
            Err(Unavailable::Cancelled) => {
                on_cancel();
                return Asked::Finished(Err(CANCELLED.into()));
            }
        };
        let outcome = match response {
            Response::Cancelled => {
                on_cancel();
                return Asked::Finished(Err(CANCELLED.into()));
            }
            Response::Parked => return Asked::Parked,
            Response::Unavailable(why) => return Asked::Finished(Err(nobody_answers(&why))),
            Response::TimedOut => on_timeout(),
            other => on_response(other),
        };
        match outcome {
            Outcome::Complete(result) => return Asked::Finished(result),
            Outcome::Reprompt(request, error) => {
                prompt = Prompt {
                    request,
                    error: Some(error),
                    ..prompt
                }
            }
            Outcome::Pending(message) => {
                let render = follow_up.unwrap_or_else(|| {
                    Box::new(|response: &Response| {
                        format!("The user answered an earlier question: {response:?}")
                    })
                });
                interactor.defer(prompt, render);
                return Asked::Finished(Ok(message));
            }
        }
    }
    Asked::Finished(Err(format!(
        "The answer was still not usable after {MAX_REPROMPTS} tries; ask the user in plain text instead."
    )))
}

/// One line for the chat log and a completed question: what the person did.
pub fn describe(response: &Response) -> String {
    match response {
        Response::Approved(Scope::Once) => "approved once".into(),
        Response::Approved(Scope::Session) => "approved for this session".into(),
        Response::Approved(Scope::Always) => "approved always in this project".into(),
        Response::Approved(Scope::AllEdits) => {
            "approved, with all file edits for the rest of this session".into()
        }
        Response::Denied(instead) if instead.trim().is_empty() => "denied".into(),
        Response::Denied(instead) => format!("denied: {}", instead.trim()),
        Response::Answers(answers) => {
            let shown: Vec<String> = answers
                .iter()
                .map(|a| match a {
                    Answer::One(label) => label.clone(),
                    Answer::Many(labels) => labels.join(", "),
                    Answer::Other(text) => format!("Other: {text}"),
                })
                .collect();
            format!("answered: {}", shown.join("; "))
        }
        Response::TimedOut => "timed out".into(),
        Response::Cancelled => "cancelled".into(),
        Response::Shown => "shown".into(),
        Response::Parked => "parked until the answer comes".into(),
        Response::Unavailable(_) => "nobody there to answer".into(),
        Response::FormAnswers(replies) => {
            let shown: Vec<String> = replies
                .iter()
                .map(|r| format!("{}: {}", r.id, r.value.joined()))
                .collect();
            format!(
                "answered the interview in the terminal: {}",
                shown.join("; ")
            )
        }
        Response::Submitted(input) => {
            let shown: Vec<String> = input.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            format!("submitted: {}", shown.join("; "))
        }
        Response::Dismissed => "dismissed without an answer".into(),
    }
}

/// The default for a question nobody answered.
pub fn not_answered(timeout: Duration) -> Outcome {
    Outcome::Complete(Err(format!(
        "The user did not respond within {} minutes.",
        timeout.as_secs().div_ceil(60)
    )))
}

#[cfg(test)]
mod tests;
