//! Every external service Marvin talks to, in one table: its base-URL variable and default,
//! its credential, and the pace it asks for. Config reads the variables through it, `--help`
//! and the README list them from it, and child processes are kept from every credential in it.
//! A service a new tool talks to is one more row.

use std::time::Duration;

/// One service.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Service {
    /// The short name used in code, messages and `--provider` (`openai`, `ntfy`).
    pub id: &'static str,
    /// What people call it.
    pub name: &'static str,
    /// The variable that moves its base URL (proxies, gateways, tests), and the default.
    pub url_var: &'static str,
    pub default_url: &'static str,
    pub credential: Credential,
    /// The least time between two requests to its host from one process (`ZERO`: no limit).
    pub min_interval: Duration,
}

/// What a service wants to know who is asking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Credential {
    None,
    /// An API key in this variable, or in the file `~/.ssh/<variable>`.
    Key(&'static str),
    /// The same, but the service answers without one too.
    OptionalKey(&'static str),
    /// A GitHub login, from these variables in the order config tries them (it also reads the
    /// Copilot editor's login files and asks `gh auth token`).
    GitHubLogin(&'static [&'static str]),
    /// The person's own account, signed in to once with this tool (OAuth) for the app whose
    /// client id is in this variable; the tokens are kept in the profile.
    SignIn {
        tool: &'static str,
        client_var: &'static str,
    },
}

impl Credential {
    /// The variables that may hold it.
    pub const fn variables(&self) -> &[&'static str] {
        match self {
            Self::None | Self::SignIn { .. } => &[],
            Self::Key(var) | Self::OptionalKey(var) => std::slice::from_ref(var),
            Self::GitHubLogin(vars) => vars,
        }
    }
}

/// Where Copilot's GitHub login may come from.
const GITHUB_LOGIN: &[&str] = &["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"];

pub(crate) const OPENAI: Service = Service {
    id: "openai",
    name: "OpenAI",
    url_var: "OPENAI_BASE_URL",
    default_url: "https://api.openai.com/v1",
    credential: Credential::Key("OPENAI_API_KEY"),
    min_interval: Duration::ZERO,
};

pub(crate) const GROQ: Service = Service {
    id: "groq",
    name: "Groq",
    url_var: "GROQ_BASE_URL",
    default_url: "https://api.groq.com/openai/v1",
    credential: Credential::Key("GROQ_API_KEY"),
    min_interval: Duration::ZERO,
};

pub(crate) const GEMINI: Service = Service {
    id: "gemini",
    name: "Google Gemini",
    url_var: "GEMINI_BASE_URL",
    default_url: "https://generativelanguage.googleapis.com/v1beta/openai",
    credential: Credential::Key("GEMINI_API_KEY"),
    min_interval: Duration::ZERO,
};

pub(crate) const OPENAI_COMPAT: Service = Service {
    id: "openai-compat",
    name: "an OpenAI-compatible server (OpenRouter by default)",
    url_var: "OPENAI_COMPAT_URL",
    default_url: "https://openrouter.ai/api/v1",
    credential: Credential::OptionalKey("OPENAI_COMPAT_API_KEY"),
    min_interval: Duration::ZERO,
};

pub(crate) const COPILOT: Service = Service {
    id: "copilot",
    name: "GitHub Copilot",
    url_var: "COPILOT_API_URL",
    default_url: "https://api.githubcopilot.com",
    credential: Credential::GitHubLogin(GITHUB_LOGIN),
    min_interval: Duration::ZERO,
};

/// Where Copilot's GitHub login is exchanged for a short-lived session token.
pub(crate) const COPILOT_TOKEN: Service = Service {
    id: "copilot-token",
    name: "GitHub Copilot's token exchange",
    url_var: "COPILOT_TOKEN_URL",
    default_url: "https://api.github.com/copilot_internal/v2/token",
    credential: Credential::GitHubLogin(GITHUB_LOGIN),
    min_interval: Duration::ZERO,
};

