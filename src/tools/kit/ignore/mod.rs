//! Walking a directory tree the way git sees it: the repository's ignore rules
//! (`core.excludesFile`, `info/exclude`, the parents' `.gitignore` files) and the
//! `.gitignore` files at every level below, `.git` skipped.

mod class;
mod config;
mod glob;
mod repo;
mod rules;

#[cfg(test)]
mod conformance;
#[cfg(test)]
mod differential;
#[cfg(test)]
mod inside_ignored;

use std::fs;
use std::path::{Path, PathBuf};

use super::confined::{self, Refused};
pub(crate) use config::UserConfig;
pub(crate) use glob::Glob;
use rules::Rules;

/// An entry found by [`walk`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// Relative to the walk's root.
    pub path: PathBuf,
    pub is_dir: bool,
    pub depth: usize,
}

/// What a visitor tells the walk.
#[derive(PartialEq)]
pub(crate) enum Visit {
    Continue,
    /// Do not go into this directory.
    Skip,
    Stop,
}

/// Visits the files and directories under `root` that git would not ignore, sorted by name
/// within each directory, directories before files. Symlinks are listed but not followed.
/// `root` is walked even when it is, or is inside, a directory git ignores (where git calls
/// everything ignored): it was asked for by name, and ripgrep and fd search a path they are
/// given, which `code_grep` hands ripgrep when it can. The rules that match a path inside
/// apply as everywhere: the parents' (`*.o`), and the `.gitignore` files in and below `root`.
/// [`ignored_dir`] says when this happens, for the caller to tell.
pub(crate) fn walk(root: &Path, visit: &mut dyn FnMut(&Entry) -> Visit) {
    walk_with(root, &UserConfig::from_env(), visit);
}

/// [`walk`] with the user's git configuration found in `user`.
pub(crate) fn walk_with(root: &Path, user: &UserConfig, visit: &mut dyn FnMut(&Entry) -> Visit) {
    let start = repo::start(root, user);
    let mut walk = Walk {
        root,
        levels: start.levels,
        visit,
    };
    walk.dir(Path::new(""), &start.prefix, 0);
}

/// The directory at or above `root` that git ignores (the highest), when there is one: git
/// calls everything under it ignored, though [`walk`] lists it.
pub(crate) fn ignored_dir(root: &Path) -> Option<PathBuf> {
    repo::start(root, &UserConfig::from_env()).ignored_dir
}

/// Whether the last rule matching `path` (relative to the repository's top) ignores it; a
/// deeper file's rules come later in `levels` and win.
fn ignored(levels: &[Rules], path: &[u8], is_dir: bool) -> bool {
    levels
        .iter()
        .rev()
        .find_map(|rules| rules.decide(path, is_dir))
        .unwrap_or(false)
}

/// `parent/name` as the rules see it.
fn joined(parent: &[u8], name: &[u8]) -> Vec<u8> {
    let mut path = parent.to_vec();
    if !path.is_empty() {
        path.push(b'/');
    }
    path.extend_from_slice(name);
    path
}

struct Walk<'a> {
    root: &'a Path,
    levels: Vec<Rules>,
    visit: &'a mut dyn FnMut(&Entry) -> Visit,
}

impl Walk<'_> {
    /// Walks the directory `relative` (to the root; `key` to the repository's top): false when
    /// the visitor said stop.
    fn dir(&mut self, relative: &Path, key: &[u8], depth: usize) -> bool {
        let dir = self.root.join(relative);
        let pushed = match repo::gitignore(&dir, key) {
            Some(rules) => {
                self.levels.push(rules);
                true
            }
            None => false,
        };
        let keep_going = self.entries(&dir, relative, key, depth);
        if pushed {
            self.levels.pop();
        }
        keep_going
    }

    fn entries(&mut self, dir: &Path, relative: &Path, key: &[u8], depth: usize) -> bool {
        for (is_dir, name) in listing(dir) {
            let name_key = joined(key, name.as_encoded_bytes());
            if ignored(&self.levels, &name_key, is_dir) {
                continue;
            }
            let entry = Entry {
                path: relative.join(&name),
                is_dir,
                depth,
            };
            match (self.visit)(&entry) {
                Visit::Stop => return false,
                Visit::Skip => continue,
                Visit::Continue => {}
            }
            if is_dir && !self.dir(&entry.path, &name_key, depth + 1) {
                return false;
            }
        }
        true
    }
}

/// The entries of `dir` but `.git`, directories first, then by name.
fn listing(dir: &Path) -> Vec<(bool, std::ffi::OsString)> {
    let mut entries: Vec<(bool, std::ffi::OsString)> = fs::read_dir(dir)
        .map(|list| {
            list.filter_map(Result::ok)
                .map(|e| (e.file_type().is_ok_and(|t| t.is_dir()), e.file_name()))
                .filter(|(_, name)| name != ".git")
                .collect()
        })
        .unwrap_or_default();
    entries.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    entries
}

/// Why ripgrep must not read `path` as an ignore file: a symlink, or a FIFO or device.
fn unfit_ignore_file(path: &Path) -> Option<Refused> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.file_type().is_symlink() {
        return Some(Refused::Symlink);
    }
    confined::special(path)
}

/// The files ripgrep takes ignore rules from, in every directory it enters.
const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".rgignore"];

