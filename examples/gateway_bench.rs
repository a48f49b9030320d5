//! For `make bench`: `marvin serve` with N event-stream clients on one session while a turn
//! streams an answer, plus optionally one client that connects and never reads. Prints one
//! line: `clients delivered_ms turn_ms every_event peak_rss_kb events cpu_ms` — the time from
//! sending the message to the last client's `done`, the turn's own time as the gateway measured
//! it, whether every client got the same events, the gateway's peak memory, the events per
//! client, and the CPU time the gateway spent on the turn (in 10 ms ticks).
//!
//! Usage: gateway_bench MARVIN_BINARY PROVIDER_URL CLIENTS [--stalled]

// A benchmark starts the programs it measures: not programs for a model.
#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (binary, provider) = (&args[1], &args[2]);
    let clients: usize = args[3].parse().expect("a number of clients");
    let stalled = args.iter().any(|a| a == "--stalled");
    let home = std::env::temp_dir().join(format!("gateway-bench-{}", std::process::id()));
    let mut child = Command::new(binary)
        .arg("serve")
        .env("OPENAI_COMPAT_URL", provider)
        .env("OPENAI_COMPAT_API_KEY", "bench")
        .env("MARVIN_MODEL", "bench-model")
        .env("MARVIN_HOME", &home)
        .env("MARVIN_NO_BROWSER", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("marvin serve starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let rest = first.trim().trim_start_matches("http://127.0.0.1:");
    let (port, token) = rest.split_once("/?token=").expect("the address");
    let port: u16 = port.parse().unwrap();
    let created = request(port, token, "POST", "/api/sessions", "{}");
    let id = created
        .split("\"id\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a session id")
        .to_string();

    let (done, finished) = mpsc::channel();
    let (ready, connected) = mpsc::channel();
    for _ in 0..clients {
        let (id, token, done, ready) = (id.clone(), token.to_string(), done.clone(), ready.clone());
        std::thread::spawn(move || {
            let mut stream = events(port, &token, &id);
            ready.send(()).unwrap();
            // Read as raw bytes, as little work as a client can do: the benchmark's own threads
            // share the machine with the gateway.
            let (mut all, mut buffer) = (Vec::new(), vec![0u8; 64 * 1024]);
            let mut done_at = None;
            while let Ok(n) = stream.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                let from = all.len().saturating_sub(DONE.len());
                all.extend_from_slice(&buffer[..n]);
                done_at = done_at.or_else(|| find(&all[from..], DONE).map(|at| from + at));
                let Some(at) = done_at else {
                    continue;
                };
                // The `done` event may come in more than one read: its whole line first.
                let Some(end) = find(&all[at..], b"\n").map(|e| at + e) else {
                    continue;
                };
                let line = String::from_utf8_lossy(&all[at..end]).into_owned();
                let turn_ms: f64 = line
                    .split("\"elapsed_us\":")
                    .nth(1)
                    .and_then(|rest| rest.split([',', '}']).next())
                    .and_then(|n| n.parse::<f64>().ok())
                    .map_or(f64::NAN, |us| us / 1000.0);
                let count = occurrences(&all, b"\ndata: ");
                // What every client must have received alike: the events, without keep-alives.
                let events: Vec<u8> = String::from_utf8_lossy(&all[..end])
                    .split("\n\n")
                    .filter(|frame| frame.starts_with("id: "))
                    .flat_map(|frame| frame.bytes())
                    .collect();
                done.send((Instant::now(), count, turn_ms, events)).unwrap();
                return;
            }
        });
    }
    // Connected, and never read from: the gateway must drop it, not hold the turn or grow.
    let _stalled = stalled.then(|| events(port, token, &id));
    for _ in 0..clients {
        connected.recv().unwrap();
    }
    let cpu_before = cpu_ms(child.id());
    let started = Instant::now();
    request(
        port,
        token,
        "POST",
        &format!("/api/sessions/{id}/messages"),
        r#"{"content": "Count to one thousand."}"#,
    );
    let mut last = started;
    let mut counts = Vec::new();
    let mut streams = Vec::new();
    let mut turn_ms = f64::NAN;
    for _ in 0..clients {
        let (at, count, turn, events) = finished.recv().unwrap();
        last = last.max(at);
        counts.push(count);
        streams.push(events);
        turn_ms = turn;
    }
    let every = streams.iter().all(|s| *s == streams[0]);
    let rss = peak_rss_kb(child.id());
    let cpu = cpu_ms(child.id()) - cpu_before;
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&home);
    println!(
        "{clients} {:.1} {turn_ms:.1} {every} {rss} {} {cpu:.0}",
        (last - started).as_secs_f64() * 1000.0,
        counts[0]
    );
}

/// One request; the response's body.
fn request(port: u16, token: &str, method: &str, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}

/// An open event stream of session `id`, its headers read.
fn events(port: u16, token: &str, id: &str) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET /api/sessions/{id}/events?since=0&token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .unwrap();
    stream
}

/// The mark of the `done` event.
const DONE: &[u8] = b"\"type\":\"done\"";

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// How many times `needle` is in `haystack`.
fn occurrences(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

/// The CPU time process `pid` has used, user and system, in milliseconds.
fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: f64 = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|n| n.parse::<f64>().ok())
        .sum();
    ticks * 1000.0 / 100.0
}

/// The process's peak resident memory (VmHWM), in KB.
fn peak_rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).map(str::to_string))
        })
        .and_then(|kb| kb.parse().ok())
        .unwrap_or(0)
}
