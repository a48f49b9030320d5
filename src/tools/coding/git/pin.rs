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
    let realm = [git_dir.clone(), common_dir.clone(), work_tree.clone()];
    let mut seen = 0;
    links_stay_inside(&git_dir, &realm, &mut seen)?;
    if common_dir != git_dir {
        links_stay_inside(&common_dir, &realm, &mut seen)?;
    }
    alternates_stay_inside(&common_dir.join("objects"), &realm, 0)?;
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
/// (kept in the `.git/modules` of a repository above, its work tree this directory).
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
        .and_then(|back| std::fs::canonicalize(back.trim_end_matches(['\n', '\r'])).ok())
        .is_some_and(|back| std::fs::canonicalize(dot).is_ok_and(|dot| dot == back));
    in_worktrees && points_back
}

/// `git_dir` is kept in the `.git/modules` of a repository above `dir`, and its configuration
/// names `dir` as its work tree (as `git submodule` writes it).
fn submodule(git_dir: &Path, dir: &Path) -> bool {
    let kept_above = dir.ancestors().skip(1).any(|above| {
        let modules = above.join(".git").join("modules");
        above.join(".git").is_dir() && git_dir.starts_with(&modules)
    });
    let config = std::fs::read_to_string(git_dir.join("config")).unwrap_or_default();
    let back =
        core_worktree(&config).and_then(|tree| std::fs::canonicalize(git_dir.join(tree)).ok());
    kept_above && back.as_deref() == Some(dir)
}

/// `core.worktree` in the text of a git configuration file, as simple files write it.
fn core_worktree(config: &str) -> Option<String> {
    let mut in_core = false;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            in_core = line
                .trim_matches(['[', ']'])
                .trim()
                .eq_ignore_ascii_case("core");
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if in_core && key.trim().eq_ignore_ascii_case("worktree") {
            return Some(value.trim().trim_matches('"').to_string());
        }
    }
    None
}

