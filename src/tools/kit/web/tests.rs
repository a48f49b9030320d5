//! The service client against local servers: queries, failures as sentences, Retry-After, caps,
//! timeouts, keys kept out, downloads, compression.

use super::*;
use crate::services::{GNEWS, SEMANTIC_SCHOLAR, STACKEXCHANGE, WIKIPEDIA};
use crate::tools::kit::reach::Reach;

/// A canned answer: status, content type, body, an extra header.
type Canned = (
    u16,
    &'static str,
    Vec<u8>,
    Option<(&'static str, &'static str)>,
);

/// A local server answering each request with the next of `replies` (status, content
/// type, body, extra header); returns its base URL and what it was asked.
fn serve(replies: Vec<Canned>) -> (String, std::sync::mpsc::Receiver<String>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let base = format!("http://{}", server.server_addr().to_ip().unwrap());
    let (asked, urls) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for (status, content_type, body, header) in replies {
            let Ok(request) = server.recv() else { return };
            let _ = asked.send(request.url().to_string());
            let mut response = tiny_http::Response::from_data(body)
                .with_status_code(status)
                .with_header(tiny_http::Header::from_bytes("Content-Type", content_type).unwrap());
            if let Some((name, value)) = header {
                response =
                    response.with_header(tiny_http::Header::from_bytes(name, value).unwrap());
            }
            let _ = request.respond(response);
        }
    });
    (base, urls)
}

fn web_at(service: &Service, base: &str, timeout: u64, key: Option<&str>) -> Web {
    let mut pairs = vec![(service.url_var, base.to_string())];
    if let Some(key) = key {
        pairs.push((service.credential.variables()[0], key.to_string()));
    }
    pairs.push(("MARVIN_TOOL_TIMEOUT", timeout.to_string()));
    // The test servers are on this machine, which the person allows here.
    pairs.push(("MARVIN_WEB_ALLOW", "127.0.0.1".to_string()));
    let config = crate::config::Config::build(
        &crate::cli::Args::default(),
        &crate::config::Env::from_pairs(
            pairs
                .iter()
                .map(|(k, v)| (*k, v.as_str()))
                .chain([("OPENAI_API_KEY", "k")]),
        ),
        std::path::Path::new("/"),
    )
    .unwrap();
    Web::new(config.web, config.endpoints, config.proxy)
}

/// A call's context whose web is `web`, for the model's addresses.
fn context_of(web: &Web) -> crate::tools::ToolContext {
    crate::tools::ToolContext {
        settings: std::sync::Arc::new(crate::tools::ToolSettings {
            web: web.clone(),
            ..Default::default()
        }),
        ..crate::tools::ToolContext::new(std::path::PathBuf::from("/"))
    }
}

/// `{"items":[{"title":"unpacked"}],"quota_remaining":299}` compressed with gzip (Python's
/// `gzip.compress(..., mtime=0)`).
const GZIPPED: [u8; 74] = [
    31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 171, 86, 202, 44, 73, 205, 45, 86, 178, 138, 174, 86, 42, 201,
    44, 201, 73, 85, 178, 82, 42, 205, 43, 72, 76, 206, 78, 77, 81, 170, 141, 213, 81, 42, 44, 205,
    47, 73, 140, 47, 74, 205, 77, 204, 204, 203, 204, 75, 87, 178, 50, 178, 180, 172, 5, 0, 205,
    213, 124, 134, 54, 0, 0, 0,
];

#[test]
fn service_calls_ask_for_gzip_and_get_it_unpacked_while_downloads_take_bytes_as_stored() {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let base = format!("http://{}", server.server_addr().to_ip().unwrap());
    let (asked, encodings) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for request in server.incoming_requests().take(2) {
            let encoding = request
                .headers()
                .iter()
                .find(|h| h.field.equiv("Accept-Encoding"))
                .map(|h| h.value.to_string());
            let _ = asked.send(encoding);
            let response = tiny_http::Response::from_data(GZIPPED.to_vec())
                .with_header(tiny_http::Header::from_bytes("Content-Encoding", "gzip").unwrap())
                .with_header(
                    tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap(),
                );
            let _ = request.respond(response);
        }
    });
    let web = web_at(&STACKEXCHANGE, &base, 30, None);
    let value = web
        .json(
            &STACKEXCHANGE,
            "/2.3/search",
            &Call::default(),
            &CancelToken::new(),
        )
        .unwrap();
    assert_eq!(value["items"][0]["title"], "unpacked");
    assert_eq!(encodings.recv().unwrap().as_deref(), Some("gzip"));
    let mut out = Vec::new();
    web.download(
        &format!("{base}/f"),
        &mut out,
        1024,
        &mut |_, _| {},
        &Reach::new(&context_of(&web), "download_file"),
        &CancelToken::new(),
    )
    .unwrap();
    assert_eq!(encodings.recv().unwrap(), None);
}