/// An ignore file that ripgrep would read when searching `dir` (in it, below it, or in a
/// directory above it up to `root`) and that is a symlink or not a regular file: ripgrep
/// follows the link (and quotes what it cannot parse, so a link to a file outside would show
/// that file), blocks on a FIFO, or reads a device without end, so the caller must not hand it
/// this tree.
pub(crate) fn odd_ignore_file(root: &Path, dir: &Path) -> Option<(PathBuf, Refused)> {
    let odd_in = |dir: &Path| {
        let mut names = IGNORE_FILES.map(|name| dir.join(name)).to_vec();
        names.push(dir.join(".git/info/exclude"));
        names
            .into_iter()
            .find_map(|path| unfit_ignore_file(&path).map(|refused| (path, refused)))
    };
    let mut found = dir
        .ancestors()
        .take_while(|above| above.starts_with(root))
        .find_map(odd_in);
    if found.is_none() {
        walk(dir, &mut |entry| {
            if entry.is_dir {
                found = odd_in(&dir.join(&entry.path));
            }
            if found.is_some() {
                Visit::Stop
            } else {
                Visit::Continue
            }
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn a_gitignore_that_is_a_fifo_is_skipped_and_reported() {
        let root = TempDir::new("ignore-fifo");
        let dir = root.path();
        fs::create_dir_all(dir.join("sub")).unwrap();
        fs::write(dir.join("sub/a.txt"), "x").unwrap();
        let fifo = std::ffi::CString::new(
            dir.join("sub/.gitignore")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let mut seen = Vec::new();
        walk(dir, &mut |entry| {
            seen.push(entry.path.to_string_lossy().into_owned());
            Visit::Continue
        });
        assert_eq!(seen, ["sub", "sub/.gitignore", "sub/a.txt"]);
        let (path, why) = odd_ignore_file(dir, dir).unwrap();
        assert_eq!(path, dir.join("sub/.gitignore"));
        assert!(why.to_string().contains("FIFO"), "{why}");
        fs::remove_file(dir.join("sub/.gitignore")).unwrap();
        assert!(odd_ignore_file(dir, &dir.join("sub")).is_none());
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

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests run programs as a person would
mod repo_tests {
    use super::*;
    use crate::test_support::TempDir;
    use std::process::Command;

    /// Runs git in `dir` with a home of its own: the real user's configuration is never read.
    pub(super) fn git(dir: &Path, home: &Path, args: &[&str]) -> Vec<u8> {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .expect("running git");
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "git {args:?}: {out:?}"
        );
        out.stdout
    }

    fn files(root: &Path, paths: &[&str]) {
        for path in paths {
            let full = root.join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, "x").unwrap();
        }
    }

    fn seen(root: &Path, user: &UserConfig) -> Vec<String> {
        let mut seen = Vec::new();
        walk_with(root, user, &mut |entry| {
            if !entry.is_dir {
                seen.push(entry.path.to_string_lossy().into_owned());
            }
            Visit::Continue
        });
        seen
    }

    fn user(home: &Path) -> UserConfig {
        UserConfig {
            home: Some(home.to_path_buf()),
            xdg_config_home: Some(home.join(".config")),
            ..UserConfig::default()
        }
    }

    #[test]
    fn a_walk_below_the_top_reads_the_parents_gitignore_files() {
        // Failed before: only the .gitignore files at and below the start were read.
        let dir = TempDir::new("ignore-parents");
        let (home, top) = (dir.path().join("home"), dir.path().join("repo"));
        files(
            &top,
            &[
                "sub/deep/a.log",
                "sub/deep/b.txt",
                "sub/deep/skip/c",
                "sub/deep/d",
            ],
        );
        git(&top, &home, &["init", "-q"]);
        fs::write(top.join(".gitignore"), "*.log\n/sub/deep/skip/\n").unwrap();
        fs::write(top.join("sub/.gitignore"), "d\n").unwrap();
        let walked = seen(&top.join("sub/deep"), &user(&home));
        assert_eq!(walked, ["b.txt"]);
        let listed = git(
            &top.join("sub/deep"),
            &home,
            &["ls-files", "-o", "--exclude-standard"],
        );
        assert_eq!(String::from_utf8_lossy(&listed), "b.txt\n");
    }

    #[test]
    fn info_exclude_and_the_excludes_file_are_read() {
        // Failed before: neither was read.
        let dir = TempDir::new("ignore-excludes");
        let (home, top) = (dir.path().join("home"), dir.path().join("repo"));
        files(&top, &["a.secret", "b.local", "c.mine", "d.txt", "e.local"]);
        files(&home, &[".config/git/ignore"]);
        git(&top, &home, &["init", "-q"]);
        fs::write(top.join(".git/info/exclude"), "*.local\n!e.local\n").unwrap();
        fs::write(home.join(".config/git/ignore"), "*.secret\n").unwrap();
        let expect = |walked: Vec<String>| {
            let listed = git(&top, &home, &["ls-files", "-o", "--exclude-standard"]);
            let listed: Vec<&str> = std::str::from_utf8(&listed).unwrap().lines().collect();
            assert_eq!(walked, listed);
        };
        let walked = seen(&top, &user(&home));
        assert_eq!(walked, ["c.mine", "d.txt", "e.local"]);
        expect(walked);
        fs::write(home.join("mine"), "*.mine\n").unwrap();
        let mine = home.join("mine");
        git(
            &top,
            &home,
            &["config", "core.excludesFile", mine.to_str().unwrap()],
        );
        let walked = seen(&top, &user(&home));
        assert_eq!(walked, ["a.secret", "d.txt", "e.local"]);
        expect(walked);
    }
}
