//! Resuming a call's stream the server closed before the result (MCP 2025-11-25, SEP-1699),
//! against the local server of the transport's tests.

use std::time::Instant;

use super::*;

/// The priming event of a stream the server will close: its id, and the wait it asks for.
fn priming(id: &str, retry_ms: u64) -> String {
    format!("id: {id}\nretry: {retry_ms}\ndata: \n\n")
}

/// The server's stream after `initialize` and `notifications/initialized` are answered as
/// server-everything answers them; the listening GET (no `Last-Event-ID`) is refused.
fn lifecycle(seen: &Seen, out: &mut dyn Write) -> bool {
    match (seen.method.as_str(), seen.rpc().as_str()) {
        ("GET", _) if seen.header("last-event-id").is_none() => {
            reply(out, "405 Method Not Allowed", &[], "");
        }
        ("POST", "initialize") => sse(out, Some(SESSION), &[&seen.answer(INITIALIZE)]),
        ("POST", "notifications/initialized") => reply(out, "202 Accepted", &[], ""),
        _ => return false,
    }
    true
}

fn call(connection: &Connection) -> Result<Value, Failure> {
    ask(connection, "initialize").unwrap();
    connection
        .notify("notifications/initialized", Value::Null)
        .unwrap();
    ask(connection, "tools/call")
}

fn resumptions(server: &Server) -> Vec<Seen> {
    let seen = server.seen().into_iter();
    seen.filter(|s| s.header("last-event-id").is_some())
        .collect()
}

#[test]
fn a_call_cut_before_its_result_resumes_with_the_last_event_id_after_the_servers_retry() {
    let closed: Arc<Mutex<Option<Instant>>> = Arc::default();
    let resumed: Arc<Mutex<Option<Instant>>> = Arc::default();
    let (at_close, at_resume) = (closed.clone(), resumed.clone());
    // The call to resume is remembered from its POST, as a server keeps it with its events.
    let pending = Arc::new(Mutex::new(String::new()));
    let server = Server::start(move |seen, out| {
        if lifecycle(seen, out) {
            return;
        }
        if seen.method == "GET" {
            *at_resume.lock().unwrap() = Some(Instant::now());
            stream(out, Some(SESSION));
            chunk(out, &priming("ev-3", 300));
            event(out, &pending.lock().unwrap());
            // A resumed stream may stay open after the result: the client stops reading.
            return;
        }
        *pending.lock().unwrap() = seen.answer(ECHO);
        stream(out, Some(SESSION));
        chunk(out, "id: ev-1\ndata: \n\n");
        chunk(out, &priming("ev-2", 300));
        end(out);
        *at_close.lock().unwrap() = Some(Instant::now());
    });
    let connection = connect(&server.url);
    let result = call(&connection).unwrap();
    assert_eq!(result["content"][0]["text"], "Echo: hello over http");
    let again = resumptions(&server);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(again[0].method, "GET");
    assert_eq!(again[0].header("last-event-id"), Some("ev-2"));
    assert_eq!(again[0].header("mcp-session-id"), Some(SESSION));
    assert_eq!(again[0].header("accept"), Some("text/event-stream"));
    assert_eq!(again[0].header("authorization"), Some(TOKEN));
    let waited = resumed.lock().unwrap().unwrap() - closed.lock().unwrap().unwrap();
    assert!(
        waited >= Duration::from_millis(300),
        "resumed after {waited:?}"
    );
}

#[test]
fn resuming_is_given_up_after_resumptions_that_bring_nothing() {
    let server = Server::start(|seen, out| {
        if lifecycle(seen, out) {
            return;
        }
        // Each stream, the first and every resumed one, closes after its priming event.
        stream(out, Some(SESSION));
        chunk(out, &priming("ev-1", 5));
        end(out);
    });
    let connection = connect(&server.url);
    let message = format!(
        "the answer from {} broke off before the result, and 5 resumptions in a row brought \
         nothing",
        server.url
    );
    assert_eq!(call(&connection), Err(Failure::Closed(message)));
    assert_eq!(resumptions(&server).len(), 5);
}

#[test]
fn a_server_that_refuses_the_resumption_fails_the_call_in_words() {
    let server = Server::start(|seen, out| {
        if lifecycle(seen, out) {
            return;
        }
        if seen.method == "GET" {
            return reply(out, "405 Method Not Allowed", &[], "");
        }
        stream(out, Some(SESSION));
        chunk(out, &priming("ev-1", 5));
        end(out);
    });
    let connection = connect(&server.url);
    let Err(Failure::Rpc(error)) = call(&connection) else {
        panic!("the call did not fail with the refusal");
    };
    assert!(
        error.message.starts_with(
            "the answer broke off before the result, and resuming it failed: the server at"
        ),
        "{}",
        error.message
    );
    assert!(error.message.contains("HTTP 405"), "{}", error.message);
    assert_eq!(resumptions(&server).len(), 1);
}
