//! Calls to Spotify's Web API as the signed-in user: the token from the profile (refreshed
//! first when it is about to expire), sent as a Bearer header through the one web client; a
//! 401 refreshes once and tries again; what is still refused (401, 403, 429) becomes a sentence
//! that says what to do, and the rest is the web client's reading of the answer.

use serde_json::Value;

use super::token::{self, Token};
use crate::services::SPOTIFY_API;
use crate::tools::ToolContext;
use crate::tools::kit::web::{Call, Fetched};

/// A GET of `path` with `query`, or a POST of `json`.
pub(super) fn call(
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
