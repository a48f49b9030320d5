//! `run_command`: a bash command in the working directory, with a timeout, combined capped
//! output and the exit code; the command and everything it started end with it.

use std::time::Duration;

use serde::Deserialize;

use crate::interact::approvals::Action;
use crate::sandbox::Paths;
use crate::tools::kit::process::{self, Ending, OUTPUT_CAP, RunLimits};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const DEFAULT_TIMEOUT: u64 = 60;
const MAX_TIMEOUT: u64 = 3600;

const PARAMS: &[Param] = &[
    Param::required(
        "command",
        Kind::String,
        "The bash command to run in the working directory",
    ),
    Param::optional(
        "timeout",
        Kind::Integer,
        "Seconds before the command is stopped (default 60, at most 3600)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "coding/shell",
    about: "running commands",
    words: &[
        "run",
        "command",
        "shell",
        "terminal",
        "execute",
        "script",
        "build",
        "test",
        "tests",
        "compile",
        "make",
        "cargo",
        "npm",
        "lint",
        "format",
        "benchmark*",
        "coverage",
        "ci",
        "pytest",
    ],
    asks: &[
        "run the tests",
        "build the project",
        "execute this command",
        "run the script",
        "start the server",
        "run cargo check",
        "install with npm",
        "check the output of make",
        "run the linter",
        "time how fast it runs",
        "does it compile",
        "count the lines of code",
        "measure test coverage",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![ToolDef::build("run_command")
        .describe("Run a bash command in the working directory and get its combined stdout and stderr (first 50KB) and exit code. A non-zero exit code is a normal result.")
        .offered(Offered::Coding)
        .writes()
        .ticket_gated()
        .params(PARAMS)
        .example(r#"{"command": "cargo test 2>&1 | tail -20", "timeout": 120}"#)
        .handler(run_command)]
}

#[derive(Deserialize)]
struct Args {
    command: String,
    timeout: Option<i64>,
}

fn run_command(args: Args, ctx: &ToolContext) -> Result<String, String> {
    let command = args.command.trim();
    if command.is_empty() {
        return Err("The command is empty. Say which bash command to run, e.g. run_command({\"command\": \"ls -la\"}).".into());
    }
    let timeout = args.timeout.unwrap_or(DEFAULT_TIMEOUT as i64);
    if timeout < 1 || timeout as u64 > MAX_TIMEOUT {
        return Err(format!(
            "timeout must be between 1 and {MAX_TIMEOUT} seconds, not {timeout}."
        ));
    }
    ctx.approve(Action::command(command))?;
    let bash = ctx.find_program("bash").ok_or(
        "bash is not installed, so commands cannot run. Install it with: sudo apt install bash",
    )?;
    let cwd = ctx.working_dir();
    let mut child = ctx.program(bash, Paths::default())?;
    child
        .arg("-c")
        .arg(command)
        .current_dir(&cwd)
        .env_remove("GIT_DIR");
    // What the command prints is its progress: a surface shows it while it runs.
    let progress = |tail: String| ctx.report_progress(tail);
    let limits = RunLimits {
        timeout: Duration::from_secs(timeout as u64),
        output_cap: OUTPUT_CAP,
        cancel: &ctx.cancel,
        input: None,
        watch: Some(&progress),
    };
    let run = process::run(child, limits).map_err(|e| format!("Could not start bash: {e}."))?;
    let text = shown(&run, ctx, &cwd);
    match run.ending {
        Ending::Exited(code) => Ok(format!("{text}\n[exit code: {code}]")),
        Ending::Signalled(signal) => Ok(format!("{text}\n[killed by signal {signal}]")),
        Ending::TimedOut => Err(format!(
            "Command timed out after {timeout}s. Consider increasing timeout or breaking into smaller steps. {STOPPED}{text}"
        )),
        Ending::Cancelled => Err(format!(
            "The command was cancelled by the user ({}). {STOPPED}{text}",
            ctx.cancel.how()
        )),
    }
}

/// What comes before the output of a command that was stopped (timed out, or cancelled).
const STOPPED: &str = "Output before it was stopped:\n";

/// Why a command was stopped and what it printed before, from run_command's error; `None`
/// for one that never ran (refused, or a wrong argument).
pub(crate) fn stopped(error: &str) -> Option<(&str, &str)> {
    let (why, output) = error.split_once(STOPPED)?;
    Some((
        why.trim_end(),
        output.strip_suffix("(no output)").unwrap_or(output),
    ))
}

/// What the command printed, as the model reads it: "(no output)" for nothing, a trailer for
/// what was cut, and a sentence for each thing the sandbox refused.
fn shown(run: &process::RunOutput, ctx: &ToolContext, cwd: &std::path::Path) -> String {
    let mut text = if run.output.is_empty() {
        "(no output)".to_string()
    } else {
        run.output.clone()
    };
    if run.omitted > 0 {
        text.push_str(&format!(
            "\n[Output truncated — {} bytes omitted]",
            run.omitted
        ));
    }
    if let Some(refusals) = ctx.sandbox_refusals(&text, cwd, Paths::default()) {
        text.push('\n');
        text.push_str(&refusals);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;
    use std::sync::Arc;

    fn ctx(dir: &TempDir) -> ToolContext {
        let mut ctx = ToolContext {
            coding_mode: true,
            ..ToolContext::new(dir.path().to_path_buf())
        };
        ctx.settings = Arc::new(crate::tools::ToolSettings {
            search_path: std::env::var("PATH").ok(),
            notes_home: None,
            ..crate::tools::ToolSettings::default()
        });
        ctx
    }

    fn run(ctx: &ToolContext, command: &str, timeout: Option<i64>) -> Result<String, String> {
        run_command(
            Args {
                command: command.into(),
                timeout,
            },
            ctx,
        )
    }

    #[test]
    fn runs_in_the_working_dir_and_reports_the_exit_code() {
        let dir = TempDir::new("shell-basic");
        let ctx = ctx(&dir);
        assert_eq!(
            run(&ctx, "pwd", None).unwrap(),
            format!("{}\n\n[exit code: 0]", dir.path().display())
        );
        assert_eq!(
            run(&ctx, "echo oops >&2; exit 4", None).unwrap(),
            "oops\n\n[exit code: 4]"
        );
        assert_eq!(
            run(&ctx, "true", None).unwrap(),
            "(no output)\n[exit code: 0]"
        );
    }

    #[test]
    fn ten_megabytes_of_output_are_cut_with_a_trailer() {
        let dir = TempDir::new("shell-big");
        let out = run(&ctx(&dir), "head -c 10485760 /dev/zero | tr '\\0' a", None).unwrap();
        assert!(out.starts_with(&"a".repeat(100)));
        assert!(
            out.ends_with(&format!(
                "\n[Output truncated — {} bytes omitted]\n[exit code: 0]",
                10_485_760 - OUTPUT_CAP
            )),
            "{}",
            &out[out.len() - 100..]
        );
    }

    #[test]
    fn timeouts_and_bad_arguments_are_actionable() {
        let dir = TempDir::new("shell-timeout");
        let ctx = ctx(&dir);
        let err = run(&ctx, "echo first; sleep 20", Some(1)).unwrap_err();
        assert!(
            err.starts_with("Command timed out after 1s. Consider increasing timeout"),
            "{err}"
        );
        assert!(err.ends_with("stopped:\nfirst\n"), "{err}");
        assert_eq!(
            stopped(&err),
            Some((
                "Command timed out after 1s. Consider increasing timeout or breaking into smaller steps.",
                "first\n"
            ))
        );
        // Cancelled: what it printed is kept too.
        let cancel = ctx.cancel.clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            cancel.cancel();
        });
        let err = run(&ctx, "echo before; sleep 20", None).unwrap_err();
        stopper.join().unwrap();
        assert_eq!(
            stopped(&err),
            Some((
                "The command was cancelled by the user (Ctrl+C).",
                "before\n"
            )),
            "{err}"
        );
        assert_eq!(stopped("The command is empty."), None);
        assert!(
            run(&ctx, "  ", None)
                .unwrap_err()
                .contains("The command is empty")
        );
        assert!(
            run(&ctx, "ls", Some(0))
                .unwrap_err()
                .contains("between 1 and 3600")
        );
    }

    #[test]
    fn keys_and_git_dir_do_not_reach_the_command() {
        let dir = TempDir::new("shell-env");
        let ctx = ctx(&dir);
        // The test process may not have these set; the command sees them unset either way.
        let out = run(
            &ctx,
            "echo \"[${OPENAI_API_KEY-unset}] [${GIT_DIR-unset}]\"",
            None,
        )
        .unwrap();
        assert!(out.starts_with("[unset] [unset]"), "{out}");
    }

    #[test]
    fn missing_bash_says_how_to_install_it() {
        let dir = TempDir::new("shell-nobash");
        let mut ctx = ctx(&dir);
        ctx.settings = Arc::new(crate::tools::ToolSettings::default());
        assert!(
            run(&ctx, "ls", None)
                .unwrap_err()
                .contains("sudo apt install bash")
        );
    }

    /// A context confined as `--sandbox mode` would, with a home of its own holding a key.
    fn confined(dir: &TempDir, mode: crate::sandbox::Mode) -> ToolContext {
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for sub in ["home/.ssh", "work", "tmp", "outside"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(root.join("home/.ssh/id_rsa"), "KEY").unwrap();
        let mut ctx = ToolContext {
            coding_mode: true,
            ..ToolContext::new(root.join("work"))
        };
        ctx.settings = Arc::new(crate::tools::ToolSettings {
            search_path: std::env::var("PATH").ok(),
            sandbox: crate::sandbox::Policy {
                mode,
                user_home: Some(root.join("home")),
                temp_dir: root.join("tmp"),
                ..crate::sandbox::Policy::default()
            },
            ..crate::tools::ToolSettings::default()
        });
        ctx
    }

    #[test]
    fn the_sandbox_keeps_commands_in_the_working_and_temp_dirs() {
        if crate::sandbox::kernel().is_err() {
            eprintln!(
                "skipped: {}",
                crate::sandbox::kernel().as_ref().unwrap_err()
            );
            return;
        }
        let dir = TempDir::new("shell-sandbox");
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ctx = confined(&dir, crate::sandbox::Mode::Workspace);
        let out = run(
            &ctx,
            "echo in > in.txt && echo t > ../tmp/t && cat in.txt ../tmp/t",
            None,
        )
        .unwrap();
        assert_eq!(out, "in\nt\n\n[exit code: 0]");
        let out = run(&ctx, "echo x > ../outside/x", None).unwrap();
        assert!(
            out.contains(
                "The sandbox refused to write ../outside/x: it is outside the working directory"
            ),
            "{out}"
        );
        assert!(!root.join("outside/x").exists());
        let out = run(
            &ctx,
            &format!("cat {}", root.join("home/.ssh/id_rsa").display()),
            None,
        )
        .unwrap();
        assert!(!out.contains("KEY"), "{out}");
        assert!(out.contains("one of the person's secret stores"), "{out}");
        let read_only = confined(&dir, crate::sandbox::Mode::ReadOnly);
        let out = run(&read_only, "cat in.txt; echo y > y.txt", None).unwrap();
        assert!(out.starts_with("in\n"), "{out}");
        assert!(out.contains("--sandbox read-only"), "{out}");
        assert!(!root.join("work/y.txt").exists());
    }
}
