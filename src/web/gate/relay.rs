//! One connection through the gate: its head read and judged (a place of the server's for a
//! head that passes its checks, a stranger's place for the rest), then the request passed to
//! tiny_http and the answer back. The body goes on only as far as announced (a chunked one
//! to the cap and a little more) and only until the server answers: an answer written before
//! the body was read (a refusal) ends the body for tiny_http at once, so nothing of Marvin's
//! ever waits on a stranger's bytes. The connection is closed after the answer, once the
//! client has had a moment to read it.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use super::head::{self, Body, Head, Refusal};
use super::places::{NoSeat, Place};
use super::{Entrance, Limits, timed_out};
use crate::web::respond::{HttpResponse, busy, json_response};

/// How long a client has to send its head, waiting among the strangers: a browser or a client
/// sends it at once.
const HEAD_DEADLINE: Duration = Duration::from_secs(3);
/// How long a body is relayed at most. The servers' own deadline for reading one is shorter;
/// this one ends a body of 1 KB or less, which tiny_http reads whole before the server sees
/// the request.
const BODY_DEADLINE: Duration = Duration::from_secs(40);
/// How long the client's late bytes are read and dropped after the answer, so that closing
/// does not reset the connection before the client has read the answer.
const LINGER: Duration = Duration::from_secs(2);
/// How often the body's relay looks whether the answer has come.
const SLICE: Duration = Duration::from_millis(250);
/// How long one write to a client that stopped reading may take.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// What a chunked body may add to the cap in chunk sizes and line ends.
const CHUNK_SLACK: usize = 64 * 1024;

/// For a connection just taken: what it has sent already; when that is a whole head passing
/// the server's checks, its seat is taken now, before newer strangers could have it let go
/// (under a flood of connections, a person's head is there by the time theirs is taken).
pub(super) fn arrive(client: &TcpStream, place: &mut Place, entrance: &Entrance) -> Vec<u8> {
    let arrived = head::arrived(client);
    let judged = head::whole(&arrived).map(|whole| head::parse(whole, entrance.limits.body));
    if let Some(Ok(head)) = judged {
        // Refused a seat, it is refused again where its head is judged.
        let _ = seat(place, &head, entrance);
    }
    arrived
}

/// Serves `client` through the server behind `entrance`, from what had `arrived`, holding
/// `place` (a stranger's, until the head passes the server's checks) to the end.
pub(super) fn pass(client: TcpStream, mut place: Place, arrived: Vec<u8>, entrance: &Entrance) {
    let _ = client.set_write_timeout(Some(WRITE_TIMEOUT));
    let limits = &entrance.limits;
    let judged = head::read(&client, Instant::now() + HEAD_DEADLINE, arrived)
        .and_then(|(head, early)| Ok((head::parse(&head, limits.body)?, early)));
    let (head, early) = match judged {
        Ok(judged) => judged,
        Err(Refusal::Gone) => return,
        Err(refusal) => return refuse(&client, refusal_response(refusal, limits)),
    };
    match seat(&mut place, &head, entrance) {
        Ok(()) => {}
        Err(NoSeat::LetGo) => return,
        Err(NoSeat::Full) => return refuse(&client, busy()),
    }
    let Ok(upstream) = UnixStream::connect(&entrance.socket) else {
        return refuse(&client, busy());
    };
    if (&upstream).write_all(&head.forwarded).is_err() {
        return refuse(&client, busy());
    }
    if head.expects_continue {
        let _ = (&client).write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let relayed = match head.body {
        Body::None => 0,
        Body::Length(n) => n,
        Body::Chunked => limits.body.saturating_add(CHUNK_SLACK),
    };
    exchange(&client, &upstream, early, relayed, &entrance.name);
}

/// A place of the server's for a head that passes its checks; the rest keep their stranger's
/// place while the server refuses them.
fn seat(place: &mut Place, head: &Head, entrance: &Entrance) -> Result<(), NoSeat> {
    if (entrance.admit)(&head.asked, entrance.port) {
        place.take_seat()
    } else {
        Ok(())
    }
}

/// The body to the server (at most `relayed` bytes, on a thread of its own) while the answer
/// comes back on this one.
fn exchange(client: &TcpStream, upstream: &UnixStream, early: Vec<u8>, relayed: usize, name: &str) {
    let answered = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if relayed > 0 {
            let answered = &answered;
            let sender = std::thread::Builder::new()
                .name(format!("{name}-send"))
                .spawn_scoped(scope, move || {
                    send(client, upstream, early, relayed, answered)
                });
            if sender.is_err() {
                // No thread for the body: the server gets none, and answers what it makes of it.
                let _ = upstream.shutdown(Shutdown::Write);
            }
        }
        answer(client, upstream, &answered);
    });
}

