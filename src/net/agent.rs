//! The one kind of HTTP agent Marvin uses: who is asking (User-Agent), through which proxy,
//! a bound on connecting and an idle (not total) timeout.

use std::time::Duration;

use ureq::unversioned::transport::Connector;

use super::guard::{Guard, GuardedConnector, GuardedResolver};
use super::url::{host_of, is_loopback};

/// Reaching a service must not take longer than this, whatever the idle timeout.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// `marvin/<version>`, and the project's address when the crate names one, so a service that
/// sees many requests knows whom to ask.
pub(crate) fn user_agent() -> String {
    agent_name(env!("CARGO_PKG_VERSION"), env!("CARGO_PKG_REPOSITORY"))
}

/// `marvin/<version> ( <contact> )`: the form MusicBrainz asks for ("Application name/<version>
/// ( contact-url )", musicbrainz.org/doc/MusicBrainz_API/Rate_Limiting), which other services
/// read as well.
fn agent_name(version: &str, contact: &str) -> String {
    match contact.trim() {
        "" => format!("marvin/{version}"),
        contact => format!("marvin/{version} ( {contact} )"),
    }
}

/// An agent that waits `idle` with nothing arriving, reached through `proxy` when given, every
/// address it connects to checked by `guard` when given. Status codes are answers, not
/// errors: the caller reads 4xx and 5xx bodies.
pub(super) fn build(idle: Duration, proxy: Option<&str>, guard: Option<&Guard>) -> ureq::Agent {
    let config = config(idle, proxy);
    match guard {
        None => config.new_agent(),
        Some(guard) => {
            let connector = GuardedConnector::new(guard.clone())
                .chain(ureq::unversioned::transport::DefaultConnector::default());
            ureq::Agent::with_parts(config, connector, GuardedResolver::new(guard.clone()))
        }
    }
}

fn config(idle: Duration, proxy: Option<&str>) -> ureq::config::Config {
    let proxy = proxy.and_then(|p| ureq::Proxy::new(p).ok());
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(proxy)
        .user_agent(user_agent())
        // No compression unless a request asks for it (the tools' service client does).
        .accept_encoding("")
        .timeout_connect(Some(CONNECT_TIMEOUT))
        // An idle timeout: each read and write restarts it, so a long answer that keeps
        // streaming is never cut, while silence before or during it ends the call.
        .timeout_per_read(Some(idle))
        .timeout_per_write(Some(idle))
        .build()
}

/// Which proxy a URL is reached through: HTTPS_PROXY (or ALL_PROXY) except for loopback
/// hosts and the hosts NO_PROXY names. Config reads the variables; this decides.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProxyRules {
    proxy: Option<String>,
    /// NO_PROXY's entries: `*`, a host, or a domain whose subdomains are also excluded.
    excluded: Vec<String>,
}

impl ProxyRules {
    /// `proxy` for every host but those in `no_proxy` (comma-separated, as curl reads it).
    pub fn new(proxy: Option<&str>, no_proxy: Option<&str>) -> Self {
        let excluded = no_proxy
            .unwrap_or("")
            .split(',')
            .map(|entry| entry.trim().trim_start_matches('.').to_ascii_lowercase())
            .filter(|entry| !entry.is_empty())
            .collect();
        Self {
            proxy: proxy.map(str::to_string),
            excluded,
        }
    }

    /// The proxy for `url`, if it goes through one.
    pub fn for_url(&self, url: &str) -> Option<String> {
        let proxy = self.proxy.as_ref()?;
        let host = host_of(url);
        let excluded = self
            .excluded
            .iter()
            .any(|entry| entry == "*" || host == *entry || host.ends_with(&format!(".{entry}")));
        (!is_loopback(&host) && !excluded).then(|| proxy.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proxy_skips_loopback_and_no_proxy_hosts() {
        let rules = ProxyRules::new(Some("http://proxy:3128"), Some("example.org, .corp.test"));
        let cases = [
            ("https://api.openai.com/v1", true),
            ("http://127.0.0.1:8080/v1", false),
            ("http://localhost:11434", false),
            ("http://[::1]:11434", false),
            ("https://api.example.org/v1", false),
            ("https://example.org", false),
            ("https://notexample.org", true),
            ("https://llm.corp.test/v1", false),
            ("http://user:pw@example.org:8080/v1", false),
        ];
        for (url, proxied) in cases {
            let expected = proxied.then(|| "http://proxy:3128".to_string());
            assert_eq!(rules.for_url(url), expected, "{url}");
        }
        let everything = ProxyRules::new(Some("http://proxy:3128"), Some("*"));
        assert_eq!(everything.for_url("https://api.openai.com"), None);
        assert_eq!(
            ProxyRules::default().for_url("https://api.openai.com"),
            None
        );
    }

    #[test]
    fn the_user_agent_names_marvin_and_its_version() {
        let agent = user_agent();
        assert!(
            agent.starts_with(concat!("marvin/", env!("CARGO_PKG_VERSION"))),
            "{agent}"
        );
    }

    #[test]
    fn a_contact_is_given_as_musicbrainz_asks() {
        let cases = [
            ("0.1.0", "", "marvin/0.1.0"),
            (
                "0.1.0",
                "https://example.org/marvin",
                "marvin/0.1.0 ( https://example.org/marvin )",
            ),
        ];
        for (version, contact, name) in cases {
            assert_eq!(agent_name(version, contact), name);
        }
    }

    #[test]
    fn requests_name_marvin_and_ask_for_no_compression_unless_they_say_so() {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", server.server_addr().to_ip().unwrap());
        let seen = std::thread::spawn(move || {
            let request = server.recv().unwrap();
            let header = |name: &'static str| {
                let found = request.headers().iter().find(|h| h.field.equiv(name));
                found.map(|h| h.value.to_string())
            };
            let seen = (header("User-Agent"), header("Accept-Encoding"));
            let _ = request.respond(tiny_http::Response::from_string("ok"));
            seen
        });
        let agent = build(Duration::from_secs(5), None, None);
        agent.get(&url).call().unwrap();
        let (agent_name, encoding) = seen.join().unwrap();
        assert_eq!(agent_name, Some(user_agent()));
        assert_eq!(encoding, None);
    }
}
