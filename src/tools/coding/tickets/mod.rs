//! Tickets: the `tk` tool wrapping the external ticket CLI (or the built-in store in tk's format
//! where it is not installed), and the gate that keeps write tools closed until the agent has
//! created a ticket, on every machine. The first `tk create` is turned back once so that the
//! agent writes a thorough description. Read-only agents are exempt.

mod store;

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use serde::Deserialize;

use crate::tools::kit::process;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

pub(crate) const NEED_TICKET: &str = "You must create a ticket with 'tk create' before writing files. Create a ticket describing your task first.";
pub(crate) const TOO_BRIEF: &str = "Ticket description is too brief. Please provide a thorough description with acceptance criteria, then try again.";

/// The session's ticket state.
#[derive(Default)]
pub struct TicketGate {
    state: Mutex<GateState>,
}

#[derive(Default)]
struct GateState {
    has_ticket: bool,
    create_attempted: bool,
    /// The call whose `tk create` was turned back as too brief, until the registry asks.
    turned_back: Option<String>,
}

impl TicketGate {
    /// A gate a ticket has already opened, for tests of the tools behind it.
    #[cfg(test)]
    pub(crate) fn opened() -> Self {
        let gate = Self::default();
        gate.with(|s| s.has_ticket = true);
        gate
    }

