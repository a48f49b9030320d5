//! Test support: temporary directories, a tiny_http server that replays recorded provider
//! responses and records the requests, and a runner for the built binary in a clean environment.

pub mod asking;
pub mod needs;
pub mod ntfy;
pub mod offer;
pub mod pty;
pub mod screen;
pub mod tools;
pub mod webdriver;

use std::io::{Cursor, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");

pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}{name}")).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

pub use marvin::test_support::TempDir;

/// One canned answer.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Which tools it may call (see [`Calls`]).
    pub calls: Calls,
}

/// The tools a reply of the stand-in model may call. A provider's model calls what the
/// request it answers offers, so that is the rule; a test that needs another path says which.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Calls {
    /// Only tools the request it answers offered.
    #[default]
    Offered,
    /// Names no request here offered: a recording made against another client's tools, or a
    /// model that makes a name up (small local models do). Marvin must say the tool is unknown.
    MadeUp,
}

impl Reply {
    pub fn sse(body: impl Into<Vec<u8>>) -> Self {
        Self {
            status: 200,
            headers: vec![("Content-Type".into(), "text/event-stream".into())],
            body: body.into(),
            calls: Default::default(),
        }
    }

    pub fn fixture(name: &str) -> Self {
        Self::sse(fixture(name))
    }

    pub fn ndjson(body: impl Into<Vec<u8>>) -> Self {
        Self {
            status: 200,
            headers: vec![("Content-Type".into(), "application/x-ndjson".into())],
            body: body.into(),
            calls: Default::default(),
        }
    }

    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.into(),
            calls: Default::default(),
        }
    }

    /// The same reply, whose calls name tools nothing here offered (see [`Calls::MadeUp`]).
    pub fn made_up(mut self) -> Self {
        self.calls = Calls::MadeUp;
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The same answer compressed with gzip, as some services always send it.
    pub fn gzipped(mut self) -> Self {
        self.body = gzip_stored(&self.body);
        self.header("Content-Encoding", "gzip")
    }

    /// A streamed answer of plain text deltas.
    pub fn text(pieces: &[&str]) -> Self {
        let mut body = String::new();
        for piece in pieces {
            let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": piece}}]});
            body.push_str(&format!("data: {chunk}\n\n"));
        }
        body.push_str("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5}}\n\ndata: [DONE]\n\n");
        Self::sse(body)
    }

    /// A streamed answer calling tools: (id, name, arguments JSON).
    pub fn tool_calls(calls: &[(&str, &str, &str)]) -> Self {
        let list: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (id, name, args))| serde_json::json!({"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": args}}))
            .collect();
        let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": list}, "finish_reason": "tool_calls"}]});
        Self::sse(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
    }
}

/// The round in which a model opens the ticket gate before its first write (seed 002
/// invariant 21): of two `tk create` calls one is turned back as too brief, the other makes the
/// ticket (with Marvin's built-in store where tk is not installed). Prepend it to the replies of
/// a run whose model writes; the model's later requests come one later.
pub fn ticket_round() -> Reply {
    let create =
        r#"{"args": "create \"The task\" -d \"What to change and how to know it works\""}"#;
    Reply::tool_calls(&[("tk-1", "tk", create), ("tk-2", "tk", create)])
}

/// The model's call `id` of ask_user with one single-choice question whose options are
/// `labels` (each with an empty description).
pub fn ask_one(id: &str, header: &str, question: &str, labels: &[&str]) -> Reply {
    let options: Vec<Value> = labels
        .iter()
        .map(|label| serde_json::json!({"label": label, "description": ""}))
        .collect();
    let questions = serde_json::json!([{"header": header, "question": question,
        "multiSelect": false, "options": options}]);
    let arguments = serde_json::json!({ "questions": questions }).to_string();
    Reply::tool_calls(&[(id, "ask_user", &arguments)])
}

