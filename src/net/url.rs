//! The parts of a URL the network code needs: the host a request goes to, and the
//! `user:password@` a URL may carry, found so that it is never shown.

/// The `user:password` (or `user`) part of a URL's authority, if it has one.
pub(crate) fn url_userinfo(url: &str) -> Option<&str> {
    authority(url)
        .rsplit_once('@')
        .map(|(userinfo, _)| userinfo)
}

/// `url` without its `user:password@`.
pub(crate) fn without_userinfo(url: &str) -> String {
    match url_userinfo(url) {
        Some(userinfo) => url.replacen(&format!("{userinfo}@"), "", 1),
        None => url.to_string(),
    }
}

/// The host of `url`, lowercased, without user, password or port; an IPv6 address keeps its
/// brackets (`[::1]`).
pub(crate) fn host_of(url: &str) -> String {
    let authority = authority(url);
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host_port)| host_port);
    let host = match host_port.strip_prefix('[') {
        Some(rest) => rest
            .split_once(']')
            .map_or(host_port, |(inside, _)| &host_port[..inside.len() + 2]),
        None => host_port.split(':').next().unwrap_or(""),
    };
    host.to_ascii_lowercase()
}

/// The server `url` goes to, as pacing counts servers: its host and port, lowercased, without
/// user or password (two servers on one machine are two servers).
pub(crate) fn server_of(url: &str) -> String {
    let authority = authority(url);
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, host_port)| host_port)
        .to_ascii_lowercase()
}

/// The port `url` goes to: the one it names, else its scheme's (443 for https, 80 else).
pub(crate) fn port_of(url: &str) -> u16 {
    let server = server_of(url);
    let named = match server.rsplit_once(':') {
        // An IPv6 address without a port ends with its bracket.
        Some((_, port)) if !port.ends_with(']') => port.parse().ok(),
        _ => None,
    };
    named.unwrap_or(if url.starts_with("https:") { 443 } else { 80 })
}

/// Whether `host` (as [`host_of`] gives it) is this machine.
pub(crate) fn is_loopback(host: &str) -> bool {
    host == "localhost" || host.starts_with("127.") || host == "[::1]"
}

/// The authority of `url`: what lies between the scheme and the path.
fn authority(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split(['/', '?', '#']).next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_urls_port_is_the_one_it_names_or_its_schemes() {
        assert_eq!(port_of("http://localhost:11434/api"), 11434);
        assert_eq!(port_of("http://user:pw@127.0.0.1:8080"), 8080);
        assert_eq!(port_of("https://api.openai.com/v1"), 443);
        assert_eq!(port_of("http://[::1]/v1"), 80);
        assert_eq!(port_of("http://[::1]:9000/v1"), 9000);
    }

    #[test]
    fn servers_are_host_and_port_without_the_user() {
        assert_eq!(server_of("http://me:pw@Box:9000/v1"), "box:9000");
        assert_eq!(
            server_of("https://export.arxiv.org/api/query?x"),
            "export.arxiv.org"
        );
    }

    #[test]
    fn hosts_come_without_user_port_or_case() {
        let cases = [
            ("https://api.openai.com/v1", "api.openai.com"),
            ("http://me:hunter22@Box:9000/v1", "box"),
            ("http://127.0.0.1:8080/v1?x=1", "127.0.0.1"),
            ("http://[::1]:11434", "[::1]"),
            ("http://[2001:DB8::1]/v1", "[2001:db8::1]"),
            ("localhost:8080/v1", "localhost"),
            (
                "https://nominatim.openstreetmap.org#x",
                "nominatim.openstreetmap.org",
            ),
        ];
        for (url, host) in cases {
            assert_eq!(host_of(url), host, "{url}");
        }
    }

    #[test]
    fn loopback_is_localhost_127_and_ipv6_one() {
        for host in ["localhost", "127.0.0.1", "127.1.2.3", "[::1]"] {
            assert!(is_loopback(host), "{host}");
        }
        for host in [
            "api.openai.com",
            "[2001:db8::1]",
            "10.0.0.1",
            "localhost.example",
        ] {
            assert!(!is_loopback(host), "{host}");
        }
    }

    #[test]
    fn userinfo_is_found_and_taken_out() {
        let url = "http://me:hunter22@box:9000/v1";
        assert_eq!(url_userinfo(url), Some("me:hunter22"));
        assert_eq!(without_userinfo(url), "http://box:9000/v1");
        assert_eq!(url_userinfo("http://host/a@b"), None);
        assert_eq!(without_userinfo("http://host/a@b"), "http://host/a@b");
    }
}
