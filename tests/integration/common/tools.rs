//! Driving one tool round through the built binary, for the everyday tools' tests: a replayed
//! model makes the calls and answers "done"; answers with a content type; a server that never
//! answers (what a timeout test points a service at, with MARVIN_TOOL_TIMEOUT=1).

use std::net::{TcpListener, TcpStream};
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use super::{ReplayServer, Reply, TempDir, marvin};

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

/// Runs `marvin --non-interactive --tools all` in `home` with `env` set, its model making
/// `calls` (id, tool, arguments) in one round. These tests are of what a tool does, so every
/// tool is offered (as `--tools all` does for a person); which tools a request offers is
/// tested by `tools_on_demand` and the routing tests.
pub fn run(home: &TempDir, calls: &[(&str, &str, &str)], env: &[(&str, String)]) -> Run {
    let model = ReplayServer::start(vec![Reply::tool_calls(calls), Reply::text(&["done"])]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("MARVIN_TOOLS", "all");
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

/// One tool call, its result.
pub fn call(home: &TempDir, tool: &str, arguments: &str, env: &[(&str, String)]) -> String {
    let run = run(home, &[("1", tool, arguments)], env);
    assert_eq!(run.results.len(), 1, "{}", run.stderr());
    run.results[0].clone()
}

/// One tool call whose service (the base URL in `url_var`) never answers, with
/// MARVIN_TOOL_TIMEOUT=1: what the call said when its time ran out.
pub fn call_unanswered(home: &TempDir, tool: &str, arguments: &str, url_var: &str) -> String {
    let silent = Silent::start();
    call(
        home,
        tool,
        arguments,
        &[(url_var, silent.url()), ("MARVIN_TOOL_TIMEOUT", "1".into())],
    )
}

/// MARVIN_WEB_ALLOW for the local test servers a model's address points at: a person who runs
/// a service on this machine and wants the web tools to read it allows it so.
pub fn allow_loopback() -> (&'static str, String) {
    ("MARVIN_WEB_ALLOW", "127.0.0.1".into())
}

/// An answer with a content type.
pub fn reply(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
    Reply {
        status,
        headers: vec![("Content-Type".into(), content_type.into())],
        body: body.into(),
        calls: Default::default(),
    }
}

/// A server that takes connections and never answers, until dropped.
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
        let stopped = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    return;
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
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
