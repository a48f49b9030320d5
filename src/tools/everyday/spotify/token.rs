//! The Spotify sign-in kept in the profile's tokens.json (0600, through store::tokens): the
//! code exchanged for tokens, a token refreshed when it expires within a minute (under the
//! file's lock, so parallel calls refresh once: a PKCE refresh token may be good for one use),
//! and the accounts service's OAuth errors (`{"error": "invalid_client", ...}`) as sentences.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::services::SPOTIFY_ACCOUNTS;
use crate::store::lock::Held;
use crate::store::tokens;
use crate::tools::ToolContext;
use crate::tools::kit::web::Call;

/// The entry's name in tokens.json.
const SERVICE: &str = "spotify";
/// A token that expires within this many seconds is refreshed first.
const MARGIN: i64 = 60;

pub(super) const NOT_SIGNED_IN: &str = "Marvin is not signed in to Spotify in this profile: run spotify_auth first (the user signs in once in a browser), then try again.";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Token {
    pub(super) access_token: String,
    #[serde(default)]
    pub(super) refresh_token: Option<String>,
    /// Seconds since 1970.
    pub(super) expires_at: i64,
    #[serde(default)]
    pub(super) scope: String,
}

/// What a token request is for, which decides what its failure means.
#[derive(Clone, Copy, PartialEq)]
enum Grant {
    Code,
    Refresh,
}

/// The profile's directory, where tokens.json lives.
pub(super) fn profile_dir(ctx: &ToolContext) -> Result<PathBuf, String> {
    ctx.shared.profile_dir().ok_or_else(|| {
        "There is no profile to keep the Spotify sign-in in (no MARVIN_HOME).".to_string()
    })
}

/// SPOTIFY_CLIENT_ID, or the sentence that says how to get one.
pub(super) fn client_id(ctx: &ToolContext) -> Result<String, String> {
    let settings = ctx.settings.web.settings();
    settings.spotify_client_id.clone().ok_or_else(|| {
        format!(
            "Spotify needs SPOTIFY_CLIENT_ID: create an app at https://developer.spotify.com/dashboard (Web API), add the redirect URI http://127.0.0.1:{}/callback to it exactly, and set SPOTIFY_CLIENT_ID to its Client ID before starting Marvin.",
            settings.spotify_redirect_port
        )
    })
}

/// Exchanges the authorisation code for tokens and keeps them.
pub(super) fn exchange(
    ctx: &ToolContext,
    code: &str,
    redirect_uri: &str,
    verifier: &str,
) -> Result<Token, String> {
    let client_id = client_id(ctx)?;
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", redirect_uri),
        ("client_id", client_id.as_str()),
        ("code_verifier", verifier),
    ];
    let token = request(ctx, &form, Grant::Code, None)?;
    let dir = profile_dir(ctx)?;
    let _held = lock(&dir)?;
    save(ctx, &dir, &token)?;
    Ok(token)
}

/// A token good for another minute at least, and whether it was refreshed now; refreshed
/// first (and kept) when it is not, or when `stale` is the one the API just refused.
pub(super) fn fresh(ctx: &ToolContext, stale: Option<&str>) -> Result<(Token, bool), String> {
    let dir = profile_dir(ctx)?;
    let _held = lock(&dir)?;
    let token: Token = tokens::service_token(&dir, SERVICE, &ctx.shared.warnings)
        .ok_or_else(|| NOT_SIGNED_IN.to_string())?;
    let refused = stale == Some(token.access_token.as_str());
    if !refused && token.expires_at - crate::clock::unix_now() > MARGIN {
        return Ok((token, false));
    }
    let Some(refresh_token) = token.refresh_token.clone() else {
        return Err(format!(
            "The Spotify sign-in has expired and cannot be renewed here. {NOT_SIGNED_IN}"
        ));
    };
    let client_id = client_id(ctx)?;
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token.as_str()),
        ("client_id", client_id.as_str()),
    ];
    let renewed = request(ctx, &form, Grant::Refresh, Some(&token))?;
    save(ctx, &dir, &renewed)?;
    Ok((renewed, true))
}

fn lock(dir: &Path) -> Result<Held, String> {
    tokens::hold(dir).map_err(|e| {
        format!(
            "Cannot lock the Spotify sign-in in {}: {e}.",
            tokens::profile_file(dir).display()
        )
    })
}

fn save(ctx: &ToolContext, dir: &Path, token: &Token) -> Result<(), String> {
    tokens::save_service_token(dir, SERVICE, token, &ctx.shared.warnings).map_err(|unsaved| {
        format!(
            "Cannot save the Spotify sign-in to {}: {}.",
            unsaved.path.display(),
            unsaved.error
        )
    })
}

