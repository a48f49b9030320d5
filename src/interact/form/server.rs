//! The form's HTTP server (seed 000 server.ts): tiny_http behind the gate (`web::listen`) on
//! 127.0.0.1 at a port the OS picks, in its own thread, serving the page and taking the answers,
//! which reach the waiting tool over a channel. Every request must carry the session token
//! (query for GET, the `X-Marvin-Session` header for POST, checked before any body is read) and
//! a loopback `Host` with the right port, so no other site and no other user of the machine can
//! read, answer or stall the form. Dropping the server stops it, closes its port and joins its
//! thread, whatever path the tool leaves by.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tiny_http::{Method, Request, Response};

use super::draft::{Draft, MAX_DRAFT_BYTES};
use super::pictures;
use super::questions::{Interview, Reply};
use super::trace::Trace;
use super::uploads::UploadDir;
use crate::secret;
use crate::web::{self, HttpResponse, asset, header, json_response, text, with_headers};

mod submit;

/// The largest request body taken (images come base64 inside the JSON).
pub const MAX_BODY_BYTES: usize = 15 * 1024 * 1024;
/// Where a POST carries the session token, so it is checked before the body is read.
pub const SESSION_HEADER: &str = "X-Marvin-Session";
/// How long a POST body may take to arrive.
const BODY_DEADLINE: Duration = Duration::from_secs(30);
/// POST bodies read at once; more are told the form is busy.
const MAX_BODY_THREADS: usize = 4;
/// Connections with the token served at once (the page makes a few; each is closed after its
/// answer). Connections without it wait among the gate's strangers.
const MAX_CONNECTIONS: usize = 32;

/// Where the page's data goes in index.html, and where the token goes in its links.
const DATA_PLACEHOLDER: &str = "/* __INTERVIEW_DATA_PLACEHOLDER__ */";
const TOKEN_PLACEHOLDER: &str = "__SESSION_TOKEN__";

/// The page, embedded in the binary by the tool.
#[derive(Clone, Copy)]
pub struct Assets {
    pub html: &'static str,
    pub css: &'static str,
    pub js: &'static str,
    /// What renders content blocks and media (blocks.js).
    pub blocks: &'static str,
}

/// What the person did in the browser.
#[derive(Debug, Clone, PartialEq)]
pub enum FormEvent {
    Submitted(Vec<Reply>),
    Cancelled,
}

/// Where the interview stands, as the page learns from /health and /heartbeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Open,
    Submitted,
    Cancelled,
    /// Answered on the other surface: the terminal.
    AnsweredInTerminal,
    Expired,
}

impl State {
    fn name(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Submitted => "submitted",
            Self::Cancelled => "cancelled",
            Self::AnsweredInTerminal => "answered-in-terminal",
            Self::Expired => "expired",
        }
    }

    fn closed_message(self) -> &'static str {
        match self {
            Self::Open => "",
            Self::Submitted => "These answers were already sent.",
            Self::Cancelled => "This interview was cancelled.",
            Self::AnsweredInTerminal => "This interview was answered in the terminal.",
            Self::Expired => "This interview has expired.",
        }
    }
}

struct Shared {
    interview: Interview,
    assets: Assets,
    token: String,
    port: u16,
    timeout_secs: u64,
    /// When Marvin stops waiting: the page counts down to it, however late it is opened.
    deadline: Instant,
    uploads: UploadDir,
    /// What image paths typed in the page are relative to: the working directory.
    base_dir: PathBuf,
    trace: Trace,
    draft: Draft,
    state: Mutex<State>,
    last_heartbeat: Mutex<Option<Instant>>,
    events: Sender<FormEvent>,
    /// Who answers requests with a body.
    pool: web::Pool,
}

pub struct FormServer {
    /// `None` once dropped.
    server: Option<Arc<web::Listening>>,
    thread: Option<JoinHandle<()>>,
    shared: Arc<Shared>,
    events: Receiver<FormEvent>,
}