/// The body, from `early` (read with the head) on, at most `relayed` bytes and only until the
/// answer or the deadline; then the client's late bytes are dropped for a moment.
fn send(
    client: &TcpStream,
    upstream: &UnixStream,
    early: Vec<u8>,
    relayed: usize,
    answered: &AtomicBool,
) {
    let deadline = Instant::now() + BODY_DEADLINE;
    let first = early.len().min(relayed);
    let mut left = relayed - first;
    let mut open = (&*upstream).write_all(&early[..first]).is_ok();
    let mut piece = [0u8; 16 * 1024];
    while open && left > 0 && !answered.load(Ordering::SeqCst) && Instant::now() < deadline {
        let wanted = left.min(piece.len());
        match read_slice(client, &mut piece[..wanted]) {
            Some(0) => continue,
            Some(n) => {
                open = (&*upstream).write_all(&piece[..n]).is_ok();
                left -= n;
            }
            None => break,
        }
    }
    // The body ends here for the server: whole, or cut off (a chunked one at its limit, or the
    // answer came first, the deadline passed or the client left), so nothing waits for more.
    let _ = upstream.shutdown(Shutdown::Write);
    linger(client, answered, deadline);
}

/// Drops what the client still sends, until it closes, or [`LINGER`] after the answer (or
/// after `deadline`, should no answer come).
fn linger(client: &TcpStream, answered: &AtomicBool, deadline: Instant) {
    let mut until = deadline + LINGER;
    let mut seen = false;
    let mut piece = [0u8; 16 * 1024];
    while Instant::now() < until {
        if !seen && answered.load(Ordering::SeqCst) {
            seen = true;
            until = until.min(Instant::now() + LINGER);
        }
        if read_slice(client, &mut piece).is_none() {
            return;
        }
    }
}

