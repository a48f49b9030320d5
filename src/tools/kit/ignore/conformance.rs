//! The peers' gitignore test data run through our matcher (`tests/fixtures/gitignore/`, see its
//! NOTE.md): git's t3070 wildmatch table, git's t0008 check-ignore cases, and ripgrep's
//! gitignore tuples. Run with `--nocapture` to see the counts.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use serde_json::Value;

use super::config::UserConfig;
use super::glob::Glob;
use super::rules::Rules;
use super::{ignored, joined, repo};
use crate::test_support::TempDir;

/// The share of a corpus that must pass (the target).
const TARGET: f64 = 0.99;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gitignore")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn text<'a>(row: &'a Value, key: &str) -> &'a str {
    row[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in {row}"))
}

/// Counts a corpus, prints the tally and the failures, and holds it to the target.
struct Tally {
    name: &'static str,
    passed: usize,
    failed: Vec<String>,
}

impl Tally {
    fn new(name: &'static str) -> Tally {
        Tally {
            name,
            passed: 0,
            failed: Vec::new(),
        }
    }

    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if ok {
            self.passed += 1;
        } else {
            self.failed.push(what());
        }
    }

    fn finish(self) {
        let total = self.passed + self.failed.len();
        eprintln!("{}: {}/{total} passed", self.name, self.passed);
        for failure in &self.failed {
            eprintln!("  failed: {failure}");
        }
        assert!(total > 0, "{}: no cases", self.name);
        assert!(
            self.passed as f64 >= TARGET * total as f64,
            "{}: {}/{total} passed, below {TARGET}",
            self.name,
            self.passed
        );
    }
}

#[test]
fn git_t3070_wildmatch_table() {
    let mut tally = Tally::new("git t3070 wildmatch (WM_PATHNAME)");
    for line in fixture("t3070-wildmatch.jsonl").lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        let (text, pattern) = (unxxx(text(&row, "text")), unxxx(text(&row, "pattern")));
        let expected = row["wildmatch"] == "1";
        let got = Glob::new(pattern.as_bytes()).matches(text.as_bytes());
        tally.check(got == expected, || format!("{pattern:?} ~ {text:?}: {got}"));
    }
    tally.finish();
}

/// git's test-tool turns a leading `XXX/` into `/` (a leading `/` upsets Windows' shell).
fn unxxx(s: &str) -> &str {
    match s.strip_prefix("XXX") {
        Some(rest) if rest.starts_with('/') => rest,
        _ => s,
    }
}

/// The path ripgrep's `Gitignore::matched` looks at: `./` dropped from the root and the path,
/// then the root's own prefix, unless the root is `.` or the path is a bare name.
fn ripgrep_relative<'a>(root: &str, path: &'a str) -> &'a str {
    let root = root.strip_prefix("./").unwrap_or(root);
    let path = path.strip_prefix("./").unwrap_or(path);
    if root != "." && path.contains('/') {
        if let Some(rest) = path.strip_prefix(root) {
            return rest.strip_prefix('/').unwrap_or(rest);
        }
    }
    path
}

#[test]
fn ripgrep_gitignore_tuples() {
    let mut tally = Tally::new("ripgrep gitignore tests");
    for line in fixture("ripgrep-gitignore.jsonl").lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        let path = ripgrep_relative(text(&row, "root"), text(&row, "path"));
        let rules = Rules::parse(Vec::new(), text(&row, "gitignore").as_bytes());
        let is_dir = row["is_dir"] == true;
        let got = rules.decide(path.as_bytes(), is_dir) == Some(true);
        let expected = row["ignored"] == true;
        tally.check(got == expected, || format!("{}: {got}", text(&row, "name")));
    }
    tally.finish();
}

/// Whether git (`check-ignore --no-index`) ignores `path` (relative to the repository's top
/// `top`): the last matching rule decides, and an ignored directory hides all inside it.
pub(super) fn check_ignore(top: &Path, user: &UserConfig, path: &[u8], is_dir: bool) -> bool {
    let mut levels = repo::start(top, user).levels;
    let parts: Vec<&[u8]> = path.split(|&c| c == b'/').collect();
    let (mut dir, mut key) = (top.to_path_buf(), Vec::new());
    for (at, part) in parts.iter().enumerate() {
        levels.extend(repo::gitignore(&dir, &key));
        key = joined(&key, part);
        if ignored(&levels, &key, at + 1 < parts.len() || is_dir) {
            return true;
        }
        dir.push(OsStr::from_bytes(part));
    }
    false
}

/// Lays out one t0008 scenario in `top`: its directories, files, symlinks and configuration.
fn lay_out(top: &Path, scenario: &Value) {
    std::fs::create_dir_all(top.join(".git/info")).unwrap();
    let parent = |path: &Path| std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    for dir in scenario["dirs"].as_array().unwrap() {
        std::fs::create_dir_all(top.join(dir.as_str().unwrap())).unwrap();
    }
    for (path, content) in scenario["files"].as_object().unwrap() {
        parent(&top.join(path));
        std::fs::write(top.join(path), content.as_str().unwrap()).unwrap();
    }
    let links = scenario["symlinks"].as_object().into_iter().flatten();
    for (path, target) in links {
        parent(&top.join(path));
        std::os::unix::fs::symlink(target.as_str().unwrap(), top.join(path)).unwrap();
    }
    if let Some(file) = scenario["config"]["core.excludesfile"].as_str() {
        std::fs::write(
            top.join(".git/config"),
            format!("[core]\n\texcludesfile = {file}\n"),
        )
        .unwrap();
    }
}

#[test]
fn git_t0008_check_ignore_cases() {
    let mut tally = Tally::new("git t0008 check-ignore cases");
    let scenarios: Value = serde_json::from_str(&fixture("t0008-ignores.json")).unwrap();
    let dir = TempDir::new("ignore-t0008");
    // A home of its own, so the real user's ~/.config/git/ignore never counts.
    let user = UserConfig {
        home: Some(dir.path().join("home")),
        ..UserConfig::default()
    };
    for (n, scenario) in scenarios.as_array().unwrap().iter().enumerate() {
        let top = dir.path().join(n.to_string());
        lay_out(&top, scenario);
        for case in scenario["cases"].as_array().unwrap() {
            let path = text(case, "path");
            let got = check_ignore(&top, &user, path.as_bytes(), case["is_dir"] == true);
            let expected = case["ignored"] == true;
            tally.check(got == expected, || {
                format!("{}: {path:?}: {got}", text(case, "test"))
            });
        }
    }
    tally.finish();
}
