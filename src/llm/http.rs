//! A provider's side of the network: its [`net::Client`] (one per provider, Ctrl+C-aware, with
//! the provider's credentials kept out of every error), and transport failures and error
//! answers turned into classified [`LlmError`]s that name the service and what to check.

use std::io;
use std::time::{Duration, SystemTime};

use super::api_error::{self, ErrorContext};
use super::progress::{self, Stalled};
use super::retry::parse_retry_after;
use super::{ErrorKind, LlmError};
use crate::cancel::CancelToken;
use crate::config::ProviderSettings;
use crate::net::{self, Client, Failure, Phase, Redact, Response, Secrets, Transport};

/// Error bodies longer than this are cut: they are for a person to read.
const MAX_ERROR_BODY: u64 = 64 * 1024;

pub struct Http {
    service: &'static str,
    /// The base URL without `user:password@`, for messages.
    shown_url: String,
    /// The variable holding the base URL, for "wrong base URL" messages.
    url_var: &'static str,
    /// What to say when the connection is refused (Ollama: "is it running?").
    refused: Option<String>,
    client: Client,
}

impl Redact for LlmError {
    fn redacted(mut self, secrets: &Secrets) -> Self {
        self.message = secrets.redact(&self.message);
        self
    }
}

impl Http {
    pub fn new(settings: &ProviderSettings) -> Self {
        let secrets = Secrets::new()
            .with(settings.api_key.as_deref())
            .with_url(&settings.base_url)
            .with_url(&settings.token_url);
        let client = Client::new(settings.timeout, settings.proxy.clone())
            .with_secrets(secrets)
            .with_min_interval(settings.kind.service().min_interval);
        Self {
            service: settings.kind.name(),
            shown_url: settings.shown_url(),
            url_var: settings.kind.url_var(),
            refused: None,
            client,
        }
    }

    /// The credentials every request of this provider may carry.
    pub fn secrets(&self) -> &Secrets {
        self.client.secrets()
    }

    pub fn with_refused_message(mut self, message: String) -> Self {
        self.refused = Some(message);
        self
    }

    /// One request to `url` carrying the credential `sent` (see [`Client::exchange`]), its
    /// failures in the words of this provider.
    pub fn exchange<T>(
        &self,
        cancel: &CancelToken,
        url: &str,
        sent: Option<&str>,
        send: impl FnOnce(&ureq::Agent) -> Result<Response, ureq::Error>,
        read: impl FnOnce(Response) -> Result<T, LlmError>,
    ) -> Result<T, LlmError> {
        self.client
            .exchange(cancel, url, sent, send, read)
            .map_err(|failure| match failure {
                Failure::Cancelled => LlmError::cancelled(),
                Failure::Transport(transport) => self.transport_error(transport),
                Failure::Answer(error) => error,
            })
    }

    /// How long requests wait with nothing arriving.
    pub fn idle_timeout(&self) -> Duration {
        self.client.idle_timeout()
    }

    /// Later requests wait `timeout` with nothing arriving.
    pub fn set_timeout(&self, timeout: Duration) {
        self.client.set_idle_timeout(timeout);
    }

    /// Drops pooled connections, e.g. after a timeout, so the next call starts afresh.
    pub fn renew(&self) {
        self.client.renew();
    }

    fn transport_error(&self, transport: Transport) -> LlmError {
        let url = &self.shown_url;
        match transport {
            Transport::ConnectTimeout => LlmError::new(
                ErrorKind::Timeout,
                format!(
                    "cannot connect to {url}: no answer within {}s; check the URL and your network",
                    net::CONNECT_TIMEOUT.as_secs()
                ),
            ),
            Transport::Silent(phase) => self.timeout_error(phase),
            Transport::HostNotFound => LlmError::new(
                ErrorKind::Network,
                format!("cannot resolve the host of {url}: check the URL and your network"),
            ),
            Transport::Refused => self.refused_error(),
            Transport::ClosedEarly(why) => LlmError::new(
                ErrorKind::Network,
                format!("the connection to {url} was closed before any answer ({why})"),
            )
            .transient(),
            Transport::Broken(why) => LlmError::new(
                ErrorKind::Network,
                format!("the connection to {url} failed: {why}"),
            ),
            Transport::Failed(why) => LlmError::new(
                ErrorKind::Network,
                format!("request to {url} failed: {why}"),
            ),
            // Model clients have no guard; were one to refuse, it is said as it is.
            Transport::Guarded(refusal) => LlmError::new(
                ErrorKind::Network,
                format!("request to {url} failed: {refusal}"),
            ),
        }
    }

