//! The transport against a local server replaying what server-everything sent over
//! Streamable HTTP.

use std::io::Write;
use std::sync::mpsc;
use std::thread::JoinHandle;

use serde_json::json;

use super::*;
use crate::cancel::CancelToken;
use crate::tools::mcp::connection::{Connection, Failure};

// What server-everything 2026.8.31 (SDK 1.32.2) sent over Streamable HTTP, recorded on
// 2026-11-24 (/tmp/mcp-research/exchanges/http-*.txt): the priming event with empty data
// that starts every stream, the `event: message` events, the session header and the error
// bodies, verbatim. Cut: the initialize instructions, the tool list to its first tool and
// the elicitation schema to its required field. Ids are the requests' own.
const SESSION: &str = "f28f1d5a-5c41-476f-a510-0f1a59458e6c";
const PRIMING: &str = "id: ae4d92bc-843a-4802-8581-69df095d4830\ndata: \n\n";
const INITIALIZE: &str = r##"{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{},"completions":{}},"serverInfo":{"name":"mcp-servers/everything","title":"Everything Reference Server","version":"2.0.0"},"instructions":"# Everything Server – Server Instructions"}"##;
const TOOLS: &str = r#"{"tools":[{"name":"echo","title":"Echo Tool","description":"Echoes back the input string","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"]},"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"execution":{"taskSupport":"forbidden"}}]}"#;
const ECHO: &str = r#"{"content":[{"type":"text","text":"Echo: hello over http"}]}"#;
const ELICIT: &str = r#"{"method":"elicitation/create","params":{"message":"Please provide inputs for the following fields:","requestedSchema":{"type":"object","properties":{"name":{"title":"String","type":"string","description":"Your full, legal name"}},"required":["name"]}},"jsonrpc":"2.0","id":0}"#;
const ELICITED: &str =
    r#"{"content":[{"type":"text","text":"✅ User provided the requested information!"}]}"#;
const NOT_ACCEPTABLE: &str = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"},"id":null}"#;
const NOT_INITIALIZED: &str = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}"#;
const NO_SESSION: &str = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}"#;
const TOKEN: &str = "Bearer sk-test-123456";

