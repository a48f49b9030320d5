//! What Marvin knows of the model it talks to: its context window (the prompt and the answer
//! together) and whether it can call tools. Read from what the servers say (llama.cpp's
//! `/props`, the model lists of vLLM, llama.cpp and LM Studio, Ollama's `/api/show`, the window
//! a refusal names), else from a table of the hosted models, else a default; each provider
//! keeps what it learned for the session ([`Learned`]).

use std::sync::{Mutex, PoisonError};

use serde_json::Value;

use crate::cancel::CancelToken;

/// The window of a model nobody named: most models served today hold at least this.
pub const DEFAULT_WINDOW: usize = 32_768;

/// What a provider knows of its model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFacts {
    /// Tokens the model holds: the request and the answer together.
    pub window: usize,
    /// Where the window was learned, as `/context` and `--json` say it.
    pub source: &'static str,
    /// False when the model cannot call tools (its server said so or refused them).
    pub tools: bool,
}

impl ModelFacts {
    /// What the table of hosted models says of `model` on `provider`, else the default.
    pub fn guess(provider: &str, model: &str) -> Self {
        match hosted(provider, model) {
            Some(window) => Self::learned(window, TABLE),
            None => Self::learned(DEFAULT_WINDOW, DEFAULT),
        }
    }

    /// A window a server (or the table) named, for a model that calls tools.
    pub fn learned(window: usize, source: &'static str) -> Self {
        Self {
            window,
            source,
            tools: true,
        }
    }
}

/// Room kept for the answer in a window: a quarter of it, at most 8,192 tokens.
pub fn answer_room(window: usize) -> usize {
    (window / 4).min(8192)
}

/// The sources `ModelFacts::source` names.
pub const TABLE: &str = "the table of hosted models";
pub const DEFAULT: &str = "a default: the server did not say";
pub const REFUSAL: &str = "the server's refusal of a longer request";
pub const REMEMBERED: &str = "what the server said a moment ago (models.json)";

/// A provider's facts, learned at the first ask and kept; refusals correct them later.
#[derive(Default)]
pub struct Learned(Mutex<Option<ModelFacts>>);

impl Learned {
    /// The facts, learned with `learn` the first time (one learner at a time). What a look
    /// stopped by `cancel` found is used once, not kept: the next ask looks again.
    pub fn get(&self, cancel: &CancelToken, learn: impl FnOnce() -> ModelFacts) -> ModelFacts {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(facts) = slot.as_ref() {
            return facts.clone();
        }
        let facts = learn();
        if !cancel.is_cancelled() {
            *slot = Some(facts.clone());
        }
        facts
    }

    /// What was learned is dropped: the next ask learns it again.
    pub fn forget(&self) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// The server refused the tools: the model gets none from now on.
    pub fn refuse_tools(&self) {
        if let Some(facts) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            facts.tools = false;
        }
    }

    /// The server refused a request for holding more than `window` tokens.
    pub fn shrink(&self, window: usize) {
        if let Some(facts) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            if window < facts.window {
                facts.window = window;
                facts.source = REFUSAL;
            }
        }
    }

    /// What a refusal teaches: a window it names, tools it would not take.
    pub fn learn_from(&self, error: &super::LlmError) {
        match error.kind {
            super::ErrorKind::ToolsRefused => self.refuse_tools(),
            super::ErrorKind::ContextLength => {
                if let Some(window) = window_in_error(&error.message) {
                    self.shrink(window);
                }
            }
            _ => {}
        }
    }
}

/// The window in llama.cpp's `GET /props`: `default_generation_settings.n_ctx` (older servers
/// put `n_ctx` at the top).
pub fn from_props(props: &Value) -> Option<usize> {
    props
        .pointer("/default_generation_settings/n_ctx")
        .or_else(|| props.get("n_ctx"))
        .and_then(count)
}

/// Fields of a model list's entry that hold its window, the one in use first: LM Studio's
/// loaded length, vLLM's `max_model_len`, llama.cpp's `meta.n_ctx`, OpenRouter's
/// `context_length`, Groq's `context_window`, LM Studio's most.
const WINDOW_FIELDS: [&str; 6] = [
    "/loaded_context_length",
    "/max_model_len",
    "/meta/n_ctx",
    "/context_length",
    "/context_window",
    "/max_context_length",
];