#[test]
fn json_answers_are_read_and_queries_encoded() {
    let (base, asked) = serve(vec![(
        200,
        "application/json",
        br#"{"ok":1}"#.to_vec(),
        None,
    )]);
    let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
    let call = Call {
        query: &[("query", "turing machines & co")],
        ..Call::default()
    };
    let value = web
        .json(
            &SEMANTIC_SCHOLAR,
            "/graph/v1/paper/search",
            &call,
            &CancelToken::new(),
        )
        .unwrap();
    assert_eq!(value["ok"], 1);
    assert_eq!(
        asked.recv().unwrap(),
        "/graph/v1/paper/search?query=turing%20machines%20%26%20co"
    );
}

#[test]
fn a_json_body_is_posted_with_its_content_type() {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let base = format!("http://{}", server.server_addr().to_ip().unwrap());
    let (asked, requests) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let Ok(mut request) = server.recv() else {
            return;
        };
        let mut body = String::new();
        let _ = request.as_reader().read_to_string(&mut body);
        let content_type = request
            .headers()
            .iter()
            .find(|h| h.field.equiv("Content-Type"))
            .map(|h| h.value.to_string());
        let _ = asked.send((request.method().to_string(), content_type, body));
        let _ = request.respond(tiny_http::Response::from_string(r#"{"id":"p1"}"#));
    });
    let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
    let body = serde_json::json!({"name": "Road trip", "public": false});
    let call = Call {
        json: Some(&body),
        ..Call::default()
    };
    let value = web
        .json(
            &SEMANTIC_SCHOLAR,
            "/me/playlists",
            &call,
            &CancelToken::new(),
        )
        .unwrap();
    assert_eq!(value["id"], "p1");
    let (method, content_type, sent) = requests.recv().unwrap();
    assert_eq!(method, "POST");
    assert_eq!(content_type.as_deref(), Some("application/json"));
    assert_eq!(serde_json::from_str::<Value>(&sent).unwrap(), body);
}

#[test]
fn failures_become_one_sentence_naming_the_service() {
    let (base, _) = serve(vec![
        (
            400,
            "application/json",
            br#"{"error":"Unrecognized fields: [x]"}"#.to_vec(),
            None,
        ),
        (
            200,
            "text/html",
            b"<html><body>Log in to the wifi</body></html>".to_vec(),
            None,
        ),
        (200, "application/json", b"{\"cut".to_vec(), None),
    ]);
    let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
    let ask = || {
        web.json(
            &SEMANTIC_SCHOLAR,
            "/x",
            &Call::default(),
            &CancelToken::new(),
        )
        .unwrap_err()
    };
    assert_eq!(
        ask(),
        "Semantic Scholar answered HTTP 400: Unrecognized fields: [x]"
    );
    let html = ask();
    assert!(
        html.starts_with("Semantic Scholar answered with a web page instead of data"),
        "{html}"
    );
    assert!(html.contains("SEMANTIC_SCHOLAR_URL"), "{html}");
    let broken = ask();
    assert!(
        broken.starts_with("Semantic Scholar sent an answer that is not valid JSON"),
        "{broken}"
    );
}

#[test]
fn a_short_retry_after_is_waited_for_once_and_a_big_answer_refused() {
    let (base, _) = serve(vec![
        (
            429,
            "application/json",
            b"{}".to_vec(),
            Some(("Retry-After", "0")),
        ),
        (200, "application/json", b"[1]".to_vec(), None),
    ]);
    let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
    let value = web
        .json(
            &SEMANTIC_SCHOLAR,
            "/x",
            &Call::default(),
            &CancelToken::new(),
        )
        .unwrap();
    assert_eq!(value[0], 1);
    let (base, _) = serve(vec![(200, "application/json", vec![b' '; 2048], None)]);
    let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
    let call = Call {
        cap: 1024,
        ..Call::default()
    };
    let error = web
        .call(&SEMANTIC_SCHOLAR, "/x", &call, &CancelToken::new())
        .unwrap_err();
    assert!(error.contains("answer is larger than"), "{error}");
}

#[test]
fn a_silent_service_times_out_with_the_seeds_sentence() {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let base = format!("http://{}", server.server_addr().to_ip().unwrap());
    let (done, finished) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let request = server.recv().unwrap();
        let _ = finished.recv();
        drop(request);
    });
    let web = web_at(&SEMANTIC_SCHOLAR, &base, 1, None);
    let error = web
        .call(
            &SEMANTIC_SCHOLAR,
            "/x",
            &Call::default(),
            &CancelToken::new(),
        )
        .unwrap_err();
    let _ = done.send(());
    assert_eq!(
        error,
        "Semantic Scholar request timed out after 1s. Try again or rephrase query."
    );
}