/// One request as the test server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        let found = self
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name));
        found.map(|(_, value)| value.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The JSON-RPC method, or "" for an answer of ours.
    fn rpc(&self) -> String {
        self.json()["method"].as_str().unwrap_or("").to_string()
    }

    /// The recorded `result` as the answer to this request.
    fn answer(&self, result: &str) -> String {
        let id = &self.json()["id"];
        format!(r#"{{"result":{result},"jsonrpc":"2.0","id":{id}}}"#)
    }
}

type Answer = dyn Fn(&Seen, &mut dyn Write) + Send + Sync;

/// A local server answering each request on a thread of its own (a stream stays open while
/// the answer to an elicitation arrives), in raw HTTP so each event leaves when written.
struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    fn start(answer: impl Fn(&Seen, &mut dyn Write) + Send + Sync + 'static) -> Self {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let url = format!("http://{}/mcp", server.server_addr().to_ip().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let answer: Arc<Answer> = Arc::new(answer);
        let (listening, log) = (server.clone(), seen.clone());
        let thread = std::thread::spawn(move || {
            for mut request in listening.incoming_requests() {
                let mut body = String::new();
                let _ = request.as_reader().read_to_string(&mut body);
                let headers = request.headers().iter();
                let headers = headers.map(|h| (h.field.to_string(), h.value.to_string()));
                let one = Seen {
                    method: request.method().to_string(),
                    headers: headers.collect(),
                    body,
                };
                log.lock().unwrap().push(one.clone());
                let answer = answer.clone();
                let mut out = request.into_writer();
                std::thread::spawn(move || answer(&one, &mut out));
            }
        });
        Self {
            url,
            seen,
            server,
            thread: Some(thread),
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        if !std::thread::panicking() {
            assert!(!self.seen().is_empty(), "the test server was never called");
        }
    }
}

/// A whole answer with its length.
fn reply(out: &mut dyn Write, status: &str, headers: &[(&str, &str)], body: &str) {
    let mut head = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let _ = write!(out, "{head}Content-Length: {}\r\n\r\n{body}", body.len());
    let _ = out.flush();
}

/// The start of an event stream; each [`chunk`] then leaves at once.
fn stream(out: &mut dyn Write, session: Option<&str>) {
    let session = session.map(|id| format!("mcp-session-id: {id}\r\n"));
    let _ = write!(
        out,
        "HTTP/1.1 200 OK\r\nConnection: close\r\ncontent-type: text/event-stream\r\n\
         cache-control: no-cache, no-transform\r\n{}Transfer-Encoding: chunked\r\n\r\n",
        session.unwrap_or_default()
    );
    let _ = out.flush();
}

fn chunk(out: &mut dyn Write, text: &str) {
    let _ = write!(out, "{:x}\r\n{text}\r\n", text.len());
    let _ = out.flush();
}

fn event(out: &mut dyn Write, message: &str) {
    let id = "8c5c7c96-a45b-4d77-85eb-754dd5d26674";
    chunk(
        out,
        &format!("event: message\nid: {id}\ndata: {message}\n\n"),
    );
}

fn end(out: &mut dyn Write) {
    let _ = out.write_all(b"0\r\n\r\n");
    let _ = out.flush();
}

/// A whole stream as server-everything sends it: priming event, the messages, the end.
fn sse(out: &mut dyn Write, session: Option<&str>, messages: &[&str]) {
    stream(out, session);
    chunk(out, PRIMING);
    for message in messages {
        event(out, message);
    }
    end(out);
}

fn connect(url: &str) -> Arc<Connection> {
    let headers = BTreeMap::from([("Authorization".to_string(), TOKEN.to_string())]);
    let opened = Connection::open(|sink| {
        start(url, url, &headers, None, sink, None).map(|t| Box::new(t) as Box<dyn Transport>)
    });
    opened.unwrap_or_else(|why| panic!("{why}"))
}

fn ask(connection: &Connection, method: &str) -> Result<Value, Failure> {
    let cancel = CancelToken::new();
    let timeout = Duration::from_secs(10);
    connection.request(method, json!({}), timeout, &cancel, &mut |_, _| None)
}

#[test]
fn the_session_and_version_go_on_every_post_after_initialize() {
    let server = Server::start(
        |seen, out| match (seen.method.as_str(), seen.rpc().as_str()) {
            // A server without a stream of its own.
            ("GET", _) => reply(out, "405 Method Not Allowed", &[], ""),
            (_, "initialize") => sse(out, Some(SESSION), &[&seen.answer(INITIALIZE)]),
            (_, "notifications/initialized") => reply(out, "202 Accepted", &[], ""),
            _ => sse(out, Some(SESSION), &[&seen.answer(TOOLS)]),
        },
    );
    let connection = connect(&server.url);
    let init = ask(&connection, "initialize").unwrap();
    assert_eq!(init["protocolVersion"], "2025-11-25");
    connection
        .notify("notifications/initialized", Value::Null)
        .unwrap();
    let tools = ask(&connection, "tools/list").unwrap();
    assert_eq!(tools["tools"][0]["name"], "echo");
    let seen: Vec<Seen> = server
        .seen()
        .into_iter()
        .filter(|s| s.method == "POST")
        .collect();
    fn told(s: &Seen) -> (Option<&str>, Option<&str>) {
        (s.header("mcp-session-id"), s.header("mcp-protocol-version"))
    }
    assert_eq!(told(&seen[0]), (None, None));
    for later in &seen[1..] {
        assert_eq!(told(later), (Some(SESSION), Some("2025-11-25")));
    }
    for each in &seen {
        assert_eq!(each.method, "POST");
        assert_eq!(each.header("authorization"), Some(TOKEN));
        assert_eq!(each.header("content-type"), Some("application/json"));
        let accept = each.header("accept");
        assert_eq!(accept, Some("application/json, text/event-stream"));
    }
}

#[test]
fn the_servers_own_stream_is_opened_after_initialized_and_brings_tools_list_changed() {
    let server = Server::start(
        |seen, out| match (seen.method.as_str(), seen.rpc().as_str()) {
            ("GET", _) => {
                let changed = r#"{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}"#;
                sse(out, None, &[changed]);
            }
            (_, "initialize") => sse(out, Some(SESSION), &[&seen.answer(INITIALIZE)]),
            _ => reply(out, "202 Accepted", &[], ""),
        },
    );
    let connection = connect(&server.url);
    ask(&connection, "initialize").unwrap();
    assert!(!connection.tools_changed.load(Ordering::SeqCst));
    connection
        .notify("notifications/initialized", Value::Null)
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !connection.tools_changed.load(Ordering::SeqCst) {
        assert!(std::time::Instant::now() < deadline, "{:?}", server.seen());
        std::thread::sleep(Duration::from_millis(5));
    }
    let get = server
        .seen()
        .into_iter()
        .find(|s| s.method == "GET")
        .unwrap();
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("mcp-session-id"), Some(SESSION));
    assert_eq!(get.header("authorization"), Some(TOKEN));
}

