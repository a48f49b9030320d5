//! Why an exchange with the server brought nothing to read, in words the caller passes on:
//! nothing listens there, the server said no (and why), or the answer broke off.

use serde_json::Value;

use super::{CONNECT_TIMEOUT, EXCERPT, HTTP_FAILURE, MAX_ERROR_BODY, Shared, shown};
use crate::net::{self, Phase, Response};

/// Why a POST brought nothing to read.
#[derive(Debug)]
pub(super) enum Refused {
    /// The server no longer knows our session: the owner must start a new one.
    SessionEnded(String),
    /// The server answered no (a status other than 2xx), in words, with its JSON-RPC code
    /// when it gave one.
    Failed(i64, String),
    /// The message or its answer did not get through (nothing listens there, the answer broke
    /// off or was not MCP), in words.
    Broken(String),
}

impl Shared {
    /// A failure before any answer, in words: above all, that nothing listens there.
    pub(super) fn unreachable(&self, error: ureq::Error) -> String {
        let url = &self.shown;
        let text = match net::Transport::from_ureq(error, Phase::Request) {
            net::Transport::Refused => {
                format!("nothing answers at {url} (connection refused): is the server running?")
            }
            net::Transport::HostNotFound => {
                format!("the host of {url} is not found: check the address and your network")
            }
            net::Transport::ConnectTimeout => format!(
                "no connection to {url} within {} s: check the address and your network",
                CONNECT_TIMEOUT.as_secs()
            ),
            net::Transport::Silent(_) => format!("{url} did not answer in time"),
            net::Transport::ClosedEarly(why) => {
                format!("{url} closed the connection before answering ({why})")
            }
            other => format!("the request to {url} failed: {other}"),
        };
        self.secrets.redact(&text)
    }

    /// A non-2xx answer, in words. A 404 (the spec) or a 400 saying "No valid session ID" (the
    /// TypeScript SDK) to a POST that carried a session means the server forgot it.
    pub(super) fn refusal(&self, response: Response, had_session: bool) -> Refused {
        let status = response.status();
        let location = net::header(&response, "location");
        let reader = response.into_body().into_reader();
        let body = net::read_start(reader, MAX_ERROR_BODY).unwrap_or_default();
        let (code, said) = said(&body);
        let said = self.secrets.cut(&said, EXCERPT);
        let url = &self.shown;
        let heard = match status.canonical_reason() {
            Some(reason) => format!("HTTP {} {reason}", status.as_u16()),
            None => format!("HTTP {}", status.as_u16()),
        };
        let heard = match said.is_empty() {
            true => heard,
            false => format!("{heard}: {said}"),
        };
        let lost = status.as_u16() == 404 || body.contains("No valid session ID");
        if had_session && lost {
            return Refused::SessionEnded(format!(
                "the server ended the session ({url} answered {heard}); a new one must be started"
            ));
        }
        let text = match status.as_u16() {
            300..=399 => format!(
                "{url} redirects to {} ({heard}); Marvin does not follow redirects: declare the \
                 new address if it is the right one",
                shown(&location.unwrap_or_default())
            ),
            401 | 403 => format!(
                "the server at {url} refused the request ({heard}): check the credentials in \
                 the headers of its declaration"
            ),
            404 | 405 => format!(
                "the server at {url} does not take MCP messages there ({heard}): check the \
                 address (often ending in /mcp); the old HTTP+SSE transport is not spoken"
            ),
            429 => format!("the server at {url} is busy ({heard}): wait before trying again"),
            _ => format!("the server at {url} answered {heard}"),
        };
        Refused::Failed(code.unwrap_or(HTTP_FAILURE), self.secrets.redact(&text))
    }

    /// An answer that could not be read to its end.
    pub(super) fn broken(&self, error: net::BodyError) -> Refused {
        let url = &self.shown;
        let text = match error {
            net::BodyError::TooLarge(limit) => format!(
                "the answer from {url} holds a message larger than {} MB",
                limit >> 20
            ),
            net::BodyError::Read(error) => format!(
                "the answer from {url} broke off: {}",
                net::Transport::from_io(error, Phase::Answer)
            ),
        };
        Refused::Broken(self.secrets.redact(&text))
    }
}

/// What an error answer says: its JSON-RPC error (code and message), or its text on one line
/// (nothing of a web page).
fn said(body: &str) -> (Option<i64>, String) {
    if let Ok(value) = serde_json::from_str::<Value>(body) {
        if let Some(message) = value.pointer("/error/message").and_then(Value::as_str) {
            let code = value.pointer("/error/code").and_then(Value::as_i64);
            return (code, message.to_string());
        }
    }
    if net::is_html(None, body.as_bytes()) {
        return (None, "(a web page)".into());
    }
    (None, body.split_whitespace().collect::<Vec<_>>().join(" "))
}
