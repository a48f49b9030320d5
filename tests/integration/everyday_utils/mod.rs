//! The everyday tools of issue 14's utilities, GitHub, downloads and bookmarks families, through
//! the built binary: a replayed model calls them, local servers replay the services (recorded
//! responses in tests/fixtures/apis/, or bodies built from a service's documentation where
//! nothing was recorded), and fake `gh` and `yt-dlp` scripts stand in for those programs.

mod bookmarks;
mod downloads;
mod github;
mod utilities;

use std::net::TcpListener;
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use crate::common::{ReplayServer, Reply, TempDir, marvin};

/// A run of the binary whose model makes `calls` in one round and then answers "done".
pub struct Run {
    pub output: Output,
    /// What each call returned, in call order.
    pub results: Vec<String>,
}

impl Run {
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }
}

/// Runs `marvin --non-interactive` in `home` with `env` set, its model making `calls` (id,
/// tool, arguments) in one round.
pub fn run(home: &TempDir, calls: &[(&str, &str, &str)], env: &[(&str, String)]) -> Run {
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
    let results = match requests.get(1) {
        Some(request) => request.tool_results(),
        None => panic!(
            "the model was asked once only: {}",
            String::from_utf8_lossy(&output.stderr)
        ),
    };
    Run { output, results }
}

/// A server that takes connections and never answers, until dropped: what a timeout test
/// points a service at (with MARVIN_TOOL_TIMEOUT=1).
pub struct Silent {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Silent {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                held.extend(stream.ok());
            }
        });
        Self {
            port,
            stop,
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Silent {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop, which then sees the flag.
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A JSON answer of the service replayed from `tests/fixtures/apis/`.
pub fn api_fixture(name: &str) -> Reply {
    Reply::json(200, crate::common::fixture(&format!("apis/{name}")))
}

/// An HTML page where a service should answer with data (a captive portal, a login page).
pub fn html_page() -> Reply {
    Reply {
        status: 200,
        headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
        body: b"<!DOCTYPE html><html><body><h1>Sign in to the hotel wifi</h1></body></html>"
            .to_vec(),
    }
}
