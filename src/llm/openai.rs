//! The client for every OpenAI-compatible chat service: POST /chat/completions with
//! `stream: true`, read the event stream as it arrives, assemble the answer.

use std::io::{BufRead, BufReader, Read};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::api_error::{self, ErrorContext};
use super::discover;
use super::http::{self, Http};
use super::progress::Progress;
use super::stream::{Assembler, MAX_MESSAGE, Step};
use super::window::{self, Learned, ModelFacts};
use super::{ChatRequest, ChatResult, DISCOVERY, ErrorKind, LlmError, Provider};
use crate::cancel::CancelToken;
use crate::config::{ProviderKind, ProviderSettings};
use crate::message::Message;
use crate::net::sse::{MAX_EVENT, SseError, SseReader};
use crate::net::{self, BodyError, Response};
use crate::store;

/// A non-streamed completion larger than this is not a chat answer.
const MAX_JSON_BODY: usize = MAX_MESSAGE;
/// How much of a chunk that is not JSON the error shows.
const SHOWN_CHUNK: usize = 200;
/// What closes a whole answer, for the error when it did not come.
const END_MARK: &str = "a finish reason or [DONE]";

pub struct OpenAiCompat {
    settings: ProviderSettings,
    http: Http,
    /// The model's window and tools, learned at the first ask.
    learned: Learned,
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
        Self {
            settings,
            http,
            learned: Learned::default(),
        }
    }

    /// The model's window and tools (see [`Provider::facts`]); Copilot's too.
    pub fn learned_facts(&self, cancel: &CancelToken) -> ModelFacts {
        self.learned.get(cancel, || self.discover(cancel))
    }

    /// What the server says of the model: only a server of any kind (`openai-compat`: a
    /// llama.cpp, vLLM, LM Studio, OpenRouter) is asked, in turn, its llama.cpp `/props`, its
    /// model list and LM Studio's; the hosted services are the table's.
    fn discover(&self, cancel: &CancelToken) -> ModelFacts {
        let (name, model) = (self.settings.kind.name(), self.settings.model.as_str());
        if self.settings.kind != ProviderKind::OpenAiCompat {
            return ModelFacts::guess(name, model);
        }
        // What the server said a moment ago saves asking it again at every start (a remote
        // server's model list can be a megabyte): a day for a server elsewhere, ten minutes
        // for one on this machine, which may be started again with another window.
        let key = self.cache_key();
        let now = u64::try_from(crate::clock::unix_now()).unwrap_or(0);
        let kept = match crate::net::is_loopback(&crate::net::host_of(&self.settings.base_url)) {
            true => store::models::KEPT_LOCAL,
            false => store::models::KEPT,
        };
        let cache = self.settings.facts_cache.as_deref();
        if let Some(known) = cache.and_then(|path| store::models::recall(path, &key, now, kept)) {
            // A server that said nothing a moment ago is not asked again: the guess stands.
            return match known.told {
                true => ModelFacts {
                    window: known.window,
                    source: window::REMEMBERED,
                    tools: known.tools,
                },
                false => ModelFacts::guess(self.settings.kind.name(), model),
            };
        }
        let facts = self.ask_server(cancel);
        if let (Some(path), false) = (cache, cancel.is_cancelled()) {
            let known = store::models::Known {
                window: facts.window,
                tools: facts.tools,
                told: facts.source != window::TABLE && facts.source != window::DEFAULT,
                at: now,
            };
            store::models::keep(path, &key, known);
        }
        facts
    }

    /// The model's entry in the cache of what servers said: the server's address and the model.
    fn cache_key(&self) -> String {
        format!("{}|{}", self.settings.shown_url(), self.settings.model)
    }

    /// What was learned of the model is dropped, here and in the cache (see
    /// [`Provider::forget`]).
    pub fn forget_facts(&self) {
        self.learned.forget();
        if let Some(path) = self.settings.facts_cache.as_deref() {
            store::models::forget(path, &self.cache_key());
        }
    }

    /// What the server itself says of the model (see [`Self::discover`]).
    fn ask_server(&self, cancel: &CancelToken) -> ModelFacts {
        let (name, model) = (self.settings.kind.name(), self.settings.model.as_str());
        let deadline = std::time::Instant::now() + DISCOVERY;
        let base = self.settings.base_url.trim_end_matches('/');
        let root = base.strip_suffix("/v1").unwrap_or(base);
        let bearer = self.settings.api_key.as_deref();
        let ask = |url: String| discover::get(&self.http, cancel, &url, bearer, deadline);
        let found = ask(format!("{root}/props"))
            .and_then(|props| window::from_props(&props))
            .map(|window| (window, "llama.cpp /props"))
            .or_else(|| {
                let list = ask(format!("{base}/models"))?;
                Some((
                    window::from_models(&list, model)?,
                    "the server's /v1/models",
                ))
            })
            .or_else(|| {
                let list = ask(format!("{root}/api/v0/models"))?;
                Some((
                    window::from_models(&list, model)?,
                    "LM Studio /api/v0/models",
                ))
            });
        match found {
            Some((window, source)) => ModelFacts::learned(window, source),
            None => ModelFacts::guess(name, model),
        }
    }

    pub fn settings(&self) -> &ProviderSettings {
        &self.settings
    }

    pub fn http(&self) -> &Http {
        &self.http
    }

    /// Who failed, for a request that carried the credential `sent`.
    pub fn error_context(&self, sent: Option<&str>) -> ErrorContext<'_> {
        ErrorContext {
            provider: self.settings.kind.name(),
            key_hint: &self.settings.key_hint,
            model: &self.settings.model,
            model_hint: &self.settings.model_hint,
            url_hint: self.settings.kind.url_var(),
            secrets: self.http.secrets().clone().with(sent),
        }
    }

    /// The request, serialised from what the turn holds: the conversation and the tools'
    /// schemas are written out, never copied (with a hundred tools, copying them cost more
    /// than the rest of the start).
    /// The answer is capped at the window's room for it (`max_tokens`; OpenAI's own API
    /// wants `max_completion_tokens`, which its reasoning models count their thinking in).
    fn request_body(&self, request: &ChatRequest<'_>, cap: usize) -> Vec<u8> {
        #[derive(Serialize)]
        struct Body<'a> {
            messages: Marked<'a>,
            model: &'a str,
            stream: bool,
            stream_options: Value,
            #[serde(skip_serializing_if = "Option::is_none")]
            tools: Option<&'a RawValue>,
            #[serde(skip_serializing_if = "Option::is_none")]
            max_tokens: Option<usize>,
            #[serde(skip_serializing_if = "Option::is_none")]
            max_completion_tokens: Option<usize>,
        }
        let openai = self.settings.kind == ProviderKind::OpenAi;
        let body = Body {
            messages: Marked {
                messages: request.messages,
                marks: wants_cache_marks(&self.settings.model),
            },
            model: &self.settings.model,
            stream: true,
            stream_options: json!({"include_usage": true}),
            tools: request.tools,
            max_tokens: (!openai).then_some(cap),
            max_completion_tokens: openai.then_some(cap),
        };
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
        let cap = window::answer_room(self.learned_facts(cancel).window);
        let body = self.request_body(request, cap);
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
        self.http
            .exchange(cancel, &url, target.bearer, send, |response| {
                let ctx = self.error_context(target.bearer);
                self.read_response(response, &ctx, on_text, cancel)
            })
            .inspect_err(|error| self.learned.learn_from(error))
    }

    fn read_response(
        &self,
        response: Response,
        ctx: &ErrorContext<'_>,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<ChatResult, LlmError> {
        if !net::is_success(&response) {
            return Err(http::status_error(response, ctx));
        }
        let content_type = net::header(&response, "content-type");
        // A completion must arrive whole, a stream keep growing, within MARVIN_TIMEOUT: bytes
        // that add nothing to the answer do not hold the call open.
        let progress = Progress::start(self.http.idle_timeout());
        let body = progress.watch(response.into_body().into_reader());
        let mut body = BufReader::with_capacity(16 * 1024, body);
        let start = body.fill_buf().map_err(|e| self.http.first_read_error(e))?;
        if net::is_html(content_type.as_deref(), start) {
            return Err(self.http.html_error());
        }
        if content_type.is_some_and(|t| t.contains("application/json")) {
            self.read_completion(body, ctx, on_text)
        } else {
            self.read_stream(body, &progress, ctx, on_text, cancel)
        }
    }

    fn read_stream(
        &self,
        body: impl BufRead,
        progress: &Progress,
        ctx: &ErrorContext<'_>,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<ChatResult, LlmError> {
        let mut events = SseReader::new(body);
        let mut assembler = Assembler::new();
        loop {
            if cancel.is_cancelled() {
                return Err(LlmError::cancelled());
            }
            let event = match events.next_event() {
                Ok(Some(event)) => event,
                Ok(None) if assembler.is_finished() => break,
                Ok(None) => return Err(self.http.ended_early(END_MARK, assembler.has_shown())),
                Err(SseError::Read(error)) => {
                    return Err(self.http.stream_error(error, assembler.has_shown()));
                }
                Err(SseError::TooLarge) => {
                    return Err(self.too_large(format!(
                        "an event of more than {} MB that never ended",
                        MAX_EVENT >> 20
                    )));
                }
            };
            let grown = assembler.progress();
            let step = assembler.push_event(&event, on_text);
            if assembler.progress() != grown {
                progress.made();
            }
            match step {
                Step::Continue => {}
                Step::Done => break,
                Step::Failed(api) => return Err(api_error::from_stream(ctx, &api)),
                Step::Malformed(data) => {
                    return Err(LlmError::new(
                        ErrorKind::Protocol,
                        format!(
                            "{} sent a chunk that is not JSON: {}",
                            self.settings.kind.name(),
                            ctx.secrets.cut(&data, SHOWN_CHUNK)
                        ),
                    ));
                }
                Step::TooLarge => {
                    return Err(
                        self.too_large(format!("an answer of more than {} MB", MAX_MESSAGE >> 20))
                    );
                }
            }
        }
        Ok(assembler.finish())
    }

    /// The protocol error for a stream that would not stop growing.
    fn too_large(&self, what: String) -> LlmError {
        LlmError::new(
            ErrorKind::Protocol,
            format!(
                "{} sent {what}; that is not a chat answer, so Marvin stopped reading",
                self.settings.kind.name()
            ),
        )
    }

    /// A service that ignored `stream: true` and answered with one completion object.
    fn read_completion(
        &self,
        body: impl Read,
        ctx: &ErrorContext<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ChatResult, LlmError> {
        let text = net::read_text(body, MAX_JSON_BODY as u64).map_err(|e| match e {
            BodyError::Read(e) => self.http.read_error(e),
            BodyError::TooLarge(_) => {
                self.too_large(format!("an answer of more than {} MB", MAX_JSON_BODY >> 20))
            }
        })?;
        let value: Value = serde_json::from_str(&text).map_err(|_| {
            LlmError::new(
                ErrorKind::Protocol,
                format!("{} answered with invalid JSON", self.settings.kind.name()),
            )
        })?;
        if let Some(api) = api_error::find_error(&value) {
            return Err(api_error::from_stream(ctx, &api));
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
        _notice: &mut dyn FnMut(String),
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

    fn set_idle_timeout(&self, timeout: std::time::Duration) {
        self.http.set_timeout(timeout);
    }

    fn facts(&self, cancel: &CancelToken) -> ModelFacts {
        self.learned_facts(cancel)
    }

    fn forget(&self) {
        self.forget_facts();
    }
}

/// Whether requests for `model` need explicit marks to be cached at all: Anthropic's models
/// cache only up to a `cache_control` mark, and OpenRouter and LiteLLM, which name them
/// `anthropic/…`, pass the marks on. Other services cache by themselves and may refuse them.
fn wants_cache_marks(model: &str) -> bool {
    model.to_ascii_lowercase().starts_with("anthropic/")
}

/// The conversation as the request writes it: as it is, or with a cache mark on the system
/// prompt (which caches the tools before it too) and on the newest message (which caches the
/// conversation so far for the next request), each as a text part.
struct Marked<'a> {
    messages: &'a [Message],
    marks: bool,
}

impl Serialize for Marked<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        #[derive(Serialize)]
        struct MarkedText<'a> {
            role: crate::message::Role,
            content: [Part<'a>; 1],
        }
        #[derive(Serialize)]
        struct Part<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            text: &'a str,
            cache_control: Value,
        }
        let last = self.messages.len().saturating_sub(1);
        let mut seq = serializer.serialize_seq(Some(self.messages.len()))?;
        for (i, message) in self.messages.iter().enumerate() {
            let marked = self.marks
                && (i == 0 || i == last)
                && message.tool_calls.is_empty()
                && message.tool_call_id.is_none()
                && message.content.is_some();
            match marked {
                true => seq.serialize_element(&MarkedText {
                    role: message.role,
                    content: [Part {
                        kind: "text",
                        text: message.text(),
                        cache_control: json!({"type": "ephemeral"}),
                    }],
                })?,
                false => seq.serialize_element(message)?,
            }
        }
        seq.end()
    }
}