/// The database question the tests of questions ask: SQLite or PostgreSQL, as call `q1`.
pub fn database_question() -> Reply {
    ask_one(
        "q1",
        "Database",
        "Which database?",
        &["SQLite", "PostgreSQL"],
    )
}

/// `replies` after [`ticket_round`].
pub fn ticketed(replies: Vec<Reply>) -> Vec<Reply> {
    std::iter::once(ticket_round()).chain(replies).collect()
}

/// A recorded request.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub url: String,
    pub headers: Vec<(String, String)>,
    /// The body as JSON, without the time Marvin adds at the end of each of the person's
    /// messages (`[Current time (UTC): …]`): most tests compare what the person said. `sent`
    /// and `raw` have it as it went.
    pub body: Value,
    /// The body as JSON, as sent.
    pub sent: Value,
    /// The body as sent (a form, say, which is not JSON).
    pub raw: String,
}

/// `body` without the time at the end of the person's messages, in every provider's shape:
/// OpenAI's and Ollama's `messages` (text or parts), Anthropic's (blocks), Gemini's `contents`.
fn without_stamps(mut body: Value) -> Value {
    fn strip(text: &mut Value) {
        if let Some(said) = text.as_str() {
            if let Some(at) = said.rfind("\n\n[Current time (UTC): ") {
                if said.ends_with(']') && !said[at + 2..].contains('\n') {
                    *text = Value::String(said[..at].to_string());
                }
            }
        }
    }
    for (list, role, content) in [
        ("messages", "user", "content"),
        ("contents", "user", "parts"),
    ] {
        let messages = body.get_mut(list).and_then(Value::as_array_mut);
        for message in messages.into_iter().flatten() {
            if message["role"] != role {
                continue;
            }
            let Some(content) = message.get_mut(content) else {
                continue;
            };
            match content.as_array_mut() {
                Some(parts) => parts
                    .iter_mut()
                    .filter_map(|part| part.get_mut("text"))
                    .for_each(strip),
                None => strip(content),
            }
        }
    }
    body
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn messages(&self) -> &[Value] {
        self.body["messages"]
            .as_array()
            .expect("a chat request has messages")
    }

    /// The last message sent (a tool result, usually).
    pub fn last_message(&self) -> Value {
        self.messages().last().expect("a message was sent").clone()
    }

    /// The results of every tool call in the conversation sent, in call order.
    pub fn tool_results(&self) -> Vec<String> {
        results(self.messages())
    }

    /// The results of the latest tool round: the tool messages after the last assistant message.
    pub fn latest_round(&self) -> Vec<String> {
        let messages = self.messages();
        let round = messages
            .iter()
            .rposition(|m| m["role"] == "assistant")
            .map_or(0, |i| i + 1);
        results(&messages[round..])
    }

    /// The result the model got for call `id`.
    pub fn result_of(&self, id: &str) -> String {
        self.messages()
            .iter()
            .find(|m| m["tool_call_id"] == id)
            .and_then(|m| m["content"].as_str())
            .unwrap_or_else(|| panic!("no result for {id}: {:?}", self.messages()))
            .to_string()
    }

    /// The result of the last tool call in the conversation sent.
    pub fn last_tool_result(&self) -> String {
        self.tool_results().pop().expect("a tool result was sent")
    }
}

/// The contents of the tool messages among `messages`.
fn results(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            m["content"]
                .as_str()
                .expect("a tool result is text")
                .to_string()
        })
        .collect()
}

/// Replays `replies` in order to whatever asks (or answers each request by looking at it);
/// panics on drop if it was never called.
pub struct ReplayServer {
    server: Arc<tiny_http::Server>,
    port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
    /// Calls of tools that the request answered did not offer: a provider's model cannot
    /// make them, so the stand-in refuses them and the test fails.
    unoffered: Arc<Mutex<Vec<String>>>,
    thread: Option<JoinHandle<()>>,
    expect_calls: bool,
}

