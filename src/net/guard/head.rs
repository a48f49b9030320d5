//! The heads of what passes the filtering proxy: a request read up to its blank line, where it
//! goes (`CONNECT host:port` or an absolute `http://` address), and the head sent on with its
//! hop-by-hop fields replaced by `Connection: close`, so each connection carries one request.

use std::io::{self, Read};

/// The most a head may take.
const MAX_HEAD: usize = 64 * 1024;

/// A request's (or an answer's) first line and fields.
#[derive(Debug, PartialEq)]
pub(super) struct Head {
    /// The first line's words: method, target, version (or version, status, reason).
    pub(super) line: [String; 3],
    pub(super) fields: Vec<(String, String)>,
}

/// Where a request goes.
#[derive(Debug, PartialEq)]
pub(super) struct Destination {
    /// Lowercased, an IPv6 address in brackets.
    pub(super) host: String,
    pub(super) port: u16,
    /// `https://host:port` for a tunnel, the absolute address otherwise: what a refusal names.
    pub(super) url: String,
    /// A tunnel (`CONNECT`) rather than one plain-HTTP request.
    pub(super) tunnel: bool,
    /// The target as the server wants it (`/path?query`); empty for a tunnel.
    pub(super) path: String,
}

/// Reads a request up to the end of its head: the head, and whatever came after it.
pub(super) fn read(stream: &mut impl Read) -> io::Result<(Head, Vec<u8>)> {
    let (bytes, rest) = read_raw(stream)?;
    let head = parse(&bytes).ok_or_else(|| invalid("a head that cannot be read"))?;
    Ok((head, rest))
}

/// Reads up to the end of a head: its bytes (blank line included), and whatever came after.
pub(super) fn read_raw(stream: &mut impl Read) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        if let Some(end) = find(&bytes, b"\r\n\r\n") {
            let rest = bytes.split_off(end + 4);
            return Ok((bytes, rest));
        }
        if bytes.len() > MAX_HEAD {
            return Err(invalid("a head larger than 64 KB"));
        }
        match stream.read(&mut buffer)? {
            0 => return Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
            n => bytes.extend_from_slice(&buffer[..n]),
        }
    }
}

/// An answer's head, byte for byte, but with `Connection: close` for the fields that would
/// keep the connection for another request.
pub(super) fn closing(answer: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(answer.len() + 19);
    let lines = answer
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty() && *line != b"\r");
    for line in lines {
        let name = line.split(|&b| b == b':').next().unwrap_or_default();
        let name = String::from_utf8_lossy(name).trim().to_ascii_lowercase();
        if !matches!(
            name.as_str(),
            "connection" | "keep-alive" | "proxy-connection"
        ) {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
    }
    out.extend_from_slice(b"Connection: close\r\n\r\n");
    out
}

fn parse(bytes: &[u8]) -> Option<Head> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.split("\r\n");
    let mut words = lines.next()?.splitn(3, ' ').map(str::to_string);
    let line = [
        words.next()?,
        words.next()?,
        words.next().unwrap_or_default(),
    ];
    let fields = lines
        .filter(|line| !line.is_empty())
        .map(|line| {
            let (name, value) = line.split_once(':')?;
            Some((name.trim().to_string(), value.trim().to_string()))
        })
        .collect::<Option<_>>()?;
    Some(Head { line, fields })
}

impl Head {
    /// The value of field `name`.
    pub(super) fn field(&self, name: &str) -> Option<&str> {
        let found = self
            .fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name));
        found.map(|(_, value)| value.as_str())
    }

    /// Where a request goes, if it names a place the proxy serves.
    pub(super) fn destination(&self) -> Option<Destination> {
        let [method, target, _] = &self.line;
        if method.eq_ignore_ascii_case("CONNECT") {
            let (host, port) = host_port(target, 443)?;
            let url = format!("https://{host}:{port}");
            return Some(Destination {
                host,
                port,
                url,
                tunnel: true,
                path: String::new(),
            });
        }
        let scheme = target
            .get(..7)
            .filter(|s| s.eq_ignore_ascii_case("http://"))?;
        let rest = &target[scheme.len()..];
        let at = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = rest[..at].rsplit('@').next()?;
        let (host, port) = host_port(authority, 80)?;
        let path = match &rest[at..] {
            "" => "/".to_string(),
            path if path.starts_with('/') => path.to_string(),
            query => format!("/{query}"),
        };
        let url = format!("http://{host}:{port}{path}");
        Some(Destination {
            host,
            port,
            url,
            tunnel: false,
            path,
        })
    }

    /// The head as sent on: its target replaced by `target` (when given), the fields that
    /// belong to this hop alone dropped, and `Connection: close`.
    pub(super) fn forward(&self, target: Option<&str>) -> Vec<u8> {
        let [first, second, third] = &self.line;
        let second = target.unwrap_or(second);
        let mut out = format!("{first} {second} {third}\r\n");
        let hop = [
            "connection",
            "proxy-connection",
            "keep-alive",
            "proxy-authorization",
        ];
        for (name, value) in &self.fields {
            if !hop.contains(&name.to_ascii_lowercase().as_str()) {
                out.push_str(&format!("{name}: {value}\r\n"));
            }
        }
        out.push_str("Connection: close\r\n\r\n");
        out.into_bytes()
    }
}

