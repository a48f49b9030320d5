//! The client for every OpenAI-compatible chat service: POST /chat/completions with
//! `stream: true`, read the event stream as it arrives, assemble the answer.

use std::io::BufReader;

use serde_json::{Value, json};

use super::api_error::{self, ErrorContext};
use super::http::{self, Http, Response};
use super::sse::SseReader;
use super::stream::{Assembler, Step};
use super::{ChatRequest, ChatResult, ErrorKind, LlmError, Provider};
use crate::cancel::CancelToken;
use crate::config::ProviderSettings;

/// A non-streamed completion larger than this is not a chat answer.
const MAX_JSON_BODY: u64 = 32 * 1024 * 1024;

pub struct OpenAiCompat {
    settings: ProviderSettings,
    http: Http,
}

/// Where one chat goes and how it is authorised.
pub struct Target<'a> {
    pub base_url: &'a str,
    pub bearer: Option<&'a str>,
    pub headers: &'a [(&'a str, &'a str)],
}

impl OpenAiCompat {
    pub fn new(settings: ProviderSettings) -> Self {
        let http = Http::new(&settings);
        Self { settings, http }
    }

    pub fn settings(&self) -> &ProviderSettings {
        &self.settings
    }

    pub fn http(&self) -> &Http {
        &self.http
    }

    pub fn error_context(&self) -> ErrorContext<'_> {
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

    /// Streams one chat to `target` (Copilot sends it elsewhere, with its own headers).
    pub fn chat_at(
        &self,
        target: &Target<'_>,
        request: &ChatRequest<'_>,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<ChatResult, LlmError> {
        let url = format!("{}/chat/completions", target.base_url.trim_end_matches('/'));
        let body = self.request_body(request);
        let send = |agent: &ureq::Agent| {
            let mut call = agent
                .post(&url)
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream");
            if let Some(token) = target.bearer {
                call = call.header("Authorization", format!("Bearer {token}"));
            }
            for (name, value) in target.headers {
                call = call.header(*name, *value);
            }
            call.send(&body[..])
        };
        self.http.exchange(cancel, send, |response| {
            self.read_response(response, on_text, cancel)
        })
    }

    fn read_response(
        &self,
        response: Response,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<ChatResult, LlmError> {
        if !http::is_success(&response) {
            return Err(http::status_error(response, &self.error_context()));
        }
        let is_json =
            http::header(&response, "content-type").is_some_and(|t| t.contains("application/json"));
        let body = response.into_body();
        if is_json {
            self.read_completion(body, on_text)
        } else {
            self.read_stream(body, on_text, cancel)
        }
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
                Err(error) => return Err(self.http.read_error(error)),
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
        let text = http::read_capped(body, MAX_JSON_BODY).map_err(|e| self.http.read_error(e))?;
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
        let target = Target {
            base_url: &self.settings.base_url,
            bearer: self.settings.api_key.as_deref(),
            headers: &[],
        };
        self.chat_at(&target, request, on_text, cancel)
    }

    fn reset(&self) {
        self.http.renew();
    }
}
