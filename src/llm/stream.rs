//! Assembling chat-completion chunks (streamed or not) into one message, tolerant of the
//! quirks real services send: missing or shifted tool-call indexes, repeated headers, null
//! arguments, usage anywhere, errors inside a 200 stream.

use std::collections::HashMap;

use serde_json::Value;

use super::ChatResult;
use super::api_error::{ApiError, find_error};
use crate::message::{Message, ToolCall, Usage};
use crate::net::sse::SseEvent;

/// An answer (text and tool calls together) larger than this is not a chat answer: a
/// service sending text that never stops is cut off before it exhausts memory.
pub(crate) const MAX_MESSAGE: usize = 32 * 1024 * 1024;

/// What a chunk told the reader to do next.
#[derive(Debug, PartialEq)]
pub(crate) enum Step {
    Continue,
    /// `[DONE]`: the stream is over.
    Done,
    /// The service reported an error in the stream.
    Failed(ApiError),
    /// The chunk was not JSON; its whole data, for the caller to redact and cut.
    Malformed(String),
    /// The answer grew past [`MAX_MESSAGE`].
    TooLarge,
}

#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// What each call costs beyond its text, as [`Assembler::size`] counts it.
const CALL_OVERHEAD: usize = 64;

/// Collects the deltas of choice 0. Other choices (`n > 1`) are ignored.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    content: String,
    calls: Vec<PartialCall>,
    /// The latest call of each index and the first of each id, so that a fragment finds its
    /// call without a scan of every call so far (a stream of many tiny calls took quadratic
    /// time).
    by_index: HashMap<i64, usize>,
    by_id: HashMap<String, usize>,
    /// The bytes the calls hold, with [`CALL_OVERHEAD`] for each: kept as they grow rather
    /// than summed again for every event.
    calls_size: usize,
    usage: Option<Usage>,
    /// llama.cpp's `timings.cache_n`: of the prompt, the tokens its cache held.
    cache_n: Option<u64>,
    finish_reason: Option<String>,
    /// Bytes of reasoning streamed (`reasoning`, `reasoning_content`): not kept, but counted
    /// as the answer growing.
    reasoning: usize,
}

