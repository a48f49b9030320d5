//! Reading error bodies of the chat services and turning them into classified [`LlmError`]s.

use std::time::Duration;

use serde_json::Value;

use super::{ErrorKind, LlmError};
use crate::net::Secrets;

/// Who failed, for messages that tell the user what to fix.
pub struct ErrorContext<'a> {
    pub provider: &'a str,
    /// Where the key came from, e.g. `GROQ_API_KEY` or `~/.ssh/GROQ_API_KEY`.
    pub key_hint: &'a str,
    /// The model asked for, and where it was chosen (`GROQ_MODEL`, `--model`).
    pub model: &'a str,
    pub model_hint: &'a str,
    /// The variable holding the base URL, for a 404 that is not about the model.
    pub url_hint: &'a str,
    /// The credentials the request carried, cut out of any text we show.
    pub secrets: Secrets,
}

/// What a refusal of a request as too long advises, when Marvin could not fit it.
pub(crate) const CONTEXT_ADVICE: &str = " Start a new conversation or ask about less at once.";

/// The useful parts of an error object, whatever shape the service used.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct ApiError {
    pub message: String,
    /// Upstream text that says more (OpenRouter's `metadata.raw`).
    pub detail: Option<String>,
    /// `code` or `type` or Google's `status`, as text.
    pub code: Option<String>,
    /// A numeric status inside the body (`code: 429`, `status_code: 400`).
    pub status: Option<u16>,
    /// A wait the body asks for (Gemini `RetryInfo.retryDelay`, Groq "try again in 5.4s").
    pub retry_delay: Option<Duration>,
}

/// Finds an error in a JSON value: `{"error": {...}}`, `{"error": "text"}`, `[{"error": ...}]`.
pub(crate) fn find_error(value: &Value) -> Option<ApiError> {
    if let Some(first) = value.as_array().and_then(|items| items.first()) {
        return find_error(first);
    }
    match value.get("error")? {
        Value::String(text) => Some(ApiError {
            message: text.clone(),
            ..ApiError::default()
        }),
        Value::Object(_) => Some(describe(&value["error"])),
        _ => None,
    }
}

fn describe(error: &Value) -> ApiError {
    let text = |key: &str| error.get(key).and_then(Value::as_str).map(str::to_string);
    let message = text("message").unwrap_or_else(|| error.to_string());
    let code = match error.get("code") {
        Some(Value::String(code)) => Some(code.clone()),
        _ => text("status").or_else(|| text("type")),
    };
    let status = ["code", "status_code"]
        .iter()
        .find_map(|key| error.get(*key).and_then(Value::as_u64))
        .and_then(|n| u16::try_from(n).ok());
    let detail = error
        .pointer("/metadata/raw")
        .and_then(Value::as_str)
        .map(str::to_string);
    let retry_delay = error
        .get("details")
        .and_then(Value::as_array)
        .and_then(|details| details.iter().find_map(|d| d.get("retryDelay")?.as_str()))
        .and_then(parse_seconds_suffix)
        .or_else(|| try_again_in(&message));
    ApiError {
        message,
        detail,
        code,
        status,
        retry_delay,
    }
}

/// `"34.4s"` → 34.4 seconds.
fn parse_seconds_suffix(text: &str) -> Option<Duration> {
    let seconds: f64 = text.trim().strip_suffix('s')?.parse().ok()?;
    Duration::try_from_secs_f64(seconds).ok()
}

/// Groq says "Please try again in 5.41s" or "in 1m2.5s".
fn try_again_in(message: &str) -> Option<Duration> {
    let rest = &message[message.find("try again in ")? + "try again in ".len()..];
    let token = rest.split_whitespace().next()?.trim_end_matches(['.', ',']);
    let (minutes, seconds) = match token.split_once('m') {
        Some((m, s)) => (m.parse::<f64>().ok()?, s),
        None => (0.0, token),
    };
    let seconds = if seconds.is_empty() {
        0.0
    } else {
        seconds.strip_suffix('s')?.parse::<f64>().ok()?
    };
    Duration::try_from_secs_f64(minutes * 60.0 + seconds).ok()
}

/// The error for a non-2xx answer. `retry_after` is what the headers said (see `retry`).
pub(crate) fn from_http(
    ctx: &ErrorContext<'_>,
    status: u16,
    body: &str,
    retry_after: Option<Duration>,
) -> LlmError {
    // Redacted before it is parsed or cut, so that no key is left half cut.
    let body = ctx.secrets.redact(body);
    let parsed = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|value| find_error(&value));
    let api = parsed.unwrap_or_else(|| ApiError {
        message: plain_body(&body),
        ..ApiError::default()
    });
    let kind = classify(status, &api);
    let mut error = LlmError::new(kind, ctx.secrets.redact(&message(ctx, status, kind, &api)));
    error.retry_after = retry_after.or(api.retry_delay);
    error.transient = matches!(status, 502..=504);
    error
}

