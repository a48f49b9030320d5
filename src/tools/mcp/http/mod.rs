//! The Streamable HTTP transport (MCP 2025-11-25): every message is its own POST to the one
//! address the person declared. A request's answer comes back on its own POST, as JSON or as an
//! event stream that may carry the server's requests first (an elicitation during a call), so
//! each request is read on a thread of its own; notifications and our answers get a bare 202.
//! The session the server names (`Mcp-Session-Id`) goes on every later POST and is ended with
//! DELETE. The declared headers (tokens) are kept out of every error. A server that asks for
//! a sign-in (401) gets the one `oauth` keeps, as a Bearer token on these requests alone.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::Duration;

use serde_json::Value;

use super::connection::{Sink, Transport};
use super::oauth::{self, Auth};
use super::rpc::{self, Incoming, RpcError};
use crate::net::{self, Response, Secrets};
use refused::Refused;

mod answer;
mod refused;
mod resume;

/// Reaching the server (name and connection) must not take longer than this.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Writing one message; reads have no limit, since a tool call may stream for minutes and the
/// caller keeps its own deadline.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// A notification or an answer of ours: the server acknowledges it at once (202).
const SHORT_EXCHANGE: Duration = Duration::from_secs(30);
/// Ending the session is a courtesy: it must not hold up Marvin's exit.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the session's start waits for the server to answer the GET of its own stream.
const LISTEN_OPENING: Duration = Duration::from_secs(2);
/// A JSON answer longer than this is not one a client can use (an image is a few MB at most).
/// An event stream is bounded per event instead ([`MAX_EVENT`]): only one is held at a time.
const MAX_BODY: u64 = 32 << 20;
/// Error answers are for a person to read: their start is enough.
const MAX_ERROR_BODY: u64 = 64 << 10;
/// How much of an error answer a message quotes.
const EXCERPT: usize = 200;
/// The code of a request that failed on the way (JSON-RPC's range for implementation errors),
/// when the server's answer carries none of its own.
const HTTP_FAILURE: i64 = -32000;

pub struct HttpTransport {
    shared: Arc<Shared>,
}

/// What the transport and its reading threads share.
struct Shared {
    url: String,
    /// The URL as messages show it (see [`shown`]).
    shown: String,
    headers: Vec<(String, String)>,
    secrets: Secrets,
    agent: ureq::Agent,
    /// The server's OAuth sign-in, unless its declaration carries its own Authorization.
    auth: Option<Auth>,
    session: Mutex<Session>,
    /// Set by `close`: the streams it interrupts end quietly.
    closing: AtomicBool,
    sink: Sink,
}

/// What the server told us about the session, sent back on every later POST.
#[derive(Clone, Default)]
struct Session {
    id: Option<String>,
    /// The negotiated version, from the initialize result.
    protocol: Option<String>,
}

/// Checks `url` and `headers` and prepares to reach the server; nothing is sent until the
/// first message (initialize). Messages name it as `declared` (its address as the file wrote
/// it, before a `${VAR}` was filled: a key may sit anywhere in the filled one). `sign_in` is
/// where its OAuth sign-in is kept, if it may have one.
pub fn start(
    url: &str,
    declared: &str,
    headers: &BTreeMap<String, String>,
    proxy: Option<&str>,
    sink: Sink,
    sign_in: Option<oauth::SignIn>,
) -> Result<HttpTransport, String> {
    let shown = shown(declared);
    check_url(url, &shown)?;
    for (name, value) in headers {
        check_header(name, value, &shown)?;
    }
    let shared = Shared {
        url: url.to_string(),
        shown,
        headers: headers
            .iter()
            .map(|(n, v)| (n.clone(), v.clone()))
            .collect(),
        secrets: secrets(url, headers),
        agent: agent(proxy),
        auth: sign_in
            .filter(|_| {
                !headers
                    .keys()
                    .any(|n| n.eq_ignore_ascii_case("authorization"))
            })
            .map(|sign_in| Auth::new(sign_in, url)),
        session: Mutex::new(Session::default()),
        closing: AtomicBool::new(false),
        sink,
    };
    Ok(HttpTransport {
        shared: Arc::new(shared),
    })
}

