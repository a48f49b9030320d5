//! The Ollama client: the native /api/chat NDJSON stream with tool calls, messages translated
//! both ways (tool arguments are JSON objects there, JSON text here).

use std::io::{BufRead, BufReader, Read};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::api_error::ErrorContext;
use super::discover;
use super::http::{self, Http};
use super::progress::Progress;
use super::stream::MAX_MESSAGE;
use super::window::{self, Learned, ModelFacts};
use super::{ChatRequest, ChatResult, DISCOVERY, ErrorKind, LlmError, Provider};
use crate::cancel::CancelToken;
use crate::config::ProviderSettings;
use crate::message::{Message, Role, ToolCall, Usage};
use crate::net::sse::MAX_EVENT;
use crate::net::{self, Response};

/// What closes a whole answer, for the error when it did not come.
const END_MARK: &str = "the line that says \"done\": true";

pub struct Ollama {
    settings: ProviderSettings,
    http: Http,
    /// The model's window (its `context_length`) and tools, learned at the first ask.
    learned: Learned,
    /// The `num_ctx` the last request asked for (0: none yet). It only grows: Ollama loads
    /// the model again whenever it changes.
    num_ctx: AtomicUsize,
}

/// The least window asked of Ollama where the model holds it (Ollama's own default is 4,096,
/// 2,048 in older versions, and it drops the start of a longer prompt without a word).
const MIN_NUM_CTX: usize = 8192;

/// The `num_ctx` for a request that needs `needed` tokens with its answer: a power of two (so
/// that a growing conversation reloads the model seldom), at least [`MIN_NUM_CTX`] and the
/// last one asked (`current`), at most the model's `window`.
fn choose_num_ctx(needed: usize, window: usize, current: usize) -> usize {
    needed
        .max(MIN_NUM_CTX)
        .checked_next_power_of_two()
        .unwrap_or(usize::MAX)
        .max(current)
        .min(window)
}

impl Ollama {
    pub fn new(settings: ProviderSettings) -> Self {
        let refused = format!(
            "Cannot connect to Ollama at {}. Is Ollama running? Start with: ollama serve",
            settings.shown_url()
        );
        let http = Http::new(&settings).with_refused_message(refused);
        Self {
            settings,
            http,
            learned: Learned::default(),
            num_ctx: AtomicUsize::new(0),
        }
    }

    /// `/api/show`: the model's `context_length` and whether it calls tools.
    fn discover(&self, cancel: &CancelToken) -> ModelFacts {
        let url = format!("{}/api/show", self.settings.base_url.trim_end_matches('/'));
        let model = &self.settings.model;
        // `name` for servers older than `model`.
        let body = json!({"model": model, "name": model});
        let deadline = std::time::Instant::now() + DISCOVERY;
        let Some(show) = discover::post(&self.http, cancel, &url, &body, deadline) else {
            return ModelFacts::guess("ollama", model);
        };
        let (window, tools) = window::from_show(&show);
        let mut facts = match window {
            Some(window) => ModelFacts::learned(window, "ollama /api/show"),
            None => ModelFacts::guess("ollama", model),
        };
        facts.tools = tools.unwrap_or(true);
        facts
    }

    /// The window this request asks for: room for it (its estimate, or its body's length in
    /// tokens, whichever is larger, an eighth more for the estimate's error) and the answer.
    fn num_ctx_for(&self, request: &ChatRequest<'_>, body_len: usize, window: usize) -> usize {
        let tokens = request.tokens.max(body_len / 4);
        let needed = tokens + tokens / 8 + window::answer_room(window);
        let current = self.num_ctx.load(Ordering::SeqCst);
        let chosen = choose_num_ctx(needed, window, current);
        self.num_ctx.fetch_max(chosen, Ordering::SeqCst);
        chosen
    }

