//! `!v` and `!voice` under a real pty: a recorder script that writes a WAV made here (a tone
//! for speech, zeros for silence), a local transcription server that reads the multipart upload
//! and answers the recorded Whisper shapes, and the model server that must receive the
//! transcript as the user's message.

mod cases;
mod errors;
mod screen;

use std::io::Cursor;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::common::pty::Pty;
use crate::common::{ReplayServer, TempDir, fixture, marvin};

pub const RATE: usize = 16_000;
pub const KEY: &str = "gsk-voice-test-key";

/// `seconds` of a loud 400 Hz square wave ("speech") or of digital silence.
pub fn sound(seconds: f64, loud: bool) -> Vec<i16> {
    let count = (seconds * RATE as f64).round() as usize;
    (0..count)
        .map(|i| match (loud, (i / 20) % 2) {
            (false, _) => 0,
            (true, 0) => 6000,
            (true, _) => -6000,
        })
        .collect()
}

/// The parts one after another.
pub fn joined(parts: &[(f64, bool)]) -> Vec<i16> {
    parts
        .iter()
        .flat_map(|&(seconds, loud)| sound(seconds, loud))
        .collect()
}

/// A mono 16-bit PCM WAV file, as arecord writes it.
pub fn wav(samples: &[i16]) -> Vec<u8> {
    let data = (samples.len() * 2) as u32;
    let mut bytes = b"RIFF".to_vec();
    bytes.extend_from_slice(&(36 + data).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00");
    bytes.extend_from_slice(&(RATE as u32).to_le_bytes());
    bytes.extend_from_slice(&(RATE as u32 * 2).to_le_bytes());
    bytes.extend_from_slice(b"\x02\x00\x10\x00data");
    bytes.extend_from_slice(&data.to_le_bytes());
    samples
        .iter()
        .for_each(|s| bytes.extend_from_slice(&s.to_le_bytes()));
    bytes
}

/// The samples of a mono 16-bit WAV with the 44-byte header above.
pub fn samples_of(wav: &[u8]) -> Vec<i16> {
    assert_eq!(&wav[..4], b"RIFF");
    assert_eq!(&wav[36..40], b"data");
    wav[44..]
        .chunks_exact(2)
        .map(|s| i16::from_le_bytes([s[0], s[1]]))
        .collect()
}

/// An executable shell script `name` in `dir`.
pub fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A recorder honouring MARVIN_RECORDER's contract (`PROGRAM OUTPUT SECONDS`): it notes its
/// arguments in `args`, copies `recording` to OUTPUT, then runs `then` (e.g. `exit 0`).
pub fn recorder(home: &TempDir, recording: &[u8], then: &str) -> PathBuf {
    let prepared = home.path().join("prepared.wav");
    std::fs::write(&prepared, recording).unwrap();
    let args = home.path().join("args");
    let body = format!(
        "echo \"$@\" > '{}'\ncp '{}' \"$1\"\n{then}",
        args.display(),
        prepared.display()
    );
    script(home.path(), "rec.sh", &body)
}

/// The REPL under a pty, talking to the model at `model_url`, transcribing at `whisper`.
pub fn repl(home: &TempDir, model_url: &str, whisper: &str, env: &[(&str, &str)]) -> Pty {
    let mut command = marvin(home.path());
    command
        .env("LLM_PROVIDER", "openai-compat")
        .env("OPENAI_COMPAT_URL", model_url)
        .env("MARVIN_MODEL", "gpt-4o")
        .env("GROQ_BASE_URL", whisper)
        .env("TERM", "xterm");
    for (name, value) in env {
        command.env(name, value);
    }
    Pty::spawn(command)
}

/// The REPL recording with `rec` and Groq's key against `whisper`, at its prompt. No model
/// answers (nothing these runs do reaches one); its server comes back to be kept alive.
pub fn recording_repl(home: &TempDir, rec: &Path, whisper: &str) -> (Pty, ReplayServer) {
    let model = ReplayServer::unused();
    let env = [
        ("MARVIN_RECORDER", rec.to_str().unwrap()),
        ("GROQ_API_KEY", KEY),
    ];
    let pty = repl(home, &model.url(), whisper, &env);
    pty.wait_for("› ");
    (pty, model)
}

/// The pid on the `n`th whole line of `file`, once a recorder (or its child) has written it.
pub fn pid_written(file: &Path, n: usize) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        if let Some(line) = text
            .split_inclusive('\n')
            .filter(|l| l.ends_with('\n'))
            .nth(n - 1)
        {
            return line.trim().parse().unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "pid {n} never written to {}",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// One part of a multipart body: (name, filename, content type, bytes).
pub type Part = (String, Option<String>, Option<String>, Vec<u8>);

/// One upload the transcription server received.
#[derive(Debug, Clone)]
pub struct Upload {
    pub path: String,
    pub authorization: Option<String>,
    pub parts: Vec<Part>,
}

impl Upload {
    pub fn field(&self, name: &str) -> Option<String> {
        self.parts
            .iter()
            .find(|part| part.0 == name)
            .map(|part| String::from_utf8_lossy(&part.3).into_owned())
    }

    pub fn file(&self) -> &Part {
        self.parts
            .iter()
            .find(|part| part.1.is_some())
            .expect("a file part")
    }
}

/// A transcription endpoint: reads the multipart body of each upload and answers with the
/// next (status, body); panics on drop if it was called when `unused`.
pub struct Whisper {
    server: Arc<tiny_http::Server>,
    port: u16,
    uploads: Arc<Mutex<Vec<Upload>>>,
    thread: Option<JoinHandle<()>>,
}

impl Whisper {
    pub fn start(answers: Vec<(u16, Vec<u8>)>) -> Self {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let port = server.server_addr().to_ip().unwrap().port();
        let uploads = Arc::new(Mutex::new(Vec::new()));
        let thread = {
            let (server, uploads) = (server.clone(), uploads.clone());
            std::thread::spawn(move || {
                let mut answers = answers.into_iter();
                while let Ok(mut request) = server.recv() {
                    uploads.lock().unwrap().push(upload(&mut request));
                    let (status, body) = answers.next().unwrap_or((500, b"{}".to_vec()));
                    let json = tiny_http::Header::from_bytes("Content-Type", "application/json");
                    let response = tiny_http::Response::new(
                        tiny_http::StatusCode(status),
                        vec![json.unwrap()],
                        Cursor::new(body.clone()),
                        Some(body.len()),
                        None,
                    );
                    let _ = request.respond(response);
                }
            })
        };
        Self {
            server,
            port,
            uploads,
            thread: Some(thread),
        }
    }

    /// GROQ_BASE_URL for it.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/openai/v1", self.port)
    }

    pub fn uploads(&self) -> Vec<Upload> {
        self.uploads.lock().unwrap().clone()
    }
}

impl Drop for Whisper {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The request as an [`Upload`], its multipart body split at the boundary its Content-Type
/// names.
fn upload(request: &mut tiny_http::Request) -> Upload {
    let header = |name: &str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.to_string().eq_ignore_ascii_case(name))
            .map(|h| h.value.to_string())
    };
    let content_type = header("Content-Type").unwrap_or_default();
    let authorization = header("Authorization");
    let boundary = content_type
        .split_once("boundary=")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    let mut body = Vec::new();
    request.as_reader().read_to_end(&mut body).unwrap();
    Upload {
        path: request.url().to_string(),
        authorization,
        parts: parts(&body, &boundary),
    }
}

