//! Asking a model server about its model: one small JSON request through the provider's own
//! client (its proxy, its credentials kept out of errors, Ctrl+C) that must be answered before a
//! deadline. Any failure is an answer of nothing: the caller falls back to the table.

use std::time::Instant;

use serde_json::Value;

use super::http::Http;
use super::{ErrorKind, LlmError};
use crate::cancel::CancelToken;
use crate::net;

/// Model lists can be long (OpenRouter lists hundreds); nothing useful is larger.
const MAX_ANSWER: u64 = 8 << 20;

/// `GET url` (with `bearer`) answered with JSON before `deadline`.
pub(crate) fn get(
    http: &Http,
    cancel: &CancelToken,
    url: &str,
    bearer: Option<&str>,
    deadline: Instant,
) -> Option<Value> {
    let left = deadline.checked_duration_since(Instant::now())?;
    let send = |agent: &ureq::Agent| {
        let mut call = agent.get(url).config().timeout_global(Some(left)).build();
        if let Some(token) = bearer {
            call = call.header("Authorization", format!("Bearer {token}"));
        }
        call.call()
    };
    http.exchange(cancel, url, bearer, send, read).ok()
}

/// `POST url` with the JSON `body`, answered with JSON before `deadline`.
pub(crate) fn post(
    http: &Http,
    cancel: &CancelToken,
    url: &str,
    body: &Value,
    deadline: Instant,
) -> Option<Value> {
    let left = deadline.checked_duration_since(Instant::now())?;
    let body = body.to_string();
    let send = |agent: &ureq::Agent| {
        agent
            .post(url)
            .config()
            .timeout_global(Some(left))
            .build()
            .header("Content-Type", "application/json")
            .send(body.as_bytes())
    };
    http.exchange(cancel, url, None, send, read).ok()
}

fn read(response: net::Response) -> Result<Value, LlmError> {
    let nothing = || LlmError::new(ErrorKind::Protocol, "no answer about the model");
    if !net::is_success(&response) {
        return Err(nothing());
    }
    let text =
        net::read_text(response.into_body().into_reader(), MAX_ANSWER).map_err(|_| nothing())?;
    serde_json::from_str(&text).map_err(|_| nothing())
}
