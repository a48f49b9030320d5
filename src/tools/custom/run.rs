//! Running a user's tool: the arguments as one JSON line on stdin, stdout as the result,
//! stderr for errors, requests through the `@@marvin-interact` line protocol (see `asking`),
//! and a watchdog that ends the tool's whole process group on timeout or Ctrl+C.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::sandbox::Paths;

use serde_json::Value;

use super::asking::{self, Talked};
use super::pipe::Pipe;
use super::watchdog::{Stop, Watchdog, Watched};
use super::{Definition, Origin};
use crate::interact::approvals::{Action, ActionKind};
use crate::tools::ToolContext;
use crate::tools::kit::process;

const STDERR_CAP: usize = 8 * 1024;

pub(super) fn call(def: &Definition, args: Value, ctx: &ToolContext) -> Result<String, String> {
    approve(def, &args, ctx)?;
    let mut command = command(def, ctx)?;
    let mut child = command.spawn().map_err(|e| {
        format!(
            "Could not start {}: {e}. Check its command in {}.",
            def.name,
            def.dir.display()
        )
    })?;
    let group = child.id() as libc::pid_t;
    let mut stdin = child.stdin.take();
    if let Some(pipe) = stdin.as_mut() {
        let _ = writeln!(pipe, "{args}");
    }
    if !def.interactive {
        stdin = None; // EOF after the arguments: the tool may read to the end
    }
    let stdout = child.stdout.take().ok_or("the tool has no stdout")?;
    let stderr = child.stderr.take().ok_or("the tool has no stderr")?;
    let errors = std::thread::spawn(move || read_capped(stderr, STDERR_CAP));
    let watched = Watched::new(def.timeout);
    let watchdog = Watchdog::start(group, watched.clone(), ctx.cancel.clone());
    let pipe = Pipe::new(stdout, stdin, watched, &ctx.call_id);
    let Talked {
        output,
        omitted,
        parked,
    } = asking::converse(def, ctx, pipe);
    let status = child
        .wait()
        .map_err(|e| format!("Lost the tool {}: {e}.", def.name))?;
    let stopped = watchdog.finish();
    process::kill_group(group, libc::SIGKILL);
    let errors = errors.join().unwrap_or_default();
    if let Some(why) = stopped {
        return Err(match why {
            Stop::Timeout => format!(
                "{} did not finish within {}s and was stopped. Output so far:\n{output}",
                def.name,
                def.timeout.as_secs()
            ),
            Stop::Cancelled => format!(
                "{} was cancelled by the user ({}).",
                def.name,
                ctx.cancel.how()
            ),
        });
    }
    if parked {
        // The call is made again when the answer comes; what it did meanwhile is not its result.
        return Err(crate::interact::PARKED.into());
    }
    finished(def, ctx, status.code(), &output, omitted, &errors)
}

/// What the model hears of a call that ran to its end with `code`: its output, or why it
/// failed with its errors (and what the sandbox refused in them).
fn finished(
    def: &Definition,
    ctx: &ToolContext,
    code: Option<i32>,
    output: &str,
    omitted: u64,
    errors: &str,
) -> Result<String, String> {
    let mut output = output.trim_end().to_string();
    if omitted > 0 {
        output.push_str(&format!("\n[Output truncated — {omitted} bytes omitted]"));
    }
    if code == Some(0) {
        return Ok(if output.is_empty() {
            "(no output)".into()
        } else {
            output
        });
    }
    let code = code.map_or("a signal".to_string(), |c| format!("exit code {c}"));
    let mut detail = if errors.trim().is_empty() {
        output
    } else {
        errors.trim_end().to_string()
    };
    if let Some(refusals) = ctx.sandbox_refusals(&detail, &ctx.working_dir(), places(def)) {
        detail.push('\n');
        detail.push_str(&refusals);
    }
    Err(format!("{} failed ({code}):\n{detail}", def.name))
}

/// What the tool reaches besides the working directory: its own directory, which may lie in
/// Marvin's home (a secret store), to read.
fn places(def: &Definition) -> Paths {
    Paths {
        writes: Vec::new(),
        reads: vec![def.dir.clone()],
    }
}

