//! Strangers holding connections open against Marvin's loopback servers, through the built
//! binary: connections that never send a head, that send half of one, or that send a whole
//! head with a wrong token and hold back the body it announces. Each used to take one of the
//! server's places while its head was read (10 s), and 110 of them held `marvin serve` at 503
//! for the person with the token; now they wait in a small pool of their own, the oldest let
//! go first, and every request of the person's is answered. The Spotify sign-in's callback is in
//! `everyday_spotify::sign_in`.

use std::io::Write;
use std::net::TcpStream;

use crate::common::{TempDir, http_exchange, status_of};
use crate::gateway::Gateway;
use crate::interview::{answer_form, open_form};

/// Idle connections, more than any server has places.
const IDLE: usize = 110;
/// Of each other kind.
const SOME: usize = 10;
/// The person's requests.
const ASKED: usize = 30;

/// Connections to `port` as a stranger holds them: `IDLE` saying nothing, `SOME` stopping
/// half way through a head, and `SOME` sending `refused` (a whole head without the right
/// token) and one byte more, the start of the body it announces. The connections stay open as long as
/// what is returned is kept.
pub(crate) fn hold_strangers(port: u16, refused: &str) -> Vec<TcpStream> {
    let connect = || TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut held: Vec<TcpStream> = (0..IDLE).map(|_| connect()).collect();
    for _ in 0..SOME {
        let mut half = connect();
        write!(half, "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n").unwrap();
        held.push(half);
    }
    for _ in 0..SOME {
        let mut wrong = connect();
        write!(wrong, "{refused}{{").unwrap();
        held.push(wrong);
    }
    held
}

#[test]
fn strangers_holding_connections_keep_no_request_of_the_persons_from_marvin_serve() {
    let home = TempDir::new("stranger-conns-serve");
    // No model is called: a provider address nothing answers on will do.
    let gateway = Gateway::start(&home, "http://127.0.0.1:9/v1");
    let port = gateway.port;
    let held = hold_strangers(
        port,
        &format!(
            "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer 0123\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        ),
    );
    let answered: Vec<u16> = (0..ASKED)
        .map(|_| gateway.call("GET", "/api/sessions", None).0)
        .collect();
    assert_eq!(answered, vec![200; ASKED]);
    drop(held);
}

#[test]
fn strangers_holding_connections_keep_no_request_of_the_persons_from_an_open_form() {
    let home = TempDir::new("stranger-conns-form");
    let (_server, mut pty, port, token) = open_form(&home);
    let held = hold_strangers(
        port,
        &format!(
            "POST /submit HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Marvin-Session: 0123\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        ),
    );
    let health = format!(
        "GET /health?session={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    );
    let answered: Vec<u16> = (0..ASKED)
        .map(|_| status_of(&http_exchange(port, &health)))
        .collect();
    assert_eq!(answered, vec![200; ASKED]);
    answer_form(&pty, port, &token);
    assert!(pty.leave().success());
    drop(held);
}
