//! The user's crontab as alarms and calendar reminders use it: read with `<crontab> -l`,
//! written whole with `<crontab> -` (the program from MARVIN_CRONTAB). Marvin only ever adds
//! or removes the lines it wrote, each ending in `# marvin:<id>`; every other line (the
//! user's jobs, comments, blank lines, variables) is given back byte for byte. Also the
//! quoting that keeps a text inside a cron command one shell word. Lines are written on the
//! daemon's clock (`cron_clock`).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::cancel::CancelToken;
use crate::tools::ToolContext;
use crate::tools::kit::cron_clock::CronClock;

/// What ends every line Marvin wrote, before its id.
pub(crate) const MARK: &str = " # marvin:";
/// How long `crontab` may take to read or write the table.
const TIMEOUT: Duration = Duration::from_secs(15);
/// How often a run looks at its program, the clock and Ctrl+C.
const POLL: Duration = Duration::from_millis(10);
/// A crontab larger than this is not Marvin's to rewrite.
const MAX_TABLE: usize = 4 * 1024 * 1024;

/// Held while the table is read, changed and written back: the crontab is one for the whole
/// machine user, whichever session edits it.
static EDITING: Mutex<()> = Mutex::new(());

/// The crontab program of a session and where it is installed.
pub(crate) struct Crontab {
    program: PathBuf,
    name: String,
    /// How long one run may take: [`TIMEOUT`] (a test's shorter).
    timeout: Duration,
    /// `MARVIN_HOME/crontab`, whose lock (store::lock) other Marvins of this user, and fired
    /// alarms removing their own line, take too while they change the table. None without a
    /// profile directory: a lock in a directory other users write to (the temporary one)
    /// could be taken first, or held for ever, by any of them.
    shared: Option<PathBuf>,
    /// `flock(1)`, for the lines that edit the table themselves (util-linux: not on macOS).
    flock: Option<PathBuf>,
    /// The daemon's clock, which the lines' times are written on.
    pub clock: CronClock,
}

impl Crontab {
    /// The program MARVIN_CRONTAB names (default `crontab`), found on PATH unless it is a
    /// path; an error the model can pass on when there is none.
    pub(crate) fn find(ctx: &ToolContext) -> Result<Self, String> {
        let name = ctx.settings.web.settings().crontab.clone();
        let program = if name.contains('/') {
            Some(PathBuf::from(&name)).filter(|p| p.is_file())
        } else {
            let path = ctx
                .settings
                .search_path
                .as_deref()
                .map(std::ffi::OsStr::new);
            crate::programs::find_program(&name, path)
        };
        let web = ctx.settings.web.settings();
        let clock = CronClock::new(web.tz.clone(), web.cron_tz.clone(), system(ctx, "date"));
        let shared = ctx
            .settings
            .marvin_home
            .as_ref()
            .map(|home| home.join("crontab"));
        match program {
            Some(program) => Ok(Self {
                program,
                name,
                clock,
                timeout: TIMEOUT,
                shared,
                flock: system(ctx, "flock"),
            }),
            None => Err(format!(
                "There is no cron on this machine ('{name}' is not installed), so nothing can be scheduled: install cron (cronie or the cron package) or set MARVIN_CRONTAB to the crontab program."
            )),
        }
    }

    /// The program at `program` with a one-second limit, for tests.
    #[cfg(test)]
    pub(crate) fn at(program: PathBuf) -> Self {
        let name = program.display().to_string();
        Self {
            shared: None,
            flock: None,
            clock: CronClock::new(None, None, None),
            program,
            name,
            timeout: Duration::from_secs(1),
        }
    }