#[test]
fn json_answers_and_batches_are_read() {
    let server = Server::start(|seen, out| {
        let json = [("Content-Type", "application/json")];
        let body = match seen.rpc().as_str() {
            "tools/list" => seen.answer(TOOLS),
            _ => {
                let changed = r#"{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}"#;
                format!("[{changed},{}]", seen.answer(ECHO))
            }
        };
        reply(out, "200 OK", &json, &body);
    });
    let connection = connect(&server.url);
    assert_eq!(
        ask(&connection, "tools/list").unwrap()["tools"][0]["name"],
        "echo"
    );
    let echo = ask(&connection, "tools/call").unwrap();
    assert_eq!(echo["content"][0]["text"], "Echo: hello over http");
    assert!(connection.tools_changed.load(Ordering::SeqCst));
}

#[test]
fn an_elicitation_comes_on_the_call_stream_and_its_answer_goes_separately() {
    let (answered, arrived) = mpsc::channel::<()>();
    let (answered, arrived) = (Mutex::new(answered), Mutex::new(arrived));
    let server = Server::start(move |seen, out| {
        if seen.rpc() == "tools/call" {
            stream(out, None);
            chunk(out, PRIMING);
            event(out, ELICIT);
            let wait = arrived
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_secs(10));
            assert!(wait.is_ok(), "no answer to the elicitation came");
            event(out, &seen.answer(ELICITED));
            end(out);
        } else {
            reply(out, "202 Accepted", &[], "");
            let _ = answered.lock().unwrap().send(());
        }
    });
    let connection = connect(&server.url);
    let mut asked = Vec::new();
    let mut on_request = |method: &str, params: &Value| {
        asked.push((method.to_string(), params["message"].clone()));
        Some(Ok(
            json!({"action": "accept", "content": {"name": "Marvin"}}),
        ))
    };
    let params = json!({"name": "trigger-elicitation-request", "arguments": {}});
    let (timeout, cancel) = (Duration::from_secs(10), CancelToken::new());
    let result = connection.request("tools/call", params, timeout, &cancel, &mut on_request);
    let text = &result.unwrap()["content"][0]["text"];
    assert_eq!(text, "✅ User provided the requested information!");
    let message = json!("Please provide inputs for the following fields:");
    assert_eq!(asked, [("elicitation/create".to_string(), message)]);
    let answer = server.seen()[1].json();
    assert_eq!(answer["id"], 0);
    assert_eq!(answer["result"]["content"]["name"], "Marvin");
}

#[test]
fn a_session_the_server_forgot_ends_the_connection() {
    for (status, body) in [("404 Not Found", ""), ("400 Bad Request", NO_SESSION)] {
        let server = Server::start(move |seen, out| match seen.rpc().as_str() {
            "initialize" => sse(out, Some(SESSION), &[&seen.answer(INITIALIZE)]),
            _ => reply(out, status, &[("Content-Type", "application/json")], body),
        });
        let connection = connect(&server.url);
        ask(&connection, "initialize").unwrap();
        let Err(Failure::Closed(why)) = ask(&connection, "tools/list") else {
            panic!("a forgotten session did not end the connection ({status})");
        };
        let code = status.split(' ').next().unwrap();
        let expected = format!(
            "the server ended the session ({} answered HTTP {code}",
            server.url
        );
        assert!(why.starts_with(&expected), "{why}");
        assert_eq!(connection.ended(), Some(why));
    }
}

