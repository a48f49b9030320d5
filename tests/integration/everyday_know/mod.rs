//! The everyday tools of issue 14's Wikipedia, papers and feeds families, through the built
//! binary: a replayed model calls them and local servers replay the services (recorded
//! responses in tests/fixtures/apis/, or bodies built from a service's documentation where
//! nothing was recorded, which the test says).

mod academic;
mod feeds;
mod wiki;

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;

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
    stop: mpsc::Sender<()>,
}

impl Silent {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let root = format!("http://{}", listener.local_addr().unwrap());
        listener.set_nonblocking(true).unwrap();
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            let mut held: Vec<TcpStream> = Vec::new();
            // Polls for connections until the test drops the server; each one is kept open
            // and read from, never answered.
            while stopped
                .recv_timeout(std::time::Duration::from_millis(20))
                .is_err_and(|e| e == mpsc::RecvTimeoutError::Timeout)
            {
                while let Ok((mut stream, _)) = listener.accept() {
                    let _ = stream.set_nonblocking(true);
                    let _ = stream.read(&mut [0u8; 4096]);
                    held.push(stream);
                }
            }
        });
        Self { root, stop }
    }
}

impl Drop for Silent {
    fn drop(&mut self) {
        let _ = self.stop.send(());
    }
}
