//! A question about a project's code, outside coding mode: in a project the tools that only
//! read it are offered when the question is about it, and read; changes stay in coding mode,
//! which `--code` turns on for a one-shot run.

use std::path::Path;
use std::process::Command;

use crate::common::{ReplayServer, Reply, TempDir, marvin, stderr};
use crate::mcp::tool_names;

const PARSE_RS: &str = "/// Splits a line into its words.\npub fn words(line: &str) -> Vec<&str> {\n    line.split_whitespace().collect()\n}\n";

/// A directory with `src/parse.rs`, a git work tree when `git` is asked for.
fn project(home: &TempDir, git: bool) -> std::path::PathBuf {
    let dir = home.path().join("parser");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/parse.rs"), PARSE_RS).unwrap();
    if git {
        let status = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(status.success());
    }
    dir
}

fn ask(home: &TempDir, dir: &Path, model: &ReplayServer, args: &[&str]) -> std::process::Output {
    marvin(home.path())
        .current_dir(dir)
        .env("OPENAI_COMPAT_URL", model.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .args(args)
        .output()
        .unwrap()
}

const READ: &str = r#"{"path": "src/parse.rs"}"#;

#[test]
fn a_question_about_a_file_of_the_project_reads_it() {
    let home = TempDir::new("project-read");
    let dir = project(&home, true);
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("r1", "read_file", READ)]),
        Reply::text(&["It splits a line into words."]),
    ]);
    let output = ask(
        &home,
        &dir,
        &model,
        &["--verbose", "what does src/parse.rs do?"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let requests = model.requests();
    let offered = tool_names(&requests[0]);
    for reads in [
        "read_file",
        "code_grep",
        "tree",
        "git_status",
        "git_diff",
        "git_log",
    ] {
        assert!(
            offered.iter().any(|n| n == reads),
            "{reads} not in {offered:?}"
        );
    }
    for changes in ["create_file", "apply_patch", "run_command", "git_commit"] {
        assert!(
            !offered.iter().any(|n| n == changes),
            "{changes} in {offered:?}"
        );
    }
    assert!(
        stderr(&output).contains("tools: core, project ("),
        "{}",
        stderr(&output)
    );
    let read = requests[1].result_of("r1");
    assert!(read.contains("pub fn words(line: &str)"), "{read}");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("It splits a line into words."),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );

    // Naming a file of the project is enough, whatever the words.
    std::fs::write(dir.join("glossary.md"), "a lexeme: one word\n").unwrap();
    let model = ReplayServer::start(vec![Reply::text(&["Words."])]);
    let output = ask(
        &home,
        &dir,
        &model,
        &["--verbose", "what is in glossary.md?"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("project (it names glossary.md, a file of the project)"),
        "{}",
        stderr(&output)
    );

    // Words about the code bring it too, without naming a file.
    let model = ReplayServer::start(vec![Reply::text(&["In src/parse.rs."])]);
    let output = ask(
        &home,
        &dir,
        &model,
        &["where is the function that splits lines defined?"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(tool_names(&model.requests()[0]).contains(&"code_grep".to_string()));

    // An everyday question in the same directory does not.
    let model = ReplayServer::start(vec![Reply::text(&["Paris."])]);
    let output = ask(&home, &dir, &model, &["what is the capital of France?"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!tool_names(&model.requests()[0]).contains(&"read_file".to_string()));
}

#[test]
fn changes_need_coding_mode_and_code_turns_it_on() {
    let home = TempDir::new("project-code");
    let dir = project(&home, true);
    let model = ReplayServer::start(vec![
        // Not offered outside coding mode: a model that calls it anyway (it knows the name)
        // is told why not.
        Reply::tool_calls(&[(
            "w1",
            "create_file",
            r#"{"path": "src/lex.rs", "content": "// lexer\n"}"#,
        )])
        .made_up(),
        Reply::text(&["I cannot change files here."]),
    ]);
    let output = ask(&home, &dir, &model, &["add src/lex.rs"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let refused = model.requests()[1].result_of("w1");
    assert!(
        refused.contains("only coding mode does") && refused.contains("--code"),
        "{refused}"
    );
    assert!(!dir.join("src/lex.rs").exists());

    // --code: the coding tools are offered from the first request.
    let model = ReplayServer::start(vec![Reply::text(&["Ready."])]);
    let output = ask(
        &home,
        &dir,
        &model,
        &["--code", "--permission-mode", "bypass", "hello"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let offered = tool_names(&model.requests()[0]);
    for coding in ["create_file", "apply_patch", "run_command", "git_commit"] {
        assert!(
            offered.iter().any(|n| n == coding),
            "{coding} not in {offered:?}"
        );
    }
}

#[test]
fn outside_a_project_nothing_of_it_is_offered() {
    let home = TempDir::new("project-none");
    let dir = project(&home, false);
    let model = ReplayServer::start(vec![
        // Not offered outside a project: a model that calls it anyway is told why not.
        Reply::tool_calls(&[("r1", "read_file", READ)]).made_up(),
        Reply::text(&["I cannot read it here."]),
    ]);
    let output = ask(&home, &dir, &model, &["what does src/parse.rs do?"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let requests = model.requests();
    assert!(!tool_names(&requests[0]).contains(&"read_file".to_string()));
    let refused = requests[1].result_of("r1");
    assert!(refused.contains("not one"), "{refused}");
}