    /// An error while reading an answer that has started.
    pub fn read_error(&self, error: io::Error) -> LlmError {
        match progress::stalled(&error) {
            Some(stalled) => self.stalled_error(stalled),
            None => self.transport_error(Transport::from_io(error, Phase::Answer)),
        }
    }

    /// An error while reading a stream whose answer had begun; `shown` says whether any of
    /// its text was shown. A lost connection cut the answer off.
    pub fn stream_error(&self, error: io::Error, shown: bool) -> LlmError {
        let error = self.read_error(error);
        match error.kind {
            ErrorKind::Network => error.cut_off(shown),
            _ => error,
        }
    }

    /// A stream that ended without `mark`, what closes a whole answer: a proxy or the server
    /// cut it.
    pub fn ended_early(&self, mark: &str, shown: bool) -> LlmError {
        let mut message = format!(
            "the answer from {} ended early: its stream closed without {mark} (cut by a proxy or the server)",
            self.service
        );
        if shown {
            message.push_str("; the text shown is only its start");
        }
        LlmError::new(ErrorKind::Network, message).cut_off(shown)
    }

    /// An error while waiting for the first byte of a body whose headers arrived: no part of
    /// the answer has, so it counts as waiting for the answer to start.
    pub fn first_read_error(&self, error: io::Error) -> LlmError {
        self.transport_error(Transport::from_io(error, Phase::Request))
    }

    fn refused_error(&self) -> LlmError {
        let message = self
            .refused
            .clone()
            .unwrap_or_else(|| format!("cannot connect to {}: connection refused", self.shown_url));
        LlmError::new(ErrorKind::Network, message)
    }

    /// Nothing arrived for MARVIN_TIMEOUT: before the answer started, or in the middle of it.
    fn timeout_error(&self, phase: Phase) -> LlmError {
        let (service, seconds) = (self.service, self.idle_timeout().as_secs());
        let message = match phase {
            Phase::Request => format!(
                "{service} did not start answering: no data for {seconds}s after the request (MARVIN_TIMEOUT)"
            ),
            Phase::Answer => format!(
                "{service} stopped answering: no data for {seconds}s after the answer started (MARVIN_TIMEOUT)"
            ),
        };
        LlmError::new(ErrorKind::Timeout, message)
    }

    /// Bytes kept arriving for MARVIN_TIMEOUT, but no part of the answer among them.
    fn stalled_error(&self, stalled: Stalled) -> LlmError {
        let (service, seconds) = (self.service, self.idle_timeout().as_secs());
        let (when, after) = if stalled.started {
            ("stopped answering", "the answer started")
        } else {
            ("did not start answering", "the request")
        };
        LlmError::new(
            ErrorKind::Timeout,
            format!(
                "{service} {when}: nothing but keep-alives or empty events for {seconds}s after {after} (MARVIN_TIMEOUT)"
            ),
        )
    }

    /// A 200 that is a web page: a captive portal, a proxy's login page, a wrong base URL.
    pub fn html_error(&self) -> LlmError {
        LlmError::new(
            ErrorKind::Protocol,
            format!(
                "{} answered with an HTML page, not the model API: a captive portal or proxy login page, or a wrong base URL (check {}: {})",
                self.service, self.url_var, self.shown_url
            ),
        )
    }
}

/// The error for a non-2xx response, with the wait a 429 asks for.
pub(crate) fn status_error(response: Response, ctx: &ErrorContext<'_>) -> LlmError {
    let status = response.status().as_u16();
    let retry_after = parse_retry_after(
        net::header(&response, "retry-after-ms").as_deref(),
        net::header(&response, "retry-after").as_deref(),
        SystemTime::now(),
    );
    let body =
        net::read_start(response.into_body().into_reader(), MAX_ERROR_BODY).unwrap_or_default();
    api_error::from_http(ctx, status, &body, retry_after)
}
