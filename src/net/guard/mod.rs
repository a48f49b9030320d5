//! The guard on requests whose address the model chose: every address a request connects to,
//! on every hop, is checked after the name is resolved and before connecting, and one of the
//! person's own machine or network (loopback, private, link-local…) is reached only when the
//! caller's policy allows it. Marvin's own requests take it through ureq's resolver
//! (`connect`); Chromium through a filtering proxy (`proxy`).

mod address;
mod allow;
mod connect;
mod head;
mod proxy;
mod tunnel;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};

use super::whatwg::Host;
use std::sync::Arc;

pub(crate) use address::Own;
pub use allow::AllowList;
pub(crate) use connect::{GuardedConnector, GuardedResolver};
pub(crate) use proxy::FilterProxy;

/// Whether a request for `host` (as its URL writes it) may connect to `addr`, an address of
/// the person's own: an allow-list, the grants, the person's answer.
type Policy = dyn Fn(&str, SocketAddr) -> bool + Send + Sync;

/// The check every request of a guarded client goes through.
#[derive(Clone)]
pub(crate) struct Guard {
    policy: Arc<Policy>,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Guard")
    }
}

/// A request kept from an address of the person's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The address of the hop (a redirect's target), without user or password.
    pub(crate) url: String,
    /// Its host as the URL writes it, lowercased (`[::1]` in brackets).
    pub(crate) host: String,
    /// The first address refused, an IPv4 one inside IPv6 shown as itself.
    pub(crate) addr: SocketAddr,
    pub(crate) own: Own,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is {}", self.addr, self.own.describe())
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    /// What the person would write in MARVIN_WEB_ALLOW to allow it: the host and port for a
    /// name (which may have several addresses), the address for any spelling of an address.
    pub(crate) fn allow_entry(&self) -> String {
        let numeric =
            self.host
                .starts_with(|c: char| c.is_ascii_digit() || c == '[')
                && self.host.chars().all(|c| {
                    c.is_ascii_hexdigit() || matches!(c, '.' | ':' | 'x' | 'X' | '[' | ']')
                });
        if numeric {
            self.addr.to_string()
        } else {
            format!("{}:{}", self.host, self.addr.port())
        }
    }
}

impl Guard {
    pub(crate) fn new(policy: impl Fn(&str, SocketAddr) -> bool + Send + Sync + 'static) -> Self {
        Self {
            policy: Arc::new(policy),
        }
    }

    /// Whether a request for `host` may connect to `addr`: a public address always, one of the
    /// person's own when the policy allows it.
    pub(crate) fn check(&self, url: &str, host: &str, addr: SocketAddr) -> Result<(), Refusal> {
        let addr = address::canonical_socket(addr);
        match address::classify(addr.ip()) {
            Some(own) if !(self.policy)(host, addr) => Err(Refusal {
                url: crate::net::without_userinfo(url),
                host: host.to_ascii_lowercase(),
                addr,
                own,
            }),
            _ => Ok(()),
        }
    }

    /// The addresses of `resolved` a request for `host` may connect to, in their order; when
    /// none is left, the first refused.
    pub(crate) fn filter(
        &self,
        url: &str,
        host: &str,
        resolved: impl IntoIterator<Item = SocketAddr>,
    ) -> Result<Vec<SocketAddr>, Refusal> {
        let mut kept = Vec::new();
        let mut refused = None;
        for addr in resolved {
            match self.check(url, host, addr) {
                Ok(()) => kept.push(addr),
                Err(refusal) => {
                    refused.get_or_insert(refusal);
                }
            }
        }
        match refused {
            Some(refusal) if kept.is_empty() => Err(refusal),
            _ => Ok(kept),
        }
    }

    /// Whether `url` may be reached, before a program fetches it itself: the host it reaches
    /// (as the program reads it: see [`reached`]), its addresses here (one allowed is enough;
    /// the proxy that connects keeps to those), or as [`Guard::check_proxied`] when the
    /// person's proxy carries it. A name that does not resolve passes: the program will say so.
    pub(crate) fn check_url(&self, url: &str, proxied: bool) -> Result<(), Refusal> {
        let (host, port) = reached(url);
        if proxied {
            return self.check_proxied(url, &host, port);
        }
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        match (bare, port).to_socket_addrs() {
            Ok(resolved) => self.filter(url, &host, resolved).map(drop),
            Err(_) => Ok(()),
        }
    }

