//! Arbitrary HTTP requests against Marvin's loopback servers over real TCP: requests made of the
//! parts that matter (method, path, query token, Host, Origin, session header, length, body,
//! line endings) in right, wrong and broken forms, or raw bytes; each sent whole, the writing
//! half closed, and the answer read to its end. `form` runs them against the interview form,
//! `gateway` against `marvin serve`.

mod form;
mod gateway;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use proptest::prelude::*;

/// `cases` cases, unless `PROPTEST_CASES` asks for another number; failures are kept beside
/// `source` (`file!()` of the test) to run first ever after.
pub fn config(cases: u32, source: &'static str) -> ProptestConfig {
    let mut config = ProptestConfig {
        source_file: Some(source),
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = cases;
    }
    config
}

/// What a server expects of its requests, for generating them.
pub struct Server {
    pub port: u16,
    pub token: String,
    /// The query parameter that carries the token.
    pub query_name: &'static str,
    /// The header that carries the token, and how its value is written.
    pub header: (&'static str, &'static str),
    /// Paths it serves (without the query).
    pub paths: &'static [&'static str],
    /// Bodies its routes read.
    pub bodies: &'static [&'static str],
}

/// One request as generated, and whether it carries every credential: a loopback Host of this
/// port, the token, and no foreign Origin.
#[derive(Clone)]
pub struct Generated {
    pub bytes: Vec<u8>,
    pub credentials: bool,
}

impl std::fmt::Debug for Generated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = String::from_utf8_lossy(&self.bytes);
        write!(f, "{text:?} (credentials: {})", self.credentials)
    }
}

/// A part of a request in a right form (`true`) or a wrong one.
fn either(right: String, wrong: Vec<String>) -> impl Strategy<Value = (String, bool)> {
    let wrong = prop::sample::select(wrong).prop_map(|w| (w, false));
    prop_oneof![2 => Just((right, true)), 1 => wrong]
}

fn host(port: u16) -> impl Strategy<Value = (Option<String>, bool)> {
    let right = prop::sample::select(vec![
        format!("127.0.0.1:{port}"),
        format!("LOCALHOST:{port}"),
    ]);
    let wrong = prop::sample::select(vec![
        "127.0.0.1".to_string(),
        format!("attacker.example:{port}"),
        format!("[::1]:{port}"),
        "127.0.0.1:1".to_string(),
        String::new(),
        format!("127.0.0.1:{port}.attacker.example"),
    ]);
    prop_oneof![
        3 => right.prop_map(|h| (Some(h), true)),
        1 => wrong.prop_map(|h| (Some(h), false)),
        1 => Just((None, false)),
    ]
}

fn origin(port: u16) -> impl Strategy<Value = (Option<String>, bool)> {
    let wrong = prop::sample::select(vec![
        "null".to_string(),
        "http://attacker.example".to_string(),
        format!("https://127.0.0.1:{port}"),
        format!("http://127.0.0.1:{port}.attacker.example"),
    ]);
    prop_oneof![
        3 => Just((None, true)),
        1 => Just((Some(format!("http://127.0.0.1:{port}")), true)),
        1 => wrong.prop_map(|o| (Some(o), false)),
    ]
}

/// Text with the bytes that break parsers: control characters, quotes, percent signs.
fn junk(max: usize) -> impl Strategy<Value = String> {
    let piece = prop::sample::select(
        &[
            "a", "%00", "%2e", "/", "..", "\"", "{", "\u{7f}", "é", " ", "\t", "?", "&", "=", "#",
        ][..],
    );
    prop::collection::vec(piece, 0..=max).prop_map(|p| p.concat())
}

/// Requests for `server`: its routes with credentials right or wrong, broken framing, or
/// bytes that are not HTTP at all.
pub fn request(server: &Server) -> BoxedStrategy<Generated> {
    let (query_name, header_name) = (server.query_name, server.header.0);
    let framed = (start_line(server), credentials(server), payload(server)).prop_map(
        move |((method, path, version), (query, host, origin, header), (body, length, lf))| {
            let query_part = query
                .as_ref()
                .map_or(String::new(), |(t, _)| format!("?{query_name}={t}"));
            let mut head = vec![format!("{method} {path}{query_part} {version}")];
            let fields = [
                ("Host", &host.0),
                ("Origin", &origin.0),
                (header_name, &header.0),
            ];
            for (name, value) in fields {
                if let Some(value) = value {
                    head.push(format!("{name}: {value}"));
                }
            }
            head.push("Content-Type: application/json".into());
            let body = frame(&body, length, &mut head);
            let end = if lf { "\n" } else { "\r\n" };
            let mut bytes = format!("{}{end}{end}", head.join(end)).into_bytes();
            bytes.extend_from_slice(&body);
            let token_ok = query.is_some_and(|(_, ok)| ok) || header.1;
            Generated {
                bytes,
                credentials: host.1 && origin.1 && token_ok,
            }
        },
    );
    let raw = prop::collection::vec(any::<u8>(), 0..256).prop_map(|bytes| Generated {
        bytes,
        credentials: false,
    });
    prop_oneof![12 => framed, 1 => raw].boxed()
}