fn check_url(url: &str, shown: &str) -> Result<(), String> {
    let uri: ureq::http::Uri = url
        .parse()
        .map_err(|_| format!("{shown} is not a valid URL"))?;
    match uri.scheme_str() {
        Some("http" | "https") if uri.host().is_some() => Ok(()),
        _ => Err(format!(
            "{shown} is not an http:// or https:// address of a Streamable HTTP server"
        )),
    }
}

/// A header ureq would refuse at the first request is refused now, in words that leave its
/// value out.
fn check_header(name: &str, value: &str, shown: &str) -> Result<(), String> {
    if ureq::http::HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err(format!(
            "the header name {name:?} declared for {shown} is not a valid HTTP header name"
        ));
    }
    if ureq::http::HeaderValue::from_str(value).is_err() {
        return Err(format!(
            "the value of the header {name} declared for {shown} is not a valid HTTP header \
             value (a line break or another control character?)"
        ));
    }
    Ok(())
}

/// `url` as messages show it: without `user:password@`, its query (which may hold a key) cut.
fn shown(url: &str) -> String {
    let url = net::without_userinfo(url);
    match url.split_once('?') {
        Some((base, _)) => format!("{base}?…"),
        None => url,
    }
}

/// Everything secret a request carries: the declared header values (and the token after a
/// `Bearer `), the URL's `user:password` and its query values.
fn secrets(url: &str, headers: &BTreeMap<String, String>) -> Secrets {
    let mut secrets = Secrets::new().with_url(url);
    if let Some((_, query)) = url.split_once('?') {
        secrets = secrets.with(Some(query));
        for pair in query.split('&') {
            secrets = secrets.with(pair.split_once('=').map(|(_, value)| value));
        }
    }
    for value in headers.values() {
        let token = value.split_once(' ').map(|(_, token)| token);
        secrets = secrets.with(Some(value)).with(token);
    }
    secrets
}

/// The agent of one server: through `proxy` when given, Marvin's User-Agent, no redirects
/// (the declared headers must not follow one to another host), no read timeout.
pub(super) fn agent(proxy: Option<&str>) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(proxy.and_then(|p| ureq::Proxy::new(p).ok()))
        .user_agent(net::user_agent())
        .accept_encoding("")
        .max_redirects(0)
        .timeout_resolve(Some(CONNECT_TIMEOUT))
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_per_write(Some(WRITE_TIMEOUT))
        .build()
        .new_agent()
}

/// The id of `message` when it is a request of ours, whose answer comes on its POST.
fn request_id(message: &str) -> Option<u64> {
    let value: Value = serde_json::from_str(message).ok()?;
    value.get("method")?;
    value.get("id")?.as_u64()
}

/// The headers the 2026-07-28 revision wants beside a message that carries its `_meta`
/// envelope: the revision (as in the envelope), the method, and for the methods that name
/// something (a tool, a resource, a prompt) that name, so a gateway can route without reading
/// the body. None for a message of the old era.
fn modern_headers(message: &str) -> Vec<(&'static str, String)> {
    let Ok(value) = serde_json::from_str::<Value>(message) else {
        return Vec::new();
    };
    let revision = value
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str);
    let (Some(revision), Some(method)) = (revision, value.get("method").and_then(Value::as_str))
    else {
        return Vec::new();
    };
    let mut headers = vec![
        ("MCP-Protocol-Version", revision.to_string()),
        ("Mcp-Method", method.to_string()),
    ];
    let named = match method {
        "tools/call" | "prompts/get" => value.pointer("/params/name"),
        "resources/read" => value.pointer("/params/uri"),
        _ => None,
    };
    if let Some(name) = named.and_then(Value::as_str) {
        headers.push(("Mcp-Name", name.to_string()));
    }
    headers
}

/// Whether `message` is `notifications/initialized`, after which the session is open.
fn opens_session(message: &str) -> bool {
    serde_json::from_str::<Value>(message)
        .is_ok_and(|value| value.get("method") == Some(&Value::from("notifications/initialized")))
}