    /// Where the program is, for cron lines that edit the table themselves.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.program
    }

    /// `commands` (a cron line's edit of the table) as they run holding the lock Marvin's own
    /// edits take, so that alarms firing in the same minute, or Marvin setting one then, do
    /// not write over each other's change; as they are where there is no `flock(1)`. Without
    /// the lock within a minute, they do not run: the line stays, and listing drops it.
    pub(crate) fn locked(&self, commands: &str) -> String {
        match (&self.flock, &self.shared) {
            (Some(flock), Some(shared)) => format!(
                "( {} -w 60 9 && {commands} ) 9>>{}",
                quote(&flock.display().to_string()),
                quote(&crate::store::lock::lock_file(shared).display().to_string())
            ),
            _ => commands.to_string(),
        }
    }

    /// The table as it is, byte for byte (stdout alone: what the program says on stderr
    /// never gets into it); "no crontab for <user>" is an empty table.
    pub(crate) fn read(&self, cancel: &CancelToken) -> Result<String, String> {
        let ran = self.run("-l", None, cancel)?;
        match ran.code {
            Some(0) => {}
            Some(_) if ran.stderr.to_lowercase().contains("no crontab for") => {
                return Ok(String::new());
            }
            code => return Err(self.failed("-l", "could not read the crontab", code, &ran)),
        }
        if ran.stdout.len() > MAX_TABLE {
            return Err(self.leave_alone("too large"));
        }
        String::from_utf8(ran.stdout).map_err(|_| self.leave_alone("not UTF-8 text"))
    }

    /// Replaces the table with `table`.
    pub(crate) fn write(&self, table: &str, cancel: &CancelToken) -> Result<(), String> {
        let ran = self.run("-", Some(table.as_bytes().to_vec()), cancel)?;
        match ran.code {
            Some(0) => Ok(()),
            code => Err(self.failed("-", "refused the new crontab", code, &ran)),
        }
    }

    /// Reads the table, lets `edit` change it, and writes it back when it changed.
    pub(crate) fn edit<T>(
        &self,
        cancel: &CancelToken,
        edit: impl FnOnce(&str) -> (String, T),
    ) -> Result<T, String> {
        // The calls of a round run in parallel, and other Marvins may edit too: one
        // read-change-write at a time, or two alarms set together would each write the table
        // without the other's line.
        let _turn = EDITING.lock().unwrap_or_else(PoisonError::into_inner);
        let _others = match &self.shared {
            Some(shared) => Some(crate::store::lock::hold(shared).map_err(|e| {
                format!(
                    "Cannot lock the crontab for a change ({}): {e}.",
                    shared.display()
                )
            })?),
            None => None,
        };
        let before = self.read(cancel)?;
        let (after, outcome) = edit(&before);
        if after != before {
            self.write(&after, cancel)?;
        }
        Ok(outcome)
    }

    /// Runs the program with `arg`, `input` on its stdin, stdout and stderr kept apart,
    /// within its time limit and until Ctrl+C.
    fn run(&self, arg: &str, input: Option<Vec<u8>>, cancel: &CancelToken) -> Result<Ran, String> {
        // The person's crontab, set-user-ID on many systems (a sandbox would keep it from its
        // spool), given only lines Marvin wrote.
        let mut command = crate::sandbox::unconfined(&self.program);
        command
            .arg(arg)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .map_err(|e| format!("Could not run '{}': {e}.", self.name))?;
        let stdin = child.stdin.take();
        std::thread::spawn(move || {
            if let (Some(mut stdin), Some(input)) = (stdin, input) {
                let _ = stdin.write_all(&input);
            }
        });
        let stdout = reader(child.stdout.take(), MAX_TABLE as u64 + 1);
        let stderr = reader(child.stderr.take(), 64 * 1024);
        let status = self.wait(&mut child, cancel)?;
        let joined = |handle: std::thread::JoinHandle<Vec<u8>>| handle.join().unwrap_or_default();
        Ok(Ran {
            code: status.code(),
            stdout: joined(stdout),
            stderr: String::from_utf8_lossy(&joined(stderr)).trim().to_string(),
        })
    }

    /// Waits for `child` to end; kills it on a timeout or Ctrl+C.
    fn wait(&self, child: &mut Child, cancel: &CancelToken) -> Result<ExitStatus, String> {
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                return Ok(status);
            }
            let stop = if cancel.is_cancelled() {
                Some(format!(
                    "'{}' was cancelled by the user ({}).",
                    self.name,
                    cancel.how()
                ))
            } else if Instant::now() >= deadline {
                Some(format!(
                    "'{}' did not finish within {}s; the crontab is unchanged.",
                    self.name,
                    self.timeout.as_secs()
                ))
            } else {
                None
            };
            if let Some(why) = stop {
                let _ = child.kill();
                let _ = child.wait();
                return Err(why);
            }
            std::thread::sleep(POLL);
        }
    }

    fn failed(&self, arg: &str, what: &str, code: Option<i32>, ran: &Ran) -> String {
        let ending = match code {
            Some(code) => format!("exit code {code}"),
            None => "killed by a signal".to_string(),
        };
        format!("'{} {arg}' {what} ({ending}): {}", self.name, ran.stderr)
    }

    fn leave_alone(&self, why: &str) -> String {
        format!(
            "The crontab is {why}; Marvin leaves it alone. Edit it with '{} -e'.",
            self.name
        )
    }
}

