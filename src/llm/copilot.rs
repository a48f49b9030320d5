//! GitHub Copilot without its SDK: a GitHub login token is exchanged for a short-lived
//! Copilot session token (kept in memory and, by `store::tokens`, in MARVIN_HOME until it
//! expires), which authorises the OpenAI-compatible chat endpoint. An expired or rejected session token is
//! exchanged again; a timeout drops the session so the next call builds a new one.

use std::process::Command;
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::http;
use super::openai::{OpenAiCompat, Target};
use super::{ChatRequest, ChatResult, ErrorKind, LlmError, Provider};
use crate::cancel::CancelToken;
use crate::config::ProviderSettings;
use crate::net::{self, BodyError, Response};
use crate::store;

/// A token exchange's answer larger than this is not a grant.
const MAX_GRANT: u64 = 256 * 1024;
/// A session token is renewed when it has less than this left.
const EXPIRY_MARGIN: u64 = 60;
/// The headers Copilot's endpoints expect from an editor integration.
const EDITOR_HEADERS: [(&str, &str); 4] = [
    ("Editor-Version", "vscode/1.99.3"),
    ("Editor-Plugin-Version", "copilot-chat/0.26.7"),
    ("Copilot-Integration-Id", "vscode-chat"),
    ("User-Agent", "GitHubCopilotChat/0.26.7"),
];

/// The session token and where to send chats with it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Session {
    token: String,
    expires_at: u64,
    api: String,
}

