//! The provider table of `--list-providers` and `/provider`: what each provider is set up
//! with (never a key), where a server of one's own runs and whether it answers, and which
//! one is in use.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::Args;
use crate::config::{self, Config, ConfigError, Env, ProviderKind, ProviderSettings};
use crate::llm::copilot::gh_auth_token;
use crate::local;
use crate::ui::table::ProviderRow;

/// How long an Ollama on this machine may take to say it runs.
const OLLAMA_PATIENCE: Duration = Duration::from_millis(300);

/// `--list-providers`: every provider, its model and where its credentials are, and which one
/// Marvin would use with what fallbacks.
pub fn list() -> ExitCode {
    let env = Env::from_process();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let built = Config::build(&Args::default(), &env, &cwd);
    // With nothing set up, what a run would use instead: a model server on this machine.
    let found = match &built {
        Err(ConfigError::NoProvider) => {
            env.local_ports().ok().and_then(|ports| local::find(&ports))
        }
        _ => None,
    };
    let mut out = table(&env, built.ok().as_ref(), None);
    if let Some(found) = found {
        let line = format!(
            "found {}; used while no provider is set up{}",
            found.describe(),
            match found.models.len() {
                0 | 1 => String::new(),
                _ => format!(" (models: {})", found.models.join(", ")),
            }
        );
        out.push_str(&crate::ui::width::wrap(
            "",
            &line,
            2,
            crate::ui::width::line_width(),
        ));
        out.push('\n');
    }
    let _ = std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes());
    ExitCode::SUCCESS
}

/// One row per provider under a header: emoji, name, model, where its credentials are (never
/// the key) or why it is not set up, and whether it is in use (`active` overrides the
/// configured choice after a fallback); within 80 columns, the last column wrapped. A
/// provider in use or kept as a fallback is described by the settings it runs with (a server
/// found on this machine is in no variable).
pub(crate) fn table(env: &Env, config: Option<&Config>, active: Option<(&str, &str)>) -> String {
    let mut rows = Vec::new();
    for (kind, mut model, about) in config::provider_report(env) {
        let running = config.and_then(|c| {
            std::iter::once(&c.provider)
                .chain(&c.fallbacks)
                .find(|s| s.kind == kind)
        });
        // One switched to with `/provider` runs as that command built it.
        let switched = match (config, active) {
            (Some(c), Some((name, _))) if running.is_none() && name == kind.name() => {
                c.provider_settings(env, name, None).ok()
            }
            _ => None,
        };
        let about = match running.or(switched.as_ref()) {
            Some(settings) => described(settings),
            None => about,
        };
        let in_use = match (config, active) {
            (_, Some((name, active_model))) if name == kind.name() => {
                model = active_model.to_string();
                "← in use"
            }
            (Some(c), None) if c.provider.kind == kind => {
                model = c.provider.model.clone();
                "← in use"
            }
            (Some(c), _) if c.fallbacks.iter().any(|f| f.kind == kind) => "← fallback",
            _ => "",
        };
        rows.push(ProviderRow {
            emoji: kind.emoji(),
            name: kind.name(),
            model,
            about: checked(kind, about, env),
            marker: in_use,
        });
    }
    let line = crate::ui::width::line_width();
    crate::ui::table::providers(&rows, config::unicode_locale(env), line)
}

/// What `settings` run on, as the report says it.
fn described(settings: &ProviderSettings) -> String {
    let url = settings.shown_url();
    let custom = url.trim_end_matches('/') != settings.kind.default_url().trim_end_matches('/');
    config::provider_about(
        settings.kind,
        settings.api_key.is_some(),
        &settings.key_hint,
        &url,
        custom,
    )
}

/// `about` after the checks only this diagnostic makes: `gh auth token` when it is the last
/// source left, and whether an Ollama on this machine answers.
fn checked(kind: ProviderKind, about: String, env: &Env) -> String {
    match kind {
        ProviderKind::Copilot if about == "gh auth token" => {
            match gh_auth_token(env.search_path().as_deref()) {
                Ok(_) => about,
                Err(why) => format!("not set up: {why}"),
            }
        }
        ProviderKind::Ollama => match about.strip_suffix(", no key needed") {
            Some(url) if !answers(url) => {
                format!("no server answers at {url}: start it with `ollama serve`")
            }
            _ => about,
        },
        _ => about,
    }
}

/// Whether the server `settings` name takes connections, when it runs on this machine (one
/// elsewhere is taken on trust: a proxy may be the only way to it); else an error saying how
/// to start it.
pub(crate) fn check_answering(settings: &ProviderSettings) -> Result<(), String> {
    let url = settings.shown_url();
    let host = crate::net::host_of(&url);
    if !crate::net::is_loopback(&host) {
        return Ok(());
    }
    let name = settings.kind.name();
    let start = match settings.kind {
        ProviderKind::Ollama => "start it with `ollama serve`",
        _ => "start it first",
    };
    let port = crate::net::port_of(&url);
    let ip = host
        .trim_matches(['[', ']'])
        .parse::<std::net::IpAddr>()
        .unwrap_or(std::net::Ipv4Addr::LOCALHOST.into());
    let address = std::net::SocketAddr::from((ip, port));
    std::net::TcpStream::connect_timeout(&address, OLLAMA_PATIENCE)
        .map(drop)
        .map_err(|error| {
            let why = match error.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
                std::io::ErrorKind::TimedOut => "no answer".to_string(),
                _ => error.to_string(),
            };
            format!("no {name} server answers at {url} ({why}): {start}")
        })
}

/// Whether the Ollama at `url` answers, asked only on this machine; one elsewhere is taken
/// on trust.
fn answers(url: &str) -> bool {
    if !crate::net::is_loopback(&crate::net::host_of(url)) {
        return true;
    }
    let tags = format!("{}/api/tags", url.trim_end_matches('/'));
    crate::net::get_json(&tags, OLLAMA_PATIENCE).is_some()
}