/// Where objects and refs come from: the git directory itself, or what its `commondir` names
/// (read as git reads it: only line ends taken off) when that is the main repository of a
/// linked worktree (the directory above `worktrees/`).
fn common_dir(work_tree: &Path, git_dir: &Path) -> Result<PathBuf, String> {
    let Ok(text) = std::fs::read_to_string(git_dir.join("commondir")) else {
        return Ok(git_dir.to_path_buf());
    };
    let named = git_dir.join(text.trim_end_matches(['\n', '\r']));
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

/// The most entries of a git directory looked at for symlinks: a repository with more loose
/// objects than this needs `git gc` (which git runs itself past 6,700).
const MOST_ENTRIES: usize = 200_000;

/// Every symlink in `dir` (a git directory, looked through to the bottom) leads inside
/// `realm` (the git directories and the work tree): git follows them, so one to another
/// repository's objects or refs would read that repository.
fn links_stay_inside(dir: &Path, realm: &[PathBuf], seen: &mut usize) -> Result<(), String> {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in listing.flatten() {
        *seen += 1;
        if *seen > MOST_ENTRIES {
            return Err(format!(
                "The repository's git directory holds over {MOST_ENTRIES} files, too many to check for links out of it; ask the person to run `git gc` there."
            ));
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_symlink() {
            let target = std::fs::canonicalize(&path).ok();
            if !target
                .as_ref()
                .is_some_and(|t| realm.iter().any(|r| t.starts_with(r)))
            {
                return Err(format!(
                    "{} is a link {}, so Marvin does not run git here: git would read what it leads to. If the person trusts it, they can run git there themselves.",
                    path.display(),
                    target.map_or("that leads nowhere".to_string(), |t| format!(
                        "to {}, outside the repository",
                        t.display()
                    ))
                ));
            }
        } else if kind.is_dir() {
            links_stay_inside(&path, realm, seen)?;
        }
    }
    Ok(())
}

/// The object directories `objects/info/alternates` adds (read as git reads them: a line each,
/// C-quoted or as it is, `#` lines and blank ones skipped, relative to `objects`, and theirs
/// in turn, five deep as git goes) all lie inside `realm`; one that is not there is skipped,
/// as git skips it.
fn alternates_stay_inside(objects: &Path, realm: &[PathBuf], depth: usize) -> Result<(), String> {
    if depth > 5 {
        return Ok(());
    }
    let Ok(text) = std::fs::read_to_string(objects.join("info/alternates")) else {
        return Ok(());
    };
    for line in text
        .split('\n')
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let named = match line.strip_prefix('"') {
            Some(quoted) => unquote(quoted),
            None => line.to_string(),
        };
        let Ok(real) = std::fs::canonicalize(objects.join(&named)) else {
            continue;
        };
        if !realm.iter().any(|r| real.starts_with(r)) {
            return Err(format!(
                "The repository borrows objects from {} (objects/info/alternates), outside it, so Marvin does not run git here. If the person trusts it, they can run git there themselves, or make the repository whole with `git repack -a -d` and remove that file.",
                real.display()
            ));
        }
        alternates_stay_inside(&real, realm, depth + 1)?;
    }
    Ok(())
}

/// The rest of a C-quoted string after its opening quote, as git unquotes it (`\\`, `\"`,
/// `\n` and the like, three octal digits); what follows the closing quote is dropped.
fn unquote(quoted: &str) -> String {
    let mut bytes: Vec<u8> = Vec::new();
    let mut rest = quoted.bytes().peekable();
    while let Some(byte) = rest.next() {
        match byte {
            b'"' => break,
            b'\\' => {
                let Some(next) = rest.next() else { break };
                bytes.push(match next {
                    b'a' => 7,
                    b'b' => 8,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 11,
                    b'f' => 12,
                    b'r' => b'\r',
                    b'0'..=b'7' => {
                        let mut value = u32::from(next - b'0');
                        for _ in 0..2 {
                            if let Some(digit) = rest.next_if(|d| (b'0'..=b'7').contains(d)) {
                                value = value * 8 + u32::from(digit - b'0');
                            }
                        }
                        value as u8
                    }
                    other => other,
                });
            }
            other => bytes.push(other),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn outside(dir: &Path, target: &Path, how: &str) -> String {
    format!(
        "The repository at {} {how} {}, outside it (not a worktree or submodule git made), so Marvin does not run git here: it could read another repository or files outside this project. If the person trusts it, they can run git there themselves.",
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

    /// Two repositories side by side: `repo`, and `private` with one commit.
    fn two(tag: &str) -> (TempDir, PathBuf, PathBuf) {
        let dir = TempDir::new(tag);
        let (repo, private) = (
            real(dir.path()).join("repo"),
            real(dir.path()).join("private"),
        );
        for r in [&repo, &private] {
            std::fs::create_dir_all(r).unwrap();
            git(r, &["init", "-q"]);
        }
        (dir, repo, private)
    }

    #[test]
    fn links_in_the_git_directory_may_not_lead_out() {
        let (_dir, repo, private) = two("pin-links");
        std::fs::remove_dir_all(repo.join(".git/objects")).unwrap();
        std::os::unix::fs::symlink(private.join(".git/objects"), repo.join(".git/objects"))
            .unwrap();
        let refused = pin(&repo).unwrap_err();
        assert!(
            refused.contains("is a link to") && refused.contains("objects"),
            "{refused}"
        );
        // A link inside the repository is fine.
        std::fs::remove_file(repo.join(".git/objects")).unwrap();
        std::fs::create_dir(repo.join(".git/objects")).unwrap();
        std::os::unix::fs::symlink(repo.join(".git/HEAD"), repo.join(".git/ORIG_HEAD")).unwrap();
        assert!(pin(&repo).is_ok());
    }

    #[test]
    fn alternates_are_read_as_git_reads_them_and_followed() {
        let (_dir, repo, private) = two("pin-alternates");
        let info = repo.join(".git/objects/info");
        std::fs::create_dir_all(&info).unwrap();
        let quoted = format!("\"{}\"\n", private.join(".git/objects").display());
        std::fs::write(info.join("alternates"), &quoted).unwrap();
        assert!(pin(&repo).unwrap_err().contains("borrows objects from"));
        // One inside that borrows from outside in turn.
        let inner = repo.join("store/objects");
        std::fs::create_dir_all(inner.join("info")).unwrap();
        std::fs::write(
            info.join("alternates"),
            "../../store/objects\n# a comment\n\n",
        )
        .unwrap();
        assert!(pin(&repo).is_ok());
        std::fs::write(
            inner.join("info/alternates"),
            format!("{}\n", private.join(".git/objects").display()),
        )
        .unwrap();
        assert!(pin(&repo).unwrap_err().contains("borrows objects from"));
        // One that is not there is skipped, as git skips it.
        std::fs::write(info.join("alternates"), "/no/such/objects\n").unwrap();
        assert!(pin(&repo).is_ok());
    }

    #[test]
    fn commondir_keeps_what_git_keeps_of_it() {
        let (_dir, repo, private) = two("pin-commondir");
        // Git keeps the trailing space: `x ` is the link out, `x` a harmless directory.
        std::fs::create_dir(repo.join(".git/x")).unwrap();
        std::os::unix::fs::symlink(private.join(".git"), repo.join(".git/x ")).unwrap();
        std::fs::write(repo.join(".git/commondir"), "x \n").unwrap();
        assert!(pin(&repo).is_err());
    }

    #[test]
    fn a_submodule_must_name_its_own_work_tree() {
        let dir = TempDir::new("pin-submodule");
        let top = real(dir.path());
        git(&top, &["init", "-q"]);
        let modules = top.join(".git/modules");
        for name in ["lib", "other"] {
            std::fs::create_dir_all(top.join(name)).unwrap();
            git(
                &top,
                &["init", "-q", "--bare", &format!(".git/modules/{name}")],
            );
        }
        std::fs::write(
            modules.join("lib/config"),
            "[core]\n\tbare = false\n\tworktree = ../../../lib\n",
        )
        .unwrap();
        std::fs::write(top.join("lib/.git"), "gitdir: ../.git/modules/lib\n").unwrap();
        assert_eq!(pin(&top.join("lib")).unwrap().git_dir, modules.join("lib"));
        // A directory pointing at another submodule's git directory is not its submodule.
        std::fs::write(top.join("other/.git"), "gitdir: ../.git/modules/lib\n").unwrap();
        assert!(pin(&top.join("other")).is_err());
    }

    #[test]
    fn quoted_paths_are_unquoted_as_git_does() {
        for (quoted, plain) in [
            (r#"plain" rest"#, "plain"),
            (r#"a\"b""#, "a\"b"),
            (r#"tab\there""#, "tab\there"),
            (r#"\303\251t\303\251""#, "été"),
            (r#"back\\slash""#, "back\\slash"),
        ] {
            assert_eq!(unquote(quoted), plain, "{quoted}");
        }
    }
}
