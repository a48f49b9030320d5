//! A local server speaking enough of ntfy's protocol for the tests of questions sent to the
//! phone, and pressing a notification's button as the ntfy app would.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A server speaking enough of ntfy's protocol: publishing by `POST /TOPIC` or as JSON to
/// `POST /`, and polling with `GET /TOPIC/json?poll=1&since=ID-or-time`.
pub struct NtfyServer {
    server: std::sync::Arc<tiny_http::Server>,
    /// Every message: (topic, the publish as JSON: `message`, and `title`, `actions` if any).
    pub messages: std::sync::Arc<std::sync::Mutex<Vec<(String, Value)>>>,
    /// Every request: its method, URL and `Authorization` header (empty when none).
    pub calls: std::sync::Arc<std::sync::Mutex<Vec<(String, String, String)>>>,
}

impl NtfyServer {
    pub fn start() -> Self {
        let server = std::sync::Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let messages = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(String, Value)>::new()));
        let calls = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (serving, store, log) = (server.clone(), messages.clone(), calls.clone());
        std::thread::spawn(move || {
            for mut request in serving.incoming_requests() {
                let authorization = request
                    .headers()
                    .iter()
                    .find(|h| h.field.equiv("Authorization"))
                    .map(|h| h.value.to_string())
                    .unwrap_or_default();
                log.lock().unwrap().push((
                    request.method().to_string(),
                    request.url().to_string(),
                    authorization,
                ));
                let mut body = String::new();
                let _ = request.as_reader().read_to_string(&mut body);
                let url = request.url().to_string();
                let answer =
                    if *request.method() == tiny_http::Method::Post {
                        let published = if url == "/" {
                            serde_json::from_str::<Value>(&body).unwrap()
                        } else {
                            json!({"topic": url.trim_start_matches('/'), "message": body})
                        };
                        let topic = published["topic"].as_str().unwrap().to_string();
                        store.lock().unwrap().push((topic, published));
                        "{}".to_string()
                    } else {
                        let (path, query) = url.split_once('?').unwrap();
                        let topic = path.trim_start_matches('/').trim_end_matches("/json");
                        let since = query.split("since=").nth(1).unwrap_or("");
                        let after: usize = since
                            .strip_prefix('m')
                            .and_then(|n| n.parse().ok())
                            .unwrap_or(0);
                        let messages = store.lock().unwrap();
                        messages
                        .iter()
                        .enumerate()
                        .filter(|(n, (t, _))| t == topic && *n + 1 > after)
                        .map(|(n, (_, m))| {
                            json!({"id": format!("m{}", n + 1), "event": "message", "topic": topic,
                                   "message": m["message"]}).to_string() + "\n"
                        })
                        .collect()
                    };
                let _ = request.respond(tiny_http::Response::from_string(answer));
            }
        });
        Self {
            server,
            messages,
            calls,
        }
    }

    pub fn root(&self) -> String {
        format!(
            "http://127.0.0.1:{}",
            self.server.server_addr().to_ip().unwrap().port()
        )
    }

    /// The first message on `topic` that has buttons, waited for.
    pub fn asked(&self, topic: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let found = self.messages.lock().unwrap().iter().find_map(|(t, m)| {
                (t == topic && m["actions"].as_array().is_some_and(|a| !a.is_empty()))
                    .then(|| m.clone())
            });
            if let Some(message) = found {
                return message;
            }
            assert!(Instant::now() < deadline, "nothing was asked on {topic}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Presses a notification's button: its HTTP action, as the ntfy app would send it.
pub fn press(button: &Value) {
    let url = button["url"].as_str().unwrap();
    let (host, path) = url.trim_start_matches("http://").split_once('/').unwrap();
    let body = button["body"].as_str().unwrap();
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(
        stream,
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    let _ = std::io::Read::read_to_string(&mut stream, &mut reply);
}