    fn error_context(&self) -> ErrorContext<'_> {
        ErrorContext {
            provider: "ollama",
            key_hint: "OLLAMA_URL",
            model: &self.settings.model,
            model_hint: &self.settings.model_hint,
            url_hint: "OLLAMA_URL",
            secrets: self.http.secrets().clone(),
        }
    }

    fn read(
        &self,
        response: Response,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<ChatResult, LlmError> {
        if !net::is_success(&response) {
            let mut error = http::status_error(response, &self.error_context());
            if error.message.contains("not found") {
                error.message.push_str(&format!(
                    " Or pull it first: ollama pull {}",
                    self.settings.model
                ));
            }
            return Err(error);
        }
        let content_type = net::header(&response, "content-type");
        let progress = Progress::start(self.http.idle_timeout());
        let mut reader = BufReader::new(progress.watch(response.into_body().into_reader()));
        let start = reader
            .fill_buf()
            .map_err(|e| self.http.first_read_error(e))?;
        if net::is_html(content_type.as_deref(), start) {
            return Err(self.http.html_error());
        }
        self.read_lines(reader, &progress, on_text, cancel)
    }

    /// The NDJSON lines up to the one with `done: true`. Only a line that adds to the answer
    /// is progress: blank lines and lines with empty content are not.
    fn read_lines(
        &self,
        mut reader: impl BufRead,
        progress: &Progress,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<ChatResult, LlmError> {
        let mut answer = Answer::default();
        let mut line = Vec::new();
        loop {
            if cancel.is_cancelled() {
                return Err(LlmError::cancelled());
            }
            line.clear();
            let mut limited = (&mut reader).take(MAX_EVENT as u64 + 1);
            match limited.read_until(b'\n', &mut line) {
                Ok(0) => return Err(self.http.ended_early(END_MARK, answer.has_shown())),
                Ok(_) if line.len() > MAX_EVENT => {
                    return Err(too_large(format!(
                        "a line of more than {} MB that never ended",
                        MAX_EVENT >> 20
                    )));
                }
                Ok(_) => {}
                Err(error) => return Err(self.http.stream_error(error, answer.has_shown())),
            }
            let Some(value) = self.parse_line(&line)? else {
                continue;
            };
            let grown = answer.size();
            let done = answer.push(&value, on_text);
            if answer.size() != grown {
                progress.made();
            }
            if done {
                return Ok(answer.finish());
            }
            if answer.size() > MAX_MESSAGE {
                return Err(too_large(format!(
                    "an answer of more than {} MB",
                    MAX_MESSAGE >> 20
                )));
            }
        }
    }

    /// One NDJSON line: `None` for a blank one, an error for one that is not JSON or reports
    /// an error.
    fn parse_line(&self, line: &[u8]) -> Result<Option<Value>, LlmError> {
        let text = String::from_utf8_lossy(line);
        if text.trim().is_empty() {
            return Ok(None);
        }
        let value: Value = serde_json::from_str(text.trim()).map_err(|_| {
            LlmError::new(
                ErrorKind::Protocol,
                format!(
                    "ollama sent a line that is not JSON: {}",
                    self.http.secrets().cut(&text, 200)
                ),
            )
        })?;
        if let Some(message) = value.get("error") {
            let message = message
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| message.to_string());
            return Err(LlmError::new(
                ErrorKind::Server,
                format!("ollama reported an error mid-answer: {message}"),
            ));
        }
        Ok(Some(value))
    }
}

/// The protocol error for a stream that would not stop growing.
fn too_large(what: String) -> LlmError {
    LlmError::new(
        ErrorKind::Protocol,
        format!("ollama sent {what}; that is not a chat answer, so Marvin stopped reading"),
    )
}

/// The pieces of an answer as the lines arrive.
#[derive(Default)]
struct Answer {
    content: String,
    calls: Vec<ToolCall>,
    usage: Option<Usage>,
    done_reason: Option<String>,
    /// Bytes of `message.thinking` streamed: not kept, but the answer growing.
    thinking: usize,
}

