//! The Codex `*** Begin Patch` format, which some models send to apply_patch instead of
//! {path, old_str, new_str}: Update/Add/Delete File sections whose changes are `@@` hunks or
//! SEARCH/REPLACE blocks. A patch applies all-or-nothing across its files: every change is
//! worked out in memory first, and a failed write puts back what was already written,
//! directories it made included.

mod lines;
mod parse;
#[cfg(test)]
mod props;
mod search;

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use crate::tools::kit::paths;
use crate::tools::kit::target::{Planned, Target, io_error};
pub(crate) use parse::{FileOp, Hunk, parse};

const BEGIN: &str = "*** Begin Patch";

/// The patch text inside raw tool arguments: the arguments themselves, or a JSON string
/// anywhere in them (`{"input": "*** Begin Patch ..."}`).
pub(crate) fn extract(raw: &str) -> Option<String> {
    if !raw.contains(BEGIN) {
        return None;
    }
    fn find(value: &Value) -> Option<String> {
        match value {
            Value::String(text) if text.contains(BEGIN) => Some(text.clone()),
            Value::Array(items) => items.iter().find_map(find),
            Value::Object(map) => map.values().find_map(find),
            _ => None,
        }
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(value) => find(&value),
        Err(_) => Some(broken_json_string(raw).unwrap_or_else(|| raw.to_string())),
    }
}

/// The patch string inside JSON arguments that do not parse, typically because the call was
/// cut off in the middle of the string: decoded up to where it stops.
fn broken_json_string(raw: &str) -> Option<String> {
    let start = raw.find(&format!("\"{BEGIN}"))?;
    let rest = &raw[start..];
    let first = serde_json::Deserializer::from_str(rest)
        .into_iter::<String>()
        .next();
    if let Some(Ok(whole)) = first {
        return Some(whole);
    }
    // Close the string; a cut in the middle of an escape (`\`, `\u00`) loses those bytes.
    (0..6.min(rest.len())).find_map(|cut| {
        let head = rest.get(..rest.len() - cut)?;
        serde_json::from_str::<String>(&format!("{head}\"")).ok()
    })
}

const NOT_APPLIED: &str = "Patch not applied; no file was changed.";

/// Parses and applies `patch`; an error says that nothing was changed, and why.
pub(crate) fn run(
    root: &Path,
    patch: &str,
    approve: &dyn Fn(&str, String) -> Result<(), String>,
) -> Result<String, String> {
    let ops = parse(patch).map_err(|e| format!("{NOT_APPLIED} {e}"))?;
    apply(root, &ops, approve)
}

/// Where a change goes: an existing file, or a new one whose directories may still be missing.
enum Place {
    Existing(Target),
    New(Planned),
}

/// A change ready to write, with what to put back if a later write fails.
struct Staged {
    place: Place,
    new: Option<(String, Option<u32>)>,
    original: Option<(String, u32)>,
}

impl Staged {
    /// The path as the approval names it (with where a symlink really leads).
    fn approval_name(&self) -> String {
        match &self.place {
            Place::Existing(target) => target.approval_name(),
            Place::New(planned) => planned.approval_name(),
        }
    }

    fn shown(&self) -> &str {
        match &self.place {
            Place::Existing(target) => &target.shown,
            Place::New(planned) => &planned.shown,
        }
    }
}

/// Applies the parsed operations: first every change is worked out in memory (any error
/// leaves the tree untouched), then written; a failed write rolls back the earlier ones.
/// `approve` sees the paths and the diff of every change before anything is written.
pub(crate) fn apply(
    root: &Path,
    ops: &[FileOp],
    approve: &dyn Fn(&str, String) -> Result<(), String>,
) -> Result<String, String> {
    let (staged, done) = stage(root, ops).map_err(|e| format!("{NOT_APPLIED} {e}"))?;
    let paths: Vec<String> = staged.iter().map(Staged::approval_name).collect();
    let diffs: Vec<String> = staged
        .iter()
        .map(|c| {
            let old = c.original.as_ref().map_or("", |(text, _)| text.as_str());
            let new = c.new.as_ref().map_or("", |(text, _)| text.as_str());
            crate::interact::diff::unified(c.shown(), old, new)
        })
        .collect();
    approve(&paths.join(", "), diffs.join("\n"))?;
    commit(&staged)?;
    Ok(format!("Applied the patch: {}.", done.join(", ")))
}

