//! The interview form's server against arbitrary requests: each is answered (or the
//! connection closed) without a hang; one without every credential is never answered with
//! success, never reaches the tool and never changes the draft; the server answers a right
//! request after each.

use std::cell::Cell;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;

use super::{Server, config, exchange, request};
use crate::common::TempDir;
use marvin::interact::form::questions;
use marvin::interact::form::server::{Assets, FormServer};

const ASSETS: Assets = Assets {
    html: "<p>/* __INTERVIEW_DATA_PLACEHOLDER__ */ __SESSION_TOKEN__</p>",
    css: "p {}",
    js: "0",
    blocks: "0",
};

const PATHS: &[&str] = &[
    "/",
    "/styles.css",
    "/script.js",
    "/blocks.js",
    "/health",
    "/heartbeat",
    "/cancel",
    "/submit",
    "/draft",
    "/media/0/0",
    "/media/9/9",
];

const BODIES: &[&str] = &[
    "{}",
    r#"{"responses": [{"id": "db", "value": "SQLite"}]}"#,
    r#"{"responses": [{"id": "db", "value": ["x"]}, {"id": "nope", "value": 1}]}"#,
    r#"{"at": 1, "answers": {"db": "SQLite"}}"#,
    r#"{"answers": {"db": {"images": [{"name": "a.png", "data": "AAAA"}]}}}"#,
    "[1, 2]",
    "{\"responses\": ",
];

fn start(home: &TempDir) -> FormServer {
    let interview = questions::parse(&json!({"questions": [
        {"id": "db", "type": "single", "question": "Which?", "options": ["SQLite", "Postgres"]},
        {"id": "notes", "type": "text", "question": "More?", "optional": true}
    ]}))
    .unwrap();
    FormServer::start(interview, ASSETS, home.path().join("uploads"), 600).unwrap()
}

#[test]
fn arbitrary_requests_are_answered_and_none_without_credentials_gets_anywhere() {
    let home = TempDir::new("form-props");
    let form = start(&home);
    let server = Server {
        port: form.port(),
        token: form.token().to_string(),
        query_name: "session",
        header: ("X-Marvin-Session", "{}"),
        paths: PATHS,
        bodies: BODIES,
    };
    let health = format!(
        "GET /health?session={} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        server.token, server.port
    );
    let mut runner = proptest::test_runner::TestRunner::new(config(96, file!()));
    let reached = Cell::new(false);
    let result = runner.run(&request(&server), |generated| {
        let draft = form.draft();
        let answer = exchange(server.port, &generated.bytes).map_err(TestCaseError::fail)?;
        if !generated.credentials && !reached.get() {
            let status = answer.status.unwrap_or(0);
            prop_assert!(!(200..300).contains(&status), "{}", answer.text);
            prop_assert!(form.wait(Duration::ZERO).is_none(), "it reached the tool");
            prop_assert_eq!(form.draft(), draft, "the draft changed");
        } else if form.wait(Duration::ZERO).is_some() {
            // A right /submit or /cancel ends the interview: later answers are 409s.
            reached.set(true);
        }
        // What the form writes carries the safety headers (tiny_http's own refusals of what
        // is not HTTP are bare).
        let head = answer.text.split("\r\n\r\n").next().unwrap_or("");
        let head = head.to_ascii_lowercase();
        if head.contains("content-type:") {
            prop_assert!(head.contains("x-content-type-options: nosniff"), "{}", head);
        }
        let alive = exchange(server.port, health.as_bytes()).map_err(TestCaseError::fail)?;
        prop_assert_eq!(alive.status, Some(200), "{}", alive.text);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
