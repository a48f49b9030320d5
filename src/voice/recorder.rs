//! The program that records: MARVIN_RECORDER, else `arecord` (Linux) or `sox`, found on PATH
//! when voice is used. It runs in a process group of its own, so that stopping it (Ctrl+C,
//! Enter, a timeout) stops whatever it started, and its stderr's last line explains a failure.
//! On Linux it is also told to end (SIGTERM) when Marvin dies without stopping it.
//!
//! MARVIN_RECORDER's contract: it is run as `PROGRAM OUTPUT SECONDS`, writes a 16-bit PCM WAV
//! (mono, any rate; 16 kHz suits Whisper) to OUTPUT, and exits 0 after SECONDS seconds of
//! sound; it may be stopped earlier with SIGTERM to its process group. `!voice` asks for
//! [`LISTEN_SECONDS`] and reads OUTPUT as it grows.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::programs::find_program;
use crate::tools::kit::process::{die_with_parent, kill_group};

/// The longest `!voice` session: the recorder is asked for this many seconds.
pub(crate) const LISTEN_SECONDS: u32 = 3600;
/// How long a stopped recorder gets to close its file before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(1);

/// Which program records, and how it is called.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Recorder {
    Arecord(PathBuf),
    Sox(PathBuf),
    /// MARVIN_RECORDER: called as `PROGRAM OUTPUT SECONDS`.
    Custom(PathBuf),
}

/// The recorder to use: `custom` (MARVIN_RECORDER) when set, else arecord on Linux, else sox.
pub(crate) fn find(custom: Option<&str>, path: Option<&OsStr>) -> Result<Recorder, String> {
    if let Some(program) = custom {
        let found = if program.contains('/') {
            Some(PathBuf::from(program)).filter(|p| p.is_file())
        } else {
            find_program(program, path)
        };
        return found.map(Recorder::Custom).ok_or_else(|| {
            format!("MARVIN_RECORDER names {program}, which is not a program Marvin can find")
        });
    }
    let arecord = cfg!(target_os = "linux")
        .then(|| find_program("arecord", path))
        .flatten();
    if let Some(found) = arecord {
        return Ok(Recorder::Arecord(found));
    }
    find_program("sox", path).map(Recorder::Sox).ok_or_else(|| {
        let wanted = if cfg!(target_os = "linux") {
            "neither arecord (alsa-utils) nor sox is on PATH"
        } else {
            "sox is not on PATH"
        };
        format!("Cannot record: {wanted}. Install one, or set MARVIN_RECORDER to a program that records (see the README's Voice section)")
    })
}

impl Recorder {
    /// The command that records `seconds` of 16 kHz mono 16-bit sound into `output`: the
    /// person's recorder, for the person's voice, not a program for the model.
    #[allow(clippy::disallowed_methods)]
    fn command(&self, output: &Path, seconds: u32) -> Command {
        let seconds = seconds.to_string();
        match self {
            Self::Arecord(program) => {
                let mut command = Command::new(program);
                command.args(["-q", "-f", "S16_LE", "-r", "16000", "-c", "1", "-t", "wav"]);
                command.args(["-d", &seconds]).arg(output);
                command
            }
            Self::Sox(program) => {
                let mut command = Command::new(program);
                command.args(["-d", "-q", "-r", "16000", "-c", "1", "-b", "16"]);
                command.arg(output).args(["trim", "0", &seconds]);
                command
            }
            Self::Custom(program) => {
                let mut command = Command::new(program);
                command.arg(output).arg(&seconds);
                command
            }
        }
    }

    /// The program's name, for messages.
    pub(crate) fn name(&self) -> String {
        let (Self::Arecord(path) | Self::Sox(path) | Self::Custom(path)) = self;
        path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// Starts recording `seconds` into `output`.
    pub(crate) fn start(&self, output: &Path, seconds: u32) -> Result<Recording, String> {
        let mut command = self.command(output, seconds);
        die_with_parent(&mut command);
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|error| format!("Cannot start the recorder {}: {error}", self.name()))?;
        let last_line = Arc::new(Mutex::new(String::new()));
        if let Some(stderr) = child.stderr.take() {
            let sink = Arc::clone(&last_line);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if !line.trim().is_empty() {
                        let line: String = line.trim().chars().take(300).collect();
                        *sink.lock().unwrap_or_else(PoisonError::into_inner) = line;
                    }
                }
            });
        }
        Ok(Recording {
            name: self.name(),
            child,
            last_line,
            done: false,
        })
    }
}

/// A recorder at work. Dropping it stops it.
pub(crate) struct Recording {
    name: String,
    child: Child,
    last_line: Arc<Mutex<String>>,
    done: bool,
}