/// Every change of the patch, worked out in memory, and a phrase for each operation.
fn stage(root: &Path, ops: &[FileOp]) -> Result<(Vec<Staged>, Vec<String>), String> {
    let mut staged = Vec::new();
    let mut done = Vec::new();
    let mut seen = HashSet::new();
    let mut once = |path: &str| -> Result<(), String> {
        if seen.insert(paths::resolve(root, path)?) {
            Ok(())
        } else {
            Err(format!(
                "'{path}' appears twice in the patch: put all its changes in one section."
            ))
        }
    };
    for op in ops {
        match op {
            FileOp::Update {
                path,
                move_to,
                hunks,
            } => {
                once(path)?;
                if let Some(destination) = move_to {
                    once(destination)?;
                }
                done.push(stage_update(
                    root,
                    path,
                    move_to.as_deref(),
                    hunks,
                    &mut staged,
                )?);
            }
            FileOp::Add { path, content } => {
                once(path)?;
                staged.push(Staged {
                    place: Place::New(new_file(
                        root,
                        path,
                        "use an Update File section to change it",
                    )?),
                    new: Some((content.clone(), None)),
                    original: None,
                });
                done.push(format!("added {path}"));
            }
            FileOp::Delete { path } => {
                once(path)?;
                let target = Target::new(root, path, false)?;
                let original = target.read_text()?;
                staged.push(Staged {
                    place: Place::Existing(target),
                    new: None,
                    original: Some(original),
                });
                done.push(format!("deleted {path}"));
            }
        }
    }
    Ok((staged, done))
}

/// Stages an Update (and Move) section; returns the phrase for it.
fn stage_update(
    root: &Path,
    path: &str,
    move_to: Option<&str>,
    hunks: &[Hunk],
    staged: &mut Vec<Staged>,
) -> Result<String, String> {
    let target = Target::new(root, path, false)?;
    let original = target.read_text()?;
    let text = lines::apply(&original.0, hunks, path)?;
    let mode = Some(original.1);
    let Some(destination) = move_to else {
        staged.push(Staged {
            place: Place::Existing(target),
            new: Some((text, mode)),
            original: Some(original),
        });
        let changes = hunks.iter().filter(|h| h.changes()).count();
        return Ok(format!("updated {path} ({changes} changes)"));
    };
    let moved = new_file(root, destination, "a file cannot be moved over it")?;
    staged.push(Staged {
        place: Place::New(moved),
        new: Some((text, mode)),
        original: None,
    });
    staged.push(Staged {
        place: Place::Existing(target),
        new: None,
        original: Some(original),
    });
    Ok(format!("moved {path} to {destination}"))
}

/// A file the patch creates (Add, or the destination of a Move): it must not exist yet.
fn new_file(root: &Path, path: &str, advice: &str) -> Result<Planned, String> {
    let planned = Planned::new(root, path)?;
    if planned.exists()? {
        return Err(format!("'{path}' already exists: {advice}."));
    }
    Ok(planned)
}

/// A change that was written: its target, and the directories made for it (from `made`).
struct Written<'a> {
    change: &'a Staged,
    target: Wrote<'a>,
    made: Option<usize>,
}

enum Wrote<'a> {
    Existing(&'a Target),
    New(Target),
}

fn commit(staged: &[Staged]) -> Result<(), String> {
    let mut written: Vec<Written> = Vec::new();
    for change in staged {
        match write(change) {
            Ok(done) => written.push(done),
            Err(error) => {
                for done in written.iter().rev() {
                    roll_back(done);
                }
                return Err(format!(
                    "Patch not applied: {error} The files it had already changed were restored."
                ));
            }
        }
    }
    Ok(())
}

fn write(change: &Staged) -> Result<Written<'_>, String> {
    let (target, made) = match &change.place {
        Place::Existing(target) => (Wrote::Existing(target), None),
        Place::New(planned) => {
            let (target, made) = planned.make_dirs()?;
            (Wrote::New(target), made)
        }
    };
    let written = Written {
        change,
        target,
        made,
    };
    let target = written.target();
    let result = match &change.new {
        Some((text, mode)) => target.write(text, *mode, change.original.is_some()),
        None => target
            .dir
            .remove(&target.name)
            .map_err(|e| io_error(&e, &target.shown, "delete")),
    };
    if let Err(error) = result {
        roll_back_dirs(&written);
        return Err(error);
    }
    Ok(written)
}

