//! Sub-agents: `launch_agent` runs a child `marvin --non-interactive` and returns its answer;
//! `review_codebase` starts a read-only reviewer in the background and `review_status`
//! reports on it. Children get MARVIN_DEPTH+1 (refused past 5), their model, ticket, read-only
//! flag, audit log and the parent's permission mode, and never GIT_DIR. Where someone can
//! answer the parent, the child's questions are relayed to them (`conversation`). Write
//! agents of a session run one at a time. Their answer is returned, never written to a file.

mod conversation;
mod jobs;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde::Deserialize;

use crate::cancel::CancelToken;
use crate::interact::approvals::{Action, ActionKind, PermissionMode};
use crate::tools::kit::process::{self, Ending, OUTPUT_CAP, RunLimits};
use crate::tools::schema::{Choices, Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};
pub(crate) use jobs::Jobs;

pub(crate) const MAX_DEPTH: u32 = 5;
const AGENT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

const LAUNCH_PARAMS: &[Param] = &[
    Param::required(
        "ticket_id",
        Kind::String,
        "The ticket (from tk) the sub-agent works on",
    ),
    Param::required(
        "prompt",
        Kind::String,
        "Everything the sub-agent needs to know to do the task",
    ),
    Param::optional(
        "model",
        Kind::Choice(Choices::Fixed(&["auto", "codex", "opus"])),
        "auto: the current model; codex: implementation tier; opus: review tier",
    ),
    Param::optional(
        "readonly",
        Kind::Boolean,
        "The sub-agent may only read, not change anything",
    ),
];
const REVIEW_PARAMS: &[Param] = &[Param::optional(
    "focus",
    Kind::String,
    "What the review should concentrate on",
)];
const STATUS_PARAMS: &[Param] = &[Param::required(
    "job_id",
    Kind::String,
    "The id review_codebase returned",
)];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "coding/agents",
    about: "sub-agents working in parallel, codebase reviews",
    words: &[
        "agent",
        "agents",
        "sub-agent",
        "subagent",
        "review",
        "reviews",
        "delegate",
        "in parallel",
        "background",
    ],
    asks: &[
        "review the whole codebase",
        "have another agent look at this",
        "run this in the background",
        "delegate the refactor",
        "a second opinion on the repo",
        "work on these in parallel",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("launch_agent")
            .describe("Run a sub-agent (another Marvin in non-interactive mode) on a ticket and get its final answer. Write agents run one at a time.")
            .offered(Offered::Coding)
            .writes()
            .params(LAUNCH_PARAMS)
            .example(r#"{"ticket_id": "T-12", "prompt": "Implement the parser in src/parse.rs; tests in tests/parse.rs must pass.", "model": "codex"}"#)
            .handler(launch_agent),
        ToolDef::build("review_codebase")
            .describe("Start a read-only code review in the background; returns a job id for review_status.")
            .offered(Offered::Coding)
            .params(REVIEW_PARAMS)
            .example(r#"{"focus": "error handling in src/net/"}"#)
            .handler(review_codebase),
        ToolDef::build("review_status")
            .describe("Check a background review: still running, or its findings.")
            .offered(Offered::Coding)
            .params(STATUS_PARAMS)
            .example(r#"{"job_id": "review-1"}"#)
            .handler(review_status),
    ]
}

/// One sub-agent to run.
struct Spec<'a> {
    prompt: &'a str,
    model: String,
    ticket: Option<&'a str>,
    readonly: bool,
}

fn resolve_model(ctx: &ToolContext, choice: Option<&str>) -> String {
    let settings = &ctx.settings;
    match choice {
        Some("codex") => settings.code_model_low.clone(),
        Some("opus") => settings.code_model_high.clone(),
        _ => settings.model.clone(),
    }
}

/// Marvin itself, with the person's keys it needs for its model: not confined here, it
/// confines what it starts in turn as this session does (its sandbox is handed down).
fn marvin_itself(program: std::path::PathBuf, sandbox: &crate::sandbox::Policy) -> Command {
    #[allow(clippy::disallowed_methods)]
    let mut command = Command::new(program);
    if !sandbox.network {
        command.arg("--no-network");
    }
    command.args(["--sandbox", sandbox.mode.name()]);
    command
}

fn command(ctx: &ToolContext, spec: &Spec<'_>) -> Result<Command, String> {
    let depth = ctx.settings.depth + 1;
    if depth > MAX_DEPTH {
        return Err(format!(
            "Sub-agent depth limit ({MAX_DEPTH}) reached: this agent is already at depth {}. Do the work yourself instead of launching another agent.",
            ctx.settings.depth
        ));
    }
    let program = ctx
        .settings
        .executable
        .clone()
        .ok_or("Cannot find the marvin program to start a sub-agent with.")?;
    let working_dir = ctx.working_dir();
    let log = audit_log(ctx);
    // A child asks nobody, so in any mode but bypass what would ask is denied. It gets the
    // mode in effect now ("allow all file edits" chosen in this session counts).
    let mode = if spec.readonly {
        PermissionMode::Plan
    } else {
        ctx.permission_mode()
    };
    let mut command = marvin_itself(program, &ctx.settings.sandbox);
    command
        .args([
            "--non-interactive",
            "--permission-mode",
            mode.name(),
            "--provider",
            &ctx.settings.provider,
            "--working-dir",
        ])
        .arg(&working_dir)
        .args(["--prompt", spec.prompt])
        .current_dir(&working_dir)
        .env("MARVIN_DEPTH", depth.to_string())
        .env("MARVIN_MODEL", &spec.model)
        .env("MARVIN_SUBAGENT_LOG", log)
        .env_remove("GIT_DIR");
    match spec.ticket {
        Some(ticket) => command.env("MARVIN_TICKET", ticket),
        None => command.env_remove("MARVIN_TICKET"),
    };
    if spec.readonly {
        command.env("MARVIN_READONLY", "1");
    } else {
        command.env_remove("MARVIN_READONLY");
    }
    Ok(command)
}

/// Runs a sub-agent to the end and describes the outcome for the model. Where someone can
/// answer the parent, the child's questions are relayed to them; else the child asks nobody.
fn run_agent(command: Command, spec: &Spec<'_>, ctx: &ToolContext) -> Result<String, String> {
    let run = match &ctx.interactor {
        Some(interactor) => {
            let log = audit_log(ctx);
            conversation::run(command, ctx, interactor.as_ref(), &log, AGENT_TIMEOUT)
        }
        None => run_plain(command, &ctx.cancel),
    };
    describe(run, spec, &ctx.cancel)
}

/// The child's plain output, read to its end: nobody is there for its questions.
fn run_plain(command: Command, cancel: &CancelToken) -> std::io::Result<process::RunOutput> {
    let limits = RunLimits {
        timeout: AGENT_TIMEOUT,
        output_cap: OUTPUT_CAP,
        cancel,
        input: None,
        watch: None,
    };
    process::run(command, limits)
}

/// How the sub-agent's run ended, for the model.
fn describe(
    run: std::io::Result<process::RunOutput>,
    spec: &Spec<'_>,
    cancel: &CancelToken,
) -> Result<String, String> {
    let run = run.map_err(|e| format!("Could not start the sub-agent: {e}."))?;
    let (answer, cost) = split_cost(&run.output);
    let who = format!(
        "Sub-agent ({}{})",
        spec.model,
        if spec.readonly { ", read-only" } else { "" }
    );
    match run.ending {
        Ending::Exited(0) => Ok(format!("{who} finished:\n{answer}{cost}")),
        Ending::Exited(code) => Err(format!("{who} failed (exit code {code}):\n{answer}{cost}")),
        Ending::Signalled(signal) => Err(format!("{who} was killed by signal {signal}:\n{answer}")),
        Ending::TimedOut => Err(format!(
            "{who} did not finish within {} minutes:\n{answer}",
            AGENT_TIMEOUT.as_secs() / 60
        )),
        Ending::Cancelled => Err(format!(
            "The sub-agent was cancelled by the user ({}).",
            cancel.how()
        )),
    }
}

/// Takes the MARVIN_COST line out of the child's output and turns it into a short note.
fn split_cost(output: &str) -> (String, String) {
    let mut cost = String::new();
    let kept: Vec<&str> = output
        .lines()
        .filter(|line| match line.strip_prefix("MARVIN_COST:") {
            Some(json) => {
                if let Ok(value) = serde_json::from_str::<serde_json::Value>(json) {
                    let spent = match value["session_cost"].as_f64() {
                        Some(usd) if value["cost_unknown"] != true => format!("${usd:.4}"),
                        Some(usd) => format!("${usd:.4} + unknown"),
                        None => "unknown".into(),
                    };
                    cost = format!("\n[cost: {spent}, {} model calls]", value["llm_turns"]);
                }
                false
            }
            None => true,
        })
        .collect();
    (kept.join("\n").trim_end().to_string(), cost)
}

#[derive(Deserialize)]
struct LaunchArgs {
    ticket_id: String,
    prompt: String,
    model: Option<String>,
    readonly: Option<bool>,
}

fn launch_agent(args: LaunchArgs, ctx: &ToolContext) -> Result<String, String> {
    if args.prompt.trim().is_empty() || args.ticket_id.trim().is_empty() {
        return Err(
            "Give the sub-agent a ticket_id and a prompt that says everything it needs to know."
                .into(),
        );
    }
    let spec = Spec {
        prompt: args.prompt.trim(),
        model: resolve_model(ctx, args.model.as_deref()),
        ticket: Some(args.ticket_id.trim()),
        readonly: args.readonly == Some(true),
    };
    let command = command(ctx, &spec)?;
    let detail = format!(
        "ticket {} · model {}{}\n{}",
        args.ticket_id.trim(),
        spec.model,
        if spec.readonly { " · read-only" } else { "" },
        spec.prompt
    );
    // A grant covers this very task, never the next prompt.
    let task = serde_json::json!({
        "ticket": args.ticket_id.trim(),
        "model": spec.model,
        "readonly": spec.readonly,
        "prompt": spec.prompt,
    });
    ctx.approve(Action {
        tool: "launch_agent".into(),
        kind: ActionKind::Act,
        key: format!("launch_agent:{task}"),
        scope: None,
        summary: "launch_agent wants to start a sub-agent:".into(),
        detail,
    })?;
    if spec.readonly {
        return run_agent(command, &spec, ctx);
    }
    let Some((_turn, waited)) = ctx.shared.jobs.writers.take(&ctx.cancel) else {
        return Err(format!(
            "The sub-agent was cancelled by the user ({}) while it waited for another write sub-agent to finish.",
            ctx.cancel.how()
        ));
    };
    let result = run_agent(command, &spec, ctx);
    let Some(waited) = waited else {
        return result;
    };
    let note = format!(
        "Another write sub-agent was running, so this one waited {}s for it to finish and ran after it.\n",
        waited.as_secs()
    );
    result
        .map(|text| format!("{note}{text}"))
        .map_err(|text| format!("{note}{text}"))
}

#[derive(Deserialize)]
struct ReviewArgs {
    focus: Option<String>,
}

fn review_codebase(args: ReviewArgs, ctx: &ToolContext) -> Result<String, String> {
    let focus = args
        .focus
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty());
    let prompt = format!(
        "Review the code in the working directory{}. You are a read-only reviewer: read files, search and look at git history, but change nothing. Report concrete problems with file:line references, most important first, and say briefly why each matters.",
        focus
            .map(|f| format!(", concentrating on {f}"))
            .unwrap_or_default()
    );
    let spec = Spec {
        prompt: &prompt,
        model: resolve_model(ctx, Some("opus")),
        ticket: None,
        readonly: true,
    };
    let command = command(ctx, &spec)?;
    let model = spec.model.clone();
    let id = ctx
        .shared
        .jobs
        .start(focus.unwrap_or("whole codebase"), move |cancel| {
            let spec = Spec {
                prompt: &prompt,
                model,
                ticket: None,
                readonly: true,
            };
            describe(run_plain(command, &cancel), &spec, &cancel).unwrap_or_else(|error| error)
        });
    Ok(format!(
        "Started review job {id}. Check on it with review_status({{\"job_id\": \"{id}\"}})."
    ))
}

