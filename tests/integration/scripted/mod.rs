//! A raw TCP server whose every connection follows a script: answer late or never, stream
//! slowly, stream without end (bytes made as they are sent, never held), close before any
//! byte, echo the request's headers back. For what a replay of recorded bytes cannot show.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// What one connection does once its request has been read.
pub type Script = Box<dyn FnOnce(&mut Conn) + Send>;

/// One accepted connection and the request read from it.
pub struct Conn {
    stream: TcpStream,
    /// The request line and headers as sent, e.g. `authorization: Bearer sk-...`.
    pub head: String,
}

impl Conn {
    /// The value of request header `name`.
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_string())
        })
    }

    /// Sends a status line and headers, then a body sent in chunks.
    pub fn start(&mut self, status: u16, content_type: &str) {
        let head = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        );
        let _ = self.stream.write_all(head.as_bytes());
    }

    /// Sends one chunk of the body (nothing for no bytes: an empty chunk would end the
    /// body); false once the client has gone.
    pub fn chunk(&mut self, bytes: &[u8]) -> bool {
        if bytes.is_empty() {
            return true;
        }
        let framed = [format!("{:x}\r\n", bytes.len()).as_bytes(), bytes, b"\r\n"].concat();
        self.stream.write_all(&framed).is_ok() && self.stream.flush().is_ok()
    }

    /// Ends the chunked body.
    pub fn end(&mut self) {
        let _ = self.stream.write_all(b"0\r\n\r\n");
    }

    /// A whole answer with a known length.
    pub fn reply(&mut self, status: u16, headers: &[(&str, &str)], body: &[u8]) {
        let mut head = format!("HTTP/1.1 {status} X\r\nContent-Length: {}\r\n", body.len());
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("Connection: close\r\n\r\n");
        let _ = self.stream.write_all(head.as_bytes());
        let _ = self.stream.write_all(body);
    }

    /// Sends `make()` chunk after chunk until the client hangs up.
    pub fn endless(&mut self, mut make: impl FnMut() -> Vec<u8>) {
        while self.chunk(&make()) {}
    }

    /// Says nothing and keeps the connection open until the client hangs up.
    pub fn hold(&mut self) {
        let mut sink = [0u8; 1024];
        while matches!(self.stream.read(&mut sink), Ok(n) if n > 0) {}
    }

    /// Closes the connection without a byte of answer.
    pub fn close(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// A pause the script makes on purpose (a slow server), not a wait for something.
    pub fn pause(&self, millis: u64) {
        std::thread::sleep(Duration::from_millis(millis));
    }
}

/// Serves connection `i` with `scripts[i]`; later connections are closed at once.
pub struct ScriptServer {
    port: u16,
    heads: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl ScriptServer {
    pub fn start(scripts: Vec<Script>) -> Self {
        Self::start_with(|_| scripts)
    }

    /// A server whose scripts may name its own root URL (`http://127.0.0.1:PORT`).
    pub fn start_with(scripts: impl FnOnce(&str) -> Vec<Script>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let scripts = scripts(&format!("http://127.0.0.1:{port}"));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let seen = heads.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let accept = std::thread::spawn(move || {
            let scripts = Arc::new(Mutex::new(scripts.into_iter()));
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { break };
                let (seen, scripts) = (seen.clone(), scripts.clone());
                // Each connection on its own thread: a held one must not stop the next.
                std::thread::spawn(move || serve(stream, &scripts, &seen));
            }
        });
        Self {
            port,
            heads,
            stop,
            accept: Some(accept),
        }
    }

    /// The base URL, as OPENAI_COMPAT_URL takes it.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The server's root, for Ollama.
    pub fn root(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// How many requests arrived.
    pub fn requests(&self) -> usize {
        self.heads.lock().unwrap().len()
    }
}

/// Serves one connection with the next script; a question about the model (which Marvin asks
/// before its first chat) is answered 404 and takes none.
fn serve(
    mut stream: TcpStream,
    scripts: &Mutex<std::vec::IntoIter<Script>>,
    seen: &Mutex<Vec<String>>,
) {
    let Some(head) = crate::common::unless_about_the_model(&mut stream) else {
        return;
    };
    let Some(script) = scripts.lock().unwrap().next() else {
        return;
    };
    seen.lock().unwrap().push(head.clone());
    let mut conn = Conn { stream, head };
    script(&mut conn);
    let _ = conn.stream.flush();
}

impl Drop for ScriptServer {
    fn drop(&mut self) {
        // Wake accept() so the thread sees the flag and ends.
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

/// One streamed text delta as an event.
pub fn text_event(text: &str) -> Vec<u8> {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}}]});
    format!("data: {chunk}\n\n").into_bytes()
}

/// The usage chunk and `[DONE]` that end a stream.
pub const STREAM_END: &str = "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n";

/// Marvin against the OpenAI-compatible server at `url`, in a clean environment.
pub fn compat(home: &crate::common::TempDir, url: &str) -> std::process::Command {
    let mut command = crate::common::marvin(home.path());
    command
        .env("LLM_PROVIDER", "openai-compat")
        .env("OPENAI_COMPAT_URL", url);
    command
}
