//! One live connection to a server, whatever carries it: our requests matched to their
//! responses by id over channels, the server's requests handed to whoever waits (an
//! elicitation belongs to the call under way) or answered at once, and notifications noted.
//! No async runtime: the transport's reader thread hands messages to a [`Sink`], and a caller
//! waits on its own channel with a deadline and the turn's cancel token.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::rpc::{self, Incoming, RpcError};
use crate::cancel::CancelToken;

/// What carries the messages: a child's stdin, or HTTP POSTs.
pub trait Transport: Send + Sync {
    /// Sends one message (a line of JSON, no newline). `Err` says why it could not go.
    fn send(&self, message: String) -> Result<(), String>;
    /// Ends the connection (closes stdin and stops the child; ends the HTTP session).
    fn close(&self);
    /// What the server said on the side (the last lines of a child's stderr), for reports.
    fn diagnostics(&self) -> String {
        String::new()
    }
}

/// What a waiting request receives.
enum Event {
    Response(Result<Value, RpcError>),
    /// A request of the server's while ours is under way (elicitation during tools/call).
    ServerRequest {
        id: Value,
        method: String,
        params: Value,
    },
    /// The connection ended: why.
    Closed(String),
}

/// Why a request got no result.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The server answered with an error.
    Rpc(RpcError),
    TimedOut(Duration),
    Cancelled,
    /// The connection ended (the server exited or the address stopped answering).
    Closed(String),
}

impl Failure {
    pub fn describe(&self) -> String {
        match self {
            Failure::Rpc(error) => format!("{} (error {})", error.message, error.code),
            Failure::TimedOut(limit) if limit.as_secs() == 0 => format!(
                "no answer within {} ms (MARVIN_MCP_TIMEOUT sets the limit)",
                limit.as_millis()
            ),
            Failure::TimedOut(limit) => format!(
                "no answer within {} s (MARVIN_MCP_TIMEOUT sets the limit)",
                limit.as_secs()
            ),
            Failure::Cancelled => "cancelled (Ctrl+C)".into(),
            Failure::Closed(why) => why.clone(),
        }
    }
}

/// Answers the server's requests made during a call (elicitation); `None` for a method this
/// caller does not handle, which then gets the connection's default answer.
pub type ServerRequests<'a> = &'a mut dyn FnMut(&str, &Value) -> Option<Result<Value, RpcError>>;

/// Where a transport's reader hands what the server sent.
#[derive(Clone)]
pub struct Sink(Weak<Connection>);

impl Sink {
    pub fn deliver(&self, message: Incoming) {
        self.deliver_during(None, message);
    }

    /// A message that came while request `call` was under way, on its own channel (an HTTP
    /// answer's stream): a request of the server's in it belongs to that call.
    pub fn deliver_during(&self, call: Option<u64>, message: Incoming) {
        if let Some(connection) = self.0.upgrade() {
            connection.deliver(call, message);
        }
    }

    /// Request `id` could not be carried (nothing answers at the address, the answer broke
    /// off): it fails with `why`, and the connection stays for the next one.
    pub fn failed(&self, id: u64, why: String) {
        if let Some(sender) = self.0.upgrade().and_then(|c| c.take_pending(id)) {
            let _ = sender.send(Event::Closed(why));
        }
    }

    /// The connection ended: why.
    pub fn closed(&self, why: String) {
        if let Some(connection) = self.0.upgrade() {
            connection.closed(why);
        }
    }

    /// The server sent something that is not a message; kept for `/mcp`.
    pub fn garbage(&self, what: String) {
        if let Some(connection) = self.0.upgrade() {
            *connection
                .garbage
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(what);
        }
    }
}

pub struct Connection {
    transport: OnceLock<Box<dyn Transport>>,
    next_id: AtomicU64,
    pending: Mutex<Pending>,
    /// Set by `notifications/tools/list_changed`; the owner refetches the tools.
    pub tools_changed: AtomicBool,
    closed: Mutex<Option<String>>,
    garbage: Mutex<Option<String>>,
}

#[derive(Default)]
struct Pending {
    waiting: HashMap<u64, Sender<Event>>,
    /// Ids in the order they were sent: server requests go to the latest call under way.
    order: Vec<u64>,
}

impl Connection {
    /// A connection over the transport `make` builds, given where to deliver what it reads.
    pub fn open(
        make: impl FnOnce(Sink) -> Result<Box<dyn Transport>, String>,
    ) -> Result<Arc<Self>, String> {
        let connection = Arc::new(Self {
            transport: OnceLock::new(),
            next_id: AtomicU64::new(1),
            pending: Mutex::new(Pending::default()),
            tools_changed: AtomicBool::new(false),
            closed: Mutex::new(None),
            garbage: Mutex::new(None),
        });
        let transport = make(Sink(Arc::downgrade(&connection)))?;
        let _ = connection.transport.set(transport);
        Ok(connection)
    }