impl Written<'_> {
    fn target(&self) -> &Target {
        match &self.target {
            Wrote::Existing(target) => target,
            Wrote::New(target) => target,
        }
    }
}

/// Puts a written change back: the original text for updated and deleted files; added ones
/// are removed, with the directories made for them. Best effort: the write that failed is
/// reported either way.
fn roll_back(done: &Written) {
    let target = done.target();
    let _ = match &done.change.original {
        Some((text, mode)) => target.write(text, Some(*mode), true),
        None => target.dir.remove(&target.name).map_err(|e| e.to_string()),
    };
    roll_back_dirs(done);
}

fn roll_back_dirs(done: &Written) {
    if let (Place::New(planned), Some(first)) = (&done.change.place, done.made) {
        planned.remove_made_dirs(first);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    fn files(root: &TempDir, pairs: &[(&str, &str)]) {
        for (path, text) in pairs {
            let full = root.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
    }

    fn read(root: &TempDir, path: &str) -> String {
        std::fs::read_to_string(root.path().join(path)).unwrap()
    }

    fn run(root: &TempDir, patch: &str) -> Result<String, String> {
        super::run(root.path(), patch, &|_, _| Ok(()))
    }

    #[test]
    fn extract_finds_the_patch_in_raw_or_json_arguments() {
        let patch = "*** Begin Patch\n*** Delete File: a\n*** End Patch";
        assert_eq!(extract(patch).as_deref(), Some(patch));
        let json = serde_json::json!({"input": patch}).to_string();
        assert_eq!(extract(&json).as_deref(), Some(patch));
        let array = serde_json::json!({"command": ["apply_patch", patch]}).to_string();
        assert_eq!(extract(&array).as_deref(), Some(patch));
        assert_eq!(extract(r#"{"path":"a","old_str":"x","new_str":"y"}"#), None);
        // JSON cut off inside the string: the patch up to the cut, which parse then refuses.
        let cut = r#"{"input":"*** Begin Patch\n*** Delete File: a\n*** En"#;
        assert_eq!(
            extract(cut).as_deref(),
            Some("*** Begin Patch\n*** Delete File: a\n*** En")
        );
        let cut_in_escape = r#"{"input":"*** Begin Patch\n*** Delete File: a\"#;
        assert_eq!(
            extract(cut_in_escape).as_deref(),
            Some("*** Begin Patch\n*** Delete File: a")
        );
        let unclosed = r#"{"input":"*** Begin Patch\n*** End Patch""#;
        assert_eq!(
            extract(unclosed).as_deref(),
            Some("*** Begin Patch\n*** End Patch")
        );
    }

    #[test]
    fn a_patch_applies_to_every_file() {
        let root = TempDir::new("codex-all");
        files(
            &root,
            &[("a.rs", "let a = 1;\nlet b = 2;\n"), ("gone.txt", "bye\n")],
        );
        let patch = "*** Begin Patch\n*** Update File: a.rs\n@@\n let a = 1;\n-let b = 2;\n+let b = 3;\n*** Add File: dir/new.rs\n+fn new() {}\n*** Delete File: gone.txt\n*** End Patch";
        assert_eq!(
            run(&root, patch).unwrap(),
            "Applied the patch: updated a.rs (1 changes), added dir/new.rs, deleted gone.txt."
        );
        assert_eq!(read(&root, "a.rs"), "let a = 1;\nlet b = 3;\n");
        assert_eq!(read(&root, "dir/new.rs"), "fn new() {}\n");
        assert!(!root.path().join("gone.txt").exists());
    }

    #[test]
    fn when_the_second_file_fails_the_first_stays_untouched() {
        let root = TempDir::new("codex-atomic");
        files(
            &root,
            &[
                ("one.txt", "first version\n"),
                ("two.txt", "something else\n"),
            ],
        );
        let patch = "*** Begin Patch\n*** Update File: one.txt\n<<<<<<< SEARCH\nfirst version\n=======\nsecond version\n>>>>>>> REPLACE\n*** Update File: two.txt\n<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n*** End Patch";
        let err = run(&root, patch).unwrap_err();
        assert!(
            err.starts_with(
                "Patch not applied; no file was changed. SEARCH block 1 of 'two.txt' not found"
            ),
            "{err}"
        );
        assert_eq!(read(&root, "one.txt"), "first version\n");
    }

    #[test]
    fn a_failed_write_restores_the_files_and_removes_the_directories_made() {
        let root = TempDir::new("codex-rollback");
        files(
            &root,
            &[
                ("a.txt", "a1\n"),
                ("old.txt", "bye\n"),
                ("doomed/b.txt", "b1\n"),
            ],
        );
        let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a1\n+a2\n*** Delete File: old.txt\n*** Add File: c.txt\n+c\n*** Add File: new/deep/d.txt\n+d\n*** Add File: new/e.txt\n+e\n*** Update File: doomed/b.txt\n@@\n-b1\n+b2\n*** End Patch";
        let (staged, _) = stage(root.path(), &parse(patch).unwrap()).unwrap();
        assert!(
            !root.path().join("new").exists(),
            "staging makes no directories"
        );
        // The last file's directory vanishes between staging and writing: its write fails.
        std::fs::remove_dir_all(root.path().join("doomed")).unwrap();
        let err = commit(&staged).unwrap_err();
        assert!(err.contains("were restored"), "{err}");
        assert_eq!(read(&root, "a.txt"), "a1\n");
        assert_eq!(read(&root, "old.txt"), "bye\n");
        assert!(!root.path().join("c.txt").exists());
        assert!(
            !root.path().join("new").exists(),
            "the directories made are gone"
        );
    }

    #[test]
    fn rollback_keeps_a_directory_that_something_else_filled() {
        let root = TempDir::new("codex-rollback-busy");
        files(&root, &[("doomed/b.txt", "b1\n")]);
        let patch = "*** Begin Patch\n*** Add File: new/d.txt\n+d\n*** Update File: doomed/b.txt\n@@\n-b1\n+b2\n*** End Patch";
        let (staged, _) = stage(root.path(), &parse(patch).unwrap()).unwrap();
        std::fs::remove_dir_all(root.path().join("doomed")).unwrap();
        let mut first = staged.into_iter();
        let add = first.next().unwrap();
        let written = write(&add).unwrap();
        std::fs::write(root.path().join("new/other.txt"), "not ours").unwrap();
        roll_back(&written);
        assert!(!root.path().join("new/d.txt").exists());
        assert_eq!(read(&root, "new/other.txt"), "not ours");
    }

    #[test]
    fn a_move_carries_the_edited_text_and_removes_the_source() {
        let root = TempDir::new("codex-move");
        files(&root, &[("src/old_name.rs", "fn a() {}\n")]);
        let patch = "*** Begin Patch\n*** Update File: src/old_name.rs\n*** Move to: src/new_name.rs\n@@\n-fn a() {}\n+fn b() {}\n*** End Patch";
        assert_eq!(
            run(&root, patch).unwrap(),
            "Applied the patch: moved src/old_name.rs to src/new_name.rs."
        );
        assert_eq!(read(&root, "src/new_name.rs"), "fn b() {}\n");
        assert!(!root.path().join("src/old_name.rs").exists());
    }

    #[test]
    fn a_file_named_twice_is_refused() {
        let root = TempDir::new("codex-twice");
        files(&root, &[("a.txt", "one\ntwo\n")]);
        let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+1\n*** Update File: ./a.txt\n@@\n-two\n+2\n*** End Patch";
        let err = run(&root, patch).unwrap_err();
        assert!(
            err.contains("'./a.txt' appears twice in the patch"),
            "{err}"
        );
        assert_eq!(read(&root, "a.txt"), "one\ntwo\n");
    }

    #[test]
    fn a_refused_approval_changes_nothing() {
        let root = TempDir::new("codex-denied");
        files(&root, &[("a.txt", "one\n")]);
        let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+1\n*** Add File: n/b.txt\n+b\n*** End Patch";
        let ops = parse(patch).unwrap();
        let seen = std::cell::RefCell::new(String::new());
        let err = apply(root.path(), &ops, &|paths, diff| {
            *seen.borrow_mut() = format!("{paths}\n{diff}");
            Err("denied".into())
        })
        .unwrap_err();
        assert_eq!(err, "denied");
        assert!(
            seen.borrow().starts_with("a.txt, n/b.txt\n"),
            "{}",
            seen.borrow()
        );
        assert!(seen.borrow().contains("+1"), "{}", seen.borrow());
        assert_eq!(read(&root, "a.txt"), "one\n");
        assert!(!root.path().join("n").exists());
    }
}