#[test]
fn a_service_that_stalls_inside_its_answer_times_out_with_the_same_sentence() {
    use std::io::Write as _;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (done, finished) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = [0u8; 1024];
        let _ = std::io::Read::read(&mut stream, &mut request);
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
        let _ = stream.write_all(head.as_bytes());
        let _ = finished.recv();
    });
    let web = web_at(&WIKIPEDIA, &base, 1, None);
    let error = web
        .json(&WIKIPEDIA, "/x", &Call::default(), &CancelToken::new())
        .unwrap_err();
    let _ = done.send(());
    assert_eq!(
        error,
        "Wikipedia request timed out after 1s. Try again or rephrase query."
    );
}

#[test]
fn a_key_echoed_back_never_shows() {
    let echo = (
        401,
        "application/json",
        br#"{"errors":["bad key g-secret-1234"]}"#.to_vec(),
        None,
    );
    let (base, _) = serve(vec![echo.clone(), echo]);
    let web = web_at(&GNEWS, &base, 30, Some("g-secret-1234"));
    assert_eq!(web.key(&GNEWS).as_deref(), Some("g-secret-1234"));
    let call = Call {
        query: &[("apikey", "g-secret-1234")],
        ..Call::default()
    };
    let error = web
        .json(&GNEWS, "/api", &call, &CancelToken::new())
        .unwrap_err();
    assert!(!error.contains("g-secret-1234"), "{error}");
    assert!(
        error.starts_with("GNews answered HTTP 401: bad key"),
        "{error}"
    );
    // A tool that fetched the answer itself and reads it after gets the same care.
    let fetched = web
        .call(&GNEWS, "/api", &call, &CancelToken::new())
        .unwrap();
    let error = web.read_json(&GNEWS, &fetched).unwrap_err();
    assert!(!error.contains("g-secret-1234"), "{error}");
}

#[test]
fn a_download_streams_reports_its_length_and_keeps_the_servers_naming() {
    let (base, asked) = serve(vec![
        (
            302,
            "text/plain",
            Vec::new(),
            Some(("Location", "/files/report.pdf")),
        ),
        (
            200,
            "application/pdf",
            b"%PDF-1.4".to_vec(),
            Some(("Content-Disposition", "attachment; filename=\"r.pdf\"")),
        ),
        (200, "application/pdf", vec![b'x'; 2048], None),
    ]);
    let web = web_at(&SEMANTIC_SCHOLAR, &base, 30, None);
    let (mut out, mut seen) = (Vec::new(), Vec::new());
    let got = web
        .download(
            &format!("{base}/get?id=1"),
            &mut out,
            1024,
            &mut |n, length| seen.push((n, length)),
            &Reach::new(&context_of(&web), "download_file"),
            &CancelToken::new(),
        )
        .unwrap();
    assert_eq!(out, b"%PDF-1.4");
    assert_eq!(got.bytes, 8);
    assert_eq!(seen, [(8, Some(8))]);
    assert_eq!(
        got.disposition.as_deref(),
        Some("attachment; filename=\"r.pdf\"")
    );
    assert_eq!(got.content_type.as_deref(), Some("application/pdf"));
    assert_eq!(got.final_url, format!("{base}/files/report.pdf"));
    assert_eq!(asked.recv().unwrap(), "/get?id=1");
    assert_eq!(asked.recv().unwrap(), "/files/report.pdf");
    let error = web
        .download(
            &base,
            &mut Vec::new(),
            1024,
            &mut |_, _| {},
            &Reach::new(&context_of(&web), "download_file"),
            &CancelToken::new(),
        )
        .unwrap_err();
    assert!(error.contains("larger than"), "{error}");
}

#[test]
fn a_program_gets_the_proxy_without_its_password() {
    let web = Web::new(
        WebSettings::default(),
        Endpoints::default(),
        ProxyRules::new(Some("http://me:pw@proxy:3128"), Some("intra.example")),
    );
    assert_eq!(
        web.proxy_for("https://example.org/page").as_deref(),
        Some("http://proxy:3128")
    );
    assert_eq!(web.proxy_for("https://intra.example/"), None);
    assert_eq!(web.proxy_for("http://127.0.0.1:8080/"), None);
}

#[test]
fn encoding_keeps_only_unreserved_characters() {
    assert_eq!(encode("a b&c=d/é~"), "a%20b%26c%3Dd%2F%C3%A9~");
    assert_eq!(encode_pairs(&[("q", "x y"), ("n", "3")]), "q=x%20y&n=3");
}

#[test]
fn percent_escapes_decode_only_when_they_are_two_hex_digits() {
    for (text, decoded) in [
        ("a%20b", "a b"),
        ("caf%C3%A9", "café"),
        ("100%", "100%"),
        ("%+f", "%+f"),
        ("%zz%4", "%zz%4"),
        ("%FF", "\u{fffd}"),
    ] {
        assert_eq!(percent_decode(text), decoded, "{text}");
    }
}