impl Session {
    fn fresh(&self) -> bool {
        now() + EXPIRY_MARGIN < self.expires_at
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

pub(crate) struct Copilot {
    chat: OpenAiCompat,
    search_path: Option<String>,
    github: Mutex<Option<String>>,
    session: Mutex<Option<Session>>,
}

impl Copilot {
    pub(crate) fn new(settings: ProviderSettings, search_path: Option<String>) -> Self {
        Self {
            github: Mutex::new(settings.api_key.clone()),
            chat: OpenAiCompat::new(settings),
            search_path,
            session: Mutex::new(None),
        }
    }

    fn settings(&self) -> &ProviderSettings {
        self.chat.settings()
    }

    /// The GitHub token: from Config, else `gh auth token` (asked once).
    fn github_token(&self) -> Result<String, LlmError> {
        let mut cached = self.github.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(token) = cached.as_ref() {
            return Ok(token.clone());
        }
        let token = gh_auth_token(self.search_path.as_deref())
            .map_err(|why| LlmError::new(ErrorKind::Auth, why))?;
        *cached = Some(token.clone());
        Ok(token)
    }

    /// A session token that is not about to expire: from memory, the cache file, or a new
    /// exchange. A session that cannot be cached is still used; `notice` says why.
    fn session(
        &self,
        cancel: &CancelToken,
        notice: &mut dyn FnMut(String),
    ) -> Result<Session, LlmError> {
        let mut slot = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(session) = slot.as_ref().filter(|s| s.fresh()) {
            return Ok(session.clone());
        }
        let cache = self.settings().token_cache.clone();
        if let Some(session) = cache
            .as_deref()
            .and_then(store::tokens::load::<Session>)
            .filter(Session::fresh)
        {
            *slot = Some(session.clone());
            return Ok(session);
        }
        let session = self.exchange(cancel)?;
        if let Some(path) = &cache {
            if let Err(unsaved) = store::tokens::save(path, &session) {
                notice(format!(
                    "cannot cache the Copilot session in {}: {}",
                    unsaved.path.display(),
                    unsaved.error
                ));
            }
        }
        *slot = Some(session.clone());
        Ok(session)
    }

    /// Drops the session token everywhere, so the next call exchanges a new one.
    fn forget_session(&self) {
        *self.session.lock().unwrap_or_else(PoisonError::into_inner) = None;
        if let Some(path) = &self.settings().token_cache {
            store::tokens::remove(path);
        }
    }

    fn exchange(&self, cancel: &CancelToken) -> Result<Session, LlmError> {
        let github = self.github_token()?;
        let url = self.settings().token_url.clone();
        let send = |agent: &ureq::Agent| {
            let mut call = agent
                .get(&url)
                .header("Authorization", format!("token {github}"))
                .header("Accept", "application/json");
            for (name, value) in EDITOR_HEADERS {
                call = call.header(name, value);
            }
            call.call()
        };
        self.chat
            .http()
            .exchange(cancel, &url, Some(&github), send, |response| {
                self.read_exchange(response, &github)
            })
    }

    fn read_exchange(&self, response: Response, github: &str) -> Result<Session, LlmError> {
        let status = response.status().as_u16();
        if !net::is_success(&response) {
            let error = http::status_error(response, &self.chat.error_context(Some(github)));
            if matches!(status, 401 | 403 | 404) {
                return Err(LlmError::new(
                    ErrorKind::Auth,
                    format!(
                        "GitHub did not grant a Copilot session (HTTP {status}). Make sure the account has a Copilot subscription and log in again (`gh auth login`, or sign in to Copilot in your editor); the login came from {}.",
                        self.settings().key_hint
                    ),
                ));
            }
            return Err(error);
        }
        #[derive(Deserialize)]
        struct Grant {
            token: String,
            expires_at: u64,
            #[serde(default)]
            endpoints: Endpoints,
        }
        #[derive(Deserialize, Default)]
        struct Endpoints {
            api: Option<String>,
        }
        let content_type = net::header(&response, "content-type");
        let body =
            net::read_text(response.into_body().into_reader(), MAX_GRANT).map_err(|e| match e {
                BodyError::Read(e) => self.chat.http().read_error(e),
                BodyError::TooLarge(_) => LlmError::new(
                    ErrorKind::Protocol,
                    format!("GitHub's Copilot token answer was not understood: {e}"),
                ),
            })?;
        if net::is_html(content_type.as_deref(), body.as_bytes()) {
            return Err(self.chat.http().html_error());
        }
        let grant: Grant = serde_json::from_str(&body).map_err(|e| {
            LlmError::new(
                ErrorKind::Protocol,
                format!("GitHub's Copilot token answer was not understood: {e}"),
            )
        })?;
        let api = grant
            .endpoints
            .api
            .unwrap_or_else(|| self.settings().base_url.clone());
        Ok(Session {
            token: grant.token,
            expires_at: grant.expires_at,
            api,
        })
    }

    fn chat_once(
        &self,
        request: &ChatRequest<'_>,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
        notice: &mut dyn FnMut(String),
    ) -> Result<ChatResult, LlmError> {
        let session = self.session(cancel, notice)?;
        let target = Target {
            base_url: &session.api,
            bearer: Some(&session.token),
            headers: &EDITOR_HEADERS,
        };
        self.chat.chat_at(&target, request, on_text, cancel)
    }
}

impl Provider for Copilot {
    fn name(&self) -> &str {
        "copilot"
    }

    fn model(&self) -> &str {
        &self.settings().model
    }

    fn chat(
        &self,
        request: &ChatRequest<'_>,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
        notice: &mut dyn FnMut(String),
    ) -> Result<ChatResult, LlmError> {
        match self.chat_once(request, on_text, cancel, notice) {
            // The session token lapsed or was revoked early: exchange a new one, once.
            Err(error)
                if error.kind == ErrorKind::Auth
                    && self
                        .session
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .is_some() =>
            {
                self.forget_session();
                self.chat_once(request, on_text, cancel, notice)
            }
            other => other,
        }
    }

    fn reset(&self) {
        self.forget_session();
        self.chat.http().renew();
    }

    fn set_idle_timeout(&self, timeout: std::time::Duration) {
        self.chat.http().set_timeout(timeout);
    }

    fn facts(&self, cancel: &CancelToken) -> super::ModelFacts {
        self.chat.learned_facts(cancel)
    }

    fn forget(&self) {
        self.chat.forget_facts();
    }
}

/// `gh auth token`, for a user logged in with the GitHub CLI.
pub(crate) fn gh_auth_token(search_path: Option<&str>) -> Result<String, String> {
    let missing = "copilot needs a GitHub login: set COPILOT_GITHUB_TOKEN, sign in to Copilot in your editor, or install the GitHub CLI and run `gh auth login`";
    let gh = crate::programs::find_program("gh", search_path.map(std::ffi::OsStr::new))
        .ok_or(missing)?;
    // Marvin's own login for its provider, with the person's gh: not a program for the model.
    #[allow(clippy::disallowed_methods)]
    let output = Command::new(gh)
        .args(["auth", "token"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|_| missing.to_string())?;
    let token = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if output.status.success() && !token.is_empty() {
        Ok(token)
    } else {
        Err(
            "copilot needs a GitHub login: `gh auth token` found none; run `gh auth login` first"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_fresh_until_a_minute_before_expiry() {
        let session = |expires_at| Session {
            token: "t".into(),
            expires_at,
            api: "a".into(),
        };
        assert!(session(now() + 600).fresh());
        assert!(!session(now() + 30).fresh());
        assert!(!session(0).fresh());
    }
}
