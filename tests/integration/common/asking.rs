//! A run of `marvin --non-interactive --json --on-ask stdin`: its `--json` events read on a
//! thread of their own, answers written to its stdin as a script would.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A run and its event stream.
pub struct Script {
    pub child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Value>,
}

impl Script {
    /// `command` (given its flags) run with its stdin and stdout piped to the script.
    pub fn spawn(mut command: Command) -> Self {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, events) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap();
                let event = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
                if sender.send(event).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            events,
        }
    }

    /// The next event of `kind`, the ones before it skipped.
    pub fn next(&self, kind: &str) -> Value {
        self.next_of(&[kind])
    }

    /// The next event of one of `kinds`, the ones before it skipped.
    pub fn next_of(&self, kinds: &[&str]) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut skipped = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = self
                .events
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no {kinds:?} event came; after: {skipped:?}"));
            if kinds.iter().any(|kind| event["type"] == *kind) {
                return event;
            }
            skipped.push(event);
        }
    }

    pub fn answer(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    pub fn finish(mut self) -> std::process::Output {
        self.stdin = None;
        self.child.wait_with_output().unwrap()
    }
}

impl Script {
    /// Answers with `answer` written as one JSON line.
    pub fn send(&mut self, answer: Value) {
        self.answer(&answer.to_string());
    }

    /// Answers the next input form of the run with `input`; returns its event.
    pub fn fill(&mut self, input: Value) -> Value {
        let form = self.next("input");
        self.send(serde_json::json!({"id": form["id"], "input": input}));
        form
    }
}
