//! Differential test against the real git: random small trees with random `.gitignore`,
//! `info/exclude` and `core.excludesFile` rules (fixed seeds, so every run sees the same
//! trees); our walk against `git ls-files --others --exclude-standard`, our verdict on every
//! path against `git check-ignore --no-index`.

// Checks against the real programs, run as a person would.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::conformance::check_ignore;
use super::{UserConfig, Visit, walk_with};
use crate::test_support::TempDir;

const TREES: u64 = 120;

/// Names with the bytes the rules treat specially: spaces (trailing too), a tab, `#`, `!`, glob
/// bytes, a backslash, a dot file, upper case and non-ASCII.
const NAMES: &[&str] = &[
    "a", "b", "ab", "ba", "abc", "a.txt", "b.log", "c.rs", "x y", "#h", "!n", "[s]", "q*", "w?",
    "bk\\", "tr ", "tab\t", "Up", "é", ".hid", "x-y", "2", "sub", "deep",
];

/// One segment of a pattern (between slashes).
fn segment(rng: &mut fastrand::Rng, anchored: bool) -> String {
    const SHAPES: &[&str] = &[
        "*",
        "**",
        "*.txt",
        "*.log",
        "a*",
        "*b",
        "?",
        "?b",
        "[ab]",
        "[!a]*",
        "[^b]",
        "[a-c]*",
        "[[:alpha:]]*",
        "[[:digit:]]",
        "[[:space:]]*",
        "[]a]*",
        "*[[:upper:]]*",
        "\\#h",
        "\\!n",
        "tr\\ ",
        "x\\ y",
        "\\[s]",
        "q\\*",
        "w\\?",
        "bk\\\\",
        "[[:punct:]]*",
        "*\\ *",
        "[",
    ];
    // Before git 2.52 (t0008 '** not confused by matching leading prefix'), `x**/y` after a
    // plain prefix was read as `x/**/y` in a pattern with a slash; git on CI machines may be
    // older, so a `**` inside a name is only drawn for patterns without a slash.
    const INSIDE: &[&str] = &["a**", "**b", "x**y"];
    match rng.u8(0..10) {
        0..4 => NAMES[rng.usize(..NAMES.len())].replace(['*', '?', '[', '\\'], "?"),
        4 if !anchored => INSIDE[rng.usize(..INSIDE.len())].to_string(),
        _ => SHAPES[rng.usize(..SHAPES.len())].to_string(),
    }
}

/// One line of an ignore file: comments, blanks, `!`, anchors, `/` inside and at the end,
/// and trailing spaces, escaped spaces, tabs and a lone `\`.
fn line(rng: &mut fastrand::Rng) -> String {
    match rng.u8(0..16) {
        0 => return "# a comment".into(),
        1 => return String::new(),
        2 => return "   ".into(),
        _ => {}
    }
    let parts = [1, 1, 1, 2, 2, 3][rng.usize(..6)];
    let lead = rng.u8(..5) == 0;
    let anchored = parts > 1 || lead;
    let mut line = String::new();
    if rng.u8(..5) == 0 {
        line.push('!');
    }
    if lead {
        line.push('/');
    }
    let segments: Vec<String> = (0..parts).map(|_| segment(rng, anchored)).collect();
    line.push_str(&segments.join("/"));
    if rng.u8(..4) == 0 {
        line.push('/');
    }
    line.push_str(["", "", "", " ", "  ", "\t", "\\ ", "\\"][rng.usize(..8)]);
    line
}

fn rules(rng: &mut fastrand::Rng) -> String {
    let count = rng.usize(1..6);
    (0..count).map(|_| line(rng) + "\n").collect()
}

