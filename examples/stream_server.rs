//! A local chat-completions server for `make bench` and manual runs: answers every POST with
//! a stream of N one-word tokens, at once or paced at R tokens a second as a model sends them,
//! and can save the last request body. Anything else (a client asking about the model:
//! `/props`, `/v1/models`) gets a 404 at once, as a server that only chats answers it.
//!
//! cargo run --release --example stream_server -- [--tokens N] [--per-second R] [--port P]
//!     [--save-request FILE]

use std::io::{Cursor, Write};
use std::time::{Duration, Instant};

fn main() {
    let mut tokens = 1000usize;
    let mut port = 0u16;
    let mut save: Option<String> = None;
    let mut per_second = 0u32;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--tokens" => tokens = value().parse().expect("--tokens N"),
            "--port" => port = value().parse().expect("--port P"),
            "--save-request" => save = Some(value()),
            "--per-second" => per_second = value().parse().expect("--per-second R"),
            other => panic!("unknown argument {other}"),
        }
    }
    let body = stream_body(tokens);
    let server = tiny_http::Server::http(("127.0.0.1", port)).expect("bind");
    let port = server.server_addr().to_ip().expect("ip address").port();
    println!("http://127.0.0.1:{port}/v1");
    for mut request in server.incoming_requests() {
        if *request.method() != tiny_http::Method::Post {
            let _ = request.respond(tiny_http::Response::empty(404));
            continue;
        }
        let mut text = String::new();
        let _ = request.as_reader().read_to_string(&mut text);
        if let Some(path) = &save {
            let _ = std::fs::write(path, &text);
        }
        if per_second > 0 {
            let body = body.clone();
            std::thread::spawn(move || paced(request, &body, per_second));
            continue;
        }
        let header =
            tiny_http::Header::from_bytes("Content-Type", "text/event-stream").expect("header");
        let response = tiny_http::Response::new(
            200.into(),
            vec![header],
            Cursor::new(body.clone()),
            Some(body.len()),
            None,
        );
        let _ = request.respond(response);
    }
}

/// Sends the stream an event at a time, `per_second` of them a second, each flushed.
fn paced(request: tiny_http::Request, body: &[u8], per_second: u32) {
    let mut out = request.into_writer();
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let started = Instant::now();
    let every = Duration::from_secs(1) / per_second;
    let text = String::from_utf8_lossy(body);
    let events = text.split_inclusive("\n\n");
    if out.write_all(head.as_bytes()).is_err() {
        return;
    }
    for (n, event) in events.enumerate() {
        // On a schedule from the start, so sleeping late does not add up.
        if let Some(wait) = (every * n as u32).checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
        if out
            .write_all(event.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}

fn stream_body(tokens: usize) -> Vec<u8> {
    let mut body = String::from(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
    );
    for i in 0..tokens {
        body.push_str(&format!(
            "data: {{\"id\":\"bench\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\" word{i}\"}},\"finish_reason\":null}}]}}\n\n"
        ));
    }
    body.push_str(
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    );
    body.push_str(&format!(
        "data: {{\"choices\":[],\"usage\":{{\"prompt_tokens\":100,\"completion_tokens\":{tokens}}}}}\n\ndata: [DONE]\n\n"
    ));
    body.into_bytes()
}
