//! Talking to language models: the provider interface, its request and result, and classified errors.

pub(crate) mod api_error;
pub mod chain;
pub(crate) mod copilot;
pub(crate) mod discover;
pub(crate) mod http;
pub mod ollama;
pub mod openai;
pub(crate) mod progress;
pub(crate) mod retry;
pub(crate) use retry::LOAD_WAIT;
pub(crate) mod stream;
mod stream_fast;
#[cfg(test)]
mod stream_props;
pub mod window;

use std::fmt;
use std::time::Duration;

use crate::cancel::CancelToken;
use crate::message::{Message, Usage};
pub use window::ModelFacts;

/// What one model call sends: the conversation and the tools the model may call (a JSON
/// array of OpenAI function definitions; `None` for the final call without tools).
pub struct ChatRequest<'a> {
    pub messages: &'a [Message],
    pub tools: Option<&'a serde_json::value::RawValue>,
    /// The request's size in tokens as the context budget estimates it (messages and tools);
    /// 0 when nobody estimated it. Ollama sizes its window by it.
    pub tokens: usize,
}

/// The assembled answer of one model call.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResult {
    pub message: Message,
    pub usage: Option<Usage>,
    pub finish_reason: Option<String>,
}

/// A chat service. `chat` streams text deltas to `on_text` as they arrive and returns the whole
/// message when the stream ends; it stops promptly when `cancel` fires. What the user should
/// know on the way (a session that could not be cached) goes to `notice`: only the front-ends
/// print.
pub trait Provider: Send + Sync {
    /// The provider's name as the user chose it (`openai`, `groq`, ...).
    fn name(&self) -> &str;
    fn model(&self) -> &str;
    fn chat(
        &self,
        request: &ChatRequest<'_>,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
        notice: &mut dyn FnMut(String),
    ) -> Result<ChatResult, LlmError>;

    /// Drops sessions and pooled connections so the next call starts afresh (after a timeout).
    fn reset(&self) {}

    /// How long later calls wait with nothing arriving (180 s, 900 s in coding mode).
    fn set_idle_timeout(&self, _timeout: std::time::Duration) {}

    /// The model's window and whether it calls tools: learned at the first ask (a short
    /// question to the server, at most [`DISCOVERY`], that `cancel` stops) and kept for the
    /// session; refusals of later calls correct it. Never fails: the table of hosted models
    /// and a default stand in for a server that does not say.
    fn facts(&self, _cancel: &CancelToken) -> ModelFacts {
        ModelFacts::guess(self.name(), self.model())
    }

    /// What was learned of the model cannot be right (a window too small to hold any
    /// request): it is dropped, from the cache of what servers said too, and the next ask
    /// learns it again.
    fn forget(&self) {}
}

/// How long asking a server about its model may take in all.
pub const DISCOVERY: Duration = Duration::from_millis(1500);

/// The kinds of failure callers act on: retry, fall back, or tell the user what to fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Could not reach the service (refused, DNS, reset).
    Network,
    Timeout,
    /// 401/403: the key is missing, wrong or lacks access.
    Auth,
    /// 429: wait and retry.
    RateLimited,
    /// 5xx, or an error the service reported in the middle of a stream.
    Server,
    /// 4xx other than the above: the request itself is wrong (unknown model, bad parameter).
    BadRequest,
    /// The conversation no longer fits the model's context window.
    ContextLength,
    /// The model cannot call tools: its server refused the request's `tools`.
    ToolsRefused,
    /// The service answered with something that is not the protocol.
    Protocol,
    Cancelled,
}

impl ErrorKind {
    /// A short lowercase name for machine-readable output.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Network => "network",
            Self::Timeout => "timeout",
            Self::Auth => "auth",
            Self::RateLimited => "rate_limited",
            Self::Server => "server",
            Self::BadRequest => "bad_request",
            Self::ContextLength => "context_length",
            Self::ToolsRefused => "tools_refused",
            Self::Protocol => "protocol",
            Self::Cancelled => "cancelled",
        }
    }
}

/// A failed model call: the kind decides what happens next, the message is for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmError {
    pub kind: ErrorKind,
    pub message: String,
    /// How long the service asked us to wait (429, 503), when it said.
    pub retry_after: Option<Duration>,
    /// The same request may well succeed in a moment (HTTP 502, 503, 504, a connection lost
    /// before any byte of the answer, a stream cut before any of its text was shown): it is
    /// retried before any fallback.
    pub transient: bool,
    /// The answer broke off before the service finished it: its stream ended without the
    /// mark that closes it, or its connection was lost part-way. `--json` says so.
    pub cut: bool,
}

impl LlmError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            retry_after: None,
            transient: false,
            cut: false,
        }
    }

    /// The same error, marked worth sending again (see [`LlmError::transient`]).
    pub fn transient(mut self) -> Self {
        self.transient = true;
        self
    }

    /// The same error, for an answer that broke off (see [`LlmError::cut`]). It is sent
    /// again only when none of it was shown (`shown` false): a retry would show it twice.
    pub fn cut_off(mut self, shown: bool) -> Self {
        self.cut = true;
        self.transient = !shown;
        self
    }

    pub fn cancelled() -> Self {
        Self::new(ErrorKind::Cancelled, "cancelled")
    }
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LlmError {}

/// The client for `settings`' provider. `search_path` lets Copilot find `gh`.
pub fn connect(
    settings: &crate::config::ProviderSettings,
    search_path: Option<String>,
) -> std::sync::Arc<dyn Provider> {
    use crate::config::ProviderKind;
    match settings.kind {
        ProviderKind::Ollama => std::sync::Arc::new(ollama::Ollama::new(settings.clone())),
        ProviderKind::Copilot => {
            std::sync::Arc::new(copilot::Copilot::new(settings.clone(), search_path))
        }
        _ => std::sync::Arc::new(openai::OpenAiCompat::new(settings.clone())),
    }
}
