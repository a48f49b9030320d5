//! The everyday tools' way to the web, the one service client every network tool goes through:
//! base URLs and keys from Config (the services table), one paced [`net::Client`] per service,
//! a time limit per call (MARVIN_TOOL_TIMEOUT), a size cap, Ctrl+C, a `Retry-After` honoured
//! once, and every failure turned into one sentence that names the service and says what to do.
//! Keys never appear in a result or an error.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use crate::cancel::CancelToken;
use crate::config::{Endpoints, WebSettings};
use crate::net::{self, Failure, ProxyRules, Secrets, Transport};
use crate::services::Service;

/// The most of an answer a tool reads.
pub(crate) const MAX_ANSWER: u64 = 5 * 1024 * 1024;
/// A `Retry-After` longer than this is not waited for.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(10);

/// An answer: its status, content type and body (at most the cap).
#[derive(Debug)]
pub(crate) struct Fetched {
    pub(crate) status: u16,
    pub(crate) content_type: Option<String>,
    pub(crate) body: Vec<u8>,
    /// What a `Retry-After` header asked for, in seconds.
    pub(crate) retry_after: Option<Duration>,
}

impl Fetched {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub(crate) fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// What a download brought: its size and what the server said of it.
#[derive(Debug)]
pub(crate) struct Downloaded {
    pub(crate) bytes: u64,
    /// The Content-Disposition header, which may name the file.
    pub(crate) disposition: Option<String>,
    pub(crate) content_type: Option<String>,
    /// Where the file came from in the end, after redirects.
    pub(crate) final_url: String,
}

/// What a call asks for, besides where it goes.
#[derive(Default)]
pub(crate) struct Call<'a> {
    pub(crate) query: &'a [(&'a str, &'a str)],
    pub(crate) headers: &'a [(&'a str, &'a str)],
    /// A form to POST instead of a GET.
    pub(crate) form: Option<&'a [(&'a str, &'a str)]>,
    /// The answer's cap; [`MAX_ANSWER`] when zero.
    pub(crate) cap: u64,
}

/// The web of a session. Clones share the clients.
#[derive(Clone, Default)]
pub(crate) struct Web {
    settings: Arc<WebSettings>,
    endpoints: Endpoints,
    proxy: ProxyRules,
    clients: Arc<Mutex<HashMap<&'static str, Arc<net::Client>>>>,
}

impl std::fmt::Debug for Web {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Web")
            .field("timeout", &self.settings.timeout)
            .finish_non_exhaustive()
    }
}

impl Web {
    pub(crate) fn new(settings: WebSettings, endpoints: Endpoints, proxy: ProxyRules) -> Self {
        Self {
            settings: Arc::new(settings),
            endpoints,
            proxy,
            clients: Arc::default(),
        }
    }

    pub(crate) fn settings(&self) -> &WebSettings {
        &self.settings
    }

    /// The proxy a program fetching `url` itself should use (HTTPS_PROXY, NO_PROXY as for
    /// every request), without its user and password, which a command line would show.
    pub(crate) fn proxy_for(&self, url: &str) -> Option<String> {
        self.proxy
            .for_url(url)
            .map(|proxy| net::without_userinfo(&proxy))
    }

    /// The service's base URL (its variable, else its default), without a trailing `/`.
    pub(crate) fn base(&self, service: &Service) -> String {
        self.endpoints
            .url(service)
            .trim_end_matches('/')
            .to_string()
    }

    /// The service's key, if the person has one (the environment, else `~/.ssh/<NAME>`).
    pub(crate) fn key(&self, service: &Service) -> Option<String> {
        let var = service.credential.variables().first()?;
        self.settings.key(var)
    }

