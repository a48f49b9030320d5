//! The providers Marvin knows: each one's name, its row in the services table, its model
//! variable and default model, and the settings a client needs to talk to it.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::net::without_userinfo;
use crate::services::{self, Service};

/// The chat services Marvin knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    OpenAi,
    Groq,
    Gemini,
    OpenAiCompat,
    Ollama,
    Copilot,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 6] = [
        Self::Copilot,
        Self::Gemini,
        Self::Groq,
        Self::OpenAi,
        Self::Ollama,
        Self::OpenAiCompat,
    ];
    /// The order tried when no provider is chosen: the seed's default first.
    pub(super) const AUTO: [ProviderKind; 6] = [
        Self::Copilot,
        Self::OpenAi,
        Self::Gemini,
        Self::Groq,
        Self::OpenAiCompat,
        Self::Ollama,
    ];

    /// Its row in the table of services: base URL, default and credential.
    pub fn service(self) -> &'static Service {
        match self {
            Self::OpenAi => &services::OPENAI,
            Self::Groq => &services::GROQ,
            Self::Gemini => &services::GEMINI,
            Self::OpenAiCompat => &services::OPENAI_COMPAT,
            Self::Ollama => &services::OLLAMA,
            Self::Copilot => &services::COPILOT,
        }
    }

    /// The name the user types (`openai-compat`): its service's id, not its display name.
    #[allow(clippy::misnamed_getters)]
    pub fn name(self) -> &'static str {
        self.service().id
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.name() == name.trim().to_ascii_lowercase())
    }

    /// The variable holding its credential: the API key's, Copilot's first GitHub login
    /// variable. Ollama needs none; it answers with the compat key's name, as it always has,
    /// so that checks over every kind still hold.
    pub fn key_var(self) -> &'static str {
        match self.service().credential.variables().first() {
            Some(var) => var,
            None => services::OPENAI_COMPAT.credential.variables()[0],
        }
    }

    /// The variable holding the base URL.
    pub fn url_var(self) -> &'static str {
        self.service().url_var
    }

    pub(crate) fn default_url(self) -> &'static str {
        self.service().default_url
    }

    pub(super) fn model_var(self) -> Option<&'static str> {
        match self {
            Self::Groq => Some("GROQ_MODEL"),
            Self::Gemini => Some("GEMINI_MODEL"),
            Self::OpenAiCompat => Some("OPENAI_COMPAT_MODEL"),
            Self::Ollama => Some("OLLAMA_MODEL"),
            Self::Copilot => Some("MARVIN_CHAT_MODEL"),
            Self::OpenAi => None,
        }
    }

    pub(super) fn default_model(self) -> &'static str {
        match self {
            Self::OpenAi => "gpt-5.1",
            Self::Groq => "llama-3.3-70b-versatile",
            Self::Gemini => "gemini-3-pro-preview",
            Self::OpenAiCompat => "qwen/qwen3-32b",
            Self::Ollama => "qwen3-coder:30b",
            Self::Copilot => "claude-haiku-4.5",
        }
    }

    /// The emoji of the seed's status bar.
    pub fn emoji(self) -> &'static str {
        match self {
            Self::Copilot => "🤖",
            Self::Gemini => "💎",
            Self::Groq => "⚡",
            Self::Ollama => "🦙",
            Self::OpenAi => "🧠",
            Self::OpenAiCompat => "🔮",
        }
    }
}

/// Everything needed to talk to one provider.
#[derive(Clone)]
pub struct ProviderSettings {
    pub kind: ProviderKind,
    pub model: String,
    /// Where the model was chosen, for an "unknown model" error to name: `--model`,
    /// `MARVIN_MODEL`, `/model`, or the provider's own variable (`GROQ_MODEL`).
    pub model_hint: String,
    /// May carry `user:password@`, which is sent but never shown: see [`Self::shown_url`].
    pub base_url: String,
    /// The API key, or for Copilot the GitHub token; `None` when none is needed or, for
    /// Copilot, when it is to be asked of `gh auth token` at first use.
    pub api_key: Option<String>,
    /// Where the key came from, for error messages: `GROQ_API_KEY` or `~/.ssh/GROQ_API_KEY`.
    pub key_hint: String,
    pub timeout: Duration,
    pub proxy: Option<String>,
    /// Copilot: where the GitHub token is exchanged for a session token.
    pub token_url: String,
    /// Copilot: where the session token is kept between runs (0600).
    pub token_cache: Option<PathBuf>,
    /// Where what a server said of its model is kept a day (MARVIN_HOME/models.json).
    pub facts_cache: Option<PathBuf>,
}

impl fmt::Debug for ProviderSettings {
    /// Never prints the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderSettings")
            .field("kind", &self.kind)
            .field("model", &self.model)
            .field("base_url", &self.shown_url())
            .field("key_hint", &self.key_hint)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl ProviderSettings {
    /// The base URL as it may be shown: without `user:password@`.
    pub fn shown_url(&self) -> String {
        without_userinfo(&self.base_url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_provider_is_a_service_whose_credential_is_a_secret() {
        let secrets = services::secret_variables();
        for kind in ProviderKind::ALL {
            assert!(
                services::SERVICES.contains(kind.service()),
                "{}",
                kind.name()
            );
            assert!(secrets.contains(&kind.key_var()), "{}", kind.key_var());
        }
    }
}
