//! The gate in front of every loopback server of Marvin's. tiny_http 0.12 reads a request's
//! body to its announced end whenever the request is dropped or answered, in a buffer of the
//! announced size (`EqualReader::drop`): one `Content-Length: 100000000000000` aborts the
//! process, and a body that never comes holds whichever thread answers. No call of its API lets
//! a request go without that. So tiny_http never gets a connection of its own: the gate owns
//! the listening socket, reads each head itself (16 KB, 3 s), refuses what tiny_http must not
//! see (a length over the server's cap, 413) and closes; the rest goes to tiny_http over a Unix
//! socket in a private directory, one request a connection (see `relay`). Until its head has
//! passed the server's checks a connection holds only a stranger's place (see `places`).

mod head;
mod places;
mod relay;

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use super::Asked;
use super::respond::HttpResponse;
use places::Places;

/// What one server lets through.
#[derive(Clone, Copy)]
pub(crate) struct Limits {
    /// The largest body announced, in bytes.
    pub body: usize,
    /// Connections served at once whose heads passed the server's checks; more are told the
    /// server is busy.
    pub connections: usize,
    /// What a body announced over `body` is told (413).
    pub too_big: fn() -> HttpResponse,
}

/// The server's checks of a request before its body (Host, Origin, token), given the port it
/// came to: a head that passes them takes one of the server's places. The server applies the
/// same checks again to what tiny_http gives it, and answers those that fail.
pub(crate) type Admit = Box<dyn Fn(&dyn Asked, u16) -> bool + Send + Sync>;

/// What the threads serving connections share.
struct Entrance {
    /// tiny_http's socket.
    socket: PathBuf,
    /// Names the threads.
    name: String,
    limits: Limits,
    port: u16,
    admit: Admit,
    places: Arc<Places>,
}

/// A loopback server: tiny_http, behind the gate.
pub(crate) struct Listening {
    // Dropped first: tiny_http wakes its accept thread through the socket's path, which the
    // gate then removes.
    server: tiny_http::Server,
    gate: Gate,
}

impl Listening {
    pub(crate) fn server(&self) -> &tiny_http::Server {
        &self.server
    }

    pub(crate) fn port(&self) -> u16 {
        self.gate.address.port()
    }
}

struct Gate {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    /// The private directory holding tiny_http's socket.
    dir: PathBuf,
}

/// Listens on `address`, tiny_http's socket in a private directory under `temp`, letting into
/// the server's places the requests `admit` passes. Threads are named `NAME-PORT-…` (Linux
/// keeps 15 characters).
pub(crate) fn listen(
    address: SocketAddr,
    temp: &Path,
    name: &str,
    limits: Limits,
    admit: Admit,
) -> std::io::Result<Listening> {
    let listener = TcpListener::bind(address)?;
    let address = listener.local_addr()?;
    let dir = private_dir(temp)?;
    let socket = dir.join("http");
    let server = UnixListener::bind(&socket)
        .map_err(std::io::Error::other)
        .and_then(|unix| {
            tiny_http::Server::from_listener(unix, None).map_err(std::io::Error::other)
        });
    let server = match server {
        Ok(server) => server,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(e);
        }
    };
    let entrance = Arc::new(Entrance {
        socket,
        name: format!("{name}-{}", address.port()),
        limits,
        port: address.port(),
        admit,
        places: Places::new(limits.connections),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let thread = std::thread::Builder::new()
        .name(format!("{}-gate", entrance.name))
        .spawn({
            let stop = Arc::clone(&stop);
            move || accept(&listener, &entrance, &stop)
        });
    let thread = match thread {
        Ok(thread) => thread,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(e);
        }
    };
    Ok(Listening {
        server,
        gate: Gate {
            address,
            stop,
            thread: Some(thread),
            dir,
        },
    })
}