fn message(ctx: &ErrorContext<'_>, status: u16, kind: ErrorKind, api: &ApiError) -> String {
    let provider = ctx.provider;
    let summary = summary(status, api);
    match kind {
        ErrorKind::Auth => format!(
            "{provider} rejected the API key ({summary}). Check {}.",
            ctx.key_hint
        ),
        ErrorKind::RateLimited => format!("{provider} is rate limiting requests ({summary})"),
        ErrorKind::ContextLength => {
            format!("the conversation is too long for the model ({summary}).{CONTEXT_ADVICE}")
        }
        ErrorKind::Server => format!("{provider} had a server error ({summary})"),
        ErrorKind::ToolsRefused => format!(
            "{provider} cannot offer tools to the model {:?} ({summary}). Choose a model that calls tools with {}.",
            ctx.model, ctx.model_hint
        ),
        ErrorKind::Timeout => format!("{provider} timed out ({summary})"),
        _ if is_unknown_model(status, api) => format!(
            "{provider} does not know the model {:?} ({summary}). Change {} to a model {provider} serves.",
            ctx.model, ctx.model_hint
        ),
        _ if status == 404 => format!(
            "{provider} has no such endpoint ({summary}). Check the base URL in {}.",
            ctx.url_hint
        ),
        _ => format!("{provider} refused the request ({summary})"),
    }
}

/// A 404 that speaks of a model, or a code that says so (Copilot answers 400
/// `model_not_supported`).
fn is_unknown_model(status: u16, api: &ApiError) -> bool {
    let code = api.code.as_deref().unwrap_or("");
    matches!(code, "model_not_found" | "model_not_supported")
        || (status == 404 && api.message.to_lowercase().contains("model"))
}

/// The error for an error object the service sent inside a 200 stream.
pub(crate) fn from_stream(ctx: &ErrorContext<'_>, api: &ApiError) -> LlmError {
    let kind = match api.status {
        Some(status) => classify(status, api),
        None => ErrorKind::Server,
    };
    let code = api
        .code
        .as_deref()
        .map(|code| format!(" ({code})"))
        .unwrap_or_default();
    let message = format!(
        "{} reported an error mid-answer{code}: {}",
        ctx.provider, api.message
    );
    let mut error = LlmError::new(kind, ctx.secrets.redact(&message));
    error.retry_after = api.retry_delay;
    error
}

fn classify(status: u16, api: &ApiError) -> ErrorKind {
    // llama.cpp refuses tools with a 500, OpenRouter with a 404.
    if matches!(status, 400 | 404 | 500) && refuses_tools(api) {
        return ErrorKind::ToolsRefused;
    }
    match status {
        401 | 403 => ErrorKind::Auth,
        429 => ErrorKind::RateLimited,
        408 | 504 => ErrorKind::Timeout,
        500..=599 => ErrorKind::Server,
        _ if is_context_length(api) => ErrorKind::ContextLength,
        _ => ErrorKind::BadRequest,
    }
}