/// A random tree under `top`: its directories and files, relative to `top`.
fn tree(rng: &mut fastrand::Rng, top: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut dirs, mut files) = (BTreeSet::new(), BTreeSet::new());
    for _ in 0..rng.usize(4..20) {
        let mut path = PathBuf::new();
        for _ in 0..rng.usize(0..4) {
            path.push(NAMES[rng.usize(..NAMES.len())]);
        }
        path.push(NAMES[rng.usize(..NAMES.len())]);
        let taken = |p: &Path| files.contains(p) || dirs.contains(p);
        if path.ancestors().skip(1).any(|d| files.contains(d)) || taken(&path) {
            continue;
        }
        let parent = path.parent().unwrap();
        dirs.extend(
            parent
                .ancestors()
                .filter(|d| !d.as_os_str().is_empty())
                .map(Path::to_path_buf),
        );
        std::fs::create_dir_all(top.join(parent)).unwrap();
        std::fs::write(top.join(&path), "x").unwrap();
        files.insert(path);
    }
    (dirs.into_iter().collect(), files.into_iter().collect())
}

/// One generated repository: its top, the home git is given, and whether `XDG_CONFIG_HOME`
/// is set (else git looks in `~/.config`).
pub(super) struct Repo {
    pub top: PathBuf,
    pub home: PathBuf,
    pub xdg: bool,
}

impl Repo {
    /// Runs git in `dir` with the repository's home and no system configuration; its stdout.
    pub(super) fn git(&self, dir: &Path, args: &[&str], input: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut command = Command::new("git");
        command
            .args(args)
            .current_dir(dir)
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_CONFIG_GLOBAL")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        if self.xdg {
            command.env("XDG_CONFIG_HOME", self.home.join("xdg"));
        } else {
            command.env_remove("XDG_CONFIG_HOME");
        }
        let mut child = command.spawn().expect("running git");
        child.stdin.take().unwrap().write_all(input).unwrap();
        let out = child.wait_with_output().unwrap();
        let ok = out.status.code().is_some_and(|c| c <= 1);
        assert!(ok, "git {args:?}: {out:?}");
        out.stdout
    }

    /// What our code is given: the same home.
    pub(super) fn user(&self) -> UserConfig {
        UserConfig {
            home: Some(self.home.clone()),
            xdg_config_home: self.xdg.then(|| self.home.join("xdg")),
            ..UserConfig::default()
        }
    }

    /// Writes random rules to `.gitignore` files, maybe `info/exclude`, and maybe the user's
    /// excludes file (named in the configuration, or the XDG default); the files written.
    fn write_rules(&self, rng: &mut fastrand::Rng, dirs: &[PathBuf]) -> Vec<PathBuf> {
        let mut written = Vec::new();
        let mut write = |path: PathBuf, rng: &mut fastrand::Rng| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, rules(rng)).unwrap();
            written.push(path);
        };
        for base in std::iter::once(&PathBuf::new()).chain(dirs) {
            if rng.u8(..3) != 0 {
                write(self.top.join(base).join(".gitignore"), rng);
            }
        }
        if rng.u8(..3) == 0 {
            write(self.top.join(".git/info/exclude"), rng);
        }
        match rng.u8(..4) {
            0 => {
                write(self.home.join("mine"), rng);
                let args = ["config", "core.excludesFile", "~/mine"];
                self.git(&self.top, &args, b"");
            }
            1 if self.xdg => write(self.home.join("xdg/git/ignore"), rng),
            1 => write(self.home.join(".config/git/ignore"), rng),
            _ => {}
        }
        written
    }

    /// Our walk from `start` against `git ls-files` run there; the difference, if any.
    fn compare_walk(&self, start: &Path) -> Option<String> {
        let args = ["ls-files", "-z", "-o", "--exclude-standard"];
        let theirs = nul_list(&self.git(&self.top.join(start), &args, b""));
        let ours = walked(&self.top.join(start), &self.user());
        let only = |a: &BTreeSet<Vec<u8>>, b: &BTreeSet<Vec<u8>>| {
            let paths = a
                .difference(b)
                .map(|p| String::from_utf8_lossy(p).into_owned());
            paths.collect::<Vec<_>>()
        };
        (theirs != ours).then(|| {
            format!(
                "walk of {start:?}: git only {:?}, ours only {:?}",
                only(&theirs, &ours),
                only(&ours, &theirs)
            )
        })
    }

    /// Our verdict on every path of the tree against `git check-ignore --no-index`.
    fn compare_paths(&self, dirs: &[PathBuf], files: &[PathBuf]) -> Vec<String> {
        let all = dirs.iter().map(|d| (d, true));
        let all: Vec<(&PathBuf, bool)> = all.chain(files.iter().map(|f| (f, false))).collect();
        let input: Vec<u8> = all
            .iter()
            .flat_map(|(p, _)| p.as_os_str().as_bytes().iter().copied().chain([0]))
            .collect();
        let args = ["check-ignore", "--no-index", "--stdin", "-z"];
        let theirs = nul_list(&self.git(&self.top, &args, &input));
        let user = self.user();
        all.iter()
            .filter_map(|(path, is_dir)| {
                let key = path.as_os_str().as_bytes();
                let ours = check_ignore(&self.top, &user, key, *is_dir);
                (ours != theirs.contains(key))
                    .then(|| format!("{:?}: git {}, ours {ours}", OsStr::from_bytes(key), !ours))
            })
            .collect()
    }
}