/// A directory under `temp` only this user may enter.
fn private_dir(temp: &Path) -> std::io::Result<PathBuf> {
    let random = crate::secret::random_hex(8)?;
    let dir = temp.join(format!("marvin-http-{random}"));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| {
            let why = format!("cannot make a private directory in {}: {e}", temp.display());
            std::io::Error::new(e.kind(), why)
        })?;
    Ok(dir)
}

/// Takes connections until `stop`, each on a thread of its own, waiting among the strangers
/// until its head has passed the server's checks.
fn accept(listener: &TcpListener, entrance: &Arc<Entrance>, stop: &AtomicBool) {
    for client in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let client = match client {
            Ok(client) => client,
            // Out of descriptors, say: a moment for connections to end, then on.
            Err(_) => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        let Ok(mut place) = entrance.places.enter(&client) else {
            turn_away(client);
            continue;
        };
        let arrived = relay::arrive(&client, &mut place, entrance);
        let entrance = Arc::clone(entrance);
        // Without a thread the connection and its place go at once.
        let _ = std::thread::Builder::new()
            .name(format!("{}-conn", entrance.name))
            .spawn(move || relay::pass(client, place, arrived, &entrance));
    }
}

/// Tells a connection the gate cannot keep a place for (no descriptor left to do it with) that
/// the server is busy, without waiting on it: a new connection's send buffer takes the answer
/// at once.
fn turn_away(client: TcpStream) {
    if client.set_nonblocking(true).is_ok() {
        let _ = (&client).write_all(&relay::gate_answer(super::respond::busy()));
    }
}

