//! Every recorded provider stream in tests/fixtures/, replayed byte for byte through a
//! local server into the real client, must assemble to what the note beside it says.

use std::time::Duration;

use crate::common::{self, ReplayServer, Reply, fixture};
use marvin::cancel::CancelToken;
use marvin::config::{ProviderKind, ProviderSettings};
use marvin::llm::openai::OpenAiCompat;
use marvin::llm::{ChatRequest, ChatResult, ErrorKind, LlmError, Provider};
use marvin::message::Message;
use serde_json::Value;

/// The JSON block under "## Expected" in a fixture's note.
fn expected(note: &str) -> Value {
    let text = String::from_utf8(fixture(note)).unwrap();
    let section = &text[text
        .find("## Expected")
        .expect("note has an Expected section")..];
    let start = section.find("```json").unwrap() + "```json".len();
    let end = start + section[start..].find("```").unwrap();
    serde_json::from_str(&section[start..end]).unwrap()
}

fn settings(url: String) -> ProviderSettings {
    ProviderSettings {
        kind: ProviderKind::OpenAiCompat,
        model: "test-model".into(),
        model_hint: "OPENAI_COMPAT_MODEL".into(),
        base_url: url,
        api_key: Some("test-key-123".into()),
        key_hint: "OPENAI_COMPAT_API_KEY".into(),
        timeout: Duration::from_secs(20),
        proxy: None,
        token_url: String::new(),
        token_cache: None,
        facts_cache: None,
    }
}

/// Sends one chat through the replayed reply; returns the result, the streamed text and the
/// request the server saw.
fn chat(reply: Reply) -> (Result<ChatResult, LlmError>, String, common::Recorded) {
    // The recordings call the tools their own clients offered.
    let server = ReplayServer::start(vec![reply.made_up()]);
    let provider = OpenAiCompat::new(settings(server.url()));
    let messages = [Message::user("hello")];
    let request = ChatRequest {
        messages: &messages,
        tools: None,
        tokens: 0,
    };
    let mut streamed = String::new();
    let result = provider.chat(
        &request,
        &mut |t| streamed.push_str(t),
        &CancelToken::new(),
        &mut |_| {},
    );
    let recorded = server.requests().remove(0);
    (result, streamed, recorded)
}

