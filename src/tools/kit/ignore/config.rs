//! `core.excludesFile` read from git's configuration files without running git: the system,
//! global and repository files in git's order, `[include] path` followed, the value unquoted
//! and `~/` expanded as `git config --path` does.

use std::path::{Path, PathBuf};

use crate::tools::kit::confined;

/// The biggest configuration file read; a larger one is skipped.
const CONFIG_LIMIT: u64 = 1024 * 1024;
/// How deep `[include]` may nest (git stops at 10 too).
const INCLUDE_DEPTH: usize = 10;

/// Where git looks for the user's configuration: from the environment in a real run, from a
/// temporary directory in tests (which never read the real user's files).
#[derive(Debug, Clone, Default)]
pub(crate) struct UserConfig {
    pub home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    /// `/etc/gitconfig`, `GIT_CONFIG_SYSTEM`, or none with `GIT_CONFIG_NOSYSTEM`.
    pub system: Option<PathBuf>,
    /// `GIT_CONFIG_GLOBAL`: the one global file, instead of the two usual ones.
    pub global: Option<PathBuf>,
}

impl UserConfig {
    pub(crate) fn from_env() -> UserConfig {
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
        let system = match (var("GIT_CONFIG_NOSYSTEM"), var("GIT_CONFIG_SYSTEM")) {
            (Some(_), _) => None,
            (None, Some(path)) => Some(PathBuf::from(path)),
            (None, None) => Some(PathBuf::from("/etc/gitconfig")),
        };
        UserConfig {
            home: var("HOME").map(PathBuf::from),
            xdg_config_home: var("XDG_CONFIG_HOME").map(PathBuf::from),
            system,
            global: var("GIT_CONFIG_GLOBAL").map(PathBuf::from),
        }
    }

    /// `$XDG_CONFIG_HOME/git/<name>`, or `~/.config/git/<name>` without it.
    pub(crate) fn xdg_git(&self, name: &str) -> Option<PathBuf> {
        match (&self.xdg_config_home, &self.home) {
            (Some(xdg), _) => Some(xdg.join("git").join(name)),
            (None, Some(home)) => Some(home.join(".config/git").join(name)),
            (None, None) => None,
        }
    }

    /// The configuration files in the order git reads them (a later value wins).
    fn files(&self, common_dir: Option<&Path>) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self.system.iter().cloned().collect();
        match &self.global {
            Some(global) => files.push(global.clone()),
            None => {
                files.extend(self.xdg_git("config"));
                files.extend(self.home.as_ref().map(|home| home.join(".gitconfig")));
            }
        }
        files.extend(common_dir.map(|dir| dir.join("config")));
        files
    }

    /// The ignore file git reads for everyone's repositories: `core.excludesFile` (a relative
    /// path counts from `top`), or `$XDG_CONFIG_HOME/git/ignore` when it is not set. `None`
    /// when it is set empty.
    pub(crate) fn excludes_file(&self, common_dir: Option<&Path>, top: &Path) -> Option<PathBuf> {
        let mut value = None;
        for file in self.files(common_dir) {
            self.read(&file, 0, &mut value);
        }
        match value {
            None => self.xdg_git("ignore"),
            Some(value) if value.is_empty() => None,
            Some(value) => Some(top.join(self.expand(&value)?)),
        }
    }

    /// Reads `core.excludesFile` from `file` and the files it includes into `value`.
    fn read(&self, file: &Path, depth: usize, value: &mut Option<String>) {
        let Ok((bytes, _)) = confined::read_any(file, CONFIG_LIMIT) else {
            return;
        };
        let mut section = String::new();
        for line in logical_lines(&String::from_utf8_lossy(&bytes)) {
            let Some((key, found)) = entry(&line, &mut section) else {
                continue;
            };
            if key == "core.excludesfile" {
                *value = Some(found);
            } else if key == "include.path" && depth < INCLUDE_DEPTH {
                let Some(path) = self.expand(&found) else {
                    continue;
                };
                let included = file.parent().unwrap_or(Path::new("/")).join(path);
                self.read(&included, depth + 1, value);
            }
        }
    }

    /// `~/x` is `x` in the home directory; `~user/` and `%(prefix)/` are not followed.
    fn expand(&self, path: &str) -> Option<PathBuf> {
        match path.strip_prefix("~/") {
            Some(rest) => Some(self.home.as_ref()?.join(rest)),
            None if path.starts_with('~') || path.starts_with("%(") => None,
            None => Some(PathBuf::from(path)),
        }
    }
}

