//! A request's head as the gate judges it: what it says of the body (every `Content-Length`
//! a number within the server's cap, or a `Transfer-Encoding`), whether the client waits for
//! `100 Continue`, what the server's checks read (method, target, headers) and the head
//! tiny_http is given, which asks for the connection to close after the answer. Lines are
//! split and trimmed as tiny_http 0.12 does, so any length it would act on is one checked here.

use std::io::Read;
use std::net::TcpStream;
use std::time::Instant;

/// The longest head taken, blank line included.
pub(super) const MAX_HEAD: usize = 16 * 1024;

/// What a head says about its body.
#[derive(Debug, PartialEq)]
pub(super) enum Body {
    None,
    /// This many bytes (`Content-Length`).
    Length(usize),
    /// Chunks (`Transfer-Encoding`, which tiny_http reads as chunked whatever its value):
    /// relayed until the server has what it wants, cut off past the cap.
    Chunked,
}

#[derive(Debug, PartialEq)]
pub(super) struct Head {
    pub body: Body,
    /// The client sent `Expect: 100-continue` and waits to be told to send its body.
    pub expects_continue: bool,
    /// The head as tiny_http gets it: `Connection: close`, no `Expect`.
    pub forwarded: Vec<u8>,
    /// What the server's checks read of it.
    pub asked: Asking,
}

/// The request line's method and target, and the headers, as the server's checks read them.
#[derive(Debug, PartialEq, Default)]
pub(super) struct Asking {
    method: String,
    target: String,
    fields: Vec<(String, String)>,
}

impl crate::web::Asked for Asking {
    fn method_name(&self) -> &str {
        &self.method
    }

