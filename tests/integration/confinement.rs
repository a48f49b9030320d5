//! A cloned repository cannot get Marvin to read or write outside the working directory:
//! symlinked `.marvin`, `.marvin/notes`, audit log and instruction files (a working directory
//! without a `.git` of its own too), `code_grep` through
//! `link/..` or symlinked files, `.tickets/`, and context backups kept out of commits. Each
//! case is staged as an attacker would, with the model's tool calls replayed to the real
//! binary; nothing outside may reach the provider or change, and the model is told why.

use std::os::unix::fs::symlink;
use std::path::Path;

use crate::common::{self, Reply, TempDir, git, stderr};
use crate::staged::{Run, SECRET, listing, outside, run, which_rg};

fn assert_untouched(outside: &TempDir) {
    assert_eq!(listing(outside.path()), ["secret.txt", "sub"]);
    assert_eq!(listing(&outside.path().join("sub")), Vec::<String>::new());
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        format!("{SECRET}\n")
    );
}

#[test]
fn a_symlinked_notes_directory_is_refused_by_every_notes_tool() {
    let project = TempDir::new("confine-notes");
    let outside = outside();
    std::fs::create_dir(project.path().join(".marvin")).unwrap();
    symlink(outside.path(), project.path().join(".marvin/notes")).unwrap();
    let run = run(
        project.path(),
        vec![
            Reply::tool_calls(&[
                ("1", "read_note", r#"{"path":"secret.txt"}"#),
                ("2", "search_notes", r#"{"query":"secret"}"#),
                ("3", "write_note", r#"{"path":"x.md","content":"pwned"}"#),
                (
                    "4",
                    "write_note",
                    r#"{"path":"secret.txt","content":"more","append":true}"#,
                ),
                ("5", "notes_ls", "{}"),
                ("6", "notes_mkdir", r#"{"path":"new"}"#),
                (
                    "7",
                    "file_apply_patch",
                    r#"{"path":"secret.txt","old_str":"SECRET","new_str":"x"}"#,
                ),
                (
                    "8",
                    "file_read_lines",
                    r#"{"path":"secret.txt","start_line":1}"#,
                ),
            ]),
            Reply::text(&["done"]),
        ],
        |_| {},
    );
    run.assert_ok();
    let results = run.results();
    assert_eq!(results.len(), 8);
    for result in &results {
        assert!(
            result.contains("The notes directory")
                && result.contains("is reached through a symlink"),
            "{result}"
        );
    }
    assert_untouched(&outside);
}

#[test]
fn a_symlinked_dot_marvin_reads_no_instructions_and_takes_no_notes_or_backups() {
    let project = TempDir::new("confine-dot-marvin");
    let outside = outside();
    // What the repository's .marvin points at holds "instructions" that are really a secret.
    std::fs::write(outside.path().join("sub/instructions.md"), SECRET).unwrap();
    symlink(outside.path().join("sub"), project.path().join(".marvin")).unwrap();
    let run = run(
        project.path(),
        vec![
            Reply::tool_calls(&[
                ("1", "write_note", r#"{"path":"plan.md","content":"pwned"}"#),
                ("2", "compact_history", "{}"),
            ]),
            Reply::text(&["done"]),
        ],
        |_| {},
    );
    run.assert_ok();
    let prompt = run.system_prompt();
    assert!(
        prompt.contains(
            "Project instructions from .marvin/instructions.md:\n[not read: it leads outside the project through a symlink]"
        ),
        "{prompt}"
    );
    assert!(run.results()[0].contains("is reached through a symlink"));
    assert!(
        stderr(&run.output).contains("the context could not be compacted: cannot back it up in"),
        "{}",
        stderr(&run.output)
    );
    assert_eq!(listing(&outside.path().join("sub")), ["instructions.md"]);
}

#[test]
fn the_audit_log_is_never_written_through_a_symlink() {
    let project = TempDir::new("confine-audit");
    let outside = outside();
    let bashrc = outside.path().join("sub/.bashrc");
    std::fs::write(&bashrc, "# my shell\n").unwrap();
    std::fs::create_dir_all(project.path().join(".marvin/logs")).unwrap();
    let log = project.path().join(".marvin/logs/subagents.jsonl");
    symlink(&bashrc, &log).unwrap();
    let run = run(
        project.path(),
        vec![
            Reply::tool_calls(&[("1", "get_working_dir", "{}")]),
            Reply::text(&["done"]),
        ],
        |command| {
            command.env("MARVIN_SUBAGENT_LOG", &log);
        },
    );
    run.assert_ok();
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "# my shell\n");
    assert!(
        stderr(&run.output).contains("cannot write the audit log"),
        "{}",
        stderr(&run.output)
    );
    // A .marvin that is itself a link is refused the same way.
    let other = TempDir::new("confine-audit-dir");
    symlink(outside.path().join("sub"), other.path().join(".marvin")).unwrap();
    let log = other.path().join(".marvin/logs/subagents.jsonl");
    let run = run_with_log(other.path(), &log);
    run.assert_ok();
    assert_eq!(listing(&outside.path().join("sub")), [".bashrc"]);
}

fn run_with_log(project: &Path, log: &Path) -> Run {
    run(
        project,
        vec![
            Reply::tool_calls(&[("1", "get_working_dir", "{}")]),
            Reply::text(&["done"]),
        ],
        |command| {
            command.env("MARVIN_SUBAGENT_LOG", log);
        },
    )
}

#[test]
fn instruction_files_pointing_out_of_the_project_are_not_read() {
    let project = TempDir::new("confine-agents");
    let outside = outside();
    std::fs::create_dir(project.path().join(".git")).unwrap();
    std::fs::create_dir(project.path().join(".marvin")).unwrap();
    symlink(
        outside.path().join("secret.txt"),
        project.path().join("AGENTS.md"),
    )
    .unwrap();
    symlink("/dev/zero", project.path().join(".marvin-instructions")).unwrap();
    symlink("/dev/zero", project.path().join(".marvin/spec.md")).unwrap();
    let run = run(project.path(), vec![Reply::text(&["hello"])], |_| {});
    run.assert_ok();
    let prompt = run.system_prompt();
    for file in [".marvin-instructions", "AGENTS.md", ".marvin/spec.md"] {
        assert!(
            prompt.contains(&format!(
                "Project instructions from {file}:\n[not read: it leads outside the project through a symlink]"
            )),
            "{file}: {prompt}"
        );
    }
}

#[test]
fn without_a_git_of_its_own_a_working_directory_reaches_nothing_above_it_for_instructions() {
    // A home kept in git (its dotfiles), a key in it, and a download unpacked there: the
    // working directory has no .git of its own, so the nearest is the home's.
    let home = TempDir::new("confine-agents-home");
    let dir = home.path();
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::create_dir_all(dir.join(".ssh")).unwrap();
    std::fs::write(dir.join(".ssh/id_ed25519"), format!("{SECRET}\n")).unwrap();
    std::fs::write(dir.join("CLAUDE.md"), "Home rules.").unwrap();
    // The home's own AGENTS.md may point beside it, as `ln -s CLAUDE.md AGENTS.md` does.
    symlink("CLAUDE.md", dir.join("AGENTS.md")).unwrap();
    let download = dir.join("download");
    let work = download.join("sub");
    std::fs::create_dir_all(work.join(".marvin")).unwrap();
    std::fs::write(
        download.join("notes.md"),
        "Notes beside the working directory.",
    )
    .unwrap();
    symlink("../.ssh/id_ed25519", download.join("AGENTS.md")).unwrap();
    symlink("../../.ssh/id_ed25519", work.join("AGENTS.md")).unwrap();
    symlink("../notes.md", work.join(".marvin-instructions")).unwrap();
    symlink("../../../.ssh/id_ed25519", work.join(".marvin/spec.md")).unwrap();
    let run = run(&work, vec![Reply::text(&["hello"])], |_| {});
    run.assert_ok();
    let prompt = run.system_prompt();
    let docs = prompt
        .split_once("\n\nProject instructions from ")
        .map_or("", |(_, docs)| docs);
    let outside = |out_of: &str| format!("[not read: it leads outside {out_of} through a symlink]");
    let expected = [
        format!(".marvin-instructions:\n{}", outside("the project")),
        format!("{}/AGENTS.md:\nHome rules.", dir.display()),
        format!(
            "{}/AGENTS.md:\n{}",
            download.display(),
            outside("the directory it is in")
        ),
        format!("AGENTS.md:\n{}", outside("the project")),
        format!(".marvin/spec.md:\n{}", outside("the project")),
    ];
    assert_eq!(
        docs.split("\n\nProject instructions from ")
            .collect::<Vec<_>>(),
        expected,
        "{prompt}"
    );
    assert!(!prompt.contains("Notes beside"), "{prompt}");
}

/// The project for the code_grep cases: a link out of it, a symlinked file, and tickets.
fn grep_project(outside: &TempDir) -> TempDir {
    let project = TempDir::new("confine-grep");
    let dir = project.path();
    std::fs::create_dir(dir.join(".tickets")).unwrap();
    std::fs::write(dir.join(".tickets/t-1.md"), "TICKET-ONLY-TEXT secret\n").unwrap();
    std::fs::write(dir.join("main.rs"), "// no secret here\n").unwrap();
    symlink(outside.path().join("sub"), dir.join("link")).unwrap();
    symlink(outside.path().join("secret.txt"), dir.join("leak.txt")).unwrap();
    project
}

fn grep_calls() -> Vec<Reply> {
    vec![
        Reply::tool_calls(&[
            ("1", "code_grep", r#"{"pattern":"SECRET","path":"link/.."}"#),
            (
                "2",
                "code_grep",
                r#"{"pattern":"SECRET","ignore_case":true}"#,
            ),
            (
                "3",
                "code_grep",
                r#"{"pattern":"SECRET","file_glob":"*","ignore_case":true}"#,
            ),
            ("4", "code_grep", r#"{"pattern":"SECRET","path":"link"}"#),
            (
                "5",
                "code_grep",
                r#"{"pattern":"SECRET","path":"leak.txt"}"#,
            ),
            ("6", "tree", "{}"),
        ]),
        Reply::text(&["done"]),
    ]
}

fn assert_grep_confined(run: &Run, outside: &TempDir) {
    run.assert_ok();
    assert!(
        !run.sent().contains("TICKET-ONLY-TEXT"),
        "a ticket was shown"
    );
    let results = run.results();
    assert!(
        results[0].starts_with("No matches for 'SECRET' in link/.."),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("main.rs:1:// no secret here"),
        "{}",
        results[1]
    );
    assert!(
        results[2].contains("main.rs:1:// no secret here"),
        "{}",
        results[2]
    );
    assert!(results[3].contains("leads outside the working directory through a symlink"));
    assert!(results[4].contains("leads outside the working directory through a symlink"));
    assert!(!results[5].contains(".tickets"), "{}", results[5]);
    assert!(results[5].contains("  main.rs"), "{}", results[5]);
    assert_untouched(outside);
}

#[test]
fn the_built_in_code_grep_searches_only_what_was_resolved_and_confined() {
    let outside = outside();
    let project = grep_project(&outside);
    let no_programs = TempDir::new("confine-no-rg");
    let run = run(project.path(), grep_calls(), |command| {
        command.env("PATH", no_programs.path());
    });
    assert_grep_confined(&run, &outside);
    assert!(run.results()[1].contains("(plain-text search"));
}

#[test]
fn ripgrep_searches_only_what_was_resolved_and_confined() {
    if which_rg().is_none() {
        return; // The built-in search above covers this machine, which has no ripgrep.
    }
    let outside = outside();
    let project = grep_project(&outside);
    let run = run(project.path(), grep_calls(), |_| {});
    assert_grep_confined(&run, &outside);
    assert!(!run.results()[1].contains("(plain-text search"));
}

#[test]
fn notes_in_a_project_need_approval_and_backups_stay_out_of_commits() {
    let project = TempDir::new("confine-commit");
    let dir = project.path();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.org"]);
    std::fs::write(dir.join("a.txt"), "a\n").unwrap();
    // Asking before writes without anyone to ask: the note is refused, not written.
    let asked = run(
        dir,
        vec![
            Reply::tool_calls(&[("1", "write_note", r#"{"path":"plan.md","content":"x"}"#)]),
            Reply::text(&["done"]),
        ],
        |command| {
            command.args(["--permission-mode", "accept-edits"]);
        },
    );
    asked.assert_ok();
    let denied = run(
        dir,
        vec![
            Reply::tool_calls(&[("1", "write_note", r#"{"path":"plan.md","content":"x"}"#)]),
            Reply::text(&["done"]),
        ],
        |command| {
            command.args(["--permission-mode", "default"]);
        },
    );
    denied.assert_ok();
    assert!(
        denied.results()[0].contains("no one to ask: denied. write_note needs approval"),
        "{}",
        denied.results()[0]
    );
    assert!(
        asked.results()[0].starts_with("Saved note 'plan.md'"),
        "{}",
        asked.results()[0]
    );
    let run = run(
        dir,
        common::ticketed(vec![
            Reply::tool_calls(&[("1", "compact_history", "{}")]),
            Reply::tool_calls(&[("2", "git_commit", r#"{"message":"Add a"}"#)]),
            Reply::text(&["done"]),
        ]),
        |_| {},
    );
    run.assert_ok();
    let logs = listing(&dir.join(".marvin/logs"));
    assert!(
        logs.iter().any(|n| n.starts_with("context-backup-")),
        "{logs:?}"
    );
    // The ticket the model opened is the project's; the backups are not.
    let committed = git(dir, &["ls-files"]);
    let committed: Vec<&str> = committed
        .lines()
        .filter(|file| !file.starts_with(".tickets/"))
        .collect();
    assert_eq!(committed, [".marvin/notes/plan.md", "a.txt"]);
}

#[test]
fn ripgrep_never_reads_an_ignore_file_that_links_out() {
    if which_rg().is_none() {
        return; // Without ripgrep there is nothing that could read it.
    }
    let outside = outside();
    // ripgrep quotes the lines of an ignore file it cannot parse: this one would come back.
    std::fs::write(outside.path().join("rules"), format!("{SECRET}{{abc\n")).unwrap();
    let project = TempDir::new("confine-ignore-link");
    std::fs::write(project.path().join("main.rs"), "// needle\n").unwrap();
    for name in [".ignore", ".rgignore", ".gitignore"] {
        let dir = project.path().join(name.trim_start_matches('.'));
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("x.rs"), "// needle\n").unwrap();
        symlink(outside.path().join("rules"), dir.join(name)).unwrap();
    }
    let calls = vec![
        Reply::tool_calls(&[("1", "code_grep", r#"{"pattern":"needle"}"#)]),
        Reply::text(&["done"]),
    ];
    let run = run(project.path(), calls, |_| {});
    run.assert_ok();
    let result = &run.results()[0];
    assert!(result.contains("main.rs:1:// needle"), "{result}");
    assert!(
        result.contains("ripgrep was not used because") && result.contains("a symlink"),
        "{result}"
    );
}
