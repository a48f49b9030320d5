//! A refusal by the kernel, told to the model as a sentence. A confined program only says
//! "Permission denied"; the paths it names are looked at from Marvin's side, unconfined: one
//! Marvin could write (or read, in a secret store) was refused by the sandbox, and the model
//! hears why and what to do instead of trying again.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use super::{Mode, Paths, Policy, stores};

/// The most refusals explained for one run.
const MOST: usize = 3;

/// Sentences for what the sandbox refused in `output` of a program run in `cwd` with `paths`,
/// or `None` when nothing in it was the sandbox's doing.
pub(crate) fn explain(output: &str, cwd: &Path, policy: &Policy, paths: &Paths) -> Option<String> {
    if policy.mode == Mode::Off {
        return None;
    }
    let stores = policy.stores();
    let roots = policy.writable_roots(paths);
    let mut said: Vec<String> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for line in output.lines().filter(|line| refused(line)) {
        for shown in candidates(line) {
            let path = absolute(cwd, &shown, policy.user_home.as_deref());
            if seen.contains(&path) || said.len() == MOST {
                continue;
            }
            seen.push(path.clone());
            if let Some(sentence) = judge(&shown, &path, policy, &stores, &roots) {
                said.push(sentence);
            }
        }
    }
    (!said.is_empty()).then(|| said.join("\n"))
}

/// Whether a line reports a refused access.
fn refused(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.contains("permission denied") || lower.contains("eacces")
}

