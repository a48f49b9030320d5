//! The client for every OpenAI-compatible chat service: POST /chat/completions with
//! `stream: true`, read the event stream as it arrives, assemble the answer.

use std::io::{self, BufReader, Read};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::api_error::{self, ErrorContext};
use super::retry::parse_retry_after;
use super::sse::SseReader;
use super::stream::{Assembler, Step};
use super::{ChatRequest, ChatResult, ErrorKind, LlmError, Provider};
use crate::cancel::CancelToken;
use crate::config::ProviderSettings;

/// Error bodies longer than this are cut: they are for a person to read.
const MAX_ERROR_BODY: u64 = 64 * 1024;
/// Reaching the service must not take longer than this, whatever the request timeout.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// A non-streamed completion larger than this is not a chat answer.
const MAX_JSON_BODY: u64 = 32 * 1024 * 1024;

pub struct OpenAiCompat {
    settings: ProviderSettings,
    /// Shared by the calls of a session so connections are reused; replaced after a cancel,
    /// because `shutdown` closes the whole pool.
    agent: Mutex<ureq::Agent>,
}

impl OpenAiCompat {
    pub fn new(settings: ProviderSettings) -> Self {
        let agent = build_agent(&settings);
        Self {
            settings,
            agent: Mutex::new(agent),
        }
    }

    fn endpoint(&self) -> String {
        format!(
            "{}/chat/completions",
            self.settings.base_url.trim_end_matches('/')
        )
    }