impl Transport for HttpTransport {
    fn send(&self, message: String) -> Result<(), String> {
        let shared = &self.shared;
        if shared.closing.load(Ordering::SeqCst) {
            return Err(format!("the connection to {} was closed", shared.shown));
        }
        let Some(id) = request_id(&message) else {
            let opens = opens_session(&message);
            shared.post_quietly(message)?;
            if opens {
                let listener = shared.clone();
                let (opened, heard) = mpsc::sync_channel(1);
                // Without a thread there is no server stream; calls still work.
                let spawned = std::thread::Builder::new()
                    .name("mcp-http-listen".into())
                    .spawn(move || listener.listen(&opened));
                // The server's stream is opened before the first request goes out, so a GET
                // of ours never reaches the server after a request's stream broke off, where
                // it would be taken for that stream's resumption; a server slow to answer it
                // holds the session's start up for LISTEN_OPENING at most.
                if spawned.is_ok() {
                    let _ = heard.recv_timeout(LISTEN_OPENING);
                }
            }
            return Ok(());
        };
        let reader = shared.clone();
        std::thread::Builder::new()
            .name("mcp-http".into())
            .spawn(move || reader.exchange(id, message))
            .map(drop)
            .map_err(|e| {
                format!(
                    "cannot start a thread for a request to {}: {e}",
                    shared.shown
                )
            })
    }

    /// DELETE ends the session (a server that does not let clients do so answers 405, which
    /// changes nothing), then the streams still being read are cut and their callers told.
    fn close(&self) {
        let shared = &self.shared;
        if shared.closing.swap(true, Ordering::SeqCst) {
            return;
        }
        if shared.session().id.is_some() {
            let token = shared.bearer();
            let request = shared.with_headers(shared.agent.delete(&shared.url), token.as_deref());
            let _ = request
                .config()
                .timeout_global(Some(CLOSE_TIMEOUT))
                .build()
                .call();
        }
        shared.agent.clone().shutdown();
        shared
            .sink
            .closed(format!("the connection to {} was closed", shared.shown));
    }
}

impl Shared {
    fn session(&self) -> MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Request `id`: its POST, then every message of its answer to the sink. A failure goes
    /// to the waiting caller as the answer, so it reads a sentence instead of timing out.
    fn exchange(&self, id: u64, message: String) {
        let outcome = self
            .post(message, None)
            .and_then(|response| self.read_messages(response, Some(id)))
            .and_then(|ended| self.resume(ended, Some(id)));
        if self.closing.load(Ordering::SeqCst) {
            return;
        }
        let failure = match outcome {
            Ok(true) => return,
            Ok(false) => Refused::Broken(format!(
                "the answer from {} ended without the result of the request",
                self.shown
            )),
            Err(refused) => refused,
        };
        match failure {
            Refused::SessionEnded(why) => self.sink.closed(why),
            Refused::Failed(code, message) => self.sink.deliver(Incoming::Response {
                id,
                result: Err(RpcError { code, message }),
            }),
            Refused::Broken(why) => self.sink.failed(id, why),
        }
    }

    /// The server's own stream (a GET), for what belongs to no request: above all
    /// `notifications/tools/list_changed`. Optional in the protocol: a server without one
    /// answers 405, and anything but an event stream is left alone. It lasts until the server
    /// ends it or `close` cuts it.
    fn listen(&self, opened: &mpsc::SyncSender<()>) {
        let token = self.bearer();
        let request = self
            .with_headers(self.agent.get(&self.url), token.as_deref())
            .header("Accept", "text/event-stream");
        let response = request.call();
        let _ = opened.try_send(());
        let Ok(response) = response else {
            return;
        };
        let streams = net::header(&response, "content-type")
            .is_some_and(|kind| kind.starts_with("text/event-stream"));
        if response.status().is_success() && streams {
            let reader = response.into_body().into_reader();
            let ended = self.read_stream(reader, None, answer::Until::End);
            let _ = ended.and_then(|ended| self.resume(ended, None));
        }
    }

