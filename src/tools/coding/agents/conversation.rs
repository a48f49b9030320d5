//! A sub-agent that may ask: the child runs with `--json --on-ask stdin`, its events are read
//! as they come, its questions, approvals (with the scopes its tool offers) and input forms
//! are asked of the parent's person (the terminal, the form, or the parent's own `--on-ask`),
//! and the answers are written back to its stdin (a form closed unanswered as `cancel`).
//! What the model gets is the child's answer as the plain stream would have shown it.

use std::collections::HashSet;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::interact::wire::{answer_json, request_from_event};
use crate::interact::{CompletedView, Interactor, MAX_REPROMPTS, Presentation, Prompt};
use crate::interact::{Request, Response, Scope, Unavailable};
use crate::tools::ToolContext;
use crate::tools::kit::process::{Ending, OUTPUT_CAP, RunOutput, ending_of, kill_group};

/// How long a relayed question may wait for the parent's person.
const QUESTION_TIMEOUT: Duration = Duration::from_secs(10 * 60);
const POLL: Duration = Duration::from_millis(20);

/// What the child's stream carried, line by line.
enum Line {
    Out(String),
    Err(String),
    Exited(io::Result<std::process::ExitStatus>),
}

/// Runs `command` (already given its flags) with `--json --on-ask stdin`, relaying its
/// questions to `interactor`; the output is the plain transcript, then its stderr (which ends
/// with the MARVIN_COST line).
pub(super) fn run(
    mut command: Command,
    ctx: &ToolContext,
    interactor: &dyn Interactor,
    log: &Path,
    timeout: Duration,
) -> io::Result<RunOutput> {
    command
        .args(["--json", "--on-ask", "stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = command.spawn()?;
    let group = child.id() as libc::pid_t;
    let mut stdin = child.stdin.take();
    let (sender, lines) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        forward(stdout, sender.clone(), Line::Out);
    }
    if let Some(stderr) = child.stderr.take() {
        forward(stderr, sender.clone(), Line::Err);
    }
    std::thread::spawn(move || {
        let _ = sender.send(Line::Exited(child.wait()));
    });
    let mut transcript = Transcript {
        log: log.to_path_buf(),
        ..Transcript::default()
    };
    let deadline = Instant::now() + timeout;
    let ending = loop {
        match lines.recv_timeout(POLL) {
            Ok(Line::Out(line)) => match transcript.event(&line, interactor) {
                Some(Some(answer)) => answer_child(&mut stdin, &answer),
                // Nobody answered a question: closing stdin is the child's "no answer".
                Some(None) => stdin = None,
                None => {}
            },
            Ok(Line::Err(line)) => transcript.stderr.push_str(&format!("{line}\n")),
            Ok(Line::Exited(status)) => break ending_of(status?),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(io::Error::other("lost the sub-agent"));
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
        if ctx.cancel.is_cancelled() {
            break Ending::Cancelled;
        }
        if Instant::now() >= deadline {
            break Ending::TimedOut;
        }
    };
    kill_group(group, libc::SIGKILL);
    // What the readers still hold comes in for a moment after the exit.
    let drain = Instant::now() + Duration::from_millis(300);
    while let Ok(line) = lines.recv_timeout(drain.saturating_duration_since(Instant::now())) {
        match line {
            Line::Out(line) => drop(transcript.event(&line, interactor)),
            Line::Err(line) => transcript.stderr.push_str(&format!("{line}\n")),
            Line::Exited(_) => {}
        }
    }
    Ok(RunOutput {
        output: transcript.output(),
        omitted: 0,
        ending,
    })
}

fn forward(stream: impl Read + Send + 'static, to: mpsc::Sender<Line>, wrap: fn(String) -> Line) {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if to.send(wrap(line)).is_err() {
                return;
            }
        }
    });
}

/// Writes one answer line to the child; a child that stopped reading is left to end.
fn answer_child(stdin: &mut Option<ChildStdin>, answer: &Value) {
    if let Some(pipe) = stdin {
        if pipe.write_all(format!("{answer}\n").as_bytes()).is_err() || pipe.flush().is_err() {
            *stdin = None;
        }
    }
}

/// The child's answer as the plain stream shows it: text, and `  🔧 a, b` before each round.
#[derive(Default)]
struct Transcript {
    text: String,
    stderr: String,
    /// The audit log, where each relayed question is recorded with its answer.
    log: PathBuf,
    /// The last question relayed, and how often it was asked again because the child could
    /// not use the answer.
    last: Option<(Value, usize)>,
    /// The child's questions that closed (answered, timed out, its turn over).
    closed: HashSet<u64>,
}

