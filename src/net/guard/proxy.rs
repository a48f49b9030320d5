//! A filtering HTTP proxy on loopback that Chromium is forced through (scrape_page): each
//! request names its host, which the proxy resolves itself, checks with the guard and connects
//! to at a checked address, so a page's script, its images, a redirect or a name that answers
//! differently the second time reach nothing the guard refuses. Each connection carries one
//! request or one tunnel; what was refused is kept for the tool to tell.

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use super::head::{self, Destination, Head};
use super::{Guard, Refusal, tunnel};
use crate::net::{CONNECT_TIMEOUT, ProxyRules};

/// The running proxy; stopping it (or dropping it) ends every connection it holds.
pub(crate) struct FilterProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accepting: Option<JoinHandle<()>>,
}

struct Shared {
    guard: Guard,
    /// The person's own proxy (HTTPS_PROXY, NO_PROXY), which carries what it covers.
    upstream: ProxyRules,
    /// How long a connection may stay silent.
    idle: Duration,
    stop: AtomicBool,
    refused: Mutex<Vec<Refusal>>,
    /// Every connection open, by number, so that stopping ends them all.
    open: Mutex<HashMap<u64, TcpStream>>,
    next: AtomicU64,
}

/// Why a request was not carried.
enum Blocked {
    Refused(Refusal),
    Failed(io::Error),
}

impl From<Refusal> for Blocked {
    fn from(refusal: Refusal) -> Self {
        Self::Refused(refusal)
    }
}

impl From<io::Error> for Blocked {
    fn from(error: io::Error) -> Self {
        Self::Failed(error)
    }
}

impl FilterProxy {
    /// A proxy on 127.0.0.1 checking with `guard`, going through `upstream` where it says,
    /// ending connections silent for `idle`.
    pub(crate) fn start(guard: Guard, upstream: ProxyRules, idle: Duration) -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            guard,
            upstream,
            idle,
            stop: AtomicBool::new(false),
            refused: Mutex::default(),
            open: Mutex::default(),
            next: AtomicU64::new(0),
        });
        let serving = Arc::clone(&shared);
        let accepting = std::thread::spawn(move || accept(&listener, &serving));
        Ok(Self {
            addr,
            shared,
            accepting: Some(accepting),
        })
    }

    /// The proxy's address, as `--proxy-server` takes it.
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops the proxy; what it refused, each address once, in the order met.
    pub(crate) fn stop(mut self) -> Vec<Refusal> {
        self.halt();
        let mut refused = std::mem::take(&mut *lock(&self.shared.refused));
        let mut seen = Vec::new();
        refused.retain(|refusal| {
            let new = !seen.contains(&refusal.addr);
            seen.push(refusal.addr);
            new
        });
        refused
    }

    fn halt(&mut self) {
        let Some(accepting) = self.accepting.take() else {
            return;
        };
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop, which then sees the flag.
        let _ = TcpStream::connect(self.addr);
        let _ = accepting.join();
        for stream in lock(&self.shared.open).values() {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }
}

impl Drop for FilterProxy {
    fn drop(&mut self) {
        self.halt();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn accept(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(shared);
        std::thread::spawn(move || {
            let Ok(_held) = Held::new(&shared, &stream) else {
                return;
            };
            serve(&shared, &stream);
        });
    }
}

/// A connection known to the proxy until this is dropped.
struct Held<'a> {
    shared: &'a Shared,
    number: u64,
}

