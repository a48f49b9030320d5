//! Calls to Spotify's Web API as the signed-in user: the token from the profile (refreshed
//! first when it is about to expire), sent as a Bearer header through the one web client; a
//! 401 refreshes once and tries again; what is still refused (401, 403, 429) becomes a sentence
//! that says what to do, and the rest is the web client's reading of the answer. A POST that
//! times out, is cancelled or is cut off may have reached Spotify all the same: its sentence
//! says so and what to check, never just "try again", which could make the change twice.

use serde_json::Value;

use super::token::{self, Token};
use crate::services::SPOTIFY_API;
use crate::tools::ToolContext;
use crate::tools::kit::web::{Call, Fetched};

/// A GET of `path` with `query`.
pub(super) fn get(ctx: &ToolContext, path: &str, query: &[(&str, &str)]) -> Result<Value, String> {
    call(ctx, path, query, None)
}

/// A POST of `json` to `path`, which changes something: when Spotify may have received it
/// without our seeing the answer, the sentence says to check `what` before trying again.
pub(super) fn post(
    ctx: &ToolContext,
    path: &str,
    json: &Value,
    what: &str,
) -> Result<Value, String> {
    call(ctx, path, &[], Some(json)).map_err(|error| match unanswered(&error) {
        Some(why) => format!(
            "{why}, but the change may still have happened (Spotify may have received the request): check {what} before trying again, so it is not done twice."
        ),
        None => error,
    })
}

/// The start of the web client's sentence for a request sent but not answered in full (it
/// timed out, was cancelled, or its answer broke off), without its advice to try again.
fn unanswered(error: &str) -> Option<&str> {
    let name = SPOTIFY_API.name;
    let timed_out = error.starts_with(&format!("{name} request timed out after"));
    let cancelled = error == format!("The {name} request was cancelled.");
    let broken = error.starts_with(&format!("Reading {name}'s answer failed"));
    if !(timed_out || cancelled || broken) {
        return None;
    }
    let first = error.split_once(". ").map_or(error, |(first, _)| first);
    Some(first.trim_end_matches('.'))
}

fn call(
    ctx: &ToolContext,
    path: &str,
    query: &[(&str, &str)],
    json: Option<&Value>,
) -> Result<Value, String> {
    let (mut token, mut refreshed) = token::fresh(ctx, None)?;
    for _ in 0..2 {
        let fetched = send(ctx, path, query, json, &token)?;
        if fetched.status != 401 || refreshed || token.refresh_token.is_none() {
            return judge(ctx, &fetched);
        }
        // Refused before its time (revoked, or the clock is off): renew it and try again.
        (token, refreshed) = token::fresh(ctx, Some(&token.access_token))?;
    }
    let fetched = send(ctx, path, query, json, &token)?;
    judge(ctx, &fetched)
}

fn send(
    ctx: &ToolContext,
    path: &str,
    query: &[(&str, &str)],
    json: Option<&Value>,
    token: &Token,
) -> Result<Fetched, String> {
    let bearer = format!("Bearer {}", token.access_token);
    let call = Call {
        query,
        headers: &[("Authorization", &bearer)],
        json,
        ..Call::default()
    };
    ctx.settings
        .web
        .call(&SPOTIFY_API, path, &call, &ctx.cancel)
}

/// The answer's JSON, or a sentence for what Spotify refused.
fn judge(ctx: &ToolContext, fetched: &Fetched) -> Result<Value, String> {
    let web = &ctx.settings.web;
    let said = || {
        serde_json::from_slice::<Value>(&fetched.body)
            .ok()
            .and_then(|v| v.pointer("/error/message")?.as_str().map(str::to_string))
            .filter(|m| !m.trim().is_empty())
            .map(|m| format!(": {}", web.redact(&SPOTIFY_API, m.trim())))
            .unwrap_or_default()
    };
    match fetched.status {
        401 => Err(format!(
            "Spotify no longer accepts Marvin's sign-in (HTTP 401{}). Run spotify_auth to sign in again.",
            said()
        )),
        403 => Err(format!(
            "Spotify refused this (HTTP 403{}). If it is about permissions, run spotify_auth again; an app in Development Mode serves only the users added to it at developer.spotify.com.",
            said()
        )),
        429 => Err(format!(
            "Spotify is limiting requests (HTTP 429): wait {} and try again.",
            fetched
                .retry_after
                .map_or("a minute".to_string(), |wait| format!(
                    "{} s",
                    wait.as_secs().max(1)
                ))
        )),
        _ => web.read_json(&SPOTIFY_API, fetched),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_sent_but_not_answered_is_told_apart() {
        let cases = [
            (
                "Spotify request timed out after 30s. Try again or rephrase query.",
                Some("Spotify request timed out after 30s"),
            ),
            (
                "The Spotify request was cancelled.",
                Some("The Spotify request was cancelled"),
            ),
            (
                "Reading Spotify's answer failed: connection reset.",
                Some("Reading Spotify's answer failed: connection reset"),
            ),
            // The sign-in's token refresh, before anything was sent to the Web API.
            (
                "Spotify accounts request timed out after 30s. Try again or rephrase query.",
                None,
            ),
            (
                "Could not reach Spotify at http://x: refused. Check the network connection, or try again later.",
                None,
            ),
            ("Spotify refused this (HTTP 403).", None),
        ];
        for (error, expected) in cases {
            assert_eq!(unanswered(error), expected, "{error}");
        }
    }
}