/// A program the session's PATH has, or the system's own copy (cron runs lines with a short
/// PATH, so the line names it in full).
fn system(ctx: &ToolContext, name: &str) -> Option<PathBuf> {
    let path = ctx.settings.search_path.as_deref();
    crate::programs::find_program(name, path.map(std::ffi::OsStr::new)).or_else(|| {
        [format!("/usr/bin/{name}"), format!("/bin/{name}")]
            .map(PathBuf::from)
            .into_iter()
            .find(|p| p.is_file())
    })
}

/// What the program said and how it ended.
struct Ran {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

/// Reads `pipe` to its end on a thread of its own, keeping at most `cap` bytes.
fn reader(pipe: Option<impl Read + Send + 'static>, cap: u64) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(pipe) = pipe {
            let _ = pipe.take(cap).read_to_end(&mut bytes);
        }
        bytes
    })
}

/// One line Marvin wrote: its id and what comes before the mark.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Owned<'a> {
    pub id: &'a str,
    /// The five time fields.
    pub fields: [&'a str; 5],
    /// The command, without the mark.
    pub command: &'a str,
}

/// The line of `table` Marvin wrote, when `line` is one.
pub(crate) fn owned(line: &str) -> Option<Owned<'_>> {
    let (body, id) = line.trim_end_matches(['\n', '\r']).rsplit_once(MARK)?;
    if !is_id(id) {
        return None;
    }
    let mut rest = body.trim_start();
    let mut fields = [""; 5];
    for field in &mut fields {
        let end = rest.find([' ', '\t'])?;
        *field = &rest[..end];
        rest = rest[end..].trim_start();
    }
    Some(Owned {
        id,
        fields,
        command: rest,
    })
}

/// Every line Marvin wrote in `table`, in order.
pub(crate) fn owned_lines(table: &str) -> Vec<Owned<'_>> {
    table.lines().filter_map(owned).collect()
}

/// `table` with `line` added at the end (a newline is put before it when the table lacks
/// its last one).
pub(crate) fn with_line(table: &str, line: &str) -> String {
    let mut out = table.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(line);
    out.push('\n');
    out
}

/// `table` without the lines Marvin wrote whose id `remove` picks, and how many went. Every
/// other line keeps its bytes, line ending included.
pub(crate) fn without(table: &str, remove: impl Fn(&str) -> bool) -> (String, usize) {
    let (kept, removed) = without_ids(table, remove);
    (kept, removed.len())
}

/// [`without`], with the ids of the lines that went.
pub(crate) fn without_ids(table: &str, remove: impl Fn(&str) -> bool) -> (String, Vec<String>) {
    let mut removed = Vec::new();
    let kept = table
        .split_inclusive('\n')
        .filter(|line| match owned(line) {
            Some(o) if remove(o.id) => {
                removed.push(o.id.to_string());
                false
            }
            _ => true,
        })
        .collect();
    (kept, removed)
}