impl Recording {
    /// `None` while it records; then `Ok` when it exited 0, or why it failed.
    pub(crate) fn ended(&mut self) -> Option<Result<(), String>> {
        let status = match self.child.try_wait() {
            Ok(None) => return None,
            Ok(Some(status)) => status,
            Err(error) => {
                self.stop();
                return Some(Err(format!("lost the recorder {}: {error}", self.name)));
            }
        };
        self.done = true;
        if status.success() {
            return Some(Ok(()));
        }
        // The stderr reader may still hold the last line for a moment after the exit.
        let deadline = Instant::now() + Duration::from_millis(500);
        while self.last_line().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let how = status
            .code()
            .map_or("was killed by a signal".to_string(), |code| {
                format!("exited with {code}")
            });
        let said = match self.last_line() {
            line if line.is_empty() => String::new(),
            line => format!(": {line}"),
        };
        Some(Err(format!("The recorder {} {how}{said}", self.name)))
    }

    fn last_line(&self) -> String {
        self.last_line
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Stops the recorder and everything it started: SIGTERM to its group (so it closes its
    /// file), SIGKILL after a grace period.
    pub(crate) fn stop(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        let group = self.child.id() as libc::pid_t;
        kill_group(group, libc::SIGTERM);
        let deadline = Instant::now() + STOP_GRACE;
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                // Whatever the shell started in the background goes with it.
                kill_group(group, libc::SIGKILL);
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        kill_group(group, libc::SIGKILL);
        let _ = self.child.wait();
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn wait_end(recording: &mut Recording) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(ended) = recording.ended() {
                return ended;
            }
            assert!(Instant::now() < deadline, "the recorder never ended");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn recorders_are_found_custom_first() {
        let dir = crate::test_support::TempDir::new("recorder-find");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let path = Some(bin.as_os_str());
        assert!(find(None, path).unwrap_err().contains("MARVIN_RECORDER"));
        let sox = script(&bin, "sox", "");
        assert_eq!(find(None, path), Ok(Recorder::Sox(sox)));
        if cfg!(target_os = "linux") {
            let arecord = script(&bin, "arecord", "");
            assert_eq!(find(None, path), Ok(Recorder::Arecord(arecord)));
        }
        let mine = script(&bin, "rec.sh", "");
        assert_eq!(
            find(Some("rec.sh"), path),
            Ok(Recorder::Custom(mine.clone()))
        );
        let full = mine.to_str().unwrap();
        assert_eq!(find(Some(full), None), Ok(Recorder::Custom(mine)));
        let missing = find(Some("/no/such/rec"), path).unwrap_err();
        assert!(
            missing.contains("MARVIN_RECORDER names /no/such/rec"),
            "{missing}"
        );
    }

    #[test]
    fn the_recorder_is_called_with_its_arguments_and_a_failure_says_its_last_line() {
        let dir = crate::test_support::TempDir::new("recorder-run");
        let out = dir.path().join("out.wav");
        let rec = script(
            dir.path(),
            "rec",
            r#"echo "$1 $2" > "$1"; echo "warming up" >&2; echo "no device" >&2; exit 3"#,
        );
        let mut recording = Recorder::Custom(rec).start(&out, 7).unwrap();
        let error = wait_end(&mut recording).unwrap_err();
        assert_eq!(error, "The recorder rec exited with 3: no device");
        let written = std::fs::read_to_string(&out).unwrap();
        assert_eq!(written.trim(), format!("{} 7", out.display()));
    }

    #[test]
    fn stopping_kills_the_whole_group() {
        let dir = crate::test_support::TempDir::new("recorder-stop");
        let pids = dir.path().join("pids");
        let body = format!("sleep 60 & echo $! > {}; wait", pids.display());
        let rec = script(dir.path(), "rec", &body);
        let mut recording = Recorder::Custom(rec)
            .start(&dir.path().join("o.wav"), 60)
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::fs::read_to_string(&pids).map_or(true, |s| !s.ends_with('\n')) {
            assert!(Instant::now() < deadline, "the script never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        let sleeper: libc::pid_t = std::fs::read_to_string(&pids)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(recording.ended().is_none());
        recording.stop();
        let deadline = Instant::now() + Duration::from_secs(20);
        // SAFETY: signal 0 only asks whether the process exists.
        while unsafe { libc::kill(sleeper, 0) } == 0 && !is_zombie(sleeper) {
            assert!(Instant::now() < deadline, "the recorder's child lives on");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn is_zombie(pid: libc::pid_t) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'))
        })
    }
}
