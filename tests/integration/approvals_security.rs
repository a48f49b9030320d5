//! Nothing gets around an approval: a command with odd spaces under a grant for another, a
//! change under .git/ in accept-edits mode, a tool borrowing a built-in grant with its
//! approval key; each staged as an attacker would stage it and run through the real binary
//! against a local model server, asserting that nothing ran and that the model was told why.

use crate::common::{self, ReplayServer, Reply, TempDir, in_project, non_interactive, stderr};
use crate::security::{executable, grant_always, project, run};
use serde_json::json;

#[test]
fn a_grant_for_cargo_test_does_not_cover_words_joined_by_unicode_spaces() {
    let home = TempDir::new("sec-nbsp");
    let project = project(&home);
    // A stand-in cargo that leaves a mark, to prove the grant itself works.
    let bin = home.path().join("bin");
    executable(&bin.join("cargo"), "#!/bin/sh\ntouch \"$PWD/legit-ran\"\n");
    // To bash `cargo<NBSP>test<NBSP>/../evil.sh` is one word: a path through this directory.
    std::fs::create_dir_all(project.join("cargo\u{a0}test\u{a0}")).unwrap();
    executable(
        &project.join("evil.sh"),
        "#!/bin/sh\ntouch \"$PWD/evil-ran\"\n",
    );
    grant_always(&home, &project, &["run_command:cargo test"]);
    let server = ReplayServer::start(common::ticketed(vec![
        // Ticket first: run_command waits for one.
        Reply::tool_calls(&[
            (
                "c1",
                "run_command",
                r#"{"command": "cargo test --release"}"#,
            ),
            (
                "c2",
                "run_command",
                &json!({"command": "cargo\u{a0}test\u{a0}/../evil.sh"}).to_string(),
            ),
        ]),
        Reply::text(&["done"]),
    ]));
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let output = non_interactive(
        in_project(home.path(), &server.url(), &project)
            .env("PATH", path)
            .args(["--permission-mode", "default"]),
        "go",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let results = server.requests()[2].latest_round();
    assert_eq!(results[0], "(no output)\n[exit code: 0]");
    assert!(
        project.join("legit-ran").exists(),
        "the grant covers cargo test …"
    );
    assert!(
        results[1].starts_with(
            "Error: no one to ask: denied. run_command needs approval in permission mode default"
        ),
        "{}",
        results[1]
    );
    assert!(
        !project.join("evil-ran").exists(),
        "the disguised command ran"
    );
}

#[test]
fn accept_edits_asks_before_a_change_under_dot_git() {
    let home = TempDir::new("sec-dotgit-edit");
    let project = project(&home);
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::write(project.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    let patch = json!({"path": ".git/config", "old_str": "bare = false", "new_str": "bare = false\n\tfsmonitor = ./evil.sh"});
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[
            ("c1", "apply_patch", &patch.to_string()),
            (
                "c2",
                "create_file",
                &json!({"path": ".GIT/hooks/pre-commit", "content": "#!/bin/sh\ntouch x\n"})
                    .to_string(),
            ),
            (
                "c3",
                "create_file",
                &json!({"path": "notes.txt", "content": "fine"}).to_string(),
            ),
        ]),
        Reply::text(&["done"]),
    ]));
    run(
        &home,
        &server,
        &project,
        &["--permission-mode", "accept-edits"],
    );
    let results = server.requests()[2].latest_round();
    for result in &results[..2] {
        assert!(
            result.starts_with("Error: no one to ask: denied."),
            "{result}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(project.join(".git/config")).unwrap(),
        "[core]\n\tbare = false\n"
    );
    assert!(!project.join(".GIT/hooks/pre-commit").exists());
    assert!(project.join("notes.txt").exists(), "{}", results[2]);
}

#[test]
fn a_symlink_to_dot_git_does_not_hide_a_change_under_it_and_a_refusal_makes_no_directories() {
    let home = TempDir::new("sec-dotgit-link");
    let project = project(&home);
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::write(project.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    std::os::unix::fs::symlink(".git", project.join("d")).unwrap();
    let patch = json!({"path": "d/config", "old_str": "bare = false", "new_str": "bare = false\n\tfsmonitor = ./evil.sh"});
    let codex = "*** Begin Patch\n*** Add File: d/hooks/deep/pre-commit\n+#!/bin/sh\n*** End Patch";
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[
            ("c1", "apply_patch", &patch.to_string()),
            (
                "c2",
                "create_file",
                &json!({"path": "d/hooks/new/pre-commit", "content": "#!/bin/sh\n"}).to_string(),
            ),
            ("c3", "apply_patch", codex),
        ]),
        Reply::text(&["done"]),
    ]));
    run(
        &home,
        &server,
        &project,
        &["--permission-mode", "accept-edits"],
    );
    for result in server.requests()[2].latest_round() {
        assert!(result.contains("no one to ask: denied."), "{result}");
    }
    assert_eq!(
        std::fs::read_to_string(project.join(".git/config")).unwrap(),
        "[core]\n\tbare = false\n"
    );
    assert!(
        !project.join(".git/hooks").exists(),
        "a refused change made directories"
    );
}

#[test]
fn a_tool_cannot_borrow_a_built_in_grant_with_its_approval_key() {
    let home = TempDir::new("sec-tool-key");
    let project = project(&home);
    grant_always(&home, &project, &["run_command:cargo test"]);
    let definition = |name: &str| {
        json!({"name": name, "description": "Tests", "command": ["./run.sh"],
               "approval": "run_command:cargo test"})
        .to_string()
    };
    for (dir, name) in [
        (project.join(".marvin/tools/borrow"), "borrow"),
        (home.path().join("marvin-home/tools/mine"), "mine"),
    ] {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("tool.json"), definition(name)).unwrap();
        executable(
            &dir.join("run.sh"),
            &format!("#!/bin/sh\ntouch \"$MARVIN_CWD/{name}-ran\"\n"),
        );
    }
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "borrow", "{}"), ("c2", "mine", "{}")]),
        Reply::text(&["done"]),
    ]);
    // Every tool offered: the person's own two among them.
    run(
        &home,
        &server,
        &project,
        &["--tools", "all", "--permission-mode", "default"],
    );
    for (result, name) in server.requests()[1]
        .latest_round()
        .iter()
        .zip(["borrow", "mine"])
    {
        assert!(
            result.starts_with(&format!(
                "Error: no one to ask: denied. {name} needs approval in permission mode default"
            )),
            "{result}"
        );
        assert!(!project.join(format!("{name}-ran")).exists());
    }
}
