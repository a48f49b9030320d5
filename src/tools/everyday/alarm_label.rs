//! Where the words of an alarm or a reminder live: inside its crontab line while the line
//! stays short, else in `MARVIN_HOME/alarms/<id>.txt`, which the line reads when it fires
//! (cron refuses a long line: about 1,000 bytes in cronie and Debian's cron, so a label of
//! ~350 bytes, written three times, did not fit). The file goes with the line: when the
//! alarm fires (a one-shot), is cancelled, or is dropped as past.

use std::path::{Path, PathBuf};

use crate::tools::kit::cron;

/// The longest line kept whole; a longer one has its label in a file.
pub(crate) const MAX_LINE: usize = 900;

/// A line's label: in the line, or in a file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Label {
    Inline(String),
    File(PathBuf),
}

/// What starts a file label's commands: the shell variable they read it from.
const FROM_FILE: &str = "m=$(cat ";
/// What starts an inline label's commands (a no-op that holds it for reading back).
const INLINE: &str = ": ";

impl Label {
    /// The shell word that gives the label when the line runs.
    pub(crate) fn word(&self) -> String {
        match self {
            Label::Inline(text) => cron::quote(text),
            Label::File(_) => "\"$m\"".to_string(),
        }
    }

    /// The first command of the line, which also holds the label for [`read`].
    pub(crate) fn head(&self) -> String {
        match self {
            Label::Inline(text) => format!("{INLINE}{}", cron::quote(text)),
            Label::File(path) => {
                format!("{FROM_FILE}{})", cron::quote(&path.display().to_string()))
            }
        }
    }

    /// What removes the label's file once a one-shot's line is gone ("" for an inline one),
    /// to follow the command that removed it with `&&`.
    pub(crate) fn cleanup(&self) -> String {
        match self {
            Label::Inline(_) => String::new(),
            Label::File(path) => {
                format!(" && rm -f {}", cron::quote(&path.display().to_string()))
            }
        }
    }
}

/// The folder of label files under MARVIN_HOME.
pub(crate) fn folder(home: &Path) -> PathBuf {
    home.join("alarms")
}

/// Writes `text` as the label file of `id`.
pub(crate) fn store(home: Option<&Path>, id: &str, text: &str) -> Result<Label, String> {
    let Some(home) = home else {
        return Err(format!(
            "The label is too long for a crontab line ({} bytes) and there is no MARVIN_HOME to keep it in: give a shorter one.",
            text.len()
        ));
    };
    let dir = folder(home);
    let path = dir.join(format!("{id}.txt"));
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, text))
        .map_err(|e| format!("Cannot keep the label in {}: {e}.", path.display()))?;
    Ok(Label::File(path))
}

/// The label a line's command starts with, and the rest of the command.
pub(crate) fn read(command: &str) -> Option<(String, &str)> {
    if let Some(rest) = command.strip_prefix(INLINE) {
        return cron::unquote(rest);
    }
    let (path, rest) = cron::unquote(command.strip_prefix(FROM_FILE)?)?;
    let rest = rest.strip_prefix(')')?;
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| format!("(its label file {path} is gone)"));
    Some((text, rest))
}

