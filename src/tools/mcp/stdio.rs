//! The stdio transport: the server is a child process of ours, in its own process group,
//! reading messages on stdin and writing one per line on stdout; what it writes on stderr is
//! kept (the last lines) for the report when it fails. Marvin's own keys are not in its
//! environment; the keys its declaration names (`env`) are.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use super::connection::{Sink, Transport};
use super::rpc;
use crate::tools::kit::process::{die_with_parent, kill_group};

/// Lines of stderr kept for reports.
pub(super) const STDERR_LINES: usize = 20;
/// The most of one stderr line kept (in bytes; a longer line is cut).
pub(super) const STDERR_LINE_BYTES: usize = 1024;
/// A message longer than this is not one a client can use (an image is a few MB at most).
const MAX_LINE: usize = 32 << 20;

pub struct StdioTransport {
    stdin: Mutex<Option<ChildStdin>>,
    group: libc::pid_t,
    stderr: Arc<Mutex<VecDeque<String>>>,
    exited: Arc<AtomicBool>,
}

/// Starts `child_command` (the server's program, made by the sandbox: confined as it says,
/// without Marvin's keys) with `args` and `env` in `cwd`, and connects its output to `sink`.
/// `command` names it in messages. The child is started by the thread that reads it, which
/// lives as long as the child: on Linux the child gets SIGTERM if Marvin dies without cleaning
/// up (the signal follows the thread that spawned it).
pub fn start(
    mut child_command: Command,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: &Path,
    sink: Sink,
) -> Result<StdioTransport, String> {
    child_command
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .envs(env);
    die_with_parent(&mut child_command);
    let stderr_lines = Arc::new(Mutex::new(VecDeque::new()));
    let exited = Arc::new(AtomicBool::new(false));
    let (started, outcome) = mpsc::channel();
    let (lines, gone) = (stderr_lines.clone(), exited.clone());
    let name = command.to_string();
    std::thread::Builder::new()
        .name("mcp-stdio".into())
        .spawn(move || {
            let mut child = match child_command.spawn() {
                Ok(child) => child,
                Err(error) => {
                    let _ = started.send(Err(match error.kind() {
                        std::io::ErrorKind::NotFound => {
                            format!("cannot start {name}: it is not installed, or not on PATH")
                        }
                        _ => format!("cannot start {name}: {error}"),
                    }));
                    return;
                }
            };
            let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
            let _ = started.send(Ok((child.stdin.take(), child.id() as libc::pid_t)));
            let (stderr_done, stderr_ended) = mpsc::channel::<()>();
            if let Some(stderr) = stderr {
                let lines = lines.clone();
                std::thread::spawn(move || {
                    keep_tail(stderr, &lines);
                    drop(stderr_done);
                });
            }
            let garbage = stdout
                .map(|out| read_messages(out, &sink))
                .unwrap_or_default();
            let status = child.wait();
            // Its last words are read before they are reported (a child of the server that
            // still holds stderr open is not waited for long).
            let _ = stderr_ended.recv_timeout(Duration::from_millis(500));
            gone.store(true, Ordering::SeqCst);
            let last = lines
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .back()
                .cloned();
            let ended = match status {
                Ok(status) => match (status.code(), status.signal()) {
                    (Some(code), _) => format!("the server exited with status {code}"),
                    (None, Some(signal)) => format!("the server was killed by signal {signal}"),
                    _ => "the server exited".to_string(),
                },
                Err(error) => format!("the server could not be waited for ({error})"),
            };
            let mut why = ended;
            if let Some(garbage) = garbage {
                why.push_str(&format!("; it wrote {garbage} on stdout"));
            }
            if let Some(last) = last {
                why.push_str(&format!(" (its last words: {last})"));
            }
            sink.closed(why);
        })
        .map_err(|e| format!("cannot start a thread for {command}: {e}"))?;
    let (stdin, group) = outcome
        .recv()
        .map_err(|_| format!("cannot start {command}"))??;
    Ok(StdioTransport {
        stdin: Mutex::new(stdin),
        group,
        stderr: stderr_lines,
        exited,
    })
}

/// Reads messages until the end of stdout. A line that is not JSON-RPC is not guessed at: the
/// first such line is returned (quoted, shortened) for the report, the rest are skipped.
pub(super) fn read_messages(stdout: impl std::io::Read, sink: &Sink) -> Option<String> {
    let mut reader = BufReader::with_capacity(64 << 10, stdout);
    let mut garbage = None;
    let mut line = Vec::new();
    while let Some(cut) = next_line(&mut reader, MAX_LINE, &mut line) {
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        match (!cut).then(|| rpc::parse(text).ok()).flatten() {
            Some(message) => sink.deliver(message),
            None if garbage.is_none() => {
                let shown: String = text.chars().take(80).collect();
                let what = format!("something that is not JSON-RPC ({shown:?})");
                sink.garbage(format!("{what} on stdout"));
                garbage = Some(what);
            }
            None => {}
        }
    }
    garbage
}

