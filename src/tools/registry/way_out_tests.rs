//! Whatever tells the model to call a tool names one the next request offers: the ticket
//! gate's refusal in coding mode, the errors that point elsewhere, and every message in the
//! tools' source that names a tool.

use std::sync::Arc;

use super::*;
use crate::tools::ToolSettings;

fn ctx(coding_mode: bool, search_path: Option<String>) -> ToolContext {
    ToolContext {
        coding_mode,
        settings: Arc::new(ToolSettings {
            on_demand: true,
            search_path,
            ..ToolSettings::default()
        }),
        ..ToolContext::new(std::env::temp_dir())
    }
}

fn call(registry: &Registry, ctx: &ToolContext, name: &str, args: &str) -> ToolOutcome {
    registry.execute(&ToolCall::new("c1", name, args), ctx)
}

#[test]
fn the_ticket_gate_s_way_out_is_offered_from_the_first_request() {
    let registry = Registry::builtin();
    let coding = ctx(true, None);
    assert!(registry.names(&coding).contains(&"tk".to_string()));
    let refused = call(
        &registry,
        &coding,
        "create_file",
        r#"{"path": "a.txt", "content": "x"}"#,
    );
    assert!(refused.content.contains("tk create"), "{}", refused.content);
    assert!(registry.names(&coding).contains(&"tk".to_string()));
    // A read-only agent is never stopped by the gate, and is not offered tk for it.
    let reader = ToolContext {
        readonly: true,
        ..ctx(true, None)
    };
    assert!(!registry.names(&reader).contains(&"tk".to_string()));
}

#[test]
fn an_error_that_points_to_another_tool_brings_that_tool_into_the_next_request() {
    let registry = Registry::builtin();
    // No Chromium on this search path: scrape_page says to use browse_web.
    let everyday = ctx(false, Some(String::new()));
    assert!(
        !registry
            .names(&everyday)
            .contains(&"browse_web".to_string())
    );
    let refused = call(
        &registry,
        &everyday,
        "scrape_page",
        r#"{"url": "https://example.org/"}"#,
    );
    assert!(
        refused.content.contains("browse_web"),
        "{}",
        refused.content
    );
    assert!(
        registry
            .names(&everyday)
            .contains(&"browse_web".to_string())
    );
    // A tool the mode does not allow is named but never offered.
    registry.offer_named("run `git init` with run_command", &everyday);
    assert!(
        !registry
            .names(&everyday)
            .contains(&"run_command".to_string())
    );
}

/// Every string in the tools' source that names a tool, as an error or a note would carry it:
/// after it, the tool is offered wherever the mode allows it.
#[test]
fn every_message_naming_a_tool_leaves_it_offered() {
    let registry = Registry::builtin();
    let names: Vec<String> = registry.names(&ToolContext {
        settings: Arc::new(ToolSettings::default()),
        coding_mode: true,
        ..ToolContext::new(std::env::temp_dir())
    });
    let mut checked = 0;
    for literal in literals(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tools")) {
        for name in names
            .iter()
            .filter(|n| n.len() > 2 && names_tool(&literal, n))
        {
            for coding_mode in [true, false] {
                let ctx = ctx(coding_mode, None);
                if !registry.allows(&ctx, name) {
                    continue;
                }
                registry.offer_named(&literal, &ctx);
                assert!(
                    registry.names(&ctx).contains(name),
                    "{name} named in {literal:?} is not offered next (coding mode: {coding_mode})"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} messages name a tool");
}

/// Whether `text` holds `name` as a word of its own.
fn names_tool(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| word == name)
}

/// The string literals of the Rust files under `dir` that read as sentences (a space and a
/// period or colon in them), escapes left as written.
fn literals(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let source = std::fs::read_to_string(&path).unwrap();
                let sentences = source.split('"').skip(1).step_by(2).filter(|part| {
                    part.contains(' ') && (part.contains('.') || part.contains(':'))
                });
                found.extend(sentences.map(str::to_string));
            }
        }
    }
    found
}

/// The model's own words for what it needs find what serves it (the paraphrases the word
/// lists missed).
#[test]
fn find_tools_finds_from_a_paraphrase() {
    let registry = Registry::builtin();
    for (query, tool) in [
        ("save an address", "save_place"),
        ("save a place", "save_place"),
        ("notify my phone", "ntfy_publish"),
        ("close marvin", "exit_app"),
        ("upcoming events", "calendar_list_upcoming"),
        ("what folder am I in", "get_working_dir"),
    ] {
        let ctx = ctx(query == "what folder am I in", None);
        let found = call(
            &registry,
            &ctx,
            "find_tools",
            &serde_json::json!({"query": query}).to_string(),
        );
        assert!(!found.is_error, "{query}: {}", found.content);
        assert!(
            registry.names(&ctx).contains(&tool.to_string()),
            "{query}: {}",
            found.content
        );
    }
}
