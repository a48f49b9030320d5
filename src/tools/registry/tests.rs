//! The registry's tests: definitions, execute's sentences for every failure, and did you mean.

use super::*;
use crate::tools::declare::Offered;
use crate::tools::schema::{Kind, Param};
use serde::Deserialize;

#[derive(Deserialize)]
struct EchoArgs {
    text: String,
    times: Option<u32>,
}

const ECHO_PARAMS: &[Param] = &[
    Param::required("text", Kind::String, "what to say"),
    Param::optional("times", Kind::Integer, "how often"),
];

fn echo(args: EchoArgs, _: &ToolContext) -> Result<String, String> {
    if args.text == "fail" {
        return Err("it failed. Try again with other text.".into());
    }
    if args.text == "panic" {
        panic!("boom");
    }
    Ok(args.text.repeat(args.times.unwrap_or(1) as usize))
}

fn registry() -> Registry {
    install_panic_hook();
    let mut registry = Registry::default();
    registry.add(
        ToolDef::build("echo_text")
            .describe("Echo.")
            .offered(Offered::Everywhere)
            .params(ECHO_PARAMS)
            .example(r#"{"text": "hi"}"#)
            .handler(echo),
    );
    registry.add(
        ToolDef::build("write_text")
            .describe("Write.")
            .offered(Offered::Coding)
            .writes()
            .params(ECHO_PARAMS)
            .example(r#"{"text": "hi"}"#)
            .handler(echo),
    );
    registry
}

fn ctx(coding_mode: bool, readonly: bool) -> ToolContext {
    ToolContext {
        coding_mode,
        readonly,
        ..ToolContext::new("/".into())
    }
}

fn run(name: &str, args: &str) -> ToolOutcome {
    registry().execute(&ToolCall::new("1", name, args), &ctx(true, false))
}

#[test]
fn the_quiet_panic_guard_is_per_thread_and_nests() {
    let (entered, seen) = std::sync::mpsc::channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let tool = std::thread::spawn(move || {
        run_guarded(|| {
            entered.send(IN_TOOL.with(Cell::get)).unwrap();
            released.recv().unwrap();
        })
    });
    assert!(seen.recv().unwrap(), "set on the thread running the tool");
    assert!(
        !IN_TOOL.with(Cell::get),
        "and only there: another session's thread still reports its crashes"
    );
    release.send(()).unwrap();
    tool.join().unwrap().unwrap();
    let after_inner = run_guarded(|| {
        run_guarded(|| ()).unwrap();
        IN_TOOL.with(Cell::get)
    });
    assert_eq!(after_inner, Ok(true));
    assert!(!IN_TOOL.with(Cell::get));
}

#[test]
fn execute_cases() {
    let cases: &[(&str, &str, bool, &str)] = &[
        ("echo_text", r#"{"text":"ab","times":2}"#, false, "abab"),
        ("echo_text", r#""{\"text\":\"double\"}""#, false, "double"),
        ("echo_text", r#"{"text":"x","times":"3"}"#, false, "xxx"),
        (
            "echo_text",
            r#"{"text":"fail"}"#,
            true,
            "Error: it failed. Try again with other text.",
        ),
        (
            "echo_text",
            r#"{"text":"panic"}"#,
            true,
            "Error executing 'echo_text': boom",
        ),
        (
            "echo_text",
            "",
            true,
            "  - text: missing required field (expected string)",
        ),
        (
            "echo_text",
            r#"{"text": 5"#,
            true,
            "Error: Invalid JSON in the arguments for 'echo_text'",
        ),
        (
            "echo_text",
            "[1]",
            true,
            "must be a JSON object, e.g. echo_text({\"text\": \"hi\"})",
        ),
        ("text_echo", "{}", true, "Did you mean 'echo_text'?"),
        ("echo_txt", "{}", true, "Did you mean 'echo_text'?"),
        (
            "launch_rockets",
            "{}",
            true,
            "Error: Unknown tool 'launch_rockets'. Available: echo_text, write_text",
        ),
    ];
    for (name, args, is_error, expected) in cases {
        let outcome = run(name, args);
        assert_eq!(
            outcome.is_error, *is_error,
            "{name} {args}: {}",
            outcome.content
        );
        assert!(
            outcome.content.contains(expected),
            "{name} {args}: {}",
            outcome.content
        );
    }
}

#[test]
fn validation_error_shows_usage_and_parameters() {
    let outcome = run("echo_text", r#"{"times": "many"}"#);
    assert_eq!(
        outcome.content,
        "Error: Invalid arguments for 'echo_text':\n  - text: missing required field (expected string)\n  - times: expected integer, got string \"many\"\nUsage: echo_text({\"text\": \"hi\"})\nParameters:\n  text (string, required): what to say\n  times (integer, optional): how often"
    );
}

#[test]
fn categories_gate_what_is_offered_and_run() {
    let registry = registry();
    assert_eq!(registry.names(&ctx(false, false)), vec!["echo_text"]);
    assert_eq!(
        registry.names(&ctx(true, false)),
        vec!["echo_text", "write_text"]
    );
    assert_eq!(registry.names(&ctx(true, true)), vec!["echo_text"]);
    let refused = registry.execute(
        &ToolCall::new("1", "write_text", r#"{"text":"a"}"#),
        &ctx(true, true),
    );
    assert!(
        refused.content.contains("this agent is read-only"),
        "{}",
        refused.content
    );
    let refused = registry.execute(
        &ToolCall::new("1", "write_text", r#"{"text":"a"}"#),
        &ctx(false, false),
    );
    assert!(
        refused.content.contains("which only coding mode does")
            && refused.content.contains("--code"),
        "{}",
        refused.content
    );
}

#[test]
fn definitions_are_openai_functions() {
    let defs = registry().definitions(&ctx(false, false)).unwrap();
    let defs: Vec<Value> = serde_json::from_str(defs.get()).unwrap();
    assert_eq!(defs.len(), 1);
    assert_eq!(defs[0]["type"], "function");
    assert_eq!(defs[0]["function"]["name"], "echo_text");
    assert_eq!(
        defs[0]["function"]["parameters"]["required"],
        serde_json::json!(["text"])
    );
}

/// Approves every question with "always".
struct AlwaysYes;

impl crate::interact::Interactor for AlwaysYes {
    fn ask(
        &self,
        _: &crate::interact::Prompt,
    ) -> Result<crate::interact::Response, crate::interact::Unavailable> {
        Ok(crate::interact::Response::Approved(
            crate::interact::Scope::Always,
        ))
    }
    fn defer(&self, _: crate::interact::Prompt, _: crate::interact::FollowUp) {}
}

fn run_approved(args: EchoArgs, ctx: &ToolContext) -> Result<String, String> {
    ctx.approve(crate::interact::approvals::Action::command(&args.text))?;
    Ok(format!("ran {}", args.text))
}

#[test]
fn an_approval_that_cannot_be_saved_is_said_in_the_result() {
    use crate::interact::approvals::{Grants, PermissionMode};
    use std::sync::Arc;
    let home = crate::test_support::TempDir::new("unsaved-grant");
    let blocked = home.path().join("approvals.json");
    std::fs::create_dir(&blocked).unwrap();
    let saved = home.path().join("saved.json");
    let cases = [
        (
            None,
            "ran ls\n(The approval could not be saved for later: there is no MARVIN_HOME to keep approvals in.)",
        ),
        (
            Some(blocked.clone()),
            "ran ls\n(The approval could not be saved for later: cannot save approvals to ",
        ),
        (Some(saved), "ran ls"),
    ];
    let mut registry = registry();
    registry.add(
        ToolDef::build("run_it")
            .describe("Run.")
            .offered(Offered::Everywhere)
            .params(ECHO_PARAMS)
            .example(r#"{"text": "ls"}"#)
            .handler(run_approved),
    );
    for (store, expected) in cases {
        let settings = crate::tools::ToolSettings {
            permission_mode: PermissionMode::Default,
            ..Default::default()
        };
        let ctx = ToolContext {
            settings: Arc::new(settings),
            shared: Arc::new(crate::tools::SessionTools {
                grants: Grants::new(store.clone(), home.path(), Default::default()),
                ..Default::default()
            }),
            interactor: Some(Arc::new(AlwaysYes)),
            ..ToolContext::new(home.path().to_path_buf())
        };
        // A note left by another call stays with that call.
        ctx.shared.notes.add("other", "not mine".into());
        let outcome = registry.execute(&ToolCall::new("c1", "run_it", r#"{"text":"ls"}"#), &ctx);
        assert!(!outcome.is_error, "{store:?}: {}", outcome.content);
        assert!(
            outcome.content.starts_with(expected),
            "{store:?}: {}",
            outcome.content
        );
        assert_eq!(outcome.content.lines().count(), expected.lines().count());
        assert_eq!(ctx.shared.notes.take("other"), ["not mine"]);
    }
}

#[test]
fn a_name_of_megabytes_is_near_no_tool_and_answered_at_once() {
    // Its table of edits against every name took minutes with the built-in tools.
    let name = "echo_text".repeat(1 << 17);
    let outcome = run(&name, "{}");
    assert!(outcome.content.starts_with("Error: Unknown tool"));
    assert!(!outcome.content.contains("Did you mean"));
}