impl<'a> Held<'a> {
    fn new(shared: &'a Shared, stream: &TcpStream) -> io::Result<Self> {
        stream.set_read_timeout(Some(shared.idle))?;
        let number = shared.next.fetch_add(1, Ordering::SeqCst);
        lock(&shared.open).insert(number, stream.try_clone()?);
        // A stop that came before the connection was known would miss it.
        if shared.stop.load(Ordering::SeqCst) {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        Ok(Self { shared, number })
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        lock(&self.shared.open).remove(&self.number);
    }
}

/// One connection from the browser: its request read, checked, and carried or answered.
fn serve(shared: &Shared, client: &TcpStream) {
    let Ok((request, rest)) = head::read(&mut &*client) else {
        return;
    };
    let Some(to) = request.destination() else {
        return answer(
            client,
            400,
            "Marvin's proxy carries http:// requests and CONNECT only.",
        );
    };
    let (server, upstream) = match open(shared, &to) {
        Ok(opened) => opened,
        Err(Blocked::Refused(refusal)) => {
            let text = format!("Marvin refused to reach {}: {refusal}.", to.url);
            lock(&shared.refused).push(refusal);
            return answer(client, 403, &text);
        }
        Err(Blocked::Failed(error)) => {
            return answer(
                client,
                502,
                &format!("Marvin could not reach {}: {error}.", to.url),
            );
        }
    };
    let Ok(_held) = Held::new(shared, &server) else {
        return;
    };
    if to.tunnel {
        tunnel_through(client, &server, &request, &rest, upstream);
    } else {
        carry(client, &server, &request, &rest, &to, upstream);
    }
    tunnel::end(client, &server);
}

/// A connection to where `to` goes, through the person's proxy when it covers it (`true`):
/// only after the guard let it.
fn open(shared: &Shared, to: &Destination) -> Result<(TcpStream, bool), Blocked> {
    if let Some(proxy) = shared.upstream.for_url(&to.url) {
        shared.guard.check_proxied(&to.url, &to.host, to.port)?;
        return Ok((tunnel::to_proxy(&proxy, CONNECT_TIMEOUT)?, true));
    }
    let bare = to.host.trim_start_matches('[').trim_end_matches(']');
    let resolved = (bare, to.port).to_socket_addrs()?;
    let addrs = shared.guard.filter(&to.url, &to.host, resolved)?;
    Ok((tunnel::direct(&addrs, CONNECT_TIMEOUT)?, false))
}

/// A CONNECT: established here, or asked of the person's proxy, then bytes both ways.
fn tunnel_through(
    client: &TcpStream,
    server: &TcpStream,
    request: &Head,
    rest: &[u8],
    upstream: bool,
) {
    let opened = if upstream {
        (&*server).write_all(&request.forward(None))
    } else {
        (&*client).write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
    };
    if opened.and_then(|()| (&*server).write_all(rest)).is_ok() {
        tunnel::both_ways(client, server);
    }
}

/// One plain-HTTP request: its head and body sent on, the answer carried back with
/// `Connection: close`, so the browser sends its next request on a new connection.
fn carry(
    client: &TcpStream,
    server: &TcpStream,
    request: &Head,
    rest: &[u8],
    to: &Destination,
    upstream: bool,
) {
    if request.field("transfer-encoding").is_some() {
        return answer(
            client,
            501,
            "Marvin's proxy does not carry chunked request bodies.",
        );
    }
    let length = request
        .field("content-length")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let target = (!upstream).then_some(to.path.as_str());
    let sent = (&*server)
        .write_all(&request.forward(target))
        .and_then(|()| tunnel::body(rest, length, client, server));
    if sent.is_err() {
        return;
    }
    let Ok((answer_head, start)) = head::read_raw(&mut &*server) else {
        return;
    };
    let back = (&*client)
        .write_all(&head::closing(&answer_head))
        .and_then(|()| (&*client).write_all(&start));
    if back.is_ok() {
        tunnel::relay(server, client);
    }
}

/// Answers the browser with `status` and a line of text.
fn answer(client: &TcpStream, status: u16, text: &str) {
    let reason = match status {
        400 => "Bad Request",
        403 => "Forbidden",
        501 => "Not Implemented",
        _ => "Bad Gateway",
    };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    let _ = (&*client).write_all(response.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// A server answering `hello` to each request, telling what it was asked (target and
    /// Connection field).
    fn server() -> (u16, std::sync::mpsc::Receiver<(String, Option<String>)>) {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let port = server.server_addr().to_ip().unwrap().port();
        let (asked, requests) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for request in server.incoming_requests() {
                let connection = request
                    .headers()
                    .iter()
                    .find(|h| h.field.equiv("Connection"));
                let connection = connection.map(|h| h.value.to_string());
                let _ = asked.send((request.url().to_string(), connection));
                let _ = request.respond(tiny_http::Response::from_string("hello"));
            }
        });
        (port, requests)
    }

