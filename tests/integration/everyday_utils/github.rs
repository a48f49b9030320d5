//! github_search, github_clone, github_read_file and github_grep through a fake `gh` on PATH (a
//! real child process, a shell script) that replays the recorded search answers of
//! tests/fixtures/apis/, makes a small clone, and notes its arguments and environment.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::run;
use crate::common::{FIXTURES, TempDir};

/// Installs the fake `gh` in `home/bin`; returns the PATH that finds it first.
fn fake_gh(home: &TempDir) -> String {
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let logs = crate::common::logs(home.path());
    let logs = logs.display();
    let script = format!(
        r#"#!/bin/sh
printf '%s\n' "$*" >> "{logs}/gh.log"
env >> "{logs}/gh.env"
case "$1 $4" in
  "api search/repositories")
    case "$*" in
      *q=nothing*) cat "{FIXTURES}apis/github_search_repositories_empty.json" ;;
      *q=denied*) echo 'To get started with GitHub CLI, please run:  gh auth login' >&2; exit 4 ;;
      *) cat "{FIXTURES}apis/github_search_repositories.json" ;;
    esac ;;
  *)
    if [ "$1 $2" != "repo clone" ]; then echo "unexpected: $*" >&2; exit 2; fi
    if [ "$3" = "owner/broken" ]; then
      mkdir -p "$4"; echo half > "$4/half"; echo 'fatal: early EOF' >&2; exit 128
    fi
    mkdir -p "$4/.git" "$4/src"
    printf 'fn main() {{\n    println!("hello");\n}}\n' > "$4/src/main.rs"
    printf '# Demo\n\nSay hello.\n' > "$4/README.md" ;;
esac
"#
    );
    let gh = bin.join("gh");
    std::fs::write(&gh, script).unwrap();
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn env(home: &TempDir, path: String) -> Vec<(&'static str, String)> {
    vec![
        ("PATH", path),
        ("MARVIN_CLONES_DIR", clones(home).display().to_string()),
        ("GNEWS_API_KEY", "gnews-secret-1".into()),
        ("GH_TOKEN", "gho_secret_2".into()),
        ("NEWSAPI_KEY", "newsapi-secret-3".into()),
    ]
}

fn clones(home: &TempDir) -> PathBuf {
    home.path().join("clones")
}

fn log(home: &Path, name: &str) -> String {
    std::fs::read_to_string(home.join("logs").join(name)).unwrap_or_default()
}

