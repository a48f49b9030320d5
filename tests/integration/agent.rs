//! The tool loop through the real client and a replay server: parallel calls, call order,
//! the round cap and its final call without tools, and a panicking tool.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::common::{ReplayServer, Reply, TempDir};
use marvin::agent::{AgentEvent, Turn, run_turn};
use marvin::config::{ProviderKind, ProviderSettings};
use marvin::llm::openai::OpenAiCompat;
use marvin::message::{Message, Role};
use marvin::tools::schema::{Kind, Param};
use marvin::tools::{Offered, Registry, ToolContext, ToolDef};
use serde::Deserialize;

/// Calls of the rendezvous tool that have arrived and not yet left.
static ARRIVED: Mutex<usize> = Mutex::new(0);
static ALL_HERE: Condvar = Condvar::new();
const PARTIES: usize = 4;

#[derive(Deserialize)]
struct Tag {
    tag: String,
}

const TAG: &[Param] = &[Param::required("tag", Kind::String, "a label")];

/// Waits until all four calls of the round are running at once. Run one after the other,
/// the first would wait in vain: the proof of parallelism needs no clock.
fn rendezvous(args: Tag, _: &ToolContext) -> Result<String, String> {
    let mut arrived = ARRIVED.lock().unwrap();
    *arrived += 1;
    ALL_HERE.notify_all();
    let (arrived, timeout) = ALL_HERE
        .wait_timeout_while(arrived, Duration::from_secs(20), |n| *n < PARTIES)
        .unwrap();
    if timeout.timed_out() {
        return Err(format!("only {} calls ran at once", *arrived));
    }
    Ok(format!("{} met the others", args.tag))
}

fn explode(_: Tag, _: &ToolContext) -> Result<String, String> {
    panic!("kaboom")
}

fn registry() -> Registry {
    marvin::tools::install_panic_hook();
    let mut registry = Registry::default();
    registry.add(
        ToolDef::build("rendezvous")
            .describe("Meet.")
            .offered(Offered::Everywhere)
            .params(TAG)
            .example(r#"{"tag": "a"}"#)
            .handler(rendezvous),
    );
    registry.add(
        ToolDef::build("explode")
            .describe("Panic.")
            .offered(Offered::Everywhere)
            .params(TAG)
            .example(r#"{"tag": "a"}"#)
            .handler(explode),
    );
    registry
}

fn provider(server: &ReplayServer) -> OpenAiCompat {
    OpenAiCompat::new(ProviderSettings {
        kind: ProviderKind::OpenAiCompat,
        model: "test-model".into(),
        model_hint: "OPENAI_COMPAT_MODEL".into(),
        base_url: server.url(),
        api_key: None,
        key_hint: "OPENAI_COMPAT_API_KEY".into(),
        timeout: Duration::from_secs(30),
        proxy: None,
        token_url: String::new(),
        token_cache: None,
        facts_cache: None,
    })
}

fn context(dir: &TempDir) -> ToolContext {
    ToolContext::new(dir.path().to_path_buf())
}

fn run(
    server: &ReplayServer,
    max_rounds: usize,
) -> (
    Result<Message, marvin::llm::LlmError>,
    Vec<Message>,
    Vec<AgentEvent>,
) {
    let dir = TempDir::new("agent");
    let providers =
        marvin::llm::chain::ProviderChain::new(vec![std::sync::Arc::new(provider(server))]);
    let registry = registry();
    let ctx = context(&dir);
    let events = Mutex::new(Vec::new());
    let emit = |event: AgentEvent| events.lock().unwrap().push(event);
    let budget = Mutex::new(marvin::budget::Budget::new(226_000));
    let backup_dir = dir.path().join("logs");
    let turn = Turn {
        providers: &providers,
        registry: &registry,
        ctx: &ctx,
        max_rounds,
        emit: &emit,
        budget: &budget,
        backup_dir: &backup_dir,
    };
    let mut messages = vec![Message::system("sys"), Message::user("go")];
    let result = run_turn(&turn, &mut messages);
    (result, messages, events.into_inner().unwrap())
}

#[test]
fn calls_of_one_round_run_in_parallel_and_answer_in_call_order() {
    let calls: Vec<(String, String)> = (0..PARTIES)
        .map(|i| (format!("id{i}"), format!("{{\"tag\":\"t{i}\"}}")))
        .collect();
    let call_refs: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, args)| (id.as_str(), "rendezvous", args.as_str()))
        .collect();
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&call_refs),
        Reply::text(&["all met"]),
    ]);
    let (result, messages, events) = run(&server, 10);
    assert_eq!(result.unwrap().text(), "all met");
    let results: Vec<(&str, &str)> = messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| (m.tool_call_id.as_deref().unwrap(), m.text()))
        .collect();
    assert_eq!(
        results,
        [
            ("id0", "t0 met the others"),
            ("id1", "t1 met the others"),
            ("id2", "t2 met the others"),
            ("id3", "t3 met the others")
        ]
    );
    let started = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolRoundStarted { .. }))
        .count();
    let finished = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolFinished { .. }))
        .count();
    assert_eq!((started, finished), (1, PARTIES));
    // The second request carries the assistant's calls followed by the four results.
    let sent = &server.requests()[1].body["messages"];
    assert_eq!(sent.as_array().unwrap().len(), 2 + 1 + PARTIES);
}

#[test]
fn at_the_round_cap_one_final_call_goes_without_tools() {
    // A name no request offered: the model made it up.
    let call = Reply::tool_calls(&[("c", "unknown_tool", "{}")]).made_up();
    let server = ReplayServer::start(vec![
        call.clone(),
        call,
        Reply::text(&["giving up politely"]),
    ]);
    let (result, _, _) = run(&server, 2);
    assert_eq!(result.unwrap().text(), "giving up politely");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[0].body.get("tools").is_some());
    assert!(requests[1].body.get("tools").is_some());
    assert!(
        requests[2].body.get("tools").is_none(),
        "the last call offers no tools"
    );
}

#[test]
fn a_panicking_tool_becomes_an_error_result_and_the_loop_goes_on() {
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("p", "explode", r#"{"tag":"x"}"#)]),
        Reply::text(&["recovered"]),
    ]);
    let (result, messages, _) = run(&server, 10);
    assert_eq!(result.unwrap().text(), "recovered");
    let tool = messages.iter().find(|m| m.role == Role::Tool).unwrap();
    assert_eq!(tool.text(), "Error executing 'explode': kaboom");
}

#[test]
fn a_failed_call_leaves_the_conversation_well_formed() {
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("p", "explode", r#"{"tag":"x"}"#)]),
        Reply::json(500, r#"{"error":{"message":"upstream broke"}}"#),
    ]);
    let (result, messages, _) = run(&server, 10);
    let error = result.unwrap_err();
    assert!(
        error.message.contains("upstream broke"),
        "{}",
        error.message
    );
    // The completed round stays: the assistant's call and its answer.
    let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::System, Role::User, Role::Assistant, Role::Tool]
    );
}
