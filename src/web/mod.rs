//! What every loopback HTTP server of Marvin checks and how it answers, shared by the interview
//! form, the gateway and the Spotify sign-in: the gate in front of tiny_http (each head and its
//! announced body judged before tiny_http sees them, and a connection without the server's
//! token held apart among a few strangers), the Host (DNS rebinding), the Origin, the
//! session token (query, or a header checked before any body is read), bodies read with a cap
//! and a deadline, who answers (refusals off the thread that takes requests) and responses with
//! the safety headers. A leaf: it knows nothing of forms or sessions.

pub mod browser;
pub(crate) mod callback;
mod gate;
pub(crate) mod packed;
pub(crate) mod pkce;
mod pool;
mod respond;

use std::time::Instant;

use serde_json::{Value, json};
use tiny_http::{Method, Request};

pub(crate) use gate::{Admit, Limits, Listening, listen};
pub(crate) use pool::Pool;
pub(crate) use respond::{HttpResponse, asset, busy, header, json_response, text, with_headers};

/// What the checks read of a request: its method, its target and its headers, from tiny_http's
/// request or from the head the gate has read (which lets in only a head that passes the
/// server's checks; see [`listen`]).
pub(crate) trait Asked {
    fn method_name(&self) -> &str;
    /// The path and query, as sent.
    fn target(&self) -> &str;
    /// The first header called `name` (any case), its value trimmed.
    fn field(&self, name: &str) -> Option<&str>;
}

impl Asked for Request {
    fn method_name(&self) -> &str {
        self.method().as_str()
    }

    fn target(&self) -> &str {
        self.url()
    }

    fn field(&self, name: &str) -> Option<&str> {
        self.headers()
            .iter()
            .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }
}

/// The value of request header `name`.
pub(crate) fn header_value<R: Asked + ?Sized>(request: &R, name: &str) -> Option<String> {
    request.field(name).map(str::to_string)
}

/// The value of `name` in a query string (`a=1&b=2`), as sent.
pub(crate) fn query_param(query: &str, name: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_string())
}

/// The request's path and query.
pub(crate) fn path_and_query<R: Asked + ?Sized>(request: &R) -> (&str, &str) {
    let url = request.target();
    url.split_once('?').unwrap_or((url, ""))
}

/// `Host` must name this server on a loopback name: a page from elsewhere whose name was
/// pointed at 127.0.0.1 (DNS rebinding) sends its own name and is refused.
pub(crate) fn host_allowed<R: Asked + ?Sized>(request: &R, port: u16) -> bool {
    request
        .field("Host")
        .is_some_and(|host| is_loopback_at(host, port))
}

/// A browser says where a request comes from in `Origin`; when it does, it must be this very
/// server (a page of another site that learnt the address is refused). Clients that send no
/// Origin (curl, the page's own same-origin GETs) are judged by the token alone.
pub(crate) fn origin_allowed<R: Asked + ?Sized>(request: &R, port: u16) -> bool {
    match request.field("Origin") {
        None => true,
        Some(origin) => origin
            .strip_prefix("http://")
            .is_some_and(|host| is_loopback_at(host, port)),
    }
}

fn is_loopback_at(host: &str, port: u16) -> bool {
    let host = host.to_ascii_lowercase();
    host == format!("127.0.0.1:{port}") || host == format!("localhost:{port}")
}

/// Whether the request carries `token`: in the query's `session` for a GET, in `header` (or
/// the query) for anything else. Compared in constant time.
pub(crate) fn has_token<R: Asked + ?Sized>(request: &R, token: &str, header: &str) -> bool {
    let (_, query) = path_and_query(request);
    let given = if request.method_name() == "GET" {
        query_param(query, "session")
    } else {
        header_value(request, header).or_else(|| query_param(query, "session"))
    };
    crate::secret::same(given.unwrap_or_default().as_bytes(), token.as_bytes())
}

/// Whether the request may come with a body, which tiny_http reads to its end when the request
/// is answered (see [`Pool`]).
pub(crate) fn may_have_body(request: &Request) -> bool {
    request.method() != &Method::Get
        || request.body_length().is_some_and(|n| n > 0)
        || header_value(request, "Transfer-Encoding").is_some()
}

/// The request's JSON object, at most `cap` bytes, read in pieces until `deadline`: a body
/// still arriving then is refused (408), however slowly its bytes keep coming.
pub(crate) fn read_json_body(
    request: &mut Request,
    cap: usize,
    deadline: Instant,
    too_big: impl Fn() -> HttpResponse,
) -> Result<Value, HttpResponse> {
    let bytes = read_body(request, cap, deadline, too_big)?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value) if value.is_object() => Ok(value),
        _ => Err(json_response(
            400,
            &json!({"ok": false, "error": "Invalid request body"}),
        )),
    }
}

/// The request's body, at most `cap` bytes, read until `deadline` (as [`read_json_body`]).
pub(crate) fn read_body(
    request: &mut Request,
    cap: usize,
    deadline: Instant,
    too_big: impl Fn() -> HttpResponse,
) -> Result<Vec<u8>, HttpResponse> {
    let mut bytes = Vec::new();
    let mut piece = [0u8; 64 * 1024];
    let reader = request.as_reader();
    loop {
        if Instant::now() > deadline {
            return Err(json_response(
                408,
                &json!({"ok": false, "error": "The request took too long to arrive."}),
            ));
        }
        let n = match reader.read(&mut piece) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(json_response(
                    400,
                    &json!({"ok": false, "error": e.to_string()}),
                ));
            }
        };
        if bytes.len() + n > cap {
            return Err(too_big());
        }
        bytes.extend_from_slice(&piece[..n]);
    }
    Ok(bytes)
}
