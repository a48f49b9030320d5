//! Every request caps the answer at the room the model's window leaves for it (a quarter of
//! the window, at most 8,192 tokens): `max_tokens` for OpenAI-compatible servers,
//! `max_completion_tokens` for OpenAI's own API, `num_predict` for Ollama. An answer cut at
//! the cap says so.

use serde_json::json;

use crate::common::{self, ReplayServer, Reply, TempDir, marvin, non_interactive, stderr};

#[test]
fn a_servers_window_caps_the_answer_of_every_request() {
    let home = TempDir::new("cap-llamacpp");
    // A llama.cpp server started with a 4,096-token window: the answer gets 1,024.
    let server = ReplayServer::answering_all(|request| match request.url.as_str() {
        "/props" => Some(Reply::json(
            200,
            json!({"default_generation_settings": {"n_ctx": 4096}}).to_string(),
        )),
        "/v1/chat/completions" => Some(Reply::text(&["Hi."])),
        _ => None,
    });
    let output = non_interactive(
        marvin(home.path()).env("OPENAI_COMPAT_URL", server.url()),
        "hello",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let chat = server
        .requests()
        .into_iter()
        .find(|r| r.url.ends_with("/chat/completions"))
        .unwrap();
    assert_eq!(chat.body["max_tokens"], 1024, "{}", chat.raw);
    assert!(chat.body.get("max_completion_tokens").is_none());
}

#[test]
fn openai_s_own_api_is_capped_with_max_completion_tokens() {
    let home = TempDir::new("cap-openai");
    let server = ReplayServer::start(vec![Reply::text(&["Hi."])]);
    let output = non_interactive(
        marvin(home.path())
            .env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", server.url())
            .args(["--provider", "openai"]),
        "hello",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let chat = &server.requests()[0];
    assert_eq!(chat.body["max_completion_tokens"], 8192, "{}", chat.raw);
    assert!(chat.body.get("max_tokens").is_none());
}

#[test]
fn ollama_is_capped_with_num_predict() {
    let home = TempDir::new("cap-ollama");
    let done = r#"{"message":{"role":"assistant","content":"Hi."},"done":true}
"#;
    let server = ReplayServer::answering(move |request| match request.url.as_str() {
        "/api/chat" => Reply::ndjson(done),
        _ => Reply::json(404, "{}"),
    });
    let output = non_interactive(
        marvin(home.path())
            .env("OLLAMA_URL", server.root())
            .env("OLLAMA_MODEL", "qwen3"),
        "hello",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let chat = server
        .requests()
        .into_iter()
        .find(|r| r.url == "/api/chat")
        .unwrap();
    let predict = chat.body["options"]["num_predict"].as_u64().unwrap();
    let window = chat.body["options"]["num_ctx"].as_u64().unwrap();
    assert!(predict > 0 && predict <= 8192, "{}", chat.raw);
    assert!(predict <= window, "{}", chat.raw);
}

#[test]
fn an_answer_cut_at_the_cap_says_so() {
    let home = TempDir::new("cap-cut");
    let chunk = json!({"choices": [{"index": 0, "delta": {"content": "The first part"}, "finish_reason": "length"}]});
    let server = ReplayServer::start(vec![Reply::sse(format!(
        "data: {chunk}\n\ndata: [DONE]\n\n"
    ))]);
    let output = non_interactive(
        marvin(home.path()).env("OPENAI_COMPAT_URL", server.url()),
        "write a long story",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("the answer was cut off at its limit (about 8192 tokens"),
        "{}",
        stderr(&output)
    );
    assert!(stderr(&output).contains("say \"go on\" for the rest"));

    // A cut answer is no exchange for a later conversation's digest to show; a whole one is.
    // (Scripts keep no chat log: these are one-shots at a prompt.)
    let server = ReplayServer::start(vec![
        Reply::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n")),
        Reply::text(&["Fine."]),
        Reply::text(&["Yes."]),
    ]);
    for question in ["write a long story", "how are you?", "still there?"] {
        common::answered(&home, &server, &[question]);
    }
    let system = server.requests()[2].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("User: how are you?\nAsst: Fine."),
        "{system}"
    );
    assert!(!system.contains("The first part"), "{system}");
    assert!(!system.contains("write a long story"), "{system}");
}
