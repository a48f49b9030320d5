//! Where git works, found as git finds it but checked, then pinned with GIT_DIR and
//! GIT_WORK_TREE so that nothing in the repository can move it: the work tree is the directory
//! holding `.git`, which holds the working directory (a `core.worktree` in the repository's
//! configuration is overruled), and a `.git` file, `commondir` or object alternates may lead
//! outside it only the ways git itself makes them (a linked worktree git knows of, a
//! submodule of the enclosing repository).

use std::path::{Path, PathBuf};

/// The repository git is pinned to.
#[derive(Debug, PartialEq)]
pub(super) struct Pinned {
    /// GIT_DIR: the repository's own git directory.
    pub git_dir: PathBuf,
    /// GIT_WORK_TREE: the directory holding `.git`.
    pub work_tree: PathBuf,
    /// Where objects and refs are shared from (a linked worktree's main repository).
    pub common_dir: PathBuf,
}

pub(super) const NOT_A_REPOSITORY: &str = "The working directory is not inside a git repository; run `git init` with run_command to start one.";

/// The repository that holds `cwd`, checked.
pub(super) fn pin(cwd: &Path) -> Result<Pinned, String> {
    let cwd = std::fs::canonicalize(cwd).map_err(|e| format!("{}: {e}", cwd.display()))?;
    let (work_tree, git_dir) = find(&cwd)?.ok_or(NOT_A_REPOSITORY)?;
    let common_dir = common_dir(&work_tree, &git_dir)?;
    for objects in alternates(&common_dir) {
        let inside = objects.starts_with(&work_tree) || objects.starts_with(&common_dir);
        if !inside {
            return Err(format!(
                "The repository at {} borrows objects from {} (objects/info/alternates), outside it, so Marvin does not run git here. If you trust it, run git yourself, or make the repository whole with `git repack -a -d` and remove that file.",
                work_tree.display(),
                objects.display()
            ));
        }
    }
    Ok(Pinned {
        git_dir,
        work_tree,
        common_dir,
    })
}

/// The nearest directory at or above `cwd` with a `.git`, and its git directory.
fn find(cwd: &Path) -> Result<Option<(PathBuf, PathBuf)>, String> {
    for dir in cwd.ancestors() {
        let dot = dir.join(".git");
        let Ok(meta) = dot.symlink_metadata() else {
            continue;
        };
        let git_dir = if meta.is_dir() {
            dot
        } else if meta.is_file() {
            through_file(dir, &dot)?
        } else {
            let real =
                std::fs::canonicalize(&dot).map_err(|e| format!("{}: {e}", dot.display()))?;
            if !real.starts_with(dir) {
                return Err(outside(dir, &real, "is a symlink to"));
            }
            real
        };
        return Ok(Some((dir.to_path_buf(), git_dir)));
    }
    Ok(None)
}

/// The git directory a `.git` file names (`gitdir: PATH`), if it is the work tree's own, a
/// linked worktree's (whose git directory points back at this very file) or a submodule's
/// (kept in the `.git/modules` of a repository above).
fn through_file(dir: &Path, dot: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(dot).map_err(|e| format!("{}: {e}", dot.display()))?;
    let named = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|path| !path.is_empty())
        .ok_or_else(|| {
            format!(
                "{} is not a `gitdir: PATH` file git can use.",
                dot.display()
            )
        })?;
    let target = std::fs::canonicalize(dir.join(named)).map_err(|e| {
        format!(
            "{} names {named}, which git cannot open: {e}.",
            dot.display()
        )
    })?;
    if target.starts_with(dir) || linked_worktree(&target, dot) || submodule(&target, dir) {
        return Ok(target);
    }
    Err(outside(dir, &target, "has a .git file that sends git to"))
}

/// `git_dir` is a linked worktree's (`…/.git/worktrees/NAME`) whose `gitdir` file names `dot`.
fn linked_worktree(git_dir: &Path, dot: &Path) -> bool {
    let in_worktrees = git_dir
        .parent()
        .is_some_and(|parent| parent.file_name().is_some_and(|name| name == "worktrees"));
    let back = std::fs::read_to_string(git_dir.join("gitdir")).ok();
    let points_back = back
        .and_then(|back| std::fs::canonicalize(back.trim()).ok())
        .is_some_and(|back| std::fs::canonicalize(dot).is_ok_and(|dot| dot == back));
    in_worktrees && points_back
}

/// `git_dir` is kept in the `.git/modules` of a repository above `dir`.
fn submodule(git_dir: &Path, dir: &Path) -> bool {
    dir.ancestors().skip(1).any(|above| {
        let modules = above.join(".git").join("modules");
        above.join(".git").is_dir() && git_dir.starts_with(&modules)
    })
}

