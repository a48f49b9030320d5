//! The alarms and the calendar of issue 15 through the built binary: a replayed model calls
//! them, a fake `crontab` keeps the table in a temporary file (never the user's), and fake
//! `notify-send` and `curl` scripts write down what a fired line would send.

mod alarms;
mod calendar;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;

use crate::common::TempDir;
pub use crate::everyday_utils::{Run, run};

/// A standard cron time zone with daylight saving time, written out so no tz database is
/// needed: 08:30 in winter is 07:30 UTC.
pub const TZ: &str = "CET-1CEST,M3.5.0,M10.5.0/3";

/// The user's own crontab: a comment, a variable, a blank line, jobs with `%` and `#`.
pub const USER_TABLE: &str = "# m h dom mon dow command\nMAILTO=me@example.org\nSHELL=/bin/sh\n\n0 3 * * * /usr/local/bin/backup --all # nightly\n*/5 * * * * date +\\%s >> /tmp/ticks\n";

/// A directory of fake programs, the crontab file they keep, and the log of notifications.
pub struct Machine {
    pub home: TempDir,
}

impl Machine {
    /// A home with a fake `crontab` (no table yet; it warns on stderr as it lists) and, as asked, fake `notify-send` and
    /// `curl` that append their arguments, one a line, to `notified.log`.
    pub fn new(tag: &str, notify_send: bool, curl: bool) -> Self {
        let home = TempDir::new(tag);
        let machine = Self { home };
        std::fs::create_dir_all(machine.bin()).unwrap();
        let table = machine.table_path();
        machine.script(
            "crontab",
            &format!(
                "case \"$1\" in\n-l) echo 'crontab: a warning on stderr, never part of the table' >&2\n    if [ -f '{t}' ]; then exec /bin/cat '{t}'; fi\n    echo 'no crontab for tester' >&2; exit 1 ;;\n-) exec /bin/cat > '{t}' ;;\nesac\necho 'usage: crontab [-l | -]' >&2; exit 2\n",
                t = table.display()
            ),
        );
        let log = machine.log_path();
        for (name, wanted) in [("notify-send", notify_send), ("curl", curl)] {
            if wanted {
                machine.script(
                    name,
                    &format!(
                        "echo '[{name}]' >> '{l}'\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '{l}'; done\n",
                        l = log.display()
                    ),
                );
            }
        }
        machine
    }

    pub fn bin(&self) -> PathBuf {
        self.home.path().join("bin")
    }

    pub fn table_path(&self) -> PathBuf {
        self.home.path().join("crontab.txt")
    }

    pub fn log_path(&self) -> PathBuf {
        self.home.path().join("notified.log")
    }

    pub fn profile(&self) -> PathBuf {
        self.home.path().join("marvin-home/profiles/default")
    }

    /// The crontab as the fake keeps it.
    pub fn table(&self) -> String {
        std::fs::read_to_string(self.table_path()).unwrap_or_default()
    }

    pub fn set_table(&self, text: &str) {
        std::fs::write(self.table_path(), text).unwrap();
    }

    /// What the fake notifiers were given, or "" when nothing ran.
    pub fn notified(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    /// An executable `/bin/sh` script `name` in the fake bin directory.
    pub fn script(&self, name: &str, body: &str) {
        let path = self.bin().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// The variables of a run: only the fake programs on PATH, the test's time zone.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("PATH", self.bin().display().to_string()),
            ("TZ", TZ.to_string()),
            // The cron daemon runs in the same zone (alarms_on_the_daemons_clock changes it).
            ("MARVIN_CRON_TZ", TZ.to_string()),
            ("NTFY_URL", "http://ntfy.test".to_string()),
        ]
    }

    /// Runs the model's `calls` in one round against this machine.
    pub fn run(&self, calls: &[(&str, &str, &str)]) -> Run {
        self.run_with(calls, &[])
    }

    pub fn run_with(&self, calls: &[(&str, &str, &str)], more: &[(&'static str, String)]) -> Run {
        let mut env = self.env();
        env.extend(more.iter().cloned());
        run(&self.home, calls, &env)
    }

    /// Gives the profile the ntfy topic `topic` (the preference alarms read).
    pub fn with_topic(&self, topic: &str) {
        std::fs::create_dir_all(self.profile()).unwrap();
        std::fs::write(
            self.profile().join("preferences.json"),
            format!("{{\"ntfy_topic\": \"{topic}\"}}"),
        )
        .unwrap();
    }

    /// Runs a crontab line's command as cron would: `\%` becomes `%` (an unescaped `%`
    /// would be a line break: there must be none), then `/bin/sh -c`, with `year` put in
    /// place of the line's own when given (so a one-shot of another year can fire today).
    pub fn fire(&self, line: &str, year: Option<(&str, &str)>) {
        let (mut command, cut) = marvin::test_support::as_cron_runs(cron_command(line));
        assert!(!cut, "an unescaped % in {line}");
        if let Some((from, to)) = year {
            command = command.replacen(&format!("= {from} "), &format!("= {to} "), 1);
        }
        let status = Command::new("/bin/sh")
            .arg("-c")
            .arg(&command)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .current_dir(self.home.path())
            .status()
            .unwrap();
        assert!(status.success(), "{command}");
    }
}

/// The command of a crontab line: what follows its five time fields.
pub fn cron_command(line: &str) -> &str {
    let mut rest = line.trim_start();
    for _ in 0..5 {
        let end = rest.find(' ').unwrap();
        rest = rest[end..].trim_start();
    }
    rest
}

/// The `alarm-…`/`event-…` id a result names right after `word`.
pub fn id_after<'a>(result: &'a str, word: &str) -> &'a str {
    let start = result.find(word).unwrap_or_else(|| panic!("{result}")) + word.len();
    let rest = &result[start..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The current year, as `date +%Y` says it.
pub fn this_year() -> String {
    let out = Command::new("/bin/sh")
        .args(["-c", "date +%Y"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}