/// Removes the label files of `ids` (those that have one).
pub(crate) fn forget(home: Option<&Path>, ids: &[String]) {
    let Some(home) = home else { return };
    for id in ids.iter().filter(|id| cron::is_id(id)) {
        let _ = std::fs::remove_file(folder(home).join(format!("{id}.txt")));
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests run programs as a person would
mod tests {
    use super::*;

    #[test]
    fn labels_come_back_from_the_line_or_the_file_and_go_with_it() {
        let inline = Label::Inline("it's 5%".into());
        let command = format!("{}; notify {}", inline.head(), inline.word());
        assert_eq!(
            read(&command),
            Some(("it's 5%".into(), "; notify 'it'\\''s 5\\%'"))
        );
        let home = crate::test_support::TempDir::new("alarm-label");
        assert!(
            store(None, "alarm-1", "x")
                .unwrap_err()
                .contains("no MARVIN_HOME")
        );
        let file = store(Some(home.path()), "alarm-1", "長い\nlabel '%").unwrap();
        let command = format!("{}; notify {}{}", file.head(), file.word(), file.cleanup());
        let (text, rest) = read(&command).unwrap();
        assert_eq!(text, "長い\nlabel '%");
        assert!(rest.starts_with("; notify \"$m\" && rm -f '"), "{rest}");
        forget(Some(home.path()), &["alarm-1".to_string()]);
        assert!(!folder(home.path()).join("alarm-1.txt").exists());
        assert!(read(&command).unwrap().0.contains("is gone"));
    }

    /// The naughty strings (tests/fixtures/naughty) and a label of 400 CJK characters (1,200
    /// bytes; the issue's crontab refused ~120) as one-shot labels.
    #[test]
    fn naughty_strings_are_labels_that_fit_a_cron_line_and_come_back() {
        use crate::tools::everyday::alarms::{Notifier, one_shot, read_command};
        let text = include_str!("../../../tests/fixtures/naughty/blns.txt");
        let mut labels: Vec<String> = text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        labels.push("長".repeat(400));
        let home = crate::test_support::TempDir::new("alarm-naughty");
        let notifier = Notifier::for_tests(Some(home.path().to_path_buf()));
        let crontab = cron::Crontab::at(PathBuf::from("/usr/bin/crontab"));
        let at = crate::when::from_local(crate::clock::days_from_civil(2027, 1, 15), 7, 30);
        let mut lines = Vec::new();
        let mut failed = Vec::new();
        for (i, label) in labels.iter().enumerate() {
            let id = format!("alarm-{i:08x}");
            let line = one_shot(&crontab, &notifier, at, &id, "Marvin alarm", label).unwrap();
            let owned = cron::owned(&line);
            let said = owned.as_ref().and_then(|o| read_command(o.command));
            let in_file = folder(home.path()).join(format!("{id}.txt")).exists();
            let expected = match in_file {
                true => label.clone(),
                false => label.replace(|c: char| c.is_control(), " "),
            };
            let cut = owned
                .as_ref()
                .is_none_or(|o| crate::test_support::as_cron_runs(o.command).1);
            let ok = !line.contains(['\n', '\r'])
                && line.len() <= MAX_LINE
                && owned.as_ref().map(|o| o.id) == Some(id.as_str())
                && said.map(|s| s.label) == Some(expected)
                && !cut;
            if !ok {
                failed.push(format!("{label:?}"));
            }
            lines.push(line);
        }
        let passed = labels.len() - failed.len();
        eprintln!(
            "naughty strings as alarm labels: {passed}/{} passed",
            labels.len()
        );
        assert!(failed.is_empty(), "{failed:#?}");
        real_crontab_takes(&lines);
    }

    /// The lines through the machine's own `crontab`, when the person running the tests asks
    /// for it (MARVIN_TEST_REAL_CRONTAB=1): it replaces their table for a moment (saved and
    /// put back), so it never runs unasked.
    fn real_crontab_takes(lines: &[String]) {
        use std::process::{Command, Stdio};
        let found = Command::new("/bin/sh")
            .args(["-c", "command -v crontab"])
            .output();
        if !found.is_ok_and(|o| o.status.success()) {
            eprintln!("naughty strings through a real crontab: skipped, crontab is not installed");
            return;
        }
        if std::env::var("MARVIN_TEST_REAL_CRONTAB").as_deref() != Ok("1") {
            eprintln!(
                "naughty strings through a real crontab: skipped, set MARVIN_TEST_REAL_CRONTAB=1 (it swaps your crontab for a moment)"
            );
            return;
        }
        let install = |table: &str| {
            let mut child = Command::new("crontab")
                .arg("-")
                .stdin(Stdio::piped())
                .spawn()
                .unwrap();
            std::io::Write::write_all(&mut child.stdin.take().unwrap(), table.as_bytes()).unwrap();
            child.wait().unwrap().success()
        };
        let saved = Command::new("crontab").arg("-l").output().unwrap();
        let refused: Vec<&String> = lines
            .iter()
            .filter(|l| !install(&format!("{l}\n")))
            .collect();
        if saved.status.success() {
            assert!(
                install(&String::from_utf8_lossy(&saved.stdout)),
                "could not put the crontab back"
            );
        } else {
            let _ = Command::new("crontab").arg("-r").status();
        }
        eprintln!(
            "naughty strings through a real crontab: {}/{} taken",
            lines.len() - refused.len(),
            lines.len()
        );
        assert!(refused.is_empty(), "crontab refused {refused:#?}");
    }
}
