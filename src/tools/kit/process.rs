//! Running external programs for tools: in their own process group, stdout and stderr in one
//! capped stream, with a timeout and Ctrl+C that kill the program and everything it started.

use std::io::{self, Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use std::os::unix::process::{CommandExt, ExitStatusExt};

use super::watch::{Tail, Watcher};
use crate::cancel::CancelToken;

/// How long a program gets to end after SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(2);
/// How often the waiting loop looks at the clock and the cancel token.
const POLL: Duration = Duration::from_millis(20);
/// How long output is still read after the program ended or was stopped.
const DRAIN: Duration = Duration::from_millis(500);
/// Said after the output when a process outside the group kept the pipe open.
const HELD_OPEN: &str = "\n[Stopped reading: a process that left the command's process group (setsid, a daemon) still holds its output open and may still be running.]\n";

pub(crate) struct RunLimits<'a> {
    pub timeout: Duration,
    /// Bytes of output kept; the rest is counted and dropped.
    pub output_cap: usize,
    pub cancel: &'a CancelToken,
    /// Written to the program's stdin, which is then closed. `None`: stdin is /dev/null.
    pub input: Option<Vec<u8>>,
    /// Hears the output's last lines while the program runs (its tool's progress).
    pub watch: Option<&'a dyn Fn(String)>,
}

/// How a program ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ending {
    Exited(i32),
    Signalled(i32),
    TimedOut,
    Cancelled,
}

#[derive(Debug)]
pub(crate) struct RunOutput {
    /// stdout and stderr, interleaved as written, up to the cap (invalid UTF-8 replaced).
    pub output: String,
    /// Bytes beyond the cap.
    pub omitted: u64,
    pub ending: Ending,
}

/// Starts `command` in a new process group and waits for it within `limits`. When it ends, or
/// times out, or is cancelled, the whole group is killed, so nothing it started lives on.
pub(crate) fn run(mut command: Command, limits: RunLimits<'_>) -> io::Result<RunOutput> {
    let (reader, writer) = io::pipe()?;
    command
        .stdin(if limits.input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .process_group(0);
    let mut child = command.spawn()?;
    // Drop our copies of the write end (inside `command`), or the reader never sees EOF.
    drop(command);
    let group = child.id() as libc::pid_t;
    if let (Some(input), Some(mut stdin)) = (limits.input, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    // The output's end is kept only for a watcher to read.
    let collected = Arc::new(Mutex::new(Collected {
        tail: limits.watch.map(|_| Tail::default()),
        ..Collected::default()
    }));
    let (finished, reader_done) = mpsc::channel();
    let sink = Arc::clone(&collected);
    let cap = limits.output_cap;
    std::thread::spawn(move || {
        collect(reader, cap, &sink);
        let _ = finished.send(());
    });
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(child.wait());
    });
    let mut watcher = limits.watch.map(Watcher::new);
    let mut look = || {
        if let Some(watcher) = &mut watcher {
            let collected = collected.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(tail) = &collected.tail {
                watcher.look(tail, Instant::now());
            }
        }
    };
    let ending = wait(&receiver, group, limits.timeout, limits.cancel, &mut look)?;
    // The shell may be gone while programs it started in the background still hold the pipe.
    kill_group(group, libc::SIGKILL);
    // A program that left the group (setsid, a daemon) may hold the pipe open for as long as it
    // likes: read what is left for a moment, then stop, whatever still holds it.
    let drained = reader_done.recv_timeout(DRAIN).is_ok();
    let Collected { bytes, omitted, .. } =
        std::mem::take(&mut *collected.lock().unwrap_or_else(PoisonError::into_inner));
    let mut output = String::from_utf8_lossy(&bytes).into_owned();
    if !drained {
        output.push_str(HELD_OPEN);
    }
    Ok(RunOutput {
        output,
        omitted,
        ending,
    })
}

