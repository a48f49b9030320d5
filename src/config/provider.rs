//! Choosing the provider: which service, which model and base URL, and where its key is
//! (the environment, else `~/.ssh/<NAME>`), plus the proxy to reach it through.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use super::{ConfigError, Env};
use crate::cli::Args;

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
    /// The order tried when no provider is chosen.
    const AUTO: [ProviderKind; 4] = [Self::OpenAi, Self::Gemini, Self::Groq, Self::OpenAiCompat];

    pub fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Groq => "groq",
            Self::Gemini => "gemini",
            Self::OpenAiCompat => "openai-compat",
            Self::Ollama => "ollama",
            Self::Copilot => "copilot",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.name() == name.to_ascii_lowercase())
    }

    fn key_var(self) -> &'static str {
        match self {
            Self::OpenAi => "OPENAI_API_KEY",
            Self::Groq => "GROQ_API_KEY",
            Self::Gemini => "GEMINI_API_KEY",
            _ => "OPENAI_COMPAT_API_KEY",
        }
    }

    fn url_var(self) -> &'static str {
        match self {
            Self::OpenAi => "OPENAI_BASE_URL",
            Self::Groq => "GROQ_BASE_URL",
            Self::Gemini => "GEMINI_BASE_URL",
            _ => "OPENAI_COMPAT_URL",
        }
    }

    fn default_url(self) -> &'static str {
        match self {
            Self::OpenAi => "https://api.openai.com/v1",
            Self::Groq => "https://api.groq.com/openai/v1",
            Self::Gemini => "https://generativelanguage.googleapis.com/v1beta/openai",
            _ => "https://openrouter.ai/api/v1",
        }
    }

    fn model_var(self) -> Option<&'static str> {
        match self {
            Self::Groq => Some("GROQ_MODEL"),
            Self::Gemini => Some("GEMINI_MODEL"),
            Self::OpenAiCompat => Some("OPENAI_COMPAT_MODEL"),
            _ => None,
        }
    }

    fn default_model(self) -> &'static str {
        match self {
            Self::OpenAi => "gpt-5.1",
            Self::Groq => "llama-3.3-70b-versatile",
            Self::Gemini => "gemini-3-pro-preview",
            _ => "qwen/qwen3-32b",
        }
    }

    /// The emoji of the seed's status bar.
    pub fn emoji(self) -> &'static str {
        match self {
            Self::Copilot => "🤖",
            Self::Gemini => "💎",
            Self::Groq => "⚡",
            Self::Ollama => "🦙",
            _ => "🔮",
        }
    }
}

/// Everything needed to talk to one provider.
#[derive(Clone)]
pub struct ProviderSettings {
    pub kind: ProviderKind,
    pub model: String,
    pub base_url: String,
    pub api_key: Option<String>,
    /// Where the key came from, for error messages: `GROQ_API_KEY` or `~/.ssh/GROQ_API_KEY`.
    pub key_hint: String,
    pub timeout: Duration,
    pub proxy: Option<String>,
}