    /// One call to `path` (after the service's base URL); any status comes back as it is.
    pub(crate) fn call(
        &self,
        service: &Service,
        path: &str,
        call: &Call<'_>,
        cancel: &CancelToken,
    ) -> Result<Fetched, String> {
        let mut url = format!("{}{path}", self.base(service));
        if !call.query.is_empty() {
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&encode_pairs(call.query));
        }
        let client = self.client_for(service, &url);
        let key = self.key(service);
        let mut fetched = self.once(&client, service.name, &url, call, key.as_deref(), cancel)?;
        if let Some(wait) = retry_wait(&fetched) {
            if cancel.sleep(wait) {
                return Err(format!("The {} request was cancelled.", service.name));
            }
            fetched = self.once(&client, service.name, &url, call, key.as_deref(), cancel)?;
        }
        Ok(fetched)
    }

    /// A JSON answer from a call, or a sentence for the model: an error status with what the
    /// service said, an HTML page where data was expected, a body that is not JSON.
    pub(crate) fn json(
        &self,
        service: &Service,
        path: &str,
        call: &Call<'_>,
        cancel: &CancelToken,
    ) -> Result<Value, String> {
        let fetched = self.call(service, path, call, cancel)?;
        self.read_json(service, &fetched)
            .map_err(|message| self.secrets(service).redact(&message))
    }

    /// The JSON of an answer already fetched, or the sentence [`Web::json`] gives.
    pub(crate) fn read_json(&self, service: &Service, fetched: &Fetched) -> Result<Value, String> {
        let name = service.name;
        if net::is_html(fetched.content_type.as_deref(), &fetched.body) {
            return Err(format!(
                "{name} answered with a web page instead of data (HTTP {}): a captive portal or a proxy's login page, or {} points at the wrong server ({}). Try again later.",
                fetched.status,
                service.url_var,
                net::without_userinfo(&self.base(service))
            ));
        }
        let value: Result<Value, _> = serde_json::from_slice(&fetched.body);
        if !fetched.is_success() {
            let said = value
                .ok()
                .and_then(|v| service_message(&v))
                .unwrap_or_else(|| short(&fetched.text()));
            return Err(format!("{name} answered HTTP {}: {said}", fetched.status));
        }
        value.map_err(|e| {
            format!("{name} sent an answer that is not valid JSON ({e}). Try again later.")
        })
    }

    /// Any page on the web (browse_web, a feed, a download's start): one call with no service
    /// behind it, named by its host in errors.
    pub(crate) fn page(
        &self,
        url: &str,
        cap: u64,
        cancel: &CancelToken,
    ) -> Result<Fetched, String> {
        let host = net::host_of(url);
        let client = self.client(url, Duration::ZERO, &url_secrets(url));
        let call = Call {
            cap,
            ..Call::default()
        };
        self.once(&client, &host, url, &call, None, cancel)
    }

    /// Streams `url` into `out`, at most `cap` bytes, telling `progress` the bytes so far and
    /// the length announced. No limit on the whole: a large file takes the time it takes, and
    /// only silence longer than the tool timeout ends it.
    pub(crate) fn download(
        &self,
        url: &str,
        out: &mut dyn Write,
        cap: u64,
        progress: &mut dyn FnMut(u64, Option<u64>),
        cancel: &CancelToken,
    ) -> Result<Downloaded, String> {
        let host = net::host_of(url);
        let client = self.client(url, Duration::ZERO, &url_secrets(url));
        let send = |agent: &ureq::Agent| agent.get(url).call();
        let read = |response: net::Response| -> Result<Downloaded, String> {
            let status = response.status().as_u16();
            if !(200..300).contains(&status) {
                return Err(format!("{host} answered HTTP {status}; nothing was saved."));
            }
            let length = net::header(&response, "content-length").and_then(|l| l.parse().ok());
            if length.is_some_and(|l: u64| l > cap) {
                return Err(too_large(&host, cap));
            }
            let final_url = ureq::ResponseExt::get_uri(&response).to_string();
            let disposition = net::header(&response, "content-disposition");
            let content_type = net::header(&response, "content-type");
            let body = response.into_body().into_reader();
            let bytes = copy_capped(body, out, cap, &mut |n| progress(n, length), &host)?;
            Ok(Downloaded {
                bytes,
                disposition,
                content_type,
                final_url,
            })
        };
        client
            .exchange(cancel, url, None, send, read)
            .map_err(|failure| self.failure(failure, &host, url))
    }

    fn once(
        &self,
        client: &net::Client,
        name: &str,
        url: &str,
        call: &Call<'_>,
        key: Option<&str>,
        cancel: &CancelToken,
    ) -> Result<Fetched, String> {
        let timeout = self.settings.timeout;
        let cap = if call.cap == 0 { MAX_ANSWER } else { call.cap };
        let send = |agent: &ureq::Agent| send_request(agent, url, call, timeout);
        let read = |response: net::Response| -> Result<Fetched, String> {
            let status = response.status().as_u16();
            let content_type = net::header(&response, "content-type");
            let retry_after = net::header(&response, "retry-after")
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|secs| secs.is_finite() && *secs >= 0.0)
                .map(Duration::from_secs_f64);
            let body =
                net::read_bytes(response.into_body().into_reader(), cap).map_err(|e| match e {
                    net::BodyError::TooLarge(_) => too_large(name, cap),
                    net::BodyError::Read(e) => format!("Reading {name}'s answer failed: {e}."),
                })?;
            Ok(Fetched {
                status,
                content_type,
                body,
                retry_after,
            })
        };
        client
            .exchange(cancel, url, key, send, read)
            .map_err(|failure| self.failure(failure, name, url))
    }

    fn failure(&self, failure: Failure<String>, name: &str, url: &str) -> String {
        let secs = self.settings.timeout.as_secs();
        match failure {
            Failure::Cancelled => format!("The {name} request was cancelled."),
            Failure::Answer(message) => message,
            Failure::Transport(Transport::Silent(_)) => {
                format!("{name} request timed out after {secs}s. Try again or rephrase query.")
            }
            Failure::Transport(transport) => format!(
                "Could not reach {name} at {}: {transport}. Check the network connection, or try again later.",
                net::without_userinfo(url)
                    .split('?')
                    .next()
                    .unwrap_or_default()
            ),
        }
    }

    /// What must never show of a service: its key and any password in its base URL.
    fn secrets(&self, service: &Service) -> Secrets {
        url_secrets(&self.base(service)).with(self.key(service).as_deref())
    }

    fn client_for(&self, service: &Service, url: &str) -> Arc<net::Client> {
        let secrets = self.secrets(service);
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        clients
            .entry(service.id)
            .or_insert_with(|| Arc::new(self.build(url, service.min_interval, secrets)))
            .clone()
    }

    fn client(&self, url: &str, interval: Duration, secrets: &Secrets) -> Arc<net::Client> {
        Arc::new(self.build(url, interval, secrets.clone()))
    }

    fn build(&self, url: &str, interval: Duration, secrets: Secrets) -> net::Client {
        net::Client::new(self.settings.timeout, self.proxy.for_url(url))
            .with_secrets(secrets)
            .with_min_interval(interval)
    }
}

