//! Properties of MCP's JSON-RPC reading: any line is told apart or refused without a panic,
//! the way a reference reading of the message says; what Marvin writes reads back as written;
//! a server's stdout and stderr, any bytes cut anywhere, are read to their end, every request
//! in them answered once and nothing more, what is kept of stderr bounded.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::connection::{Connection, Sink, Transport};
use super::rpc::{self, Incoming, RpcError};
use super::stdio::{STDERR_LINE_BYTES, STDERR_LINES, keep_tail, read_messages};
use crate::props::{config, json as any_json, leaf, split_at, text};

const KEYS: &[&str] = &[
    "jsonrpc", "id", "method", "params", "result", "error", "code", "message",
];

/// A message object with the fields of JSON-RPC, each present or not, of any type.
fn message() -> impl Strategy<Value = Value> {
    let field = |values: BoxedStrategy<Value>| prop::option::of(values);
    (
        field(prop_oneof![Just(json!("2.0")), leaf()].boxed()),
        field(prop_oneof![(0u64..9).prop_map(Value::from), leaf()].boxed()),
        field(prop_oneof![Just(json!("ping")), Just(json!("roots/list")), leaf()].boxed()),
        field(any_json(KEYS, 2).boxed()),
        field(any_json(KEYS, 2).boxed()),
        field(
            prop_oneof![
                Just(json!({"code": -32601, "message": "no"})),
                any_json(KEYS, 2)
            ]
            .boxed(),
        ),
    )
        .prop_map(|(jsonrpc, id, method, params, result, error)| {
            let fields = [
                ("jsonrpc", jsonrpc),
                ("id", id),
                ("method", method),
                ("params", params),
                ("result", result),
                ("error", error),
            ];
            let object: Map<String, Value> = fields
                .into_iter()
                .filter_map(|(key, value)| Some((key.to_string(), value?)))
                .collect();
            Value::Object(object)
        })
}

/// What the message is, read by hand from the JSON-RPC rules: `None` for one refused.
fn reference(value: &Value) -> Option<&'static str> {
    let object = value.as_object()?;
    let id = object.get("id").filter(|id| !id.is_null());
    match (object.get("method"), id) {
        (Some(Value::String(_)), Some(_)) => Some("request"),
        (Some(Value::String(_)), None) => Some("notification"),
        (Some(_), _) => None,
        (None, Some(id)) if id.is_u64() => {
            (object.contains_key("result") || object.contains_key("error")).then_some("response")
        }
        (None, _) => None,
    }
}

/// `value` with every number that is not an integer written as text.
fn without_fractions(value: Value) -> Value {
    match value {
        Value::Number(n) if n.as_i64().or(n.as_u64().map(|_| 0)).is_none() => json!(n.to_string()),
        Value::Array(items) => Value::Array(items.into_iter().map(without_fractions).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, without_fractions(v)))
                .collect(),
        ),
        other => other,
    }
}

/// A transport that keeps what is sent.
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Transport for Recorder {
    fn send(&self, message: String) -> Result<(), String> {
        self.0.lock().map_err(|e| e.to_string())?.push(message);
        Ok(())
    }
    fn close(&self) {}
}

/// Bytes handed over a piece at a time, counting what was read.
struct Pieces {
    pieces: VecDeque<Vec<u8>>,
    read: Arc<Mutex<usize>>,
}

impl Read for Pieces {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pieces.front().is_some_and(Vec::is_empty) {
            self.pieces.pop_front();
        }
        let Some(front) = self.pieces.front_mut() else {
            return Ok(0);
        };
        let n = front.len().min(out.len());
        out[..n].copy_from_slice(&front[..n]);
        front.drain(..n);
        *self.read.lock().map_err(|_| io::ErrorKind::Other)? += n;
        Ok(n)
    }
}

fn pieces(bytes: &[u8], cuts: &[usize]) -> (Pieces, Arc<Mutex<usize>>) {
    let read = Arc::new(Mutex::new(0));
    let reader = Pieces {
        pieces: split_at(bytes, cuts).into(),
        read: Arc::clone(&read),
    };
    (reader, read)
}

