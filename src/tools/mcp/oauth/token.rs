//! Requests to the token endpoint: a code for tokens (with the PKCE verifier), a refresh, and
//! the client-credentials grant; the client proven as it registered (HTTP Basic, or its id
//! and secret in the form), the `resource` (RFC 8707) on each. Nothing but the token
//! endpoint ever sees the client's secret or the refresh token.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::register::Client;
use super::store::Entry;
use super::{post, said};
use crate::tools::kit::web::{encode, encode_pairs};

/// RFC 7523's `client_assertion_type`.
const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// Asks `endpoint` for tokens with `form` (the grant's fields), as `client`.
pub(crate) fn request(
    agent: &ureq::Agent,
    endpoint: &str,
    client: &Client,
    form: &[(&str, &str)],
) -> Result<Tokens, String> {
    let assertion;
    let mut fields = form.to_vec();
    let mut request = agent
        .post(endpoint)
        .header("Content-Type", "application/x-www-form-urlencoded");
    match (client.method.as_str(), &client.secret, &client.key) {
        ("client_secret_basic", Some(secret), _) => {
            // RFC 6749 §2.3.1: each form-encoded before they are joined.
            let pair = format!("{}:{}", encode(&client.id), encode(secret));
            request = request.header("Authorization", format!("Basic {}", STANDARD.encode(pair)));
        }
        ("client_secret_post", Some(secret), _) => {
            fields.push(("client_id", &client.id));
            fields.push(("client_secret", secret));
        }
        ("private_key_jwt", _, Some((key, audience))) => {
            assertion = super::jwt::assertion(&client.id, audience, key)?;
            fields.push(("client_id", &client.id));
            fields.push(("client_assertion_type", JWT_BEARER));
            fields.push(("client_assertion", &assertion));
        }
        _ => fields.push(("client_id", &client.id)),
    }
    let (status, answer) = post(request, encode_pairs(&fields), endpoint)?;
    let access = answer["access_token"].as_str().filter(|t| !t.is_empty());
    match access {
        Some(access) if status < 300 => Ok(Tokens {
            access: access.to_string(),
            refresh: answer["refresh_token"].as_str().map(str::to_string),
            expires_at: answer["expires_in"]
                .as_i64()
                .map(|seconds| crate::clock::unix_now().saturating_add(seconds)),
            scope: answer["scope"].as_str().map(str::to_string),
        }),
        _ => Err(format!(
            "its authorization server refused the token request ({})",
            said(status, &answer)
        )),
    }
}

/// What a token endpoint gave.
pub(crate) struct Tokens {
    pub(crate) access: String,
    pub(crate) refresh: Option<String>,
    pub(crate) expires_at: Option<i64>,
    pub(crate) scope: Option<String>,
}

/// The sign-in `entry` renewed with its refresh token, which is kept when no new one comes.
pub(crate) fn refresh(agent: &ureq::Agent, entry: &Entry) -> Result<Entry, String> {
    let refresh = entry
        .refresh_token
        .as_deref()
        .ok_or("there is no refresh token")?;
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
        ("resource", entry.resource.as_str()),
    ];
    let tokens = request(agent, &entry.token_endpoint, &entry.client, &form)?;
    Ok(entry.renewed(tokens))
}

/// The `error` of an OAuth error answer, with its description.
pub(crate) fn oauth_error(answer: &Value) -> Option<String> {
    let code = answer["error"].as_str()?;
    Some(match answer["error_description"].as_str() {
        Some(text) if !text.trim().is_empty() => format!("{code}: {text}"),
        _ => code.to_string(),
    })
}