/// The paths a refusal line names: quoted ones, else the word before ": Permission denied"
/// (`bash: ../x: Permission denied`).
fn candidates(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’'), ('`', '\'')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            found.push(after[..end].to_string());
            rest = &after[end + close.len_utf8()..];
        }
    }
    if found.is_empty() {
        let lower = line.to_ascii_lowercase();
        if let Some(at) = lower.find(": permission denied") {
            let before = &line[..at];
            let word = before.rsplit(": ").next().unwrap_or(before);
            found.push(word.trim().to_string());
        }
    }
    found.retain(|word| !word.is_empty() && word.len() < 4096 && !word.contains('\n'));
    found
}

/// `shown` as an absolute path from `cwd`, `~` expanded, `.` and `..` resolved in its words,
/// then through the real path of the deepest part that exists.
fn absolute(cwd: &Path, shown: &str, home: Option<&Path>) -> PathBuf {
    let joined = match (shown.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => cwd.join(shown),
    };
    let mut path = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                path.pop();
            }
            Component::CurDir => {}
            other => path.push(other),
        }
    }
    let mut tail = Vec::new();
    let mut head = path.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(head) {
            return tail
                .iter()
                .rev()
                .fold(real, |p: PathBuf, part| p.join(part));
        }
        match (head.file_name(), head.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name.to_os_string());
                head = parent;
            }
            _ => return path,
        }
    }
}

/// The sentence for one refused path, when the refusal was the sandbox's.
fn judge(
    shown: &str,
    path: &Path,
    policy: &Policy,
    stores: &[PathBuf],
    roots: &[PathBuf],
) -> Option<String> {
    if let Some(store) = stores::holding(stores, path) {
        return may(path, libc::R_OK).then(|| format!(
            "The sandbox refused to reach {shown}: it is in {}, one of the person's secret stores, which no program Marvin starts may read or change. If it is needed, ask the person to do it themselves.",
            store.display()
        ));
    }
    if !may_write(path) {
        return None; // the file's own permissions refused it, not the sandbox
    }
    if policy.mode == Mode::ReadOnly {
        return Some(format!(
            "The sandbox refused to write {shown}: with --sandbox read-only, programs write nowhere. Ask the person to run it themselves, or to use --sandbox workspace."
        ));
    }
    let inside = roots.iter().find(|root| path.starts_with(root));
    match inside {
        None => Some(format!(
            "The sandbox refused to write {shown}: it is outside the working directory{}. Ask the person to run it themselves, to let programs write there (MARVIN_SANDBOX_WRITE), or to use --sandbox off.",
            roots
                .first()
                .map(|root| format!(" ({})", root.display()))
                .unwrap_or_default()
        )),
        Some(root) => {
            let parent = path.parent()?;
            let store = stores.iter().find(|store| store.starts_with(parent))?;
            Some(format!(
                "The sandbox refused to add or remove {shown}: {} holds a secret store ({}), so programs may change the files in it but not add or remove entries there. Work in a subdirectory of {}, or ask the person to run it themselves.",
                parent.display(),
                store.display(),
                root.display()
            ))
        }
    }
}

/// Whether Marvin itself may write `path`, or create it when it is not there.
fn may_write(path: &Path) -> bool {
    if path.symlink_metadata().is_ok() {
        return may(path, libc::W_OK);
    }
    path.parent().is_some_and(|parent| may(parent, libc::W_OK))
}

fn may(path: &Path, mode: libc::c_int) -> bool {
    let Ok(name) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access(2) on a NUL-terminated path.
    unsafe { libc::access(name.as_ptr(), mode) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_paths_are_found_as_programs_print_them() {
        let cases: &[(&str, &[&str])] = &[
            ("touch: cannot touch '../x': Permission denied", &["../x"]),
            ("bash: ../x: Permission denied", &["../x"]),
            (
                "cat: /home/a/.ssh/id_rsa: Permission denied",
                &["/home/a/.ssh/id_rsa"],
            ),
            (
                "PermissionError: [Errno 13] Permission denied: '/etc/x'",
                &["/etc/x"],
            ),
            (
                "Error: EACCES: permission denied, open '/srv/out.txt'",
                &["/srv/out.txt"],
            ),
            (
                "mkdir: cannot create directory ‘/opt/y’: Permission denied",
                &["/opt/y"],
            ),
            ("Permission denied", &[]),
        ];
        for (line, expected) in cases {
            assert!(refused(line), "{line}");
            assert_eq!(candidates(line), *expected, "{line}");
        }
        assert!(!refused("all went well"));
    }

    #[test]
    fn paths_are_resolved_from_the_working_directory_and_home() {
        let dir = crate::test_support::TempDir::new("refusal-abs");
        let real = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(real.join("work")).unwrap();
        let cwd = real.join("work");
        assert_eq!(absolute(&cwd, "../x", None), real.join("x"));
        assert_eq!(absolute(&cwd, "./a/../b", None), cwd.join("b"));
        assert_eq!(
            absolute(&cwd, "/etc/./passwd", None),
            PathBuf::from("/etc/passwd")
        );
        assert_eq!(absolute(&cwd, "~/k", Some(&real)), real.join("k"));
    }

    #[test]
    fn only_what_marvin_could_do_itself_is_called_the_sandbox_s() {
        let dir = crate::test_support::TempDir::new("refusal-judge");
        let real = std::fs::canonicalize(dir.path()).unwrap();
        let (home, work) = (real.join("home"), real.join("home/work"));
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "key").unwrap();
        let policy = Policy {
            mode: Mode::Workspace,
            user_home: Some(home.clone()),
            temp_dir: real.join("tmp"),
            ..Policy::default()
        };
        let paths = Paths::writing(&work);
        let said = |output: &str| explain(output, &work, &policy, &paths);
        let outside = said("touch: cannot touch '../x': Permission denied").unwrap();
        assert_eq!(
            outside,
            format!(
                "The sandbox refused to write ../x: it is outside the working directory ({}). Ask the person to run it themselves, to let programs write there (MARVIN_SANDBOX_WRITE), or to use --sandbox off.",
                work.display()
            )
        );
        let secret = said("cat: ~/.ssh/id_rsa: Permission denied").unwrap();
        assert!(
            secret.contains("one of the person's secret stores"),
            "{secret}"
        );
        let at_top = explain(
            "touch: cannot touch 'new.txt': Permission denied",
            &home,
            &policy,
            &Paths::writing(&home),
        )
        .unwrap();
        assert!(at_top.contains("holds a secret store"), "{at_top}");
        // Inside the working directory: the file's own permissions, not the sandbox.
        assert_eq!(said("cat: inside.txt: Permission denied"), None);
        // Never something Marvin could not do either (unless this runs as root).
        if unsafe { libc::geteuid() } != 0 {
            assert_eq!(said("cat: /etc/shadow: Permission denied"), None);
        }
        let read_only = Policy {
            mode: Mode::ReadOnly,
            ..policy.clone()
        };
        let inside = explain(
            "touch: cannot touch 'out.txt': Permission denied",
            &work,
            &read_only,
            &paths,
        )
        .unwrap();
        assert!(inside.contains("--sandbox read-only"), "{inside}");
        let off = Policy {
            mode: Mode::Off,
            ..policy
        };
        assert_eq!(
            explain(
                "touch: cannot touch '../x': Permission denied",
                &work,
                &off,
                &paths
            ),
            None
        );
    }
}