/// Reads `stdout` as a server's, with no call under way; what was sent back, and the
/// connection (for what it noted).
fn serve_stdout(stdout: Pieces) -> (Vec<String>, Arc<Connection>) {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let mut sink: Option<Sink> = None;
    let recorder = Recorder(Arc::clone(&sent));
    let connection = Connection::open(|given| {
        sink = Some(given);
        Ok(Box::new(recorder))
    });
    let connection = connection.unwrap_or_else(|e| panic!("{e}"));
    if let Some(sink) = &sink {
        read_messages(stdout, sink);
    }
    let sent = sent.lock().map(|s| s.clone()).unwrap_or_default();
    (sent, connection)
}

/// A line of a server's stdout: a message of any kind, or not a message.
fn stdout_line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => message().prop_map(|m| m.to_string()),
        1 => Just(r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#.to_string()),
        1 => text(20).prop_map(|t| t.replace(['\n', '\r'], "")),
        1 => Just(String::new()),
        1 => Just("   ".to_string()),
    ]
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn any_message_is_told_apart_as_the_rules_say(value in prop_oneof![3 => message(), 1 => any_json(KEYS, 3)]) {
        let parsed = rpc::parse(&value.to_string());
        let kind = parsed.as_ref().ok().map(|incoming| match incoming {
            Incoming::Request { .. } => "request",
            Incoming::Notification { .. } => "notification",
            Incoming::Response { .. } => "response",
        });
        prop_assert_eq!(kind, reference(&value), "{}: {:?}", value, parsed);
    }

    #[test]
    fn any_text_is_refused_with_a_reason_or_read(line in text(64)) {
        if let Err(why) = rpc::parse(&line) {
            prop_assert!(!why.is_empty());
        }
    }

    #[test]
    fn what_marvin_writes_reads_back_as_written(
        id in any::<u64>(),
        method in "[a-z/_]{1,20}",
        params in any_json(KEYS, 3),
        failed in any::<bool>(),
        code in any::<i64>(),
        message in text(20),
    ) {
        // Without fractions: serde_json may read a float back a unit in the last place off.
        let params = without_fractions(params);
        let request = rpc::parse(&rpc::request(id, &method, params.clone()));
        let expected = Incoming::Request { id: json!(id), method: method.clone(), params: params.clone() };
        prop_assert_eq!(request, Ok(expected));
        let notified = rpc::parse(&rpc::notification(&method, params.clone()));
        prop_assert_eq!(notified, Ok(Incoming::Notification { method, params: params.clone() }));
        let result = if failed { Err(RpcError { code, message }) } else { Ok(params) };
        let answered = rpc::parse(&rpc::response(&json!(id), result.clone()));
        prop_assert_eq!(answered, Ok(Incoming::Response { id, result }));
    }

    #[test]
    fn a_servers_stdout_is_read_to_the_end_and_each_request_answered_once(
        lines in prop::collection::vec(stdout_line(), 0..12),
        crlf in any::<bool>(),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let stdout = lines.join(if crlf { "\r\n" } else { "\n" });
        let (reader, read) = pieces(stdout.as_bytes(), &cuts);
        let (sent, connection) = serve_stdout(reader);
        prop_assert_eq!(*read.lock().map_err(|e| TestCaseError::fail(e.to_string()))?, stdout.len());
        let requests = lines
            .iter()
            .filter(|line| matches!(rpc::parse(line.trim()), Ok(Incoming::Request { .. })))
            .count();
        prop_assert_eq!(sent.len(), requests, "{:?}", sent);
        let garbage = lines.iter().any(|line| !line.trim().is_empty() && rpc::parse(line.trim()).is_err());
        prop_assert_eq!(connection.diagnostics().contains("It wrote"), garbage);
    }

    #[test]
    fn a_servers_stderr_is_read_to_the_end_and_its_tail_kept_bounded(
        bytes in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(0xff), any::<u8>()], 0..600),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let (reader, read) = pieces(&bytes, &cuts);
        let kept = Mutex::new(VecDeque::new());
        keep_tail(reader, &kept);
        prop_assert_eq!(*read.lock().map_err(|e| TestCaseError::fail(e.to_string()))?, bytes.len());
        let kept = kept.lock().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(kept.len() <= STDERR_LINES);
        prop_assert!(kept.iter().all(|line| !line.is_empty() && line.len() <= STDERR_LINE_BYTES + 3));
    }
}
