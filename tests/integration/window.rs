//! The window the model has, through the real binary against stand-in servers that answer as
//! the real ones do (their recorded bodies): Ollama is asked for a `num_ctx` that holds the
//! request, a conversation that outgrows a llama.cpp window is compacted instead of refused,
//! a server that refuses tools gets none, a window too small for any request is refused and
//! not remembered, and `/context` says what was learned.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::common::pty::at_80;
use crate::common::{
    self, Recorded, ReplayServer, Reply, TempDir, marvin, run_with_stdin, stderr, stdout,
};

/// An Ollama answer in two NDJSON lines.
const OLLAMA_ANSWER: &str = "{\"message\":{\"role\":\"assistant\",\"content\":\"Summarised.\"},\"done\":false}\n{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":12000,\"eval_count\":3}\n";

/// The system prompt of a request.
fn system_prompt(request: &Recorded) -> String {
    request.body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_stand_in_ollama_is_asked_for_a_window_that_holds_a_long_piped_prompt() {
    let home = TempDir::new("window-ollama");
    // Ollama's own example of /api/show: gemma4, 131072 tokens, no tools among its capabilities.
    let show = common::fixture("ollama_api_show_gemma4_openapi.json");
    let server = ReplayServer::answering_all(move |request| {
        Some(match request.url.as_str() {
            "/api/tags" => Reply::json(200, r#"{"models":[{"name":"gemma4","model":"gemma4"}]}"#),
            "/api/show" => Reply::json(200, show.clone()),
            "/api/chat" => Reply::ndjson(OLLAMA_ANSWER),
            _ => Reply::json(404, r#"{"error":"not found"}"#),
        })
    });
    // About 16,000 tokens: four times the window Ollama serves unless asked for more.
    let piped =
        "A line of the build log, long enough to matter when there are many of them.\n".repeat(830);
    let mut command = marvin(home.path());
    command
        .env("MARVIN_LOCAL_PORTS", server.port().to_string())
        .args(["--non-interactive", "summarise the log"]);
    let output = run_with_stdin(command, &piped);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Summarised.\n");
    let requests = server.requests();
    let show = requests.iter().find(|r| r.url == "/api/show").unwrap();
    assert_eq!(show.body["model"], "gemma4");
    let chat = requests.iter().find(|r| r.url == "/api/chat").unwrap();
    let num_ctx = chat.body["options"]["num_ctx"].as_u64().unwrap_or(0) as usize;
    // The request (its JSON, about four characters a token) and room for the answer fit,
    // within the model's context_length, in a power of two that need not change soon.
    assert!(
        num_ctx >= chat.raw.len() / 4 + 8192 && num_ctx <= 131_072 && num_ctx.is_power_of_two(),
        "num_ctx {num_ctx} for a request of {} bytes",
        chat.raw.len()
    );
    let asked = chat.body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        asked.contains(piped.trim_end()),
        "the piped text went whole"
    );
    // gemma4 calls no tools: it is offered none, and its system prompt says so.
    assert!(chat.body.get("tools").is_none(), "{}", chat.body["tools"]);
    assert!(
        system_prompt(chat).contains("No tools are available in this conversation"),
        "{}",
        system_prompt(chat)
    );
    assert!(
        stderr(&output).contains("the model gemma4 cannot call tools: it is offered none"),
        "{}",
        stderr(&output)
    );
}

/// A stand-in llama.cpp: its recorded `/props` (an 8,192-token window) unless `with_props` is
/// false, and its refusal of a request longer than that (counted as Marvin estimates: four bytes a token), else a short
/// answer that reports the prompt's size as llama.cpp does.
fn llama_cpp(refused: Arc<AtomicUsize>, with_props: bool) -> ReplayServer {
    let props = common::fixture("llamacpp_props.json");
    let too_long = common::fixture("llamacpp_400_exceed_context_size.json");
    ReplayServer::answering_all(move |request| {
        Some(match request.url.as_str() {
            "/props" if with_props => Reply::json(200, props.clone()),
            "/v1/chat/completions" if request.raw.len() / 4 > 8192 => {
                refused.fetch_add(1, Ordering::SeqCst);
                Reply::json(400, too_long.clone())
            }
            "/v1/chat/completions" => {
                let usage = serde_json::json!({"prompt_tokens": request.raw.len() / 4, "completion_tokens": 2});
                Reply::sse(format!(
                    "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"Noted.\"}},\"finish_reason\":\"stop\"}}]}}\n\ndata: {{\"choices\":[],\"usage\":{usage}}}\n\ndata: [DONE]\n\n"
                ))
            }
            _ => Reply::json(404, r#"{"error":{"code":404,"message":"File Not Found"}}"#),
        })
    })
}

/// What every provider accepts: the person's message before any tool call.
fn opens_with_a_question(request: &Recorded) -> bool {
    let messages = request.body["messages"].as_array().unwrap();
    let first = messages.iter().find(|m| m["role"] != "system");
    first.is_some_and(|m| m["role"] == "user")
}

#[test]
fn a_conversation_that_grows_past_a_small_window_is_compacted_instead_of_refused() {
    let home = TempDir::new("window-compact");
    let refused = Arc::new(AtomicUsize::new(0));
    let server = llama_cpp(refused.clone(), true);
    let notes =
        "A note to keep, one of many in this file, with enough words to take room.\n".repeat(50);
    let mut compacted = false;
    // Each run takes up the last one's session (-c): the conversation grows by a few thousand
    // characters a run, past what 8,192 tokens hold.
    for run in 0..8 {
        let mut command = marvin(home.path());
        command
            .env("OPENAI_COMPAT_URL", server.url())
            .env("MARVIN_MODEL", "SmolLM2-135M-Instruct")
            .args(["--non-interactive", "-c", &format!("keep note set {run}")]);
        let output = run_with_stdin(command, &notes);
        assert!(output.status.success(), "run {run}: {}", stderr(&output));
        compacted |= stderr(&output).contains("context compacted: ");
    }
    assert!(compacted, "the conversation was never compacted");
    assert_eq!(refused.load(Ordering::SeqCst), 0, "a request was too long");
    let chats: Vec<Recorded> = server
        .requests()
        .into_iter()
        .filter(|r| r.url == "/v1/chat/completions")
        .collect();
    assert_eq!(chats.len(), 8);
    for chat in &chats {
        assert!(opens_with_a_question(chat), "{}", chat.body["messages"]);
    }
    let last = chats.last().unwrap().body["messages"].to_string();
    assert!(last.contains("[Context compacted."), "{last}");
}

#[test]
fn a_window_named_only_by_a_refusal_is_learned_and_the_request_fitted_to_it() {
    let home = TempDir::new("window-refusal");
    let refused = Arc::new(AtomicUsize::new(0));
    // A llama.cpp whose /props is not reached (behind a proxy that passes only /v1): Marvin
    // learns its window from its refusal of the first request.
    let server = llama_cpp(refused.clone(), false);
    // About 12,000 tokens: more than the server holds, less than a window nobody named.
    let piped =
        "Another line of the report, with figures that nobody will read twice.\n".repeat(680);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("MARVIN_MODEL", "a-model-no-table-knows")
        .args(["--non-interactive", "what does the report say?"]);
    let output = run_with_stdin(command, &piped);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Noted.\n");
    let said = stderr(&output);
    assert!(
        said.contains("exceeds the available context size (8192 tokens)")
            && said.contains("trying again with a request that fits")
            && said.contains("was cut"),
        "{said}"
    );
    assert_eq!(refused.load(Ordering::SeqCst), 1, "{said}");
    let last = server.requests().pop().unwrap();
    assert!(last.raw.len() / 4 <= 8192 - 2048, "{}", last.raw.len());
}

#[test]
fn a_server_that_refuses_tools_is_asked_again_without_them() {
    let home = TempDir::new("window-no-tools");
    // vLLM started without a tool parser, as it answers a request that offers tools.
    let refusal = common::fixture("vllm_400_auto_tool_choice.json");
    let models = r#"{"object":"list","data":[{"id":"Qwen/Qwen2.5-7B-Instruct","object":"model","owned_by":"vllm","max_model_len":131072}]}"#;
    let server = ReplayServer::answering_all(move |request| {
        Some(match request.url.as_str() {
            "/v1/models" => Reply::json(200, models),
            "/v1/chat/completions" if request.body.get("tools").is_some() => {
                Reply::json(400, refusal.clone())
            }
            "/v1/chat/completions" => Reply::text(&["Paris."]),
            _ => Reply::json(404, r#"{"detail":"Not Found"}"#),
        })
    });
    let output = common::non_interactive(
        marvin(home.path())
            .env("OPENAI_COMPAT_URL", server.url())
            .env("MARVIN_MODEL", "Qwen/Qwen2.5-7B-Instruct"),
        "What is the capital of France?",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Paris.\n");
    let chats: Vec<Recorded> = server
        .requests()
        .into_iter()
        .filter(|r| r.url == "/v1/chat/completions")
        .collect();
    assert_eq!(chats.len(), 2, "one refusal, one answer");
    assert!(chats[1].body.get("tools").is_none());
    assert!(system_prompt(&chats[1]).contains("No tools are available in this conversation"));
    let said = stderr(&output);
    assert!(
        said.contains("cannot offer tools to the model")
            && said.contains("trying again with a request that fits")
            && said.contains("cannot call tools: it is offered none this session"),
        "{said}"
    );
}

#[test]
fn context_says_the_window_learned_from_the_server() {
    let home = TempDir::new("window-repl");
    let props = common::fixture("llamacpp_props.json");
    let server = ReplayServer::answering_all(move |request| {
        Some(match request.url.as_str() {
            "/props" => Reply::json(200, props.clone()),
            _ => Reply::json(404, "{}"),
        })
    });
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    pty.send("/context\r");
    pty.wait_for_nth("› ", 2);
    assert!(pty.leave().success());
    let text = pty.visible().text();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "The model's window: 8192 tokens (from llama.cpp /props); 2048 of them are kept for its answer."
        ),
        "{flat}"
    );
    assert!(flat.contains("Context: about "), "{flat}");
    let asked: Vec<Value> = server.requests().iter().map(|r| r.body.clone()).collect();
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.url != "/v1/chat/completions"),
        "{asked:?}"
    );
}

#[test]
fn what_a_server_said_of_its_model_is_remembered_between_runs() {
    let models = r#"{"object":"list","data":[{"id":"qwen/qwen3-32b","object":"model","context_length":40960}]}"#;
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    let server = ReplayServer::answering_all(move |request| {
        Some(match request.url.as_str() {
            "/v1/models" => {
                counted.fetch_add(1, Ordering::SeqCst);
                Reply::json(200, models)
            }
            "/v1/chat/completions" => Reply::text(&["Paris."]),
            _ => Reply::json(404, r#"{"error":"not found"}"#),
        })
    });
    let home = TempDir::new("window-remembered");
    let run = |url: String| {
        let output = common::non_interactive(
            marvin(home.path())
                .env("OPENAI_COMPAT_URL", url)
                .env("MARVIN_MODEL", "qwen/qwen3-32b")
                .arg("--json"),
            "What is the capital of France?",
        );
        assert!(output.status.success(), "{}", stderr(&output));
        let usage: Value = serde_json::from_str(stdout(&output).lines().last().unwrap()).unwrap();
        (
            usage["context"]["window"].as_u64().unwrap(),
            usage["context"]["window_from"]
                .as_str()
                .unwrap()
                .to_string(),
        )
    };
    let said = (40960, "the server's /v1/models".to_string());
    let remembered = (
        40960,
        "what the server said a moment ago (models.json)".to_string(),
    );
    assert_eq!(run(server.url()), said);
    assert_eq!(run(server.url()), remembered);
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    // The same server by another address is another server, asked once too.
    let other = server.url().replace("127.0.0.1", "localhost");
    assert_eq!(run(other.clone()), said);
    assert_eq!(run(other), remembered);
    assert_eq!(asked.load(Ordering::SeqCst), 2);
}

#[test]
fn a_window_too_small_for_the_system_prompt_is_refused_and_not_remembered() {
    let home = TempDir::new("window-absurd");
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    // A llama.cpp whose /props says its window is 3 tokens (a server misconfigured, or one
    // that lies): nothing Marvin sends can fit that.
    let server = ReplayServer::answering_all(move |request| {
        Some(match request.url.as_str() {
            "/props" => {
                counted.fetch_add(1, Ordering::SeqCst);
                Reply::json(200, r#"{"default_generation_settings":{"n_ctx":3}}"#)
            }
            "/v1/chat/completions" => Reply::text(&["Paris."]),
            _ => Reply::json(404, r#"{"error":{"code":404,"message":"File Not Found"}}"#),
        })
    });
    let run = || {
        common::non_interactive(
            marvin(home.path())
                .env("OPENAI_COMPAT_URL", server.url())
                .env("MARVIN_MODEL", "SmolLM2-135M-Instruct"),
            "What is the capital of France?",
        )
    };
    let output = run();
    let said = stderr(&output);
    assert!(!output.status.success(), "{said}");
    assert_eq!(stdout(&output), "");
    // The size of the instructions changes with them: the rest of the line is the contract.
    let line = said.lines().next().unwrap_or_default();
    let (start, end) = line.split_once("(about ").unwrap_or_default();
    assert_eq!(
        (start, end.trim_start_matches(char::is_numeric)),
        (
            "marvin: the model's window is 3 tokens (from llama.cpp /props): too small for Marvin's instructions and your message ",
            " tokens) and an answer, so nothing was sent; start the model's server with a larger context (llama.cpp: --ctx-size, vLLM: --max-model-len, LM Studio: the model's context length, Ollama: num_ctx), or choose another model"
        ),
        "{said}"
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.url != "/v1/chat/completions"),
        "nothing was sent"
    );
    // The window is not kept: the next run asks the server again.
    let cache =
        std::fs::read_to_string(home.path().join("marvin-home/models.json")).unwrap_or_default();
    assert!(!cache.contains("SmolLM2"), "{cache}");
    assert!(!run().status.success());
    assert_eq!(asked.load(Ordering::SeqCst), 2);
}