fn wait(
    receiver: &mpsc::Receiver<io::Result<ExitStatus>>,
    group: libc::pid_t,
    timeout: Duration,
    cancel: &CancelToken,
    look: &mut dyn FnMut(),
) -> io::Result<Ending> {
    let deadline = Instant::now() + timeout;
    loop {
        look();
        match receiver.recv_timeout(POLL) {
            Ok(status) => return Ok(ending_of(status?)),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(io::Error::other("lost the child process"));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let stop = if cancel.is_cancelled() {
            Some(Ending::Cancelled)
        } else if Instant::now() >= deadline {
            Some(Ending::TimedOut)
        } else {
            None
        };
        if let Some(ending) = stop {
            terminate(receiver, group);
            return Ok(ending);
        }
    }
}

/// SIGTERM to the group, then SIGKILL if it has not ended within the grace period.
fn terminate(receiver: &mpsc::Receiver<io::Result<ExitStatus>>, group: libc::pid_t) {
    kill_group(group, libc::SIGTERM);
    if receiver.recv_timeout(TERM_GRACE).is_err() {
        kill_group(group, libc::SIGKILL);
        let _ = receiver.recv_timeout(TERM_GRACE);
    }
}

pub(crate) fn kill_group(group: libc::pid_t, signal: libc::c_int) {
    // SAFETY: kill(2) with a negative pid signals the process group we created; a group that
    // is already gone just returns ESRCH.
    unsafe {
        libc::kill(-group, signal);
    }
}

/// On Linux, a long-lived child (an MCP server, the voice recorder) gets SIGTERM when Marvin
/// dies without cleaning up (SIGKILL, the OOM killer). The signal comes when the *thread* that
/// spawned it ends, so spawn it from a thread that lives as long as the child should.
#[cfg(target_os = "linux")]
pub(crate) fn die_with_parent(command: &mut Command) {
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: only async-signal-safe calls (prctl, getppid, _exit) between fork and exec.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Marvin died before the prctl: nobody would ever stop this child.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn die_with_parent(_command: &mut Command) {}

/// How a program ended, from its exit status.
pub(crate) fn ending_of(status: ExitStatus) -> Ending {
    match (status.code(), status.signal()) {
        (Some(code), _) => Ending::Exited(code),
        (None, Some(signal)) => Ending::Signalled(signal),
        (None, None) => Ending::Exited(-1),
    }
}

/// The output read so far: `cap` bytes kept, the rest counted; and its end, when a watcher
/// reads it.
#[derive(Default)]
struct Collected {
    bytes: Vec<u8>,
    omitted: u64,
    tail: Option<Tail>,
}

/// Reads until EOF into `sink`, keeping `cap` bytes and counting the rest.
fn collect(mut reader: impl Read, cap: usize, sink: &Mutex<Collected>) {
    let mut buffer = [0u8; 16 * 1024];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                let mut sink = sink.lock().unwrap_or_else(PoisonError::into_inner);
                let room = cap.saturating_sub(sink.bytes.len()).min(n);
                sink.bytes.extend_from_slice(&buffer[..room]);
                sink.omitted += (n - room) as u64;
                if let Some(tail) = &mut sink.tail {
                    tail.push(&buffer[..n]);
                }
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
}

/// How an external program run for a tool ended, when it ran to an exit.
pub(crate) struct Exit {
    pub code: i32,
    /// The combined output, trimmed, with a trailer when it was cut.
    pub output: String,
}

impl Exit {
    /// The output when the program succeeded, else an error naming `what` with its output.
    pub(crate) fn success(self, what: &str) -> Result<String, String> {
        match self.code {
            0 => Ok(if self.output.is_empty() {
                "(no output)".to_string()
            } else {
                self.output
            }),
            code => Err(format!(
                "{what} failed (exit code {code}):\n{}",
                self.output
            )),
        }
    }
}

/// Output kept for the model; the rest is counted in a trailer.
pub(crate) const OUTPUT_CAP: usize = 50 * 1024;

/// Runs an external program for a tool. Starting failures, signals, timeouts and Ctrl+C
/// become errors that name `what`; an exit with any code is returned for the caller to judge.
pub(crate) fn run_program(
    command: Command,
    what: &str,
    timeout: Duration,
    cancel: &CancelToken,
) -> Result<Exit, String> {
    let limits = RunLimits {
        timeout,
        output_cap: OUTPUT_CAP,
        cancel,
        input: None,
        watch: None,
    };
    let run = run(command, limits).map_err(|e| format!("Could not run {what}: {e}."))?;
    let mut output = run.output.trim_end().to_string();
    if run.omitted > 0 {
        output.push_str(&format!(
            "\n[Output truncated — {} bytes omitted]",
            run.omitted
        ));
    }
    match run.ending {
        Ending::Exited(code) => Ok(Exit { code, output }),
        Ending::Signalled(signal) => Err(format!("{what} was killed by signal {signal}.")),
        Ending::TimedOut => Err(format!(
            "{what} did not finish within {}s.\n{output}",
            timeout.as_secs()
        )),
        Ending::Cancelled => Err(format!(
            "{what} was cancelled by the user ({}).",
            cancel.how()
        )),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests run programs as a person would
mod tests {
    use super::*;

    fn bash(script: &str, timeout: Duration, cancel: &CancelToken) -> RunOutput {
        let mut command = Command::new("bash");
        command.arg("-c").arg(script);
        run(
            command,
            RunLimits {
                timeout,
                output_cap: 1000,
                cancel,
                input: None,
                watch: None,
            },
        )
        .unwrap()
    }

    fn quick(script: &str) -> RunOutput {
        bash(script, Duration::from_secs(20), &CancelToken::new())
    }

    #[test]
    fn output_is_combined_and_the_exit_code_kept() {
        let out = quick("echo out; echo err >&2; exit 3");
        assert_eq!(out.output, "out\nerr\n");
        assert_eq!(out.ending, Ending::Exited(3));
        assert_eq!(out.omitted, 0);
    }

    #[test]
    fn output_past_the_cap_is_counted_not_kept() {
        let out = quick("head -c 5000 /dev/zero | tr '\\0' x");
        assert_eq!(out.output.len(), 1000);
        assert_eq!(out.omitted, 4000);
    }

    #[test]
    fn a_timeout_kills_a_program_that_ignores_sigterm() {
        let out = bash(
            "trap '' TERM; echo started; sleep 30",
            Duration::from_millis(300),
            &CancelToken::new(),
        );
        assert_eq!(out.ending, Ending::TimedOut);
        assert_eq!(out.output, "started\n");
    }

    #[test]
    fn background_grandchildren_do_not_outlive_the_command() {
        let dir = crate::test_support::TempDir::new("grandchild");
        let pid_file = dir.path().join("pid");
        let out = quick(&format!(
            "sleep 60 & echo $! > {}; echo done",
            pid_file.display()
        ));
        assert_eq!(out.output, "done\n");
        let pid: libc::pid_t = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The grandchild was killed with the group; it may linger briefly as a zombie of init.
        let deadline = Instant::now() + Duration::from_secs(10);
        while unsafe { libc::kill(pid, 0) } == 0 && !is_zombie(pid) {
            assert!(Instant::now() < deadline, "grandchild {pid} still alive");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn is_zombie(pid: libc::pid_t) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.contains(") Z "))
    }

    #[test]
    fn a_process_that_left_the_group_cannot_hold_the_result_back() {
        let dir = crate::test_support::TempDir::new("setsid");
        let pid_file = dir.path().join("pid");
        let out = bash(
            &format!(
                // The stray process says where it is only once it has left the group.
                "setsid sh -c 'echo $$ > {0}; exec sleep 30' & while [ ! -s {0} ]; do sleep 0.05; done; echo started; sleep 60",
                pid_file.display()
            ),
            // Time enough for bash and setsid to start on a loaded machine.
            Duration::from_secs(3),
            &CancelToken::new(),
        );
        let escaped: libc::pid_t = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // SAFETY: ending the stray sleep this test started.
        unsafe { libc::kill(escaped, libc::SIGKILL) };
        // The stray sleep lived until now, so the pipe was still open when reading stopped.
        assert_eq!(out.ending, Ending::TimedOut);
        assert_eq!(out.output, format!("started\n{HELD_OPEN}"));
    }

    #[test]
    fn cancel_stops_a_running_command() {
        let cancel = CancelToken::new();
        let other = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            other.cancel();
        });
        let out = bash("echo begun; sleep 30", Duration::from_secs(60), &cancel);
        assert_eq!(out.ending, Ending::Cancelled);
        assert_eq!(out.output, "begun\n");
    }

    #[test]
    fn input_reaches_stdin() {
        let mut command = Command::new("cat");
        command.arg("-");
        let cancel = CancelToken::new();
        let limits = RunLimits {
            timeout: Duration::from_secs(10),
            output_cap: 100,
            cancel: &cancel,
            input: Some(b"hello".to_vec()),
            watch: None,
        };
        assert_eq!(run(command, limits).unwrap().output, "hello");
    }
}
