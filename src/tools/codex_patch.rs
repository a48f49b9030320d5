//! The Codex `*** Begin Patch` format, which some models send to apply_patch instead of
//! {path, old_str, new_str}: Update/Add/Delete File sections whose changes are `@@` hunks or
//! SEARCH/REPLACE blocks. A patch applies all-or-nothing across its files.

use std::path::Path;

use serde_json::Value;

use super::edit::{Target, replace_once};

const BEGIN: &str = "*** Begin Patch";

/// One file operation of a patch.
#[derive(Debug, PartialEq)]
pub enum FileOp {
    Update {
        path: String,
        move_to: Option<String>,
        edits: Vec<(String, String)>,
    },
    Add {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
}

/// The patch text inside raw tool arguments: the arguments themselves, or a JSON string
/// anywhere in them (`{"input": "*** Begin Patch ..."}`).
pub fn extract(raw: &str) -> Option<String> {
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
        Err(_) => Some(raw.to_string()),
    }
}

/// Parses the patch into file operations.
pub fn parse(patch: &str) -> Result<Vec<FileOp>, String> {
    let mut ops = Vec::new();
    let mut current: Option<(String, String, Vec<&str>)> = None; // (kind, path, body)
    let mut started = false;
    for line in patch.lines() {
        let header = [
            ("*** Update File: ", "update"),
            ("*** Add File: ", "add"),
            ("*** Delete File: ", "delete"),
        ]
        .iter()
        .find_map(|(prefix, kind)| line.strip_prefix(prefix).map(|path| (*kind, path.trim())));
        if line.trim() == BEGIN {
            started = true;
        } else if line.trim() == "*** End Patch" {
            break;
        } else if let Some((kind, path)) = header {
            if let Some(section) = current.take() {
                ops.push(finish(section)?);
            }
            current = Some((kind.to_string(), path.to_string(), Vec::new()));
        } else if let Some((_, _, body)) = current.as_mut() {
            body.push(line);
        } else if started && !line.trim().is_empty() {
            return Err(format!(
                "Expected '*** Update File:', '*** Add File:' or '*** Delete File:' but found: {line}"
            ));
        }
    }
    if let Some(section) = current.take() {
        ops.push(finish(section)?);
    }
    if ops.is_empty() {
        return Err("The patch names no files. Use '*** Update File: path', '*** Add File: path' or '*** Delete File: path' sections.".into());
    }
    Ok(ops)
}

fn finish((kind, path, body): (String, String, Vec<&str>)) -> Result<FileOp, String> {
    if path.is_empty() {
        return Err(format!(
            "A '*** {} File:' line has no path.",
            capitalised(&kind)
        ));
    }
    match kind.as_str() {
        "add" => {
            let all_plus = body.iter().all(|l| l.starts_with('+') || l.is_empty());
            let lines: Vec<&str> = body
                .iter()
                .map(|l| {
                    if all_plus {
                        l.strip_prefix('+').unwrap_or(l)
                    } else {
                        l
                    }
                })
                .collect();
            let mut content = lines.join("\n");
            if !content.is_empty() {
                content.push('\n');
            }
            Ok(FileOp::Add { path, content })
        }
        "delete" => Ok(FileOp::Delete { path }),
        _ => {
            let move_to = body
                .iter()
                .find_map(|l| l.strip_prefix("*** Move to: "))
                .map(|p| p.trim().to_string());
            let body: Vec<&str> = body
                .into_iter()
                .filter(|l| !l.starts_with("*** "))
                .collect();
            let edits = if body.iter().any(|l| l.starts_with("<<<<<<< SEARCH")) {
                search_replace(&body, &path)?
            } else {
                hunks(&body, &path)?
            };
            if edits.is_empty() && move_to.is_none() {
                return Err(format!("The update of '{path}' contains no changes."));
            }
            Ok(FileOp::Update {
                path,
                move_to,
                edits,
            })
        }
    }
}