/// Method, path and version; repeated in the lists to weigh them to what the routes take.
fn start_line(
    server: &Server,
) -> impl Strategy<Value = (&'static str, String, &'static str)> + use<> {
    let method = prop::sample::select(
        &[
            "GET", "GET", "GET", "POST", "POST", "POST", "PUT", "OPTIONS", "HEAD", "get", "BREW",
        ][..],
    );
    let path = prop_oneof![
        10 => prop::sample::select(server.paths.to_vec()).prop_map(str::to_string),
        2 => junk(12).prop_map(|j| format!("/{j}")),
        1 => Just(format!("/{}", "a".repeat(9000))),
    ];
    let version = prop::sample::select(
        &[
            "HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/9", "",
        ][..],
    );
    (method, path, version)
}

/// A value given and whether it is the right one.
type Given = (Option<String>, bool);

/// The token in the query (or not), the Host, the Origin, the token header: each given or
/// not, right or wrong.
fn credentials(
    server: &Server,
) -> impl Strategy<Value = (Option<(String, bool)>, Given, Given, Given)> + use<> {
    let token = server.token.clone();
    let wrong = vec![
        String::new(),
        "0".repeat(32),
        token[..16].to_string(),
        format!("{token}x"),
    ];
    let query = prop::option::of(either(token.clone(), wrong.clone()));
    let written = server.header.1;
    let header = prop::option::of(either(token, wrong)).prop_map(move |given| match given {
        Some((value, ok)) => (Some(written.replace("{}", &value)), ok),
        None => (None, false),
    });
    (query, host(server.port), origin(server.port), header)
}

/// The body, how its length is said, and whether lines end in LF alone.
fn payload(server: &Server) -> impl Strategy<Value = (String, &'static str, bool)> + use<> {
    let body = prop_oneof![
        3 => prop::sample::select(server.bodies.to_vec()).prop_map(str::to_string),
        1 => junk(40),
        1 => prop::collection::vec(any::<u8>(), 0..64)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ];
    let length = prop::sample::select(
        &[
            "right", "right", "right", "right", "none", "short", "long", "junk", "chunked", "huge",
        ][..],
    );
    (body, length, prop::bool::weighted(0.15))
}

/// The body as sent, after the framing headers `length` asks for.
fn frame(body: &str, length: &str, head: &mut Vec<String>) -> Vec<u8> {
    match length {
        "right" => head.push(format!("Content-Length: {}", body.len())),
        "short" => head.push(format!("Content-Length: {}", body.len() / 2)),
        "long" => head.push(format!("Content-Length: {}", body.len() + 10)),
        "junk" => head.push("Content-Length: -1".into()),
        "huge" => head.push("Content-Length: 99999999999999999999".into()),
        "chunked" => {
            head.push("Transfer-Encoding: chunked".into());
            return format!("{:x}\r\n{body}\r\n0\r\n\r\n", body.len()).into_bytes();
        }
        _ => {}
    }
    body.as_bytes().to_vec()
}

/// What came back: the status of the first answer (`None` when the server closed without
/// one), and the whole answer as text.
pub struct Answer {
    pub status: Option<u16>,
    pub text: String,
}

/// Sends `bytes`, closes the writing half and reads the answer to its end. A server that has
/// not finished within 20 s has hung on the request: that fails the test.
pub fn exchange(port: u16, bytes: &[u8]) -> Result<Answer, String> {
    let mut stream =
        TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .map_err(|e| e.to_string())?;
    // The server may answer and close before it has read everything.
    let _ = stream.write_all(bytes);
    let _ = stream.shutdown(Shutdown::Write);
    let mut answer = Vec::new();
    match stream.read_to_end(&mut answer) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => return Err(format!("no end to the answer within 20 s ({e})")),
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .strip_prefix("HTTP/1.")
        .and_then(|rest| rest.get(2..5))
        .and_then(|code| code.parse().ok());
    Ok(Answer { status, text })
}
