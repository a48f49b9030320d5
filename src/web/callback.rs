//! Where the browser comes back after an OAuth sign-in (Spotify's, an MCP server's): a tiny_http
//! thread behind the gate (`web::listen`) on 127.0.0.1:<port> serving `/callback` while the
//! sign-in waits. It answers
//! only a loopback `Host` (DNS rebinding, as the interview's server), ignores an answer whose
//! `state` is not this sign-in's (the page says so and the wait goes on; at the gate such
//! connections wait among the strangers, never in the browser's places), and passes the code,
//! or the service's refusal (`error=access_denied`), to the waiting sign-in; the page tells the person
//! they may close it. Stopped and joined when dropped.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use tiny_http::{Method, Request, Response};

use super::{self as web, HttpResponse, Listening, Pool};
use crate::tools::kit::web::percent_decode;

/// Connections served at once that come back from this sign-in; whoever else tries waits among
/// the gate's strangers.
const MAX_CONNECTIONS: usize = 8;

/// What came back.
#[derive(Debug, PartialEq)]
pub(crate) enum Answer {
    /// The authorisation code.
    Code(String),
    /// The service's `error` (the person declined: `access_denied`).
    Refused(String),
}

pub(crate) struct Callback {
    server: Arc<Listening>,
    thread: Option<JoinHandle<()>>,
    answers: Receiver<Answer>,
    port: u16,
}

impl Callback {
    /// Listens on 127.0.0.1:`port` (0: any free port) for `who`'s answer carrying `state`; the
    /// server's private socket goes under `temp`. The error is the system's.
    pub(crate) fn start(
        port: u16,
        state: String,
        temp: &Path,
        who: &str,
    ) -> Result<Callback, String> {
        let limits = web::Limits {
            body: 0,
            connections: MAX_CONNECTIONS,
            too_big: no_body,
        };
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let server = web::listen(address, temp, "sign-in", limits, admit(state.clone()))
            .map_err(|e| e.to_string())?;
        let port = server.port();
        let server = Arc::new(server);
        let pool = Pool::start(&format!("sign-in-{port}"), 1, web::busy)
            .map_err(|e| format!("Cannot start the {who} sign-in's server: {e}."))?;
        let (sender, answers) = mpsc::channel();
        let serving = Arc::clone(&server);
        let who = who.to_string();
        let thread = std::thread::Builder::new()
            .name(format!("sign-in-{port}"))
            .spawn(move || serve(&serving, port, &state, &who, &pool, &sender))
            .map_err(|e| format!("Cannot start the sign-in's server: {e}."))?;
        Ok(Callback {
            server,
            thread: Some(thread),
            answers,
            port,
        })
    }

    /// The port it listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The answer, if one comes within `wait`.
    pub(crate) fn wait(&self, wait: Duration) -> Option<Answer> {
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

fn serve(
    server: &Listening,
    port: u16,
    state: &str,
    who: &str,
    pool: &Pool,
    answers: &Sender<Answer>,
) {
    for request in server.server().incoming_requests() {
        let (response, answer) = judge(&request, port, state, who);
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
fn judge(request: &Request, port: u16, state: &str, who: &str) -> (HttpResponse, Option<Answer>) {
    if !web::host_allowed(request, port) {
        return (
            page(403, "This address answers only on 127.0.0.1.", who),
            None,
        );
    }
    let (path, query) = web::path_and_query(request);
    if request.method() != &Method::Get || path != "/callback" {
        return (
            page(
                404,
                &format!("Nothing here: this server waits for the {who} sign-in's answer only."),
                who,
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
                who,
            ),
            None,
        );
    }
    if let Some(error) = param("error") {
        let text = format!("{who} did not sign Marvin in ({error}). You can close this tab.");
        return (page(200, &text, who), Some(Answer::Refused(error)));
    }
    match param("code").filter(|code| !code.is_empty()) {
        Some(code) => (
            page(
                200,
                &format!(
                    "Marvin has {who}'s answer. You can close this tab and go back to the terminal."
                ),
                who,
            ),
            Some(Answer::Code(code)),
        ),
        None => (
            page(400, &format!("{who}'s answer carries no code."), who),
            None,
        ),
    }
}

/// A small page saying `text`.
fn page(status: u16, text: &str, who: &str) -> HttpResponse {
    let html = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Marvin · {}</title></head><body style=\"font-family: sans-serif; margin: 3em\"><p>{}</p></body></html>",
        escape(who),
        escape(text)
    );
    web::with_headers(Response::from_string(html), "text/html; charset=utf-8")
        .with_status_code(status)
}

/// The callback is a GET: a request announcing a body is refused at the gate.
fn no_body() -> HttpResponse {
    web::with_headers(
        Response::from_string(
            "This address takes no request body: it waits for a sign-in's answer only.",
        ),
        "text/plain; charset=utf-8",
    )
    .with_status_code(413)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