impl Answer {
    /// Takes one line; true when it was the last (`done: true`).
    fn push(&mut self, line: &Value, on_text: &mut dyn FnMut(&str)) -> bool {
        // /api/chat puts text in message.content; /api/generate-shaped lines use `response`.
        let text = line
            .pointer("/message/content")
            .or_else(|| line.get("response"))
            .and_then(Value::as_str);
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            self.content.push_str(text);
            on_text(text);
        }
        if let Some(thinking) = line.pointer("/message/thinking").and_then(Value::as_str) {
            self.thinking += thinking.len();
        }
        for call in line
            .pointer("/message/tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            let arguments = match call.pointer("/function/arguments") {
                Some(Value::String(text)) => text.clone(),
                Some(value @ Value::Object(_)) => value.to_string(),
                _ => "{}".to_string(),
            };
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty())
                .map(str::to_string);
            // Unique in the session, as other providers' ids are: a front-end tells calls apart by it.
            let id = id.unwrap_or_else(super::stream::invent_call_id);
            self.calls.push(ToolCall::new(id, name, arguments));
        }
        if line.get("done").and_then(Value::as_bool) != Some(true) {
            return false;
        }
        let count = |key: &str| line.get(key).and_then(Value::as_u64);
        if count("prompt_eval_count").is_some() || count("eval_count").is_some() {
            self.usage = Some(Usage {
                input_tokens: count("prompt_eval_count").unwrap_or(0),
                output_tokens: count("eval_count").unwrap_or(0),
                reported_cost: None,
                cached_tokens: 0,
            });
        }
        self.done_reason = line
            .get("done_reason")
            .and_then(Value::as_str)
            .map(str::to_string);
        true
    }

    /// Roughly how far the answer has grown: the memory it holds, and the thinking streamed.
    /// It grows exactly when the answer does (text, thinking, a tool call), so it is also the
    /// measure of progress (see `llm::progress`).
    fn size(&self) -> usize {
        let calls: usize = self
            .calls
            .iter()
            .map(|c| c.id.len() + c.function.name.len() + c.function.arguments.len() + 64)
            .sum();
        self.content.len() + calls + self.thinking
    }

    /// Some of the answer was shown.
    fn has_shown(&self) -> bool {
        !self.content.is_empty()
    }

    fn finish(self) -> ChatResult {
        ChatResult {
            message: Message::assistant_turn(self.content, self.calls),
            usage: self.usage,
            finish_reason: self.done_reason,
        }
    }
}

/// Our messages in Ollama's shape: tool-call arguments as objects, tool results named.
pub fn to_ollama(messages: &[Message]) -> Vec<Value> {
    messages
        .iter()
        .map(|message| {
            let role = serde_json::to_value(message.role).unwrap_or(Value::Null);
            let mut out = json!({"role": role, "content": message.text()});
            if !message.tool_calls.is_empty() {
                let calls: Vec<Value> = message
                    .tool_calls
                    .iter()
                    .map(|call| {
                        let arguments = serde_json::from_str::<Value>(&call.function.arguments)
                            .unwrap_or_else(|_| json!({}));
                        json!({"function": {"name": call.function.name, "arguments": arguments}})
                    })
                    .collect();
                out["tool_calls"] = Value::from(calls);
            }
            if message.role == Role::Tool {
                if let Some(name) = &message.name {
                    out["tool_name"] = Value::from(name.as_str());
                }
            }
            out
        })
        .collect()
}

impl Provider for Ollama {
    fn name(&self) -> &str {
        "ollama"
    }

    fn model(&self) -> &str {
        &self.settings.model
    }

