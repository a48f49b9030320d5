//! The Blender tools and `!blender` through the built binary, against a local TCP server that
//! speaks blender-mcp's add-on protocol as ahujasid/blender-mcp's addon.py does: it reads until
//! the bytes parse as one JSON object `{"type", "params"}`, records it, and answers one JSON
//! object `{"status": "success", "result": …}` or `{"status": "error", "message": …}` with no
//! framing. Nothing was recorded from a real Blender: the results below follow addon.py's
//! get_scene_info, get_object_info, execute_code and get_viewport_screenshot.

mod repl;
mod tools;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Output;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{ReplayServer, Reply, TempDir, marvin};

/// How the fake add-on answers one command.
pub enum Answer {
    /// `{"status": "success", "result": …}`, in one write.
    Result(Value),
    /// `{"status": "error", "message": …}`, as addon.py says a failed handler.
    Error(&'static str),
    /// This JSON, in two writes with a pause between (the client must wait for the rest).
    Split(Value),
    /// These bytes, then the connection closed.
    Raw(&'static [u8]),
    /// Nothing: the connection is held open until the client closes it.
    Silent,
}

type Answering = dyn FnMut(&Value) -> Answer + Send;

/// The fake add-on: every command it got, in order.
pub struct Addon {
    pub port: u16,
    commands: Arc<Mutex<Vec<Value>>>,
    /// How many connections left unanswered the client has closed.
    hung_up: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Addon {
    pub fn start(answer: impl FnMut(&Value) -> Answer + Send + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let commands = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let hung_up = Arc::new(AtomicUsize::new(0));
        let (seen, stopped, closed) = (commands.clone(), stop.clone(), hung_up.clone());
        let answer: Arc<Mutex<Box<Answering>>> = Arc::new(Mutex::new(Box::new(answer)));
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(mut stream) = stream else { continue };
                let Some(command) = read_command(&mut stream) else {
                    continue;
                };
                seen.lock().unwrap().push(command.clone());
                let reply = (answer.lock().unwrap())(&command);
                respond(stream, reply, &closed);
            }
        });
        Self {
            port,
            commands,
            hung_up,
            stop,
            thread: Some(thread),
        }
    }

    /// Answers every command with `result`.
    pub fn answering(result: Value) -> Self {
        Self::start(move |_| Answer::Result(result.clone()))
    }

    pub fn commands(&self) -> Vec<Value> {
        self.commands.lock().unwrap().clone()
    }

    /// How many unanswered connections the client has closed.
    pub fn hung_up(&self) -> usize {
        self.hung_up.load(Ordering::SeqCst)
    }

    /// The environment that points Marvin at this add-on.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("BLENDER_MCP_HOST", "127.0.0.1".into()),
            ("BLENDER_MCP_PORT", self.port.to_string()),
        ]
    }
}

impl Drop for Addon {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads as addon.py does: until the bytes so far parse as JSON.
fn read_command(stream: &mut TcpStream) -> Option<Value> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
        if let Ok(command) = serde_json::from_slice::<Value>(&buffer) {
            return Some(command);
        }
    }
}

/// Sends the answer (a silent one waits, on a thread of its own, for the client to hang up).
fn respond(mut stream: TcpStream, answer: Answer, hung_up: &Arc<AtomicUsize>) {
    let bytes = match answer {
        Answer::Result(result) => json!({"status": "success", "result": result}).to_string(),
        Answer::Error(message) => json!({"status": "error", "message": message}).to_string(),
        Answer::Split(value) => {
            let text = value.to_string();
            let (first, rest) = text.split_at(text.len() / 2);
            stream.set_nodelay(true).unwrap();
            stream.write_all(first.as_bytes()).unwrap();
            stream.flush().unwrap();
            // Not waiting for anything: a gap so the client reads the first half alone.
            std::thread::sleep(Duration::from_millis(100));
            rest.to_string()
        }
        Answer::Raw(bytes) => {
            let _ = stream.write_all(bytes);
            return;
        }
        Answer::Silent => {
            let hung_up = hung_up.clone();
            std::thread::spawn(move || {
                let mut sink = [0u8; 256];
                while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
                hung_up.fetch_add(1, Ordering::SeqCst);
            });
            return;
        }
    };
    let _ = stream.write_all(bytes.as_bytes());
}

/// The scene addon.py's get_scene_info reports for the default file plus a light and camera.
pub fn scene() -> Value {
    json!({
        "name": "Scene",
        "object_count": 3,
        "objects": [
            {"name": "Cube", "type": "MESH", "location": [0.0, 0.0, 0.0]},
            {"name": "Light", "type": "LIGHT", "location": [4.08, 1.01, 5.9]},
            {"name": "Camera", "type": "CAMERA", "location": [7.36, -6.93, 4.96]}
        ],
        "materials_count": 1
    })
}

/// A run of `marvin --non-interactive` with `args`, its model making `calls` in one round.
pub fn run_with(
    home: &TempDir,
    calls: &[(&str, &str, &str)],
    env: &[(&'static str, String)],
    args: &[&str],
) -> (Output, Vec<String>) {
    run_reply(home, Reply::tool_calls(calls), env, args)
}

/// [`run_with`] whose model makes the calls of `reply`.
pub fn run_reply(
    home: &TempDir,
    reply: Reply,
    env: &[(&'static str, String)],
    args: &[&str],
) -> (Output, Vec<String>) {
    let model = ReplayServer::start(vec![reply, Reply::text(&["done"])]);
    let mut command = marvin(home.path());
    // Every tool is offered: these tests are of what Blender's tools do, not of which a
    // request offers.
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("MARVIN_TOOLS", "all")
        .envs(env.iter().cloned());
    let output = command
        .args(args)
        .args(["--non-interactive", "--prompt", "help me"])
        .output()
        .unwrap();
    let results = model
        .requests()
        .get(1)
        .map(|request| request.tool_results())
        .unwrap_or_else(|| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    (output, results)
}

/// One call's result.
pub fn call(
    home: &TempDir,
    tool: &str,
    arguments: Value,
    env: &[(&'static str, String)],
) -> String {
    let (output, results) = run_with(home, &[("1", tool, &arguments.to_string())], env, &[]);
    assert_eq!(
        results.len(),
        1,
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    results[0].clone()
}
