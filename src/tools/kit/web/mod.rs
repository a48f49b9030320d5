//! The everyday tools' way to the web, the one service client every network tool goes through:
//! base URLs and keys from Config (the services table), one paced [`net::Client`] per service,
//! a time limit per call (MARVIN_TOOL_TIMEOUT), a size cap, Ctrl+C, a `Retry-After` honoured
//! once, and every failure turned into one sentence that names the service and says what to do.
//! Keys never appear in a result or an error.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

use crate::cancel::CancelToken;
use crate::config::{Endpoints, WebSettings};
use crate::net::{self, Failure, ProxyRules, Secrets, Transport};
use crate::services::Service;
use crate::tools::kit::reach::Reach;

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
    /// A JSON body to POST instead of a GET (when there is no form).
    pub(crate) json: Option<&'a Value>,
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

    /// Which proxy each address is reached through (HTTPS_PROXY, NO_PROXY).
    pub(crate) fn proxy_rules(&self) -> &ProxyRules {
        &self.proxy
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
    }

    /// The JSON of an answer already fetched, or the sentence [`Web::json`] gives, with the
    /// service's key cut out of it (a service may echo the request back in its error).
    pub(crate) fn read_json(&self, service: &Service, fetched: &Fetched) -> Result<Value, String> {
        self.judge_json(service, fetched)
            .map_err(|message| self.secrets(service).redact(&message))
    }

    fn judge_json(&self, service: &Service, fetched: &Fetched) -> Result<Value, String> {
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

    /// A page at an address from the person's configuration (DuckDuckGo news under DDG_URL):
    /// one call with no service behind it, named by its host in errors.
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

    /// A page at an address the model gave (browse_web, a feed), named by its host in errors:
    /// every address it and its redirects lead to checked by `reach`.
    pub(crate) fn open(
        &self,
        url: &str,
        reach: &Reach<'_>,
        cancel: &CancelToken,
    ) -> Result<Fetched, String> {
        let host = net::host_of(url);
        let client = self.guarded(url, reach);
        let call = Call::default();
        reach
            .attempts(|| self.attempt(&client, &host, url, &call, None, cancel))
            .map_err(|failure| self.failure(failure, &host, url))
    }

    /// Streams `url` (the model's address, checked by `reach` as [`Web::open`] does) into
    /// `out`, at most `cap` bytes, telling `progress` the bytes so far and the length
    /// announced. No limit on the whole: a large file takes the time it takes, and only
    /// silence longer than the tool timeout ends it.
    pub(crate) fn download(
        &self,
        url: &str,
        out: &mut dyn Write,
        cap: u64,
        progress: &mut dyn FnMut(u64, Option<u64>),
        reach: &Reach<'_>,
        cancel: &CancelToken,
    ) -> Result<Downloaded, String> {
        let host = net::host_of(url);
        let client = self.guarded(url, reach);
        reach
            .attempts(|| {
                let send = |agent: &ureq::Agent| agent.get(url).call();
                let read = |response: net::Response| {
                    stream(response, &mut *out, cap, &mut *progress, &host)
                };
                client.exchange(cancel, url, None, send, read)
            })
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
        self.attempt(client, name, url, call, key, cancel)
            .map_err(|failure| self.failure(failure, name, url))
    }

    fn attempt(
        &self,
        client: &net::Client,
        name: &str,
        url: &str,
        call: &Call<'_>,
        key: Option<&str>,
        cancel: &CancelToken,
    ) -> Result<Fetched, Failure<String>> {
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
                    net::BodyError::Read(e) if is_timeout(&e) => timed_out(name, timeout),
                    net::BodyError::Read(e) => format!("Reading {name}'s answer failed: {e}."),
                })?;
            Ok(Fetched {
                status,
                content_type,
                body,
                retry_after,
            })
        };
        client.exchange(cancel, url, key, send, read)
    }

    fn failure(&self, failure: Failure<String>, name: &str, url: &str) -> String {
        match failure {
            Failure::Cancelled => format!("The {name} request was cancelled."),
            Failure::Answer(message) => message,
            Failure::Transport(Transport::Silent(_)) => timed_out(name, self.settings.timeout),
            Failure::Transport(transport) => format!(
                "Could not reach {name} at {}: {transport}. Check the network connection, or try again later.",
                net::without_userinfo(url)
                    .split('?')
                    .next()
                    .unwrap_or_default()
            ),
        }
    }

    /// `text` from `service`'s answer, safe to show: its key and any password of its base URL
    /// cut out (a service may echo the key in an error it sends inside an HTTP 200).
    pub(crate) fn redact(&self, service: &Service, text: &str) -> String {
        self.secrets(service).redact(text)
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

    /// A client for the model's address `url`, checked by `reach`'s guard.
    fn guarded(&self, url: &str, reach: &Reach<'_>) -> net::Client {
        self.build(url, Duration::ZERO, url_secrets(url))
            .with_guard(reach.guard())
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
    let body = match (call.form, call.json) {
        (Some(form), _) => Some(("application/x-www-form-urlencoded", encode_pairs(form))),
        (None, Some(json)) => Some(("application/json", json.to_string())),
        (None, None) => None,
    };
    match body {
        Some((content_type, body)) => {
            let mut request = agent
                .post(url)
                .config()
                .timeout_global(Some(timeout))
                .http_status_as_error(false)
                .build()
                .header("Content-Type", content_type);
            for (name, value) in headers {
                request = request.header(name, value);
            }
            request.send(body.as_bytes())
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

/// Seed 002 §7.5's sentence for a call that took too long, before or during the answer.
fn timed_out(name: &str, limit: Duration) -> String {
    format!(
        "{name} request timed out after {}s. Try again or rephrase query.",
        limit.as_secs()
    )
}

/// A read that ended because the answer stopped coming (ureq says so in its own words).
fn is_timeout(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::TimedOut || error.to_string().contains("timeout")
}

/// A download's answer streamed into `out`: refused unless it is a success within `cap`.
fn stream(
    response: net::Response,
    out: &mut dyn Write,
    cap: u64,
    progress: &mut dyn FnMut(u64, Option<u64>),
    host: &str,
) -> Result<Downloaded, String> {
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(format!("{host} answered HTTP {status}; nothing was saved."));
    }
    let length = net::header(&response, "content-length").and_then(|l| l.parse().ok());
    if length.is_some_and(|l: u64| l > cap) {
        return Err(too_large(host, cap));
    }
    let final_url = ureq::ResponseExt::get_uri(&response).to_string();
    let disposition = net::header(&response, "content-disposition");
    let content_type = net::header(&response, "content-type");
    let body = response.into_body().into_reader();
    let bytes = copy_capped(body, out, cap, &mut |n| progress(n, length), host)?;
    Ok(Downloaded {
        bytes,
        disposition,
        content_type,
        final_url,
    })
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

/// `%XX` escapes turned back into their bytes (read as UTF-8, a bad sequence as U+FFFD); a `%`
/// not followed by two hex digits stays as it is.
pub(crate) fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// Everything but RFC 3986's unreserved characters (letters, digits, `-`, `_`, `.`, `~`).
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Percent-encodes everything but the unreserved characters of RFC 3986.
pub(crate) fn encode(text: &str) -> String {
    utf8_percent_encode(text, NOT_UNRESERVED).to_string()
}

#[cfg(test)]
mod tests;