impl Transcript {
    /// Takes one event; when it was a question, returns the answer to write back (`None`:
    /// nobody answered).
    fn event(&mut self, line: &str, interactor: &dyn Interactor) -> Option<Option<Value>> {
        let event: Value = serde_json::from_str(line).ok()?;
        match event["type"].as_str()? {
            // As much as the plain runner keeps; the rest is dropped.
            "text" if self.text.len() < OUTPUT_CAP => {
                self.text.push_str(event["text"].as_str().unwrap_or(""))
            }
            "tool_round" => {
                let names: Vec<&str> = event["calls"]
                    .as_array()
                    .map(|calls| calls.iter().filter_map(|c| c["name"].as_str()).collect())
                    .unwrap_or_default();
                if !self.text.is_empty() && !self.text.ends_with('\n') {
                    self.text.push('\n');
                }
                self.text.push_str(&format!("  🔧 {}\n", names.join(", ")));
            }
            "error" => {
                let message = event["message"].as_str().unwrap_or("");
                self.stderr.push_str(&format!("marvin: {message}\n"));
            }
            "question" | "approval" | "input" => {
                self.last = Some((event.clone(), 0));
                return Some(self.ask(&event, interactor));
            }
            "question_closed" => {
                if let Some(id) = event["id"].as_u64() {
                    self.closed.insert(id);
                }
            }
            "answer_error" => return self.answer_refused(&event, interactor),
            _ => {}
        }
        None
    }

    /// Relays a question and records it with its answer in the audit log.
    fn ask(&mut self, event: &Value, interactor: &dyn Interactor) -> Option<Value> {
        let answer = relay(event, interactor);
        let said = answer.as_ref().map_or("no answer".into(), Value::to_string);
        let asked = match event["type"].as_str() {
            Some("approval") => format!("{} {}", event["summary"], event["detail"]),
            Some("input") => format!("{} {}", event["prompt"], event["inputSchema"]["fields"]),
            _ => event["questions"].to_string(),
        };
        let tool = event["tool"].as_str().unwrap_or("");
        // The child logs its own call too; a log that cannot be written is its to say.
        let _ = crate::audit::relayed(&self.log, tool, &asked, &said);
        answer
    }

    /// The child could not use what was relayed: the question is asked again with the
    /// child's words above it, a few times; then the child goes on without an answer. A
    /// question that closed meanwhile takes none.
    fn answer_refused(
        &mut self,
        error: &Value,
        interactor: &dyn Interactor,
    ) -> Option<Option<Value>> {
        let id = error["id"].as_u64();
        if id.is_some_and(|id| self.closed.contains(&id)) {
            return None;
        }
        let (mut event, tries) = self.last.take()?;
        if event["id"].as_u64() != id || tries >= MAX_REPROMPTS {
            return Some(None);
        }
        event["error"] = error["message"].clone();
        self.last = Some((event.clone(), tries + 1));
        Some(self.ask(&event, interactor))
    }

    fn output(&self) -> String {
        format!("{}\n{}", self.text.trim_end(), self.stderr)
    }
}

/// Asks the parent's person what the child asked; the answer in the child's terms, or `None`
/// when a question got none.
fn relay(event: &Value, interactor: &dyn Interactor) -> Option<Value> {
    let id = event["id"].clone();
    // A question that cannot be read is not answered (the child goes on without).
    let request = as_the_parents(request_from_event(event)?);
    let mut prompt = Prompt {
        error: event["error"].as_str().map(str::to_string),
        // The call that started the sub-agent; its interactor names it.
        ..Prompt::new(request.clone(), QUESTION_TIMEOUT)
    };
    if let Some(presentation) = event["presentation"].as_str().and_then(Presentation::parse) {
        prompt.presentation = presentation;
    }
    if let Ok(completed) = CompletedView::parse(&event["completedView"]) {
        prompt.completed = completed;
    }
    let response = interactor.ask(&prompt);
    if let Some(answer) = response.as_ref().ok().and_then(|r| answer_json(&id, r)) {
        return Some(answer);
    }
    match (&request, response) {
        (Request::Approval(_), Ok(Response::Parked)) => Some(json!({"id": id, "approve": "no",
            "reason": "a run parked on its questions cannot wait for a sub-agent's: ask in plain text instead"})),
        (Request::Approval(_), response) => {
            let why = match response {
                Err(Unavailable::Cancelled) | Ok(Response::Cancelled) => "cancelled it",
                Ok(Response::TimedOut) => "gave no answer in time",
                _ => "gave no answer",
            };
            let reason = format!("the person who started the sub-agent {why}");
            Some(json!({"id": id, "approve": "no", "reason": reason}))
        }
        // A question cannot be denied: closing stdin is the child's "no answer" for it.
        _ => None,
    }
}

/// The child's question as the parent shows it: marked as the sub-agent's.
fn as_the_parents(request: Request) -> Request {
    match request {
        Request::Approval(mut approval) => {
            // The child's session ends with its task: nothing granted to it is kept for always.
            let mut scopes: Vec<Scope> = approval.offered();
            scopes.retain(|scope| *scope != Scope::Always);
            if scopes.is_empty() {
                scopes.push(Scope::Once);
            }
            approval.scopes = scopes;
            approval.tool = format!("{} (sub-agent)", approval.tool);
            approval.summary = format!("A sub-agent: {}", approval.summary);
            Request::Approval(approval)
        }
        Request::Questions(mut questions) => {
            for question in &mut questions {
                question.question = format!("(sub-agent) {}", question.question);
            }
            Request::Questions(questions)
        }
        Request::Input(mut form) => {
            form.prompt = format!("(sub-agent) {}", form.prompt).trim().to_string();
            Request::Input(form)
        }
        other => other,
    }
}
