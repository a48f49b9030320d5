//! The only place that reads environment variables: builds the [`Config`] every other module
//! receives, including which provider to talk to and where its key came from.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::Args;

/// Every variable Marvin reads, so the help text and the code cannot drift apart.
pub const VARIABLES: &[&str] = &[
    "LLM_PROVIDER",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GROQ_API_KEY",
    "OPENAI_COMPAT_API_KEY",
    "OPENAI_COMPAT_URL",
    "OPENAI_BASE_URL",
    "GEMINI_BASE_URL",
    "GROQ_BASE_URL",
    "MARVIN_MODEL",
    "GEMINI_MODEL",
    "GROQ_MODEL",
    "OPENAI_COMPAT_MODEL",
    "MARVIN_CHAT_MODEL",
    "MARVIN_HOME",
    "MARVIN_DEPTH",
    "MARVIN_READONLY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "NO_COLOR",
];

/// Standard variables read for their usual meaning; the help mentions them in passing.
const STANDARD: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "TERM",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "no_proxy",
];

/// A snapshot of the environment. Tests build one from pairs instead of touching the process.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: HashMap<String, String>,
}

impl Env {
    pub fn from_process() -> Self {
        Self {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        }
    }

    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// A set, non-empty value.
    fn get(&self, name: &str) -> Option<&str> {
        debug_assert!(
            VARIABLES.contains(&name) || STANDARD.contains(&name),
            "undocumented variable {name}"
        );
        self.vars
            .get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }
}

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

/// The whole configuration of one run.
#[derive(Debug, Clone)]
pub struct Config {
    pub provider: ProviderSettings,
    /// MARVIN_HOME; `None` when there is no home directory to put it in.
    pub home: Option<PathBuf>,
    pub profile: String,
    pub working_dir: PathBuf,
    pub non_interactive: bool,
    pub coding_mode: bool,
    pub readonly: bool,
    pub depth: u32,
    pub ntfy: Option<String>,
    pub chat_model: Option<String>,
    pub max_rounds: usize,
    /// Colour is allowed by the environment (NO_COLOR unset, TERM not dumb); the UI still
    /// checks that the output is a terminal.
    pub colour_allowed: bool,
}

impl Config {
    /// The directory of the active profile, when there is a MARVIN_HOME.
    pub fn profile_dir(&self) -> Option<PathBuf> {
        self.home
            .as_ref()
            .map(|home| home.join("profiles").join(&self.profile))
    }
}

/// Why no configuration could be built.
#[derive(Debug, PartialEq)]
pub enum ConfigError {
    /// No provider has credentials: the user needs the set-up paragraph.
    NoProvider,
    Invalid(String),
}

pub const SETUP_HELP: &str = "\
no language model is set up. Give Marvin a key for one provider, e.g.
    export OPENAI_API_KEY=sk-...       (or GEMINI_API_KEY, GROQ_API_KEY)
or point it at any OpenAI-compatible server:
    export OPENAI_COMPAT_URL=http://localhost:8080/v1
A key may also be kept in a file, e.g. ~/.ssh/GROQ_API_KEY. With several
set up, choose with --provider or LLM_PROVIDER. See `marvin --help`.";

impl Config {
    pub fn build(args: &Args, env: &Env, cwd: &Path) -> Result<Config, ConfigError> {
        let non_interactive = args.non_interactive;
        let coding_mode = non_interactive;
        let working_dir = working_dir(args.working_dir.as_deref(), cwd)?;
        let timeout = Duration::from_secs(if coding_mode { 900 } else { 180 });
        let provider = provider_settings(args, env, timeout)?;
        let depth = match env.get("MARVIN_DEPTH") {
            Some(text) => text.parse().map_err(|_| {
                ConfigError::Invalid(format!("MARVIN_DEPTH must be a whole number, not {text:?}"))
            })?,
            None => 0,
        };
        Ok(Config {
            provider,
            home: marvin_home(env),
            profile: "default".to_string(),
            working_dir,
            non_interactive,
            coding_mode,
            readonly: matches!(env.get("MARVIN_READONLY"), Some("1" | "true" | "yes")),
            depth,
            ntfy: args.ntfy.clone(),
            chat_model: env.get("MARVIN_CHAT_MODEL").map(str::to_string),
            max_rounds: if non_interactive { 50 } else { 10 },
            colour_allowed: env.get("NO_COLOR").is_none() && env.get("TERM") != Some("dumb"),
        })
    }
}