impl ReplayServer {
    pub fn start(replies: Vec<Reply>) -> Self {
        Self::start_with(|_| replies)
    }

    /// A server whose replies may name its own root URL (`http://127.0.0.1:PORT`).
    pub fn start_with(replies: impl FnOnce(&str) -> Vec<Reply>) -> Self {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let port = server.server_addr().to_ip().unwrap().port();
        let mut replies = replies(&format!("http://127.0.0.1:{port}")).into_iter();
        Self::serving(server, port, move |request| {
            // Marvin asks a model server about its model before the first chat: a server of
            // replies in order knows nothing to say, and keeps its replies for what they are.
            if asks_about_the_model(&request.url) {
                return None;
            }
            Some(replies.next().unwrap_or_else(|| {
                Reply::json(
                    500,
                    r#"{"error":{"message":"test server: no more replies"}}"#,
                )
            }))
        })
    }

    /// A server for several Marvin processes at once (a parent and its sub-agents), whose
    /// order of requests is not known: it answers each by looking at it. What Marvin asks a
    /// model server about its model it leaves unanswered (see [`asks_about_the_model`]).
    pub fn answering(answer: impl FnMut(&Recorded) -> Reply + Send + 'static) -> Self {
        let mut answer = answer;
        Self::answering_all(move |request| {
            (!asks_about_the_model(&request.url)).then(|| answer(request))
        })
    }

    /// A server that answers everything by looking at it, questions about the model too
    /// (`None`: 404, not recorded).
    pub fn answering_all(answer: impl FnMut(&Recorded) -> Option<Reply> + Send + 'static) -> Self {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let port = server.server_addr().to_ip().unwrap().port();
        Self::serving(server, port, answer)
    }

    /// `answer` gives `None` for a request it leaves unanswered (404) and unrecorded.
    fn serving(
        server: Arc<tiny_http::Server>,
        port: u16,
        answer: impl FnMut(&Recorded) -> Option<Reply> + Send + 'static,
    ) -> Self {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let unoffered = Arc::new(Mutex::new(Vec::new()));
        let thread = {
            let server = server.clone();
            let requests = requests.clone();
            let unoffered = unoffered.clone();
            std::thread::spawn(move || serve(&server, answer, &requests, &unoffered))
        };
        Self {
            server,
            port,
            requests,
            unoffered,
            thread: Some(thread),
            expect_calls: true,
        }
    }

    /// A server a test expects nobody to call.
    pub fn unused() -> Self {
        let mut server = Self::start(Vec::new());
        server.expect_calls = false;
        server
    }