/// The lines of a configuration file with `\`-newline continuations joined.
fn logical_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut pending = String::new();
    for raw in text.lines() {
        match raw.strip_suffix('\\').filter(|head| !head.ends_with('\\')) {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(raw);
                lines.push(std::mem::take(&mut pending));
            }
        }
    }
    if !pending.is_empty() {
        lines.push(pending);
    }
    lines
}

/// The `section.key` (lowercase) and value a line sets, after updating `section` from any
/// `[section]` header on it. A key without `=` is `true`, as git reads it.
fn entry(line: &str, section: &mut String) -> Option<(String, String)> {
    let mut rest = line.trim_start();
    if let Some(header) = rest.strip_prefix('[') {
        let end = header.find(']')?;
        let name = header[..end].split(['"', ' ', '\t']).next().unwrap_or("");
        *section = name.trim().to_ascii_lowercase();
        rest = header[end + 1..].trim_start();
    }
    if rest.is_empty() || rest.starts_with(['#', ';']) {
        return None;
    }
    let name_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(rest.len());
    let key = format!("{section}.{}", rest[..name_end].to_ascii_lowercase());
    let after = rest[name_end..].trim_start();
    match after.strip_prefix('=') {
        Some(value) => Some((key, unquote(value))),
        None if after.is_empty() || after.starts_with(['#', ';']) => Some((key, "true".into())),
        None => None,
    }
}

/// A value as git reads it: surrounding blanks dropped, blanks inside kept as spaces, `"..."`
/// keeps them as they are, `\n \t \b \" \\` escapes, and `#` or `;` outside quotes ends it.
fn unquote(value: &str) -> String {
    let mut out = String::new();
    let (mut quoted, mut spaces) = (false, 0usize);
    let mut chars = value.trim_start().chars();
    while let Some(c) = chars.next() {
        if c.is_ascii_whitespace() && !quoted {
            spaces += usize::from(!out.is_empty());
            continue;
        }
        if !quoted && (c == '#' || c == ';') {
            break;
        }
        out.extend(std::iter::repeat_n(' ', std::mem::take(&mut spaces)));
        match c {
            '"' => quoted = !quoted,
            '\\' => out.push(match chars.next() {
                Some('n') => '\n',
                Some('t') => '\t',
                Some('b') => '\u{8}',
                Some(other) => other,
                None => break,
            }),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    fn user(home: &Path) -> UserConfig {
        UserConfig {
            home: Some(home.to_path_buf()),
            ..UserConfig::default()
        }
    }

    #[test]
    fn values_are_read_as_git_reads_them() {
        let cases: &[(&str, &str)] = &[
            (" /a/b ", "/a/b"),
            ("\"~/x y\" # note", "~/x y"),
            ("a  b\t; c", "a  b"),
            ("\"a\\\"b\\\\c\"", "a\"b\\c"),
            ("x\\ty", "x\ty"),
        ];
        for (raw, value) in cases {
            assert_eq!(unquote(raw), *value, "{raw}");
        }
    }

    #[test]
    fn the_last_setting_wins_across_files_and_includes() {
        let dir = TempDir::new("ignore-config");
        let home = dir.path();
        std::fs::create_dir_all(home.join("repo/.git")).unwrap();
        std::fs::write(
            home.join(".gitconfig"),
            "[Core]\n\texcludesFile = ~/first\n[include]\n\tpath = extra.inc\n",
        )
        .unwrap();
        std::fs::write(
            home.join("extra.inc"),
            "[core]\nEXCLUDESFILE = \"~/from include\"\n",
        )
        .unwrap();
        let top = home.join("repo");
        assert_eq!(
            user(home).excludes_file(Some(&top.join(".git")), &top),
            Some(home.join("from include"))
        );
        std::fs::write(
            top.join(".git/config"),
            "[core]\n\tbare = false\n[core] excludesfile = rel/ignore ; here\n",
        )
        .unwrap();
        assert_eq!(
            user(home).excludes_file(Some(&top.join(".git")), &top),
            Some(top.join("rel/ignore"))
        );
        std::fs::write(top.join(".git/config"), "[core]\nexcludesFile =\n").unwrap();
        assert_eq!(
            user(home).excludes_file(Some(&top.join(".git")), &top),
            None
        );
    }

    #[test]
    fn without_a_setting_the_xdg_file_is_used() {
        let dir = TempDir::new("ignore-xdg");
        let home = dir.path();
        assert_eq!(
            user(home).excludes_file(None, home),
            Some(home.join(".config/git/ignore"))
        );
        let xdg = UserConfig {
            xdg_config_home: Some(home.join("xdg")),
            ..user(home)
        };
        assert_eq!(
            xdg.excludes_file(None, home),
            Some(home.join("xdg/git/ignore"))
        );
    }
}