    /// A notification or an answer of ours: the server acknowledges it (202) and sends
    /// nothing, so the caller hears at once whether it arrived.
    fn post_quietly(&self, message: String) -> Result<(), String> {
        match self.post(message, Some(SHORT_EXCHANGE)) {
            Ok(response) => {
                // Its (empty) body read to the end, the connection goes back to the pool; a
                // stream is not waited for.
                if !net::header(&response, "content-type")
                    .is_some_and(|kind| kind.starts_with("text/event-stream"))
                {
                    let _ = net::read_start(response.into_body().into_reader(), MAX_ERROR_BODY);
                }
                Ok(())
            }
            Err(Refused::Failed(_, why) | Refused::Broken(why)) => Err(why),
            Err(Refused::SessionEnded(why)) => {
                self.sink.closed(why.clone());
                Err(why)
            }
        }
    }

    /// The sign-in's access token, if the server has one.
    fn bearer(&self) -> Option<String> {
        self.auth.as_ref()?.bearer(&self.agent)
    }

    /// Adds the declared headers, the sign-in's `token` and what the server told us about the
    /// session. Every request made with it goes to the server's own address.
    fn with_headers<B>(
        &self,
        mut request: ureq::RequestBuilder<B>,
        token: Option<&str>,
    ) -> ureq::RequestBuilder<B> {
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        if let Some(token) = token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        let session = self.session().clone();
        if let Some(id) = session.id {
            request = request.header("Mcp-Session-Id", id);
        }
        if let Some(version) = session.protocol {
            request = request.header("MCP-Protocol-Version", version);
        }
        request
    }

    /// POSTs `message`, waiting at most `limit` for the whole exchange when given. A 2xx
    /// answer is returned unread; anything else becomes a [`Refused`]. A refusal that asks
    /// for a sign-in is answered with a renewed or new one and the message sent once more.
    fn post(&self, message: String, limit: Option<Duration>) -> Result<Response, Refused> {
        let had_session = self.session().id.is_some();
        let mut retried = false;
        loop {
            let token = self.bearer();
            let response = self.post_once(message.clone(), limit, token.as_deref())?;
            if response.status().is_success() {
                return Ok(response);
            }
            let Some((auth, challenge)) = self.auth.as_ref().zip(asks_sign_in(&response)) else {
                return Err(self.refusal(response, had_session));
            };
            if retried {
                return Err(Refused::Broken(format!(
                    "{} refused the request again after a new sign-in (HTTP {}); {}",
                    self.shown,
                    response.status().as_u16(),
                    auth.needed()
                )));
            }
            let _ = net::read_start(response.into_body().into_reader(), MAX_ERROR_BODY);
            // The sign-in's messages name addresses with the declaration's secrets filled in.
            auth.recover(&self.agent, token.as_deref(), &challenge)
                .map_err(|why| Refused::Broken(self.secrets.redact(&why)))?;
            retried = true;
        }
    }

    /// One POST of `message` with the sign-in's `token`.
    fn post_once(
        &self,
        message: String,
        limit: Option<Duration>,
        token: Option<&str>,
    ) -> Result<Response, Refused> {
        let mut request = self
            .with_headers(self.agent.post(&self.url), token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        for (name, value) in modern_headers(&message) {
            request = request.header(name, value);
        }
        if let Some(limit) = limit {
            request = request.config().timeout_global(Some(limit)).build();
        }
        let response = request
            .send(message)
            .map_err(|error| Refused::Broken(self.unreachable(error)))?;
        if let Some(id) = net::header(&response, "mcp-session-id") {
            self.session().id = Some(id);
        }
        Ok(response)
    }
}

/// The challenge of an answer that asks for a sign-in: a 401, or a 403 asking for more scope.
fn asks_sign_in(response: &Response) -> Option<oauth::challenge::Challenge> {
    let header = net::header(response, "www-authenticate").unwrap_or_default();
    let challenge = oauth::challenge::parse(&header);
    match response.status().as_u16() {
        401 => Some(challenge),
        403 if challenge.wants_more_scope() => Some(challenge),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
