//! Walking a directory tree the way git sees it: `.gitignore` files at every level (globs with
//! `*`, `?`, `[...]`, `**`, anchors, directory-only rules and `!` negation), `.git` skipped.

use std::fs;
use std::path::{Path, PathBuf};

/// Does `text` match the glob `pattern`? `*` and `?` stop at `/`; `**` crosses it.
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.first() {
        None => text.is_empty(),
        Some(b'*') if pattern.get(1) == Some(&b'*') => {
            let rest = &pattern[2..];
            // `**/` may also match no directory at all.
            if let Some(after_slash) = rest.strip_prefix(b"/") {
                if glob_match(after_slash, text) {
                    return true;
                }
            }
            (0..=text.len()).any(|i| glob_match(rest, &text[i..]))
        }
        Some(b'*') => {
            let rest = &pattern[1..];
            for i in 0..=text.len() {
                if glob_match(rest, &text[i..]) {
                    return true;
                }
                if text.get(i) == Some(&b'/') {
                    break;
                }
            }
            false
        }
        Some(b'?') => {
            text.first().is_some_and(|c| *c != b'/') && glob_match(&pattern[1..], &text[1..])
        }
        Some(b'[') => match (
            class_match(&pattern[1..], text.first().copied()),
            text.first(),
        ) {
            (Some((true, used)), Some(_)) => glob_match(&pattern[1 + used..], &text[1..]),
            (Some((false, _)), _) | (_, None) => false,
            (None, Some(c)) => *c == b'[' && glob_match(&pattern[1..], &text[1..]),
        },
        Some(b'\\') if pattern.len() > 1 => {
            text.first() == Some(&pattern[1]) && glob_match(&pattern[2..], &text[1..])
        }
        Some(c) => text.first() == Some(c) && glob_match(&pattern[1..], &text[1..]),
    }
}

/// Matches a `[...]` class (after the `[`): whether `c` is in it, and how many pattern bytes
/// it used including the `]`. `None` when the class is not closed.
fn class_match(class: &[u8], c: Option<u8>) -> Option<(bool, usize)> {
    let c = c?;
    let (negated, start) = match class.first() {
        Some(b'!' | b'^') => (true, 1),
        _ => (false, 0),
    };
    let mut i = start;
    let mut found = false;
    while i < class.len() {
        if class[i] == b']' && i > start {
            return Some((found != negated && c != b'/', i + 1));
        }
        if i + 2 < class.len() && class[i + 1] == b'-' && class[i + 2] != b']' {
            found |= (class[i]..=class[i + 2]).contains(&c);
            i += 3;
        } else {
            found |= class[i] == c;
            i += 1;
        }
    }
    None
}

/// One line of a .gitignore.
#[derive(Debug, Clone)]
struct Rule {
    pattern: String,
    negated: bool,
    dir_only: bool,
    /// Contains a `/`: matched against the path from the .gitignore's directory.
    anchored: bool,
}

fn parse_rules(text: &str) -> Vec<Rule> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                return None;
            }
            let (negated, line) = match line.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, line.strip_prefix("\\").unwrap_or(line)),
            };
            let (dir_only, line) = match line.strip_suffix('/') {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let anchored = line.contains('/');
            let pattern = line.strip_prefix('/').unwrap_or(line).to_string();
            (!pattern.is_empty()).then_some(Rule {
                pattern,
                negated,
                dir_only,
                anchored,
            })
        })
        .collect()
}

/// The rules of one directory, with that directory relative to the walk's root.
struct Level {
    base: PathBuf,
    rules: Vec<Rule>,
}

/// Whether `relative` (from the root) is ignored by the rules in `levels`; the last rule that
/// matches wins, deeper .gitignore files after shallower ones.
fn ignored(levels: &[Level], relative: &Path, is_dir: bool) -> bool {
    let mut verdict = false;
    for level in levels {
        let Ok(inside) = relative.strip_prefix(&level.base) else {
            continue;
        };
        let inside = inside.to_string_lossy();
        let name = relative
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        for rule in &level.rules {
            if rule.dir_only && !is_dir {
                continue;
            }
            let subject = if rule.anchored {
                inside.as_ref()
            } else {
                name.as_ref()
            };
            if glob_match(rule.pattern.as_bytes(), subject.as_bytes()) {
                verdict = !rule.negated;
            }
        }
    }
    verdict
}