#[derive(Deserialize)]
struct StatusArgs {
    job_id: String,
}

fn review_status(args: StatusArgs, ctx: &ToolContext) -> Result<String, String> {
    ctx.shared.jobs.status(args.job_id.trim())
}

/// Where the audit log of a sub-agent goes when the parent sets none.
/// The audit log children write to: MARVIN_SUBAGENT_LOG, else the project's default.
fn audit_log(ctx: &ToolContext) -> PathBuf {
    let working_dir = ctx.working_dir();
    ctx.settings
        .subagent_log
        .clone()
        .unwrap_or_else(|| default_log(&working_dir))
}

pub(crate) fn default_log(working_dir: &std::path::Path) -> PathBuf {
    working_dir.join(".marvin/logs/subagents.jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_cost_line_becomes_a_note() {
        let output = "The answer.\nMARVIN_COST:{\"session_cost\":0.0123,\"llm_turns\":3,\"model_turns\":{},\"model_cost\":{}}\n";
        assert_eq!(
            split_cost(output),
            (
                "The answer.".to_string(),
                "\n[cost: $0.0123, 3 model calls]".to_string()
            )
        );
        let unpriced = "MARVIN_COST:{\"cost_unknown\":true,\"session_cost\":null,\"llm_turns\":1}";
        assert_eq!(split_cost(unpriced).1, "\n[cost: unknown, 1 model calls]");
    }

    #[test]
    fn depth_five_launches_nothing() {
        let mut ctx = ToolContext::new(std::env::temp_dir());
        let mut settings = (*ctx.settings).clone();
        settings.depth = MAX_DEPTH;
        ctx.settings = Arc::new(settings);
        let spec = Spec {
            prompt: "x",
            model: "m".into(),
            ticket: None,
            readonly: false,
        };
        let err = command(&ctx, &spec).err().unwrap();
        assert!(
            err.starts_with("Sub-agent depth limit (5) reached"),
            "{err}"
        );
    }

    #[test]
    fn children_inherit_the_mode_and_readers_get_plan() {
        let mut ctx = ToolContext::new(std::env::temp_dir());
        let mut settings = (*ctx.settings).clone();
        settings.executable = Some("/bin/true".into());
        settings.permission_mode = PermissionMode::AcceptEdits;
        ctx.settings = Arc::new(settings);
        for (readonly, mode) in [(false, "accept-edits"), (true, "plan")] {
            let spec = Spec {
                prompt: "x",
                model: "m".into(),
                ticket: None,
                readonly,
            };
            let command = command(&ctx, &spec).unwrap();
            let args: Vec<_> = command.get_args().map(|a| a.to_string_lossy()).collect();
            let at = args.iter().position(|a| a == "--permission-mode").unwrap();
            assert_eq!(args[at + 1], mode);
        }
    }
}