    fn chat(
        &self,
        request: &ChatRequest<'_>,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
        _notice: &mut dyn FnMut(String),
    ) -> Result<ChatResult, LlmError> {
        // The tools' schemas are written out, never copied (see the OpenAI request).
        #[derive(serde::Serialize)]
        struct Body<'a> {
            messages: Vec<Value>,
            model: &'a str,
            stream: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            tools: Option<&'a RawValue>,
            options: Value,
        }
        let window = self.facts(cancel).window;
        let mut body = Body {
            messages: to_ollama(request.messages),
            model: &self.settings.model,
            stream: true,
            tools: request.tools,
            options: Value::Null,
        };
        let size = serde_json::to_vec(&body).map_or(0, |b| b.len());
        // The answer is capped at the window's room for it, as every request's is.
        body.options = json!({
            "num_ctx": self.num_ctx_for(request, size, window),
            "num_predict": super::window::answer_room(window),
        });
        let url = format!("{}/api/chat", self.settings.base_url.trim_end_matches('/'));
        let body = serde_json::to_vec(&body).unwrap_or_default();
        let send = |agent: &ureq::Agent| {
            agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(&body[..])
        };
        self.http
            .exchange(cancel, &url, None, send, |response| {
                self.read(response, on_text, cancel)
            })
            .inspect_err(|error| self.learned.learn_from(error))
    }

    fn reset(&self) {
        self.http.renew();
    }

    fn set_idle_timeout(&self, timeout: std::time::Duration) {
        self.http.set_timeout(timeout);
    }

    fn facts(&self, cancel: &CancelToken) -> ModelFacts {
        self.learned.get(cancel, || self.discover(cancel))
    }

    fn forget(&self) {
        self.learned.forget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num_ctx_holds_the_request_grows_in_powers_of_two_and_never_shrinks() {
        // (needed, the model's window, the last one asked) -> num_ctx
        let cases = [
            (1_000, 131_072, 0, 8_192),
            (9_000, 131_072, 0, 16_384),
            (9_000, 131_072, 32_768, 32_768),
            (70_000, 131_072, 0, 131_072),
            (200_000, 131_072, 0, 131_072),
            (1_000, 4_096, 0, 4_096),
            (20_000, 40_960, 0, 32_768),
            (33_000, 40_960, 0, 40_960),
        ];
        for (needed, window, current, num_ctx) in cases {
            assert_eq!(
                choose_num_ctx(needed, window, current),
                num_ctx,
                "{needed} {window} {current}"
            );
        }
    }

    #[test]
    fn calls_without_ids_get_ids_no_other_answer_has() {
        let line = json!({"message": {"tool_calls": [{"function": {"name": "read_file", "arguments": {}}}]}});
        let id = || {
            let mut answer = Answer::default();
            answer.push(&line, &mut |_| {});
            answer.calls[0].id.clone()
        };
        let (first, second) = (id(), id());
        assert!(first.starts_with("call_"), "{first}");
        assert_ne!(first, second);
    }

    #[test]
    fn only_lines_that_add_to_the_answer_are_progress() {
        let message = |message: Value| json!({"message": message, "done": false});
        let cases = [
            (
                "empty content",
                message(json!({"role": "assistant", "content": ""})),
                false,
            ),
            ("no message", json!({"done": false}), false),
            ("empty thinking", message(json!({"thinking": ""})), false),
            ("text", message(json!({"content": "x"})), true),
            (
                "generate-shaped text",
                json!({"response": "x", "done": false}),
                true,
            ),
            ("thinking", message(json!({"thinking": "hmm"})), true),
            (
                "a tool call",
                message(json!({"tool_calls": [{"function": {"name": "f", "arguments": {}}}]})),
                true,
            ),
        ];
        for (name, line, grows) in cases {
            let mut answer = Answer::default();
            let before = answer.size();
            answer.push(&line, &mut |_| {});
            assert_eq!(answer.size() != before, grows, "{name}");
        }
    }

    #[test]
    fn text_is_shown_and_a_tool_call_is_not() {
        let mut answer = Answer::default();
        let call = json!({"message": {"tool_calls": [{"function": {"name": "f"}}]}});
        assert!(!answer.push(&call, &mut |_| {}));
        assert!(!answer.has_shown());
        answer.push(&json!({"message": {"content": "Hi"}}), &mut |_| {});
        assert!(answer.has_shown());
    }

    #[test]
    fn messages_translate_to_ollama_shapes() {
        let call = ToolCall::new("c1", "read_file", r#"{"path":"a.txt"}"#);
        let mut assistant = Message::assistant("");
        assistant.content = None;
        assistant.tool_calls.push(call.clone());
        let out = to_ollama(&[
            Message::user("hi"),
            assistant,
            Message::tool_result(&call, "text".into()),
        ]);
        assert_eq!(out[0], json!({"role": "user", "content": "hi"}));
        assert_eq!(
            out[1]["tool_calls"][0],
            json!({"function": {"name": "read_file", "arguments": {"path": "a.txt"}}})
        );
        assert_eq!(out[1]["content"], "");
        assert_eq!(
            out[2],
            json!({"role": "tool", "content": "text", "tool_name": "read_file"})
        );
    }
}