    fn target(&self) -> &str {
        &self.target
    }

    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

impl Asking {
    /// The method and target of `line`, the request line, split as tiny_http splits it.
    fn new(line: &[u8]) -> Asking {
        let line = String::from_utf8_lossy(line.trim_ascii_end());
        let mut parts = line.split(' ');
        let method = parts.next().unwrap_or_default().to_string();
        let target = parts.next().unwrap_or_default().to_string();
        Asking {
            method,
            target,
            fields: Vec::new(),
        }
    }
}

/// Why a head is not passed on.
#[derive(Debug, PartialEq)]
pub(super) enum Refusal {
    /// A `Content-Length` over the cap.
    TooBig,
    /// A `Content-Length` that is not a number of bytes.
    BadLength,
    /// No blank line within [`MAX_HEAD`] bytes.
    TooLong,
    /// The head had not arrived by the deadline.
    TooSlow,
    /// The client left before its head was complete.
    Gone,
}

/// Reads the head (through its blank line) by `deadline`, after the bytes that had `arrived`;
/// the bytes read past it come back too, the body's start.
pub(super) fn read(
    client: &TcpStream,
    deadline: Instant,
    arrived: Vec<u8>,
) -> Result<(Vec<u8>, Vec<u8>), Refusal> {
    let mut bytes = arrived;
    let mut searched_from = 0;
    let mut piece = [0u8; 4096];
    loop {
        if let Some(at) = find(&bytes[searched_from..], b"\r\n\r\n") {
            let rest = bytes.split_off(searched_from + at + 4);
            return Ok((bytes, rest));
        }
        if bytes.len() >= MAX_HEAD {
            return Err(Refusal::TooLong);
        }
        searched_from = bytes.len().saturating_sub(3);
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || client.set_read_timeout(Some(left)).is_err() {
            return Err(Refusal::TooSlow);
        }
        let n = match (&mut &*client).read(&mut piece) {
            Ok(0) => return Err(Refusal::Gone),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if super::timed_out(&e) => return Err(Refusal::TooSlow),
            Err(_) => return Err(Refusal::Gone),
        };
        bytes.extend_from_slice(&piece[..n]);
    }
}

/// What the client has sent already, read without waiting (about a head's worth at most).
pub(super) fn arrived(client: &TcpStream) -> Vec<u8> {
    let mut bytes = Vec::new();
    if client.set_nonblocking(true).is_err() {
        return bytes;
    }
    let mut piece = [0u8; 4096];
    while bytes.len() < MAX_HEAD {
        match (&mut &*client).read(&mut piece) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&piece[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    // Blocking again for the reads with timeouts that follow (left non-blocking, the socket
    // would read as a head that never comes).
    let _ = client.set_nonblocking(false);
    bytes
}

/// The head at the start of `bytes`, through its blank line, when it is all there.
pub(super) fn whole(bytes: &[u8]) -> Option<&[u8]> {
    find(bytes, b"\r\n\r\n").map(|at| &bytes[..at + 4])
}

/// Judges `head` (through its blank line) against a body cap of `cap` bytes.
pub(super) fn parse(head: &[u8], cap: usize) -> Result<Head, Refusal> {
    let mut lines = head.split_inclusive(|&b| b == b'\n');
    let first = lines.next().unwrap_or_default();
    let mut asked = Asking::new(first);
    let mut forwarded = first.to_vec();
    let (mut length, mut chunked, mut expects_continue) = (None, false, false);
    for line in lines {
        let Some((name, value)) = field(line) else {
            // The blank line, or one tiny_http refuses itself (400): passed on as it is.
            if !line.trim_ascii().is_empty() {
                forwarded.extend_from_slice(line);
            }
            continue;
        };
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        asked.fields.push((text(name), text(value)));
        let dropped = match name.to_ascii_lowercase().as_slice() {
            b"content-length" => {
                let n = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse::<usize>().ok())
                    .ok_or(Refusal::BadLength)?;
                if n > cap {
                    return Err(Refusal::TooBig);
                }
                length.get_or_insert(n);
                false
            }
            b"transfer-encoding" => {
                chunked = true;
                false
            }
            b"expect" if value.eq_ignore_ascii_case(b"100-continue") => {
                expects_continue = true;
                true
            }
            b"connection" | b"keep-alive" => true,
            _ => false,
        };
        if !dropped {
            forwarded.extend_from_slice(line);
        }
    }
    forwarded.extend_from_slice(b"Connection: close\r\n\r\n");
    let body = match (chunked, length) {
        (true, _) => Body::Chunked,
        (false, Some(n)) if n > 0 => Body::Length(n),
        _ => Body::None,
    };
    Ok(Head {
        body,
        expects_continue,
        forwarded,
        asked,
    })
}

/// A header line's name and value, trimmed.
fn field(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let line = line.trim_ascii();
    let colon = line.iter().position(|&b| b == b':')?;
    Some((line[..colon].trim_ascii(), line[colon + 1..].trim_ascii()))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAP: usize = 1000;

    fn judged(headers: &str) -> Result<Head, Refusal> {
        parse(format!("POST /x HTTP/1.1\r\n{headers}\r\n").as_bytes(), CAP)
    }

    #[test]
    fn the_body_is_what_the_headers_announce_within_the_cap() {
        let cases: &[(&str, Result<Body, Refusal>)] = &[
            ("Host: h\r\n", Ok(Body::None)),
            ("Content-Length: 0\r\n", Ok(Body::None)),
            ("Content-Length: 12\r\n", Ok(Body::Length(12))),
            ("content-LENGTH:  1000 \r\n", Ok(Body::Length(1000))),
            ("Content-Length: 1001\r\n", Err(Refusal::TooBig)),
            ("Content-Length: 100000000000000\r\n", Err(Refusal::TooBig)),
            (
                "Content-Length: 99999999999999999999999999\r\n",
                Err(Refusal::BadLength),
            ),
            ("Content-Length: -1\r\n", Err(Refusal::BadLength)),
            ("Content-Length: 12, 12\r\n", Err(Refusal::BadLength)),
            // Every length is judged, not only the first tiny_http would take.
            (
                "Content-Length: 5\r\nContent-Length: 5000\r\n",
                Err(Refusal::TooBig),
            ),
            // A name spaced before its colon is one tiny_http ignores; judged all the same.
            ("Content-Length : 5000\r\n", Err(Refusal::TooBig)),
            ("Transfer-Encoding: chunked\r\n", Ok(Body::Chunked)),
            (
                "Transfer-Encoding: gzip\r\nContent-Length: 5\r\n",
                Ok(Body::Chunked),
            ),
            (
                "Transfer-Encoding: chunked\r\nContent-Length: 5000\r\n",
                Err(Refusal::TooBig),
            ),
        ];
        for (headers, expected) in cases {
            let got = judged(headers).map(|head| head.body);
            assert_eq!(&got, expected, "{headers:?}");
        }
    }

    #[test]
    fn the_head_passed_on_closes_after_the_answer_and_expects_nothing() {
        let head = judged(
            "Host: 127.0.0.1:9\r\nConnection: keep-alive, Upgrade\r\nKeep-Alive: 5\r\nExpect: 100-Continue\r\nX-Marvin-Session: t\r\n",
        )
        .unwrap();
        assert!(head.expects_continue);
        assert_eq!(
            String::from_utf8(head.forwarded).unwrap(),
            "POST /x HTTP/1.1\r\nHost: 127.0.0.1:9\r\nX-Marvin-Session: t\r\nConnection: close\r\n\r\n"
        );
        // Another expectation is tiny_http's to refuse (417).
        let other = judged("Expect: something\r\n").unwrap();
        assert!(!other.expects_continue);
        assert!(
            other
                .forwarded
                .starts_with(b"POST /x HTTP/1.1\r\nExpect: something\r\n")
        );
    }

    #[test]
    fn the_servers_checks_read_the_method_target_and_first_header_of_a_name() {
        use crate::web::Asked;
        let head = parse(
            b"POST /submit?session=a HTTP/1.1\r\nhost:  127.0.0.1:9 \r\nX-Marvin-Session: t\r\nHOST: evil\r\n\r\n",
            CAP,
        )
        .unwrap();
        let asked = &head.asked;
        assert_eq!(asked.method_name(), "POST");
        assert_eq!(asked.target(), "/submit?session=a");
        assert_eq!(asked.field("Host"), Some("127.0.0.1:9"));
        assert_eq!(asked.field("x-marvin-session"), Some("t"));
        assert_eq!(asked.field("Origin"), None);
        assert!(crate::web::host_allowed(asked, 9));
        assert!(crate::web::has_token(asked, "t", "X-Marvin-Session"));
        let bare = parse(b"GET\r\n\r\n", CAP).unwrap();
        assert_eq!((bare.asked.method_name(), bare.asked.target()), ("GET", ""));
    }

    #[test]
    fn a_head_is_read_through_its_blank_line_within_its_limits() {
        use std::io::Write;
        use std::net::TcpListener;
        use std::time::Duration;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let mut client = std::net::TcpStream::connect(address).unwrap();
        let (server, _) = listener.accept().unwrap();
        let soon = || Instant::now() + Duration::from_secs(20);
        // The head's start had arrived already; the rest comes in two writes.
        client.write_all(b" / HTTP/1.1\r\nHost: h\r\n").unwrap();
        client.write_all(b"\r\n{\"body\"").unwrap();
        let (head, rest) = read(&server, soon(), b"GET".to_vec()).unwrap();
        assert_eq!(head, b"GET / HTTP/1.1\r\nHost: h\r\n\r\n");
        assert_eq!(rest, b"{\"body\"");
        // What had arrived may hold the whole head, and more.
        let (head, rest) =
            read(&server, Instant::now(), b"GET / HTTP/1.1\r\n\r\nx".to_vec()).unwrap();
        assert_eq!(
            (&head[..], &rest[..]),
            (&b"GET / HTTP/1.1\r\n\r\n"[..], &b"x"[..])
        );
        client.write_all(&[b'a'; MAX_HEAD]).unwrap();
        assert_eq!(read(&server, soon(), Vec::new()), Err(Refusal::TooLong));
        assert_eq!(
            read(&server, Instant::now(), Vec::new()),
            Err(Refusal::TooSlow)
        );
        drop(client);
        assert_eq!(read(&server, soon(), Vec::new()), Err(Refusal::Gone));
    }
}
