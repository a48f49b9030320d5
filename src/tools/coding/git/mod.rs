//! The git tools: status, diff, log, commit, checkout, restore, blame and branch, run in the
//! working directory through [`run`], which keeps the repository's own programs from running.

mod pin;
mod run;
mod switch;

use switch::{checkout, restore};

use serde::Deserialize;

use crate::interact::approvals::Action;
use crate::tools::kit::paths;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const DIFF_PARAMS: &[Param] = &[
    Param::optional(
        "path",
        Kind::String,
        "Limit the diff to this file or directory",
    ),
    Param::optional(
        "staged",
        Kind::Boolean,
        "Show staged changes instead of unstaged ones",
    ),
];
const LOG_PARAMS: &[Param] = &[
    Param::optional(
        "count",
        Kind::Integer,
        "How many commits (default 10, at most 200)",
    ),
    Param::optional("path", Kind::String, "Only commits touching this path"),
];
const COMMIT_PARAMS: &[Param] = &[
    Param::required("message", Kind::String, "The commit message"),
    Param::optional(
        "files",
        Kind::StringList,
        "Files to commit; every change in the working directory when omitted",
    ),
];
const CHECKOUT_PARAMS: &[Param] = &[
    Param::required(
        "target",
        Kind::String,
        "Branch, tag or commit to switch to (never a file: git_restore discards changes to files)",
    ),
    Param::optional("create", Kind::Boolean, "Create the branch first"),
];
const RESTORE_PARAMS: &[Param] = &[Param::required(
    "paths",
    Kind::StringList,
    "Files or directories whose uncommitted changes are thrown away (\".\" for all)",
)];
const BLAME_PARAMS: &[Param] = &[
    Param::required("path", Kind::String, "File to blame"),
    Param::optional("start_line", Kind::Integer, "First line"),
    Param::optional("end_line", Kind::Integer, "Last line"),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "coding/git",
    about: "git: status, diff, log, commit, branches",
    words: &[
        "git",
        "commit",
        "branch",
        "diff",
        "log",
        "blame",
        "checkout",
        "merge",
        "status",
        "history",
        "restore",
        "branches",
        "push",
        "pull",
        "rebase",
        "cherry-pick",
        "stash",
        "revert",
        "uncommitted",
        "staged",
        "squash",
        "amend",
        "remote",
    ],
    asks: &[
        "commit this",
        "what changed",
        "show the diff",
        "git status",
        "recent commits",
        "who changed this line",
        "switch to a new branch",
        "undo my changes to the file",
        "what did I do yesterday in this repo",
        "push my branch",
        "cherry-pick a commit onto another branch",
        "squash commits together",
        "anything not committed yet",
        "create a branch and check it out",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("git_status")
            .describe("Show the branch and changed files (git status).")
            .offered(Offered::Project)
            .example("{}")
            .handler(status),
        ToolDef::build("git_diff")
            .describe("Show changes (git diff), optionally staged or for one path.")
            .offered(Offered::Project)
            .params(DIFF_PARAMS)
            .example(r#"{"path": "src/main.rs", "staged": false}"#)
            .handler(diff),
        ToolDef::build("git_log")
            .describe("Show recent commits (hash, date, author, subject).")
            .offered(Offered::Project)
            .params(LOG_PARAMS)
            .example(r#"{"count": 10}"#)
            .handler(log),
        ToolDef::build("git_commit")
            .describe("Stage files (every change in the working directory when none are given) and commit them with a message.")
            .offered(Offered::Coding)
            .writes()
            .ticket_gated()
            .params(COMMIT_PARAMS)
            .example(r#"{"message": "Fix the parser", "files": ["src/parser.rs"]}"#)
            .handler(commit),
        ToolDef::build("git_checkout")
            .describe("Switch to a branch, tag or commit; with create, make a new branch. Uncommitted changes are kept (git refuses when they are in the way).")
            .offered(Offered::Coding)
            .writes()
            .params(CHECKOUT_PARAMS)
            .example(r#"{"target": "feature/x", "create": true}"#)
            .handler(checkout),
        ToolDef::build("git_restore")
            .describe("Discard uncommitted changes (staged and not) to files, putting them back as in the last commit. The changes are lost; untracked files are left alone.")
            .offered(Offered::Coding)
            .writes()
            .ticket_gated()
            .params(RESTORE_PARAMS)
            .example(r#"{"paths": ["src/parser.rs"]}"#)
            .handler(restore),
        ToolDef::build("git_blame")
            .describe("Show who last changed each line of a file.")
            .offered(Offered::Project)
            .params(BLAME_PARAMS)
            .example(r#"{"path": "src/main.rs", "start_line": 1, "end_line": 40}"#)
            .handler(blame),
        ToolDef::build("git_branch")
            .describe("List local and remote branches.")
            .offered(Offered::Coding)
            .example("{}")
            .handler(branch),
    ]
}

/// Runs `git args...` in the working directory; a failure is an error for the model.
fn git(ctx: &ToolContext, args: &[&str]) -> Result<String, String> {
    let exit = run::exit(ctx, args)?;
    if exit.code != 0 && exit.output.contains("Please tell me who you are") {
        return Err(format!(
            "{}\nGit has no author identity here: ask the user for their name and email, or commit with run_command and `git -c user.name=... -c user.email=... commit`.",
            exit.output
        ));
    }
    exit.success(&format!("git {}", args.first().unwrap_or(&"")))
}

/// Whether `git args...` succeeds (for questions like "is this a branch?").
fn git_ok(ctx: &ToolContext, args: &[&str]) -> Result<bool, String> {
    Ok(run::exit(ctx, args)?.code == 0)
}

/// A path argument, checked like the file tools check theirs, as git should see it.
fn checked_path(ctx: &ToolContext, path: &str) -> Result<String, String> {
    paths::resolve(&ctx.working_dir(), path)?;
    Ok(path.trim().to_string())
}

#[derive(Deserialize)]
struct NoArgs {}

fn status(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    git(
        ctx,
        &["status", "--short", "--branch", "--ignore-submodules=dirty"],
    )
}

fn branch(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    git(ctx, &["branch", "--all", "-vv"])
}

#[derive(Deserialize)]
struct DiffArgs {
    path: Option<String>,
    staged: Option<bool>,
}

fn diff(args: DiffArgs, ctx: &ToolContext) -> Result<String, String> {
    let mut argv: Vec<String> = ["diff", "--no-ext-diff", "--no-textconv"]
        .map(String::from)
        .to_vec();
    if args.staged == Some(true) {
        argv.push("--staged".into());
    }
    if let Some(path) = &args.path {
        argv.extend(["--".into(), checked_path(ctx, path)?]);
    }
    let output = git(ctx, &argv.iter().map(String::as_str).collect::<Vec<_>>())?;
    Ok(if output == "(no output)" {
        "No changes.".to_string()
    } else {
        output
    })
}

#[derive(Deserialize)]
struct LogArgs {
    count: Option<i64>,
    path: Option<String>,
}

fn log(args: LogArgs, ctx: &ToolContext) -> Result<String, String> {
    let count = args.count.unwrap_or(10);
    if !(1..=200).contains(&count) {
        return Err(format!("count must be between 1 and 200, not {count}."));
    }
    let mut argv = vec![
        "log".to_string(),
        format!("-n{count}"),
        "--date=short".into(),
        "--pretty=format:%h %ad %an: %s".into(),
    ];
    if let Some(path) = &args.path {
        argv.extend(["--".into(), checked_path(ctx, path)?]);
    }
    git(ctx, &argv.iter().map(String::as_str).collect::<Vec<_>>())
}

#[derive(Deserialize)]
struct CommitArgs {
    message: String,
    files: Option<Vec<String>>,
}

fn commit(args: CommitArgs, ctx: &ToolContext) -> Result<String, String> {
    if args.message.trim().is_empty() {
        return Err("The commit message is empty: say what the commit changes and why.".into());
    }
    refuse_staged_outside(ctx)?;
    let named = match &args.files {
        Some(files) if !files.is_empty() => files
            .iter()
            .map(|file| checked_path(ctx, file))
            .collect::<Result<Vec<_>, _>>()?,
        _ => Vec::new(),
    };
    let shown = match named.is_empty() {
        true => changed_here(ctx)?,
        false => named.clone(),
    };
    if shown.is_empty() {
        return Err("Nothing in the working directory has changed, so there is nothing to commit (git_status shows what changed).".into());
    }
    ctx.approve(Action::act(
        "git_commit",
        "git_commit wants to commit:".into(),
        format!("{}\n{}", args.message.trim(), listed(&shown)),
    ))?;
    let message = args.message.trim();
    if named.is_empty() {
        git(ctx, &["add", "--all", "--", "."])?;
        return git(ctx, &["commit", "--no-verify", "-m", message]);
    }
    // Only the files named, whatever else is staged: what the question showed.
    let files: Vec<&str> = named.iter().map(String::as_str).collect();
    git(ctx, &[&["add", "--"][..], &files].concat())?;
    git(
        ctx,
        &[
            &["commit", "--no-verify", "--only", "-m", message, "--"][..],
            &files,
        ]
        .concat(),
    )
}

/// The most files a commit's question names; the rest are counted.
const FILES_SHOWN: usize = 20;

/// `files`, one a line, the ones past [`FILES_SHOWN`] counted.
fn listed(files: &[String]) -> String {
    let mut lines: Vec<String> = files.iter().take(FILES_SHOWN).cloned().collect();
    if files.len() > FILES_SHOWN {
        lines.push(format!("and {} more", files.len() - FILES_SHOWN));
    }
    lines.join("\n")
}

/// What changed in the working directory and below, staged or not, tracked or not, as paths
/// from the top of the repository (`git status -z`: a rename's old path follows it, skipped).
fn changed_here(ctx: &ToolContext) -> Result<Vec<String>, String> {
    let status = git(
        ctx,
        &[
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=all",
            "--",
            ".",
        ],
    )?;
    let mut changed = Vec::new();
    let mut entries = status
        .split('\0')
        .filter(|e| !e.is_empty() && *e != "(no output)");
    while let Some(entry) = entries.next() {
        let Some(path) = entry.get(3..) else { continue };
        changed.push(path.to_string());
        if entry.starts_with(['R', 'C']) {
            entries.next();
        }
    }
    Ok(changed)
}

/// A commit takes everything staged: staged changes outside the working directory (which a
/// commit from here would take along) are refused, not committed unseen. Renames are two
/// changes here, so one from outside counts as outside.
fn refuse_staged_outside(ctx: &ToolContext) -> Result<(), String> {
    let prefix = git(ctx, &["rev-parse", "--show-prefix"])?;
    let prefix = match prefix.trim() {
        "(no output)" => "",
        prefix => prefix,
    };
    if prefix.is_empty() {
        return Ok(());
    }
    let staged = git(
        ctx,
        &["diff", "--cached", "--name-only", "--no-renames", "-z"],
    )?;
    let outside: Vec<String> = staged
        .split('\0')
        .filter(|name| !name.is_empty() && *name != "(no output)" && !name.starts_with(prefix))
        .map(str::to_string)
        .collect();
    if outside.is_empty() {
        return Ok(());
    }
    Err(format!(
        "Changes outside the working directory are staged, and a commit from here would take them along:\n{}\nMarvin commits only what is inside the working directory: ask the person to commit or unstage them (git restore --staged) first.",
        listed(&outside)
    ))
}

#[derive(Deserialize)]
struct BlameArgs {
    path: String,
    start_line: Option<i64>,
    end_line: Option<i64>,
}

fn blame(args: BlameArgs, ctx: &ToolContext) -> Result<String, String> {
    let path = checked_path(ctx, &args.path)?;
    let mut argv: Vec<String> = ["blame", "--no-textconv", "--date=short"]
        .map(String::from)
        .to_vec();
    match (args.start_line, args.end_line) {
        (None, None) => {}
        (start, end) => {
            let start = start.unwrap_or(1);
            if start < 1 || end.is_some_and(|e| e < start) {
                return Err("Use 1 ≤ start_line ≤ end_line.".into());
            }
            argv.push(match end {
                Some(end) => format!("-L{start},{end}"),
                None => format!("-L{start},"),
            });
        }
    }
    argv.extend(["--".into(), path]);
    git(ctx, &argv.iter().map(String::as_str).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::switch::{CheckoutArgs, RestoreArgs};
    use super::*;
    use crate::test_support::TempDir;
    use std::sync::Arc;

    fn repo(tag: &str) -> (TempDir, ToolContext) {
        let dir = TempDir::new(tag);
        let ctx = ToolContext {
            coding_mode: true,
            settings: Arc::new(crate::tools::ToolSettings {
                search_path: std::env::var("PATH").ok(),
                notes_home: None,
                ..crate::tools::ToolSettings::default()
            }),
            ..ToolContext::new(dir.path().to_path_buf())
        };
        init(dir.path());
        (dir, ctx)
    }

    /// A new repository in `dir`, made as a person would (the tools never run git init).
    #[allow(clippy::disallowed_methods)]
    fn init(dir: &std::path::Path) {
        for args in [
            &["init", "-q", "-b", "main"][..],
            &["config", "user.name", "Test"],
            &["config", "user.email", "t@example.org"],
        ] {
            let done = std::process::Command::new("git")
                .args(args)
                .current_dir(dir)
                .env_remove("GIT_DIR")
                .output()
                .unwrap();
            assert!(done.status.success());
        }
    }

    #[test]
    fn status_diff_commit_log_and_blame_work_on_a_real_repo() {
        let (dir, ctx) = repo("git-flow");
        std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        assert!(status(NoArgs {}, &ctx).unwrap().contains("?? a.txt"));
        let committed = commit(
            CommitArgs {
                message: "Add a".into(),
                files: None,
            },
            &ctx,
        )
        .unwrap();
        assert!(committed.contains("Add a"), "{committed}");
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
        let changes = diff(
            DiffArgs {
                path: Some("a.txt".into()),
                staged: None,
            },
            &ctx,
        )
        .unwrap();
        assert!(changes.contains("+two"), "{changes}");
        assert_eq!(
            diff(
                DiffArgs {
                    path: None,
                    staged: Some(true)
                },
                &ctx
            )
            .unwrap(),
            "No changes."
        );
        commit(
            CommitArgs {
                message: "Add two".into(),
                files: Some(vec!["a.txt".into()]),
            },
            &ctx,
        )
        .unwrap();
        let history = log(
            LogArgs {
                count: Some(5),
                path: None,
            },
            &ctx,
        )
        .unwrap();
        let subjects: Vec<&str> = history
            .lines()
            .map(|l| l.rsplit(": ").next().unwrap())
            .collect();
        assert_eq!(subjects, ["Add two", "Add a"]);
        let blamed = blame(
            BlameArgs {
                path: "a.txt".into(),
                start_line: Some(2),
                end_line: Some(2),
            },
            &ctx,
        )
        .unwrap();
        assert!(
            blamed.contains("Test") && blamed.contains("two") && !blamed.contains("one"),
            "{blamed}"
        );
    }

    #[test]
    fn checkout_and_branch() {
        let (dir, ctx) = repo("git-branch");
        std::fs::write(dir.path().join("f"), "x").unwrap();
        commit(
            CommitArgs {
                message: "init".into(),
                files: None,
            },
            &ctx,
        )
        .unwrap();
        checkout(
            CheckoutArgs {
                target: "feature".into(),
                create: Some(true),
            },
            &ctx,
        )
        .unwrap();
        assert!(branch(NoArgs {}, &ctx).unwrap().contains("* feature"));
        assert!(
            checkout(
                CheckoutArgs {
                    target: "--force".into(),
                    create: None
                },
                &ctx
            )
            .unwrap_err()
            .contains("not a branch")
        );
        for target in ["no-such", ".", "f", "..", "HEAD:f", "a b"] {
            let err = checkout(
                CheckoutArgs {
                    target: target.into(),
                    create: None,
                },
                &ctx,
            )
            .unwrap_err();
            assert!(err.contains("use git_restore"), "{target}: {err}");
        }
        let err = checkout(
            CheckoutArgs {
                target: "a..b".into(),
                create: Some(true),
            },
            &ctx,
        )
        .unwrap_err();
        assert!(err.contains("cannot be a branch name"), "{err}");
        for target in ["main", "HEAD~0"] {
            checkout(
                CheckoutArgs {
                    target: target.into(),
                    create: None,
                },
                &ctx,
            )
            .unwrap();
        }
        assert!(
            status(NoArgs {}, &ctx)
                .unwrap()
                .contains("HEAD (no branch)")
        );
    }

    #[test]
    fn restore_discards_changes_and_says_what_was_lost() {
        let (dir, ctx) = repo("git-restore");
        std::fs::write(dir.path().join("f"), "one\n").unwrap();
        commit(
            CommitArgs {
                message: "init".into(),
                files: None,
            },
            &ctx,
        )
        .unwrap();
        let restore_all = || {
            restore(
                RestoreArgs {
                    paths: vec![".".into()],
                },
                &ctx,
            )
        };
        assert_eq!(
            restore_all().unwrap(),
            "There are no uncommitted changes in .: nothing to discard."
        );
        std::fs::write(dir.path().join("f"), "two\n").unwrap();
        let done = restore_all().unwrap();
        assert!(
            done.starts_with("Discarded the uncommitted changes in .:\n f | 2"),
            "{done}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("f")).unwrap(),
            "one\n"
        );
    }

    #[test]
    fn outside_a_repository_and_without_git_the_errors_say_what_to_do() {
        let dir = TempDir::new("git-none");
        let mut ctx = ToolContext::new(dir.path().to_path_buf());
        ctx.settings = Arc::new(crate::tools::ToolSettings {
            search_path: std::env::var("PATH").ok(),
            notes_home: None,
            ..crate::tools::ToolSettings::default()
        });
        let err = status(NoArgs {}, &ctx).unwrap_err();
        assert!(err.contains("run `git init`"), "{err}");
        ctx.settings = Arc::new(crate::tools::ToolSettings::default());
        assert!(
            status(NoArgs {}, &ctx)
                .unwrap_err()
                .contains("sudo apt install git")
        );
        let (_, repo_ctx) = repo("git-paths");
        assert!(
            diff(
                DiffArgs {
                    path: Some("../etc".into()),
                    staged: None
                },
                &repo_ctx
            )
            .unwrap_err()
            .contains("escapes")
        );
    }
}