/// The program and arguments; words naming files in the tool's directory become absolute.
fn command(def: &Definition, ctx: &ToolContext) -> Result<Command, String> {
    let local = |word: &str| -> Option<PathBuf> {
        (!word.starts_with('-'))
            .then(|| def.dir.join(word))
            .filter(|p| p.exists())
    };
    let first = &def.command[0];
    let program = match local(first) {
        Some(path) => path,
        None if first.contains('/') => {
            return Err(format!(
                "The program {first} of {} does not exist in {}.",
                def.name,
                def.dir.display()
            ));
        }
        None => ctx.find_program(first).ok_or_else(|| {
            format!(
                "The program {first} that {} needs is not installed (or not on PATH).",
                def.name
            )
        })?,
    };
    let mut command = ctx.program(program, places(def))?;
    for word in &def.command[1..] {
        match local(word) {
            Some(path) => command.arg(path),
            None => command.arg(word),
        };
    }
    command
        .current_dir(ctx.working_dir())
        .env(
            "MARVIN_HAS_UI",
            if ctx.interactor.is_some() { "1" } else { "0" },
        )
        .env("MARVIN_CWD", ctx.working_dir())
        .env("MARVIN_TOOL_DIR", &def.dir)
        .env("MARVIN_CALL_ID", &ctx.call_id)
        .env_remove("GIT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    Ok(command)
}

/// Asks first when the tool declares an approval key, and always for a project's tools. Keys
/// live in the tool's own namespace (`user-tool:deploy:…`, `project-tool:lint`), so a tool can
/// never borrow a grant given to a built-in tool or to another tool.
fn approve(def: &Definition, args: &Value, ctx: &ToolContext) -> Result<(), String> {
    let namespace = match def.origin {
        Origin::User => "user-tool",
        Origin::Project => "project-tool",
    };
    let (scope, label) = match &def.approval {
        Some(template) => {
            let key = render_key(template, args);
            (
                format!("{namespace}:{}:{key}", def.name),
                format!("{} calls with approval key {key}", def.name),
            )
        }
        None if def.origin == Origin::Project => (
            format!("{namespace}:{}", def.name),
            format!("every {} call", def.name),
        ),
        None => return Ok(()),
    };
    let detail = serde_json::to_string_pretty(args).unwrap_or_default();
    let summary = format!("{} wants to run with:", def.name);
    ctx.approve(Action {
        tool: def.name.to_string(),
        kind: ActionKind::Act,
        key: format!("{namespace}:{}({args})", def.name),
        scope: Some((scope, label)),
        summary,
        detail,
    })
}

/// `deploy:{env}` with `{"env": "prod"}` → `deploy:"prod"`. Values are written as JSON (a
/// missing one as `null`) in one pass over the template, so no two different sets of
/// arguments give the same key: neither `{"a": "x", "b": "yz"}` and `{"a": "xy", "b": "z"}`
/// for `{a}{b}`, nor a value that itself looks like `{b}`.
fn render_key(template: &str, args: &Value) -> String {
    let mut key = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        key.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            rest = &rest[open..];
            break;
        };
        let name = &after[..close];
        key.push_str(&args.get(name).unwrap_or(&Value::Null).to_string());
        rest = &after[close + 1..];
    }
    key.push_str(rest);
    key
}

fn read_capped(mut stream: impl Read, cap: usize) -> String {
    let mut bytes = Vec::new();
    let _ = stream.by_ref().take(cap as u64).read_to_end(&mut bytes);
    let _ = std::io::copy(&mut stream, &mut std::io::sink());
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_rendered_once_and_unambiguously() {
        let cases: &[(&str, Value, &str)] = &[
            ("deploy:{env}", json!({"env": "prod"}), "deploy:\"prod\""),
            ("deploy:{env}", json!({}), "deploy:null"),
            ("deploy:{env}", json!({"env": "null"}), "deploy:\"null\""),
            ("{a}{b}", json!({"a": "x", "b": "yz"}), "\"x\"\"yz\""),
            ("{a}{b}", json!({"a": "xy", "b": "z"}), "\"xy\"\"z\""),
            ("{a}", json!({"a": "{b}", "b": "prod"}), "\"{b}\""),
            ("n={n} open{", json!({"n": 3}), "n=3 open{"),
            ("plain", json!({"x": 1}), "plain"),
        ];
        for (template, args, expected) in cases {
            assert_eq!(render_key(template, args), *expected, "{template} {args}");
        }
    }

    #[test]
    fn no_built_in_key_can_start_like_a_tool_namespace() {
        // Built-in keys are `name` or `name:…`; a `-` in no built-in name keeps them apart.
        let registry = crate::tools::Registry::builtin();
        for coding_mode in [false, true] {
            let ctx = ToolContext {
                coding_mode,
                ..ToolContext::new(std::env::temp_dir())
            };
            for name in registry.names(&ctx) {
                assert!(!name.contains('-'), "{name}");
            }
        }
    }
}
