//! Git in a repository someone else prepared: its configuration names a program everywhere git
//! would run one, and the git tools, through the real binary (in plan mode too), must run none
//! of them and hand git none of Marvin's keys; git_checkout takes only refs, and discarding
//! changes is its own approval that says so.

use std::path::PathBuf;

use crate::common::pty::Pty;
use crate::common::{self, ReplayServer, Reply, TempDir, git, in_project, non_interactive, stderr};
use crate::security::{executable, project, run};
use serde_json::json;

/// A repository with one commit whose configuration then names `evil` (a script that notes
/// each run in `ran`) everywhere git runs a program: the file-system monitor, hooks in
/// .git/hooks and in core.hooksPath, pagers, editor, external diff, a diff textconv, filters
/// (clean, smudge, process; one defined in an included file), signing and signature checks.
fn armed_repository(home: &TempDir) -> (PathBuf, PathBuf) {
    let project = project(home);
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["config", "user.name", "Test"]);
    git(&project, &["config", "user.email", "t@example.org"]);
    std::fs::write(project.join("a.txt"), "one\n").unwrap();
    std::fs::write(
        project.join(".gitattributes"),
        "*.txt filter=evil diff=evil\n*.md filter=included\n*.env filter=mine\n",
    )
    .unwrap();
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "start"]);
    let ran = crate::common::logs(home.path()).join("ran");
    let evil = home.path().join("evil.sh");
    executable(
        &evil,
        &format!("#!/bin/sh\necho \"$0 $*\" >> {}\ncat\n", ran.display()),
    );
    let evil = evil.display().to_string();
    let hooks = home.path().join("hooks");
    for hook in [
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "post-checkout",
        "reference-transaction",
        "post-index-change",
    ] {
        executable(&hooks.join(hook), &format!("#!/bin/sh\n{evil} hook\n"));
        executable(
            &project.join(".git/hooks").join(hook),
            &format!("#!/bin/sh\n{evil} hook\n"),
        );
    }
    let included = home.path().join("included.cfg");
    std::fs::write(
        &included,
        format!("[filter \"included\"]\n\tclean = {evil}\n\tsmudge = {evil}\n"),
    )
    .unwrap();
    for (key, value) in [
        ("core.fsmonitor", evil.as_str()),
        ("core.pager", &evil),
        ("pager.log", &evil),
        ("core.editor", &evil),
        ("sequence.editor", &evil),
        ("diff.external", &evil),
        ("diff.evil.textconv", &evil),
        ("diff.evil.command", &evil),
        ("filter.evil.clean", &evil),
        ("filter.evil.smudge", &evil),
        ("filter.evil.required", "true"),
        ("commit.gpgSign", "true"),
        ("gpg.program", &evil),
        ("log.showSignature", "true"),
        ("hook.evil.command", &evil),
        ("hook.evil.event", "pre-commit"),
        ("include.path", &included.display().to_string()),
    ] {
        git(&project, &["config", key, value]);
    }
    git(
        &project,
        &["config", "core.hooksPath", &hooks.display().to_string()],
    );
    (project, ran)
}