    fn send(&self, message: String) -> Result<(), String> {
        match self.transport.get() {
            Some(transport) => transport.send(message),
            None => Err("the connection is not open yet".into()),
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A message from the server (called by the transport's reader).
    fn deliver(&self, call: Option<u64>, message: Incoming) {
        match message {
            Incoming::Response { id, result } => {
                let sender = self.take_pending(id);
                // A late answer to a request that gave up is dropped, as the spec says.
                if let Some(sender) = sender {
                    let _ = sender.send(Event::Response(result));
                }
            }
            Incoming::Request { id, method, params } => {
                if method == "ping" {
                    let _ = self.send(rpc::response(&id, Ok(json!({}))));
                    return;
                }
                // Its own call when the transport knows it, else the latest call under way.
                let latest = {
                    let pending = self.pending();
                    call.or_else(|| pending.order.last().copied())
                        .and_then(|id| pending.waiting.get(&id).cloned())
                };
                let event = Event::ServerRequest { id, method, params };
                let unhandled = match latest {
                    Some(sender) => sender.send(event).err().map(|e| e.0),
                    None => Some(event),
                };
                if let Some(Event::ServerRequest { id, method, .. }) = unhandled {
                    let _ = self.send(rpc::response(&id, Err(not_offered(&method))));
                }
            }
            Incoming::Notification { method, .. } => {
                if method == "notifications/tools/list_changed" {
                    self.tools_changed.store(true, Ordering::SeqCst);
                }
            }
        }
    }

    /// The connection ended (the child exited, the stream broke): every waiting request ends.
    pub fn closed(&self, why: String) {
        *self.closed.lock().unwrap_or_else(PoisonError::into_inner) = Some(why.clone());
        let waiting: Vec<Sender<Event>> = {
            let mut pending = self.pending();
            pending.order.clear();
            pending.waiting.drain().map(|(_, sender)| sender).collect()
        };
        for sender in waiting {
            let _ = sender.send(Event::Closed(why.clone()));
        }
    }

    /// Why the connection ended, if it has.
    pub fn ended(&self) -> Option<String> {
        self.closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn notify(&self, method: &str, params: Value) -> Result<(), String> {
        self.send(rpc::notification(method, params))
    }

    /// What the server said on the side, and the first thing it sent that was not a message.
    pub fn diagnostics(&self) -> String {
        let mut text = self
            .transport
            .get()
            .map(|t| t.diagnostics())
            .unwrap_or_default();
        if let Some(garbage) = self
            .garbage
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            text.push_str(&format!("\nIt wrote {garbage}."));
        }
        text
    }

    pub fn close(&self) {
        if let Some(transport) = self.transport.get() {
            transport.close();
        }
    }

    /// Sends request `method` and waits for its result, at most `timeout`, until `cancel`;
    /// the server's requests meanwhile go to `on_request`. A request that gives up tells the
    /// server (`notifications/cancelled`).
    pub fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &CancelToken,
        on_request: ServerRequests<'_>,
    ) -> Result<Value, Failure> {
        if let Some(why) = self.ended() {
            return Err(Failure::Closed(why));
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (sender, receiver) = mpsc::channel();
        {
            let mut pending = self.pending();
            pending.waiting.insert(id, sender);
            pending.order.push(id);
        }
        if let Err(why) = self.send(rpc::request(id, method, params)) {
            self.take_pending(id);
            // A server that stopped reading has usually exited: its exit status and last
            // words say more than the broken pipe does.
            let deadline = Instant::now() + Duration::from_secs(1);
            while self.ended().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            return Err(Failure::Closed(self.ended().unwrap_or(why)));
        }
        let outcome = self.wait(id, &receiver, timeout, cancel, on_request);
        if let Err(failure @ (Failure::TimedOut(_) | Failure::Cancelled)) = &outcome {
            self.take_pending(id);
            let reason = failure.describe();
            let _ = self.notify(
                "notifications/cancelled",
                json!({"requestId": id, "reason": reason}),
            );
        }
        outcome
    }

    fn wait(
        &self,
        id: u64,
        receiver: &Receiver<Event>,
        timeout: Duration,
        cancel: &CancelToken,
        on_request: ServerRequests<'_>,
    ) -> Result<Value, Failure> {
        let deadline = Instant::now() + timeout;
        // Time the person spends answering the server's question does not count.
        let mut paused = Duration::ZERO;
        loop {
            if cancel.is_cancelled() {
                return Err(Failure::Cancelled);
            }
            let left = (deadline + paused).saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Failure::TimedOut(timeout));
            }
            match receiver.recv_timeout(left.min(Duration::from_millis(100))) {
                Ok(Event::Response(Ok(result))) => return Ok(result),
                Ok(Event::Response(Err(error))) => return Err(Failure::Rpc(error)),
                Ok(Event::Closed(why)) => return Err(Failure::Closed(why)),
                Ok(Event::ServerRequest {
                    id: asked,
                    method,
                    params,
                }) => {
                    let started = Instant::now();
                    let answer =
                        on_request(&method, &params).unwrap_or_else(|| Err(not_offered(&method)));
                    paused += started.elapsed();
                    let _ = self.send(rpc::response(&asked, answer));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Failure::Closed(format!("request {id} was dropped")));
                }
            }
        }
    }