impl Assembler {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Feeds one server-sent event; new text goes to `on_text`.
    pub(crate) fn push_event(&mut self, event: &SseEvent, on_text: &mut dyn FnMut(&str)) -> Step {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Step::Done;
        }
        // The common chunk, text and perhaps a finish reason, as `push_chunk` would read it.
        if let Some(plain) = super::stream_fast::plain(data) {
            if let Some(text) = plain.content.as_deref().filter(|t| !t.is_empty()) {
                self.content.push_str(text);
                on_text(text);
            }
            if plain.finish_reason.is_some() {
                self.finish_reason = plain.finish_reason;
            }
            if self.size() > MAX_MESSAGE {
                return Step::TooLarge;
            }
            return match event.event.as_deref() {
                Some("error") => Step::Failed(ApiError {
                    message: data.to_string(),
                    ..ApiError::default()
                }),
                _ => Step::Continue,
            };
        }
        let value: Value = match serde_json::from_str(data) {
            Ok(value) => value,
            Err(_) if event.event.as_deref() == Some("error") => {
                return Step::Failed(ApiError {
                    message: data.to_string(),
                    ..ApiError::default()
                });
            }
            Err(_) => return Step::Malformed(data.to_string()),
        };
        self.push_chunk(&value, on_text);
        if self.size() > MAX_MESSAGE {
            return Step::TooLarge;
        }
        match find_error(&value) {
            Some(error) => Step::Failed(error),
            None if event.event.as_deref() == Some("error") => Step::Failed(ApiError {
                message: data.to_string(),
                ..ApiError::default()
            }),
            None => Step::Continue,
        }
    }

    /// Feeds one chunk object (`chat.completion.chunk`) or a whole non-streamed completion.
    pub(crate) fn push_chunk(&mut self, chunk: &Value, on_text: &mut dyn FnMut(&str)) {
        if let Some(usage) = chunk
            .get("usage")
            .filter(|u| u.is_object())
            .or_else(|| chunk.pointer("/x_groq/usage"))
            .and_then(parse_usage)
        {
            self.usage = Some(usage);
        }
        // llama.cpp says how much of the prompt it took from its cache in `timings`.
        if let Some(cached) = chunk.pointer("/timings/cache_n").and_then(Value::as_u64) {
            self.cache_n = Some(cached);
        }
        let Some(choices) = chunk.get("choices").and_then(Value::as_array) else {
            return;
        };
        let first = choices
            .iter()
            .find(|c| c.get("index").and_then(Value::as_i64).unwrap_or(0) == 0);
        let Some(choice) = first else { return };
        // A streamed chunk carries `delta`; a non-streamed completion carries `message`.
        if let Some(delta) = choice.get("delta").or_else(|| choice.get("message")) {
            self.push_delta(delta, on_text);
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_string());
        }
    }

    fn push_delta(&mut self, delta: &Value, on_text: &mut dyn FnMut(&str)) {
        // A refusal is the model's answer too: show it like text.
        for key in ["content", "refusal"] {
            if let Some(text) = delta.get(key).and_then(Value::as_str) {
                if !text.is_empty() {
                    self.content.push_str(text);
                    on_text(text);
                }
            }
        }
        for key in ["reasoning", "reasoning_content"] {
            if let Some(text) = delta.get(key).and_then(Value::as_str) {
                self.reasoning += text.len();
            }
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                self.push_call(call);
            }
        }
    }

    fn push_call(&mut self, call: &Value) {
        let index = call.get("index").and_then(Value::as_i64);
        let id = call.get("id").and_then(Value::as_str).unwrap_or("");
        let function = call.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let slot = self.slot_for(index, id, name);
        let partial = &mut self.calls[slot];
        let before = partial.id.len() + partial.name.len() + partial.arguments.len();
        // Headers are set once and never appended: some services repeat them in every chunk.
        if partial.id.is_empty() && !id.is_empty() {
            partial.id = id.to_string();
            let first = self.by_id.entry(id.to_string()).or_insert(slot);
            *first = (*first).min(slot);
        }
        if partial.name.is_empty() {
            partial.name = name.to_string();
        }
        match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(fragment)) => partial.arguments.push_str(fragment),
            Some(object @ Value::Object(_)) if partial.arguments.is_empty() => {
                partial.arguments = object.to_string();
            }
            _ => {} // null or absent: nothing to add
        }
        let after = partial.id.len() + partial.name.len() + partial.arguments.len();
        self.calls_size += after - before;
    }

    /// Which call a fragment belongs to: by `index`, unless the fragment opens a call with a new
    /// id; without `index`, a header opens a new call and a bare fragment continues the last one.
    fn slot_for(&mut self, index: Option<i64>, id: &str, name: &str) -> usize {
        let opens_new_id =
            |call: &PartialCall| !id.is_empty() && !call.id.is_empty() && call.id != id;
        let found = match index {
            Some(index) => self
                .by_index
                .get(&index)
                .copied()
                .filter(|&slot| !opens_new_id(&self.calls[slot])),
            None if !id.is_empty() => self.by_id.get(id).copied(),
            None if name.is_empty() => self.calls.len().checked_sub(1),
            None => None,
        };
        found.unwrap_or_else(|| {
            self.calls.push(PartialCall::default());
            let slot = self.calls.len() - 1;
            if let Some(index) = index {
                self.by_index.insert(index, slot);
            }
            self.calls_size += CALL_OVERHEAD;
            slot
        })
    }

    /// Roughly how far the answer has grown: the memory it holds, and the reasoning streamed
    /// (not kept, but no chat answer reasons for 32 MB either).
    fn size(&self) -> usize {
        self.content.len() + self.calls_size + self.reasoning
    }

    /// A measure that grows exactly when the answer does: text, refusal or reasoning, a tool
    /// call's id, name or arguments, the finish reason. Keep-alives, empty deltas, role-only and
    /// usage-only chunks and fields nobody reads leave it as it was, so they are no progress
    /// (see `llm::progress`).
    pub(crate) fn progress(&self) -> usize {
        self.size() + usize::from(self.finish_reason.is_some())
    }

    /// The service said the answer is complete (a finish reason).
    pub(crate) fn is_finished(&self) -> bool {
        self.finish_reason.is_some()
    }

    /// Some of the answer was shown (text or refusal went to `on_text`).
    pub(crate) fn has_shown(&self) -> bool {
        !self.content.is_empty()
    }

    /// The assembled message. Empty arguments become `{}`; a call without an id gets one, so
    /// its result can answer it.
    pub(crate) fn finish(self) -> ChatResult {
        let tool_calls: Vec<ToolCall> = self
            .calls
            .into_iter()
            .map(|call| {
                let id = if call.id.is_empty() {
                    invent_call_id()
                } else {
                    call.id
                };
                let arguments = if call.arguments.trim().is_empty() {
                    "{}".to_string()
                } else {
                    call.arguments
                };
                ToolCall::new(id, call.name, arguments)
            })
            .collect();
        let mut usage = self.usage;
        if let (Some(usage), Some(cached)) = (usage.as_mut(), self.cache_n) {
            usage.cached_tokens = usage.cached_tokens.max(cached.min(usage.input_tokens));
        }
        ChatResult {
            message: Message::assistant_turn(self.content, tool_calls),
            usage,
            finish_reason: self.finish_reason,
        }
    }
}

