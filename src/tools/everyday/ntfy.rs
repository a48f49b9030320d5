//! ntfy notifications (ntfy.sh or any ntfy server at NTFY_URL): publishing, the profile's
//! subscriptions (kept by `store::ntfy`) polled for new messages, and the tools
//! generate_ntfy_topic, ntfy_subscribe, ntfy_unsubscribe, ntfy_publish, ntfy_list.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Deserialize;
use serde_json::Value;

use crate::cancel::CancelToken;
use crate::net::{self, Failure, Secrets, Transport};
use crate::services;
use crate::store::{self, ntfy::Subscription};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const TOOL_TIMEOUT: Duration = Duration::from_secs(30);
/// A poll's answer past this is cut: new messages since the last poll, not an archive.
const MAX_POLL: u64 = 1024 * 1024;

/// The ntfy server of a session: its base URL from Config and a [`net::Client`] through the
/// proxy Config chose for it, paced as the services table asks. Clones share the client.
#[derive(Clone)]
pub struct Ntfy {
    base: String,
    client: Arc<net::Client>,
    /// An access token (NTFY_TOKEN) for a server whose topics need one, sent with every call.
    token: Option<String>,
}

impl std::fmt::Debug for Ntfy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ntfy")
            .field("base", &net::without_userinfo(&self.base))
            .finish_non_exhaustive()
    }
}

/// ntfy.sh, reached directly: what a bare `ToolSettings` (tests, tools used as a library) has.
impl Default for Ntfy {
    fn default() -> Self {
        Self::new(services::NTFY.default_url, None, None)
    }
}

impl Ntfy {
    /// The server at `base`, reached through `proxy` when given, with its access `token` if
    /// the person has one.
    pub fn new(base: &str, proxy: Option<String>, token: Option<String>) -> Self {
        let base = base.trim_end_matches('/').to_string();
        let client = net::Client::new(TOOL_TIMEOUT, proxy)
            .with_secrets(Secrets::new().with_url(&base).with(token.as_deref()))
            .with_min_interval(services::NTFY.min_interval);
        Self {
            base,
            client: Arc::new(client),
            token,
        }
    }

    /// `Authorization: Bearer TOKEN` when there is a token.
    fn authorization(&self) -> Option<String> {
        self.token.as_ref().map(|token| format!("Bearer {token}"))
    }

    /// The server's address, for a cron line that publishes later (without any credentials
    /// it may carry: see [`net::without_userinfo`]).
    pub(crate) fn base(&self) -> &str {
        &self.base
    }

    /// Sends `message` to `topic`, with an optional title, within `timeout` in all.
    pub fn publish(
        &self,
        topic: &str,
        title: Option<&str>,
        message: &str,
        timeout: Duration,
        cancel: &CancelToken,
    ) -> Result<(), String> {
        valid_topic(topic)?;
        let url = format!("{}/{topic}", self.base);
        let headers: Vec<(&str, &str)> = title.map(|t| ("Title", t)).into_iter().collect();
        self.post(&url, &headers, message.as_bytes(), timeout, cancel)
    }

    /// Publishes a message given as ntfy's JSON (`topic`, `title`, `message`, `actions`), for
    /// what the header form cannot carry well (buttons whose bodies hold JSON).
    pub(crate) fn publish_json(
        &self,
        message: &Value,
        timeout: Duration,
        cancel: &CancelToken,
    ) -> Result<(), String> {
        valid_topic(message["topic"].as_str().unwrap_or(""))?;
        let url = format!("{}/", self.base);
        let headers = [("Content-Type", "application/json")];
        let body = message.to_string();
        self.post(&url, &headers, body.as_bytes(), timeout, cancel)
    }

    /// POSTs `body` with `headers` to `url` within `timeout`: a 2xx is sent, anything else
    /// says why not.
    fn post(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &[u8],
        timeout: Duration,
        cancel: &CancelToken,
    ) -> Result<(), String> {
        let send = |agent: &ureq::Agent| {
            let mut call = agent
                .post(url)
                .config()
                .timeout_global(Some(timeout))
                .build();
            for (name, value) in headers {
                call = call.header(*name, *value);
            }
            if let Some(authorization) = self.authorization() {
                call = call.header("Authorization", authorization);
            }
            call.send(body)
        };
        let status = self
            .client
            .exchange(cancel, url, None, send, |response| {
                Ok::<_, String>(response.status().as_u16())
            })
            .map_err(|failure| match failure {
                Failure::Transport(Transport::Silent(_) | Transport::ConnectTimeout) => format!(
                    "ntfy did not answer within {}s. Try again later.",
                    timeout.as_secs()
                ),
                other => self.unreachable(other, cancel),
            })?;
        match status {
            200..=299 => Ok(()),
            status => Err(format!("ntfy refused the message (HTTP {status}).")),
        }
    }