/// An entry found by [`walk`].
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Relative to the walk's root.
    pub path: PathBuf,
    pub is_dir: bool,
    pub depth: usize,
}

/// What a visitor tells the walk.
#[derive(PartialEq)]
pub enum Visit {
    Continue,
    /// Do not go into this directory.
    Skip,
    Stop,
}

/// Visits the files and directories under `root` that git would not ignore, sorted by name
/// within each directory, directories before files. Symlinks are listed but not followed.
pub fn walk(root: &Path, visit: &mut dyn FnMut(&Entry) -> Visit) {
    let mut levels = Vec::new();
    walk_dir(root, Path::new(""), 0, &mut levels, visit);
}

fn walk_dir(
    root: &Path,
    relative: &Path,
    depth: usize,
    levels: &mut Vec<Level>,
    visit: &mut dyn FnMut(&Entry) -> Visit,
) -> bool {
    let dir = root.join(relative);
    let pushed = match fs::read_to_string(dir.join(".gitignore")) {
        Ok(text) => {
            levels.push(Level {
                base: relative.to_path_buf(),
                rules: parse_rules(&text),
            });
            true
        }
        Err(_) => false,
    };
    let mut entries: Vec<(bool, String)> = fs::read_dir(&dir)
        .map(|list| {
            list.filter_map(Result::ok)
                .map(|e| {
                    (
                        e.file_type().is_ok_and(|t| t.is_dir()),
                        e.file_name().to_string_lossy().into_owned(),
                    )
                })
                .filter(|(_, name)| name != ".git")
                .collect()
        })
        .unwrap_or_default();
    entries.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut keep_going = true;
    for (is_dir, name) in entries {
        let path = relative.join(&name);
        if ignored(levels, &path, is_dir) {
            continue;
        }
        let entry = Entry {
            path,
            is_dir,
            depth,
        };
        match visit(&entry) {
            Visit::Stop => {
                keep_going = false;
                break;
            }
            Visit::Skip => continue,
            Visit::Continue => {}
        }
        if is_dir && !walk_dir(root, &entry.path, depth + 1, levels, visit) {
            keep_going = false;
            break;
        }
    }
    if pushed {
        levels.pop();
    }
    keep_going
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn glob_cases() {
        let cases: &[(&str, &str, bool)] = &[
            ("*.rs", "main.rs", true),
            ("*.rs", "src/main.rs", false),
            ("src/*.rs", "src/main.rs", true),
            ("**/*.rs", "main.rs", true),
            ("**/*.rs", "a/b/main.rs", true),
            ("target/**", "target/debug/x", true),
            ("a/**/b", "a/b", true),
            ("a/**/b", "a/x/y/b", true),
            ("?.txt", "a.txt", true),
            ("?.txt", "ab.txt", false),
            ("[abc].md", "b.md", true),
            ("[!abc].md", "b.md", false),
            ("[a-c]x", "cx", true),
            ("\\*star", "*star", true),
            ("log", "log", true),
            ("*", "a/b", false),
        ];
        for (pattern, text, expected) in cases {
            assert_eq!(
                glob_match(pattern.as_bytes(), text.as_bytes()),
                *expected,
                "{pattern} ~ {text}"
            );
        }
    }

    #[test]
    fn walk_honours_gitignore_files_at_every_level() {
        let root = TempDir::new("ignore-walk");
        let dir = root.path();
        for path in [
            "src/main.rs",
            "src/gen/out.rs",
            "target/debug/app",
            "notes.log",
            "keep.log",
            "docs/a.md",
            "docs/b.tmp",
            ".git/HEAD",
            "node_modules/x/index.js",
        ] {
            let full = dir.join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, "x").unwrap();
        }
        fs::write(
            dir.join(".gitignore"),
            "# build output\n/target/\n*.log\n!keep.log\nnode_modules\n",
        )
        .unwrap();
        fs::write(dir.join("src/.gitignore"), "gen/\n").unwrap();
        fs::write(dir.join("docs/.gitignore"), "*.tmp\n").unwrap();
        let mut seen = Vec::new();
        walk(dir, &mut |entry| {
            seen.push(entry.path.to_string_lossy().into_owned());
            Visit::Continue
        });
        assert_eq!(
            seen,
            [
                "docs",
                "docs/.gitignore",
                "docs/a.md",
                "src",
                "src/.gitignore",
                "src/main.rs",
                ".gitignore",
                "keep.log"
            ]
        );
    }
}