/// Whether a read or write that had a timeout ran out of time.
fn timed_out(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

impl Drop for Gate {
    /// Stops taking connections and closes the port before returning; connections being
    /// served end on their own (their deadlines, or the client or server leaving).
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // The accept thread wakes for a connection, sees the stop and returns (were it not
        // woken, it would return at the next connection: not worth hanging here for).
        let mut wake = self.address;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        let woken = TcpStream::connect_timeout(&wake, Duration::from_secs(1)).is_ok();
        if let Some(thread) = self.thread.take().filter(|_| woken) {
            let _ = thread.join();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn too_big() -> HttpResponse {
        super::super::text(413, "too big")
    }

    /// A server behind the gate whose every answer is 403 without reading the body, given on
    /// the thread that takes the requests.
    fn refusing(temp: &Path) -> Listening {
        refusing_at(temp, LOOPBACK)
    }

    const LOOPBACK: [u8; 4] = [127, 0, 0, 1];

    fn refusing_at(temp: &Path, ip: [u8; 4]) -> Listening {
        let limits = Limits {
            body: 100_000,
            connections: 4,
            too_big,
        };
        let address = SocketAddr::from((ip, 0));
        let admit = Box::new(|request: &dyn Asked, _| request.field("X-Token") == Some("let-in"));
        listen(address, temp, "gate-test", limits, admit).unwrap()
    }

    fn ask_at(ip: [u8; 4], port: u16, request: &str) -> String {
        let mut stream = TcpStream::connect(SocketAddr::from((ip, port))).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    #[test]
    fn an_answer_ends_the_body_and_an_announced_length_over_the_cap_never_gets_through() {
        let temp = crate::test_support::TempDir::new("gate");
        // An address of its own: once closed, its port may go to another test's server on
        // 127.0.0.1 at once, which would answer the check that it is closed.
        let ip = [127, 0, 0, 93];
        let listening = Arc::new(refusing_at(temp.path(), ip));
        let serving = Arc::clone(&listening);
        let server = std::thread::spawn(move || {
            while let Ok(request) = serving.server().recv() {
                let _ = request.respond(super::super::text(403, "no"));
            }
        });
        let port = listening.port();
        // A body announced and never sent (over 1 KB, which tiny_http would wait for before
        // the server sees the request): answered, and the next request too.
        let mut stranger = TcpStream::connect(SocketAddr::from((ip, port))).unwrap();
        stranger
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            stranger,
            "POST / HTTP/1.1\r\nContent-Length: 50000\r\n\r\n{{"
        )
        .unwrap();
        let mut answer = String::new();
        stranger.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 403 "), "{answer}");
        assert!(
            answer.ends_with("\r\nConnection: close\r\n\r\nno"),
            "{answer}"
        );
        let huge = ask_at(
            ip,
            port,
            "POST / HTTP/1.1\r\nContent-Length: 100000000000000\r\n\r\n",
        );
        assert!(
            huge.starts_with("HTTP/1.1 413 ") && huge.ends_with("too big"),
            "{huge}"
        );
        assert!(ask_at(ip, port, "GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 403 "));
        listening.server().unblock();
        server.join().unwrap();
        let dir = listening.gate.dir.clone();
        drop(listening);
        assert!(
            TcpStream::connect(SocketAddr::from((ip, port))).is_err(),
            "the port is closed"
        );
        assert!(!dir.exists(), "the private directory is removed");
    }

    #[test]
    fn connections_without_the_token_take_none_of_the_servers_places() {
        let temp = crate::test_support::TempDir::new("gate-strangers");
        let listening = Arc::new(refusing(temp.path()));
        let serving = Arc::clone(&listening);
        let server = std::thread::spawn(move || {
            while let Ok(request) = serving.server().recv() {
                let _ = request.respond(super::super::text(403, "no"));
            }
        });
        let port = listening.port();
        // Ten times the server's places and more than the strangers' in idle connections, and
        // a head never finished: the oldest are let go, the newest wait their deadline.
        let mut idle: Vec<TcpStream> = (0..40)
            .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
            .collect();
        let mut half = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(half, "GET / HTTP/1.1\r\nX-Token: let-in\r\n").unwrap();
        for _ in 0..10 {
            let with = ask_at(LOOPBACK, port, "GET / HTTP/1.1\r\nX-Token: let-in\r\n\r\n");
            assert!(with.starts_with("HTTP/1.1 403 "), "{with}");
        }
        // A stranger's whole head is passed on all the same, for the server to refuse.
        let without = ask_at(LOOPBACK, port, "GET / HTTP/1.1\r\n\r\n");
        assert!(without.starts_with("HTTP/1.1 403 "), "{without}");
        let mut gone = [0u8; 1];
        idle[0]
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        assert_eq!(idle[0].read(&mut gone).unwrap(), 0, "the oldest was let go");
        listening.server().unblock();
        server.join().unwrap();
    }

    #[test]
    fn a_chunked_body_is_cut_off_a_little_past_the_cap() {
        let temp = crate::test_support::TempDir::new("gate-chunked");
        let listening = Arc::new(refusing(temp.path()));
        let serving = Arc::clone(&listening);
        // This server reads all it is given, however long: the gate decides how much that is.
        let server = std::thread::spawn(move || {
            if let Ok(mut request) = serving.server().recv() {
                let mut body = Vec::new();
                let _ = request.as_reader().read_to_end(&mut body);
                let _ = request.respond(super::super::text(200, &body.len().to_string()));
            }
        });
        let port = listening.port();
        let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            client,
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        .unwrap();
        // Ten times the cap in 10 KB chunks, then the last chunk; the gate stops relaying (and
        // the writes here may fail) well before.
        let chunk = format!("2800\r\n{}\r\n", "a".repeat(10240));
        for _ in 0..100 {
            if client.write_all(chunk.as_bytes()).is_err() {
                break;
            }
        }
        let _ = client.write_all(b"0\r\n\r\n");
        let mut answer = String::new();
        client.read_to_string(&mut answer).unwrap();
        let taken: usize = answer.rsplit("\r\n\r\n").next().unwrap().parse().unwrap();
        assert!(
            taken <= 100_000 + 64 * 1024,
            "{taken} bytes reached the server"
        );
        server.join().unwrap();
    }
}
