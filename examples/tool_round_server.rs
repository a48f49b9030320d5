//! A local model and six slow local services for `make bench`: the model asks for six network
//! tools in one round (then answers "done"), and each service answers after `--delay-ms`
//! (default 50) with a recorded or documented response. Prints the environment for Marvin,
//! one `NAME=VALUE` per line, then serves until killed.
//!
//! With `--call NAME ARGUMENTS --rounds N` the model instead asks for that one tool in each of
//! N rounds, one after another (for the cost of one call), and no services are started.
//!
//! cargo run --release --example tool_round_server -- [--delay-ms N]
//! cargo run --release --example tool_round_server -- --call read_file '{"path":"a"}' --rounds 50

use std::io::Cursor;
use std::thread;
use std::time::Duration;

/// One tool of the round: its name, its arguments, the variable that points it at its service,
/// and what the service answers (content type, body).
struct Slow {
    tool: &'static str,
    arguments: &'static str,
    variable: &'static str,
    content_type: &'static str,
    body: &'static str,
}

const ROUND: [Slow; 6] = [
    Slow {
        tool: "web_search",
        arguments: r#"{"query":"eino"}"#,
        variable: "DDG_URL",
        content_type: "text/html; charset=utf-8",
        body: include_str!("../tests/fixtures/apis/ddg_html_search_eino.html"),
    },
    Slow {
        tool: "wiki_summary",
        arguments: r#"{"title":"Albert Einstein"}"#,
        variable: "WIKIPEDIA_URL",
        content_type: "application/json",
        body: include_str!("../tests/fixtures/apis/wikipedia_rest_summary_2017.json"),
    },
    Slow {
        tool: "dictionary_lookup",
        arguments: r#"{"word":"hello"}"#,
        variable: "DICTIONARY_URL",
        content_type: "application/json",
        body: include_str!("../tests/fixtures/apis/dictionaryapi_entries_hello_docexample.json"),
    },
    // Stack Exchange, MyMemory and Frankfurter have no recording: the shapes of their docs.
    Slow {
        tool: "stack_search",
        arguments: r#"{"query":"borrow checker"}"#,
        variable: "STACKEXCHANGE_URL",
        content_type: "application/json",
        body: r#"{"items":[{"question_id":1,"title":"Why does the borrow checker complain?","link":"https://stackoverflow.com/q/1","score":12,"answer_count":2,"is_answered":true,"tags":["rust"],"creation_date":1700000000}],"has_more":false,"quota_max":300,"quota_remaining":299}"#,
    },
    Slow {
        tool: "translate_text",
        arguments: r#"{"text":"good morning","from":"en","to":"fr"}"#,
        variable: "MYMEMORY_URL",
        content_type: "application/json",
        body: r#"{"responseData":{"translatedText":"bonjour","match":1},"responseStatus":200,"responseDetails":"","matches":[]}"#,
    },
    Slow {
        tool: "convert_units",
        arguments: r#"{"value":100,"from":"EUR","to":"USD"}"#,
        variable: "FRANKFURTER_URL",
        content_type: "application/json",
        body: r#"{"amount":1.0,"base":"EUR","date":"2026-11-20","rates":{"USD":1.0523}}"#,
    },
];

fn main() {
    let mut delay = Duration::from_millis(50);
    let mut call: Option<(String, String)> = None;
    let mut rounds = 1;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--delay-ms" => {
                let ms = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--delay-ms N");
                delay = Duration::from_millis(ms);
            }
            "--call" => {
                let name = args.next().expect("--call NAME ARGUMENTS");
                call = Some((name, args.next().expect("--call NAME ARGUMENTS")));
            }
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--rounds N");
            }
            other => panic!("unknown argument {other}"),
        }
    }
    if call.is_none() {
        for slow in &ROUND {
            let url = serve(delay, slow.content_type, slow.body);
            println!("{}={url}", slow.variable);
        }
    }
    let model = tiny_http::Server::http("127.0.0.1:0").expect("bind");
    let port = model.server_addr().to_ip().expect("ip address").port();
    println!("OPENAI_COMPAT_URL=http://127.0.0.1:{port}/v1");
    for mut request in model.incoming_requests() {
        let mut text = String::new();
        let _ = request.as_reader().read_to_string(&mut text);
        let answered = text.matches("\"role\":\"tool\"").count();
        let body = match &call {
            Some((name, arguments)) if answered < rounds => one_call(answered, name, arguments),
            Some(_) => answer("done"),
            None if answered > 0 => answer("done"),
            None => tool_round(),
        };
        let _ = request.respond(response("text/event-stream", body));
    }
}

/// A service on its own port (the pace is kept per server), answering every request after
/// `delay`, each on its own thread so parallel calls wait together.
fn serve(delay: Duration, content_type: &'static str, body: &'static str) -> String {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("bind");
    let port = server.server_addr().to_ip().expect("ip address").port();
    thread::spawn(move || {
        for request in server.incoming_requests() {
            thread::spawn(move || {
                thread::sleep(delay);
                let _ = request.respond(response(content_type, body.to_string()));
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn response(content_type: &str, body: String) -> tiny_http::Response<Cursor<Vec<u8>>> {
    let header = tiny_http::Header::from_bytes("Content-Type", content_type).expect("header");
    let length = body.len();
    tiny_http::Response::new(
        200.into(),
        vec![header],
        Cursor::new(body.into_bytes()),
        Some(length),
        None,
    )
}

fn chunk(delta: serde_json::Value, finish: Option<&str>) -> String {
    let value =
        serde_json::json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {value}\n\n")
}

fn tool_round() -> String {
    let mut body = String::new();
    for (i, slow) in ROUND.iter().enumerate() {
        let call = serde_json::json!({"tool_calls": [{"index": i, "id": format!("call_{i}"),
            "type": "function", "function": {"name": slow.tool, "arguments": slow.arguments}}]});
        body.push_str(&chunk(call, None));
    }
    body.push_str(&chunk(serde_json::json!({}), Some("tool_calls")));
    body + "data: [DONE]\n\n"
}

/// Round `n` of the `--call` mode: the one tool, once.
fn one_call(n: usize, name: &str, arguments: &str) -> String {
    let call = serde_json::json!({"tool_calls": [{"index": 0, "id": format!("call_{n}"),
        "type": "function", "function": {"name": name, "arguments": arguments}}]});
    chunk(call, None) + &chunk(serde_json::json!({}), Some("tool_calls")) + "data: [DONE]\n\n"
}

fn answer(text: &str) -> String {
    let mut body = chunk(
        serde_json::json!({"role": "assistant", "content": text}),
        None,
    );
    body.push_str(&chunk(serde_json::json!({}), Some("stop")));
    body + "data: [DONE]\n\n"
}