#[test]
fn refusals_fail_the_request_with_the_servers_words() {
    let json = "application/json";
    // Not recorded: a server's own JSON-RPC code, which the caller gets as it came.
    let invalid = r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"}}"#;
    let cases = [
        (
            "406 Not Acceptable",
            json,
            NOT_ACCEPTABLE,
            -32000,
            "answered HTTP 406 Not Acceptable: Not Acceptable: Client must accept both application/json and text/event-stream",
        ),
        (
            "400 Bad Request",
            json,
            NOT_INITIALIZED,
            -32000,
            "answered HTTP 400 Bad Request: Bad Request: Server not initialized",
        ),
        (
            "400 Bad Request",
            json,
            invalid,
            -32602,
            "answered HTTP 400 Bad Request: Invalid params",
        ),
        (
            "500 Internal Server Error",
            "text/plain",
            "boom\n  at handler",
            HTTP_FAILURE,
            "answered HTTP 500 Internal Server Error: boom at handler",
        ),
        (
            "401 Unauthorized",
            "text/plain",
            "invalid token sk-test-123456",
            HTTP_FAILURE,
            "refused the request (HTTP 401 Unauthorized: invalid token [redacted]): check the credentials in the headers of its declaration",
        ),
        (
            "404 Not Found",
            "text/html",
            "<html>Cannot POST /mcp</html>",
            HTTP_FAILURE,
            "does not take MCP messages there (HTTP 404 Not Found: (a web page)): check the address (often ending in /mcp); the old HTTP+SSE transport is not spoken",
        ),
    ];
    for (status, kind, body, code, words) in cases {
        let server = Server::start(move |_, out| {
            reply(out, status, &[("Content-Type", kind)], body);
        });
        let connection = connect(&server.url);
        let message = format!("the server at {} {words}", server.url);
        let expected = Failure::Rpc(RpcError { code, message });
        assert_eq!(ask(&connection, "tools/list"), Err(expected), "{status}");
        assert_eq!(connection.ended(), None, "{status}");
    }
    // A web page where the answer should be is not the server refusing: the request did not
    // get through, and fails as such.
    let server = Server::start(move |_, out| {
        reply(
            out,
            "200 OK",
            &[("Content-Type", "text/html")],
            "<!DOCTYPE html><html>",
        );
    });
    let connection = connect(&server.url);
    let message = format!(
        "the server at {} answered with a web page (a login page, or not the server's address?)",
        server.url
    );
    assert_eq!(
        ask(&connection, "tools/list"),
        Err(Failure::Closed(message))
    );
    assert_eq!(connection.ended(), None);
}

#[test]
fn close_cuts_the_streams_still_open_and_tells_their_callers() {
    let (opened, open) = mpsc::channel::<()>();
    let (done, held) = mpsc::channel::<()>();
    let (opened, held) = (Mutex::new(opened), Mutex::new(held));
    let server = Server::start(move |_, out| {
        stream(out, None);
        chunk(out, PRIMING);
        let _ = opened.lock().unwrap().send(());
        // Held open until the test is over: only the client's close can end the call.
        let _ = held.lock().unwrap().recv_timeout(Duration::from_secs(10));
    });
    let connection = connect(&server.url);
    let waiting = connection.clone();
    let call = std::thread::spawn(move || ask(&waiting, "tools/call"));
    open.recv_timeout(Duration::from_secs(10)).unwrap();
    connection.close();
    let closed = format!("the connection to {} was closed", server.url);
    assert_eq!(call.join().unwrap(), Err(Failure::Closed(closed)));
    drop(done);
}

#[test]
fn a_redirect_is_not_followed() {
    let server = Server::start(|_, out| {
        let location = [("Location", "http://elsewhere.example/mcp?key=secret")];
        reply(out, "307 Temporary Redirect", &location, "");
    });
    let connection = connect(&server.url);
    let Err(Failure::Rpc(error)) = ask(&connection, "tools/list") else {
        panic!("a redirect did not fail the request");
    };
    let expected = format!(
        "{} redirects to http://elsewhere.example/mcp?… (HTTP 307 Temporary Redirect); Marvin does not follow redirects: declare the new address if it is the right one",
        server.url
    );
    assert_eq!(error.message, expected);
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn nothing_listening_is_said_in_a_sentence_not_a_timeout() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let connection = connect(&url);
    let message = format!("nothing answers at {url} (connection refused): is the server running?");
    // The request fails at once with the sentence; the connection is not ended by it.
    assert_eq!(
        ask(&connection, "initialize"),
        Err(Failure::Closed(message.clone()))
    );
    assert_eq!(connection.ended(), None);
    let refused = connection.notify("notifications/initialized", Value::Null);
    assert_eq!(refused, Err(message));
}

