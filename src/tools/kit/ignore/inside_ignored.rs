//! Walks that start in a directory git ignores, checked with the real git: `ignored_dir` names
//! the directory where `git check-ignore` starts calling everything ignored, and the walk lists
//! what git lists once that directory is let in again (a `!/name/` line appended to its
//! parent's `.gitignore`): the rules that match the paths inside still apply.

// Checks against the real programs, run as a person would.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::differential::{Repo, nul_list};
use super::{Visit, repo, walk_with};
use crate::test_support::TempDir;

/// Files (each holding `x`), ignore files with their rules, and where walks start.
struct Layout {
    files: &'static [&'static str],
    rules: &'static [(&'static str, &'static str)],
    starts: &'static [&'static str],
}

const LAYOUTS: &[Layout] = &[
    // A build directory: a parent's rule for the files inside, a nested .gitignore.
    Layout {
        files: &[
            "src/main.rs",
            "target/debug/a.o",
            "target/debug/keep.txt",
            "target/debug/deps/d.rs",
            "target/debug/incremental/x.bin",
        ],
        rules: &[
            (".gitignore", "/target\n*.o\n"),
            ("target/debug/.gitignore", "deps/\n"),
        ],
        starts: &["target", "target/debug", "target/debug/incremental"],
    },
    // Ignored by info/exclude, with a .gitignore inside.
    Layout {
        files: &["build/x/y.txt", "build/x/z.log", "build/top.txt"],
        rules: &[
            (".git/info/exclude", "build/\n"),
            ("build/x/.gitignore", "*.log\n"),
        ],
        starts: &["build", "build/x"],
    },
    // Ignored by a subdirectory's .gitignore; a top rule for some files inside.
    Layout {
        files: &[
            "sub/cache/deep/a.txt",
            "sub/cache/deep/b.tmp",
            "sub/cache/c.txt",
        ],
        rules: &[(".gitignore", "*.tmp\n"), ("sub/.gitignore", "cache/\n")],
        starts: &["sub/cache", "sub/cache/deep"],
    },
    // A negation inside an ignored directory: git cannot let the file in, the walk does.
    Layout {
        files: &["out/keep.txt", "out/drop.txt", "out/logs/today.txt"],
        rules: &[(".gitignore", "/out\n!/out/keep.txt\nlogs\n")],
        starts: &["out"],
    },
    // An unanchored name ignores the same name deeper too.
    Layout {
        files: &[
            "node_modules/a/index.js",
            "node_modules/a/node_modules/b/index.js",
        ],
        rules: &[(".gitignore", "node_modules\n")],
        starts: &["node_modules/a"],
    },
    // A wildcard directory rule of a deeper .gitignore; a start two levels inside.
    Layout {
        files: &["a/bx/c/d.txt", "a/bx/c/e/f.txt", "a/bx/g.txt", "a/keep.txt"],
        rules: &[("a/.gitignore", "b*/\n")],
        starts: &["a/bx/c", "a/bx/c/e"],
    },
];

fn lay_out(dir: &Path, layout: &Layout) -> Repo {
    let repo = Repo {
        top: dir.join("repo"),
        home: dir.join("home"),
        xdg: false,
    };
    std::fs::create_dir_all(&repo.top).unwrap();
    repo.git(&repo.top, &["init", "-q", "--template="], b"");
    let entries = layout.files.iter().map(|f| (*f, "x"));
    for (path, text) in entries.chain(layout.rules.iter().copied()) {
        let path = repo.top.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    repo
}

/// The highest directory at or above `start` that `git check-ignore` calls ignored.
fn git_ignored_dir(repo: &Repo, start: &Path) -> Option<PathBuf> {
    let mut dir = PathBuf::new();
    for part in start.iter() {
        dir.push(part);
        let input = [dir.as_os_str().as_bytes(), b"/\0"].concat();
        let args = ["check-ignore", "--no-index", "--stdin", "-z"];
        if !repo.git(&repo.top, &args, &input).is_empty() {
            return Some(dir);
        }
    }
    None
}

/// Every file and directory under `start` (relative to the top), `.git` left out.
fn everything(top: &Path, start: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(top.join(start)).unwrap() {
        let path = start.join(entry.unwrap().file_name());
        if top.join(&path).is_dir() {
            found.extend(everything(top, &path));
        }
        found.push(path);
    }
    found
}

/// What git does not ignore under `start`, once every ignored directory above it is let in.
fn git_listing(repo: &Repo, start: &Path) -> BTreeSet<Vec<u8>> {
    while let Some(dir) = git_ignored_dir(repo, start) {
        let parent = repo.top.join(dir.parent().unwrap()).join(".gitignore");
        let mut rules = std::fs::read_to_string(&parent).unwrap_or_default();
        rules.push_str(&format!(
            "\n!/{}/\n",
            dir.file_name().unwrap().to_str().unwrap()
        ));
        std::fs::write(parent, rules).unwrap();
    }
    let all = everything(&repo.top, start);
    let input: Vec<u8> = all
        .iter()
        .flat_map(|p| p.as_os_str().as_bytes().iter().copied().chain([0]))
        .collect();
    let args = ["check-ignore", "--no-index", "--stdin", "-z"];
    let ignored = nul_list(&repo.git(&repo.top, &args, &input));
    let all = all.iter().map(|p| p.as_os_str().as_bytes().to_vec());
    all.filter(|p| !ignored.contains(p)).collect()
}

fn walked(repo: &Repo, start: &Path) -> BTreeSet<Vec<u8>> {
    let mut found = BTreeSet::new();
    walk_with(&repo.top.join(start), &repo.user(), &mut |entry| {
        found.insert(start.join(&entry.path).as_os_str().as_bytes().to_vec());
        Visit::Continue
    });
    found
}

#[test]
fn a_walk_inside_an_ignored_directory_lists_what_git_would_once_it_is_let_in() {
    let dir = TempDir::new("ignore-inside");
    let mut checked = 0;
    for (n, layout) in LAYOUTS.iter().enumerate() {
        for start in layout.starts {
            let case = dir.path().join(format!("{n}-{}", start.replace('/', "_")));
            let repo = lay_out(&case, layout);
            let top = std::fs::canonicalize(&repo.top).unwrap();
            let start = Path::new(start);
            let theirs = git_ignored_dir(&repo, start).map(|d| top.join(d));
            assert!(theirs.is_some(), "git ignores {start:?} in layout {n}");
            let ours = repo::start(&repo.top.join(start), &repo.user()).ignored_dir;
            assert_eq!(
                ours, theirs,
                "the ignored directory of {start:?}, layout {n}"
            );
            let ours = walked(&repo, start);
            let theirs = git_listing(&repo, start);
            let shown = |set: &BTreeSet<Vec<u8>>| -> Vec<String> {
                set.iter()
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .collect()
            };
            assert!(!ours.is_empty(), "the walk of {start:?} lists something");
            assert_eq!(
                shown(&ours),
                shown(&theirs),
                "walk of {start:?}, layout {n}"
            );
            checked += 1;
        }
    }
    eprintln!("walks inside ignored directories agree with git: {checked}/{checked}");
}

#[test]
fn a_walk_outside_ignored_directories_has_none_to_name() {
    let dir = TempDir::new("ignore-inside-none");
    let repo = lay_out(dir.path(), &LAYOUTS[0]);
    for start in ["", "src"] {
        assert_eq!(
            repo::start(&repo.top.join(start), &repo.user()).ignored_dir,
            None
        );
        assert_eq!(git_ignored_dir(&repo, Path::new(start)), None);
    }
}