/// The window of `model` in a model list (`GET /v1/models`, LM Studio's `/api/v0/models`): the
/// entry of that id or alias, or the only entry of a server that serves one model.
pub fn from_models(list: &Value, model: &str) -> Option<usize> {
    let entries = list.get("data")?.as_array()?;
    let named = |entry: &&Value| {
        let id = entry.get("id").and_then(Value::as_str);
        let aliases = entry.get("aliases").and_then(Value::as_array);
        id.is_some_and(|id| id.eq_ignore_ascii_case(model))
            || aliases.is_some_and(|a| a.iter().any(|alias| alias.as_str() == Some(model)))
    };
    let entry = match entries.iter().find(named) {
        Some(entry) => entry,
        None if entries.len() == 1 => &entries[0],
        None => return None,
    };
    WINDOW_FIELDS
        .iter()
        .find_map(|field| entry.pointer(field).and_then(count))
}

/// Ollama's `POST /api/show`: the window (`model_info["<architecture>.context_length"]`) and
/// whether `capabilities` lists `tools` (`None` from servers older than capabilities).
pub fn from_show(show: &Value) -> (Option<usize>, Option<bool>) {
    let info = show.get("model_info").and_then(Value::as_object);
    let window = info.and_then(|info| {
        let architecture = info.get("general.architecture").and_then(Value::as_str);
        let own = architecture.and_then(|a| info.get(&format!("{a}.context_length")));
        own.or_else(|| {
            info.iter()
                .find(|(key, _)| key.ends_with(".context_length"))
                .map(|(_, value)| value)
        })
        .and_then(count)
    });
    let tools = show
        .get("capabilities")
        .and_then(Value::as_array)
        .map(|caps| caps.iter().any(|c| c.as_str() == Some("tools")));
    (window, tools)
}

/// A positive token count.
fn count(value: &Value) -> Option<usize> {
    value
        .as_u64()
        .filter(|n| *n > 0)
        .and_then(|n| usize::try_from(n).ok())
}