    /// The same server, which a test expects nobody to call (what it must never reach).
    pub fn expecting_no_calls(mut self) -> Self {
        self.expect_calls = false;
        self
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The base URL, as OPENAI_COMPAT_URL takes it.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The server's root, for services whose paths are not under /v1 (Ollama, Copilot).
    pub fn root(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

/// What Marvin asks a model server about its model (window, tools): llama.cpp's `/props`,
/// the model lists of OpenAI-compatible servers and LM Studio, Ollama's `/api/show`. A test
/// server that only chats answers these 404, as a real one would.
pub fn asks_about_the_model(url: &str) -> bool {
    let path = url.split('?').next().unwrap_or(url);
    [
        "/props",
        "/v1/models",
        "/models",
        "/api/v0/models",
        "/api/show",
    ]
    .contains(&path)
}

/// Reads a request from `stream`, its body too; when it asks about the model, answers 404 and
/// returns `None`, else its head.
pub fn unless_about_the_model(stream: &mut std::net::TcpStream) -> Option<String> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(stream.try_clone().ok()?);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let _ = reader.read_exact(&mut vec![0u8; length]);
    let path = head.split_whitespace().nth(1).unwrap_or("");
    if asks_about_the_model(path) {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return None;
    }
    Some(head)
}

fn serve(
    server: &tiny_http::Server,
    mut answer: impl FnMut(&Recorded) -> Option<Reply>,
    requests: &Mutex<Vec<Recorded>>,
    unoffered: &Mutex<Vec<String>>,
) {
    while let Ok(mut request) = server.recv() {
        let mut body = String::new();
        let _ = request.as_reader().read_to_string(&mut body);
        let recorded = Recorded {
            url: request.url().to_string(),
            headers: request
                .headers()
                .iter()
                .map(|h| (h.field.to_string(), h.value.to_string()))
                .collect(),
            body: without_stamps(serde_json::from_str(&body).unwrap_or(Value::Null)),
            sent: serde_json::from_str(&body).unwrap_or(Value::Null),
            raw: body,
        };
        let Some(mut reply) = answer(&recorded) else {
            let _ = request.respond(tiny_http::Response::empty(404));
            continue;
        };
        let refused = crate::common::offer::unoffered(&recorded, &reply);
        if !refused.is_empty() {
            let message = format!(
                "the stand-in model cannot call {}: the request it answers did not offer {}",
                refused.join(", "),
                if refused.len() == 1 { "it" } else { "them" }
            );
            unoffered.lock().unwrap().push(message.clone());
            reply = Reply::json(
                400,
                serde_json::json!({"error": {"message": message}}).to_string(),
            );
        }
        requests.lock().unwrap().push(recorded);
        let headers = reply
            .headers
            .iter()
            .map(|(k, v)| tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).unwrap())
            .collect();
        let length = reply.body.len();
        let response = tiny_http::Response::new(
            tiny_http::StatusCode(reply.status),
            headers,
            Cursor::new(reply.body),
            Some(length),
            None,
        );
        let _ = request.respond(response);
    }
}

impl Drop for ReplayServer {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        if self.expect_calls && !std::thread::panicking() {
            assert!(
                !self.requests.lock().unwrap().is_empty(),
                "the test server was never called"
            );
        }
        let unoffered = self.unoffered.lock().unwrap();
        if !unoffered.is_empty() && !std::thread::panicking() {
            panic!("{}", unoffered.join("\n"));
        }
    }
}

/// A server that sends the start of a stream, then holds the connection silent until dropped.
pub struct StallServer {
    pub port: u16,
    stop: Arc<Mutex<bool>>,
    thread: Option<JoinHandle<()>>,
}

