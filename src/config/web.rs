//! What the everyday tools need from the environment to reach the web: how long one call may
//! take, which of the person's own addresses they may reach unasked, where downloads and GitHub clones go, which program edits the crontab, where Blender's
//! add-on listens, Spotify's client id and redirect port, and the keys of the services that take one (from the environment here; the `~/.ssh/<NAME>` file
//! fallback is read at first use, so start-up never touches it).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{ConfigError, Env};
use crate::net::AllowList;
use crate::services::{Credential, SERVICES};

/// One call to a web service, unless MARVIN_TOOL_TIMEOUT says otherwise (seed 002 §7.5).
const TOOL_TIMEOUT: Duration = Duration::from_secs(30);
/// The cron table's program, unless MARVIN_CRONTAB names another (tests use a fake one).
const CRONTAB: &str = "crontab";
/// Where the Blender add-on's socket listens, unless BLENDER_MCP_HOST/PORT say otherwise.
const BLENDER_HOST: &str = "127.0.0.1";
const BLENDER_PORT: u16 = 9876;
/// The port of spotify_auth's redirect URI (`http://127.0.0.1:8888/callback`, registered with
/// Spotify as it is), unless SPOTIFY_REDIRECT_PORT names another.
pub(crate) const SPOTIFY_REDIRECT_PORT: u16 = 8888;

