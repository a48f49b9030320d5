//! The HTTP side shared by the provider clients: one ureq agent per provider that Ctrl+C can
//! interrupt even mid-read, transport failures classified, error bodies turned into errors.

use std::io::{self, Read};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use super::api_error::{self, ErrorContext};
use super::retry::parse_retry_after;
use super::{ErrorKind, LlmError};
use crate::cancel::CancelToken;
use crate::config::ProviderSettings;

pub type Response = ureq::http::Response<ureq::Body>;

/// Error bodies longer than this are cut: they are for a person to read.
const MAX_ERROR_BODY: u64 = 64 * 1024;
/// Reaching the service must not take longer than this, whatever the request timeout.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

pub struct Http {
    service: &'static str,
    base_url: String,
    timeout: Duration,
    proxy: Option<String>,
    /// What to say when the connection is refused (Ollama: "is it running?").
    refused: Option<String>,
    /// Shared by the calls of a session so connections are reused; replaced after a cancel,
    /// because `shutdown` closes the whole pool.
    agent: Mutex<ureq::Agent>,
}

impl Http {
    pub fn new(settings: &ProviderSettings) -> Self {
        let agent = build_agent(settings.timeout, settings.proxy.as_deref());
        Self {
            service: settings.kind.name(),
            base_url: settings.base_url.clone(),
            timeout: settings.timeout,
            proxy: settings.proxy.clone(),
            refused: None,
            agent: Mutex::new(agent),
        }
    }

    pub fn with_refused_message(mut self, message: String) -> Self {
        self.refused = Some(message);
        self
    }

    /// One request: `send` issues it with the agent, `read` consumes the response. Ctrl+C
    /// interrupts either at once, and the pool is renewed afterwards.
    pub fn exchange<T>(
        &self,
        cancel: &CancelToken,
        send: impl FnOnce(&ureq::Agent) -> Result<Response, ureq::Error>,
        read: impl FnOnce(Response) -> Result<T, LlmError>,
    ) -> Result<T, LlmError> {
        let agent = self
            .agent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let result = {
            let interrupt = agent.clone();
            let _hook = cancel.on_cancel(move || interrupt.shutdown());
            send(&agent)
                .map_err(|e| self.transport_error(e))
                .and_then(read)
        };
        if cancel.is_cancelled() {
            *self.agent.lock().unwrap_or_else(PoisonError::into_inner) =
                build_agent(self.timeout, self.proxy.as_deref());
            return Err(LlmError::cancelled());
        }
        result
    }

    /// Drops pooled connections, e.g. after a timeout, so the next call starts afresh.
    pub fn renew(&self) {
        *self.agent.lock().unwrap_or_else(PoisonError::into_inner) =
            build_agent(self.timeout, self.proxy.as_deref());
    }

    pub fn transport_error(&self, error: ureq::Error) -> LlmError {
        let base = &self.base_url;
        match error {
            ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => LlmError::new(
                ErrorKind::Timeout,
                format!(
                    "cannot connect to {base}: no answer within {}s; check the URL and your network",
                    CONNECT_TIMEOUT.as_secs()
                ),
            ),
            ureq::Error::Timeout(_) => self.timeout_error(),
            ureq::Error::Io(io) => self.read_error(io),
            ureq::Error::HostNotFound => LlmError::new(
                ErrorKind::Network,
                format!("cannot resolve the host of {base}: check the URL and your network"),
            ),
            ureq::Error::ConnectionFailed => self.refused_error(),
            other => LlmError::new(
                ErrorKind::Network,
                format!("request to {base} failed: {other}"),
            ),
        }
    }

    /// An error while reading a body. ureq reports its own failures there (timeouts above all)
    /// as an io::Error wrapping a ureq::Error.
    pub fn read_error(&self, error: io::Error) -> LlmError {
        if error
            .get_ref()
            .is_some_and(|inner| inner.is::<ureq::Error>())
        {
            if let Some(Ok(inner)) = error
                .into_inner()
                .map(|inner| inner.downcast::<ureq::Error>())
            {
                return self.transport_error(*inner);
            }
            return LlmError::new(ErrorKind::Network, "the connection failed");
        }
        match error.kind() {
            io::ErrorKind::TimedOut => self.timeout_error(),
            io::ErrorKind::ConnectionRefused => self.refused_error(),
            _ => LlmError::new(
                ErrorKind::Network,
                format!("the connection to {} failed: {error}", self.base_url),
            ),
        }
    }

    fn refused_error(&self) -> LlmError {
        let message = self
            .refused
            .clone()
            .unwrap_or_else(|| format!("cannot connect to {}: connection refused", self.base_url));
        LlmError::new(ErrorKind::Network, message)
    }

    fn timeout_error(&self) -> LlmError {
        LlmError::new(
            ErrorKind::Timeout,
            format!(
                "{} did not finish answering within {}s",
                self.service,
                self.timeout.as_secs()
            ),
        )
    }
}

fn build_agent(timeout: Duration, proxy: Option<&str>) -> ureq::Agent {
    let proxy = proxy.and_then(|p| ureq::Proxy::new(p).ok());
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(proxy)
        .user_agent(concat!("marvin/", env!("CARGO_PKG_VERSION")))
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_global(Some(timeout))
        .build()
        .new_agent()
}

pub fn header(response: &Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

pub fn is_success(response: &Response) -> bool {
    response.status().is_success()
}

/// The error for a non-2xx response, with the wait a 429 asks for.
pub fn status_error(response: Response, ctx: &ErrorContext<'_>) -> LlmError {
    let status = response.status().as_u16();
    let retry_after = parse_retry_after(
        header(&response, "retry-after-ms").as_deref(),
        header(&response, "retry-after").as_deref(),
        SystemTime::now(),
    );
    let body = read_capped(response.into_body(), MAX_ERROR_BODY).unwrap_or_default();
    api_error::from_http(ctx, status, &body, retry_after)
}

pub fn read_capped(body: ureq::Body, limit: u64) -> io::Result<String> {
    let mut bytes = Vec::new();
    body.into_reader().take(limit).read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