/// How a form is served besides its questions and its page.
#[derive(Debug, Clone)]
pub struct Setup {
    /// Where uploaded images go (created on the first one).
    pub uploads: PathBuf,
    pub timeout_secs: u64,
    /// What image paths typed in the page are relative to.
    pub base_dir: PathBuf,
    /// Keep a line for each request, for [`FormServer::trace`].
    pub verbose: bool,
    /// The answers in progress, shared with the terminal.
    pub draft: Draft,
}

impl FormServer {
    /// Starts serving `interview`; images go to `uploads`, typed image paths are relative to
    /// the current directory.
    pub fn start(
        interview: Interview,
        assets: Assets,
        uploads: PathBuf,
        timeout_secs: u64,
    ) -> Result<Self, String> {
        let base_dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let setup = Setup {
            uploads,
            timeout_secs,
            base_dir,
            verbose: false,
            draft: Draft::default(),
        };
        Self::start_with(interview, assets, setup)
    }

    /// Starts serving `interview` as `setup` says.
    pub fn start_with(interview: Interview, assets: Assets, setup: Setup) -> Result<Self, String> {
        let Setup {
            uploads,
            timeout_secs,
            base_dir,
            verbose,
            draft,
        } = setup;
        let token = secret::random_hex(16)
            .map_err(|e| format!("No secure randomness for the form: {e}"))?;
        let server = Arc::new(listen(&uploads, admit(token.clone()))?);
        let port = server.port();
        let (sender, events) = mpsc::channel();
        let pool = web::Pool::start(&format!("form-{port}"), MAX_BODY_THREADS, web::busy)
            .map_err(|e| format!("Cannot start the form's thread: {e}"))?;
        let shared = Arc::new(Shared {
            interview,
            assets,
            token,
            port,
            timeout_secs,
            deadline: Instant::now() + Duration::from_secs(timeout_secs),
            uploads: UploadDir::new(uploads),
            base_dir,
            trace: Trace::new(verbose),
            draft,
            state: Mutex::new(State::Open),
            last_heartbeat: Mutex::new(None),
            events: sender,
            pool,
        });
        let thread = std::thread::Builder::new()
            // Named by port (Linux keeps 15 characters) to tell one interview from another.
            .name(format!("form-{port}"))
            .spawn({
                let server = server.clone();
                let shared = shared.clone();
                move || {
                    while let Ok(request) = server.server().recv() {
                        handle(&shared, request);
                    }
                }
            })
            .map_err(|e| format!("Cannot start the form's thread: {e}"))?;
        Ok(Self {
            server: Some(server),
            thread: Some(thread),
            shared,
            events,
        })
    }

    /// When the form stops taking answers (its timeout from the start).
    pub fn deadline(&self) -> Instant {
        self.shared.deadline
    }

    pub fn port(&self) -> u16 {
        self.shared.port
    }

    pub fn token(&self) -> &str {
        &self.shared.token
    }

    /// The page's address, token included.
    pub fn url(&self) -> String {
        format!(
            "http://127.0.0.1:{}/?session={}",
            self.shared.port, self.shared.token
        )
    }

    /// The next thing the person did in the browser, if anything within `timeout`.
    pub fn wait(&self, timeout: Duration) -> Option<FormEvent> {
        self.events.recv_timeout(timeout).ok()
    }

    /// Closes the form without a browser answer (answered in the terminal, expired): the page
    /// is told and further answers are refused.
    pub fn close(&self, state: State) {
        let mut current = lock(&self.shared.state);
        if *current == State::Open {
            *current = state;
        }
    }

    /// The answers in progress, as the page gets them: `{at, answers}`, or null.
    pub fn draft(&self) -> Value {
        self.shared.draft.snapshot()
    }

    /// The requests served, one line each, when `verbose` was set.
    pub fn trace(&self) -> Vec<String> {
        self.shared.trace.lines()
    }

    /// When the page last said it was open.
    pub fn last_heartbeat(&self) -> Option<Instant> {
        *lock(&self.shared.last_heartbeat)
    }

    /// Where uploaded images are kept.
    pub fn upload_dir(&self) -> &std::path::Path {
        self.shared.uploads.path()
    }
}

