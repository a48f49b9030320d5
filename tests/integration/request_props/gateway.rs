//! `marvin serve` against arbitrary requests through the built binary: each is answered (or
//! the connection closed) without a hang; one without every credential is never answered with
//! success and makes no session; the gateway answers a right request after each.

use std::cell::Cell;

use proptest::prelude::*;

use super::{Server, config, exchange, request};
use crate::common::TempDir;
use crate::gateway::Gateway;

const PATHS: &[&str] = &[
    "/",
    "/gateway.css",
    "/gateway.js",
    "/markdown.js",
    "/api",
    "/api/sessions",
    "/api/sessions/nope/messages",
    "/api/sessions/nope/events",
    "/api/sessions/nope/cancel",
    "/api/sessions/nope/submit-answers",
    "/api/sessions/nope/approve",
    "/api/sessions//",
    "/api/sessions/nope/messages/more",
];

const BODIES: &[&str] = &[
    "{}",
    "",
    r#"{"content": "hello"}"#,
    r#"{"resume": "nope"}"#,
    r#"{"resume": 5}"#,
    r#"{"toolCallId": "c1", "answers": {"Which?": "A"}}"#,
    r#"{"interactionId": "18446744073709551616"}"#,
    r#"{"client": "a", "enabled": true}"#,
    "[]",
    "{\"content\": ",
];

/// How many sessions the gateway lists.
fn sessions(gateway: &Gateway) -> usize {
    let (_, listed) = gateway.call("GET", "/api/sessions", None);
    listed["sessions"].as_array().map_or(usize::MAX, Vec::len)
}

#[test]
fn arbitrary_requests_are_answered_and_none_without_credentials_gets_anywhere() {
    let home = TempDir::new("gateway-props");
    // No model is called: a provider address nothing answers on will do.
    let gateway = Gateway::start(&home, "http://127.0.0.1:9/v1");
    let server = Server {
        port: gateway.port,
        token: gateway.token.clone(),
        query_name: "token",
        header: ("Authorization", "Bearer {}"),
        paths: PATHS,
        bodies: BODIES,
    };
    let known = Cell::new(sessions(&gateway));
    let mut runner = proptest::test_runner::TestRunner::new(config(64, file!()));
    let result = runner.run(&request(&server), |generated| {
        let answer = exchange(server.port, &generated.bytes).map_err(TestCaseError::fail)?;
        let now = sessions(&gateway);
        if !generated.credentials {
            let status = answer.status.unwrap_or(0);
            prop_assert!(!(200..300).contains(&status), "{}", answer.text);
            prop_assert_eq!(now, known.get(), "a session was made");
        }
        known.set(now);
        prop_assert_eq!(gateway.call("GET", "/api", None).0, 200);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