#[derive(Debug, Clone)]
pub struct WebSettings {
    /// MARVIN_TOOL_TIMEOUT, else 30 s.
    pub timeout: Duration,
    /// MARVIN_WEB_ALLOW: the addresses of the person's own machine or network that a tool may
    /// reach at the model's word without asking (else none).
    pub allow: AllowList,
    /// MARVIN_DOWNLOADS_DIR, else `~/Downloads`.
    pub downloads_dir: Option<PathBuf>,
    /// MARVIN_CLONES_DIR, else `~/github-clones`.
    pub clones_dir: Option<PathBuf>,
    /// The user's home, where `~/.ssh/<NAME>` keys are looked for.
    pub home: Option<PathBuf>,
    /// Service keys found in the environment, by variable.
    pub keys: Vec<(&'static str, String)>,
    /// The GitHub token `gh` itself would use (GH_TOKEN, else GITHUB_TOKEN), given to `gh`
    /// alone: no other program gets it.
    pub gh_token: Option<(&'static str, String)>,
    /// MARVIN_CRONTAB, else `crontab`: the program alarms and calendar reminders read the
    /// crontab with (`-l`) and write it with (`-`, from stdin).
    pub crontab: String,
    /// TZ, the zone Marvin reads and shows times in (the C library reads it itself; alarms
    /// compare it with the cron daemon's).
    pub tz: Option<String>,
    /// MARVIN_CRON_TZ: the zone the cron daemon reads the crontab in, when it was started
    /// with a TZ of its own; else the system's (/etc/localtime), as cron daemons run.
    pub cron_tz: Option<String>,
    /// BLENDER_MCP_HOST and BLENDER_MCP_PORT, else 127.0.0.1:9876: the Blender add-on's socket.
    pub blender_host: String,
    pub blender_port: u16,
    /// SPOTIFY_CLIENT_ID: the app the user registered with Spotify (PKCE needs no secret).
    pub spotify_client_id: Option<String>,
    /// SPOTIFY_REDIRECT_PORT, else 8888: where spotify_auth's callback listens on 127.0.0.1.
    pub spotify_redirect_port: u16,
}

impl Default for WebSettings {
    fn default() -> Self {
        Self {
            timeout: TOOL_TIMEOUT,
            allow: AllowList::default(),
            downloads_dir: None,
            clones_dir: None,
            home: None,
            keys: Vec::new(),
            gh_token: None,
            crontab: CRONTAB.to_string(),
            tz: None,
            cron_tz: None,
            blender_host: BLENDER_HOST.to_string(),
            blender_port: BLENDER_PORT,
            spotify_client_id: None,
            spotify_redirect_port: SPOTIFY_REDIRECT_PORT,
        }
    }
}

impl WebSettings {
    pub(super) fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let timeout = match env.get("MARVIN_TOOL_TIMEOUT") {
            Some(text) => text
                .parse::<u64>()
                .ok()
                .filter(|secs| *secs > 0)
                .map(Duration::from_secs)
                .ok_or_else(|| {
                    ConfigError::Invalid(format!(
                        "MARVIN_TOOL_TIMEOUT must be a number of seconds, not {text:?}"
                    ))
                })?,
            None => TOOL_TIMEOUT,
        };
        let home = env.get("HOME").map(PathBuf::from);
        let under_home = |name: &str| home.as_deref().map(|h| h.join(name));
        let dir = |var: &str, default: &str| {
            env.get(var)
                .map(PathBuf::from)
                .or_else(|| under_home(default))
        };
        let keys = SERVICES
            .iter()
            .filter_map(|service| match service.credential {
                Credential::Key(var) | Credential::OptionalKey(var) => {
                    env.get(var).map(|key| (var, key.trim().to_string()))
                }
                _ => None,
            })
            .filter(|(_, key)| !key.is_empty())
            .collect();
        let gh_token = ["GH_TOKEN", "GITHUB_TOKEN"]
            .into_iter()
            .find_map(|var| env.get(var).map(|token| (var, token.trim().to_string())))
            .filter(|(_, token)| !token.is_empty());
        let blender_port = port(env, "BLENDER_MCP_PORT", BLENDER_PORT)?;
        let spotify_redirect_port = port(env, "SPOTIFY_REDIRECT_PORT", SPOTIFY_REDIRECT_PORT)?;
        let non_empty = |var: &str| {
            env.get(var)
                .map(str::trim)
                .filter(|value| !value.is_empty())
                .map(str::to_string)
        };
        let allow = AllowList::parse(env.get("MARVIN_WEB_ALLOW").unwrap_or_default())
            .map_err(|why| ConfigError::Invalid(format!("MARVIN_WEB_ALLOW: {why}")))?;
        Ok(Self {
            timeout,
            allow,
            downloads_dir: dir("MARVIN_DOWNLOADS_DIR", "Downloads"),
            clones_dir: dir("MARVIN_CLONES_DIR", "github-clones"),
            keys,
            home,
            gh_token,
            crontab: env
                .get("MARVIN_CRONTAB")
                .map(str::trim)
                .filter(|program| !program.is_empty())
                .unwrap_or(CRONTAB)
                .to_string(),
            tz: non_empty("TZ"),
            cron_tz: non_empty("MARVIN_CRON_TZ"),
            blender_host: non_empty("BLENDER_MCP_HOST").unwrap_or_else(|| BLENDER_HOST.to_string()),
            blender_port,
            spotify_client_id: non_empty("SPOTIFY_CLIENT_ID"),
            spotify_redirect_port,
        })
    }

    /// The key in `var`: from the environment, else the file `~/.ssh/<var>`.
    pub fn key(&self, var: &str) -> Option<String> {
        if let Some((_, key)) = self.keys.iter().find(|(name, _)| *name == var) {
            return Some(key.clone());
        }
        let path = self.home.as_deref()?.join(".ssh").join(var);
        key_file(&path)
    }
}

/// The port in `var`, else `default`.
fn port(env: &Env, var: &str, default: u16) -> Result<u16, ConfigError> {
    match env.get(var).map(str::trim) {
        Some(text) => text
            .parse::<u16>()
            .ok()
            .filter(|port| *port > 0)
            .ok_or_else(|| {
                ConfigError::Invalid(format!(
                    "{var} must be a port number (1-65535), not {text:?}"
                ))
            }),
        None => Ok(default),
    }
}

fn key_file(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let key = text.trim();
    (!key.is_empty()).then(|| key.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_directories_and_keys_come_from_the_environment() {
        let home = crate::test_support::TempDir::new("web-settings");
        let h = home.path().to_str().unwrap();
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        std::fs::write(home.path().join(".ssh/NEWSAPI_KEY"), " from-file \n").unwrap();
        let env = Env::from_pairs([
            ("HOME", h),
            ("MARVIN_TOOL_TIMEOUT", "5"),
            ("GNEWS_API_KEY", "g-key"),
            ("MARVIN_CLONES_DIR", "/srv/clones"),
            ("MARVIN_CRONTAB", "/opt/fake/crontab"),
            ("MARVIN_CRON_TZ", "UTC"),
            ("BLENDER_MCP_PORT", "9000"),
            ("SPOTIFY_CLIENT_ID", " abc123 "),
            ("SPOTIFY_REDIRECT_PORT", "8765"),
        ]);
        let web = WebSettings::from_env(&env).unwrap();
        assert_eq!(web.timeout, Duration::from_secs(5));
        assert_eq!(web.downloads_dir, Some(home.path().join("Downloads")));
        assert_eq!(web.clones_dir, Some(PathBuf::from("/srv/clones")));
        assert_eq!(web.key("GNEWS_API_KEY").as_deref(), Some("g-key"));
        assert_eq!(web.key("NEWSAPI_KEY").as_deref(), Some("from-file"));
        assert_eq!(web.key("NOPE_KEY"), None);
        assert_eq!(web.crontab, "/opt/fake/crontab");
        assert_eq!(web.cron_tz.as_deref(), Some("UTC"));
        assert_eq!(
            (web.blender_host.as_str(), web.blender_port),
            ("127.0.0.1", 9000)
        );
        assert_eq!(web.spotify_client_id.as_deref(), Some("abc123"));
        assert_eq!(web.spotify_redirect_port, 8765);
        let defaults = WebSettings::from_env(&Env::from_pairs([])).unwrap();
        assert_eq!(defaults.spotify_redirect_port, 8888);
        let bad_redirect = Env::from_pairs([("SPOTIFY_REDIRECT_PORT", "0")]);
        assert!(WebSettings::from_env(&bad_redirect).is_err());
        let bad_port = Env::from_pairs([("BLENDER_MCP_PORT", "blender")]);
        assert!(WebSettings::from_env(&bad_port).is_err());
        let bad = Env::from_pairs([("MARVIN_TOOL_TIMEOUT", "soon")]);
        assert!(WebSettings::from_env(&bad).is_err());
        let allowing = Env::from_pairs([("MARVIN_WEB_ALLOW", "localhost:3000, 10.0.0.0/8")]);
        let allow = WebSettings::from_env(&allowing).unwrap().allow;
        assert!(allow.allows("localhost", "127.0.0.1:3000".parse().unwrap()));
        assert!(allow.allows("db", "10.1.2.3:5432".parse().unwrap()));
        assert!(!allow.allows("localhost", "127.0.0.1:3001".parse().unwrap()));
        let bad_allow = Env::from_pairs([("MARVIN_WEB_ALLOW", "http://localhost")]);
        let Err(ConfigError::Invalid(said)) = WebSettings::from_env(&bad_allow) else {
            panic!("a bad entry is refused");
        };
        assert!(
            said.starts_with("MARVIN_WEB_ALLOW: \"http://localhost\" is not a host"),
            "{said}"
        );
        assert_eq!(
            WebSettings::from_env(&Env::from_pairs([])).unwrap().timeout,
            TOOL_TIMEOUT
        );
        assert_eq!(
            WebSettings::from_env(&Env::from_pairs([])).unwrap().crontab,
            "crontab"
        );
    }
}