#[test]
fn messages_name_the_address_as_declared_never_with_the_key_filled_in() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let filled = format!("http://127.0.0.1:{port}/sk-path-key-123/mcp");
    let declared = format!("http://127.0.0.1:{port}/${{KEY}}/mcp");
    let connection = Connection::open(|sink| {
        start(&filled, &declared, &BTreeMap::new(), None, sink, None)
            .map(|t| Box::new(t) as Box<dyn Transport>)
    })
    .unwrap();
    assert_eq!(
        ask(&connection, "initialize"),
        Err(Failure::Closed(format!(
            "nothing answers at {declared} (connection refused): is the server running?"
        )))
    );
}

#[test]
fn a_stream_that_ends_without_the_result_fails_the_request() {
    // Without an event id, there is nothing to resume.
    let server = Server::start(|_, out| {
        stream(out, None);
        end(out);
    });
    let connection = connect(&server.url);
    let message = format!(
        "the answer from {} ended without the result of the request",
        server.url
    );
    assert_eq!(
        ask(&connection, "tools/list"),
        Err(Failure::Closed(message))
    );
}

#[test]
fn a_refused_notification_is_told_to_its_sender() {
    let server = Server::start(|_, out| reply(out, "500 Internal Server Error", &[], "down"));
    let connection = connect(&server.url);
    let refused = connection.notify("notifications/initialized", Value::Null);
    let expected = format!(
        "the server at {} answered HTTP 500 Internal Server Error: down",
        server.url
    );
    assert_eq!(refused, Err(expected));
}

#[test]
fn close_ends_the_session_with_delete_and_later_sends_are_refused() {
    let server = Server::start(|seen, out| match seen.method.as_str() {
        "DELETE" => reply(out, "405 Method Not Allowed", &[], ""),
        _ => sse(out, Some(SESSION), &[&seen.answer(INITIALIZE)]),
    });
    let connection = connect(&server.url);
    ask(&connection, "initialize").unwrap();
    connection.close();
    let seen = server.seen();
    assert_eq!(seen[1].method, "DELETE");
    assert_eq!(seen[1].header("mcp-session-id"), Some(SESSION));
    assert_eq!(seen[1].header("authorization"), Some(TOKEN));
    let refused = connection.notify("notifications/initialized", Value::Null);
    assert_eq!(
        refused,
        Err(format!("the connection to {} was closed", server.url))
    );
}

#[test]
fn bad_declarations_are_refused_without_their_secrets() {
    let cases = [
        (
            "ftp://host/mcp",
            "Authorization",
            "Bearer abc",
            "ftp://host/mcp is not an http:// or https:// address of a Streamable HTTP server",
        ),
        (
            "http://me:pw@host/mcp?key=k3y",
            "Authorization",
            "Bearer x\ny",
            "the value of the header Authorization declared for http://host/mcp?… is not a valid HTTP header value (a line break or another control character?)",
        ),
        (
            "https://host/mcp",
            "Bad Name",
            "v",
            "the header name \"Bad Name\" declared for https://host/mcp is not a valid HTTP header name",
        ),
    ];
    for (url, name, value, expected) in cases {
        let headers = BTreeMap::from([(name.to_string(), value.to_string())]);
        let opened = Connection::open(|sink| {
            start(url, url, &headers, None, sink, None).map(|t| Box::new(t) as Box<dyn Transport>)
        });
        assert_eq!(opened.err().as_deref(), Some(expected), "{url}");
    }
}

#[test]
fn a_message_of_the_new_era_names_its_revision_method_and_tool_in_headers() {
    let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"read_file","arguments":{}}}"#;
    assert_eq!(
        modern_headers(call),
        [
            ("MCP-Protocol-Version", "2026-07-28".to_string()),
            ("Mcp-Method", "tools/call".to_string()),
            ("Mcp-Name", "read_file".to_string()),
        ]
    );
    let listed = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    assert_eq!(modern_headers(listed).len(), 2);
    let old = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    assert!(modern_headers(old).is_empty());
}

mod resume;
