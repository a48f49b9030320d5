//! Opening the person's browser on an address: the interview form, Spotify's sign-in, the
//! gateway. `BROWSER` first (a colon-separated list, `%s` standing for the address), then what
//! the platform offers (macOS `open`; WSL's `wslview` or Windows' own `Start-Process`; Termux's
//! `termux-open-url`; `xdg-open` and the usual fall-backs elsewhere). Each is tried until one
//! works: an opener that exits non-zero (xdg-open with no method, say) counts as failed and the
//! next is tried; one still running after a moment is a browser in the foreground, which counts
//! as opened. What failed comes back as one sentence, for the notice that then shows the
//! address and asks in the terminal instead.
//!
//! Hand-written rather than the design card's `webbrowser`: that crate brings 29 crates (url,
//! idna, ICU) and +251 KB for this, and starts the browser with Marvin's whole environment, API
//! keys included; a browser is a long-lived program that must not hold them.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long an opener has to report failure before it is taken to be the browser itself.
const SETTLE: Duration = Duration::from_secs(3);

/// The platform's way of opening an address, besides `BROWSER`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Platform {
    MacOs,
    /// Windows Subsystem for Linux (WSL_DISTRO_NAME set).
    Wsl,
    /// Termux on Android (TERMUX_VERSION set).
    Termux,
    /// Linux and the BSDs: freedesktop's xdg-open and friends.
    #[default]
    Unix,
}

/// The commands that may open a browser here, in the order they are tried.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Launcher {
    openers: Vec<Opener>,
    /// PATH, to find them on.
    path: Option<OsString>,
    settle: Option<Duration>,
}

/// One command: a program and its arguments, `%s` standing for the address (appended when no
/// argument has it).
#[derive(Debug, Clone, PartialEq)]
struct Opener {
    program: String,
    args: Vec<String>,
}

impl Opener {
    fn parse(command: &str) -> Option<Self> {
        let mut words = command.split_whitespace().map(str::to_string);
        let program = words.next()?;
        let mut args: Vec<String> = words.collect();
        if !args.iter().any(|arg| arg.contains("%s")) {
            args.push("%s".into());
        }
        Some(Self { program, args })
    }

    /// The arguments with `%s` replaced by `url` and `%%` by `%`, in one pass (so a `%%` in
    /// the address stays as it is).
    fn arguments(&self, url: &str) -> Vec<String> {
        self.args
            .iter()
            .map(|arg| {
                let mut out = String::new();
                let mut chars = arg.chars();
                while let Some(c) = chars.next() {
                    match (c, chars.clone().next()) {
                        ('%', Some('s')) => {
                            out.push_str(url);
                            chars.next();
                        }
                        ('%', Some('%')) => {
                            out.push('%');
                            chars.next();
                        }
                        _ => out.push(c),
                    }
                }
                out
            })
            .collect()
    }
}

impl Launcher {
    /// The openers for `platform`, after those `browser` (the BROWSER variable) names.
    pub fn new(browser: Option<&str>, platform: Platform, path: Option<OsString>) -> Self {
        let mut openers: Vec<Opener> = browser
            .unwrap_or("")
            .split(':')
            .filter_map(Opener::parse)
            .collect();
        let defaults: &[&str] = match platform {
            Platform::MacOs => &["open"],
            Platform::Wsl => &[
                "wslview",
                // %s is quoted for PowerShell by `arguments_for`.
                "powershell.exe -NoProfile -NonInteractive -Command Start-Process %s",
                "xdg-open",
            ],
            Platform::Termux => &["termux-open-url", "xdg-open"],
            Platform::Unix => &[
                "xdg-open",
                "gio open",
                "sensible-browser",
                "x-www-browser",
                "firefox",
                "chromium",
                "google-chrome",
            ],
        };
        openers.extend(defaults.iter().filter_map(|command| Opener::parse(command)));
        Self {
            openers,
            path,
            settle: None,
        }
    }