/// Keeps the last lines of the server's stderr, each cut to [`STDERR_LINE_BYTES`], reading on
/// to the end whatever comes (bytes that are not UTF-8, a line that never ends): a reader that
/// stopped would leave the server blocked, or killed by SIGPIPE, at its next write.
pub(super) fn keep_tail(stderr: impl std::io::Read, lines: &Mutex<VecDeque<String>>) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    while let Some(cut) = next_line(&mut reader, STDERR_LINE_BYTES, &mut line) {
        let text = String::from_utf8_lossy(&line);
        let text = clipped(text.trim(), STDERR_LINE_BYTES, cut);
        if text.is_empty() {
            continue;
        }
        let mut lines = lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(text);
    }
}

/// Reads the next line into `line`, at most `cap` bytes of it and its newline; the rest of a
/// longer line is skipped, never read as a line of its own. `Some(true)` for a line that was
/// cut, `None` at the end of the stream (or when it fails).
fn next_line(reader: &mut impl BufRead, cap: usize, line: &mut Vec<u8>) -> Option<bool> {
    line.clear();
    match (&mut *reader).take(cap as u64 + 1).read_until(b'\n', line) {
        Ok(0) | Err(_) => return None,
        Ok(_) => {}
    }
    let cut = line.len() > cap && !line.ends_with(b"\n");
    if cut {
        reader.skip_until(b'\n').ok()?;
    }
    Some(cut)
}

/// `text`, at most `max` bytes of it (cut at a character boundary), with an ellipsis when it
/// was cut here or before.
fn clipped(text: &str, max: usize, cut: bool) -> String {
    if text.len() <= max && !cut {
        return text.to_string();
    }
    let end = (0..=max.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}…", &text[..end])
}

impl Transport for StdioTransport {
    fn send(&self, message: String) -> Result<(), String> {
        let mut stdin = self.stdin.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(pipe) = stdin.as_mut() else {
            return Err("the server was stopped".into());
        };
        let mut line = message.into_bytes();
        line.push(b'\n');
        pipe.write_all(&line)
            .and_then(|()| pipe.flush())
            .map_err(|e| format!("the server stopped reading ({e})"))
    }

    /// Closes stdin (the spec's way to ask a stdio server to end), then SIGTERM and SIGKILL
    /// to its process group if it lingers.
    fn close(&self) {
        self.stdin
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        for (grace, signal) in [
            (Duration::from_millis(500), libc::SIGTERM),
            (Duration::from_secs(2), libc::SIGKILL),
        ] {
            let deadline = Instant::now() + grace;
            while !self.exited.load(Ordering::SeqCst) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if self.exited.load(Ordering::SeqCst) {
                return;
            }
            kill_group(self.group, signal);
        }
    }

    fn diagnostics(&self) -> String {
        let lines = self.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::mcp::connection::Connection;

    /// Keeps what is sent.
    struct Recorder(Arc<Mutex<Vec<String>>>);

    impl Transport for Recorder {
        fn send(&self, message: String) -> Result<(), String> {
            self.0.lock().unwrap().push(message);
            Ok(())
        }
        fn close(&self) {}
    }

    #[test]
    fn the_rest_of_a_line_over_the_cap_is_not_a_message() {
        let ping = r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;
        let mut stdout = vec![b'x'; MAX_LINE + 1];
        stdout.extend_from_slice(format!("{ping}\n{ping}\n").as_bytes());
        let sent = Arc::new(Mutex::new(Vec::new()));
        let mut sink = None;
        let connection = Connection::open(|given| {
            sink = Some(given);
            Ok(Box::new(Recorder(Arc::clone(&sent))))
        })
        .unwrap();
        let garbage = read_messages(&stdout[..], &sink.unwrap());
        assert_eq!(
            sent.lock().unwrap().len(),
            1,
            "only the ping on a line of its own"
        );
        assert!(
            garbage
                .unwrap()
                .starts_with("something that is not JSON-RPC")
        );
        assert!(connection.diagnostics().contains("not JSON-RPC"));
    }

    #[test]
    fn stderr_without_line_ends_or_utf8_is_read_to_the_end() {
        let mut stderr = vec![b'e'; 3 << 20];
        stderr.extend_from_slice(b"\n\xff\xfe last words \xff\nbye\n");
        let mut rest = &stderr[..];
        let kept = Mutex::new(VecDeque::new());
        keep_tail(&mut rest, &kept);
        assert!(rest.is_empty(), "{} bytes left unread", rest.len());
        let kept = kept.into_inner().unwrap();
        assert_eq!(kept.len(), 3);
        assert_eq!(kept[0], format!("{}…", "e".repeat(STDERR_LINE_BYTES)));
        assert_eq!(kept[1], "\u{fffd}\u{fffd} last words \u{fffd}");
        assert_eq!(kept[2], "bye");
    }
}