    /// For a request another proxy carries (it resolves the name, not Marvin): an address in
    /// the URL (in any spelling the URL standard reads as one) is checked as it is, and so is
    /// `localhost` (and its subdomains), which is this machine whatever a resolver says. A
    /// name is looked up here only to refuse it: one this machine resolves to an address of
    /// its own or of the network (`127.0.0.1.nip.io`, its own host name, an intranet name) is
    /// refused as the address would be, and one it cannot resolve is the proxy's to reach.
    pub(crate) fn check_proxied(&self, url: &str, host: &str, port: u16) -> Result<(), Refusal> {
        if let Some(ip) = named_address(host) {
            return self.check(url, host, SocketAddr::new(ip, port));
        }
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        match (bare, port).to_socket_addrs() {
            Ok(addrs) => addrs
                .into_iter()
                .try_for_each(|addr| self.check(url, host, addr)),
            Err(_) => Ok(()),
        }
    }
}

/// The address `host` (as a URL writes it) names without a resolver: an IP address, or
/// loopback for `localhost` and `*.localhost` (RFC 6761 §6.3); `None` for any other name.
fn named_address(host: &str) -> Option<IpAddr> {
    match super::whatwg::parse_host(host).ok()? {
        Host::V4(ip) => Some(IpAddr::V4(ip)),
        Host::V6(ip) => Some(IpAddr::V6(ip)),
        Host::Domain(name) => {
            let name = name.trim_end_matches('.');
            let local = name == "localhost" || name.ends_with(".localhost");
            local.then_some(IpAddr::V4(Ipv4Addr::LOCALHOST))
        }
    }
}

/// The host and port `url` reaches as the WHATWG URL standard reads them, which is what a
/// browser, and a program that follows the standard, connects to (`127.0.0.1` for
/// `http://0x7f.1/`, `http://%31%32%37.0.0.1/` or `http://１２７.０.０.１/`); as written when
/// the standard reads no host from it.
fn reached(url: &str) -> (String, u16) {
    match super::whatwg::reached(url, None) {
        Ok(reached) => (reached.host.to_string(), reached.port),
        Err(_) => (crate::net::host_of(url), port_of(url)),
    }
}

