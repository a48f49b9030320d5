//! Choosing providers: which one (--provider, LLM_PROVIDER or the first set up), with which
//! model and base URL, the fallback chain behind it, and the proxy to reach each through.

use std::path::Path;
use std::time::Duration;

use super::credential::{credential, setup_hint};
use super::provider::{ProviderKind, ProviderSettings};
use super::url::url_from;
use super::{ConfigError, Env};
use crate::cli::Args;
use crate::services;

/// Shared inputs of provider resolution.
pub(super) struct Inputs<'a> {
    pub env: &'a Env,
    pub timeout: Duration,
    pub home: Option<&'a Path>,
}

/// The provider chosen by --provider, LLM_PROVIDER, or the first one set up.
pub(super) fn resolve(args: &Args, inputs: &Inputs<'_>) -> Result<ProviderSettings, ConfigError> {
    let env = inputs.env;
    let chosen = args.provider.as_deref().or_else(|| env.get("LLM_PROVIDER"));
    let kind = match chosen {
        Some(name) => ProviderKind::parse(name).ok_or_else(|| {
            let names: Vec<&str> = ProviderKind::ALL.iter().map(|k| k.name()).collect();
            ConfigError::Invalid(format!(
                "unknown provider {name:?}; choose one of {}",
                names.join(", ")
            ))
        })?,
        None => ProviderKind::AUTO
            .into_iter()
            .find(|kind| credential(*kind, env, false).is_some())
            .ok_or(ConfigError::NoProvider)?,
    };
    let model = match (&args.model, env.get("MARVIN_MODEL")) {
        (Some(model), _) => Some((model.clone(), "--model")),
        (None, Some(model)) => Some((model.to_string(), "MARVIN_MODEL")),
        (None, None) => None,
    };
    settings_for(kind, inputs, model, chosen.is_some()).map_err(ConfigError::Invalid)
}

/// The settings for switching to `name` mid-session (`/provider`, `/model`): as if it had been
/// chosen with --provider, with `model` or the provider's configured one.
pub(super) fn switch(
    name: &str,
    model: Option<String>,
    inputs: &Inputs<'_>,
) -> Result<ProviderSettings, String> {
    let kind = ProviderKind::parse(name).ok_or_else(|| {
        let names: Vec<&str> = ProviderKind::ALL.iter().map(|k| k.name()).collect();
        format!(
            "unknown provider {name:?}; choose one of {}",
            names.join(", ")
        )
    })?;
    settings_for(kind, inputs, model.map(|m| (m, "/model")), true)
}

/// The providers to fall back to, in order: MARVIN_FALLBACK, else Copilot when it has a login.
pub(super) fn fallbacks(
    primary: ProviderKind,
    inputs: &Inputs<'_>,
) -> Result<Vec<ProviderSettings>, ConfigError> {
    let Some(names) = inputs.env.get("MARVIN_FALLBACK") else {
        if primary == ProviderKind::Copilot
            || credential(ProviderKind::Copilot, inputs.env, false).is_none()
        {
            return Ok(Vec::new());
        }
        return Ok(settings_for(ProviderKind::Copilot, inputs, None, false)
            .into_iter()
            .collect());
    };
    let mut chain = Vec::new();
    for name in names
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty() && *n != "none")
    {
        let kind = ProviderKind::parse(name).ok_or_else(|| {
            ConfigError::Invalid(format!("MARVIN_FALLBACK: unknown provider {name:?}"))
        })?;
        if kind != primary && !chain.iter().any(|s: &ProviderSettings| s.kind == kind) {
            chain.push(
                settings_for(kind, inputs, None, true)
                    .map_err(|e| ConfigError::Invalid(format!("MARVIN_FALLBACK: {e}")))?,
            );
        }
    }
    Ok(chain)
}