fn working_dir(requested: Option<&Path>, cwd: &Path) -> Result<PathBuf, ConfigError> {
    let Some(dir) = requested else {
        return Ok(cwd.to_path_buf());
    };
    let dir = cwd.join(dir);
    match std::fs::canonicalize(&dir) {
        Ok(path) if path.is_dir() => Ok(path),
        Ok(_) => Err(ConfigError::Invalid(format!(
            "--working-dir {}: not a directory",
            dir.display()
        ))),
        Err(error) => Err(ConfigError::Invalid(format!(
            "--working-dir {}: {error}",
            dir.display()
        ))),
    }
}

fn marvin_home(env: &Env) -> Option<PathBuf> {
    if let Some(home) = env.get("MARVIN_HOME") {
        return Some(PathBuf::from(home));
    }
    if let Some(config) = env.get("XDG_CONFIG_HOME") {
        return Some(Path::new(config).join("marvin"));
    }
    env.get("HOME")
        .map(|home| Path::new(home).join(".config").join("marvin"))
}

fn provider_settings(
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

    fn build(args: Args, pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        Config::build(
            &args,
            &Env::from_pairs(pairs.iter().copied()),
            Path::new("/"),
        )
    }

    fn provider(pairs: &[(&str, &str)]) -> Result<ProviderSettings, ConfigError> {
        build(Args::default(), pairs).map(|c| c.provider)
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
        assert_eq!(build(args, &env).unwrap().provider.model, "flag");
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
        let home = std::env::temp_dir().join(format!("marvin-config-test-{}", std::process::id()));
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/GROQ_API_KEY"), "  from-file\n").unwrap();
        let p = provider(&[("HOME", home.to_str().unwrap())]).unwrap();
        std::fs::remove_dir_all(&home).unwrap();
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
    fn modes_set_rounds_and_timeouts() {
        let env = [("OPENAI_API_KEY", "k")];
        let repl = build(Args::default(), &env).unwrap();
        assert_eq!(
            (
                repl.max_rounds,
                repl.coding_mode,
                repl.provider.timeout.as_secs()
            ),
            (10, false, 180)
        );
        let batch = build(
            Args {
                non_interactive: true,
                ..Args::default()
            },
            &env,
        )
        .unwrap();
        assert_eq!(
            (
                batch.max_rounds,
                batch.coding_mode,
                batch.provider.timeout.as_secs()
            ),
            (50, true, 900)
        );
    }

    #[test]
    fn home_colour_depth_and_readonly() {
        let c = build(Args::default(), &[("OPENAI_API_KEY", "k"), ("HOME", "/h")]).unwrap();
        assert_eq!(c.home, Some(PathBuf::from("/h/.config/marvin")));
        assert!(c.colour_allowed && !c.readonly);
        let c = build(
            Args::default(),
            &[
                ("OPENAI_API_KEY", "k"),
                ("XDG_CONFIG_HOME", "/x"),
                ("NO_COLOR", "1"),
                ("MARVIN_READONLY", "1"),
                ("MARVIN_DEPTH", "2"),
            ],
        )
        .unwrap();
        assert_eq!(c.home, Some(PathBuf::from("/x/marvin")));
        assert!(!c.colour_allowed && c.readonly);
        assert_eq!(c.depth, 2);
        let c = build(
            Args::default(),
            &[
                ("OPENAI_API_KEY", "k"),
                ("MARVIN_HOME", "/m"),
                ("TERM", "dumb"),
            ],
        )
        .unwrap();
        assert_eq!(c.home, Some(PathBuf::from("/m")));
        assert!(!c.colour_allowed);
        assert!(matches!(
            build(
                Args::default(),
                &[("OPENAI_API_KEY", "k"), ("MARVIN_DEPTH", "x")]
            ),
            Err(ConfigError::Invalid(_))
        ));
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
    fn working_dir_must_be_a_directory() {
        let args = Args {
            working_dir: Some("/definitely/not/here".into()),
            ..Args::default()
        };
        assert!(
            matches!(build(args, &[("OPENAI_API_KEY", "k")]), Err(ConfigError::Invalid(m)) if m.contains("--working-dir"))
        );
    }

    #[test]
    fn help_documents_every_variable() {
        for var in VARIABLES {
            assert!(
                crate::cli::HELP.contains(var),
                "--help does not mention {var}"
            );
        }
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let p = provider(&[("OPENAI_API_KEY", "sk-very-secret")]).unwrap();
        assert!(!format!("{p:?}").contains("sk-very-secret"));
    }
}