pub(crate) const OLLAMA: Service = Service {
    id: "ollama",
    name: "Ollama",
    url_var: "OLLAMA_URL",
    default_url: "http://localhost:11434",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

/// Notifications for `--ntfy` and the ntfy tools.
pub(crate) const NTFY: Service = Service {
    id: "ntfy",
    name: "ntfy notifications",
    url_var: "NTFY_URL",
    default_url: "https://ntfy.sh",
    credential: Credential::OptionalKey("NTFY_TOKEN"),
    min_interval: Duration::ZERO,
};

/// Web search and news (DuckDuckGo's HTML pages: no key, no JavaScript).
pub(crate) const DUCKDUCKGO: Service = Service {
    id: "duckduckgo",
    name: "DuckDuckGo",
    url_var: "DDG_URL",
    default_url: "https://html.duckduckgo.com",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

pub(crate) const WIKIPEDIA: Service = Service {
    id: "wikipedia",
    name: "Wikipedia",
    url_var: "WIKIPEDIA_URL",
    default_url: "https://en.wikipedia.org",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

/// Papers; without a key the shared pool allows about one request a second.
pub(crate) const SEMANTIC_SCHOLAR: Service = Service {
    id: "semantic-scholar",
    name: "Semantic Scholar",
    url_var: "SEMANTIC_SCHOLAR_URL",
    default_url: "https://api.semanticscholar.org",
    credential: Credential::None,
    min_interval: Duration::from_secs(1),
};

/// Preprints; arXiv's API terms ask for no more than one request every three seconds.
pub(crate) const ARXIV: Service = Service {
    id: "arxiv",
    name: "arXiv",
    url_var: "ARXIV_URL",
    default_url: "https://export.arxiv.org",
    credential: Credential::None,
    min_interval: Duration::from_secs(3),
};

pub(crate) const STACKEXCHANGE: Service = Service {
    id: "stackexchange",
    name: "Stack Exchange",
    url_var: "STACKEXCHANGE_URL",
    default_url: "https://api.stackexchange.com",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

/// Exchange rates (the European Central Bank's reference rates).
pub(crate) const FRANKFURTER: Service = Service {
    id: "frankfurter",
    name: "Frankfurter",
    url_var: "FRANKFURTER_URL",
    default_url: "https://api.frankfurter.dev/v1",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

pub(crate) const DICTIONARY: Service = Service {
    id: "dictionary",
    name: "Free Dictionary API",
    url_var: "DICTIONARY_URL",
    default_url: "https://api.dictionaryapi.dev",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

pub(crate) const MYMEMORY: Service = Service {
    id: "mymemory",
    name: "MyMemory",
    url_var: "MYMEMORY_URL",
    default_url: "https://api.mymemory.translated.net",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

pub(crate) const GNEWS: Service = Service {
    id: "gnews",
    name: "GNews",
    url_var: "GNEWS_URL",
    default_url: "https://gnews.io",
    credential: Credential::Key("GNEWS_API_KEY"),
    min_interval: Duration::ZERO,
};

pub(crate) const NEWSAPI: Service = Service {
    id: "newsapi",
    name: "NewsAPI",
    url_var: "NEWSAPI_URL",
    default_url: "https://newsapi.org",
    credential: Credential::Key("NEWSAPI_KEY"),
    min_interval: Duration::ZERO,
};

/// IP geolocation, the last resort of get_my_location (ipinfo.io's `/json`: city-level).
pub(crate) const IPGEO: Service = Service {
    id: "ipgeo",
    name: "IP geolocation (ipinfo.io)",
    url_var: "IPGEO_URL",
    default_url: "https://ipinfo.io",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

/// Google Places (the legacy Places API), used instead of Nominatim when a key is set.
pub(crate) const GOOGLE_PLACES: Service = Service {
    id: "google-places",
    name: "Google Places",
    url_var: "GOOGLE_PLACES_URL",
    default_url: "https://maps.googleapis.com/maps/api/place",
    credential: Credential::OptionalKey("GOOGLE_PLACES_API_KEY"),
    min_interval: Duration::ZERO,
};

/// OpenStreetMap's geocoder; its usage policy allows one request a second, no bulk.
pub(crate) const NOMINATIM: Service = Service {
    id: "nominatim",
    name: "Nominatim",
    url_var: "NOMINATIM_URL",
    default_url: "https://nominatim.openstreetmap.org",
    credential: Credential::None,
    min_interval: Duration::from_secs(1),
};

/// OpenStreetMap queries; the public instance is shared, so one query at a time.
pub(crate) const OVERPASS: Service = Service {
    id: "overpass",
    name: "Overpass",
    url_var: "OVERPASS_URL",
    default_url: "https://overpass-api.de/api",
    credential: Credential::None,
    min_interval: Duration::from_secs(1),
};

/// Routes (the public OSRM demo server: driving, cycling, walking).
pub(crate) const OSRM: Service = Service {
    id: "osrm",
    name: "OSRM",
    url_var: "OSRM_URL",
    default_url: "https://router.project-osrm.org",
    credential: Credential::None,
    min_interval: Duration::from_secs(1),
};

pub(crate) const OPEN_METEO: Service = Service {
    id: "open-meteo",
    name: "Open-Meteo",
    url_var: "OPEN_METEO_URL",
    default_url: "https://api.open-meteo.com",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

pub(crate) const OPEN_METEO_GEOCODING: Service = Service {
    id: "open-meteo-geocoding",
    name: "Open-Meteo geocoding",
    url_var: "OPEN_METEO_GEOCODING_URL",
    default_url: "https://geocoding-api.open-meteo.com",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

/// Films (OMDb); without a key the film tools fall back to a web search and say so.
pub(crate) const OMDB: Service = Service {
    id: "omdb",
    name: "OMDb",
    url_var: "OMDB_URL",
    default_url: "https://www.omdbapi.com",
    credential: Credential::Key("OMDB_API_KEY"),
    min_interval: Duration::ZERO,
};

/// Video games (RAWG); without a key the game tools fall back to a web search and say so.
pub(crate) const RAWG: Service = Service {
    id: "rawg",
    name: "RAWG",
    url_var: "RAWG_URL",
    default_url: "https://api.rawg.io/api",
    credential: Credential::Key("RAWG_API_KEY"),
    min_interval: Duration::ZERO,
};

/// The Steam store's own JSON (search, app details, featured): no key.
pub(crate) const STEAM_STORE: Service = Service {
    id: "steam-store",
    name: "Steam store",
    url_var: "STEAM_STORE_URL",
    default_url: "https://store.steampowered.com",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

/// The Steam Web API (players, their games and achievements): a key.
pub(crate) const STEAM_API: Service = Service {
    id: "steam-api",
    name: "Steam Web API",
    url_var: "STEAM_API_URL",
    default_url: "https://api.steampowered.com",
    credential: Credential::Key("STEAM_API_KEY"),
    min_interval: Duration::ZERO,
};

/// MusicBrainz; its terms allow one request a second and want a User-Agent with a contact.
pub(crate) const MUSICBRAINZ: Service = Service {
    id: "musicbrainz",
    name: "MusicBrainz",
    url_var: "MUSICBRAINZ_URL",
    default_url: "https://musicbrainz.org/ws/2",
    credential: Credential::None,
    min_interval: Duration::from_secs(1),
};

/// TheMealDB's free API (its public test key `1` is part of the path).
pub(crate) const MEALDB: Service = Service {
    id: "mealdb",
    name: "TheMealDB",
    url_var: "MEALDB_URL",
    default_url: "https://www.themealdb.com/api/json/v1/1",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

/// Spotify's Web API; the user's token comes from spotify_auth (SPOTIFY_CLIENT_ID, PKCE).
pub(crate) const SPOTIFY_API: Service = Service {
    id: "spotify",
    name: "Spotify",
    url_var: "SPOTIFY_API_URL",
    default_url: "https://api.spotify.com/v1",
    credential: Credential::SignIn {
        tool: "spotify_auth",
        client_var: "SPOTIFY_CLIENT_ID",
    },
    min_interval: Duration::ZERO,
};

/// Spotify's accounts service: the authorisation page and the token endpoint.
pub(crate) const SPOTIFY_ACCOUNTS: Service = Service {
    id: "spotify-accounts",
    name: "Spotify accounts",
    url_var: "SPOTIFY_ACCOUNTS_URL",
    default_url: "https://accounts.spotify.com",
    credential: Credential::None,
    min_interval: Duration::ZERO,
};

/// Every service, in the order `--help` and the README list them.
pub(crate) const SERVICES: &[Service] = &[
    COPILOT,
    COPILOT_TOKEN,
    OPENAI,
    GEMINI,
    GROQ,
    OPENAI_COMPAT,
    OLLAMA,
    NTFY,
    DUCKDUCKGO,
    WIKIPEDIA,
    SEMANTIC_SCHOLAR,
    ARXIV,
    STACKEXCHANGE,
    FRANKFURTER,
    DICTIONARY,
    MYMEMORY,
    GNEWS,
    NEWSAPI,
    IPGEO,
    GOOGLE_PLACES,
    NOMINATIM,
    OVERPASS,
    OSRM,
    OPEN_METEO,
    OPEN_METEO_GEOCODING,
    OMDB,
    RAWG,
    STEAM_STORE,
    STEAM_API,
    MUSICBRAINZ,
    MEALDB,
    SPOTIFY_API,
    SPOTIFY_ACCOUNTS,
];

/// Every variable that holds a credential, each once: programs run for the model (commands,
/// git, users' tools) never see them.
pub(crate) fn secret_variables() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for service in SERVICES {
        for name in service.credential.variables() {
            if !names.contains(name) {
                names.push(name);
            }
        }
    }
    names
}

/// How many variables the table names, base URLs and credentials, repeats included.
const VARIABLE_COUNT: usize = {
    let (mut count, mut i) = (0, 0);
    while i < SERVICES.len() {
        count += 1 + SERVICES[i].credential.variables().len();
        i += 1;
    }
    count
};

/// Every variable the table names: each service's base URL, then its credential's (a
/// variable two services share appears twice).
pub(crate) const VARIABLES: &[&str] = &{
    let mut names = [""; VARIABLE_COUNT];
    let (mut n, mut i) = (0, 0);
    while i < SERVICES.len() {
        names[n] = SERVICES[i].url_var;
        n += 1;
        let credential = SERVICES[i].credential.variables();
        let mut j = 0;
        while j < credential.len() {
            names[n] = credential[j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    names
};

/// The `--help` lines of the services: one entry each, wrapped to 80 columns.
pub(crate) fn help() -> String {
    const INDENT: usize = 17;
    let mut text = String::from(
        "Services (each base URL may be moved with its variable, for proxies,\n\
         gateways and tests; a key may instead be kept in the file ~/.ssh/<NAME>):\n",
    );
    for (i, service) in SERVICES.iter().enumerate() {
        let credential = match shared_credential(i) {
            Some(earlier) => format!("the same login as {}", earlier.id),
            None => help_credential(&service.credential),
        };
        let mut entry = format!(
            "{}: {} (default {}); {credential}",
            service.name, service.url_var, service.default_url,
        );
        if !service.min_interval.is_zero() {
            entry.push_str(&format!("; at most {}", pace(service.min_interval)));
        }
        // An id too long for its column gets a line of its own.
        let first = if service.id.len() < INDENT - 3 {
            format!("  {:<width$}", service.id, width = INDENT - 2)
        } else {
            text.push_str(&format!("  {}\n", service.id));
            " ".repeat(INDENT)
        };
        text.push_str(&wrap(&first, &entry, INDENT, 80));
    }
    text
}

/// An earlier service with the same credential as service `i` (Copilot's chat and its token
/// exchange use one login), so that it is described once.
fn shared_credential(i: usize) -> Option<&'static Service> {
    let credential = SERVICES[i].credential;
    let earlier = SERVICES[..i].iter().find(|s| s.credential == credential);
    earlier.filter(|_| credential != Credential::None)
}

fn help_credential(credential: &Credential) -> String {
    match credential {
        Credential::None => "no key".into(),
        Credential::Key(var) => format!("key {var}"),
        Credential::OptionalKey(var) => format!("key {var} (optional)"),
        Credential::GitHubLogin(vars) => format!(
            "a GitHub login: {}, else the Copilot editor's, else (with --provider copilot) {} or `gh auth token`",
            vars[0],
            vars[1..].join(", ")
        ),
        Credential::SignIn { tool, client_var } => {
            format!("your account, signed in with {tool} ({client_var})")
        }
    }
}

/// One request per `interval`, in words.
fn pace(interval: Duration) -> String {
    if interval == Duration::from_secs(1) {
        "1 request/s".into()
    } else {
        format!("1 request per {} s", interval.as_secs_f64())
    }
}

/// `text` after `first`, wrapped at word boundaries to `width` columns with later lines
/// indented by `indent`; a word longer than a line gets a line of its own, and a `quoted
/// command` is kept on one line.
fn wrap(first: &str, text: &str, indent: usize, width: usize) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in words(text) {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(indent);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(&word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// The words of `text`, a `quoted command` counting as one.
fn words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut open = false;
    for word in text.split_whitespace() {
        match words.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        open ^= word.matches('`').count() % 2 == 1;
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table of services, as the table says it should read.
    fn readme_table() -> String {
        let mut table = String::from(
            "| service | base URL variable | default | credential | pace |\n\
             |---------|-------------------|---------|------------|------|\n",
        );
        for (i, service) in SERVICES.iter().enumerate() {
            let credential = match service.credential {
                Credential::None => "none".to_string(),
                Credential::Key(var) => format!("`{var}` or the file `~/.ssh/{var}`"),
                Credential::OptionalKey(var) => {
                    format!("`{var}` or the file `~/.ssh/{var}` (optional)")
                }
                Credential::GitHubLogin(vars) => format!(
                    "a GitHub login: {} (see above)",
                    vars.iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Credential::SignIn { tool, client_var } => {
                    format!("your account, signed in with `{tool}` (`{client_var}`)")
                }
            };
            let credential = match shared_credential(i) {
                Some(earlier) => format!("the same login as `{}`", earlier.id),
                None => credential,
            };
            let pace = match service.min_interval.is_zero() {
                true => "no limit".to_string(),
                false => pace(service.min_interval),
            };
            table.push_str(&format!(
                "| `{}`: {} | `{}` | `{}` | {credential} | {pace} |\n",
                service.id, service.name, service.url_var, service.default_url
            ));
        }
        table
    }

    #[test]
    fn the_readme_lists_the_services_exactly_as_the_table_has_them() {
        let readme = include_str!("../README.md");
        let expected = readme_table();
        assert!(
            readme.contains(&expected),
            "README.md's table of services has drifted from src/services.rs; it should read:\n\n{expected}"
        );
    }

    #[test]
    fn help_names_every_service_variable_within_80_columns() {
        let help = help();
        for var in VARIABLES {
            assert!(help.contains(var), "{var}\n{help}");
        }
        for line in help.lines() {
            assert!(line.chars().count() <= 80, "too wide: {line}");
        }
        assert!(
            help.contains("\n  ntfy           ntfy notifications: NTFY_URL (default https://ntfy.sh); key\n                 NTFY_TOKEN (optional)\n"),
            "{help}"
        );
        assert!(
            help.contains(
                "\n  spotify-accounts\n                 Spotify accounts: SPOTIFY_ACCOUNTS_URL"
            ),
            "{help}"
        );
    }

    #[test]
    fn ids_and_variables_are_unique_and_every_credential_is_a_secret() {
        for (i, service) in SERVICES.iter().enumerate() {
            assert!(
                SERVICES[i + 1..]
                    .iter()
                    .all(|other| other.id != service.id && other.url_var != service.url_var),
                "{} twice",
                service.id
            );
        }
        assert_eq!(
            secret_variables(),
            [
                "COPILOT_GITHUB_TOKEN",
                "GH_TOKEN",
                "GITHUB_TOKEN",
                "OPENAI_API_KEY",
                "GEMINI_API_KEY",
                "GROQ_API_KEY",
                "OPENAI_COMPAT_API_KEY",
                "NTFY_TOKEN",
                "GNEWS_API_KEY",
                "NEWSAPI_KEY",
                "GOOGLE_PLACES_API_KEY",
                "OMDB_API_KEY",
                "RAWG_API_KEY",
                "STEAM_API_KEY",
            ]
        );
    }

    #[test]
    fn paces_read_as_requests_per_time() {
        assert_eq!(pace(Duration::from_secs(1)), "1 request/s");
        assert_eq!(pace(Duration::from_millis(500)), "1 request per 0.5 s");
        assert_eq!(pace(Duration::from_secs(2)), "1 request per 2 s");
    }

    #[test]
    fn wrapping_keeps_words_whole_and_indents_later_lines() {
        assert_eq!(
            wrap("  id  ", "aaa bbb ccc", 6, 14),
            "  id  aaa bbb\n      ccc\n"
        );
        assert_eq!(
            wrap("  id  ", "aaaaaaaaaaaa", 6, 10),
            "  id  aaaaaaaaaaaa\n"
        );
        assert_eq!(
            wrap("  ", "run `gh auth token` now", 2, 12),
            "  run\n  `gh auth token`\n  now\n"
        );
    }
}