/// `model` is the model chosen above the provider's own variable, with where it was chosen.
fn settings_for(
    kind: ProviderKind,
    inputs: &Inputs<'_>,
    model: Option<(String, &'static str)>,
    chosen: bool,
) -> Result<ProviderSettings, String> {
    let env = inputs.env;
    let (api_key, key_hint) = credential(kind, env, chosen)
        .ok_or_else(|| format!("{} needs {}", kind.name(), setup_hint(kind)))?;
    let base_url = url_from(env, kind.url_var(), kind.default_url())?;
    let base_url = base_url
        .trim_end_matches('/')
        .trim_end_matches("/chat/completions")
        .to_string();
    let (model, model_hint) = model.unwrap_or_else(|| {
        let var = kind.model_var();
        let model = var
            .and_then(|var| env.get(var))
            .unwrap_or(kind.default_model());
        (model.to_string(), var.unwrap_or("MARVIN_MODEL"))
    });
    let proxy = proxy_for(&base_url, env);
    Ok(ProviderSettings {
        kind,
        model,
        model_hint: model_hint.to_string(),
        base_url,
        api_key,
        key_hint,
        timeout: inputs.timeout,
        proxy,
        token_url: url_from(
            env,
            services::COPILOT_TOKEN.url_var,
            services::COPILOT_TOKEN.default_url,
        )?,
        token_cache: inputs.home.map(crate::store::tokens::copilot_cache),
        facts_cache: inputs.home.map(crate::store::models::file),
    })
}

/// The proxy for `base_url`: none for loopback hosts or hosts matched by NO_PROXY.
fn proxy_for(base_url: &str, env: &Env) -> Option<String> {
    super::proxy_rules(env).for_url(base_url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    fn provider(pairs: &[(&str, &str)]) -> Result<ProviderSettings, ConfigError> {
        with_args(&Args::default(), pairs)
    }

    fn with_args(args: &Args, pairs: &[(&str, &str)]) -> Result<ProviderSettings, ConfigError> {
        let env = Env::from_pairs(pairs.iter().copied());
        resolve(
            args,
            &Inputs {
                env: &env,
                timeout: Duration::from_secs(1),
                home: None,
            },
        )
    }

    fn chain(
        primary: ProviderKind,
        pairs: &[(&str, &str)],
    ) -> Result<Vec<ProviderKind>, ConfigError> {
        let env = Env::from_pairs(pairs.iter().copied());
        let inputs = Inputs {
            env: &env,
            timeout: Duration::from_secs(1),
            home: None,
        };
        Ok(fallbacks(primary, &inputs)?
            .into_iter()
            .map(|s| s.kind)
            .collect())
    }

    #[test]
    fn switching_names_the_provider_keeps_or_replaces_the_model_and_says_what_is_missing() {
        let env = Env::from_pairs([("GROQ_API_KEY", "gsk"), ("GROQ_MODEL", "llama-big")]);
        let inputs = Inputs {
            env: &env,
            timeout: Duration::from_secs(1),
            home: None,
        };
        let groq = switch("groq", None, &inputs).unwrap();
        assert_eq!(
            (groq.kind, groq.model.as_str()),
            (ProviderKind::Groq, "llama-big")
        );
        let other = switch("groq", Some("mixtral".into()), &inputs).unwrap();
        assert_eq!(other.model, "mixtral");
        let missing = switch("gemini", None, &inputs).unwrap_err();
        assert!(missing.contains("GEMINI_API_KEY"), "{missing}");
        let unknown = switch("grok", None, &inputs).unwrap_err();
        assert!(
            unknown.contains("unknown provider \"grok\"") && unknown.contains("ollama"),
            "{unknown}"
        );
    }

    #[test]
    fn the_model_remembers_where_it_was_chosen() {
        let env = [("GROQ_API_KEY", "g"), ("GROQ_MODEL", "g-model")];
        assert_eq!(provider(&env).unwrap().model_hint, "GROQ_MODEL");
        assert_eq!(provider(&env[..1]).unwrap().model_hint, "GROQ_MODEL");
        let marvin = [("OPENAI_API_KEY", "k"), ("MARVIN_MODEL", "m")];
        assert_eq!(provider(&marvin).unwrap().model_hint, "MARVIN_MODEL");
        assert_eq!(provider(&marvin[..1]).unwrap().model_hint, "MARVIN_MODEL");
        let args = Args {
            model: Some("flag".into()),
            ..Args::default()
        };
        assert_eq!(with_args(&args, &marvin).unwrap().model_hint, "--model");
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
        assert_eq!(with_args(&args, &env).unwrap().model, "flag");
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
    fn unknown_providers_are_explained() {
        let ConfigError::Invalid(msg) = provider(&[("LLM_PROVIDER", "claude")]).unwrap_err() else {
            panic!()
        };
        assert!(
            msg.contains("unknown provider \"claude\"") && msg.contains("openai-compat"),
            "{msg}"
        );
    }

    #[test]
    fn ollama_needs_no_key_and_is_found_by_its_url() {
        let chosen = provider(&[("LLM_PROVIDER", "ollama")]).unwrap();
        assert_eq!(
            (chosen.kind, chosen.model.as_str(), chosen.base_url.as_str()),
            (
                ProviderKind::Ollama,
                "qwen3-coder:30b",
                "http://localhost:11434"
            )
        );
        let found = provider(&[
            ("OLLAMA_URL", "http://gpu-box:11434/"),
            ("OLLAMA_MODEL", "llama3.2"),
        ])
        .unwrap();
        assert_eq!(
            (found.kind, found.model.as_str(), found.base_url.as_str()),
            (ProviderKind::Ollama, "llama3.2", "http://gpu-box:11434")
        );
    }

    #[test]
    fn copilot_logins_are_found_in_order() {
        let home = TempDir::new("copilot-login");
        let dir = home.path().join(".config/github-copilot");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("apps.json"), r#"{"github.com:Iv1.b507a08c87ecfe98": {"user": "me", "oauth_token": "gho_from_editor"}}"#).unwrap();
        let home_str = home.path().to_str().unwrap();
        let p = provider(&[("HOME", home_str), ("OPENAI_API_KEY", "k")]).unwrap();
        assert_eq!(
            (p.kind, p.api_key.as_deref(), p.model.as_str()),
            (
                ProviderKind::Copilot,
                Some("gho_from_editor"),
                "claude-haiku-4.5"
            )
        );
        assert!(
            p.key_hint.ends_with("github-copilot/apps.json"),
            "{}",
            p.key_hint
        );
        let p = provider(&[
            ("HOME", home_str),
            ("COPILOT_GITHUB_TOKEN", "gho_env"),
            ("MARVIN_CHAT_MODEL", "gpt-4.1"),
        ])
        .unwrap();
        assert_eq!(
            (p.api_key.as_deref(), p.key_hint.as_str(), p.model.as_str()),
            (Some("gho_env"), "COPILOT_GITHUB_TOKEN", "gpt-4.1")
        );
        // GH_TOKEN counts only when copilot is chosen; then `gh auth token` is the last resort.
        assert_eq!(
            provider(&[("GH_TOKEN", "gho_gh"), ("OPENAI_API_KEY", "k")])
                .unwrap()
                .kind,
            ProviderKind::OpenAi
        );
        let chosen = provider(&[("LLM_PROVIDER", "copilot"), ("GH_TOKEN", "gho_gh")]).unwrap();
        assert_eq!(chosen.api_key.as_deref(), Some("gho_gh"));
        let chosen = provider(&[("LLM_PROVIDER", "copilot")]).unwrap();
        assert_eq!(
            (chosen.api_key, chosen.key_hint.as_str()),
            (None, "gh auth token")
        );
    }

    #[test]
    fn fallback_is_copilot_when_logged_in_or_what_marvin_fallback_says() {
        let login = [
            ("COPILOT_GITHUB_TOKEN", "gho"),
            ("GROQ_API_KEY", "g"),
            ("GEMINI_API_KEY", "m"),
        ];
        assert_eq!(
            chain(ProviderKind::Groq, &login).unwrap(),
            [ProviderKind::Copilot]
        );
        assert_eq!(chain(ProviderKind::Copilot, &login).unwrap(), []);
        assert_eq!(chain(ProviderKind::Groq, &login[1..]).unwrap(), []);
        let listed = [
            ("MARVIN_FALLBACK", "gemini, groq"),
            ("GROQ_API_KEY", "g"),
            ("GEMINI_API_KEY", "m"),
        ];
        assert_eq!(
            chain(ProviderKind::Groq, &listed).unwrap(),
            [ProviderKind::Gemini]
        );
        assert_eq!(
            chain(
                ProviderKind::Groq,
                &[("MARVIN_FALLBACK", "none"), ("COPILOT_GITHUB_TOKEN", "x")]
            )
            .unwrap(),
            []
        );
        let ConfigError::Invalid(msg) =
            chain(ProviderKind::Groq, &[("MARVIN_FALLBACK", "openai")]).unwrap_err()
        else {
            panic!()
        };
        assert!(
            msg.starts_with("MARVIN_FALLBACK: openai needs an API key"),
            "{msg}"
        );
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
    fn debug_output_never_shows_the_key() {
        let p = provider(&[("OPENAI_API_KEY", "sk-very-secret")]).unwrap();
        assert!(!format!("{p:?}").contains("sk-very-secret"));
        let p = provider(&[("OPENAI_COMPAT_URL", "http://me:hunter22@box:9000/v1")]).unwrap();
        assert_eq!(p.shown_url(), "http://box:9000/v1");
        assert!(!format!("{p:?}").contains("hunter22"));
    }
}