/// `host:port` (`[v6]:port`), the port `default` when it is not given.
fn host_port(authority: &str, default: u16) -> Option<(String, u16)> {
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, port.parse().ok()?),
        _ => (authority, default),
    };
    let bracketed = host.starts_with('[') == host.ends_with(']');
    (!host.is_empty() && bracketed).then(|| (host.to_ascii_lowercase(), port))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> (Head, Vec<u8>) {
        read(&mut text.as_bytes()).unwrap()
    }

    #[test]
    fn destinations_of_tunnels_and_plain_requests() {
        /// Host, port, address named, tunnel, path.
        type Expected = Option<(&'static str, u16, &'static str, bool, &'static str)>;
        let cases: &[(&str, Expected)] = &[
            (
                "CONNECT example.org:443 HTTP/1.1",
                Some(("example.org", 443, "https://example.org:443", true, "")),
            ),
            (
                "CONNECT [::1]:8443 HTTP/1.1",
                Some(("[::1]", 8443, "https://[::1]:8443", true, "")),
            ),
            (
                "GET http://127.0.0.1:8080/a?b=1 HTTP/1.1",
                Some((
                    "127.0.0.1",
                    8080,
                    "http://127.0.0.1:8080/a?b=1",
                    false,
                    "/a?b=1",
                )),
            ),
            (
                "GET HTTP://Example.org HTTP/1.1",
                Some(("example.org", 80, "http://example.org:80/", false, "/")),
            ),
            (
                "GET http://u:p@[::1]?q HTTP/1.1",
                Some(("[::1]", 80, "http://[::1]:80/?q", false, "/?q")),
            ),
            ("GET /relative HTTP/1.1", None),
            ("GET ftp://example.org/ HTTP/1.1", None),
            ("CONNECT example.org:https HTTP/1.1", None),
            ("CONNECT [::1:443 HTTP/1.1", None),
        ];
        for (line, expected) in cases {
            let (head, _) = read_text(&format!("{line}\r\nHost: x\r\n\r\n"));
            let expected = expected.map(|(host, port, url, tunnel, path)| Destination {
                host: host.into(),
                port,
                url: url.into(),
                tunnel,
                path: path.into(),
            });
            assert_eq!(head.destination(), expected, "{line}");
        }
    }

    #[test]
    fn a_head_is_read_to_its_blank_line_and_sent_on_for_one_request() {
        let (head, rest) = read_text(
            "GET http://a.example/x HTTP/1.1\r\nHost: a.example\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabcGET",
        );
        assert_eq!(rest, b"abcGET");
        assert_eq!(head.field("content-length"), Some("3"));
        assert_eq!(
            String::from_utf8(head.forward(Some("/x"))).unwrap(),
            "GET /x HTTP/1.1\r\nHost: a.example\r\nContent-Length: 3\r\nConnection: close\r\n\r\n"
        );
        let answer = b"HTTP/1.1 200 OK\r\nKeep-Alive: 5\r\nContent-Disposition: f=\xe9.txt\r\nConnection: keep-alive\r\n\r\n";
        assert_eq!(
            closing(answer),
            b"HTTP/1.1 200 OK\r\nContent-Disposition: f=\xe9.txt\r\nConnection: close\r\n\r\n"
        );
    }

    #[test]
    fn heads_that_end_early_or_never_are_errors() {
        assert!(read(&mut &b"GET http://a/ HTTP/1.1\r\nHost"[..]).is_err());
        assert!(read(&mut &b"\xff\xfe\r\n\r\n"[..]).is_err());
        let endless = vec![b'a'; MAX_HEAD + 10_000];
        assert!(read(&mut endless.as_slice()).is_err());
    }
}
