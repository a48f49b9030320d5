//! Where each provider's credential is: the environment, `~/.ssh/<NAME>`, GitHub Copilot's
//! own login files, or `gh auth token`; and the `--list-providers` report of what was found.

use std::path::{Path, PathBuf};

use super::Env;
use super::provider::ProviderKind;
use crate::net::without_userinfo;

/// One line of `--list-providers`: the provider, its model and where its credential is (for
/// a server such as Ollama, where it is). Ollama counts as set up only when OLLAMA_URL says
/// where it runs, as when Marvin picks a provider by itself.
pub fn report(env: &Env) -> Vec<(ProviderKind, String, String)> {
    ProviderKind::ALL
        .into_iter()
        .map(|kind| {
            let model = kind
                .model_var()
                .and_then(|v| env.get(v))
                .unwrap_or(kind.default_model())
                .to_string();
            let set_url = env.get(kind.url_var()).map(without_userinfo);
            let url = set_url.clone().unwrap_or(kind.default_url().to_string());
            let found = match credential(kind, env, kind != ProviderKind::Ollama) {
                Some((key, hint)) => about(kind, key.is_some(), &hint, &url, set_url.is_some()),
                None => format!("not set up: {}", setup_hint(kind)),
            };
            (kind, model, found)
        })
        .collect()
}

/// What a set-up provider runs on: where its key is (`GROQ_API_KEY`), and its URL where that
/// matters: always for a server of one's own (`http://127.0.0.1:8080/v1, no key`), for a
/// hosted service only when `custom_url` moved it.
pub fn about(kind: ProviderKind, has_key: bool, hint: &str, url: &str, custom_url: bool) -> String {
    match kind {
        ProviderKind::Ollama => format!("{url}, no key needed"),
        ProviderKind::OpenAiCompat if !has_key => format!("{url}, no key"),
        ProviderKind::OpenAiCompat => format!("{hint}, {url}"),
        ProviderKind::Copilot => hint.to_string(),
        _ if custom_url => format!("{hint}, {url}"),
        _ => hint.to_string(),
    }
}

/// What a user does to set `kind` up.
pub(super) fn setup_hint(kind: ProviderKind) -> String {
    match kind {
        ProviderKind::Copilot => "a GitHub login with a Copilot subscription: run `gh auth login`, sign in to Copilot in your editor, or set COPILOT_GITHUB_TOKEN".into(),
        ProviderKind::Ollama => "a running Ollama server: set OLLAMA_URL (e.g. http://localhost:11434) or choose it with --provider ollama".into(),
        ProviderKind::OpenAiCompat => "an API key or a server: set OPENAI_COMPAT_API_KEY or OPENAI_COMPAT_URL".into(),
        _ => format!("an API key: set {var} or put the key in ~/.ssh/{var}", var = kind.key_var()),
    }
}

/// The credential of `kind` and where it was found. `chosen` widens the search to sources
/// that are only right when the user picked the provider (GH_TOKEN, `gh auth token`, an
/// Ollama without OLLAMA_URL).
pub(super) fn credential(
    kind: ProviderKind,
    env: &Env,
    chosen: bool,
) -> Option<(Option<String>, String)> {
    match kind {
        ProviderKind::Ollama => {
            (chosen || env.get("OLLAMA_URL").is_some()).then(|| (None, "none needed".to_string()))
        }
        ProviderKind::Copilot => github_token(env, chosen),
        ProviderKind::OpenAiCompat => find_key(kind, env).or_else(|| {
            env.get("OPENAI_COMPAT_URL")
                .map(|_| (None, "OPENAI_COMPAT_API_KEY (not set)".to_string()))
        }),
        _ => find_key(kind, env),
    }
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

/// A GitHub token for Copilot: COPILOT_GITHUB_TOKEN, the Copilot editor login files, and
/// when Copilot was chosen also GH_TOKEN, GITHUB_TOKEN and finally `gh auth token` (asked at
/// first use, so start-up never waits on it).
fn github_token(env: &Env, chosen: bool) -> Option<(Option<String>, String)> {
    if let Some(token) = env.get("COPILOT_GITHUB_TOKEN") {
        return Some((Some(token.to_string()), "COPILOT_GITHUB_TOKEN".into()));
    }
    let config = env
        .get("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| env.get("HOME").map(|home| Path::new(home).join(".config")));
    if let Some(dir) = config.map(|c| c.join("github-copilot")) {
        for file in ["apps.json", "hosts.json"] {
            if let Some(token) = oauth_token_in(&dir.join(file)) {
                return Some((Some(token), format!("{}", dir.join(file).display())));
            }
        }
    }
    if !chosen {
        return None;
    }
    for var in ["GH_TOKEN", "GITHUB_TOKEN"] {
        if let Some(token) = env.get(var) {
            return Some((Some(token.to_string()), var.to_string()));
        }
    }
    Some((None, "gh auth token".into()))
}

/// The first `oauth_token` in a Copilot login file (`{"github.com:...": {"oauth_token": ...}}`).
fn oauth_token_in(path: &Path) -> Option<String> {
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    value
        .as_object()?
        .values()
        .find_map(|entry| entry.get("oauth_token")?.as_str().map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_names_sources_never_keys() {
        let env = Env::from_pairs([("GROQ_API_KEY", "gsk-secret"), ("OLLAMA_URL", "http://x:1")]);
        let lines = report(&env);
        let groq = lines
            .iter()
            .find(|(k, _, _)| *k == ProviderKind::Groq)
            .unwrap();
        assert_eq!(
            (groq.1.as_str(), groq.2.as_str()),
            ("llama-3.3-70b-versatile", "GROQ_API_KEY")
        );
        let openai = lines
            .iter()
            .find(|(k, _, _)| *k == ProviderKind::OpenAi)
            .unwrap();
        assert!(
            openai
                .2
                .starts_with("not set up: an API key: set OPENAI_API_KEY"),
            "{}",
            openai.2
        );
        assert!(!format!("{lines:?}").contains("gsk-secret"));
        let find = |kind| lines.iter().find(|(k, _, _)| *k == kind).unwrap().2.clone();
        assert_eq!(find(ProviderKind::Ollama), "http://x:1, no key needed");
        assert!(find(ProviderKind::OpenAiCompat).starts_with("not set up:"));
        // A key-less server of one's own shows where it is, and no Ollama without its URL.
        let env = Env::from_pairs([("OPENAI_COMPAT_URL", "http://u:p@127.0.0.1:8080/v1")]);
        let lines = report(&env);
        let find = |kind| lines.iter().find(|(k, _, _)| *k == kind).unwrap().2.clone();
        assert_eq!(
            find(ProviderKind::OpenAiCompat),
            "http://127.0.0.1:8080/v1, no key"
        );
        assert!(find(ProviderKind::Ollama).starts_with("not set up: a running Ollama"));
    }
}