#[test]
fn searches_list_repositories_from_ghs_answer_passing_only_ghs_own_token() {
    let home = TempDir::new("gh-search");
    let path = fake_gh(&home);
    let run = run(
        &home,
        &[
            (
                "1",
                "github_search",
                r#"{"query": "github language:Python", "sort": "stars"}"#,
            ),
            (
                "2",
                "github_search",
                r#"{"query": "nothing here", "max_results": 1}"#,
            ),
            ("3", "github_search", r#"{"query": "denied"}"#),
        ],
        &env(&home, path),
    );
    let found = &run.results[0];
    assert!(
        found.starts_with("- kennethreitz/legit ★3036 (Python) — Git for Humans, Inspired by GitHub for Mac™.\n  https://github.com/kennethreitz/legit\n- "),
        "{found}\n{}",
        run.stderr()
    );
    assert_eq!(
        found.matches("\n  https://github.com/").count(),
        10,
        "{found}"
    );
    assert!(
        found.ends_with("[10 of 2723 repositories shown; refine the query or raise max_results]"),
        "{found}"
    );
    assert_eq!(
        run.results[1],
        "No repositories found on GitHub for 'nothing here'."
    );
    assert!(
        run.results[2]
            .starts_with("Error: gh failed (exit code 4): To get started with GitHub CLI"),
        "{}",
        run.results[2]
    );
    assert!(
        run.results[2].contains("`gh auth login`"),
        "{}",
        run.results[2]
    );
    let calls = log(home.path(), "gh.log");
    assert!(
        calls.contains("api -X GET search/repositories -f q=github language:Python -f per_page=10 -f sort=stars\n"),
        "{calls}"
    );
    assert!(
        calls.contains("-f q=nothing here -f per_page=1\n"),
        "{calls}"
    );
    let environment = log(home.path(), "gh.env");
    assert!(
        environment.contains("GH_PROMPT_DISABLED=1"),
        "{environment}"
    );
    // gh gets its own credential, GH_TOKEN, and no other key or token.
    assert!(
        environment.contains("GH_TOKEN=gho_secret_2\n"),
        "{environment}"
    );
    assert!(!environment.contains("gnews-secret-1"), "{environment}");
    assert!(!environment.contains("newsapi-secret-3"), "{environment}");
    // It runs in the temporary directory, where no repository's configuration steers it.
    let tmp = std::env::temp_dir().display().to_string();
    assert!(
        environment.contains(&format!("PWD={tmp}\n")),
        "{environment}"
    );
}

#[test]
fn a_clone_lands_under_owner_and_name_and_is_read_and_searched() {
    let home = TempDir::new("gh-clone");
    let path = fake_gh(&home);
    let first = run(
        &home,
        &[
            (
                "1",
                "github_clone",
                r#"{"repo": "https://github.com/octo/demo.git"}"#,
            ),
            ("2", "github_clone", r#"{"repo": "octo/../etc"}"#),
            ("3", "github_clone", r#"{"repo": "owner/broken"}"#),
            (
                "4",
                "github_read_file",
                r#"{"repo": "octo/other", "path": "README.md"}"#,
            ),
        ],
        &env(&home, path.clone()),
    );
    let target = clones(&home).join("octo/demo");
    assert_eq!(
        first.results[0],
        format!(
            "Cloned octo/demo (latest commit) to {}: 2 files. Read it with github_read_file and github_grep.",
            target.display()
        ),
        "{}",
        first.stderr()
    );
    assert!(
        first.results[1].starts_with("Error: 'octo/../etc' is not a GitHub repository"),
        "{}",
        first.results[1]
    );
    assert!(
        first.results[2].starts_with("Error: gh failed (exit code 128): fatal: early EOF"),
        "{}",
        first.results[2]
    );
    assert!(
        !clones(&home).join("owner/broken").exists(),
        "a failed clone leaves nothing"
    );
    assert_eq!(
        first.results[3],
        "Error: octo/other is not cloned yet: call github_clone with {\"repo\": \"octo/other\"} first."
    );
    let calls = log(home.path(), "gh.log");
    assert!(
        calls.contains(&format!(
            "repo clone octo/demo {} -- --depth 1\n",
            target.display()
        )),
        "{calls}"
    );
    assert!(
        !calls.contains("etc"),
        "a bad name never reaches gh: {calls}"
    );
    let second = run(
        &home,
        &[
            (
                "1",
                "github_read_file",
                r#"{"repo": "octo/demo", "path": "README.md"}"#,
            ),
            (
                "2",
                "github_grep",
                r#"{"repo": "octo/demo", "pattern": "hello", "ignore_case": true}"#,
            ),
            (
                "3",
                "github_read_file",
                r#"{"repo": "octo/demo", "path": "../../../../etc/passwd"}"#,
            ),
            ("4", "github_clone", r#"{"repo": "octo/demo"}"#),
        ],
        &env(&home, path),
    );
    assert_eq!(
        second.results[0],
        "# Demo\n\nSay hello.\n",
        "{}",
        second.stderr()
    );
    let grep = &second.results[1];
    assert!(grep.contains("README.md:3:Say hello."), "{grep}");
    assert!(
        grep.contains("src/main.rs:2:    println!(\"hello\");"),
        "{grep}"
    );
    assert!(
        second.results[2].starts_with("Error: "),
        "{}",
        second.results[2]
    );
    assert!(
        !second.results[2].contains("root:"),
        "{}",
        second.results[2]
    );
    assert_eq!(
        second.results[3],
        format!(
            "octo/demo is already cloned at {}; read it with github_read_file and github_grep.",
            target.display()
        )
    );
}

#[test]
fn without_gh_the_tools_say_how_to_install_it() {
    let home = TempDir::new("gh-missing");
    let empty = home.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let run = run(
        &home,
        &[
            ("1", "github_search", r#"{"query": "ripgrep"}"#),
            ("2", "github_clone", r#"{"repo": "BurntSushi/ripgrep"}"#),
        ],
        &env(&home, empty.display().to_string()),
    );
    let hint = "Error: GitHub CLI (gh) is not installed. Install from: https://cli.github.com/";
    assert_eq!(run.results, [hint, hint], "{}", run.stderr());
}
