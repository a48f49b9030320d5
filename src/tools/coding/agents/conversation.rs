//! A sub-agent that may ask: the child runs with `--json --on-ask stdin`, its events are read
//! as they come, its questions and approvals are asked of the parent's person (the terminal,
//! the form, or the parent's own `--on-ask`), and the answers are written back to its stdin.
//! What the model gets is the child's answer as the plain stream would have shown it.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::interact::{Answer, Approval, Choice, Interactor, Prompt, Question, Request, Response};
use crate::interact::{Scope, Unavailable};
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
            "question" | "approval" => {
                let answer = relay(&event, interactor);
                let said = answer.as_ref().map_or("no answer".into(), Value::to_string);
                let asked = match event["type"].as_str() {
                    Some("approval") => format!("{} {}", event["summary"], event["detail"]),
                    _ => event["questions"].to_string(),
                };
                let tool = event["tool"].as_str().unwrap_or("");
                // The child logs its own call too; a log that cannot be written is its to say.
                let _ = crate::audit::relayed(&self.log, tool, &asked, &said);
                return Some(answer);
            }
            "answer_error" => {
                // The child could not use what was relayed: it goes on without an answer.
                return Some(None);
            }
            _ => {}
        }
        None
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
    let request = request_of(event)?;
    let prompt = Prompt {
        request: request.clone(),
        error: event["error"].as_str().map(str::to_string),
        // The call that started the sub-agent; its interactor names it.
        ..Prompt::new(request.clone(), QUESTION_TIMEOUT)
    };
    let response = interactor.ask(&prompt);
    match (request, response) {
        (Request::Approval(_), Ok(Response::Approved(scope))) => {
            let scope = match scope {
                Scope::AllEdits => "all_edits",
                // The child's session ends with its task; nothing of it is kept for always.
                Scope::Session | Scope::Always => "session",
                Scope::Once => "once",
            };
            Some(json!({"id": id, "approve": scope}))
        }
        (Request::Approval(_), Ok(Response::Denied(reason))) => {
            Some(json!({"id": id, "approve": "no", "reason": reason}))
        }
        (Request::Questions(_), Ok(Response::Answers(answers))) => {
            let answers: Vec<Value> = answers
                .into_iter()
                .map(|answer| match answer {
                    Answer::One(label) | Answer::Other(label) => json!(label),
                    Answer::Many(labels) => json!(labels),
                })
                .collect();
            Some(json!({"id": id, "answers": answers}))
        }
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

/// The request a `question` or `approval` event stands for, as the parent shows it.
fn request_of(event: &Value) -> Option<Request> {
    if event["type"] == "approval" {
        let choices = event["choices"].as_array()?;
        return Some(Request::Approval(Approval {
            tool: format!("{} (sub-agent)", event["tool"].as_str()?),
            summary: format!("A sub-agent: {}", event["summary"].as_str()?),
            detail: event["detail"].as_str()?.to_string(),
            covers: event["covers"].as_str().unwrap_or("").to_string(),
            all_edits: choices.iter().any(|c| c == "all_edits"),
            scopes: Vec::new(),
        }));
    }
    let questions = event["questions"].as_array()?;
    let questions = questions
        .iter()
        .map(|q| {
            let options = q["options"].as_array()?;
            Some(Question {
                header: q["header"].as_str()?.to_string(),
                question: format!("(sub-agent) {}", q["question"].as_str()?),
                multi_select: q["multi_select"].as_bool().unwrap_or(false),
                initial: None,
                options: options
                    .iter()
                    .map(|o| {
                        Some(Choice {
                            label: o["label"].as_str()?.to_string(),
                            description: o["description"].as_str().unwrap_or("").to_string(),
                        })
                    })
                    .collect::<Option<Vec<Choice>>>()?,
            })
        })
        .collect::<Option<Vec<Question>>>()?;
    Some(Request::Questions(questions))
}