impl fmt::Debug for ProviderSettings {
    /// Never prints the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderSettings")
            .field("kind", &self.kind)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("key_hint", &self.key_hint)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

pub(super) fn resolve(
    args: &Args,
    env: &Env,
    timeout: Duration,
) -> Result<ProviderSettings, ConfigError> {
    let chosen = args.provider.as_deref().or_else(|| env.get("LLM_PROVIDER"));
    let kind = match chosen {
        Some(name) => {
            let kind = ProviderKind::parse(name).ok_or_else(|| {
                let names: Vec<&str> = ProviderKind::ALL.iter().map(|k| k.name()).collect();
                ConfigError::Invalid(format!(
                    "unknown provider {name:?}; choose one of {}",
                    names.join(", ")
                ))
            })?;
            if matches!(kind, ProviderKind::Ollama | ProviderKind::Copilot) {
                return Err(ConfigError::Invalid(format!(
                    "the {} provider is not available in this version of Marvin yet; use openai, groq, gemini or openai-compat",
                    kind.name()
                )));
            }
            kind
        }
        None => ProviderKind::AUTO
            .into_iter()
            .find(|kind| is_configured(*kind, env))
            .ok_or(ConfigError::NoProvider)?,
    };
    let (api_key, key_hint) = match find_key(kind, env) {
        Some(found) => found,
        None if kind == ProviderKind::OpenAiCompat && env.get("OPENAI_COMPAT_URL").is_some() => {
            (None, "OPENAI_COMPAT_API_KEY (not set)".to_string())
        }
        None => {
            let var = kind.key_var();
            return Err(ConfigError::Invalid(format!(
                "{} needs an API key: set {var} or put the key in ~/.ssh/{var}",
                kind.name()
            )));
        }
    };
    let base_url = env.get(kind.url_var()).unwrap_or(kind.default_url());
    let base_url = base_url
        .trim_end_matches('/')
        .trim_end_matches("/chat/completions")
        .to_string();
    let model = args
        .model
        .clone()
        .or_else(|| env.get("MARVIN_MODEL").map(str::to_string))
        .or_else(|| {
            kind.model_var()
                .and_then(|var| env.get(var))
                .map(str::to_string)
        })
        .unwrap_or_else(|| kind.default_model().to_string());
    let proxy = proxy_for(&base_url, env);
    Ok(ProviderSettings {
        kind,
        model,
        base_url,
        api_key,
        key_hint,
        timeout,
        proxy,
    })
}

fn is_configured(kind: ProviderKind, env: &Env) -> bool {
    find_key(kind, env).is_some()
        || (kind == ProviderKind::OpenAiCompat && env.get("OPENAI_COMPAT_URL").is_some())
}

/// The key from the environment, else from `~/.ssh/<NAME>`, with where it was found.
fn find_key(kind: ProviderKind, env: &Env) -> Option<(Option<String>, String)> {
    let var = kind.key_var();
    if let Some(key) = env.get(var) {
        return Some((Some(key.to_string()), var.to_string()));
    }
    let path = Path::new(env.get("HOME")?).join(".ssh").join(var);
    let key = std::fs::read_to_string(path).ok()?;
    let key = key.trim();
    (!key.is_empty()).then(|| (Some(key.to_string()), format!("~/.ssh/{var}")))
}

/// The proxy for `base_url`: none for loopback hosts or hosts matched by NO_PROXY.
fn proxy_for(base_url: &str, env: &Env) -> Option<String> {
    let proxy = ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
        .iter()
        .find_map(|var| env.get(var))?;
    let host = base_url
        .split("://")
        .nth(1)
        .and_then(|rest| rest.split(['/', ':']).next())
        .unwrap_or("");
    let loopback = host == "localhost" || host.starts_with("127.") || host == "[";
    let no_proxy = env
        .get("NO_PROXY")
        .or_else(|| env.get("no_proxy"))
        .unwrap_or("");
    let excluded = no_proxy.split(',').map(str::trim).any(|entry| {
        let entry = entry.trim_start_matches('.');
        entry == "*"
            || (!entry.is_empty() && (host == entry || host.ends_with(&format!(".{entry}"))))
    });
    (!loopback && !excluded).then(|| proxy.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    fn provider(pairs: &[(&str, &str)]) -> Result<ProviderSettings, ConfigError> {
        resolve(
            &Args::default(),
            &Env::from_pairs(pairs.iter().copied()),
            Duration::from_secs(1),
        )
    }

    #[test]
    fn nothing_configured_asks_for_setup() {
        assert_eq!(provider(&[]).unwrap_err(), ConfigError::NoProvider);
    }

    #[test]
    fn first_provider_with_a_key_is_chosen_with_its_defaults() {
        let p = provider(&[("GROQ_API_KEY", "g"), ("GEMINI_API_KEY", "m")]).unwrap();
        assert_eq!(p.kind, ProviderKind::Gemini);
        assert_eq!(p.model, "gemini-3-pro-preview");
        assert_eq!(
            p.base_url,
            "https://generativelanguage.googleapis.com/v1beta/openai"
        );
        assert_eq!(p.key_hint, "GEMINI_API_KEY");
        let p = provider(&[
            ("LLM_PROVIDER", "groq"),
            ("GROQ_API_KEY", "g"),
            ("GEMINI_API_KEY", "m"),
        ])
        .unwrap();
        assert_eq!(
            (p.kind, p.model.as_str()),
            (ProviderKind::Groq, "llama-3.3-70b-versatile")
        );
    }

    #[test]
    fn model_precedence_is_flag_then_marvin_model_then_provider_variable() {
        let env = [
            ("GROQ_API_KEY", "g"),
            ("GROQ_MODEL", "g-model"),
            ("MARVIN_MODEL", "m-model"),
        ];
        assert_eq!(provider(&env[..2]).unwrap().model, "g-model");
        assert_eq!(provider(&env).unwrap().model, "m-model");
        let args = Args {
            model: Some("flag".into()),
            ..Args::default()
        };
        let env = Env::from_pairs(env.iter().copied());
        assert_eq!(
            resolve(&args, &env, Duration::from_secs(1)).unwrap().model,
            "flag"
        );
    }

    #[test]
    fn compat_url_alone_is_enough_and_the_endpoint_suffix_is_dropped() {
        let p = provider(&[(
            "OPENAI_COMPAT_URL",
            "http://127.0.0.1:9/v1/chat/completions",
        )])
        .unwrap();
        assert_eq!(p.kind, ProviderKind::OpenAiCompat);
        assert_eq!(p.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(p.api_key, None);
    }

    #[test]
    fn key_file_in_ssh_dir_is_the_fallback() {
        let home = TempDir::new("ssh-key");
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        std::fs::write(home.path().join(".ssh/GROQ_API_KEY"), "  from-file\n").unwrap();
        let p = provider(&[("HOME", home.path().to_str().unwrap())]).unwrap();
        assert_eq!(p.kind, ProviderKind::Groq);
        assert_eq!(p.api_key.as_deref(), Some("from-file"));
        assert_eq!(p.key_hint, "~/.ssh/GROQ_API_KEY");
    }

    #[test]
    fn chosen_provider_without_key_names_the_variable() {
        let ConfigError::Invalid(msg) = provider(&[("LLM_PROVIDER", "openai")]).unwrap_err() else {
            panic!()
        };
        assert!(
            msg.contains("set OPENAI_API_KEY or put the key in ~/.ssh/OPENAI_API_KEY"),
            "{msg}"
        );
    }

    #[test]
    fn unknown_and_later_providers_are_explained() {
        let ConfigError::Invalid(msg) = provider(&[("LLM_PROVIDER", "claude")]).unwrap_err() else {
            panic!()
        };
        assert!(
            msg.contains("unknown provider \"claude\"") && msg.contains("openai-compat"),
            "{msg}"
        );
        let ConfigError::Invalid(msg) = provider(&[("LLM_PROVIDER", "ollama")]).unwrap_err() else {
            panic!()
        };
        assert!(msg.contains("not available in this version"), "{msg}");
    }

    #[test]
    fn proxy_skips_loopback_and_no_proxy_hosts() {
        let env = Env::from_pairs([
            ("HTTPS_PROXY", "http://proxy:3128"),
            ("NO_PROXY", "example.org"),
        ]);
        assert_eq!(
            proxy_for("https://api.openai.com/v1", &env).as_deref(),
            Some("http://proxy:3128")
        );
        assert_eq!(proxy_for("http://127.0.0.1:8080/v1", &env), None);
        assert_eq!(proxy_for("https://api.example.org/v1", &env), None);
    }

    #[test]
    fn every_key_variable_is_kept_from_commands() {
        for kind in ProviderKind::ALL {
            assert!(
                crate::tools::shell::SECRET_VARIABLES.contains(&kind.key_var()),
                "{}",
                kind.key_var()
            );
        }
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let p = provider(&[("OPENAI_API_KEY", "sk-very-secret")]).unwrap();
        assert!(!format!("{p:?}").contains("sk-very-secret"));
    }
}
