//! An MCP server's sign-in, kept in the profile's tokens.json (0600, through store::tokens) as
//! the entry `mcp/NAME`: the tokens, the client and token endpoint that renew them, and the
//! address they were given for, so a server whose address changed in mcp.json never gets
//! the old one's token.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::register::Client;
use super::token::Tokens;
use crate::store::{Warnings, tokens};

#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// The MCP server's address the tokens are for.
    pub(crate) url: String,
    /// What they were asked for (RFC 8707).
    pub(crate) resource: String,
    pub(crate) token_endpoint: String,
    pub(crate) client: Client,
    /// The authorization server signed in at (empty in sign-ins kept before it was kept):
    /// a declared secret or key is sent on to it only while mcp.json still allows it.
    #[serde(default)]
    pub(crate) issuer: String,
    pub(crate) access_token: String,
    #[serde(default)]
    pub(crate) refresh_token: Option<String>,
    /// Seconds since 1970; none when the server did not say.
    #[serde(default)]
    pub(crate) expires_at: Option<i64>,
    #[serde(default)]
    pub(crate) scope: Option<String>,
}

impl Entry {
    /// This sign-in with `tokens` from a refresh.
    pub(crate) fn renewed(&self, tokens: Tokens) -> Entry {
        Entry {
            access_token: tokens.access,
            refresh_token: tokens.refresh.or_else(|| self.refresh_token.clone()),
            expires_at: tokens.expires_at,
            scope: tokens.scope.or_else(|| self.scope.clone()),
            ..self.clone()
        }
    }

    /// Whether the access token has expired (or will within the minute).
    pub(crate) fn expired(&self) -> bool {
        self.expires_at
            .is_some_and(|at| at.saturating_sub(crate::clock::unix_now()) < 60)
    }
}

fn key(name: &str) -> String {
    format!("mcp/{name}")
}

/// Server `name`'s sign-in for `url`; none when there is none for that address.
pub(crate) fn load(profile: &Path, name: &str, url: &str) -> Option<Entry> {
    let entry: Entry = tokens::service_token(profile, &key(name), &Warnings::default())?;
    (entry.url == url).then_some(entry)
}

/// Keeps `entry` as server `name`'s sign-in, under the file's lock.
pub(crate) fn save(profile: &Path, name: &str, entry: &Entry) -> Result<(), String> {
    let file = tokens::profile_file(profile);
    std::fs::create_dir_all(profile)
        .map_err(|e| format!("cannot make {}: {e}", profile.display()))?;
    let _held =
        tokens::hold(profile).map_err(|e| format!("cannot lock {}: {e}", file.display()))?;
    tokens::save_service_token(profile, &key(name), entry, &Warnings::default()).map_err(|e| {
        format!(
            "cannot save the sign-in to {}: {}",
            e.path.display(),
            e.error
        )
    })
}

/// Forgets server `name`'s sign-in; whether there was one.
pub(crate) fn remove(profile: &Path, name: &str) -> Result<bool, String> {
    let file = tokens::profile_file(profile);
    let _held =
        tokens::hold(profile).map_err(|e| format!("cannot lock {}: {e}", file.display()))?;
    tokens::remove_service_token(profile, &key(name), &Warnings::default())
        .map_err(|e| format!("cannot save {}: {}", e.path.display(), e.error))
}
