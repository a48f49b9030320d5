//! The cancel-aware exchange: one request and the reading of its answer, which Ctrl+C
//! interrupts at once (even mid-read), paced per host when the service asks for it, with every
//! credential it carried cut out of whatever error comes back.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use super::agent;
use super::guard::Guard;
use super::pace::Pacer;
use super::redact::{Redact, Secrets};
use super::transport::{Phase, Transport};
use super::url::server_of;
use crate::cancel::CancelToken;

pub(crate) type Response = ureq::http::Response<ureq::Body>;

/// Why an exchange gave no answer.
#[derive(Debug, PartialEq)]
pub(crate) enum Failure<E> {
    /// The cancel token fired: whatever happened on the wire no longer matters.
    Cancelled,
    /// Sending the request or waiting for its answer failed.
    Transport(Transport),
    /// The reader refused the answer (its own error).
    Answer(E),
}

/// The connection to one service: an agent whose pooled connections the calls share, its
/// idle timeout, the proxy, the credentials to keep out of errors, and the pace it asks for.
pub(crate) struct Client {
    /// How long to wait with nothing arriving, in milliseconds; it may change between calls.
    timeout_ms: AtomicU64,
    proxy: Option<String>,
    secrets: Secrets,
    /// The least time between two requests to one host (`ZERO`: no pace).
    min_interval: Duration,
    pacer: &'static Pacer,
    /// Checks every address a request connects to, when the address is the model's choice.
    guard: Option<Guard>,
    /// Replaced after a cancel, because `shutdown` closes the whole pool.
    agent: Mutex<ureq::Agent>,
}

impl Client {
    /// A client that waits `idle` with nothing arriving, through `proxy` when given.
    pub(crate) fn new(idle: Duration, proxy: Option<String>) -> Self {
        Self {
            timeout_ms: AtomicU64::new(idle.as_millis() as u64),
            agent: Mutex::new(agent::build(idle, proxy.as_deref(), None)),
            proxy,
            secrets: Secrets::new(),
            min_interval: Duration::ZERO,
            pacer: Pacer::shared(),
            guard: None,
        }
    }

    /// The same client, every address its requests and their redirects connect to checked by
    /// `guard` first.
    pub(crate) fn with_guard(mut self, guard: Guard) -> Self {
        self.guard = Some(guard);
        self.renew();
        self
    }

    /// The same client, keeping `secrets` out of every error of every exchange.
    pub(crate) fn with_secrets(mut self, secrets: Secrets) -> Self {
        self.secrets = secrets;
        self
    }

    /// The same client, sending at most one request per `interval` to a host, together with
    /// every other client of this process.
    pub(crate) fn with_min_interval(mut self, interval: Duration) -> Self {
        self.min_interval = interval;
        self
    }