pub(super) fn nul_list(bytes: &[u8]) -> BTreeSet<Vec<u8>> {
    bytes
        .split(|&c| c == 0)
        .filter(|p| !p.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// The files our walk of `start` finds.
fn walked(start: &Path, user: &UserConfig) -> BTreeSet<Vec<u8>> {
    let mut found = BTreeSet::new();
    walk_with(start, user, &mut |entry| {
        if !entry.is_dir {
            found.insert(entry.path.as_os_str().as_bytes().to_vec());
        }
        Visit::Continue
    });
    found
}

/// Builds tree `seed` in `dir` and compares every path, the walk from the top and the walk
/// from one directory git does not ignore; a description of each disagreement.
fn compare(seed: u64, dir: &Path) -> Vec<String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let repo = Repo {
        top: dir.join("repo"),
        home: dir.join("home"),
        xdg: rng.bool(),
    };
    std::fs::create_dir_all(&repo.top).unwrap();
    repo.git(&repo.top, &["init", "-q", "--template="], b"");
    let (dirs, files) = tree(&mut rng, &repo.top);
    let sources = repo.write_rules(&mut rng, &dirs);
    let mut wrong = repo.compare_paths(&dirs, &files);
    let below = dirs.get(rng.usize(..dirs.len().max(1))).cloned();
    let below =
        below.filter(|d| !check_ignore(&repo.top, &repo.user(), d.as_os_str().as_bytes(), true));
    for start in std::iter::once(PathBuf::new()).chain(below) {
        wrong.extend(repo.compare_walk(&start));
    }
    if !wrong.is_empty() {
        for file in sources {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            wrong.push(format!("{}: {text:?}", file.display()));
        }
    }
    wrong
}

#[test]
fn random_trees_agree_with_git() {
    let dir = TempDir::new("ignore-differential");
    let mut agreed = 0;
    let mut failures = Vec::new();
    for seed in 0..TREES {
        let tree_dir = dir.path().join(seed.to_string());
        let wrong = compare(seed, &tree_dir);
        if wrong.is_empty() {
            agreed += 1;
            let _ = std::fs::remove_dir_all(&tree_dir);
        } else {
            failures.push(format!("seed {seed}:\n    {}", wrong.join("\n    ")));
        }
    }
    eprintln!("gitignore differential against git: {agreed}/{TREES} trees agree");
    for failure in failures.iter().take(5) {
        eprintln!("  {failure}");
    }
    assert_eq!(agreed, TREES, "trees that disagree with git");
}