    /// The bodies of the new messages of one subscription, as published, moving its `since` on.
    pub(crate) fn poll_bodies(
        &self,
        subscription: &mut Subscription,
        timeout: Duration,
        cancel: &CancelToken,
    ) -> Result<Vec<String>, String> {
        let body = self.poll_body(subscription, timeout, cancel)?;
        let mut bodies = Vec::new();
        for event in body
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            if event["event"] != "message" {
                continue;
            }
            if let Some(id) = event["id"].as_str() {
                subscription.since = id.to_string();
            }
            bodies.push(event["message"].as_str().unwrap_or("").to_string());
        }
        Ok(bodies)
    }

    /// New messages of one subscription (`title: message` lines) within `timeout` in all,
    /// moving its `since` on.
    pub fn poll(
        &self,
        subscription: &mut Subscription,
        timeout: Duration,
        cancel: &CancelToken,
    ) -> Result<Vec<String>, String> {
        let body = self.poll_body(subscription, timeout, cancel)?;
        Ok(messages(&body, subscription))
    }

    /// The raw answer of a poll of `subscription` (one JSON event a line).
    fn poll_body(
        &self,
        subscription: &Subscription,
        timeout: Duration,
        cancel: &CancelToken,
    ) -> Result<String, String> {
        let url = format!(
            "{}/{}/json?poll=1&since={}",
            self.base, subscription.topic, subscription.since
        );
        let send = |agent: &ureq::Agent| {
            let mut call = agent
                .get(&url)
                .config()
                .timeout_global(Some(timeout))
                .build();
            if let Some(authorization) = self.authorization() {
                call = call.header("Authorization", authorization);
            }
            call.call()
        };
        self.client
            .exchange(cancel, &url, None, send, |response| {
                if !net::is_success(&response) {
                    return Err(format!("ntfy answered HTTP {}", response.status().as_u16()));
                }
                net::read_start(response.into_body().into_reader(), MAX_POLL)
                    .map_err(|e| e.to_string())
            })
            .map_err(|failure| self.unreachable(failure, cancel))
    }

    /// Polls every subscription of the profile within `budget` in all; returns the new lines,
    /// which are kept whole in the profile too (`/notifications` shows them).
    pub fn poll_all(
        &self,
        profile_dir: &Path,
        budget: Duration,
        warnings: &store::Warnings,
    ) -> Vec<String> {
        let mut subscriptions = store::ntfy::load(profile_dir, warnings);
        if subscriptions.is_empty() {
            return Vec::new();
        }
        let deadline = Instant::now() + budget;
        let cancel = CancelToken::new();
        let mut lines = Vec::new();
        for subscription in &mut subscriptions {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            // A slow or unreachable server must never hold up the prompt: errors are dropped.
            lines.extend(self.poll(subscription, left, &cancel).unwrap_or_default());
        }
        let _ = save(profile_dir, &subscriptions);
        let at = crate::clock::iso8601(SystemTime::now());
        if let Err(unsaved) = store::ntfy::keep_heard(profile_dir, &lines, &at, warnings) {
            warnings.push(format!(
                "cannot keep the ntfy messages for /notifications in {}: {}",
                unsaved.path.display(),
                unsaved.error
            ));
        }
        lines
    }

    fn unreachable(&self, failure: Failure<String>, cancel: &CancelToken) -> String {
        let base = net::without_userinfo(&self.base);
        match failure {
            Failure::Cancelled => format!(
                "The ntfy call was cancelled by the user ({}).",
                cancel.how()
            ),
            Failure::Transport(transport) => format!("cannot reach ntfy at {base}: {transport}."),
            Failure::Answer(error) => error,
        }
    }
}

/// The `message` events of a poll's answer (one JSON object a line), as lines for the person;
/// `subscription.since` moves on to the last one.
fn messages(body: &str, subscription: &mut Subscription) -> Vec<String> {
    let mut lines = Vec::new();
    for event in body
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        if event["event"] != "message" {
            continue;
        }
        if let Some(id) = event["id"].as_str() {
            subscription.since = id.to_string();
        }
        let message = event["message"].as_str().unwrap_or("");
        let line = match event["title"].as_str() {
            Some(title) => format!("{} · {title}: {message}", subscription.topic),
            None => format!("{}: {message}", subscription.topic),
        };
        lines.push(line);
    }
    lines
}

