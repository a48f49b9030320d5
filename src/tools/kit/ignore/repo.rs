//! The rules that apply before a walk reads its own `.gitignore` files, found as git finds
//! them: the nearest repository (a `.git` directory, or a `.git` file naming one), then
//! `core.excludesFile`, `info/exclude`, and the `.gitignore` of every directory from the
//! repository's top down to the walk's start.

use std::path::{Path, PathBuf};

use super::config::UserConfig;
use super::rules::Rules;
use crate::tools::kit::confined;

/// The biggest ignore file read; the rest of a larger one is ignored.
const IGNORE_FILE_LIMIT: u64 = 1024 * 1024;

/// Where a walk starts, as the rules see it.
#[derive(Debug, Default)]
pub(crate) struct Start {
    /// Lowest priority first: `core.excludesFile`, `info/exclude`, then the parents'
    /// `.gitignore` files from the top down.
    pub levels: Vec<Rules>,
    /// The start relative to the repository's top (empty at the top, or outside a repository).
    pub prefix: Vec<u8>,
    /// The directory at or above the start (the highest one) that git ignores, where git stops
    /// looking: it calls everything under it ignored.
    pub ignored_dir: Option<PathBuf>,
}

/// The rules a walk of `root` starts with. Outside a repository there are none: only the
/// `.gitignore` files the walk meets count, as ripgrep's `--no-require-git` reads them.
pub(crate) fn start(root: &Path, user: &UserConfig) -> Start {
    let Some(start) = std::fs::canonicalize(root).ok() else {
        return Start::default();
    };
    let Some((top, git_dir)) = find(&start) else {
        return Start::default();
    };
    let common = common_dir(&git_dir);
    let mut levels = Vec::new();
    // Like git, these two are read through symlinks; a FIFO or device is still refused.
    let follow = |path: &Path| confined::read_any(path, IGNORE_FILE_LIMIT);
    if let Some(file) = user.excludes_file(Some(&common), &top) {
        levels.extend(follow(&file).map(|(text, _)| Rules::parse(Vec::new(), &text)));
    }
    let exclude = common.join("info/exclude");
    levels.extend(follow(&exclude).map(|(text, _)| Rules::parse(Vec::new(), &text)));
    let mut dir = top.clone();
    let mut base = Vec::new();
    let mut ignored_dir = None;
    for part in start.strip_prefix(&top).unwrap_or(Path::new("")).iter() {
        levels.extend(gitignore(&dir, &base));
        dir.push(part);
        if !base.is_empty() {
            base.push(b'/');
        }
        base.extend_from_slice(part.as_encoded_bytes());
        if ignored_dir.is_none() && super::ignored(&levels, &base, true) {
            ignored_dir = Some(dir.clone());
        }
    }
    Start {
        levels,
        prefix: base,
        ignored_dir,
    }
}

/// The rules of `dir`'s `.gitignore`, matched below `base`. Like git, a `.gitignore` that is a
/// symlink, FIFO or device is not read.
pub(crate) fn gitignore(dir: &Path, base: &[u8]) -> Option<Rules> {
    let (text, _) = confined::read_entry(&dir.join(".gitignore"), IGNORE_FILE_LIMIT).ok()?;
    Some(Rules::parse(base.to_vec(), &text))
}

/// The repository `start` is in: its top and its git directory.
fn find(start: &Path) -> Option<(PathBuf, PathBuf)> {
    start.ancestors().find_map(|dir| {
        let dot_git = dir.join(".git");
        let meta = std::fs::metadata(&dot_git).ok()?;
        if meta.is_dir() {
            return Some((dir.to_path_buf(), dot_git));
        }
        // A worktree or submodule: `.git` is a file saying `gitdir: <path>`.
        let (text, _) = confined::read_any(&dot_git, 64 * 1024).ok()?;
        let text = String::from_utf8(text).ok()?;
        let named = text.strip_prefix("gitdir:")?.trim();
        Some((dir.to_path_buf(), dir.join(named)))
    })
}

/// Where a git directory keeps what all its worktrees share (`info/exclude`, `config`): the
/// directory its `commondir` file names, or itself.
fn common_dir(git_dir: &Path) -> PathBuf {
    match confined::read_any(&git_dir.join("commondir"), 64 * 1024) {
        Ok((text, _)) => git_dir.join(String::from_utf8_lossy(&text).trim()),
        Err(_) => git_dir.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn a_worktree_shares_its_main_repositorys_exclude_file() {
        let dir = TempDir::new("ignore-worktree");
        let main = dir.path().join("main");
        let wt = dir.path().join("wt");
        std::fs::create_dir_all(main.join(".git/info")).unwrap();
        std::fs::create_dir_all(main.join(".git/worktrees/wt")).unwrap();
        std::fs::create_dir_all(wt.join("sub")).unwrap();
        std::fs::write(main.join(".git/info/exclude"), "secret\n").unwrap();
        std::fs::write(main.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
        let named = format!("gitdir: {}\n", main.join(".git/worktrees/wt").display());
        std::fs::write(wt.join(".git"), named).unwrap();
        std::fs::write(wt.join(".gitignore"), "*.log\n").unwrap();
        let user = UserConfig::default();
        let start = start(&wt.join("sub"), &user);
        assert_eq!(start.prefix, b"sub");
        assert_eq!(start.levels.len(), 2);
        assert_eq!(start.levels[0].decide(b"sub/secret", false), Some(true));
        assert_eq!(start.levels[1].decide(b"sub/a.log", false), Some(true));
    }
}