    fn through(proxy: &FilterProxy, request: &str) -> String {
        let mut stream = TcpStream::connect(proxy.addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    fn guard_allowing(port: u16) -> Guard {
        Guard::new(move |_, addr| addr.port() == port)
    }

    #[test]
    fn plain_requests_reach_allowed_addresses_only_and_refusals_are_kept() {
        let (port, asked) = server();
        let (other, _) = server();
        let idle = Duration::from_secs(10);
        let proxy = FilterProxy::start(guard_allowing(port), ProxyRules::default(), idle).unwrap();
        let request = |port: u16| {
            format!(
                "GET http://127.0.0.1:{port}/a?b HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nProxy-Connection: keep-alive\r\n\r\n"
            )
        };
        let allowed = through(&proxy, &request(port));
        assert!(allowed.starts_with("HTTP/1.1 200"), "{allowed}");
        assert!(
            allowed.to_ascii_lowercase().contains("connection: close"),
            "{allowed}"
        );
        assert!(allowed.ends_with("hello"), "{allowed}");
        assert_eq!(asked.recv().unwrap(), ("/a?b".into(), Some("close".into())));
        let refused = through(&proxy, &request(other));
        assert!(refused.starts_with("HTTP/1.1 403 Forbidden"), "{refused}");
        assert!(
            refused.ends_with(&format!("Marvin refused to reach http://127.0.0.1:{other}/a?b: 127.0.0.1:{other} is this machine (loopback).")),
            "{refused}"
        );
        let by_name = format!("CONNECT localhost:{other} HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assert!(through(&proxy, &by_name).starts_with("HTTP/1.1 403"));
        let refusals = proxy.stop();
        assert_eq!(
            refusals.len(),
            1 + usize::from(refusals.iter().any(|r| r.addr.is_ipv6()))
        );
        assert_eq!(refusals[0].addr.to_string(), format!("127.0.0.1:{other}"));
    }

    #[test]
    fn a_tunnel_carries_bytes_both_ways_once_established() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut word = [0u8; 4];
            stream.read_exact(&mut word).unwrap();
            stream.write_all(&word).unwrap();
        });
        let idle = Duration::from_secs(10);
        let proxy = FilterProxy::start(guard_allowing(port), ProxyRules::default(), idle).unwrap();
        let answer = through(
            &proxy,
            &format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\nping"),
        );
        assert_eq!(answer, "HTTP/1.1 200 Connection established\r\n\r\nping");
        assert!(proxy.stop().is_empty());
    }

    #[test]
    fn the_persons_proxy_carries_a_name_this_machine_cannot_resolve() {
        let (port, asked) = server();
        let upstream = ProxyRules::new(Some(&format!("http://127.0.0.1:{port}")), None);
        let idle = Duration::from_secs(10);
        let proxy = FilterProxy::start(Guard::new(|_, _| false), upstream, idle).unwrap();
        let request = "GET http://scrape.invalid/app HTTP/1.1\r\nHost: scrape.invalid\r\n\r\n";
        assert!(through(&proxy, request).ends_with("hello"));
        assert_eq!(asked.recv().unwrap().0, "http://scrape.invalid/app");
        // An address in the URL is checked even when the person's proxy would carry it.
        let numeric = "GET http://2130706433/ HTTP/1.1\r\nHost: x\r\n\r\n";
        assert!(through(&proxy, numeric).starts_with("HTTP/1.1 403"));
    }
}