/// One request to the token endpoint; `old` is the token being refreshed, whose refresh token
/// is kept when Spotify sends no new one.
fn request(
    ctx: &ToolContext,
    form: &[(&str, &str)],
    grant: Grant,
    old: Option<&Token>,
) -> Result<Token, String> {
    let web = &ctx.settings.web;
    let call = Call {
        form: Some(form),
        ..Call::default()
    };
    let fetched = web.call(&SPOTIFY_ACCOUNTS, "/api/token", &call, &ctx.cancel)?;
    let value = web
        .read_json(&SPOTIFY_ACCOUNTS, &fetched)
        .map_err(|said| web.redact(&SPOTIFY_ACCOUNTS, &said));
    match fetched_error(&fetched.body) {
        Some((code, text)) if !fetched.is_success() => Err(oauth_error(&code, &text, grant)),
        _ => read_token(&value?, old),
    }
}

/// The OAuth error of a token endpoint's answer: `error` (a string here, unlike the Web
/// API's object) and `error_description`.
fn fetched_error(body: &[u8]) -> Option<(String, String)> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let code = value["error"].as_str()?.to_string();
    let text = value["error_description"]
        .as_str()
        .unwrap_or("")
        .to_string();
    Some((code, text))
}

fn oauth_error(code: &str, text: &str, grant: Grant) -> String {
    let said = match text.trim() {
        "" => code.to_string(),
        text => format!("{code}: {text}"),
    };
    match (code, grant) {
        ("invalid_client", _) => format!(
            "Spotify's accounts service does not know the client id ({said}): set SPOTIFY_CLIENT_ID to the Client ID of your app at https://developer.spotify.com/dashboard, then run spotify_auth again."
        ),
        ("invalid_grant", Grant::Refresh) => format!(
            "Spotify no longer accepts the saved sign-in ({said}). Run spotify_auth to sign in again."
        ),
        ("invalid_grant", Grant::Code) => format!(
            "Spotify refused the sign-in code ({said}). Run spotify_auth again and finish signing in within a few minutes."
        ),
        _ => format!("Spotify's accounts service refused the request ({said})."),
    }
}

/// The token in a token endpoint's answer.
fn read_token(value: &Value, old: Option<&Token>) -> Result<Token, String> {
    let access_token = value["access_token"]
        .as_str()
        .filter(|t| !t.is_empty())
        .ok_or("Spotify's accounts service answered without an access token. Try again later.")?;
    let expires_in = value["expires_in"].as_i64().unwrap_or(3600);
    let text = |name: &str| value[name].as_str().map(str::to_string);
    Ok(Token {
        access_token: access_token.to_string(),
        refresh_token: text("refresh_token").or_else(|| old?.refresh_token.clone()),
        expires_at: crate::clock::unix_now() + expires_in,
        scope: text("scope")
            .or_else(|| old.map(|t| t.scope.clone()))
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_refresh_without_a_new_refresh_token_keeps_the_old_one() {
        let old = Token {
            access_token: "a1".into(),
            refresh_token: Some("r1".into()),
            expires_at: 0,
            scope: "playlist-modify-private".into(),
        };
        let kept = read_token(
            &json!({"access_token": "a2", "expires_in": 3600}),
            Some(&old),
        );
        let kept = kept.unwrap();
        assert_eq!(kept.refresh_token.as_deref(), Some("r1"));
        assert_eq!(kept.scope, "playlist-modify-private");
        assert!(kept.expires_at > crate::clock::unix_now() + 3500);
        let new = read_token(
            &json!({"access_token": "a3", "refresh_token": "r2", "scope": "x", "expires_in": 10}),
            Some(&old),
        )
        .unwrap();
        assert_eq!(
            (new.refresh_token.as_deref(), new.scope.as_str()),
            (Some("r2"), "x")
        );
        assert!(read_token(&json!({"token_type": "Bearer"}), None).is_err());
    }

    #[test]
    fn oauth_errors_say_what_to_do() {
        let body = br#"{"error": "invalid_client", "error_description": "Invalid client"}"#;
        let (code, text) = fetched_error(body).unwrap();
        let said = oauth_error(&code, &text, Grant::Code);
        assert!(said.contains("(invalid_client: Invalid client)"), "{said}");
        assert!(said.contains("SPOTIFY_CLIENT_ID"), "{said}");
        let said = oauth_error("invalid_grant", "Refresh token revoked", Grant::Refresh);
        assert!(said.contains("Run spotify_auth"), "{said}");
        assert_eq!(fetched_error(br#"{"error": {"status": 400}}"#), None);
    }
}