impl Drop for FormServer {
    fn drop(&mut self) {
        if let Some(server) = &self.server {
            server.server().unblock();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        // The last handle: the port is closed when this returns.
        drop(self.server.take());
        self.shared.uploads.remove_if_empty();
    }
}

/// The form's server on 127.0.0.1 at a port the OS picks, its private socket beside the
/// uploads' directory (in the temporary directory the tool chose); only those `admit` passes
/// take the form's places.
fn listen(uploads: &std::path::Path, admit: web::Admit) -> Result<web::Listening, String> {
    let temp = uploads.parent().unwrap_or(std::path::Path::new("/tmp"));
    let limits = web::Limits {
        body: MAX_BODY_BYTES,
        connections: MAX_CONNECTIONS,
        too_big: too_large,
    };
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    web::listen(address, temp, "form", limits, admit)
        .map_err(|e| format!("Cannot start the form's web server on 127.0.0.1: {e}"))
}

/// Whom the gate lets take the form's places: requests that pass [`screen`]'s checks of the
/// Host, the Origin and the token.
fn admit(token: String) -> web::Admit {
    Box::new(move |request: &dyn web::Asked, port| {
        web::host_allowed(request, port)
            && web::origin_allowed(request, port)
            && web::has_token(request, &token, SESSION_HEADER)
    })
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Serves a request: a GET without a body here; anything with a body through the pool, so a
/// body that trickles in holds up nothing else (see [`web::Pool`]).
fn handle(shared: &Arc<Shared>, request: Request) {
    let method = request.method().as_str().to_string();
    let path = web::path_and_query(&request).0.to_string();
    let response = match screen(shared, &request) {
        Ok(Route::Post(route)) => {
            let owned = Arc::clone(shared);
            return shared.pool.accept(request, move |mut request| {
                let deadline = Instant::now() + BODY_DEADLINE;
                let response =
                    match web::read_json_body(&mut request, MAX_BODY_BYTES, deadline, too_large) {
                        Ok(body) => match answer_post(&owned, route, &body) {
                            Ok(response) | Err(response) => response,
                        },
                        Err(response) => response,
                    };
                owned.trace.record(&method, &path, response.status_code().0);
                let _ = request.respond(response);
            });
        }
        Ok(Route::Get(route)) => get(shared, route),
        Ok(Route::Media(q, m)) => pictures::serve(&shared.interview, q, m),
        Err(response) => response,
    };
    shared
        .trace
        .record(&method, &path, response.status_code().0);
    shared.pool.refuse(request, response);
}

fn get(shared: &Shared, path: &str) -> HttpResponse {
    match path {
        "/" => page(shared),
        "/styles.css" => asset(shared.assets.css, "text/css; charset=utf-8"),
        "/script.js" => asset(shared.assets.js, "application/javascript; charset=utf-8"),
        "/blocks.js" => asset(
            shared.assets.blocks,
            "application/javascript; charset=utf-8",
        ),
        _ => json_response(200, &status(shared)),
    }
}

/// What a request that passed the checks asks for.
enum Route {
    Get(&'static str),
    Post(&'static str),
    /// A picture the questions show: question and item number.
    Media(usize, usize),
}

/// Everything that can be checked before a body is read: the Host, the Origin, the path, the
/// token (in the query, or for a POST in the `X-Marvin-Session` header); the gate has refused a
/// declared size over [`MAX_BODY_BYTES`] already. A client without the token never gets the
/// server to wait for a body.
fn screen(shared: &Shared, request: &Request) -> Result<Route, HttpResponse> {
    if !web::host_allowed(request, shared.port) {
        return Err(text(403, "Invalid host"));
    }
    if !web::origin_allowed(request, shared.port) {
        return Err(text(403, "Invalid origin"));
    }
    let (path, _) = web::path_and_query(request);
    let route = match (request.method(), path) {
        (Method::Get, "/") => Route::Get("/"),
        (Method::Get, "/styles.css") => Route::Get("/styles.css"),
        (Method::Get, "/script.js") => Route::Get("/script.js"),
        (Method::Get, "/blocks.js") => Route::Get("/blocks.js"),
        (Method::Get, "/health") => Route::Get("/health"),
        (Method::Post, "/heartbeat") => Route::Post("/heartbeat"),
        (Method::Post, "/cancel") => Route::Post("/cancel"),
        (Method::Post, "/submit") => Route::Post("/submit"),
        (Method::Post, "/draft") => Route::Post("/draft"),
        (Method::Get, path) => match pictures::route(path) {
            Some((q, m)) => Route::Media(q, m),
            None => return Err(text(404, "Not found")),
        },
        _ => return Err(text(404, "Not found")),
    };
    if !web::has_token(request, &shared.token, SESSION_HEADER) {
        return Err(match route {
            Route::Get(_) | Route::Media(..) => text(403, "Invalid session"),
            Route::Post(_) => json_response(403, &json!({"ok": false, "error": "Invalid session"})),
        });
    }
    Ok(route)
}

fn answer_post(shared: &Shared, path: &str, body: &Value) -> Result<HttpResponse, HttpResponse> {
    match path {
        "/heartbeat" => {
            *lock(&shared.last_heartbeat) = Some(Instant::now());
            Ok(json_response(200, &status(shared)))
        }
        "/cancel" => finish(shared, State::Cancelled, FormEvent::Cancelled),
        "/draft" => keep_draft(shared, body),
        _ => submit::submit(shared, body),
    }
}

/// The page's draft, kept for another surface (or the page opened again).
fn keep_draft(shared: &Shared, body: &Value) -> Result<HttpResponse, HttpResponse> {
    if body.to_string().len() > MAX_DRAFT_BYTES {
        return Err(json_response(
            413,
            &json!({"ok": false, "error": "The draft is too large to keep."}),
        ));
    }
    let ids: Vec<&str> = shared
        .interview
        .questions
        .iter()
        .map(|q| q.id.as_str())
        .collect();
    match shared.draft.replace(body, &ids) {
        Ok(()) => Ok(json_response(200, &json!({"ok": true}))),
        Err(why) => Err(json_response(400, &json!({"ok": false, "error": why}))),
    }
}

fn too_large() -> HttpResponse {
    json_response(
        413,
        &json!({"ok": false, "error": "The answers are too large (at most 15 MB with images)."}),
    )
}

fn status(shared: &Shared) -> Value {
    let state = *lock(&shared.state);
    json!({"ok": true, "state": state.name(), "message": state.closed_message()})
}

/// Ends the interview once: the first answer wins, later ones are told why they came late.
fn finish(shared: &Shared, state: State, event: FormEvent) -> Result<HttpResponse, HttpResponse> {
    let mut current = lock(&shared.state);
    if let Some(refusal) = refusal_if_closed(*current) {
        return Err(refusal);
    }
    *current = state;
    let _ = shared.events.send(event);
    Ok(json_response(200, &json!({"ok": true})))
}

/// 409 with the reason, once the interview has ended one way or another.
fn refusal_if_closed(state: State) -> Option<HttpResponse> {
    (state != State::Open).then(|| {
        json_response(
            409,
            &json!({"ok": false, "error": state.closed_message(), "state": state.name()}),
        )
    })
}

fn page(shared: &Shared) -> HttpResponse {
    let data = json!({
        "title": shared.interview.title,
        "description": shared.interview.description,
        "questions": shared.interview.questions,
        "sessionToken": shared.token,
        "timeout": shared.timeout_secs,
        // What is left now: a page opened late counts down from here, not from the start.
        "remainingMs": shared.deadline.saturating_duration_since(Instant::now()).as_millis() as u64,
        "draft": shared.draft.snapshot(),
    });
    let html = shared
        .assets
        .html
        .replace(DATA_PLACEHOLDER, &inline_json(&data))
        .replace(TOKEN_PLACEHOLDER, &shared.token);
    let policy = "default-src 'none'; script-src 'self'; style-src 'self'; \
        img-src 'self' data: blob:; connect-src 'self'; form-action 'none'; \
        frame-ancestors 'none'; base-uri 'none'";
    with_headers(Response::from_string(html), "text/html; charset=utf-8")
        .with_header(header("Content-Security-Policy", policy))
}

/// JSON that is safe inside a `<script>` element: no `<`, `>` or `&` to end it early.
fn inline_json(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}