fn parse_usage(usage: &Value) -> Option<Usage> {
    let count = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| usage.pointer(k).and_then(Value::as_u64))
    };
    let input = count(&["/prompt_tokens", "/input_tokens"]);
    let output = count(&["/completion_tokens", "/output_tokens"]);
    // OpenAI's and OpenRouter's (an Anthropic model's cache reads among them), DeepSeek's own.
    let cached = count(&[
        "/prompt_tokens_details/cached_tokens",
        "/prompt_cache_hit_tokens",
        "/cache_read_input_tokens",
    ]);
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(Usage {
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0),
        reported_cost: usage.get("cost").and_then(Value::as_f64),
        cached_tokens: cached.unwrap_or(0),
    })
}

pub(crate) fn invent_call_id() -> String {
    let suffix: String = std::iter::repeat_with(fastrand::alphanumeric)
        .take(24)
        .collect();
    format!("call_{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn feed(chunks: &[Value]) -> ChatResult {
        let mut assembler = Assembler::new();
        for chunk in chunks {
            assembler.push_chunk(chunk, &mut |_| {});
        }
        assembler.finish()
    }

    fn call_delta(call: Value) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    }

    #[test]
    fn repeated_headers_are_not_concatenated() {
        let header =
            json!({"index": 0, "id": "0", "function": {"name": "llm_version", "arguments": ""}});
        let again =
            json!({"index": 0, "id": "0", "function": {"name": "llm_version", "arguments": "{}"}});
        let result = feed(&[call_delta(header), call_delta(again)]);
        assert_eq!(
            result.message.tool_calls,
            vec![ToolCall::new("0", "llm_version", "{}")]
        );
    }

    #[test]
    fn missing_index_opens_a_call_per_header_and_bare_fragments_continue() {
        let result = feed(&[
            call_delta(json!({"id": "a", "function": {"name": "one", "arguments": "{\"x\":"}})),
            call_delta(json!({"function": {"arguments": "1}"}})),
            call_delta(json!({"id": "b", "function": {"name": "two", "arguments": "{}"}})),
        ]);
        let calls = &result.message.tool_calls;
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0], ToolCall::new("a", "one", "{\"x\":1}"));
        assert_eq!(calls[1], ToolCall::new("b", "two", "{}"));
    }

    #[test]
    fn same_index_with_a_new_id_is_a_new_call() {
        let result = feed(&[
            call_delta(
                json!({"index": 0, "id": "a", "function": {"name": "one", "arguments": "{}"}}),
            ),
            call_delta(
                json!({"index": 0, "id": "b", "function": {"name": "two", "arguments": "{}"}}),
            ),
        ]);
        assert_eq!(result.message.tool_calls.len(), 2);
    }

    #[test]
    fn a_fragment_goes_to_the_latest_call_of_its_index_or_the_first_of_its_id() {
        let result = feed(&[
            call_delta(json!({"index": 0, "id": "a", "function": {"name": "one"}})),
            call_delta(json!({"index": 0, "id": "b", "function": {"name": "two"}})),
            call_delta(json!({"index": 0, "function": {"arguments": "{\"to\":2}"}})),
            call_delta(json!({"id": "a", "function": {"arguments": "{\"to\":1}"}})),
            // A call without an id takes one later: the first call of an id stays first.
            call_delta(json!({"index": 1, "function": {"name": "three"}})),
            call_delta(json!({"index": 1, "id": "a", "function": {"arguments": "{}"}})),
            call_delta(json!({"id": "a", "function": {"arguments": " "}})),
        ]);
        let calls = &result.message.tool_calls;
        assert_eq!(calls[0], ToolCall::new("a", "one", "{\"to\":1} "));
        assert_eq!(calls[1], ToolCall::new("b", "two", "{\"to\":2}"));
        assert_eq!(calls[2], ToolCall::new("a", "three", "{}"));
    }

    #[test]
    fn a_hundred_thousand_tiny_calls_take_one_pass_not_one_per_call() {
        // Each new call used to scan every call before it: minutes for this one event.
        let calls: Vec<Value> = (0..100_000).map(|i| json!({"index": i})).collect();
        let result = feed(&[call_delta_list(calls)]);
        assert_eq!(result.message.tool_calls.len(), 100_000);
    }

    fn call_delta_list(calls: Vec<Value>) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": calls}}]})
    }

    #[test]
    fn null_arguments_and_empty_ids_are_filled_in() {
        let result = feed(&[call_delta(
            json!({"index": 0, "id": "", "function": {"name": "now", "arguments": null}}),
        )]);
        let call = &result.message.tool_calls[0];
        assert_eq!(call.function.arguments, "{}");
        assert!(
            call.id.starts_with("call_") && call.id.len() == 29,
            "{}",
            call.id
        );
    }

    #[test]
    fn arguments_sent_as_an_object_are_kept_as_json_text() {
        let result = feed(&[call_delta(
            json!({"index": 0, "id": "c", "function": {"name": "f", "arguments": {"a": 1}}}),
        )]);
        assert_eq!(result.message.tool_calls[0].function.arguments, "{\"a\":1}");
    }

    #[test]
    fn other_choices_are_ignored_and_usage_is_kept() {
        let result = feed(&[
            json!({"choices": [{"index": 1, "delta": {"content": "no"}}, {"index": 0, "delta": {"content": "yes"}}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "cost": 0.5}}),
        ]);
        assert_eq!(result.message.content.as_deref(), Some("yes"));
        assert_eq!(
            result.usage,
            Some(Usage {
                input_tokens: 3,
                output_tokens: 4,
                reported_cost: Some(0.5),
                cached_tokens: 0,
            })
        );
    }

    #[test]
    fn cached_tokens_are_read_as_each_service_reports_them() {
        // DeepSeek's recording (tests/fixtures/deepseek_reasoning_tool_call.sse): both spellings.
        let deepseek = json!({"choices": [], "usage": {"prompt_tokens": 339, "completion_tokens": 83,
            "prompt_tokens_details": {"cached_tokens": 320}, "prompt_cache_hit_tokens": 320}});
        assert_eq!(feed(&[deepseek]).usage.unwrap().cached_tokens, 320);
        // llama.cpp: in `timings`, before or beside the usage.
        let llama = json!({"choices": [], "timings": {"cache_n": 2765, "prompt_n": 42},
            "usage": {"prompt_tokens": 2807, "completion_tokens": 64}});
        assert_eq!(feed(&[llama]).usage.unwrap().cached_tokens, 2765);
        let plain = json!({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1}});
        assert_eq!(feed(&[plain]).usage.unwrap().cached_tokens, 0);
    }

    #[test]
    fn error_inside_a_chunk_fails_after_keeping_its_usage() {
        let mut assembler = Assembler::new();
        let event = SseEvent {
            event: None,
            data: r#"{"choices":[],"error":{"code":400,"message":"Token limit reached"},"usage":{"prompt_tokens":1,"completion_tokens":2}}"#.into(),
        };
        let step = assembler.push_event(&event, &mut |_| {});
        let Step::Failed(error) = step else {
            panic!("{step:?}")
        };
        assert_eq!(error.message, "Token limit reached");
        assert_eq!(error.status, Some(400));
        assert_eq!(assembler.finish().usage.unwrap().output_tokens, 2);
    }

    #[test]
    fn an_answer_that_never_stops_is_cut_off() {
        let piece = "x".repeat(1024 * 1024);
        let chunk = json!({"choices": [{"index": 0, "delta": {"content": piece}}]});
        let event = SseEvent {
            event: None,
            data: chunk.to_string(),
        };
        let mut assembler = Assembler::new();
        let mut steps = 0;
        while assembler.push_event(&event, &mut |_| {}) == Step::Continue {
            steps += 1;
        }
        assert_eq!(steps, MAX_MESSAGE / piece.len());
        let call = json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "c", "function": {"name": "f", "arguments": piece}}]}}]});
        let event = SseEvent {
            event: None,
            data: call.to_string(),
        };
        let mut assembler = Assembler::new();
        while assembler.push_event(&event, &mut |_| {}) == Step::Continue {}
        assert_eq!(assembler.push_event(&event, &mut |_| {}), Step::TooLarge);
    }

    #[test]
    fn only_what_adds_to_the_answer_is_progress() {
        let delta = |delta: Value| json!({"choices": [{"index": 0, "delta": delta}]});
        let cases = [
            ("empty content", delta(json!({"content": ""})), false),
            (
                "role only",
                delta(json!({"role": "assistant", "content": null})),
                false,
            ),
            ("empty delta", delta(json!({})), false),
            ("no choices", json!({"object": "ping"}), false),
            (
                "usage only",
                json!({"choices": [], "usage": {"prompt_tokens": 1}}),
                false,
            ),
            (
                "another choice",
                json!({"choices": [{"index": 1, "delta": {"content": "x"}}]}),
                false,
            ),
            ("empty reasoning", delta(json!({"reasoning": ""})), false),
            ("text", delta(json!({"content": "x"})), true),
            ("refusal", delta(json!({"refusal": "no"})), true),
            ("reasoning", delta(json!({"reasoning": "hmm"})), true),
            (
                "reasoning_content",
                delta(json!({"reasoning_content": "hmm"})),
                true,
            ),
            (
                "a call's arguments",
                delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{"}}]})),
                true,
            ),
            (
                "finish reason",
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
                true,
            ),
        ];
        for (name, chunk, grows) in cases {
            let mut assembler = Assembler::new();
            let before = assembler.progress();
            assembler.push_chunk(&chunk, &mut |_| {});
            assert_eq!(assembler.progress() != before, grows, "{name}");
            // The same chunk again adds only what it carries again.
            let once = assembler.progress();
            assembler.push_chunk(&chunk, &mut |_| {});
            let again = name != "finish reason" && grows;
            assert_eq!(assembler.progress() != once, again, "{name}, repeated");
        }
    }

    #[test]
    fn an_answer_is_finished_by_its_finish_reason_and_shown_by_its_text() {
        let mut assembler = Assembler::new();
        assert!(!assembler.is_finished() && !assembler.has_shown());
        assembler.push_chunk(
            &call_delta(json!({"index": 0, "id": "c", "function": {"name": "f"}})),
            &mut |_| {},
        );
        assert!(!assembler.has_shown(), "a tool call is not shown");
        assembler.push_chunk(
            &json!({"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": null}]}),
            &mut |_| {},
        );
        assert!(assembler.has_shown() && !assembler.is_finished());
        assembler.push_chunk(
            &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
            &mut |_| {},
        );
        assert!(assembler.is_finished());
    }

    #[test]
    fn malformed_chunk_is_reported() {
        let mut assembler = Assembler::new();
        let event = SseEvent {
            event: None,
            data: "{not json".into(),
        };
        assert_eq!(
            assembler.push_event(&event, &mut |_| {}),
            Step::Malformed("{not json".into())
        );
    }
}