/// A service call, asking for a compressed answer (some services always send one, and the
/// cap counts the bytes as unpacked). Downloads do not ask: a file comes as it is stored.
fn send_request(
    agent: &ureq::Agent,
    url: &str,
    call: &Call<'_>,
    timeout: Duration,
) -> Result<net::Response, ureq::Error> {
    let headers = [("Accept-Encoding", "gzip")]
        .into_iter()
        .chain(call.headers.iter().copied());
    match call.form {
        Some(form) => {
            let mut request = agent
                .post(url)
                .config()
                .timeout_global(Some(timeout))
                .http_status_as_error(false)
                .build()
                .header("Content-Type", "application/x-www-form-urlencoded");
            for (name, value) in headers {
                request = request.header(name, value);
            }
            request.send(encode_pairs(form).as_bytes())
        }
        None => {
            let mut request = agent
                .get(url)
                .config()
                .timeout_global(Some(timeout))
                .http_status_as_error(false)
                .build();
            for (name, value) in headers {
                request = request.header(name, value);
            }
            request.call()
        }
    }
}

fn url_secrets(url: &str) -> Secrets {
    Secrets::new().with_url(url)
}

/// A 429 or 503 that says how long to wait, when that is short enough to wait for once.
fn retry_wait(fetched: &Fetched) -> Option<Duration> {
    (fetched.status == 429 || fetched.status == 503).then_some(())?;
    fetched.retry_after.filter(|wait| *wait <= MAX_RETRY_WAIT)
}

