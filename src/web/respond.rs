//! Responses of Marvin's loopback servers: text, JSON and assets, each with the headers that keep
//! a browser from caching, sniffing or leaking the address.

use serde_json::Value;
use tiny_http::{Header, Response};

pub(crate) type HttpResponse = Response<std::io::Cursor<Vec<u8>>>;

pub(crate) fn asset(body: &'static str, content_type: &str) -> HttpResponse {
    with_headers(Response::from_string(body), content_type)
}

pub(crate) fn text(status: u16, body: &str) -> HttpResponse {
    with_headers(Response::from_string(body), "text/plain; charset=utf-8").with_status_code(status)
}

pub(crate) fn json_response(status: u16, value: &Value) -> HttpResponse {
    with_headers(Response::from_string(value.to_string()), "application/json")
        .with_status_code(status)
}

pub(crate) fn with_headers(response: HttpResponse, content_type: &str) -> HttpResponse {
    response
        .with_header(header("Content-Type", content_type))
        .with_header(header("Cache-Control", "no-store"))
        .with_header(header("X-Content-Type-Options", "nosniff"))
        .with_header(header("Referrer-Policy", "no-referrer"))
}

/// 503: the server serves as many requests as it takes at once.
pub(crate) fn busy() -> HttpResponse {
    json_response(
        503,
        &serde_json::json!({"ok": false, "error": "The server is busy; try again in a moment."}),
    )
}

pub(crate) fn header(name: &str, value: &str) -> Header {
    // Invariant: the names and values passed here are ASCII written in Marvin's own code.
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}
