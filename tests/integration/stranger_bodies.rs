//! Strangers' request bodies against Marvin's loopback servers, through the built binary: a
//! body of 100 TB announced (tiny_http allocated it to read it away, and the process aborted:
//! `marvin serve`, or the REPL with its conversation while a form was open) and a body held
//! back after its first byte (its refusal held the gateway's only accept loop) leave every
//! server answering the next request. The Spotify sign-in's callback is in
//! `everyday_spotify::sign_in`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::json;

use crate::common::{TempDir, http_exchange};
use crate::gateway::Gateway;
use crate::interview::{answer_form, open_form};

/// A POST to `path` without a token, announcing a body of 100 TB and sending none; what comes
/// back, read to the end.
fn announce_100_tb(port: u16, path: &str) -> String {
    http_exchange(
        port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: 100000000000000\r\n\r\n"
        ),
    )
}

#[test]
fn a_body_of_100_tb_announced_to_marvin_serve_is_refused_and_the_next_request_answered() {
    let home = TempDir::new("stranger-huge-serve");
    // No model is called: a provider address nothing answers on will do.
    let gateway = Gateway::start(&home, "http://127.0.0.1:9/v1");
    let refused = announce_100_tb(gateway.port, "/api/sessions");
    let (status, sessions) = gateway.call("GET", "/api/sessions", None);
    assert_eq!(status, 200, "{sessions}");
    assert!(refused.starts_with("HTTP/1.1 413 "), "{refused}");
    assert!(refused.contains("\r\nConnection: close\r\n"), "{refused}");
    assert!(
        refused.ends_with(
            r#"{"error":"the body is larger than 1 MB: send a shorter message or answer"}"#
        ),
        "{refused}"
    );
}

#[test]
fn a_body_of_100_tb_announced_to_an_open_form_is_refused_and_the_form_takes_its_answers() {
    let home = TempDir::new("stranger-huge-form");
    let (_server, mut pty, port, token) = open_form(&home);
    let refused = announce_100_tb(port, "/submit");
    answer_form(&pty, port, &token);
    assert!(pty.leave().success());
    assert!(refused.starts_with("HTTP/1.1 413 "), "{refused}");
    assert!(refused.contains("at most 15 MB"), "{refused}");
}

#[test]
fn a_stranger_holding_its_body_back_keeps_no_one_at_marvin_serve_waiting() {
    let home = TempDir::new("stranger-trickle-serve");
    // No model is called: a provider address nothing answers on will do.
    let gateway = Gateway::start(&home, "http://127.0.0.1:9/v1");
    let port = gateway.port;
    // 100 KB announced (over the 1 KB tiny_http reads itself before the gateway sees the
    // request), one byte sent, the socket kept.
    let mut stranger = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stranger
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        stranger,
        "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{{"
    )
    .unwrap();
    // Refused on its headers: the gateway has its request in hand.
    let mut status = [0u8; 12];
    stranger.read_exact(&mut status).unwrap();
    assert_eq!(&status, b"HTTP/1.1 401");
    let (status, made) = gateway.call("POST", "/api/sessions", Some(json!({})));
    assert_eq!(status, 201, "{made}");
    // And the stranger's connection is closed after its answer, its body unread.
    let mut rest = String::new();
    stranger.read_to_string(&mut rest).unwrap();
    assert!(
        rest.ends_with(
            r#""error":"the token is missing or wrong: use the address marvin serve printed"}"#
        ),
        "{rest}"
    );
}