/// What a service said in its error body: the usual places for a message.
fn service_message(value: &Value) -> Option<String> {
    let candidates = [
        value.pointer("/error/message"),
        value.pointer("/error_message"),
        value.pointer("/message"),
        value.pointer("/error"),
        value.pointer("/errors/0"),
        value.pointer("/reason"),
        value.pointer("/title"),
    ];
    candidates.into_iter().flatten().find_map(|v| match v {
        Value::String(text) if !text.trim().is_empty() => Some(short(text)),
        _ => None,
    })
}

fn short(text: &str) -> String {
    let text = text.trim();
    let cut: String = text.chars().take(300).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

fn too_large(name: &str, cap: u64) -> String {
    format!(
        "{name}'s answer is larger than {} MB, more than a tool reads; ask for less (fewer results, a narrower query).",
        cap / (1024 * 1024)
    )
}

fn copy_capped(
    mut body: impl Read,
    out: &mut dyn Write,
    cap: u64,
    progress: &mut dyn FnMut(u64),
    name: &str,
) -> Result<u64, String> {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = match body.read(&mut buffer) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("The download from {name} broke off: {e}.")),
        };
        total += n as u64;
        if total > cap {
            return Err(too_large(name, cap));
        }
        out.write_all(&buffer[..n])
            .map_err(|e| format!("Writing the download failed: {e}."))?;
        progress(total);
    }
}