    /// A conversation taken up again (a stored session) that created a ticket: the gate is
    /// open, as it was when the ticket was made.
    pub(crate) fn open_if_created_in(&self, messages: &[crate::message::Message]) {
        let created = messages.iter().flat_map(|m| &m.tool_calls).any(|call| {
            call.function.name == "tk"
                && serde_json::from_str::<serde_json::Value>(&call.function.arguments)
                    .ok()
                    .and_then(|a| {
                        a["args"]
                            .as_str()
                            .map(|s| s.trim_start().starts_with("create"))
                    })
                    .unwrap_or(false)
        });
        if created {
            self.with(|s| s.has_ticket = true);
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut GateState) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Whether writes need a ticket here: for every agent that may write (seed 002 invariant 21),
/// whether or not the tk program is installed.
fn required(ctx: &ToolContext) -> bool {
    !ctx.readonly
}

/// Whether the call of `ctx` was the `tk create` turned back as too brief (asked once, by the
/// registry, as the call ends).
pub(crate) fn turned_back(ctx: &ToolContext) -> bool {
    ctx.shared.tickets.with(|s| {
        let this = s.turned_back.as_deref() == Some(ctx.call_id.as_str());
        if this {
            s.turned_back = None;
        }
        this
    })
}

/// Refuses a write tool until a ticket exists.
pub(crate) fn check_gate(ctx: &ToolContext) -> Result<(), String> {
    if required(ctx) && !ctx.shared.tickets.with(|s| s.has_ticket) {
        return Err(NEED_TICKET.to_string());
    }
    Ok(())
}

const PARAMS: &[Param] = &[Param::required(
    "args",
    Kind::String,
    "Arguments for tk, e.g. create \"Title\" -d \"Description\", start ID, close ID, add-note ID \"text\", show ID, ls",
)];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "coding/tickets",
    about: "the project tickets (tk) that gate writes",
    words: &[
        "tk", "ticket", "tickets", "task", "tasks", "issue", "issues",
    ],
    asks: &[
        "create a ticket for this",
        "start the ticket",
        "close the ticket",
        "list the tickets",
        "add a note to the ticket",
        "which tickets are open",
        "begin work on a ticket",
        "mark the ticket done",
        "note on the ticket why it failed",
        "file a ticket for the bug",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![ToolDef::build("tk")
        .describe("Manage tickets with the tk CLI (or, where it is not installed, Marvin's built-in store in the same format): create, start, close, reopen, status, add-note, show, ls; with tk also blocked, dep tree and more. Create a ticket before changing files.")
        .offered(Offered::Coding)
        .params(PARAMS)
        .example(r#"{"args": "create \"Fix the parser\" -d \"Handle empty input; acceptance: tests pass\""}"#)
        .handler(tk)]
}

#[derive(Deserialize)]
struct Args {
    args: String,
}

fn tk(args: Args, ctx: &ToolContext) -> Result<String, String> {
    let mut argv = split_words(&args.args)?;
    let Some(subcommand) = argv.first().cloned() else {
        return Err("Say what tk should do, e.g. {\"args\": \"ls\"}.".into());
    };
    if let Some(why) = cannot_change(ctx) {
        if !reads_only(&argv) {
            return Err(format!(
                "tk {subcommand} changes tickets, and {why}; only tk show, ls, ready, blocked, closed and dep tree are allowed here."
            ));
        }
    }
    let creating = subcommand == "create";
    if creating
        && required(ctx)
        && !ctx
            .shared
            .tickets
            .with(|s| std::mem::replace(&mut s.create_attempted, true))
    {
        ctx.shared
            .tickets
            .with(|s| s.turned_back = Some(ctx.call_id.clone()));
        return Err(TOO_BRIEF.into());
    }
    if creating {
        if let Some(parent) = &ctx.settings.ticket {
            if !argv.iter().any(|a| a == "--parent") {
                argv.extend(["--parent".to_string(), parent.clone()]);
            }
        }
    }
    let output = match ctx.find_program("tk") {
        Some(program) => {
            let mut command = ctx.program(program, crate::sandbox::Paths::default())?;
            command
                .args(&argv)
                .current_dir(ctx.working_dir())
                .env_remove("GIT_DIR");
            process::run_program(command, "tk", Duration::from_secs(60), &ctx.cancel)?
                .success(&format!("tk {subcommand}"))?
        }
        None => store::run(&ctx.working_dir(), &argv)?,
    };
    if creating {
        ctx.shared.tickets.with(|s| s.has_ticket = true);
    }
    Ok(output)
}

/// Why this agent may not change tickets, if it may not: a read-only agent, or plan mode.
fn cannot_change(ctx: &ToolContext) -> Option<&'static str> {
    if ctx.readonly {
        Some("this agent is read-only")
    } else if ctx.settings.permission_mode == crate::interact::approvals::PermissionMode::Plan {
        Some("plan mode is read-only")
    } else {
        None
    }
}

/// Whether `tk ARGV` only reads tickets.
fn reads_only(argv: &[String]) -> bool {
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    matches!(
        words.as_slice(),
        [
            "show" | "ls" | "list" | "ready" | "blocked" | "closed" | "query" | "help",
            ..
        ] | ["dep", "tree", ..]
    )
}

/// Splits a command line into words the way a shell would for simple quoting: whitespace
/// separates, single quotes are literal, double quotes allow `\"` and `\\`.
pub(crate) fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("A single quote is not closed.".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("A double quote is not closed.".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("A double quote is not closed.".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use crate::test_support::TempDir;
    use crate::tools::{Registry, ToolSettings};
    use std::sync::Arc;

    #[test]
    fn words_split_like_a_shell() {
        let cases: &[(&str, &[&str])] = &[
            ("ls", &["ls"]),
            (
                "create \"Fix it\" -d 'all of it'",
                &["create", "Fix it", "-d", "all of it"],
            ),
            (
                r#"add-note T-1 "say \"hi\"""#,
                &["add-note", "T-1", "say \"hi\""],
            ),
            ("a\\ b  c", &["a b", "c"]),
            ("x ''", &["x", ""]),
        ];
        for (line, expected) in cases {
            assert_eq!(split_words(line).unwrap(), *expected, "{line}");
        }
        assert!(split_words("create \"open").is_err());
    }

    /// A directory holding a stand-in `tk` program that records its arguments.
    fn with_tk(work: &TempDir) -> (TempDir, ToolContext) {
        let bin = TempDir::new("tk-bin");
        let script = bin.path().join("tk");
        std::fs::write(
            &script,
            "#!/bin/sh\necho \"$@\" >> tk-calls.log\necho \"ok: $1\"\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!(
            "{}:{}",
            bin.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let ctx = ToolContext {
            coding_mode: true,
            settings: Arc::new(ToolSettings {
                search_path: Some(path),
                ..ToolSettings::default()
            }),
            ..ToolContext::new(work.path().to_path_buf())
        };
        (bin, ctx)
    }

    fn call(registry: &Registry, ctx: &ToolContext, name: &str, args: serde_json::Value) -> String {
        registry
            .execute(&ToolCall::new("1", name, args.to_string()), ctx)
            .content
    }

    #[test]
    fn writes_wait_for_a_ticket_and_the_first_create_is_turned_back() {
        let work = TempDir::new("tk-gate");
        let (_bin, ctx) = with_tk(&work);
        let registry = Registry::builtin();
        let create = serde_json::json!({"path": "a.txt", "content": "x"});
        assert_eq!(
            call(&registry, &ctx, "create_file", create.clone()),
            format!("Error: {NEED_TICKET}")
        );
        assert_eq!(
            call(
                &registry,
                &ctx,
                "run_command",
                serde_json::json!({"command": "true"})
            ),
            format!("Error: {NEED_TICKET}")
        );
        let ticket = serde_json::json!({"args": "create \"Add a\" -d \"short\""});
        assert_eq!(
            call(&registry, &ctx, "tk", ticket.clone()),
            format!("Error: {TOO_BRIEF}")
        );
        assert_eq!(call(&registry, &ctx, "tk", ticket), "ok: create");
        assert_eq!(
            call(&registry, &ctx, "create_file", create),
            "Created 'a.txt' (1 lines)."
        );
        let log = std::fs::read_to_string(work.path().join("tk-calls.log")).unwrap();
        assert_eq!(
            log, "create Add a -d short\n",
            "the turned-back create never reached tk"
        );
    }

    #[test]
    fn the_gates_turn_backs_are_marked_as_such_and_nothing_else_is() {
        let work = TempDir::new("tk-marked");
        let (_bin, ctx) = with_tk(&work);
        let registry = Registry::builtin();
        let run = |id: &str, name: &str, args: serde_json::Value| {
            let outcome = registry.execute(&ToolCall::new(id, name, args.to_string()), &ctx);
            (outcome.is_error, outcome.turned_back)
        };
        let create = serde_json::json!({"path": "a.txt", "content": "x"});
        let ticket = serde_json::json!({"args": "create \"Add a\" -d \"short\""});
        assert_eq!(run("1", "create_file", create.clone()), (true, true));
        assert_eq!(
            run("2", "tk", serde_json::json!({"args": ""})),
            (true, false)
        );
        assert_eq!(run("3", "tk", ticket.clone()), (true, true));
        assert_eq!(run("4", "tk", ticket), (false, false));
        assert_eq!(run("5", "create_file", create), (false, false));
        let missing = serde_json::json!({"path": "nope.txt"});
        assert_eq!(run("6", "read_file", missing), (true, false));
    }

    #[test]
    fn sub_agents_create_child_tickets_and_readonly_agents_are_exempt() {
        let work = TempDir::new("tk-parent");
        let (_bin, mut ctx) = with_tk(&work);
        let mut settings = (*ctx.settings).clone();
        settings.ticket = Some("T-7".into());
        ctx.settings = Arc::new(settings);
        let registry = Registry::builtin();
        let ticket = serde_json::json!({"args": "create Child"});
        call(&registry, &ctx, "tk", ticket.clone());
        call(&registry, &ctx, "tk", ticket);
        assert_eq!(
            std::fs::read_to_string(work.path().join("tk-calls.log")).unwrap(),
            "create Child --parent T-7\n"
        );
        let readonly = ToolContext {
            readonly: true,
            shared: Arc::new(crate::tools::SessionTools::default()),
            ..ctx
        };
        assert_eq!(check_gate(&readonly), Ok(()));
    }

    #[test]
    fn read_only_agents_and_plan_mode_may_read_tickets_but_not_change_them() {
        let work = TempDir::new("tk-readonly");
        let registry = Registry::builtin();
        let plan = ToolContext {
            coding_mode: true,
            settings: Arc::new(ToolSettings {
                search_path: Some("/nonexistent".into()),
                permission_mode: crate::interact::approvals::PermissionMode::Plan,
                ..ToolSettings::default()
            }),
            ..ToolContext::new(work.path().to_path_buf())
        };
        let readonly = ToolContext {
            readonly: true,
            settings: Arc::new(ToolSettings {
                search_path: Some("/nonexistent".into()),
                ..ToolSettings::default()
            }),
            ..plan.clone()
        };
        for (ctx, why) in [(&plan, "plan mode is read-only"), (&readonly, "read-only")] {
            for args in [
                "create Thing -d x",
                "close t-1",
                "add-note t-1 hi",
                "dep a b",
            ] {
                let result = call(&registry, ctx, "tk", serde_json::json!({ "args": args }));
                assert!(result.contains(why), "{args}: {result}");
            }
            let listed = call(&registry, ctx, "tk", serde_json::json!({"args": "ls"}));
            assert_eq!(listed, "(no tickets)");
        }
        assert!(!work.path().join(".tickets").exists());
    }

    #[test]
    fn without_tk_the_gate_holds_and_the_built_in_store_opens_it() {
        let work = TempDir::new("tk-none");
        let ctx = ToolContext {
            coding_mode: true,
            settings: Arc::new(ToolSettings {
                search_path: Some("/nonexistent".into()),
                ..ToolSettings::default()
            }),
            ..ToolContext::new(work.path().to_path_buf())
        };
        assert_eq!(check_gate(&ctx), Err(NEED_TICKET.to_string()));
        let registry = Registry::builtin();
        let create = serde_json::json!({"args": "create \"Add a\" -d \"all of it\""});
        assert_eq!(
            call(&registry, &ctx, "tk", create.clone()),
            format!("Error: {TOO_BRIEF}")
        );
        let made = call(&registry, &ctx, "tk", create);
        assert!(made.starts_with("---\nid: "), "{made}");
        assert_eq!(check_gate(&ctx), Ok(()));
        let tickets: Vec<_> = std::fs::read_dir(work.path().join(".tickets"))
            .unwrap()
            .collect();
        assert_eq!(tickets.len(), 1);
    }
}