fn valid_topic(topic: &str) -> Result<(), String> {
    if store::is_plain_name(topic, 64) {
        Ok(())
    } else {
        Err(format!(
            "'{topic}' is not a valid ntfy topic: use 1-64 letters, digits, - or _."
        ))
    }
}

fn save(profile_dir: &Path, subscriptions: &[Subscription]) -> Result<(), String> {
    store::ntfy::save(profile_dir, subscriptions)
        .map_err(|unsaved| format!("cannot save {}: {}", unsaved.path.display(), unsaved.error))
}

fn now() -> String {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        .to_string()
}

const TOPIC: &[Param] = &[Param::required("topic", Kind::String, "The ntfy topic")];
const PUBLISH: &[Param] = &[
    Param::required("topic", Kind::String, "The ntfy topic"),
    Param::required("message", Kind::String, "The notification text"),
    Param::optional("title", Kind::String, "A title"),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "ntfy",
    about: "push notifications to a phone",
    words: &[
        "ntfy",
        "notify me",
        "notification",
        "push notification",
        "send to my phone",
        "subscribe",
        "topic",
    ],
    asks: &[
        "show me what gets posted to a topic",
        "push an alert to my phone",
        "ping my phone when it's done",
        "push a message to my topic",
        "subscribe to the alerts topic",
        "stop following that topic",
        "make a private topic for notifications",
        "notify me on my phone",
        "what topics am I subscribed to",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("generate_ntfy_topic")
            .describe("Make a new, hard-to-guess ntfy topic name.")
            .offered(Offered::Everywhere)
            .example("{}")
            .handler(generate_topic),
        ToolDef::build("ntfy_subscribe")
            .describe("Subscribe to an ntfy topic: its new messages are shown to the user before each prompt.")
            .offered(Offered::Everywhere)
            .writes()
            .params(TOPIC)
            .example(r#"{"topic": "marvin-builds"}"#)
            .handler(subscribe),
        ToolDef::build("ntfy_unsubscribe")
            .describe("Stop following an ntfy topic.")
            .offered(Offered::Everywhere)
            .writes()
            .params(TOPIC)
            .example(r#"{"topic": "marvin-builds"}"#)
            .handler(unsubscribe),
        ToolDef::build("ntfy_publish")
            .describe("Send a notification to an ntfy topic (to the user's phone, say).")
            .offered(Offered::Everywhere)
            .params(PUBLISH)
            .example(r#"{"topic": "marvin-builds", "message": "The build passed.", "title": "CI"}"#)
            .handler(publish_tool),
        ToolDef::build("ntfy_list")
            .describe("List the ntfy topics this profile follows.")
            .offered(Offered::Everywhere)
            .example("{}")
            .handler(list),
    ]
}

#[derive(Deserialize)]
struct NoArgs {}

fn generate_topic(_: NoArgs, _: &ToolContext) -> Result<String, String> {
    // Anyone who knows a topic can read it: the name comes from the OS's secure randomness.
    let suffix = crate::secret::random_hex(12).map_err(|e| format!("no secure randomness: {e}"))?;
    Ok(format!("marvin-{suffix}"))
}

#[derive(Deserialize)]
struct TopicArgs {
    topic: String,
}

fn profile_dir(ctx: &ToolContext) -> Result<std::path::PathBuf, String> {
    ctx.shared
        .profile_dir()
        .ok_or_else(|| "There is no profile to keep subscriptions in (no MARVIN_HOME).".to_string())
}

fn subscribe(args: TopicArgs, ctx: &ToolContext) -> Result<String, String> {
    let topic = args.topic.trim();
    valid_topic(topic)?;
    let dir = profile_dir(ctx)?;
    let mut subscriptions = store::ntfy::load(&dir, &ctx.shared.warnings);
    if subscriptions.iter().any(|s| s.topic == topic) {
        return Ok(format!("Already subscribed to {topic}."));
    }
    subscriptions.push(Subscription {
        topic: topic.to_string(),
        since: now(),
    });
    save(&dir, &subscriptions)?;
    Ok(format!(
        "Subscribed to {topic}: new messages will be shown before each prompt."
    ))
}

fn unsubscribe(args: TopicArgs, ctx: &ToolContext) -> Result<String, String> {
    let dir = profile_dir(ctx)?;
    let mut subscriptions = store::ntfy::load(&dir, &ctx.shared.warnings);
    let before = subscriptions.len();
    subscriptions.retain(|s| s.topic != args.topic.trim());
    if subscriptions.len() == before {
        return Err(format!(
            "This profile does not follow {}; ntfy_list shows what it follows.",
            args.topic.trim()
        ));
    }
    save(&dir, &subscriptions)?;
    Ok(format!("Unsubscribed from {}.", args.topic.trim()))
}

#[derive(Deserialize)]
struct PublishArgs {
    topic: String,
    message: String,
    title: Option<String>,
}

fn publish_tool(args: PublishArgs, ctx: &ToolContext) -> Result<String, String> {
    ctx.settings.ntfy.publish(
        args.topic.trim(),
        args.title.as_deref(),
        &args.message,
        TOOL_TIMEOUT,
        &ctx.cancel,
    )?;
    Ok(format!("Sent to {}.", args.topic.trim()))
}

fn list(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    let subscriptions = store::ntfy::load(&profile_dir(ctx)?, &ctx.shared.warnings);
    if subscriptions.is_empty() {
        return Ok("This profile follows no ntfy topics.".into());
    }
    Ok(subscriptions
        .iter()
        .map(|s| s.topic.as_str())
        .collect::<Vec<_>>()
        .join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_are_checked_and_generated_unguessable() {
        assert!(valid_topic("builds-1").is_ok());
        assert!(valid_topic("a/b").is_err());
        let ctx = ToolContext::new(std::env::temp_dir());
        let (a, b) = (
            generate_topic(NoArgs {}, &ctx).unwrap(),
            generate_topic(NoArgs {}, &ctx).unwrap(),
        );
        assert!(
            a.starts_with("marvin-") && a.len() == 31 && a != b,
            "{a} {b}"
        );
    }

    /// Reads one HTTP head (up to the blank line) from `stream`.
    fn head(stream: &mut std::net::TcpStream) -> String {
        use std::io::Read;
        let mut bytes = Vec::new();
        let mut byte = [0u8];
        while !bytes.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap() == 1 {
            bytes.push(byte[0]);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[test]
    fn a_proxy_from_config_carries_the_messages() {
        use std::io::Write;
        let proxy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
        let seen = std::thread::spawn(move || {
            let (mut stream, _) = proxy.accept().unwrap();
            let connect = head(&mut stream);
            stream
                .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                .unwrap();
            let request = head(&mut stream);
            stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                .unwrap();
            (connect, request)
        });
        let ntfy = Ntfy::new("http://ntfy.example/", Some(proxy_url), None);
        ntfy.publish("builds", None, "done", TOOL_TIMEOUT, &CancelToken::new())
            .unwrap();
        let (connect, request) = seen.join().unwrap();
        assert!(
            connect.starts_with("CONNECT ntfy.example:80 HTTP/1.1\r\n"),
            "{connect}"
        );
        assert!(
            request.starts_with("POST /builds HTTP/1.1\r\n"),
            "{request}"
        );
    }

    #[test]
    fn polling_reads_new_messages_and_moves_on() {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let base = format!("http://{}", server.server_addr().to_ip().unwrap());
        let answered = std::thread::spawn(move || {
            let request = server.recv().unwrap();
            let url = request.url().to_string();
            let body = [
                r#"{"event": "open", "topic": "alerts"}"#,
                r#"{"id": "m1", "event": "message", "topic": "alerts", "message": "disk full", "title": "Backup"}"#,
                r#"{"id": "m2", "event": "message", "topic": "alerts", "message": "fixed"}"#,
            ]
            .join("\n");
            request
                .respond(tiny_http::Response::from_string(body))
                .unwrap();
            url
        });
        let mut subscription = Subscription {
            topic: "alerts".into(),
            since: "100".into(),
        };
        let lines = Ntfy::new(&base, None, None)
            .poll(&mut subscription, TOOL_TIMEOUT, &CancelToken::new())
            .unwrap();
        assert_eq!(lines, ["alerts · Backup: disk full", "alerts: fixed"]);
        assert_eq!(subscription.since, "m2");
        assert_eq!(answered.join().unwrap(), "/alerts/json?poll=1&since=100");
    }
}
