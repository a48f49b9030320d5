//! The everyday tools of issue 14's Wikipedia, papers and feeds families, through the built
//! binary: a replayed model calls them and local servers replay the services (recorded
//! responses in tests/fixtures/apis/, or bodies built from a service's documentation where
//! nothing was recorded, which the test says).

mod academic;
mod feeds;
mod wiki;

use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use crate::common::{ReplayServer, Reply, TempDir, fixture, marvin};

/// Runs `marvin --non-interactive` in `home` with `env` set, its model making `calls` (id,
/// tool, arguments) in one round and then answering "done"; what each call returned, in call
/// order.
pub fn run(home: &TempDir, calls: &[(&str, &str, &str)], env: &[(&str, String)]) -> Vec<String> {
    let model = ReplayServer::start(vec![Reply::tool_calls(calls), Reply::text(&["done"])]);
    let mut command = marvin(home.path());
    command.env("OPENAI_COMPAT_URL", model.url());
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command
        .args(["--non-interactive", "--prompt", "help me"])
        .output()
        .unwrap();
    let requests = model.requests();
    match requests.get(1) {
        Some(request) => request.tool_results(),
        None => panic!(
            "the model was asked once only: {}",
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// One answer with a content type: a recorded fixture (`apis/NAME`) or a body.
pub fn reply(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
    Reply {
        status,
        headers: vec![("Content-Type".into(), content_type.into())],
        body: body.into(),
    }
}

/// A recorded response from tests/fixtures/apis/.
pub fn recorded(status: u16, content_type: &str, name: &str) -> Reply {
    reply(status, content_type, fixture(&format!("apis/{name}")))
}

/// A captive portal's page, where a service's data was expected.
pub fn portal() -> Reply {
    reply(
        200,
        "text/html; charset=utf-8",
        "<!DOCTYPE html><html><head><title>Hotel Wi-Fi</title></head><body><form>Log in</form></body></html>",
    )
}

/// A server that takes connections and never answers, until dropped.
pub struct Silent {
    pub root: String,
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Silent {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            // Each connection is held open, unanswered, until the server is dropped.
            let mut held = Vec::new();
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                held.extend(stream.ok());
            }
        });
        Self {
            root: format!("http://127.0.0.1:{port}"),
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Silent {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop, which then sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