impl StallServer {
    pub fn start(first_events: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(Mutex::new(false));
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{first_events}\r\n",
            first_events.len()
        );
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            listener.set_nonblocking(true).unwrap();
            let mut held = Vec::new();
            while !*flag.lock().unwrap() {
                if let Ok((mut stream, _)) = listener.accept() {
                    stream.set_nonblocking(false).unwrap();
                    if unless_about_the_model(&mut stream).is_none() {
                        continue;
                    }
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.flush();
                    held.push(stream);
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        });
        Self {
            port,
            stop,
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

impl Drop for StallServer {
    fn drop(&mut self) {
        *self.stop.lock().unwrap() = true;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A server that sends the start of a stream and then closes the connection mid-answer.
pub struct DropServer {
    pub port: u16,
    thread: Option<JoinHandle<()>>,
}

impl DropServer {
    pub fn start(first_events: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{first_events}\r\n",
            first_events.len()
        );
        let thread = std::thread::spawn(move || {
            while let Ok((mut stream, _)) = listener.accept() {
                if unless_about_the_model(&mut stream).is_none() {
                    continue;
                }
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.flush();
                let _ = stream.shutdown(std::net::Shutdown::Both);
                break;
            }
        });
        Self {
            port,
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

impl Drop for DropServer {
    fn drop(&mut self) {
        // Unblock accept() if nobody connected, then wait for the thread.
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A port on which nothing listens.
/// Sends `request` (a whole HTTP request, as written) to 127.0.0.1:`port` and reads the
/// answer to its end (20 s at most): for the tests that speak to Marvin's servers byte by byte.
pub fn http_exchange(port: u16, request: &str) -> String {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

/// The status code of an answer `http_exchange` read; 0 when there is none.
pub fn status_of(answer: &str) -> u16 {
    answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

pub fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Seconds since 1970, for token expiry times.
pub fn epoch() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Copies the user tool `name` from `tests/fixtures/SET/` (a directory with its `tool.json`
/// and script) into the MARVIN_HOME of `home`, as a person installs one.
pub fn install_user_tool(home: &Path, set: &str, name: &str) {
    let from = Path::new(FIXTURES).join(set).join(name);
    let to = home.join("marvin-home/tools").join(name);
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Where the tests' stand-in programs note what they saw (`home/logs`, made here). The sandbox
/// lets the programs Marvin starts write only in the working and temp dirs; the test's home is
/// in the temp dir, but its top level holds Marvin's home (a secret store) and so takes no new
/// entries: a directory made beforehand does.
pub fn logs(home: &Path) -> PathBuf {
    let dir = home.join("logs");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A working directory of its own in `home` (`home/work`, made here), for runs whose commands
/// make files: the top of the home holds Marvin's home, where the sandbox lets no program add
/// entries.
pub fn work(home: &Path) -> PathBuf {
    let dir = home.join("work");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::canonicalize(dir).unwrap()
}

/// The built binary with an empty environment: no keys, MARVIN_HOME and HOME in `home`.
pub fn marvin(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_marvin"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("MARVIN_HOME", home.join("marvin-home"))
        // Never a model server that happens to run on this machine: a test names its ports.
        .env("MARVIN_LOCAL_PORTS", "none")
        .current_dir(home)
        .stdin(Stdio::null());
    command
}

/// The binary in `home` against the OpenAI-compatible server at `url`, working in `project`.
pub fn in_project(home: &Path, url: &str, project: &Path) -> Command {
    let mut command = marvin(home);
    command
        .env("OPENAI_COMPAT_URL", url)
        .arg("--working-dir")
        .arg(project);
    command
}

/// Runs `command --non-interactive --prompt PROMPT` to the end (see [`finish`]).
/// `marvin ARGS` in `home` against `server` (the openai-compat provider), which must succeed.
pub fn answered(home: &TempDir, server: &ReplayServer, args: &[&str]) -> Output {
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .args(args)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    output
}

pub fn non_interactive(command: &mut Command, prompt: &str) -> Output {
    finish(command.args(["--non-interactive", "--prompt", prompt]))
}

/// The command's output, stdout and stderr captured. A run that never ends (a hang is the bug
/// some tests guard against) is killed after five minutes and fails the test instead of
/// stalling the suite.
fn finish(command: &mut Command) -> Output {
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || sender.send(child.wait_with_output()));
    match receiver.recv_timeout(Duration::from_secs(300)) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            // SAFETY: kill(2) on the pid of our own child, which has not been reaped.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("marvin hung and was killed after 5 minutes");
        }
    }
}

/// Runs `command` with `input` on stdin and returns its output.
pub fn run_with_stdin(mut command: Command, input: &str) -> Output {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The last line of stderr, which in non-interactive mode must be the cost line.
pub fn last_stderr_line(output: &Output) -> String {
    stderr(output).lines().last().unwrap_or("").to_string()
}

/// Plain git in `dir`, as a test sets a repository up or looks at it (never steered by a
/// GIT_DIR of the environment, never reading the tester's own configuration); its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", stderr(&output));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `data` as a gzip stream of stored (uncompressed) deflate blocks: a real gzip file any
/// decoder reads, built without a compression crate.
pub fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    let mut blocks = data.chunks(0xffff).peekable();
    if blocks.peek().is_none() {
        out.extend([1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        let len = block.len() as u16;
        out.push(u8::from(blocks.peek().is_none()));
        out.extend(len.to_le_bytes());
        out.extend((!len).to_le_bytes());
        out.extend(block);
    }
    out.extend(crc32(data).to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in data {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