fn capitalised(kind: &str) -> String {
    let mut chars = kind.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks.
fn search_replace(body: &[&str], path: &str) -> Result<Vec<(String, String)>, String> {
    let mut edits = Vec::new();
    let mut lines = body.iter();
    while let Some(line) = lines.next() {
        if !line.starts_with("<<<<<<< SEARCH") {
            continue;
        }
        let search: Vec<&str> = lines
            .by_ref()
            .take_while(|l| **l != "=======")
            .copied()
            .collect();
        let mut replace = Vec::new();
        let mut closed = false;
        for l in lines.by_ref() {
            if l.starts_with(">>>>>>> REPLACE") {
                closed = true;
                break;
            }
            replace.push(*l);
        }
        if !closed {
            return Err(format!(
                "A SEARCH/REPLACE block in '{path}' is missing its '>>>>>>> REPLACE' line."
            ));
        }
        edits.push((search.join("\n"), replace.join("\n")));
    }
    Ok(edits)
}

/// Unified-diff style hunks: ` ` context, `-` removed, `+` added, separated by `@@` lines.
fn hunks(body: &[&str], path: &str) -> Result<Vec<(String, String)>, String> {
    let mut edits = Vec::new();
    for (number, hunk) in body.split(|l| l.starts_with("@@")).enumerate() {
        let (mut old, mut new) = (Vec::new(), Vec::new());
        for line in hunk {
            match line.split_at_checked(1) {
                Some(("-", rest)) => old.push(rest),
                Some(("+", rest)) => new.push(rest),
                Some((" ", rest)) => {
                    old.push(rest);
                    new.push(rest);
                }
                None => {
                    old.push("");
                    new.push("");
                }
                Some(_) => {
                    return Err(format!(
                        "Hunk {} of '{path}': every line must start with ' ', '-' or '+', but found: {line}",
                        number.max(1)
                    ));
                }
            }
        }
        while old.last() == Some(&"") && new.last() == Some(&"") {
            old.pop();
            new.pop();
        }
        if old.is_empty() && new.is_empty() {
            continue;
        }
        if old.is_empty() {
            return Err(format!(
                "Hunk {} of '{path}' only adds lines: include a few unchanged lines around it so it can be placed.",
                number.max(1)
            ));
        }
        edits.push((old.join("\n"), new.join("\n")));
    }
    Ok(edits)
}

/// A change ready to write, with what to put back if a later write fails.
struct Staged {
    target: Target,
    new: Option<(String, Option<u32>)>,
    original: Option<(String, u32)>,
}

/// Applies the parsed operations: first every change is worked out in memory (any error
/// leaves all files untouched), then written; a failed write rolls back the earlier ones.
/// `approve` sees the paths and the diff of every change before anything is written.
pub fn apply(
    root: &Path,
    ops: &[FileOp],
    approve: &dyn Fn(&str, String) -> Result<(), String>,
) -> Result<String, String> {
    let (staged, done) =
        stage(root, ops).map_err(|e| format!("Patch not applied; no file was changed. {e}"))?;
    let paths: Vec<&str> = staged.iter().map(|c| c.target.shown.as_str()).collect();
    let diffs: Vec<String> = staged
        .iter()
        .map(|c| {
            let old = c.original.as_ref().map_or("", |(text, _)| text.as_str());
            let new = c.new.as_ref().map_or("", |(text, _)| text.as_str());
            crate::interact::diff::unified(&c.target.shown, old, new)
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
    for op in ops {
        match op {
            FileOp::Update {
                path,
                move_to,
                edits,
            } => {
                let target = Target::new(root, path, false)?;
                let original = target.read_text()?;
                let mut text = original.0.clone();
                for (i, (old, new)) in edits.iter().enumerate() {
                    text = replace_once(&text, old, new, path)
                        .map_err(|e| format!("Change {} of '{path}': {e}", i + 1))?
                        .0;
                }
                let mode = original.1;
                match move_to {
                    Some(destination) => {
                        let moved = Target::new(root, destination, true)?;
                        if moved.dir.mode_of(&moved.name).ok().flatten().is_some() {
                            return Err(format!(
                                "'{destination}' already exists: a file cannot be moved over it."
                            ));
                        }
                        staged.push(Staged {
                            target: moved,
                            new: Some((text, Some(mode))),
                            original: None,
                        });
                        staged.push(Staged {
                            target,
                            new: None,
                            original: Some(original),
                        });
                        done.push(format!("moved {path} to {destination}"));
                    }
                    None => {
                        staged.push(Staged {
                            target,
                            new: Some((text, Some(mode))),
                            original: Some(original),
                        });
                        done.push(format!("updated {path} ({} changes)", edits.len()));
                    }
                }
            }
            FileOp::Add { path, content } => {
                let target = Target::new(root, path, true)?;
                if target.dir.mode_of(&target.name).ok().flatten().is_some() {
                    return Err(format!(
                        "'{path}' already exists: use an Update File section to change it."
                    ));
                }
                staged.push(Staged {
                    target,
                    new: Some((content.clone(), None)),
                    original: None,
                });
                done.push(format!("added {path}"));
            }
            FileOp::Delete { path } => {
                let target = Target::new(root, path, false)?;
                let original = target.read_text()?;
                staged.push(Staged {
                    target,
                    new: None,
                    original: Some(original),
                });
                done.push(format!("deleted {path}"));
            }
        }
    }
    Ok((staged, done))
}

fn commit(staged: &[Staged]) -> Result<(), String> {
    for (i, change) in staged.iter().enumerate() {
        let target = &change.target;
        let result = match &change.new {
            Some((text, mode)) => target.write(text, *mode, change.original.is_some()),
            None => target
                .dir
                .remove(&target.name)
                .map_err(|e| super::edit::io_error(&e, &target.shown, "delete")),
        };
        if let Err(error) = result {
            for earlier in staged[..i].iter().rev() {
                roll_back(earlier);
            }
            return Err(format!(
                "Patch not applied: {error} The files it had already changed were restored."
            ));
        }
    }
    Ok(())
}

/// Puts a written change back: the original text for updated and deleted files, nothing for
/// added ones. Best effort: the write that failed is reported either way.
fn roll_back(change: &Staged) {
    let target = &change.target;
    let _ = match &change.original {
        Some((text, mode)) => target.write(text, Some(*mode), true),
        None => target.dir.remove(&target.name).map_err(|e| e.to_string()),
    };
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

    #[test]
    fn extract_finds_the_patch_in_raw_or_json_arguments() {
        let patch = "*** Begin Patch\n*** Delete File: a\n*** End Patch";
        assert_eq!(extract(patch).as_deref(), Some(patch));
        let json = serde_json::json!({"input": patch}).to_string();
        assert_eq!(extract(&json).as_deref(), Some(patch));
        let array = serde_json::json!({"command": ["apply_patch", patch]}).to_string();
        assert_eq!(extract(&array).as_deref(), Some(patch));
        assert_eq!(extract(r#"{"path":"a","old_str":"x","new_str":"y"}"#), None);
    }

    #[test]
    fn parses_search_replace_hunks_add_and_delete() {
        let patch = "*** Begin Patch\n*** Update File: src/main.ts\n<<<<<<< SEARCH\nconst x = 1;\n=======\nconst x = 2;\n>>>>>>> REPLACE\n*** Update File: b.py\n@@ def f():\n def f():\n-    return 1\n+    return 2\n*** Add File: new.txt\n+hello\n+world\n*** Delete File: old.txt\n*** End Patch\n";
        let ops = parse(patch).unwrap();
        assert_eq!(
            ops,
            vec![
                FileOp::Update {
                    path: "src/main.ts".into(),
                    move_to: None,
                    edits: vec![("const x = 1;".into(), "const x = 2;".into())]
                },
                FileOp::Update {
                    path: "b.py".into(),
                    move_to: None,
                    edits: vec![(
                        "def f():\n    return 1".into(),
                        "def f():\n    return 2".into()
                    )]
                },
                FileOp::Add {
                    path: "new.txt".into(),
                    content: "hello\nworld\n".into()
                },
                FileOp::Delete {
                    path: "old.txt".into()
                },
            ]
        );
    }

    #[test]
    fn malformed_patches_say_what_is_wrong() {
        assert!(
            parse("*** Begin Patch\n*** End Patch")
                .unwrap_err()
                .contains("names no files")
        );
        assert!(
            parse("*** Begin Patch\nrandom\n")
                .unwrap_err()
                .contains("Expected '*** Update File:'")
        );
        let unclosed =
            "*** Begin Patch\n*** Update File: a\n<<<<<<< SEARCH\nx\n=======\ny\n*** End Patch";
        assert!(
            parse(unclosed)
                .unwrap_err()
                .contains("missing its '>>>>>>> REPLACE'")
        );
        let only_adds = "*** Begin Patch\n*** Update File: a\n@@\n+new line\n*** End Patch";
        assert!(parse(only_adds).unwrap_err().contains("only adds lines"));
    }

    #[test]
    fn a_patch_applies_to_every_file() {
        let root = TempDir::new("codex-all");
        files(
            &root,
            &[("a.rs", "let a = 1;\nlet b = 2;\n"), ("gone.txt", "bye\n")],
        );
        let patch = "*** Begin Patch\n*** Update File: a.rs\n@@\n let a = 1;\n-let b = 2;\n+let b = 3;\n*** Add File: dir/new.rs\n+fn new() {}\n*** Delete File: gone.txt\n*** End Patch";
        let summary = apply(root.path(), &parse(patch).unwrap(), &|_, _| Ok(())).unwrap();
        assert_eq!(
            summary,
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
        let err = apply(root.path(), &parse(patch).unwrap(), &|_, _| Ok(())).unwrap_err();
        assert!(
            err.starts_with(
                "Patch not applied; no file was changed. Change 1 of 'two.txt': old_str not found"
            ),
            "{err}"
        );
        assert_eq!(read(&root, "one.txt"), "first version\n");
    }

    #[test]
    fn a_failed_write_restores_the_files_already_written() {
        let root = TempDir::new("codex-rollback");
        files(
            &root,
            &[
                ("a.txt", "a1\n"),
                ("old.txt", "bye\n"),
                ("doomed/b.txt", "b1\n"),
            ],
        );
        let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a1\n+a2\n*** Delete File: old.txt\n*** Add File: c.txt\n+c\n*** Update File: doomed/b.txt\n@@\n-b1\n+b2\n*** End Patch";
        let (staged, _) = stage(root.path(), &parse(patch).unwrap()).unwrap();
        // The last file's directory vanishes between staging and writing: its write fails.
        std::fs::remove_dir_all(root.path().join("doomed")).unwrap();
        let err = commit(&staged).unwrap_err();
        assert!(err.contains("were restored"), "{err}");
        assert_eq!(read(&root, "a.txt"), "a1\n");
        assert_eq!(read(&root, "old.txt"), "bye\n");
        assert!(!root.path().join("c.txt").exists());
    }

    #[test]
    fn a_move_carries_the_edited_text_and_removes_the_source() {
        let root = TempDir::new("codex-move");
        files(&root, &[("src/old_name.rs", "fn a() {}\n")]);
        let patch = "*** Begin Patch\n*** Update File: src/old_name.rs\n*** Move to: src/new_name.rs\n@@\n-fn a() {}\n+fn b() {}\n*** End Patch";
        assert_eq!(
            apply(root.path(), &parse(patch).unwrap(), &|_, _| Ok(())).unwrap(),
            "Applied the patch: moved src/old_name.rs to src/new_name.rs."
        );
        assert_eq!(read(&root, "src/new_name.rs"), "fn b() {}\n");
        assert!(!root.path().join("src/old_name.rs").exists());
    }

    #[test]
    fn adding_an_existing_file_is_refused() {
        let root = TempDir::new("codex-add");
        files(&root, &[("here.txt", "x")]);
        let patch = "*** Begin Patch\n*** Add File: here.txt\n+y\n*** End Patch";
        assert!(
            apply(root.path(), &parse(patch).unwrap(), &|_, _| Ok(()))
                .unwrap_err()
                .contains("already exists")
        );
    }
}