/// The window a refusal names: llama.cpp's "available context size (8192 tokens)", OpenAI's
/// and vLLM's "maximum context length is 4097 tokens", Copilot's "exceeds the limit of 64000".
pub fn window_in_error(message: &str) -> Option<usize> {
    let lower = message.to_lowercase();
    [
        "context size (",
        "context length is ",
        "exceeds the limit of ",
    ]
    .iter()
    .find_map(|lead| {
        let rest = &lower[lower.find(lead)? + lead.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok().filter(|n: &usize| *n > 0)
    })
}

/// Windows of the hosted models, by the start of their names (the longest start wins), as the
/// providers' model pages give them (2026). Copilot lets a prompt hold less than the vendors
/// do, and says how much when refused.
const HOSTED: [(&str, usize); 27] = [
    ("gpt-5-chat", 128_000),
    ("gpt-5", 400_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("gpt-oss", 131_072),
    ("o1-mini", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("claude", 200_000),
    ("gemini-1.0", 32_760),
    ("gemini-1.5-pro", 2_097_152),
    ("gemini-1.5", 1_048_576),
    ("gemini-2", 1_048_576),
    ("gemini-3", 1_048_576),
    ("llama-3.3-70b", 131_072),
    ("llama-3.1-8b", 131_072),
    ("llama-4", 131_072),
    ("llama3-", 8_192),
    ("qwen3-32b", 131_072),
    ("kimi-k2", 131_072),
    ("gemma2-9b", 8_192),
    ("deepseek-r1-distill", 131_072),
    ("mixtral-8x7b", 32_768),
];

/// Copilot's prompt limit for the models it serves (most hold 128,000 there; a refusal
/// names a lower one).
const COPILOT_PROMPT: usize = 128_000;

/// The table's window for `model` (a `vendor/` prefix is ignored) on `provider`.
pub fn hosted(provider: &str, model: &str) -> Option<usize> {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    let window = HOSTED
        .iter()
        .filter(|(start, _)| name.starts_with(start))
        .max_by_key(|(start, _)| start.len())
        .map(|(_, window)| *window);
    match provider {
        "copilot" => Some(window.map_or(COPILOT_PROMPT, |w| w.min(COPILOT_PROMPT))),
        _ => window,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");

    fn fixture(name: &str) -> Value {
        let text = std::fs::read_to_string(format!("{FIXTURES}{name}")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn the_servers_recorded_answers_give_their_windows() {
        assert_eq!(from_props(&fixture("llamacpp_props.json")), Some(8192));
        let cases = [
            (
                "llamacpp_v1_models.json",
                "SmolLM2-135M-Instruct",
                Some(8192),
            ),
            (
                "llamacpp_v1_models.json",
                "any name: it serves one",
                Some(8192),
            ),
            (
                "vllm_v1_models.json",
                "meta-llama/Meta-Llama-3.1-8B-Instruct",
                Some(8096),
            ),
            (
                "lmstudio_api_v0_models_EDITED.json",
                "devstral-small-2505-mlx",
                Some(4096),
            ),
        ];
        for (file, model, window) in cases {
            assert_eq!(from_models(&fixture(file), model), window, "{file} {model}");
        }
        let two =
            json!({"data": [{"id": "a", "max_model_len": 1}, {"id": "b", "max_model_len": 2}]});
        assert_eq!(from_models(&two, "B"), Some(2));
        assert_eq!(
            from_models(&two, "c"),
            None,
            "several models, none of that name"
        );
        assert_eq!(from_models(&json!({"data": [{"id": "x"}]}), "x"), None);
        assert_eq!(from_props(&json!({"n_ctx": 4096})), Some(4096));
        assert_eq!(from_props(&json!({"error": "no"})), None);
    }

    #[test]
    fn ollama_show_gives_the_window_and_whether_the_model_calls_tools() {
        let cases = [
            (
                fixture("ollama_api_show_docexample.json"),
                (Some(8192), Some(false)),
            ),
            (
                fixture("ollama_api_show_gemma4_openapi.json"),
                (Some(131_072), Some(false)),
            ),
            (
                json!({"capabilities": fixture("ollama_api_show_capabilities_jq.json")}),
                (None, Some(true)),
            ),
            (
                json!({"model_info": {"qwen2.context_length": 32768}}),
                (Some(32768), None),
            ),
        ];
        for (show, expected) in cases {
            assert_eq!(from_show(&show), expected, "{show}");
        }
    }

    #[test]
    fn refusals_name_the_window() {
        let message = |file: &str| {
            fixture(file)["error"]["message"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let cases = [
            (message("llamacpp_400_exceed_context_size.json"), Some(8192)),
            (
                message("openai_400_context_length_exceeded.json"),
                Some(4097),
            ),
            (
                message("copilot_400_prompt_token_count_exceeded.json"),
                Some(64000),
            ),
            ("the request is too long".to_string(), None),
        ];
        for (text, window) in cases {
            assert_eq!(window_in_error(&text), window, "{text}");
        }
    }

    #[test]
    fn the_table_knows_the_hosted_models_by_the_start_of_their_names() {
        let cases = [
            ("openai", "gpt-5.1", Some(400_000)),
            ("openai", "gpt-5-chat-latest", Some(128_000)),
            ("openai", "gpt-4o-mini", Some(128_000)),
            ("groq", "llama-3.3-70b-versatile", Some(131_072)),
            ("groq", "qwen/qwen3-32b", Some(131_072)),
            (
                "groq",
                "meta-llama/llama-4-scout-17b-16e-instruct",
                Some(131_072),
            ),
            ("gemini", "gemini-3-pro-preview", Some(1_048_576)),
            ("gemini", "gemini-1.5-pro-002", Some(2_097_152)),
            (
                "openai-compat",
                "anthropic/claude-sonnet-4.5",
                Some(200_000),
            ),
            ("copilot", "claude-haiku-4.5", Some(128_000)),
            ("copilot", "some-new-model", Some(128_000)),
            ("openai", "some-new-model", None),
        ];
        for (provider, model, window) in cases {
            assert_eq!(hosted(provider, model), window, "{provider} {model}");
        }
        assert_eq!(
            ModelFacts::guess("openai", "gpt-9"),
            ModelFacts::learned(DEFAULT_WINDOW, DEFAULT)
        );
    }

    #[test]
    fn the_answer_keeps_a_quarter_of_a_small_window_and_8192_of_a_large_one() {
        let cases = [(8192, 2048), (32_768, 8192), (200_000, 8192), (2048, 512)];
        for (window, room) in cases {
            assert_eq!(answer_room(window), room, "{window}");
        }
    }

    #[test]
    fn what_is_learned_is_kept_and_refusals_correct_it() {
        let learned = Learned::default();
        let cancel = CancelToken::new();
        learned.shrink(10);
        learned.refuse_tools();
        let stopped = CancelToken::new();
        stopped.cancel();
        assert_eq!(
            learned
                .get(&stopped, || ModelFacts::learned(1, DEFAULT))
                .window,
            1
        );
        let first = learned.get(&cancel, || ModelFacts::learned(8192, TABLE));
        assert_eq!(
            first,
            ModelFacts::learned(8192, TABLE),
            "a stopped look is not kept"
        );
        assert_eq!(learned.get(&cancel, || unreachable!("learned once")), first);
        learned.shrink(100_000);
        assert_eq!(
            learned.get(&cancel, || unreachable!()).window,
            8192,
            "only ever smaller"
        );
        learned.shrink(4096);
        learned.refuse_tools();
        let now = learned.get(&cancel, || unreachable!());
        assert_eq!((now.window, now.source, now.tools), (4096, REFUSAL, false));
        learned.forget();
        assert_eq!(
            learned
                .get(&cancel, || ModelFacts::learned(1, TABLE))
                .window,
            1
        );
    }
}
