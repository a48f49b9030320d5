//! The rules of a sandbox as paths and rights, before the kernel sees them. Landlock only
//! allows (a right given on a directory holds for everything beneath it), so a secret store
//! inside a directory that is given is kept out by giving that directory's entries one by one,
//! all but the store; the directories on the way keep only the right to be listed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::landlock::fs;

/// `access` (Landlock file rights) beneath `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rule {
    pub path: PathBuf,
    pub access: u64,
}

impl Rule {
    pub(crate) fn new(path: impl Into<PathBuf>, access: u64) -> Self {
        Self {
            path: path.into(),
            access,
        }
    }
}

/// `grants` with every path of `denied` left out. A grant with a denied path strictly beneath
/// it becomes: listing the directory itself, and each of its entries (as `entries` lists
/// them, symlinks left out: what they point to is reached through its own directories)
/// granted the same way in turn, but the denied one. A grant at or inside a denied path was
/// asked for by name (the working directory, a user tool's own directory) and is kept.
pub(crate) fn carve(
    grants: &[Rule],
    denied: &[PathBuf],
    entries: &dyn Fn(&Path) -> Vec<OsString>,
) -> Vec<Rule> {
    let mut rules = Vec::new();
    for grant in grants {
        split(&grant.path, grant.access, denied, entries, &mut rules);
    }
    rules
}

fn split(
    path: &Path,
    access: u64,
    denied: &[PathBuf],
    entries: &dyn Fn(&Path) -> Vec<OsString>,
    rules: &mut Vec<Rule>,
) {
    let holds_a_store = denied
        .iter()
        .any(|store| store != path && store.starts_with(path));
    if !holds_a_store {
        rules.push(Rule::new(path, access));
        return;
    }
    if access & fs::READ_DIR != 0 {
        rules.push(Rule::new(path, fs::READ_DIR));
    }
    for name in entries(path) {
        let entry = path.join(name);
        if !denied.contains(&entry) {
            split(&entry, access, denied, entries, rules);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small tree: `/` holds `etc`, `home` and `tmp`; `/home/ann` holds `.ssh`, `.config`
    /// (with `gh` and `nvim`), `notes.txt` and `work`.
    fn entries(dir: &Path) -> Vec<OsString> {
        let names: &[&str] = match dir.to_str().unwrap() {
            "/" => &["etc", "home", "tmp"],
            "/home" => &["ann"],
            "/home/ann" => &[".ssh", ".config", "notes.txt", "work"],
            "/home/ann/.config" => &["gh", "nvim"],
            _ => &[],
        };
        names.iter().map(OsString::from).collect()
    }

    fn rules(list: &[(&str, u64)]) -> Vec<Rule> {
        list.iter().map(|(p, a)| Rule::new(*p, *a)).collect()
    }

    fn denied(list: &[&str]) -> Vec<PathBuf> {
        list.iter().map(PathBuf::from).collect()
    }

    const RW: u64 = fs::READ | fs::WRITE;

    #[test]
    fn grants_split_around_the_stores_beneath_them() {
        type Case = (&'static str, Vec<Rule>, Vec<PathBuf>, Vec<Rule>);
        let cases: &[Case] = &[
            (
                "nothing denied: as asked",
                rules(&[("/", fs::READ), ("/tmp", RW)]),
                vec![],
                rules(&[("/", fs::READ), ("/tmp", RW)]),
            ),
            (
                "reading everything but two stores",
                rules(&[("/", fs::READ)]),
                denied(&["/home/ann/.ssh", "/home/ann/.config/gh"]),
                rules(&[
                    ("/", fs::READ_DIR),
                    ("/etc", fs::READ),
                    ("/home", fs::READ_DIR),
                    ("/home/ann", fs::READ_DIR),
                    ("/home/ann/.config", fs::READ_DIR),
                    ("/home/ann/.config/nvim", fs::READ),
                    ("/home/ann/notes.txt", fs::READ),
                    ("/home/ann/work", fs::READ),
                    ("/tmp", fs::READ),
                ]),
            ),
            (
                "working in the home folder: its top gets no new entries",
                rules(&[("/home/ann", RW)]),
                denied(&["/home/ann/.ssh", "/home/ann/.config/gh"]),
                rules(&[
                    ("/home/ann", fs::READ_DIR),
                    ("/home/ann/.config", fs::READ_DIR),
                    ("/home/ann/.config/nvim", RW),
                    ("/home/ann/notes.txt", RW),
                    ("/home/ann/work", RW),
                ]),
            ),
            (
                "a grant inside or at a store was asked for by name",
                rules(&[("/home/ann/.config/gh", fs::READ), ("/home/ann/.ssh/x", RW)]),
                denied(&["/home/ann/.ssh", "/home/ann/.config/gh"]),
                rules(&[("/home/ann/.config/gh", fs::READ), ("/home/ann/.ssh/x", RW)]),
            ),
            (
                "a grant without listing keeps none on the way",
                rules(&[("/home", fs::WRITE_FILE)]),
                denied(&["/home/ann/.ssh"]),
                rules(&[
                    ("/home/ann/.config", fs::WRITE_FILE),
                    ("/home/ann/notes.txt", fs::WRITE_FILE),
                    ("/home/ann/work", fs::WRITE_FILE),
                ]),
            ),
        ];
        for (what, grants, denied, expected) in cases {
            assert_eq!(&carve(grants, denied, &entries), expected, "{what}");
        }
    }
}