    /// Takes request `id` out of those waiting: its channel, if it still waits.
    fn take_pending(&self, id: u64) -> Option<Sender<Event>> {
        let mut pending = self.pending();
        pending.order.retain(|other| *other != id);
        pending.waiting.remove(&id)
    }
}

fn not_offered(method: &str) -> RpcError {
    RpcError {
        code: rpc::METHOD_NOT_FOUND,
        message: format!("Method not found: {method}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeps what is sent; the test plays the server through the sink.
    struct Recorder(Arc<Mutex<Vec<String>>>);

    impl Transport for Recorder {
        fn send(&self, message: String) -> Result<(), String> {
            self.0.lock().unwrap().push(message);
            Ok(())
        }
        fn close(&self) {}
    }

    fn open() -> (Arc<Connection>, Sink, Arc<Mutex<Vec<String>>>) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let mut kept = None;
        let connection = Connection::open(|sink| {
            kept = Some(sink);
            Ok(Box::new(Recorder(sent.clone())))
        })
        .unwrap();
        (connection, kept.unwrap(), sent)
    }

    /// Waits until `n` messages were sent.
    fn sent_count(sent: &Mutex<Vec<String>>, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while sent.lock().unwrap().len() < n {
            assert!(Instant::now() < deadline, "only {:?}", sent.lock().unwrap());
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn a_servers_request_goes_to_the_call_whose_answer_carried_it() {
        let (connection, sink, sent) = open();
        let call = |name: &'static str| {
            let connection = connection.clone();
            std::thread::spawn(move || {
                let mut asked = Vec::new();
                let result = connection.request(
                    "tools/call",
                    json!({"name": name}),
                    Duration::from_secs(10),
                    &CancelToken::new(),
                    &mut |method, _| {
                        asked.push(method.to_string());
                        Some(Ok(json!({"action": "decline"})))
                    },
                );
                (result, asked)
            })
        };
        let first = call("first");
        sent_count(&sent, 1);
        let second = call("second");
        sent_count(&sent, 2);
        // The elicitation came on the first call's stream, though the second is the latest.
        sink.deliver_during(
            Some(1),
            Incoming::Request {
                id: json!(0),
                method: "elicitation/create".into(),
                params: json!({}),
            },
        );
        sent_count(&sent, 3);
        assert_eq!(
            sent.lock().unwrap()[2],
            r#"{"id":0,"jsonrpc":"2.0","result":{"action":"decline"}}"#
        );
        for id in [1, 2] {
            sink.deliver(Incoming::Response {
                id,
                result: Ok(json!({"id": id})),
            });
        }
        let (first, second) = (first.join().unwrap(), second.join().unwrap());
        assert_eq!(
            first,
            (Ok(json!({"id": 1})), vec!["elicitation/create".to_string()])
        );
        assert_eq!(second, (Ok(json!({"id": 2})), vec![]));
    }

    #[test]
    fn a_request_that_could_not_be_carried_fails_alone() {
        let (connection, sink, sent) = open();
        let waiting = {
            let connection = connection.clone();
            std::thread::spawn(move || {
                connection.request(
                    "tools/list",
                    json!({}),
                    Duration::from_secs(10),
                    &CancelToken::new(),
                    &mut |_, _| None,
                )
            })
        };
        sent_count(&sent, 1);
        sink.failed(1, "nothing answers at http://127.0.0.1:9/mcp".into());
        assert_eq!(
            waiting.join().unwrap(),
            Err(Failure::Closed(
                "nothing answers at http://127.0.0.1:9/mcp".into()
            ))
        );
        assert_eq!(connection.ended(), None);
    }
}