    /// The credentials every exchange of this client keeps out of its errors.
    pub(crate) fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// How long requests wait with nothing arriving.
    pub(crate) fn idle_timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.load(Ordering::SeqCst))
    }

    /// Later requests wait `timeout` with nothing arriving.
    pub(crate) fn set_idle_timeout(&self, timeout: Duration) {
        let millis = timeout.as_millis() as u64;
        if self.timeout_ms.swap(millis, Ordering::SeqCst) != millis {
            self.renew();
        }
    }

    /// Drops pooled connections, e.g. after a timeout, so the next call starts afresh.
    pub(crate) fn renew(&self) {
        *self.agent.lock().unwrap_or_else(PoisonError::into_inner) = agent::build(
            self.idle_timeout(),
            self.proxy.as_deref(),
            self.guard.as_ref(),
        );
    }

    /// One request to `url` carrying the credential `sent`: `send` issues it with the agent,
    /// `read` consumes the answer. Ctrl+C interrupts either at once, and the pool is renewed
    /// afterwards. Whatever error comes out has every credential cut out of it.
    pub(crate) fn exchange<T, E: Redact>(
        &self,
        cancel: &CancelToken,
        url: &str,
        sent: Option<&str>,
        send: impl FnOnce(&ureq::Agent) -> Result<Response, ureq::Error>,
        read: impl FnOnce(Response) -> Result<T, E>,
    ) -> Result<T, Failure<E>> {
        if !self
            .pacer
            .wait_turn(&server_of(url), self.min_interval, cancel)
        {
            return Err(Failure::Cancelled);
        }
        let agent = self
            .agent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let result = {
            let interrupt = agent.clone();
            let _hook = cancel.on_cancel(move || interrupt.shutdown());
            // A cancel that came before the hook shut an agent no request uses yet: do not
            // start one that nothing would interrupt any more.
            if cancel.is_cancelled() {
                drop(_hook);
                self.renew();
                return Err(Failure::Cancelled);
            }
            match send(&agent) {
                // A cancel that came while connecting may have found no connection to close:
                // the answer is not read (its body could stall for the whole idle timeout).
                Ok(_) if cancel.is_cancelled() => Err(Failure::Cancelled),
                Ok(response) => read(response).map_err(Failure::Answer),
                Err(error) => Err(Failure::Transport(Transport::from_ureq(
                    error,
                    Phase::Request,
                ))),
            }
        };
        if cancel.is_cancelled() {
            self.renew();
            return Err(Failure::Cancelled);
        }
        let secrets = self.secrets.clone().with(sent);
        result.map_err(|failure| match failure {
            Failure::Transport(transport) => {
                Failure::Transport(transport.map_text(|text| secrets.redact(text)))
            }
            Failure::Answer(error) => Failure::Answer(error.redacted(&secrets)),
            Failure::Cancelled => Failure::Cancelled,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Guard;

    /// A local server on its own thread; `answer` handles the one request it gets.
    fn serve(answer: impl FnOnce(tiny_http::Request) + Send + 'static) -> String {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", server.server_addr().to_ip().unwrap());
        std::thread::spawn(move || answer(server.recv().unwrap()));
        url
    }

    fn get(agent: &ureq::Agent, url: &str) -> Result<Response, ureq::Error> {
        agent.get(url).call()
    }

    #[test]
    fn answers_are_read_and_refusals_have_the_credentials_cut_out() {
        let url = serve(|request| {
            let text = "bad key sk-secret-123 for me:hunter22";
            let _ = request.respond(tiny_http::Response::from_string(text).with_status_code(401));
        });
        let client = Client::new(Duration::from_secs(30), None)
            .with_secrets(Secrets::new().with_url("http://me:hunter22@host/v1"));
        let failure = client
            .exchange(
                &CancelToken::new(),
                &url,
                Some("sk-secret-123"),
                |agent| get(agent, &url),
                |response| -> Result<(), String> {
                    Err(super::super::read_start(response.into_body().into_reader(), 100).unwrap())
                },
            )
            .unwrap_err();
        assert_eq!(
            failure,
            Failure::Answer("bad key [redacted] for [redacted]".to_string())
        );
    }

    #[test]
    fn a_cancel_interrupts_a_request_that_gets_no_answer() {
        let cancel = CancelToken::new();
        let canceller = cancel.clone();
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let url = serve(move |request| {
            canceller.cancel();
            // Hold the request unanswered until the exchange has given up.
            let _ = finished.recv();
            drop(request);
        });
        let client = Client::new(Duration::from_secs(600), None);
        let result = client.exchange(
            &cancel,
            &url,
            None,
            |agent| get(agent, &url),
            |_| Ok::<_, String>(()),
        );
        drop(done);
        assert_eq!(result, Err(Failure::Cancelled));
    }

    #[test]
    fn a_guarded_client_reaches_own_addresses_only_as_allowed_redirects_included() {
        let secret = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let secret_port = secret.local_addr().unwrap().port();
        let target = format!("http://127.0.0.1:{secret_port}/secret");
        let moved = target.clone();
        let url = serve(move |request| {
            let location = tiny_http::Header::from_bytes("Location", moved).unwrap();
            let _ = request.respond(
                tiny_http::Response::from_string("moved")
                    .with_status_code(302)
                    .with_header(location),
            );
        });
        let allowed = crate::net::host_of(&url);
        let port: u16 = url
            .rsplit(':')
            .next()
            .unwrap()
            .trim_end_matches("/v1")
            .parse()
            .unwrap();
        let guard = Guard::new(move |host, addr| host == allowed && addr.port() == port);
        let client = Client::new(Duration::from_secs(30), None).with_guard(guard);
        let get_it = |url: &str| {
            client.exchange(
                &CancelToken::new(),
                url,
                None,
                |agent| get(agent, url),
                |_| Ok::<_, String>(()),
            )
        };
        let Err(Failure::Transport(Transport::Guarded(refusal))) = get_it(&url) else {
            panic!("the redirect was followed");
        };
        assert_eq!(refusal.url, target);
        assert_eq!(refusal.addr.to_string(), format!("127.0.0.1:{secret_port}"));
        for spelling in ["2130706433", "0x7f000001", "127.1", "[::ffff:127.0.0.1]"] {
            let url = format!("http://{spelling}:{secret_port}/");
            let result = get_it(&url);
            assert!(
                matches!(&result, Err(Failure::Transport(Transport::Guarded(r))) if r.host == spelling),
                "{spelling}: {result:?}"
            );
        }
        secret.set_nonblocking(true).unwrap();
        assert!(
            secret.accept().is_err(),
            "nothing connected to the secret port"
        );
    }

    #[test]
    fn a_closed_port_is_a_transport_failure() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("http://127.0.0.1:{port}/v1");
        let client = Client::new(Duration::from_secs(30), None);
        let result = client.exchange(
            &CancelToken::new(),
            &url,
            None,
            |agent| get(agent, &url),
            |_| Ok::<_, String>(()),
        );
        assert_eq!(result, Err(Failure::Transport(Transport::Refused)));
    }
}
