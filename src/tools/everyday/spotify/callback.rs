//! Where the browser comes back after the Spotify sign-in: a tiny_http thread behind the gate
//! (`web::listen`) on 127.0.0.1:<port> serving `/callback` while spotify_auth waits. It answers
//! only a loopback `Host` (DNS rebinding, as the interview's server), ignores an answer whose
//! `state` is not this sign-in's (the page says so and the wait goes on; at the gate such
//! connections wait among the strangers, never in the browser's places), and passes the code,
//! or Spotify's refusal (`error=access_denied`), to the waiting tool; the page tells the person
//! they may close it. Stopped and joined when dropped.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use tiny_http::{Method, Request, Response};

use crate::tools::kit::web::percent_decode;
use crate::web::{self, HttpResponse, Listening, Pool};

/// Connections served at once that come back from this sign-in; whoever else tries waits among
/// the gate's strangers.
const MAX_CONNECTIONS: usize = 8;

/// What came back.
#[derive(Debug, PartialEq)]
pub(super) enum Answer {
    /// The authorisation code.
    Code(String),
    /// Spotify's `error` (the person declined: `access_denied`).
    Refused(String),
}

pub(super) struct Callback {
    server: Arc<Listening>,
    thread: Option<JoinHandle<()>>,
    answers: Receiver<Answer>,
}

impl Callback {
    /// Listens on 127.0.0.1:`port` for the answer carrying `state`; the server's private
    /// socket goes under `temp`.
    pub(super) fn start(port: u16, state: String, temp: &Path) -> Result<Callback, String> {
        let limits = web::Limits {
            body: 0,
            connections: MAX_CONNECTIONS,
            too_big: no_body,
        };
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let server = web::listen(address, temp, "spotify", limits, admit(state.clone())).map_err(|e| {
            format!(
                "Cannot listen on 127.0.0.1:{port} for Spotify's answer ({e}): another program uses the port. Stop it and try again, or set SPOTIFY_REDIRECT_PORT to a free port and register http://127.0.0.1:<that port>/callback with the Spotify app."
            )
        })?;
        let server = Arc::new(server);
        let pool = Pool::start(&format!("spotify-{port}"), 1, web::busy)
            .map_err(|e| format!("Cannot start the Spotify sign-in's server: {e}."))?;
        let (sender, answers) = mpsc::channel();
        let serving = Arc::clone(&server);
        let thread = std::thread::Builder::new()
            .name(format!("spotify-{port}"))
            .spawn(move || serve(&serving, port, &state, &pool, &sender))
            .map_err(|e| format!("Cannot start the Spotify sign-in's server: {e}."))?;
        Ok(Callback {
            server,
            thread: Some(thread),
            answers,
        })
    }

    /// The answer, if one comes within `wait`.
    pub(super) fn wait(&self, wait: Duration) -> Option<Answer> {
        self.answers.recv_timeout(wait).ok()
    }
}

impl Drop for Callback {
    fn drop(&mut self) {
        self.server.server().unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(server: &Listening, port: u16, state: &str, pool: &Pool, answers: &Sender<Answer>) {
    for request in server.server().incoming_requests() {
        let (response, answer) = judge(&request, port, state);
        // Refused or not, answered without letting a body hold the thread up.
        pool.refuse(request, response);
        if let Some(answer) = answer {
            let _ = answers.send(answer);
        }
    }
}

/// Whom the gate lets take the callback's places: the browser coming back from this sign-in
/// (a loopback Host, `GET /callback` with this sign-in's `state`), as [`judge`] checks it.
fn admit(state: String) -> web::Admit {
    Box::new(move |request: &dyn web::Asked, port| {
        web::host_allowed(request, port)
            && request.method_name() == "GET"
            && web::path_and_query(request).0 == "/callback"
            && carries_state(request, &state)
    })
}

/// Whether the request's query has `state`, compared in constant time.
fn carries_state<R: web::Asked + ?Sized>(request: &R, state: &str) -> bool {
    let (_, query) = web::path_and_query(request);
    let given = web::query_param(query, "state").map(|v| percent_decode(&v.replace('+', " ")));
    crate::secret::same(given.unwrap_or_default().as_bytes(), state.as_bytes())
}

/// The page for `request`, and the answer it brings, if any.
fn judge(request: &Request, port: u16, state: &str) -> (HttpResponse, Option<Answer>) {
    if !web::host_allowed(request, port) {
        return (page(403, "This address answers only on 127.0.0.1."), None);
    }
    let (path, query) = web::path_and_query(request);
    if request.method() != &Method::Get || path != "/callback" {
        return (
            page(
                404,
                "Nothing here: this server waits for Spotify's sign-in answer only.",
            ),
            None,
        );
    }
    let param = |name| web::query_param(query, name).map(|v| percent_decode(&v.replace('+', " ")));
    if !carries_state(request, state) {
        return (
            page(
                400,
                "This answer does not belong to the sign-in Marvin is waiting for (its state differs), so it was ignored. Open the address Marvin showed in the terminal to sign in.",
            ),
            None,
        );
    }
    if let Some(error) = param("error") {
        let text = format!("Spotify did not sign Marvin in ({error}). You can close this tab.");
        return (page(200, &text), Some(Answer::Refused(error)));
    }
    match param("code").filter(|code| !code.is_empty()) {
        Some(code) => (
            page(
                200,
                "Marvin has Spotify's answer. You can close this tab and go back to the terminal.",
            ),
            Some(Answer::Code(code)),
        ),
        None => (page(400, "Spotify's answer carries no code."), None),
    }
}

/// A small page saying `text`.
fn page(status: u16, text: &str) -> HttpResponse {
    let html = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Marvin · Spotify</title></head><body style=\"font-family: sans-serif; margin: 3em\"><p>{}</p></body></html>",
        escape(text)
    );
    web::with_headers(Response::from_string(html), "text/html; charset=utf-8")
        .with_status_code(status)
}

/// The callback is a GET: a request announcing a body is refused at the gate.
fn no_body() -> HttpResponse {
    page(
        413,
        "This address takes no request body: it waits for Spotify's sign-in answer only.",
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