#[test]
fn git_tools_never_run_what_the_repository_configuration_names() {
    let home = TempDir::new("sec-git-config");
    let (project, ran) = armed_repository(&home);
    // The user's own filter (global configuration) still runs, without Marvin's keys.
    let seen = crate::common::logs(home.path()).join("env-seen");
    let mine = home.path().join("mine.sh");
    executable(
        &mine,
        &format!("#!/bin/sh\nenv > {}\ncat\n", seen.display()),
    );
    std::fs::write(
        home.path().join(".gitconfig"),
        format!("[filter \"mine\"]\n\tclean = {}\n", mine.display()),
    )
    .unwrap();
    std::fs::write(project.join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(project.join("b.md"), "# b\n").unwrap();
    std::fs::write(project.join("c.env"), "x=1\n").unwrap();
    let calls = [
        ("git_status", json!({})),
        ("git_diff", json!({})),
        ("git_diff", json!({"path": "a.txt"})),
        ("git_log", json!({"count": 5})),
        ("git_blame", json!({"path": "a.txt"})),
        ("git_branch", json!({})),
        ("git_commit", json!({"message": "Two"})),
        ("git_checkout", json!({"target": "feature", "create": true})),
        ("git_checkout", json!({"target": "main"})),
        ("git_restore", json!({"paths": ["."]})),
    ];
    let mut replies: Vec<Reply> = calls
        .iter()
        .map(|(name, args)| Reply::tool_calls(&[("c1", name, &args.to_string())]))
        .collect();
    replies.push(Reply::text(&["done"]));
    let server = ReplayServer::start(common::ticketed(replies));
    let output = non_interactive(
        in_project(home.path(), &server.url(), &project)
            .env("OPENAI_COMPAT_API_KEY", "sk-secret-compat")
            .env("GH_TOKEN", "gh-secret-token")
            .env("GITHUB_TOKEN", "github-secret-token")
            .env("COPILOT_GITHUB_TOKEN", "copilot-secret-token")
            .args(["--provider", "openai-compat"]),
        "go",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Request 1 answered the ticket round.
    let results: Vec<String> = (2..=calls.len() + 1)
        .map(|i| server.requests()[i].latest_round().pop().unwrap())
        .collect();
    assert!(
        !ran.exists(),
        "git ran the repository's programs: {}\n{results:#?}",
        std::fs::read_to_string(&ran).unwrap_or_default()
    );
    assert!(results[0].contains(" M a.txt"), "{}", results[0]);
    assert!(results[1].contains("+two"), "{}", results[1]);
    assert!(results[6].contains("Two"), "{}", results[6]);
    assert!(
        git(&project, &["cat-file", "commit", "HEAD"]).ends_with("\nTwo\n"),
        "the commit was made, unsigned"
    );
    let env = std::fs::read_to_string(&seen).expect("the user's own filter ran");
    assert!(env.contains("HOME="), "{env}");
    for secret in ["sk-secret", "gh-secret", "github-secret", "copilot-secret"] {
        assert!(!env.contains(secret), "git passed {secret} on:\n{env}");
    }
}

#[test]
fn in_plan_mode_the_read_only_git_tools_run_nothing_either() {
    let home = TempDir::new("sec-git-plan");
    let (project, ran) = armed_repository(&home);
    std::fs::write(project.join("a.txt"), "one\ntwo\n").unwrap();
    let calls = [
        ("git_status", json!({})),
        ("git_diff", json!({})),
        ("git_log", json!({})),
        ("git_blame", json!({"path": "a.txt"})),
    ];
    let mut replies: Vec<Reply> = calls
        .iter()
        .map(|(name, args)| Reply::tool_calls(&[("c1", name, &args.to_string())]))
        .collect();
    replies.push(Reply::text(&["done"]));
    let server = ReplayServer::start(replies);
    run(&home, &server, &project, &["--permission-mode", "plan"]);
    assert!(
        !ran.exists(),
        "{}",
        std::fs::read_to_string(&ran).unwrap_or_default()
    );
    assert!(
        server.requests()[1].latest_round()[0].contains(" M a.txt"),
        "{:?}",
        server.requests()[1].latest_round()
    );
}

#[test]
fn checkout_takes_only_refs_and_discarding_changes_asks_in_those_words() {
    let home = TempDir::new("sec-checkout");
    let project = project(&home);
    git(&project, &["init", "-q", "-b", "main"]);
    std::fs::write(project.join("a.txt"), "one\n").unwrap();
    git(&project, &["add", "-A"]);
    git(
        &project,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@e",
            "commit",
            "-qm",
            "start",
        ],
    );
    std::fs::write(project.join("a.txt"), "precious work\n").unwrap();
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[("c1", "git_checkout", r#"{"target": "."}"#)]),
        Reply::tool_calls(&[("c2", "git_checkout", r#"{"target": "--", "create": false}"#)]),
        Reply::tool_calls(&[("c3", "git_restore", r#"{"paths": ["."]}"#)]),
        Reply::text(&["kept"]),
    ]));
    let mut command = in_project(home.path(), &server.url(), &project);
    command.env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("!code\r");
    pty.wait_for("code› ");
    pty.send("switch to .\r");
    pty.wait_for("Enter chooses");
    let screen = pty.visible().text();
    // The summary is wrapped within 80 columns: read it as words.
    let words = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(
            "[git_restore] wants to discard uncommitted changes in . (they cannot be recovered):"
        ) && screen.contains("a.txt | 2"),
        "{screen}"
    );
    assert!(!screen.contains("git_checkout wants"), "{screen}");
    pty.send("4\r");
    pty.wait_for("What should Marvin do instead?");
    pty.send("keep it\r");
    pty.wait_for("kept");
    pty.leave();
    for index in [2, 3] {
        let result = server.requests()[index].latest_round().pop().unwrap();
        assert!(
            result.starts_with("Error: '")
                && result.contains("is not a branch, tag or commit")
                && result.contains("use git_restore"),
            "{result}"
        );
    }
    assert_eq!(
        server.requests()[4].latest_round().pop().unwrap(),
        "Error: The user declined this git_restore call and said: keep it"
    );
    assert_eq!(
        std::fs::read_to_string(project.join("a.txt")).unwrap(),
        "precious work\n"
    );
}

/// The result of each of `calls` (one round each) in a `--non-interactive` run in `dir`.
fn results_of(
    home: &TempDir,
    dir: &std::path::Path,
    calls: &[(&str, serde_json::Value)],
) -> Vec<String> {
    let mut replies: Vec<Reply> = calls
        .iter()
        .map(|(name, args)| Reply::tool_calls(&[("c1", name, &args.to_string())]))
        .collect();
    replies.push(Reply::text(&["done"]));
    let server = ReplayServer::start(common::ticketed(replies));
    run(home, &server, dir, &[]);
    (2..=calls.len() + 1)
        .map(|i| server.requests()[i].latest_round().pop().unwrap())
        .collect()
}

fn commit_all(dir: &std::path::Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(
        dir,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@e",
            "commit",
            "-qm",
            message,
        ],
    );
}

#[test]
fn a_core_worktree_outside_the_project_shows_nothing_of_what_is_there() {
    let home = TempDir::new("sec-git-worktree");
    let project = project(&home);
    let outside = home.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("id_rsa"), "OUTSIDE-PRIVATE-KEY\n").unwrap();
    std::fs::write(outside.join("history"), "OUTSIDE-HISTORY\n").unwrap();
    // The index names a decoy id_rsa; the configuration moves the work tree outside.
    git(&project, &["init", "-q", "-b", "main"]);
    std::fs::write(project.join("id_rsa"), "decoy\n").unwrap();
    commit_all(&project, "start");
    std::fs::remove_file(project.join("id_rsa")).unwrap();
    git(&project, &["config", "core.worktree", "../../outside"]);
    let results = results_of(
        &home,
        &project,
        &[("git_diff", json!({})), ("git_status", json!({}))],
    );
    for result in &results {
        assert!(
            !result.contains("OUTSIDE-PRIVATE-KEY") && !result.contains("history"),
            "{result}"
        );
    }
    assert!(results[0].contains("-decoy"), "{}", results[0]);
    assert!(results[1].contains(" D id_rsa"), "{}", results[1]);
}

#[test]
fn a_git_file_leading_to_another_repository_is_refused() {
    let home = TempDir::new("sec-git-file");
    let project = project(&home);
    let private = home.path().join("private");
    std::fs::create_dir_all(&private).unwrap();
    git(&private, &["init", "-q", "-b", "main"]);
    std::fs::write(private.join("plans.txt"), "PRIVATE-CONTENTS\n").unwrap();
    commit_all(&private, "PRIVATE-SUBJECT");
    std::fs::write(project.join(".git"), "gitdir: ../private/.git\n").unwrap();
    let results = results_of(
        &home,
        &project,
        &[
            ("git_log", json!({})),
            ("git_diff", json!({"staged": true})),
            ("git_blame", json!({"path": "plans.txt"})),
        ],
    );
    for result in &results {
        assert!(
            !result.contains("PRIVATE-SUBJECT") && !result.contains("PRIVATE-CONTENTS"),
            "{result}"
        );
        assert!(
            result.contains("has a .git file that sends git to")
                && result.contains("Marvin does not run git here"),
            "{result}"
        );
    }
}

#[test]
fn a_linked_worktree_git_made_still_works() {
    let home = TempDir::new("sec-git-linked");
    let project = project(&home);
    git(&project, &["init", "-q", "-b", "main"]);
    std::fs::write(project.join("a.txt"), "one\n").unwrap();
    commit_all(&project, "first");
    let linked = home.path().join("linked");
    git(
        &project,
        &[
            "worktree",
            "add",
            "-q",
            linked.to_str().unwrap(),
            "-b",
            "side",
        ],
    );
    let linked = std::fs::canonicalize(linked).unwrap();
    let results = results_of(&home, &linked, &[("git_log", json!({}))]);
    assert!(results[0].contains("first"), "{}", results[0]);
}

#[test]
fn a_commit_without_files_takes_only_the_working_directory_and_names_them() {
    let home = TempDir::new("sec-git-commit");
    let repo = project(&home);
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["config", "user.name", "T"]);
    git(&repo, &["config", "user.email", "t@e"]);
    std::fs::write(repo.join("other.txt"), "one\n").unwrap();
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    std::fs::write(repo.join("sub/keep.txt"), "keep\n").unwrap();
    commit_all(&repo, "start");
    // Changes above the working directory: an untracked secret and an edit.
    std::fs::write(repo.join("secret.env"), "TOKEN=1\n").unwrap();
    std::fs::write(repo.join("other.txt"), "two\n").unwrap();
    std::fs::write(repo.join("sub/a.txt"), "new\n").unwrap();
    let sub = repo.join("sub");
    // Asked on stdin: the question names the file it commits.
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[("c1", "git_commit", r#"{"message": "Add a"}"#)]),
        Reply::text(&["done"]),
    ]));
    let mut command = in_project(home.path(), &server.url(), &sub);
    command
        .args(["--non-interactive", "--json", "--on-ask", "stdin"])
        .args(["--permission-mode", "default", "--prompt", "commit"]);
    let mut script = crate::common::asking::Script::spawn(command);
    let approval = script.next("approval");
    // The files of the working directory (the ticket the run made among them), no others.
    let detail = approval["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("Add a\n") && detail.lines().any(|l| l == "sub/a.txt"),
        "{detail}"
    );
    assert!(
        !detail.contains("secret.env") && !detail.contains("other.txt"),
        "{detail}"
    );
    let id = approval["id"].as_u64().unwrap();
    script.answer(&json!({"id": id, "approve": "once"}).to_string());
    let output = script.finish();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let committed = git(&repo, &["show", "--name-only", "--format=%s", "HEAD"]);
    assert!(
        committed.starts_with("Add a\n") && committed.contains("\nsub/a.txt\n"),
        "{committed}"
    );
    assert!(
        committed
            .lines()
            .skip(2)
            .all(|file| file.starts_with("sub/")),
        "{committed}"
    );
    let status = git(&repo, &["status", "--short"]);
    assert!(
        status.contains("?? secret.env") && status.contains(" M other.txt"),
        "{status}"
    );

    // Staged changes above it would go along: refused, nothing committed.
    git(&repo, &["add", "other.txt"]);
    std::fs::write(repo.join("sub/b.txt"), "b\n").unwrap();
    let results = results_of(&home, &sub, &[("git_commit", json!({"message": "Add b"}))]);
    assert!(
        results[0].contains("Changes outside the working directory are staged")
            && results[0].contains("other.txt"),
        "{}",
        results[0]
    );
    assert!(git(&repo, &["log", "--format=%s"]).starts_with("Add a\n"));
}

/// The ways the review found to commit what the question did not show: a repository's
/// diff.relative hiding staged changes above, pathspec magic in a named file, a rename from
/// outside, and other staged files beside the named ones.
#[test]
fn a_commit_never_takes_what_its_question_did_not_name() {
    let home = TempDir::new("sec-git-commit-ways");
    let repo = project(&home);
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["config", "user.name", "T"]);
    git(&repo, &["config", "user.email", "t@e"]);
    git(&repo, &["config", "diff.relative", "true"]);
    std::fs::write(repo.join("other.txt"), "one\n").unwrap();
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    std::fs::write(repo.join("sub/keep.txt"), "keep\n").unwrap();
    commit_all(&repo, "start");
    let sub = repo.join("sub");
    // Staged above, hidden from a relative diff: refused.
    std::fs::write(repo.join("other.txt"), "two\n").unwrap();
    git(&repo, &["add", "other.txt"]);
    std::fs::write(sub.join("a.txt"), "a\n").unwrap();
    let results = results_of(&home, &sub, &[("git_commit", json!({"message": "A"}))]);
    assert!(results[0].contains("are staged"), "{}", results[0]);
    git(&repo, &["restore", "--staged", "other.txt"]);
    // A rename from outside into the working directory: refused too.
    git(&repo, &["mv", "other.txt", "sub/moved.txt"]);
    let results = results_of(&home, &sub, &[("git_commit", json!({"message": "B"}))]);
    assert!(results[0].contains("are staged"), "{}", results[0]);
    git(&repo, &["mv", "sub/moved.txt", "other.txt"]);
    git(&repo, &["restore", "--staged", "other.txt"]);
    // `:/secret.env` is a file's name, not "the top's secret.env"; a.txt staged beside the
    // named b.txt stays out of the commit.
    std::fs::write(repo.join("secret.env"), "TOKEN=1\n").unwrap();
    std::fs::write(sub.join("b.txt"), "b\n").unwrap();
    git(&repo, &["add", "sub/a.txt"]);
    let results = results_of(
        &home,
        &sub,
        &[
            (
                "git_commit",
                json!({"message": "C", "files": [":/secret.env"]}),
            ),
            ("git_commit", json!({"message": "D", "files": ["b.txt"]})),
        ],
    );
    assert!(
        results[0].starts_with("Error: git add failed"),
        "{}",
        results[0]
    );
    let committed = git(&repo, &["show", "--name-only", "--format=%s", "HEAD"]);
    assert_eq!(committed.trim(), "D\n\nsub/b.txt", "{}", results[1]);
    let status = git(&repo, &["status", "--short"]);
    assert!(
        status.contains("?? secret.env") && status.contains("A  sub/a.txt"),
        "{status}"
    );
}