fn check_stream(name: &str) {
    let (result, streamed, request) = chat(Reply::fixture(&format!("{name}.sse")));
    assert_eq!(request.url, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer test-key-123"));
    assert_eq!(request.body["stream"], true);
    assert_eq!(request.body["stream_options"]["include_usage"], true);

    let expected = expected(&format!("{name}.md"));
    let errors = expected["error_payloads"].as_array().unwrap();
    if let Some(error) = errors.first() {
        let err = result.expect_err("a stream carrying an error must fail");
        let message = error["message"].as_str().unwrap();
        assert!(err.message.contains(message), "{name}: {}", err.message);
        assert_ne!(err.kind, ErrorKind::Cancelled);
        return;
    }
    let result = result.unwrap_or_else(|e| panic!("{name}: {e}"));
    let choice = &expected["choices"]["0"];
    // A refusal is shown as the answer.
    let text = choice["content"]
        .as_str()
        .or(choice["refusal"].as_str())
        .unwrap_or("");
    assert_eq!(result.message.text(), text, "{name}: content");
    assert_eq!(streamed, text, "{name}: streamed text");
    check_tool_calls(name, &result, choice["tool_calls"].as_array().unwrap());
    check_usage(name, &result, &expected["usage"]);
    let finish = choice["finish_reason_values_seen"]
        .as_array()
        .unwrap()
        .last()
        .and_then(Value::as_str);
    assert_eq!(
        result.finish_reason.as_deref(),
        finish,
        "{name}: finish_reason"
    );
}

fn check_tool_calls(name: &str, result: &ChatResult, expected: &[Value]) {
    let calls = &result.message.tool_calls;
    assert_eq!(calls.len(), expected.len(), "{name}: {calls:?}");
    for (call, want) in calls.iter().zip(expected) {
        let id = want["id"].as_str().unwrap();
        if id.is_empty() {
            assert!(
                call.id.starts_with("call_"),
                "{name}: invented id {}",
                call.id
            );
        } else {
            assert_eq!(call.id, id, "{name}: id");
        }
        assert_eq!(
            call.function.name,
            want["name"].as_str().unwrap(),
            "{name}: name"
        );
        let arguments = want["arguments"].as_str().unwrap();
        let arguments = if arguments.is_empty() {
            "{}"
        } else {
            arguments
        };
        assert_eq!(call.function.arguments, arguments, "{name}: arguments");
    }
}

fn check_usage(name: &str, result: &ChatResult, expected: &Value) {
    if expected.is_null() {
        assert_eq!(result.usage, None, "{name}: usage");
        return;
    }
    let usage = result
        .usage
        .unwrap_or_else(|| panic!("{name}: usage missing"));
    assert_eq!(
        usage.input_tokens,
        expected["prompt_tokens"].as_u64().unwrap(),
        "{name}: input tokens"
    );
    assert_eq!(
        usage.output_tokens,
        expected["completion_tokens"].as_u64().unwrap(),
        "{name}: output tokens"
    );
    assert_eq!(
        usage.reported_cost,
        expected["cost"].as_f64(),
        "{name}: cost"
    );
    // The prompt tokens the service read from its cache, as the recording's usage says.
    let cached = expected
        .pointer("/prompt_tokens_details/cached_tokens")
        .or_else(|| expected.get("prompt_cache_hit_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    assert_eq!(usage.cached_tokens, cached, "{name}: cached tokens");
}

macro_rules! stream_fixtures {
    ($($test:ident => $name:literal),* $(,)?) => {
        $( #[test] fn $test() { check_stream($name); } )*
    };
}

stream_fixtures! {
    openai_text_basic => "openai_text_basic",
    openai_parallel_tool_calls => "openai_parallel_tool_calls",
    openai_tool_call_split_args => "openai_tool_call_split_args",
    openai_tool_call_in_role_chunk => "openai_tool_call_in_role_chunk",
    openai_finish_length => "openai_finish_length",
    openai_refusal => "openai_refusal",
    openai_multiple_choices_n3 => "openai_multiple_choices_n3",
    openai_text_obfuscation_usage_null => "openai_text_obfuscation_usage_null",
    groq_tool_call_single_chunk => "groq_tool_call_single_chunk",
    groq_reasoning_then_tool_call => "groq_reasoning_then_tool_call",
    groq_midstream_error_event => "groq_midstream_error_event",
    deepseek_reasoning_tool_call => "deepseek_reasoning_tool_call",
    anthropic_compat_text_then_tool_index1 => "anthropic_compat_text_then_tool_index1",
    openrouter_processing_comments_midstream_error => "openrouter_processing_comments_midstream_error",
    openrouter_tool_call_repeated_id_and_name => "openrouter_tool_call_repeated_id_and_name",
    openrouter_tool_call_no_arguments_key => "openrouter_tool_call_no_arguments_key",
    openrouter_tool_call_arguments_null_edited => "openrouter_tool_call_arguments_null_EDITED",
    gemini_openai_compat_tool_call_single_chunk => "gemini_openai_compat_tool_call_single_chunk",
}

#[test]
fn groq_midstream_error_reports_the_code() {
    let (result, _, _) = chat(Reply::fixture("groq_midstream_error_event.sse"));
    let err = result.unwrap_err();
    assert!(err.message.contains("tool_use_failed"), "{}", err.message);
    assert_eq!(err.kind, ErrorKind::BadRequest);
}

#[test]
fn gemini_nonstream_tool_call_gets_an_id() {
    let body = fixture("gemini_openai_compat_nonstream_empty_tool_id.json");
    let (result, _, _) = chat(Reply::json(200, body));
    let result = result.unwrap();
    let want = expected("gemini_openai_compat_nonstream_empty_tool_id.md");
    let call = &result.message.tool_calls[0];
    assert!(call.id.starts_with("call_"), "{}", call.id);
    assert_eq!(
        call.function.name,
        want["tool_calls"][0]["name"].as_str().unwrap()
    );
    assert_eq!(call.function.arguments, "{}");
    assert_eq!(result.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(result.usage.unwrap().input_tokens, 35);
}

#[test]
fn gemini_nonstream_text_is_the_answer() {
    let body = fixture("gemini_openai_compat_nonstream_text.json");
    let (result, streamed, _) = chat(Reply::json(200, body));
    let result = result.unwrap();
    assert_eq!(result.message.text(), "hello there");
    assert_eq!(streamed, "hello there");
    assert_eq!(result.usage.unwrap().output_tokens, 2);
}

#[test]
fn http_error_fixtures_are_classified() {
    let cases: &[(&str, u16, ErrorKind, &str)] = &[
        (
            "openai_401_invalid_api_key.json",
            401,
            ErrorKind::Auth,
            "Check OPENAI_COMPAT_API_KEY",
        ),
        (
            "openai_400_context_length_exceeded.json",
            400,
            ErrorKind::ContextLength,
            "too long",
        ),
        (
            "openai_400_unsupported_parameter.json",
            400,
            ErrorKind::BadRequest,
            "max_tokens",
        ),
        (
            "gemini_openai_compat_error_array_404.json",
            404,
            ErrorKind::BadRequest,
            "is not found",
        ),
        (
            "openrouter_429_provider_rate_limited.json",
            429,
            ErrorKind::RateLimited,
            "rate-limited upstream",
        ),
        (
            "gemini_429_resource_exhausted_native.json",
            429,
            ErrorKind::RateLimited,
            "exceeded your current quota",
        ),
    ];
    for (file, status, kind, text) in cases {
        let (result, _, _) = chat(Reply::json(*status, fixture(file)));
        let err = result.unwrap_err();
        assert_eq!(err.kind, *kind, "{file}");
        assert!(err.message.contains(text), "{file}: {}", err.message);
        assert!(!err.message.contains("test-key-123"), "{file}: key leaked");
    }
}

#[test]
fn retry_after_header_reaches_the_error() {
    let (result, _, _) =
        chat(Reply::json(429, r#"{"error":{"message":"slow down"}}"#).header("Retry-After", "7"));
    assert_eq!(
        result.unwrap_err().retry_after,
        Some(Duration::from_secs(7))
    );
}

#[test]
fn refused_connection_is_a_network_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let provider = OpenAiCompat::new(settings(format!("http://127.0.0.1:{port}/v1")));
    let messages = [Message::user("hi")];
    let err = provider
        .chat(
            &ChatRequest {
                messages: &messages,
                tools: None,
                tokens: 0,
            },
            &mut |_| {},
            &CancelToken::new(),
            &mut |_| {},
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Network);
    assert!(
        err.message.contains(&format!("127.0.0.1:{port}")),
        "{}",
        err.message
    );
}

#[test]
fn cancel_interrupts_a_silent_stream() {
    let first = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n";
    let server = common::StallServer::start(first);
    let provider = OpenAiCompat::new(settings(server.url()));
    let cancel = CancelToken::new();
    let (sender, receiver) = std::sync::mpsc::channel();
    let canceller = cancel.clone();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            // Cancel once the first delta has arrived and the stream has gone quiet.
            receiver.recv().unwrap();
            canceller.cancel();
        });
        let messages = [Message::user("hi")];
        let mut streamed = String::new();
        let result = provider.chat(
            &ChatRequest {
                messages: &messages,
                tools: None,
                tokens: 0,
            },
            &mut |t| {
                streamed.push_str(t);
                let _ = sender.send(());
            },
            &cancel,
            &mut |_| {},
        );
        assert_eq!(result.unwrap_err().kind, ErrorKind::Cancelled);
        assert_eq!(streamed, "Hel");
    });
    // The provider works again after a cancel (its connection pool was replaced).
    let server = ReplayServer::start(vec![Reply::text(&["again"])]);
    let provider = OpenAiCompat::new(settings(server.url()));
    let messages = [Message::user("hi")];
    let result = provider.chat(
        &ChatRequest {
            messages: &messages,
            tools: None,
            tokens: 0,
        },
        &mut |_| {},
        &CancelToken::new(),
        &mut |_| {},
    );
    assert_eq!(result.unwrap().message.text(), "again");
}

#[test]
fn a_server_gone_silent_times_out_with_the_partial_text_streamed() {
    let server = common::StallServer::start(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hal\"}}]}\n\n",
    );
    let mut short = settings(server.url());
    short.timeout = Duration::from_secs(1);
    let provider = OpenAiCompat::new(short);
    let messages = [Message::user("hi")];
    let mut streamed = String::new();
    let err = provider
        .chat(
            &ChatRequest {
                messages: &messages,
                tools: None,
                tokens: 0,
            },
            &mut |t| streamed.push_str(t),
            &CancelToken::new(),
            &mut |_| {},
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Timeout, "{}", err.message);
    assert_eq!(
        err.message,
        "openai-compat stopped answering: no data for 1s after the answer started (MARVIN_TIMEOUT)"
    );
    assert_eq!(streamed, "Hal");
}