fn parts(body: &[u8], boundary: &str) -> Vec<Part> {
    assert!(!boundary.is_empty(), "no multipart boundary");
    let delimiter = format!("--{boundary}");
    let mut found = Vec::new();
    let mut rest = body;
    assert!(
        rest.starts_with(delimiter.as_bytes()),
        "body starts with the boundary"
    );
    loop {
        rest = &rest[delimiter.len()..];
        if rest.starts_with(b"--") {
            return found;
        }
        rest = rest.strip_prefix(b"\r\n").expect("CRLF after the boundary");
        let end = find(rest, format!("\r\n{delimiter}").as_bytes()).expect("a closing boundary");
        let part = &rest[..end];
        let split = find(part, b"\r\n\r\n").expect("a blank line after the part's headers");
        let head = String::from_utf8_lossy(&part[..split]).into_owned();
        let value = |key: &str| {
            head.split(&format!("{key}=\""))
                .nth(1)
                .and_then(|v| v.split('"').next())
                .map(str::to_string)
        };
        let content_type = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Type: "))
            .map(str::to_string);
        found.push((
            value(" name").unwrap_or_default(),
            value("filename"),
            content_type,
            part[split + 4..].to_vec(),
        ));
        rest = &rest[end + 2..];
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The recorded doc example's `text`.
pub fn doc_text() -> String {
    let json: serde_json::Value =
        serde_json::from_slice(&fixture("apis/openai_transcription_json_docexample.json")).unwrap();
    json["text"].as_str().unwrap().to_string()
}

/// The verbose_json doc example, made valid JSON by removing its `...` line as its note says.
pub fn verbose_answer() -> Vec<u8> {
    let text = String::from_utf8(fixture(
        "apis/openai_transcription_verbose_json_segments_docexample.txt",
    ))
    .unwrap();
    let valid: Vec<&str> = text.lines().filter(|l| l.trim() != "...").collect();
    let valid = valid.join("\n").replace("},\n  ],", "}\n  ],");
    serde_json::from_str::<serde_json::Value>(&valid).expect("valid after removing `...`");
    valid.into_bytes()
}

/// Waits until process `pid` is gone (or a zombie nobody reaped yet).
pub fn gone(pid: i32) {
    let deadline = Instant::now() + Duration::from_secs(20);
    // SAFETY: signal 0 only asks whether the process exists.
    while unsafe { libc::kill(pid, 0) } == 0 && !zombie(pid) {
        assert!(
            Instant::now() < deadline,
            "the recorder (or its child) {pid} lives on"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'))
    })
}