/// The port of `url`: the one it names, else its scheme's.
fn port_of(url: &str) -> u16 {
    let server = super::url::server_of(url);
    let after_host = match server.rsplit_once(']') {
        Some((_, rest)) => rest,
        None => &server,
    };
    let named = after_host
        .rsplit_once(':')
        .and_then(|(_, port)| port.parse().ok());
    let https = url
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"));
    named.unwrap_or(if https { 443 } else { 80 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_on_the_addresses_their_host_has() {
        let guard = Guard::new(|_, addr| addr.port() == 81);
        assert!(guard.check_url("http://127.0.0.1:8080/x", false).is_err());
        assert!(guard.check_url("http://localhost/x", false).is_err());
        assert!(guard.check_url("http://127.0.0.1:81/x", false).is_ok());
        assert!(guard.check_url("https://[::1]/", false).is_err());
        assert!(guard.check_url("http://2130706433/", true).is_err());
        assert!(guard.check_url("http://name.invalid/", false).is_ok());
        // Spelt as only a browser reads them: judged as the address it reaches.
        for url in [
            "http://0x7f.1:8080/",
            "http://%31%32%37.0.0.1:8080/",
            "http://１２７.０.０.１:8080/",
            "http://ｌｏｃａｌｈｏｓｔ:8080/",
            "http://[::ffff:7f00:1]:8080/",
        ] {
            for proxied in [false, true] {
                let refusal = guard.check_url(url, proxied).unwrap_err();
                assert_eq!(refusal.addr.port(), 8080, "{url}");
                assert!(refusal.addr.ip().is_loopback(), "{url}");
            }
        }
        let refusal = guard.check_url("http://192.168.257./", true).unwrap_err();
        assert_eq!(refusal.addr.to_string(), "192.168.1.1:80");
        assert_eq!(refusal.host, "192.168.1.1");
        let refusal = guard.check_url("http://0x.0x.0:81/", false);
        assert!(
            refusal.is_ok(),
            "0.0.0.0:81 is what the policy lets through"
        );
        let refusal = guard.check_url("http://0x.0x.0/", false).unwrap_err();
        assert_eq!(refusal.own, Own::Unspecified);
        for (url, port) in [
            ("https://example.org/a", 443),
            ("HTTP://example.org", 80),
            ("http://me:pw@example.org:8080/a", 8080),
            ("https://[::1]/", 443),
            ("http://[::1]:9/", 9),
        ] {
            assert_eq!(port_of(url), port, "{url}");
        }
    }

    fn addrs(list: &[&str]) -> Vec<SocketAddr> {
        list.iter().map(|a| a.parse().unwrap()).collect()
    }

    #[test]
    fn public_addresses_pass_and_own_ones_only_as_the_policy_says() {
        let guard = Guard::new(|host, addr| host == "dev.local" || addr.port() == 3000);
        let url = "http://me:pw@x.example/a";
        /// The addresses kept, or the one refused.
        type Expected = Result<&'static [&'static str], &'static str>;
        let cases: &[(&str, &[&str], Expected)] = &[
            (
                "x.example",
                &["93.184.216.34:80"],
                Ok(&["93.184.216.34:80"]),
            ),
            ("x.example", &["127.0.0.1:80"], Err("127.0.0.1:80")),
            ("x.example", &["[::ffff:10.0.0.1]:80"], Err("10.0.0.1:80")),
            (
                "x.example",
                &["[::1]:80", "8.8.8.8:80", "10.0.0.1:80"],
                Ok(&["8.8.8.8:80"]),
            ),
            ("dev.local", &["192.168.0.2:80"], Ok(&["192.168.0.2:80"])),
            ("x.example", &["127.0.0.1:3000"], Ok(&["127.0.0.1:3000"])),
            ("x.example", &[], Ok(&[])),
        ];
        for (host, resolved, expected) in cases {
            let got = guard.filter(url, host, addrs(resolved));
            match expected {
                Ok(kept) => assert_eq!(got, Ok(addrs(kept)), "{host} {resolved:?}"),
                Err(addr) => {
                    let refusal = got.unwrap_err();
                    assert_eq!(refusal.addr.to_string(), *addr);
                    assert_eq!(refusal.url, "http://x.example/a");
                }
            }
        }
    }

    #[test]
    fn a_proxied_request_is_checked_by_the_address_it_names_without_a_lookup() {
        let guard = Guard::new(|_, _| false);
        let url = "http://x/";
        assert!(guard.check_proxied(url, "127.0.0.1", 80).is_err());
        assert!(guard.check_proxied(url, "[::1]", 80).is_err());
        assert!(guard.check_proxied(url, "2130706433", 80).is_err());
        assert!(guard.check_proxied(url, "localhost", 80).is_err());
        assert!(guard.check_proxied(url, "LocalHost.", 80).is_err());
        assert!(guard.check_proxied(url, "app.localhost", 80).is_err());
        assert!(guard.check_proxied(url, "0x7f.1", 80).is_err());
        assert!(guard.check_proxied(url, "[::ffff:10.0.0.1]", 80).is_err());
        assert!(guard.check_proxied(url, "93.184.216.34", 443).is_ok());
        // A name this machine cannot resolve is the proxy's; one it resolves to itself is
        // refused as its address is.
        assert!(guard.check_proxied(url, "scrape.invalid", 80).is_ok());
        let name = this_machines_name();
        let here = (name.as_str(), 80).to_socket_addrs().ok();
        if here.is_some_and(|mut addrs| addrs.all(|a| a.ip().is_loopback())) {
            assert!(guard.check_proxied(url, &name, 80).is_err());
        }
    }

    /// This machine's host name, which its own resolver knows (`/etc/hosts`).
    fn this_machines_name() -> String {
        let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        name.trim().to_string()
    }

    #[test]
    fn the_allow_entry_offered_is_the_name_or_the_address() {
        let refusal = |host: &str, addr: &str| Refusal {
            url: String::new(),
            host: host.into(),
            addr: addr.parse().unwrap(),
            own: Own::Loopback,
        };
        let cases = [
            ("localhost", "[::1]:8080", "localhost:8080"),
            ("1e100.example", "10.0.0.1:80", "1e100.example:80"),
            ("2130706433", "127.0.0.1:80", "127.0.0.1:80"),
            ("0x7f000001", "127.0.0.1:80", "127.0.0.1:80"),
            ("127.1", "127.0.0.1:81", "127.0.0.1:81"),
            ("[::ffff:127.0.0.1]", "127.0.0.1:80", "127.0.0.1:80"),
            ("[::1]", "[::1]:80", "[::1]:80"),
        ];
        for (host, addr, entry) in cases {
            assert_eq!(refusal(host, addr).allow_entry(), entry, "{host}");
        }
        assert_eq!(
            refusal("x", "127.0.0.1:80").to_string(),
            "127.0.0.1:80 is this machine (loopback)"
        );
    }
}
