//! `interview` (seed 000): many questions at once in a browser form served on 127.0.0.1. With
//! a display and not over SSH the browser opens on it; otherwise the person is shown the
//! address and the `ssh -L` line to reach it from their own machine, and may answer the same
//! questions in the terminal instead: the first answer wins and the other surface is told.
//! The tool waits for the answers, a cancel, the timeout or Ctrl+C, and the server is stopped
//! on every way out.

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use crate::interact::approvals::{Action, ActionKind};
use crate::interact::form;
use crate::interact::form::draft::{Draft, Entry};
use crate::interact::form::questions::{self, Interview, Reply, Status};
use crate::interact::form::server::{FormEvent, FormServer, Setup, State};
use crate::interact::form::{pictures, record, repair};
use crate::interact::{
    FormNotice, FormPurpose, Interactor, Prompt, Request, Response, TerminalForm,
};
use crate::tools::kit::{confined, paths};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

/// The seed's words when nobody can answer.
pub(crate) const NO_UI: &str =
    "Interview tool requires interactive mode. Cannot run in headless mode.";

/// A questions file larger than this is not a questions file.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

const PARAMS: &[Param] = &[
    Param::required(
        "questions",
        Kind::Any(Cow::Borrowed(
            r#"{"anyOf": [{"type": "string"}, {"type": "object"}]}"#,
        )),
        "The questions: a path to a JSON file (relative to the working directory, or absolute: a file outside it is read after the user approves), or the object itself: {title?, description?, questions: [{id, type: single|multi|text|image|info, question, options? (strings or {label, description?, content?, recommended?: true}), recommended? (a label, or labels for multi), conviction? (strong|slight; slight shows the recommendation without choosing it), weight? (critical|minor), context?, content? ({source, lang?, file?, lines? \"10-12\", highlights? [line numbers from 1], title?}; lang md renders Markdown), media? (one or a list of {type: image {src: a path here or a data: URI, alt?} | table {table: {headers, rows, highlights?}} | chart {chart: {type: bar|line|pie|doughnut, data: {labels, datasets: [{label, data: [numbers]}]}}} | mermaid {mermaid} | html {html}, caption?, position?: above|below|side}), optional? (true lets the person skip it; every other question but info must be answered)}]}",
    ),
    Param::optional(
        "timeout",
        Kind::Integer,
        "Seconds to wait for the answers (default 600)",
    ),
    Param::optional(
        "verbose",
        Kind::Boolean,
        "true: the result also lists the requests the form's page made (for when the form misbehaves)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "interview",
    about: "a browser form of several questions",
    words: &[
        "form",
        "questionnaire",
        "survey",
        "interview",
        "several questions",
        "many questions",
    ],
    asks: &[
        "ask me a few questions in a form",
        "give me a questionnaire",
        "collect my preferences with a form",
        "a survey with several questions",
        "interview me about the project",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![ToolDef::build("interview")
        .describe("Present an interactive form in the browser to gather many answers at once. Supports single-select, multi-select, text input, image upload and info-only items. The result has one line per question id, then JSON {status, answers: {id: answer}}: text typed under \"Other\" comes as {\"other\": text}, pictures as {\"images\": [file paths]} - use read_file or tools that take paths to look at them.")
        .offered(Offered::Everywhere)
        .params(PARAMS)
        .example(r#"{"questions": {"title": "New project", "questions": [{"id": "db", "type": "single", "question": "Which database?", "options": ["SQLite", "PostgreSQL"], "recommended": "SQLite"}, {"id": "name", "type": "text", "question": "Project name?"}]}}"#)
        .handler(interview)]
}

#[derive(Deserialize)]
struct Args {
    questions: Value,
    timeout: Option<i64>,
    verbose: Option<bool>,
}

fn interview(args: Args, ctx: &ToolContext) -> Result<String, String> {
    let Some(interactor) = ctx.interactor.clone() else {
        return Err(NO_UI.into());
    };
    let seconds = args.timeout.unwrap_or(600);
    if !(1..=3600).contains(&seconds) {
        return Err(format!(
            "timeout must be between 1 and 3600 seconds, not {seconds}."
        ));
    }
    let seconds = seconds as u64;
    let interview = load(&args.questions, ctx)?;
    let notes = interview.notes.clone();
    let asked_questions = interview.questions.clone();
    if ctx.cancel.is_cancelled() {
        return Ok(questions::result_text(
            Status::Aborted,
            None,
            &[],
            &[],
            seconds,
        ));
    }
    let how = How {
        seconds,
        short: false,
        verbose: args.verbose.unwrap_or(false),
    };
    let asked = ask(interview, how, &*interactor, ctx)?;
    let mut text = questions::result_text(
        asked.status,
        asked.answered_in,
        &asked_questions,
        &asked.replies,
        seconds,
    );
    if !notes.is_empty() {
        text.push_str("\n\nNotes on the questions:\n- ");
        text.push_str(&notes.join("\n- "));
    }
    if how.verbose {
        text.push_str("\n\nThe form's requests (verbose):\n- ");
        text.push_str(&asked.trace.join("\n- "));
    }
    Ok(text)
}

/// How a form is asked.
#[derive(Clone, Copy)]
struct How {
    seconds: u64,
    /// Asked in the terminal without opening a browser.
    short: bool,
    /// The form's requests are kept for the result.
    verbose: bool,
}

/// How a form ended: its answers, and the requests it served when `verbose`.
struct Asked {
    status: Status,
    /// Where: `browser` or `terminal`, when one of them ended it.
    answered_in: Option<&'static str>,
    replies: Vec<Reply>,
    trace: Vec<String>,
}

/// Shows `interview` as a form (the browser when one opens here, else its address and the same
/// questions in the terminal) and waits up to `seconds` for the first answer from either; for
/// the `interview` tool and an MCP server's elicitation.
///
/// `short`: a form of a few questions is asked in the terminal without opening a browser (its
/// address is still shown, for whoever prefers the page).
pub(crate) fn ask_form(
    interview: Interview,
    seconds: u64,
    short: bool,
    interactor: &dyn Interactor,
    ctx: &ToolContext,
) -> Result<(Status, Vec<Reply>), String> {
    let how = How {
        seconds,
        short,
        verbose: false,
    };
    ask(interview, how, interactor, ctx).map(|asked| (asked.status, asked.replies))
}

fn ask(
    interview: Interview,
    How {
        seconds,
        short,
        verbose,
    }: How,
    interactor: &dyn Interactor,
    ctx: &ToolContext,
) -> Result<Asked, String> {
    let title = interview
        .title
        .clone()
        .unwrap_or_else(|| "Marvin has some questions".into());
    let uploads = ctx.settings.temp_dir().join(format!(
        "marvin-interview-{}",
        crate::secret::random_hex(8).map_err(|e| format!("No secure randomness: {e}"))?
    ));
    let asked = interview.questions.clone();
    let description = interview.description.clone();
    let asked_record = record::asked(&interview);
    // The asker's defaults start the draft: both surfaces show them filled in.
    let draft = Draft::default();
    for question in &interview.questions {
        if let Some(default) = &question.default {
            draft.set(&question.id, &Entry::Text(default.clone()));
        }
    }
    let setup = Setup {
        uploads,
        timeout_secs: seconds,
        base_dir: ctx.working_dir(),
        verbose,
        draft: draft.clone(),
    };
    let server = FormServer::start_with(interview, form::page(), setup)?;
    let surface = &ctx.settings.form_surface;
    let reach = match short {
        true => Some("Not opening a browser for so short a form.".to_string()),
        false => surface.show(&server.url(), server.port()),
    };
    let opened = reach.is_none();
    let answered_elsewhere = Arc::new(AtomicBool::new(false));
    // Without a browser here the questions are offered in the terminal as well.
    let terminal = (!opened).then(|| TerminalForm {
        description,
        questions: asked,
        working_dir: ctx.working_dir(),
        draft,
        answered_elsewhere: answered_elsewhere.clone(),
    });
    let prompt = Prompt {
        request: Request::Form(FormNotice {
            purpose: FormPurpose::Interview,
            title,
            url: server.url(),
            opened,
            reach,
            terminal,
            record: Some(asked_record),
        }),
        error: None,
        timeout: Duration::from_secs(seconds),
        call_id: ctx.call_id.clone(),
        tool: String::new(),
        presentation: Default::default(),
        completed: Default::default(),
    };
    // The page counts down to the server's deadline: both stop at the same moment.
    let deadline = server.deadline();
    let (status, answered_in, replies) = first_answer(
        &server,
        interactor,
        &prompt,
        deadline,
        ctx,
        &answered_elsewhere,
    );
    Ok(Asked {
        status,
        answered_in,
        replies,
        trace: server.trace(),
    })
}

/// Waits for the first of: answers or a cancel from the browser, answers from the terminal,
/// the deadline, Ctrl+C. Then stops the other surface: the terminal stops asking, the page is
/// told.
fn first_answer(
    server: &FormServer,
    interactor: &dyn Interactor,
    prompt: &Prompt,
    deadline: Instant,
    ctx: &ToolContext,
    answered_elsewhere: &AtomicBool,
) -> (Status, Option<&'static str>, Vec<Reply>) {
    std::thread::scope(|scope| {
        let mut asking = Some(scope.spawn(|| interactor.ask(prompt)));
        let outcome = loop {
            if let Some(done) = asking.take_if(|handle| handle.is_finished()) {
                match done.join() {
                    Ok(Ok(Response::FormAnswers(replies))) => {
                        server.close(State::AnsweredInTerminal);
                        break (Status::Completed, Some("terminal"), replies);
                    }
                    // The notice was shown: the answers come from the browser.
                    Ok(Ok(Response::Shown)) => {}
                    Ok(Ok(Response::TimedOut)) => break (Status::Timeout, None, Vec::new()),
                    Ok(Ok(_)) => break (Status::Cancelled, Some("terminal"), Vec::new()),
                    Ok(Err(_)) | Err(_) => break (Status::Aborted, None, Vec::new()),
                }
            }
            if ctx.cancel.is_cancelled() {
                break (Status::Aborted, None, Vec::new());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break (Status::Timeout, None, Vec::new());
            }
            match server.wait(left.min(Duration::from_millis(100))) {
                Some(FormEvent::Submitted(replies)) => {
                    break (Status::Completed, Some("browser"), replies);
                }
                Some(FormEvent::Cancelled) => {
                    break (Status::Cancelled, Some("browser"), Vec::new());
                }
                None => {}
            }
        };
        answered_elsewhere.store(true, Ordering::SeqCst);
        server.close(State::Expired);
        if let Some(handle) = asking {
            let _ = handle.join();
        }
        outcome
    })
}

/// The questions from an inline object, a JSON string, or a file in the working directory;
/// JSON text is repaired as models need it (a code fence, comments, trailing commas), and
/// what was repaired noted for the result.
fn load(questions: &Value, ctx: &ToolContext) -> Result<Interview, String> {
    let (value, repairs) = match questions {
        Value::String(text) if looks_like_json(text) => {
            repair::read(text).map_err(|e| format!("questions: not valid JSON ({e})."))?
        }
        Value::String(path) => read_file(path, ctx)?,
        other => (other.clone(), Vec::new()),
    };
    let mut interview = questions::parse(&value)?;
    pictures::resolve(&mut interview, &ctx.working_dir())?;
    if !repairs.is_empty() {
        interview.notes.insert(
            0,
            format!(
                "The questions were not valid JSON as written; Marvin {} before reading them.",
                repairs.join(", ")
            ),
        );
    }
    Ok(interview)
}

/// Inline JSON rather than a path: an object, or one in a code fence.
fn looks_like_json(text: &str) -> bool {
    text.trim_start().starts_with(['{', '`'])
}

/// A questions file: relative to the working directory, or absolute. An absolute path
/// outside the working directory is read only after the person approves it (the approval
/// names the file); it is only read, never written.
fn read_file(input: &str, ctx: &ToolContext) -> Result<(Value, Vec<String>), String> {
    let shown = input.trim();
    let text = match Path::new(shown).is_absolute() {
        true => read_absolute(shown, ctx)?,
        false => read_relative(shown, ctx)?,
    };
    repair::read(&text).map_err(|e| format!("'{shown}' is not valid JSON: {e}."))
}

fn read_relative(shown: &str, ctx: &ToolContext) -> Result<String, String> {
    let path = paths::resolve(&ctx.working_dir(), shown)?;
    let opened = confined::open(&ctx.working_dir(), &path);
    let file = opened.map(|opened| opened.file).map_err(|e| {
        format!("Cannot read the questions file '{shown}': {e}. Give a path inside the working directory, or the questions object itself.")
    })?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("Cannot read '{shown}': {e}."))?;
    text_of(bytes, shown)
}

fn read_absolute(shown: &str, ctx: &ToolContext) -> Result<String, String> {
    let working = ctx.working_dir();
    let root = std::fs::canonicalize(&working).unwrap_or(working);
    let real = std::fs::canonicalize(shown)
        .map_err(|e| format!("Cannot read the questions file '{shown}': {e}."))?;
    if let Ok(inside) = real.strip_prefix(&root) {
        return read_relative(&inside.to_string_lossy(), ctx);
    }
    ctx.approve_in_every_mode(Action {
        tool: "interview".into(),
        kind: ActionKind::Act,
        key: format!("interview:read {}", real.display()),
        scope: None,
        summary: "interview wants to read its questions from a file outside the working directory (read only, to show them in the form):".into(),
        detail: real.display().to_string(),
    })?;
    let (bytes, _) = confined::read_any(&real, MAX_FILE_BYTES + 1)
        .map_err(|e| format!("Cannot read the questions file '{shown}': {e}."))?;
    text_of(bytes, shown)
}

fn text_of(bytes: Vec<u8>, shown: &str) -> Result<String, String> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "'{shown}' is larger than 1 MB; that is not a questions file."
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("'{shown}' is not UTF-8 text."))
}