/// The server will not take the request's tools: Ollama's "does not support tools",
/// llama.cpp's "tools param requires --jinja flag" (older: "Unsupported param: tools"),
/// vLLM's "\"auto\" tool choice requires --enable-auto-tool-choice", OpenRouter's "No
/// endpoints found that support tool use".
fn refuses_tools(api: &ApiError) -> bool {
    let message = api.message.to_lowercase();
    [
        "does not support tools",
        "tools param requires",
        "unsupported param: tools",
        "tool choice requires",
        "support tool use",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

fn is_context_length(api: &ApiError) -> bool {
    let codes = [
        "context_length_exceeded",
        "exceed_context_size_error",
        "model_max_prompt_tokens_exceeded",
    ];
    if api
        .code
        .as_deref()
        .is_some_and(|code| codes.contains(&code))
    {
        return true;
    }
    let message = api.message.to_lowercase();
    [
        "maximum context length",
        "context length",
        "context window",
        "context size",
        "too many tokens",
        "prompt token count",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

fn summary(status: u16, api: &ApiError) -> String {
    let mut text = format!("HTTP {status}");
    if let Some(code) = &api.code {
        text.push(' ');
        text.push_str(code);
    }
    if !api.message.is_empty() {
        text.push_str(": ");
        text.push_str(&api.message);
    }
    if let Some(detail) = &api.detail {
        text.push_str(" — ");
        text.push_str(detail);
    }
    text
}

/// A non-JSON error body (an HTML page from a proxy, say), cut to something readable.
fn plain_body(body: &str) -> String {
    let flat: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    Secrets::new().cut(&flat, 300)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!("{FIXTURES}{name}")).unwrap()
    }

    fn ctx() -> ErrorContext<'static> {
        ErrorContext {
            provider: "openai",
            key_hint: "OPENAI_API_KEY",
            model: "gpt-9",
            model_hint: "MARVIN_MODEL",
            url_hint: "OPENAI_BASE_URL",
            secrets: Secrets::new().with(Some("sk-secret-key")),
        }
    }

    #[test]
    fn openai_401_is_auth_and_names_the_variable() {
        let err = from_http(
            &ctx(),
            401,
            &fixture("openai_401_invalid_api_key.json"),
            None,
        );
        assert_eq!(err.kind, ErrorKind::Auth);
        assert!(
            err.message.contains("Check OPENAI_API_KEY"),
            "{}",
            err.message
        );
        assert!(err.message.contains("invalid_api_key"), "{}", err.message);
        assert!(
            err.message.contains("Incorrect API key provided"),
            "{}",
            err.message
        );
    }

    #[test]
    fn context_length_is_recognised_and_not_retried() {
        let err = from_http(
            &ctx(),
            400,
            &fixture("openai_400_context_length_exceeded.json"),
            None,
        );
        assert_eq!(err.kind, ErrorKind::ContextLength);
        assert!(err.message.contains("too long"), "{}", err.message);
        assert!(
            err.message.contains("maximum context length is 4097"),
            "{}",
            err.message
        );
    }

    #[test]
    fn refusals_of_long_requests_and_of_tools_are_told_apart_from_other_errors() {
        let cases = [
            (
                400,
                "llamacpp_400_exceed_context_size.json",
                ErrorKind::ContextLength,
            ),
            (
                400,
                "copilot_400_prompt_token_count_exceeded.json",
                ErrorKind::ContextLength,
            ),
            (
                400,
                "ollama_400_does_not_support_tools.json",
                ErrorKind::ToolsRefused,
            ),
            (
                400,
                "vllm_400_auto_tool_choice.json",
                ErrorKind::ToolsRefused,
            ),
            (
                500,
                "llamacpp_500_unsupported_param_tools.json",
                ErrorKind::ToolsRefused,
            ),
            (
                400,
                "openai_400_unsupported_parameter.json",
                ErrorKind::BadRequest,
            ),
        ];
        for (status, file, kind) in cases {
            let err = from_http(&ctx(), status, &fixture(file), None);
            assert_eq!(err.kind, kind, "{file}: {}", err.message);
        }
        let refused = from_http(
            &ctx(),
            400,
            &fixture("ollama_400_does_not_support_tools.json"),
            None,
        );
        assert_eq!(
            refused.message,
            "openai cannot offer tools to the model \"gpt-9\" (HTTP 400: registry.ollama.ai/library/codellama:latest does not support tools). Choose a model that calls tools with MARVIN_MODEL."
        );
    }

    #[test]
    fn unsupported_parameter_is_a_bad_request_with_the_api_message() {
        let err = from_http(
            &ctx(),
            400,
            &fixture("openai_400_unsupported_parameter.json"),
            None,
        );
        assert_eq!(err.kind, ErrorKind::BadRequest);
        assert!(
            err.message.contains("unsupported_parameter"),
            "{}",
            err.message
        );
        assert!(err.message.contains("max_tokens"), "{}", err.message);
    }

    #[test]
    fn openrouter_429_shows_the_upstream_detail_and_has_no_delay() {
        let err = from_http(
            &ctx(),
            429,
            &fixture("openrouter_429_provider_rate_limited.json"),
            None,
        );
        assert_eq!(err.kind, ErrorKind::RateLimited);
        assert_eq!(err.retry_after, None);
        assert!(
            err.message.contains("Provider returned error"),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("temporarily rate-limited upstream"),
            "{}",
            err.message
        );
    }

    #[test]
    fn gemini_array_wrapped_404_shows_the_message() {
        let err = from_http(
            &ctx(),
            404,
            &fixture("gemini_openai_compat_error_array_404.json"),
            None,
        );
        assert_eq!(err.kind, ErrorKind::BadRequest);
        assert!(err.message.contains("NOT_FOUND"), "{}", err.message);
        assert!(
            err.message
                .contains("models/no-such-model-xyz is not found"),
            "{}",
            err.message
        );
    }

    #[test]
    fn gemini_429_reads_the_retry_delay_from_the_body() {
        let err = from_http(
            &ctx(),
            429,
            &fixture("gemini_429_resource_exhausted_native.json"),
            None,
        );
        assert_eq!(err.kind, ErrorKind::RateLimited);
        assert_eq!(err.retry_after, Some(Duration::from_secs_f64(34.4)));
        assert!(
            err.message.contains("You exceeded your current quota"),
            "{}",
            err.message
        );
    }

    #[test]
    fn header_delay_wins_over_the_body() {
        let body = fixture("gemini_429_resource_exhausted_native.json");
        let err = from_http(&ctx(), 429, &body, Some(Duration::from_secs(3)));
        assert_eq!(err.retry_after, Some(Duration::from_secs(3)));
    }

    #[test]
    fn groq_try_again_in_text_is_a_delay() {
        assert_eq!(
            try_again_in("Please try again in 5.41s. Visit"),
            Duration::try_from_secs_f64(5.41).ok()
        );
        assert_eq!(
            try_again_in("try again in 1m2.5s"),
            Duration::try_from_secs_f64(62.5).ok()
        );
        assert_eq!(try_again_in("no hint here"), None);
    }

    #[test]
    fn server_errors_and_html_bodies_are_readable() {
        let err = from_http(
            &ctx(),
            502,
            "<html>\n<body>Bad   gateway</body></html>",
            None,
        );
        assert_eq!(err.kind, ErrorKind::Server);
        assert!(
            err.message.contains("<html> <body>Bad gateway"),
            "{}",
            err.message
        );
    }

    #[test]
    fn the_key_never_appears_in_a_message() {
        let body = r#"{"error":{"message":"key sk-secret-key is wrong","code":"invalid_api_key"}}"#;
        let err = from_http(&ctx(), 401, body, None);
        assert!(!err.message.contains("sk-secret-key"), "{}", err.message);
        assert!(err.message.contains("[redacted]"));
    }

    #[test]
    fn only_gateway_errors_are_transient() {
        let cases = [
            (502, ErrorKind::Server, true),
            (503, ErrorKind::Server, true),
            (504, ErrorKind::Timeout, true),
            (500, ErrorKind::Server, false),
            (429, ErrorKind::RateLimited, false),
            (408, ErrorKind::Timeout, false),
            (404, ErrorKind::BadRequest, false),
        ];
        for (status, kind, transient) in cases {
            let err = from_http(&ctx(), status, "busy", None);
            assert_eq!((err.kind, err.transient), (kind, transient), "{status}");
        }
    }

    #[test]
    fn an_unknown_model_says_where_it_was_chosen_and_a_bare_404_names_the_url() {
        let cases = [
            (
                404,
                r#"{"error":{"message":"The model `gpt-9` does not exist","code":"model_not_found"}}"#,
                "openai does not know the model \"gpt-9\" (HTTP 404 model_not_found: The model `gpt-9` does not exist). Change MARVIN_MODEL to a model openai serves.",
            ),
            (
                400,
                r#"{"error":{"message":"The requested model is not supported.","code":"model_not_supported"}}"#,
                "openai does not know the model \"gpt-9\" (HTTP 400 model_not_supported: The requested model is not supported.). Change MARVIN_MODEL to a model openai serves.",
            ),
            (
                404,
                "404 page not found",
                "openai has no such endpoint (HTTP 404: 404 page not found). Check the base URL in OPENAI_BASE_URL.",
            ),
        ];
        for (status, body, expected) in cases {
            let err = from_http(&ctx(), status, body, None);
            assert_eq!(err.kind, ErrorKind::BadRequest);
            assert_eq!(err.message, expected);
        }
    }

    #[test]
    fn a_key_in_a_long_plain_body_is_cut_out_before_the_body_is_cut() {
        let body = format!("{} Bearer sk-secret-key", "x".repeat(290));
        let err = from_http(&ctx(), 400, &body, None);
        assert!(!err.message.contains("sk-secr"), "{}", err.message);
        assert!(err.message.contains("Bearer [r…"), "{}", err.message);
    }

    #[test]
    fn ollama_string_errors_are_found() {
        let value: Value = serde_json::from_str(r#"{"error":"model not found"}"#).unwrap();
        assert_eq!(find_error(&value).unwrap().message, "model not found");
    }
}