/// `a=1&b=two%20words`: each name and value percent-encoded as a query wants them.
pub(crate) fn encode_pairs(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(name, value)| format!("{}={}", encode(name), encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Percent-encodes everything but the unreserved characters of RFC 3986.
pub(crate) fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::{GNEWS, SEMANTIC_SCHOLAR, STACKEXCHANGE};

    /// A canned answer: status, content type, body, an extra header.
    type Canned = (
        u16,
        &'static str,
        Vec<u8>,
        Option<(&'static str, &'static str)>,
    );

    /// A local server answering each request with the next of `replies` (status, content
    /// type, body, extra header); returns its base URL and what it was asked.
    fn serve(replies: Vec<Canned>) -> (String, std::sync::mpsc::Receiver<String>) {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let base = format!("http://{}", server.server_addr().to_ip().unwrap());
        let (asked, urls) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for (status, content_type, body, header) in replies {
                let Ok(request) = server.recv() else { return };
                let _ = asked.send(request.url().to_string());
                let mut response = tiny_http::Response::from_data(body)
                    .with_status_code(status)
                    .with_header(
                        tiny_http::Header::from_bytes("Content-Type", content_type).unwrap(),
                    );
                if let Some((name, value)) = header {
                    response =
                        response.with_header(tiny_http::Header::from_bytes(name, value).unwrap());
                }
                let _ = request.respond(response);
            }
        });
        (base, urls)
    }

    fn web_at(service: &Service, base: &str, timeout: u64, key: Option<&str>) -> Web {
        let mut pairs = vec![(service.url_var, base.to_string())];
        if let Some(key) = key {
            pairs.push((service.credential.variables()[0], key.to_string()));
        }
        pairs.push(("MARVIN_TOOL_TIMEOUT", timeout.to_string()));
        let config = crate::config::Config::build(
            &crate::cli::Args::default(),
            &crate::config::Env::from_pairs(
                pairs
                    .iter()
                    .map(|(k, v)| (*k, v.as_str()))
                    .chain([("OPENAI_API_KEY", "k")]),
            ),
            std::path::Path::new("/"),
        )
        .unwrap();
        Web::new(config.web, config.endpoints, config.proxy)
    }

    /// `{"items":[{"title":"unpacked"}],"quota_remaining":299}` compressed with gzip (Python's
    /// `gzip.compress(..., mtime=0)`).
    const GZIPPED: [u8; 74] = [
        31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 171, 86, 202, 44, 73, 205, 45, 86, 178, 138, 174, 86, 42,
        201, 44, 201, 73, 85, 178, 82, 42, 205, 43, 72, 76, 206, 78, 77, 81, 170, 141, 213, 81, 42,
        44, 205, 47, 73, 140, 47, 74, 205, 77, 204, 204, 203, 204, 75, 87, 178, 50, 178, 180, 172,
        5, 0, 205, 213, 124, 134, 54, 0, 0, 0,
    ];

    #[test]
    fn service_calls_ask_for_gzip_and_get_it_unpacked_while_downloads_take_bytes_as_stored() {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let base = format!("http://{}", server.server_addr().to_ip().unwrap());
        let (asked, encodings) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for request in server.incoming_requests().take(2) {
                let encoding = request
                    .headers()
                    .iter()
                    .find(|h| h.field.equiv("Accept-Encoding"))
                    .map(|h| h.value.to_string());
                let _ = asked.send(encoding);
                let response = tiny_http::Response::from_data(GZIPPED.to_vec())
                    .with_header(tiny_http::Header::from_bytes("Content-Encoding", "gzip").unwrap())
                    .with_header(
                        tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap(),
                    );
                let _ = request.respond(response);
            }
        });
        let web = web_at(&STACKEXCHANGE, &base, 30, None);
        let value = web
            .json(
                &STACKEXCHANGE,
                "/2.3/search",
                &Call::default(),
                &CancelToken::new(),
            )
            .unwrap();
        assert_eq!(value["items"][0]["title"], "unpacked");
        assert_eq!(encodings.recv().unwrap().as_deref(), Some("gzip"));
        let mut out = Vec::new();
        web.download(
            &format!("{base}/f"),
            &mut out,
            1024,
            &mut |_, _| {},
            &CancelToken::new(),
        )
        .unwrap();
        assert_eq!(encodings.recv().unwrap(), None);
    }

    #[test]
    fn json_answers_are_read_and_queries_encoded() {
        let (base, asked) = serve(vec![(
            200,
            "application/json",
            br#"{"ok":1}"#.to_vec(),
            None,
        )]);
        let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
        let call = Call {
            query: &[("query", "turing machines & co")],
            ..Call::default()
        };
        let value = web
            .json(
                &SEMANTIC_SCHOLAR,
                "/graph/v1/paper/search",
                &call,
                &CancelToken::new(),
            )
            .unwrap();
        assert_eq!(value["ok"], 1);
        assert_eq!(
            asked.recv().unwrap(),
            "/graph/v1/paper/search?query=turing%20machines%20%26%20co"
        );
    }

    #[test]
    fn failures_become_one_sentence_naming_the_service() {
        let (base, _) = serve(vec![
            (
                400,
                "application/json",
                br#"{"error":"Unrecognized fields: [x]"}"#.to_vec(),
                None,
            ),
            (
                200,
                "text/html",
                b"<html><body>Log in to the wifi</body></html>".to_vec(),
                None,
            ),
            (200, "application/json", b"{\"cut".to_vec(), None),
        ]);
        let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
        let ask = || {
            web.json(
                &SEMANTIC_SCHOLAR,
                "/x",
                &Call::default(),
                &CancelToken::new(),
            )
            .unwrap_err()
        };
        assert_eq!(
            ask(),
            "Semantic Scholar answered HTTP 400: Unrecognized fields: [x]"
        );
        let html = ask();
        assert!(
            html.starts_with("Semantic Scholar answered with a web page instead of data"),
            "{html}"
        );
        assert!(html.contains("SEMANTIC_SCHOLAR_URL"), "{html}");
        let broken = ask();
        assert!(
            broken.starts_with("Semantic Scholar sent an answer that is not valid JSON"),
            "{broken}"
        );
    }

    #[test]
    fn a_short_retry_after_is_waited_for_once_and_a_big_answer_refused() {
        let (base, _) = serve(vec![
            (
                429,
                "application/json",
                b"{}".to_vec(),
                Some(("Retry-After", "0")),
            ),
            (200, "application/json", b"[1]".to_vec(), None),
        ]);
        let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
        let value = web
            .json(
                &SEMANTIC_SCHOLAR,
                "/x",
                &Call::default(),
                &CancelToken::new(),
            )
            .unwrap();
        assert_eq!(value[0], 1);
        let (base, _) = serve(vec![(200, "application/json", vec![b' '; 2048], None)]);
        let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
        let call = Call {
            cap: 1024,
            ..Call::default()
        };
        let error = web
            .call(&SEMANTIC_SCHOLAR, "/x", &call, &CancelToken::new())
            .unwrap_err();
        assert!(error.contains("answer is larger than"), "{error}");
    }

    #[test]
    fn a_silent_service_times_out_with_the_seeds_sentence() {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let base = format!("http://{}", server.server_addr().to_ip().unwrap());
        let (done, finished) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            let request = server.recv().unwrap();
            let _ = finished.recv();
            drop(request);
        });
        let web = web_at(&SEMANTIC_SCHOLAR, &base, 1, None);
        let error = web
            .call(
                &SEMANTIC_SCHOLAR,
                "/x",
                &Call::default(),
                &CancelToken::new(),
            )
            .unwrap_err();
        let _ = done.send(());
        assert_eq!(
            error,
            "Semantic Scholar request timed out after 1s. Try again or rephrase query."
        );
    }

    #[test]
    fn a_key_echoed_back_never_shows() {
        let (base, _) = serve(vec![(
            401,
            "application/json",
            br#"{"errors":["bad key g-secret-1234"]}"#.to_vec(),
            None,
        )]);
        let web = web_at(&GNEWS, &base, 30, Some("g-secret-1234"));
        assert_eq!(web.key(&GNEWS).as_deref(), Some("g-secret-1234"));
        let call = Call {
            query: &[("apikey", "g-secret-1234")],
            ..Call::default()
        };
        let error = web
            .json(&GNEWS, "/api", &call, &CancelToken::new())
            .unwrap_err();
        assert!(!error.contains("g-secret-1234"), "{error}");
        assert!(
            error.starts_with("GNews answered HTTP 401: bad key"),
            "{error}"
        );
    }

    #[test]
    fn a_download_streams_reports_its_length_and_keeps_the_servers_naming() {
        let (base, asked) = serve(vec![
            (
                302,
                "text/plain",
                Vec::new(),
                Some(("Location", "/files/report.pdf")),
            ),
            (
                200,
                "application/pdf",
                b"%PDF-1.4".to_vec(),
                Some(("Content-Disposition", "attachment; filename=\"r.pdf\"")),
            ),
            (200, "application/pdf", vec![b'x'; 2048], None),
        ]);
        let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
        let (mut out, mut seen) = (Vec::new(), Vec::new());
        let got = web
            .download(
                &format!("{base}/get?id=1"),
                &mut out,
                1024,
                &mut |n, length| seen.push((n, length)),
                &CancelToken::new(),
            )
            .unwrap();
        assert_eq!(out, b"%PDF-1.4");
        assert_eq!(got.bytes, 8);
        assert_eq!(seen, [(8, Some(8))]);
        assert_eq!(
            got.disposition.as_deref(),
            Some("attachment; filename=\"r.pdf\"")
        );
        assert_eq!(got.content_type.as_deref(), Some("application/pdf"));
        assert_eq!(got.final_url, format!("{base}/files/report.pdf"));
        assert_eq!(asked.recv().unwrap(), "/get?id=1");
        assert_eq!(asked.recv().unwrap(), "/files/report.pdf");
        let error = web
            .download(
                &base,
                &mut Vec::new(),
                1024,
                &mut |_, _| {},
                &CancelToken::new(),
            )
            .unwrap_err();
        assert!(error.contains("larger than"), "{error}");
    }

    #[test]
    fn a_program_gets_the_proxy_without_its_password() {
        let web = Web::new(
            WebSettings::default(),
            Endpoints::default(),
            ProxyRules::new(Some("http://me:pw@proxy:3128"), Some("intra.example")),
        );
        assert_eq!(
            web.proxy_for("https://example.org/page").as_deref(),
            Some("http://proxy:3128")
        );
        assert_eq!(web.proxy_for("https://intra.example/"), None);
        assert_eq!(web.proxy_for("http://127.0.0.1:8080/"), None);
    }

    #[test]
    fn encoding_keeps_only_unreserved_characters() {
        assert_eq!(encode("a b&c=d/é~"), "a%20b%26c%3Dd%2F%C3%A9~");
        assert_eq!(encode_pairs(&[("q", "x y"), ("n", "3")]), "q=x%20y&n=3");
    }
}