    /// Whether `BROWSER` named a command (a sign that a browser can be started here even
    /// without DISPLAY, e.g. a text browser).
    pub fn has_browser_variable(browser: Option<&str>) -> bool {
        browser.is_some_and(|value| value.split(':').any(|c| !c.trim().is_empty()))
    }

    /// Opens `url`; on failure, why, as a clause ("xdg-open exited with status 3").
    pub fn open(&self, url: &str) -> Result<(), String> {
        let mut failures = Vec::new();
        let mut missing = Vec::new();
        for opener in &self.openers {
            let Some(program) = self.find(&opener.program) else {
                missing.push(opener.program.as_str());
                continue;
            };
            match command(&program, opener, url).spawn() {
                Ok(mut child) => match settle(&mut child, self.settle.unwrap_or(SETTLE)) {
                    Some(status) if status.success() => return Ok(()),
                    Some(status) => failures.push(format!(
                        "{} exited with {}",
                        opener.program,
                        describe(status)
                    )),
                    None => {
                        // Still running: the browser itself. Reap it when it ends.
                        std::thread::spawn(move || child.wait());
                        return Ok(());
                    }
                },
                Err(error) => {
                    failures.push(format!("{} could not start ({error})", opener.program))
                }
            }
        }
        Err(match failures.is_empty() {
            true => format!(
                "none of {} is installed; set BROWSER to your browser's command",
                missing.join(", ")
            ),
            false => failures.join("; "),
        })
    }

    /// The program's path: as given when it has a slash, else found on PATH.
    fn find(&self, program: &str) -> Option<std::path::PathBuf> {
        if program.contains('/') {
            let path = Path::new(program);
            return crate::programs::is_executable(path).then(|| path.to_path_buf());
        }
        crate::programs::find_program(program, self.path.as_deref())
    }

    #[cfg(test)]
    fn settling_within(mut self, settle: Duration) -> Self {
        self.settle = Some(settle);
        self
    }
}

/// The command that runs `opener` (found at `program`) on `url`: no input or output of ours,
/// in its own process group (Ctrl+C at Marvin's prompt must not close the browser), and without
/// the credentials of the services table in its environment.
fn command(program: &Path, opener: &Opener, url: &str) -> Command {
    // The person's own browser, opened for the person (a form, a login page).
    #[allow(clippy::disallowed_methods)]
    let mut command = Command::new(program);
    command
        .args(arguments_for(opener, url))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    for name in crate::services::secret_variables() {
        command.env_remove(name);
    }
    command
}

/// The arguments with the address put in; PowerShell gets it as a single-quoted string, so
/// that `&` and `;` in it are not commands.
fn arguments_for(opener: &Opener, url: &str) -> Vec<String> {
    if opener.program == "powershell.exe" {
        return opener.arguments(&format!("'{}'", url.replace('\'', "''")));
    }
    opener.arguments(url)
}

/// The exit status, if the child ended within `within`; `None` while it still runs.
fn settle(child: &mut std::process::Child, within: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + within;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) | Err(_) => return None,
        }
    }
}

fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("status {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        _ => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;
    use std::os::unix::fs::PermissionsExt;

    /// An executable script `name` in `dir`.
    fn script(dir: &Path, name: &str, body: &str) {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn only_in(dir: &Path, browser: Option<&str>, platform: Platform) -> Launcher {
        Launcher::new(browser, platform, Some(dir.as_os_str().to_owned()))
            .settling_within(Duration::from_millis(500))
    }

    #[test]
    fn browser_comes_first_with_the_address_in_place_of_percent_s() {
        let dir = TempDir::new("browser-var");
        let seen = dir.path().join("seen");
        script(
            dir.path(),
            "mybrowser",
            &format!("printf '%s|%s\\n' \"$1\" \"$2\" > {}", seen.display()),
        );
        script(dir.path(), "xdg-open", "exit 0");
        let launcher = only_in(
            dir.path(),
            Some("mybrowser --new-tab=%s %%x"),
            Platform::Unix,
        );
        let url = "http://127.0.0.1:1/?session=abc&x=%%41";
        assert_eq!(launcher.open(url), Ok(()));
        assert_eq!(
            std::fs::read_to_string(&seen).unwrap(),
            format!("--new-tab={url}|%x\n")
        );
    }

    #[test]
    fn the_browser_is_started_without_the_keys_in_its_own_process_group() {
        let opener = Opener::parse("firefox").unwrap();
        let command = command(
            Path::new("/usr/bin/firefox"),
            &opener,
            "http://127.0.0.1:9/",
        );
        let removed: Vec<_> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect();
        for name in crate::services::secret_variables() {
            assert!(
                removed.iter().any(|r| r == name),
                "{name} reaches the browser"
            );
        }
        assert_eq!(
            command.get_args().collect::<Vec<_>>(),
            ["http://127.0.0.1:9/"]
        );
    }

    #[test]
    fn a_failing_opener_is_named_and_the_next_one_is_tried() {
        let dir = TempDir::new("browser-fallback");
        let seen = dir.path().join("seen");
        script(dir.path(), "xdg-open", "exit 3");
        script(
            dir.path(),
            "sensible-browser",
            &format!("echo \"$1\" > {}", seen.display()),
        );
        let launcher = only_in(dir.path(), None, Platform::Unix);
        assert_eq!(launcher.open("http://127.0.0.1:9/"), Ok(()));
        assert_eq!(
            std::fs::read_to_string(&seen).unwrap(),
            "http://127.0.0.1:9/\n"
        );

        std::fs::remove_file(dir.path().join("sensible-browser")).unwrap();
        script(dir.path(), "firefox", "kill -9 $$");
        assert_eq!(
            launcher.open("http://127.0.0.1:9/"),
            Err("xdg-open exited with status 3; firefox exited with signal 9".into())
        );
    }

    #[test]
    fn a_browser_still_running_in_the_foreground_counts_as_opened() {
        let dir = TempDir::new("browser-foreground");
        script(dir.path(), "firefox", "exec sleep 5");
        let launcher = only_in(dir.path(), None, Platform::Unix);
        assert_eq!(launcher.open("http://127.0.0.1:9/"), Ok(()));
    }

    #[test]
    fn with_nothing_installed_the_sentence_says_to_set_browser() {
        let dir = TempDir::new("browser-none");
        let launcher = only_in(dir.path(), Some(" : "), Platform::Termux);
        assert_eq!(
            launcher.open("http://127.0.0.1:9/"),
            Err("none of termux-open-url, xdg-open is installed; set BROWSER to your browser's command".into())
        );
        assert!(!Launcher::has_browser_variable(Some(" : ")));
        assert!(Launcher::has_browser_variable(Some("w3m")));
    }

    #[test]
    fn wsl_quotes_the_address_for_powershell() {
        let dir = TempDir::new("browser-wsl");
        let seen = dir.path().join("seen");
        script(
            dir.path(),
            "powershell.exe",
            &format!("printf '%s\\n' \"$@\" > {}", seen.display()),
        );
        let launcher = only_in(dir.path(), None, Platform::Wsl);
        assert_eq!(
            launcher.open("https://accounts.example/authorize?a=1&b='x'"),
            Ok(())
        );
        assert_eq!(
            std::fs::read_to_string(&seen).unwrap(),
            "-NoProfile\n-NonInteractive\n-Command\nStart-Process\n'https://accounts.example/authorize?a=1&b=''x'''\n"
        );
    }

    #[test]
    fn a_program_given_with_a_path_is_used_as_it_is() {
        let dir = TempDir::new("browser-path");
        script(dir.path(), "w3m", "exit 0");
        let program = dir.path().join("w3m");
        let elsewhere = TempDir::new("browser-empty-path");
        let launcher = only_in(
            elsewhere.path(),
            Some(&program.display().to_string()),
            Platform::Unix,
        );
        assert_eq!(launcher.open("http://127.0.0.1:9/"), Ok(()));
    }
}