/// Where objects and refs come from: the git directory itself, or what its `commondir` names
/// when that is the main repository of a linked worktree (the directory above `worktrees/`).
fn common_dir(work_tree: &Path, git_dir: &Path) -> Result<PathBuf, String> {
    let Ok(text) = std::fs::read_to_string(git_dir.join("commondir")) else {
        return Ok(git_dir.to_path_buf());
    };
    let named = git_dir.join(text.trim());
    let real = std::fs::canonicalize(&named).map_err(|e| format!("{}: {e}", named.display()))?;
    let main = git_dir
        .parent()
        .filter(|parent| parent.file_name().is_some_and(|name| name == "worktrees"))
        .and_then(Path::parent);
    if real.starts_with(git_dir) || main == Some(real.as_path()) {
        return Ok(real);
    }
    Err(outside(
        work_tree,
        &real,
        "shares objects and refs (commondir) with",
    ))
}

/// The object directories `objects/info/alternates` adds, as real paths.
fn alternates(common_dir: &Path) -> Vec<PathBuf> {
    let objects = common_dir.join("objects");
    let Ok(text) = std::fs::read_to_string(objects.join("info/alternates")) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let path = objects.join(line);
            std::fs::canonicalize(&path).unwrap_or(path)
        })
        .collect()
}

fn outside(dir: &Path, target: &Path, how: &str) -> String {
    format!(
        "The repository at {} {how} {}, outside it (not a worktree or submodule git made), so Marvin does not run git here: it could read another repository or files outside this project. If you trust it, run git yourself.",
        dir.display(),
        target.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;
    use std::process::Command;

    #[allow(clippy::disallowed_methods)]
    fn git(dir: &Path, args: &[&str]) {
        let done = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .env_remove("GIT_DIR")
            .output()
            .unwrap();
        assert!(
            done.status.success(),
            "{:?}",
            String::from_utf8_lossy(&done.stderr)
        );
    }

    fn real(path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap()
    }

    #[test]
    fn a_plain_repository_is_pinned_from_a_subdirectory() {
        let dir = TempDir::new("pin-plain");
        git(dir.path(), &["init", "-q"]);
        std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
        let pinned = pin(&dir.path().join("src/deep")).unwrap();
        assert_eq!(pinned.work_tree, real(dir.path()));
        assert_eq!(pinned.git_dir, real(dir.path()).join(".git"));
        assert_eq!(pinned.common_dir, pinned.git_dir);
        let none = TempDir::new("pin-none");
        // A temp dir may itself lie in a repository: only assert when it does not.
        if find(&real(none.path())).unwrap().is_none() {
            assert_eq!(pin(none.path()).unwrap_err(), NOT_A_REPOSITORY);
        }
    }

    #[test]
    fn a_git_file_may_lead_only_to_a_worktree_or_submodule_git_made() {
        let dir = TempDir::new("pin-file");
        let main = dir.path().join("main");
        std::fs::create_dir(&main).unwrap();
        git(&main, &["init", "-q", "-b", "main"]);
        git(
            &main,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "one",
            ],
        );
        git(&main, &["worktree", "add", "-q", "../linked", "-b", "side"]);
        let linked = pin(&dir.path().join("linked")).unwrap();
        assert_eq!(linked.work_tree, real(&dir.path().join("linked")));
        assert_eq!(linked.common_dir, real(&main.join(".git")));

        let hostile = dir.path().join("hostile");
        std::fs::create_dir(&hostile).unwrap();
        std::fs::write(hostile.join(".git"), "gitdir: ../main/.git\n").unwrap();
        let refused = pin(&hostile).unwrap_err();
        assert!(
            refused.contains("has a .git file that sends git to"),
            "{refused}"
        );

        // A copied worktree's file names a git directory that points back elsewhere.
        let copy = dir.path().join("copy");
        std::fs::create_dir(&copy).unwrap();
        std::fs::copy(dir.path().join("linked/.git"), copy.join(".git")).unwrap();
        assert!(pin(&copy).is_err());
    }

    #[test]
    fn commondir_and_alternates_leading_outside_are_refused() {
        let dir = TempDir::new("pin-common");
        let (repo, other) = (dir.path().join("repo"), dir.path().join("other"));
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        git(&repo, &["init", "-q"]);
        git(&other, &["init", "-q"]);
        std::fs::write(
            repo.join(".git/objects/info/alternates"),
            format!("{}\n", other.join(".git/objects").display()),
        )
        .unwrap();
        assert!(pin(&repo).unwrap_err().contains("objects/info/alternates"));
        std::fs::remove_file(repo.join(".git/objects/info/alternates")).unwrap();
        std::fs::write(repo.join(".git/commondir"), "../../other/.git\n").unwrap();
        assert!(pin(&repo).unwrap_err().contains("commondir"));
    }
}