/// One read of at most [`SLICE`]: `Some(0)` when nothing came in that time, `None` when the
/// client has closed or failed.
fn read_slice(client: &TcpStream, piece: &mut [u8]) -> Option<usize> {
    if client.set_read_timeout(Some(SLICE)).is_err() {
        return None;
    }
    loop {
        match (&mut &*client).read(piece) {
            Ok(0) => return None,
            Ok(n) => return Some(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if timed_out(&e) => return Some(0),
            Err(_) => return None,
        }
    }
}

/// The server's answer, to the client as it comes, its head saying the connection closes; the
/// body stops going to the server at the answer's first bytes. Closes the client's side once
/// it is all written.
fn answer(client: &TcpStream, upstream: &UnixStream, answered: &AtomicBool) {
    let mut piece = [0u8; 16 * 1024];
    // The answer's head, until it is whole (or too long to be one).
    let mut head = Some(Vec::new());
    loop {
        let n = match (&mut &*upstream).read(&mut piece) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if !answered.swap(true, Ordering::SeqCst) {
            let _ = upstream.shutdown(Shutdown::Write);
        }
        let sent = match head.take() {
            None => (&mut &*client).write_all(&piece[..n]),
            Some(mut whole) => {
                whole.extend_from_slice(&piece[..n]);
                match closing(&whole) {
                    Some(rewritten) => (&mut &*client).write_all(&rewritten),
                    None if whole.len() < head::MAX_HEAD => {
                        head = Some(whole);
                        continue;
                    }
                    None => (&mut &*client).write_all(&whole),
                }
            }
        };
        if sent.is_err() {
            break;
        }
    }
    if let Some(head) = head.filter(|head| !head.is_empty()) {
        let _ = (&mut &*client).write_all(&head);
    }
    answered.store(true, Ordering::SeqCst);
    // A client that went away ends a stream the server is still writing.
    let _ = upstream.shutdown(Shutdown::Both);
    let _ = client.shutdown(Shutdown::Write);
}

/// `answer` with `Connection: close` in its head (tiny_http never writes one), once its head is
/// whole; an upgrade's `Connection: upgrade` stays.
fn closing(answer: &[u8]) -> Option<Vec<u8>> {
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n")? + 2;
    let says = answer[..end]
        .split(|&b| b == b'\n')
        .any(|line| line.len() > 11 && line[..11].eq_ignore_ascii_case(b"connection:"));
    if says {
        return Some(answer.to_vec());
    }
    Some([&answer[..end], b"Connection: close\r\n", &answer[end..]].concat())
}

/// Answers at the gate: `response`, then the connection closes.
pub(super) fn refuse(client: &TcpStream, response: HttpResponse) {
    if (&mut &*client).write_all(&gate_answer(response)).is_ok() {
        let _ = client.shutdown(Shutdown::Write);
        let answered = AtomicBool::new(true);
        linger(client, &answered, Instant::now());
    }
}

/// `response` as HTTP/1.1 bytes, for a connection tiny_http never had.
pub(super) fn gate_answer(response: HttpResponse) -> Vec<u8> {
    let mut bytes = Vec::new();
    // Into memory, from memory: nothing here can fail.
    let _ = response.raw_print(&mut bytes, tiny_http::HTTPVersion(1, 1), &[], false, None);
    closing(&bytes).unwrap_or(bytes)
}

fn refusal_response(refusal: Refusal, limits: &Limits) -> HttpResponse {
    let (status, error) = match refusal {
        Refusal::TooBig => return (limits.too_big)(),
        Refusal::BadLength => (
            400,
            "Content-Length is not a number of bytes: send the body's length in bytes",
        ),
        Refusal::TooLong => (
            431,
            "the request's headers are over 16 KB: send fewer or shorter headers",
        ),
        Refusal::TooSlow | Refusal::Gone => (
            408,
            "the request's headers took too long to arrive: send them at once",
        ),
    };
    json_response(status, &json!({"ok": false, "error": error}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_says_the_connection_closes_once_its_head_is_whole() {
        let plain = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(
            closing(plain).unwrap(),
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
        );
        let upgrade = b"HTTP/1.1 200 OK\r\nConnection: upgrade\r\nUpgrade: sse\r\n\r\ndata";
        assert_eq!(closing(upgrade).unwrap(), upgrade);
        assert_eq!(closing(b"HTTP/1.1 200 OK\r\nContent-Len"), None);
        let refused = gate_answer(busy());
        let refused = String::from_utf8(refused).unwrap();
        assert!(refused.starts_with("HTTP/1.1 503 "), "{refused}");
        assert!(refused.contains("\r\nConnection: close\r\n"), "{refused}");
    }

    #[test]
    fn a_whole_head_with_the_token_there_when_taken_is_seated_before_newer_strangers_come() {
        use super::super::places::{Places, STRANGERS};
        use std::net::TcpListener;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let entrance = Entrance {
            socket: std::path::PathBuf::new(),
            name: "test".into(),
            limits: Limits {
                body: 0,
                connections: 4,
                too_big: busy,
            },
            port: 1,
            admit: Box::new(|request, _| request.field("X-Token") == Some("let-in")),
            places: Places::new(4),
        };
        let take = |sent: &[u8]| {
            let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            client.write_all(sent).unwrap();
            let (server, _) = listener.accept().unwrap();
            let mut place = entrance.places.enter(&server).unwrap();
            // Taken once all it sent has come, as under a flood.
            let mut seen = vec![0u8; sent.len()];
            while server.peek(&mut seen).unwrap() < sent.len() {}
            let arrived = arrive(&server, &mut place, &entrance);
            (client, server, place, arrived)
        };
        let with = b"GET / HTTP/1.1\r\nX-Token: let-in\r\n\r\n";
        let (_c1, _s1, mut seated, arrived) = take(with);
        assert_eq!(arrived, with);
        let without = b"GET / HTTP/1.1\r\nX-Token: no\r\n\r\n";
        let (_c2, _s2, mut stranger, _) = take(without);
        let half = b"GET / HTTP/1.1\r\nX-Token: let-in\r\n";
        let (_c3, _s3, mut halfway, _) = take(half);
        let newer: Vec<_> = (0..STRANGERS).map(|_| take(b"G")).collect();
        assert_eq!(seated.take_seat(), Ok(()));
        assert_eq!(stranger.take_seat(), Err(NoSeat::LetGo));
        assert_eq!(halfway.take_seat(), Err(NoSeat::LetGo));
        drop(newer);
    }
}