    fn error_context(&self) -> ErrorContext<'_> {
        ErrorContext {
            provider: self.settings.kind.name(),
            key_hint: &self.settings.key_hint,
            secret: self.settings.api_key.as_deref(),
        }
    }

    fn request_body(&self, request: &ChatRequest<'_>) -> Vec<u8> {
        let mut body = json!({
            "model": self.settings.model,
            "messages": request.messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if !request.tools.is_empty() {
            body["tools"] = Value::from(request.tools.to_vec());
        }
        // Serialising plain values into a Vec cannot fail.
        serde_json::to_vec(&body).unwrap_or_default()
    }

    fn send(
        &self,
        agent: &ureq::Agent,
        request: &ChatRequest<'_>,
    ) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        let mut call = agent
            .post(&self.endpoint())
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream");
        if let Some(key) = &self.settings.api_key {
            call = call.header("Authorization", format!("Bearer {key}"));
        }
        call.send(&self.request_body(request)[..])
    }

    fn exchange(
        &self,
        agent: &ureq::Agent,
        request: &ChatRequest<'_>,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<ChatResult, LlmError> {
        let response = self
            .send(agent, request)
            .map_err(|e| self.transport_error(e))?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let retry_after = parse_retry_after(
            header("retry-after-ms").as_deref(),
            header("retry-after").as_deref(),
            SystemTime::now(),
        );
        let is_json = header("content-type").is_some_and(|t| t.contains("application/json"));
        let body = response.into_body();
        if !(200..300).contains(&status) {
            let text = read_capped(body, MAX_ERROR_BODY).unwrap_or_default();
            return Err(api_error::from_http(
                &self.error_context(),
                status,
                &text,
                retry_after,
            ));
        }
        if is_json {
            return self.read_completion(body, on_text);
        }
        self.read_stream(body, on_text, cancel)
    }

    fn read_stream(
        &self,
        body: ureq::Body,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<ChatResult, LlmError> {
        let mut events = SseReader::new(BufReader::with_capacity(16 * 1024, body.into_reader()));
        let mut assembler = Assembler::new();
        loop {
            if cancel.is_cancelled() {
                return Err(LlmError::cancelled());
            }
            let event = match events.next_event() {
                Ok(Some(event)) => event,
                Ok(None) => break,
                Err(error) => return Err(self.read_error(error)),
            };
            match assembler.push_event(&event, on_text) {
                Step::Continue => {}
                Step::Done => break,
                Step::Failed(api) => {
                    return Err(api_error::from_stream(&self.error_context(), &api));
                }
                Step::Malformed(text) => {
                    return Err(LlmError::new(
                        ErrorKind::Protocol,
                        format!(
                            "{} sent a chunk that is not JSON: {text}",
                            self.settings.kind.name()
                        ),
                    ));
                }
            }
        }
        Ok(assembler.finish())
    }

    /// A service that ignored `stream: true` and answered with one completion object.
    fn read_completion(
        &self,
        body: ureq::Body,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ChatResult, LlmError> {
        let text = read_capped(body, MAX_JSON_BODY).map_err(|e| self.read_error(e))?;
        let value: Value = serde_json::from_str(&text).map_err(|_| {
            LlmError::new(
                ErrorKind::Protocol,
                format!("{} answered with invalid JSON", self.settings.kind.name()),
            )
        })?;
        if let Some(api) = api_error::find_error(&value) {
            return Err(api_error::from_stream(&self.error_context(), &api));
        }
        let mut assembler = Assembler::new();
        assembler.push_chunk(&value, on_text);
        Ok(assembler.finish())
    }

    fn transport_error(&self, error: ureq::Error) -> LlmError {
        let base = &self.settings.base_url;
        match error {
            ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => LlmError::new(
                ErrorKind::Timeout,
                format!(
                    "cannot connect to {base}: no answer within {}s; check the URL and your network",
                    CONNECT_TIMEOUT.as_secs()
                ),
            ),
            ureq::Error::Timeout(_) => self.timeout_error(),
            ureq::Error::Io(io) => self.read_error(io),
            ureq::Error::HostNotFound => LlmError::new(
                ErrorKind::Network,
                format!("cannot resolve the host of {base}: check the URL and your network"),
            ),
            ureq::Error::ConnectionFailed => LlmError::new(
                ErrorKind::Network,
                format!("cannot connect to {base}: check the URL and your network"),
            ),
            other => LlmError::new(
                ErrorKind::Network,
                format!("request to {base} failed: {other}"),
            ),
        }
    }

    fn read_error(&self, error: io::Error) -> LlmError {
        // ureq reports its own failures while the body is read (timeouts above all) as an
        // io::Error wrapping a ureq::Error.
        if error
            .get_ref()
            .is_some_and(|inner| inner.is::<ureq::Error>())
        {
            if let Some(Ok(inner)) = error
                .into_inner()
                .map(|inner| inner.downcast::<ureq::Error>())
            {
                return self.transport_error(*inner);
            }
            return LlmError::new(ErrorKind::Network, "the connection failed");
        }
        let base = &self.settings.base_url;
        match error.kind() {
            io::ErrorKind::TimedOut => self.timeout_error(),
            io::ErrorKind::ConnectionRefused => LlmError::new(
                ErrorKind::Network,
                format!("cannot connect to {base}: connection refused"),
            ),
            _ => LlmError::new(
                ErrorKind::Network,
                format!("the connection to {base} failed: {error}"),
            ),
        }
    }

    fn timeout_error(&self) -> LlmError {
        LlmError::new(
            ErrorKind::Timeout,
            format!(
                "{} did not finish answering within {}s",
                self.settings.kind.name(),
                self.settings.timeout.as_secs()
            ),
        )
    }
}

impl Provider for OpenAiCompat {
    fn name(&self) -> &str {
        self.settings.kind.name()
    }

    fn model(&self) -> &str {
        &self.settings.model
    }

    fn chat(
        &self,
        request: &ChatRequest<'_>,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<ChatResult, LlmError> {
        let agent = self
            .agent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let result = {
            let interrupt = agent.clone();
            let _hook = cancel.on_cancel(move || interrupt.shutdown());
            self.exchange(&agent, request, on_text, cancel)
        };
        if cancel.is_cancelled() {
            *self.agent.lock().unwrap_or_else(PoisonError::into_inner) =
                build_agent(&self.settings);
            return Err(LlmError::cancelled());
        }
        result
    }
}

fn build_agent(settings: &ProviderSettings) -> ureq::Agent {
    let proxy = settings
        .proxy
        .as_deref()
        .and_then(|p| ureq::Proxy::new(p).ok());
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(proxy)
        .user_agent(concat!("marvin/", env!("CARGO_PKG_VERSION")))
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_global(Some(settings.timeout))
        .build()
        .new_agent()
}

fn read_capped(body: ureq::Body, limit: u64) -> io::Result<String> {
    let mut bytes = Vec::new();
    body.into_reader().take(limit).read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