/// A cron line: `fields`, `command`, the mark with `id`.
pub(crate) fn line(fields: &str, command: &str, id: &str) -> String {
    format!("{fields} {command}{MARK}{id}")
}

/// Ids are letters, digits, `-` and `_`, so a mark is never mistaken inside a command.
pub(crate) fn is_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `text` as one single-quoted shell word that cron passes on unchanged: line breaks and
/// other control characters become spaces (a cron line is one line), `'` is closed and
/// reopened, `%` (which cron turns into a newline) is escaped as `\%`, and a backslash is
/// followed by `''` (the quote closed and reopened), because cron takes a backslash with the
/// character after it: `\\%` would leave the `%` unescaped and cut the line there.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\'' => out.push_str("'\\''"),
            '%' => out.push_str("\\%"),
            '\\' => out.push_str("\\''"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The text of a word [`quote`] made, and what follows it; `None` when `word` does not start
/// with one.
pub(crate) fn unquote(word: &str) -> Option<(String, &str)> {
    let mut rest = word.strip_prefix('\'')?;
    let mut text = String::new();
    loop {
        let end = rest.find('\'')?;
        text.push_str(&rest[..end].replace("\\%", "%"));
        rest = &rest[end + 1..];
        if let Some(more) = rest.strip_prefix("\\''") {
            text.push('\'');
            rest = more;
        } else if let Some(more) = rest.strip_prefix('\'') {
            // A backslash's `''`: the text goes on.
            rest = more;
        } else {
            return Some((text, rest));
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests run programs as a person would
mod tests {
    use super::*;

    const USER: &str = "# m h dom mon dow command\nMAILTO=me@example.org\n\n0 3 * * * backup.sh --all # nightly\n*/5 * * * * echo '%' > /dev/null";

    /// A context whose crontab program is `sh` (any program that exists) and whose profile
    /// directory is `home`.
    fn context_with_home(home: Option<PathBuf>) -> ToolContext {
        use crate::config::{Endpoints, WebSettings};
        use crate::net::ProxyRules;
        let mut ctx = ToolContext::new(std::env::temp_dir());
        let mut settings = (*ctx.settings).clone();
        let web = WebSettings {
            crontab: "/bin/sh".into(),
            ..WebSettings::default()
        };
        settings.web = crate::tools::kit::web::Web::new(
            web,
            Endpoints::default(),
            ProxyRules::new(None, None),
        );
        settings.marvin_home = home;
        ctx.settings = std::sync::Arc::new(settings);
        ctx
    }

    #[test]
    fn the_shared_lock_is_in_the_profile_and_never_in_a_directory_others_write_to() {
        let home = crate::test_support::TempDir::new("cron-lock");
        let crontab = Crontab::find(&context_with_home(Some(home.path().into()))).unwrap();
        if crontab.flock.is_some() {
            let lock = home.path().join("crontab.lock").display().to_string();
            assert!(
                crontab.locked("true").contains(&lock),
                "{}",
                crontab.locked("true")
            );
        }
        assert_eq!(crontab.shared, Some(home.path().join("crontab")));
        // Without a profile directory there is no lock file another user could hold first.
        let crontab = Crontab::find(&context_with_home(None)).unwrap();
        assert_eq!(crontab.shared, None);
        assert_eq!(crontab.locked("true"), "true");
    }

    #[test]
    fn lines_are_added_and_removed_and_the_rest_keeps_its_bytes() {
        let one = with_line(USER, &line("30 7 * * *", "wake", "alarm-0000aaaa"));
        assert_eq!(
            one,
            format!("{USER}\n30 7 * * * wake # marvin:alarm-0000aaaa\n")
        );
        let two = with_line(&one, &line("0 8 1 2 *", "x # y", "alarm-0000bbbb"));
        let owned: Vec<&str> = owned_lines(&two).iter().map(|o| o.id).collect();
        assert_eq!(owned, ["alarm-0000aaaa", "alarm-0000bbbb"]);
        assert_eq!(owned_lines(&two)[1].command, "x # y");
        assert_eq!(owned_lines(&two)[1].fields, ["0", "8", "1", "2", "*"]);
        let (back, removed) = without(&two, |id| id == "alarm-0000aaaa");
        assert_eq!(removed, 1);
        let (back, _) = without(&back, |id| id.starts_with("alarm-"));
        assert_eq!(back, format!("{USER}\n"));
        assert_eq!(without(USER, |_| true), (USER.to_string(), 0));
        assert_eq!(with_line("", "l # marvin:a"), "l # marvin:a\n");
    }

    #[test]
    fn only_a_trailing_mark_with_a_plain_id_is_marvins() {
        for (text, mine) in [
            ("0 1 * * * job # marvin:alarm-1", true),
            ("0 1 * * * job # marvin:alarm 1", false),
            ("0 1 * * * job # marvin:", false),
            ("# marvin:alarm-1", false),
            ("0 1 * * * job #marvin:alarm-1", false),
            ("0 1 * * * job # marvin:x; rm -rf ~", false),
        ] {
            assert_eq!(owned(text).is_some(), mine, "{text}");
        }
    }

    #[test]
    fn a_crontab_that_hangs_is_stopped_and_one_that_fails_is_quoted() {
        use std::os::unix::fs::PermissionsExt;
        let dir = crate::test_support::TempDir::new("cron-hang");
        let script = dir.path().join("crontab");
        let write = |body: &str| {
            std::fs::write(&script, format!("#!/bin/sh\n{body}")).unwrap();
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        let crontab = Crontab::at(script.clone());
        let cancel = CancelToken::new();
        write("exec sleep 30\n");
        let name = script.display();
        assert_eq!(
            crontab.read(&cancel),
            Err(format!(
                "'{name}' did not finish within 1s; the crontab is unchanged."
            ))
        );
        write("echo 'crontab: permission denied' >&2; exit 1\n");
        assert_eq!(
            crontab.write("x\n", &cancel),
            Err(format!(
                "'{name} -' refused the new crontab (exit code 1): crontab: permission denied"
            ))
        );
        write("printf 'a\\377b\\n'\n");
        assert!(
            crontab
                .read(&cancel)
                .unwrap_err()
                .contains("not UTF-8 text; Marvin leaves it alone")
        );
    }

    #[test]
    fn quoted_text_stays_one_word_and_comes_back() {
        let cases = [
            ("Dentist", "'Dentist'"),
            ("it's 100% $(rm -rf ~)", "'it'\\''s 100\\% $(rm -rf ~)'"),
            ("two\nlines", "'two lines'"),
            ("`id`; echo \"hi\"", "'`id`; echo \"hi\"'"),
            ("C:\\%TEMP%", "'C:\\''\\%TEMP\\%'"),
            ("a\\\\%", "'a\\''\\''\\%'"),
        ];
        for (text, quoted) in cases {
            assert_eq!(quote(text), quoted);
            let word = format!("{quoted} rest");
            assert_eq!(unquote(&word), Some((text.replace('\n', " "), " rest")));
        }
        assert_eq!(unquote("no quote"), None);
        // What cron itself does to the line (cronie's do_command: a backslash takes the next
        // character, `\\%` becomes `%`, an unescaped `%` ends the command) leaves the word whole.
        for text in ["C:\\%TEMP%", "a\\\\%b", "100% \\ done\\"] {
            let (command, cut) = crate::test_support::as_cron_runs(&quote(text));
            assert!(!cut, "cron cuts {}", quote(text));
            assert_eq!(shell_word(&command), text);
        }
    }

    /// What `sh` makes of single-quoted words glued with `\'`.
    fn shell_word(command: &str) -> String {
        let output = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("printf %s {command}"))
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    }
}
