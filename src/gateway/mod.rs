//! `marvin serve`: the gateway, a second front-end beside the REPL. Sessions are served over
//! HTTP on 127.0.0.1 (JSON in, events out as server-sent events), so several clients can follow
//! one session and answer its questions; the first answer counts. Every request carries the
//! token printed at start (`Authorization: Bearer TOKEN` or `?token=TOKEN`, compared in
//! constant time), a loopback `Host` with this port, and no foreign `Origin`.

mod answers;
mod broadcast;
mod door;
mod events;
mod followers;
mod legacy_events;
mod questions;
mod routes;
mod served;
mod sse;
mod text;

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tiny_http::Request;

use crate::session::Session;
use crate::web;
use crate::web::packed::page_file;
use door::Door;

pub(crate) use served::Served;

/// Requests handled at once; more are told the gateway is busy (503). Each event stream holds
/// one for as long as it is open.
const MAX_REQUESTS: usize = 64;
/// Connections with the token served at once: the requests handled, and room for those told
/// the gateway is busy. Connections without it wait among the gate's strangers.
const MAX_CONNECTIONS: usize = MAX_REQUESTS + 32;

/// Where the gateway listens.
pub(crate) struct Place {
    /// `--listen`: the address listened on, besides the loopback names; 127.0.0.1 without it.
    pub listen: Option<IpAddr>,
    /// `--port`, or 0 for one the OS picks.
    pub port: u16,
    /// TMPDIR, where the server's private socket goes.
    pub temp: PathBuf,
}

/// `address:port` as a Host header and a URL have it (an IPv6 address in brackets).
fn host_and_port(address: IpAddr, port: u16) -> String {
    match address {
        IpAddr::V6(v6) => format!("[{v6}]:{port}"),
        IpAddr::V4(v4) => format!("{v4}:{port}"),
    }
}

/// The page and its assets, embedded (deflated, inflated on the first call: see `web::packed`).
fn page_html() -> &'static str {
    page_file!("gateway/index.html")
}
pub(crate) fn css() -> &'static str {
    page_file!("gateway/gateway.css")
}
pub(crate) fn js() -> &'static str {
    page_file!("gateway/gateway.js")
}
/// The questions' cards: approvals, ask_user's questions, input forms.
pub(crate) fn cards() -> &'static str {
    page_file!("gateway/cards.js")
}
/// The answer's Markdown made into page elements, never parsed as HTML.
pub(crate) fn markdown() -> &'static str {
    page_file!("gateway/markdown.js")
}

/// Makes a new session for the gateway to serve.
pub(crate) type NewSession = Box<dyn Fn() -> Session + Send + Sync>;

/// What the request threads share.
pub(crate) struct Gateway {
    pub port: u16,
    /// Who is let in.
    door: Arc<Door>,
    pub sessions: Mutex<BTreeMap<String, Arc<Served>>>,
    pub new_session: NewSession,
    /// MARVIN_HOME, where stored sessions are listed from and event logs kept.
    pub home: Option<std::path::PathBuf>,
    /// How long a question waits for a client, when not the tool's own time.
    pub question_timeout: Option<Duration>,
}

/// Serves until `stop()` says so (the front-end's Ctrl+C, SIGTERM or SIGHUP): tells `started`
/// the address with its token, then answers requests, each on a thread of its own.
pub(crate) fn serve(
    place: Place,
    home: Option<std::path::PathBuf>,
    question_timeout: Option<Duration>,
    new_session: NewSession,
    started: impl FnOnce(&str, u16),
    mut stop: impl FnMut() -> bool,
) -> Result<(), String> {
    let address = place.listen.unwrap_or(IpAddr::from([127, 0, 0, 1]));
    let token = crate::secret::random_hex(16).map_err(|e| format!("no secure randomness: {e}"))?;
    let door = Arc::new(Door {
        listen: place.listen,
        token,
    });
    let server = listen(address, &place, Arc::clone(&door))?;
    let port = server.port();
    let pool = web::Pool::start(&format!("gw-{port}"), MAX_REQUESTS, too_busy)
        .map_err(|e| format!("cannot start the gateway's threads: {e}"))?;
    started(
        &format!(
            "http://{}/?token={}",
            host_and_port(address, port),
            door.token
        ),
        port,
    );
    let gateway = Arc::new(Gateway {
        port,
        door,
        sessions: Mutex::new(BTreeMap::new()),
        new_session,
        home,
        question_timeout,
    });
    while !stop() {
        match server.server().recv_timeout(Duration::from_millis(200)) {
            Ok(Some(request)) => gateway.take(request, &pool),
            Ok(None) => {}
            Err(error) => return Err(format!("the gateway stopped: {error}")),
        }
    }
    for served in gateway.served() {
        served.cancel();
    }
    Ok(())
}

/// The gateway's server on `address` at `place.port`, behind the gate, which lets only those
/// `door` admits take the gateway's places.
fn listen(address: IpAddr, place: &Place, door: Arc<Door>) -> Result<web::Listening, String> {
    let limits = web::Limits {
        body: routes::MAX_BODY,
        connections: MAX_CONNECTIONS,
        too_big: routes::too_big,
    };
    let at = SocketAddr::new(address, place.port);
    let admit = Box::new(move |request: &dyn web::Asked, port| door.admit(request, port).is_ok());
    web::listen(at, &place.temp, "gw", limits, admit).map_err(|e| {
        let on = match place.port {
            0 => format!("{address}"),
            _ => format!("{address}:{}", place.port),
        };
        let hint = match e.kind() {
            std::io::ErrorKind::AddrInUse => {
                ": another program has that port; leave out --port to take a free one"
            }
            std::io::ErrorKind::PermissionDenied => {
                ": ports below 1024 need root; pick one above, or leave out --port"
            }
            std::io::ErrorKind::AddrNotAvailable => {
                ": --listen takes an address of this machine (ip addr lists them)"
            }
            _ => "",
        };
        format!("cannot listen on {on}: {e}{hint}")
    })
}

fn too_busy() -> web::HttpResponse {
    web::json_response(
        503,
        &serde_json::json!({"error": "the gateway is busy; try again"}),
    )
}

impl Gateway {
    /// Checks the request, then answers it on a thread of its own; a refusal is answered off
    /// this thread too, so a body that trickles in holds up nobody (see [`web::Pool`]).
    fn take(self: &Arc<Self>, request: Request, pool: &web::Pool) {
        if let Err(response) = self.door.admit(&request, self.port) {
            pool.refuse(request, response);
            return;
        }
        let gateway = Arc::clone(self);
        pool.accept(request, move |request| routes::answer(&gateway, request));
    }

    /// The sessions served now.
    pub(crate) fn served(&self) -> Vec<Arc<Served>> {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// The page, its links carrying the token (the assets are asked for with it too).
    pub(crate) fn page(&self) -> String {
        page_html().replace("__TOKEN__", &self.door.token)
    }

    pub(crate) fn find(&self, id: &str) -> Option<Arc<Served>> {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }
}
