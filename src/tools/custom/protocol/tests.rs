//! Reading requests and writing replies.

use super::*;

fn error_of(line: &str) -> String {
    let reply = parse(line).unwrap_err();
    reply["error"].as_str().unwrap().to_string()
}

#[test]
fn approvals_read_their_scopes_key_and_common_fields() {
    let ask = parse(
        r#"{"type":"approval","prompt":"Deploy v2 to prod?","detail":"3 services","scopes":["once","session","always"],"key":"prod","timeout_seconds":600,"pending":{"after_seconds":5,"message":"will wait"},"presentation":"questionnaire","completedView":{"summaryTemplate":"{{action}}"}}"#,
    )
    .unwrap();
    assert_eq!(
        ask.kind,
        Kind::Approval(Approval {
            prompt: "Deploy v2 to prod?".into(),
            detail: "3 services".into(),
            scopes: vec![Scope::Once, Scope::Session, Scope::Always],
            key: Some("prod".into()),
        })
    );
    assert_eq!(ask.timeout, Duration::from_secs(600));
    assert_eq!(
        ask.pending,
        Some(Pending {
            after: Duration::from_secs(5),
            message: Some("will wait".into())
        })
    );
    assert_eq!(ask.presentation, Presentation::Questionnaire);
    assert_eq!(
        ask.completed.summary_template.as_deref(),
        Some("{{action}}")
    );
    assert_eq!(ask.gist(), "Deploy v2 to prod?");
    // Without scopes: once and session with a key (seed 003's default), once without.
    let keyed = parse(r#"{"type":"approval","prompt":"Go?","key":"k"}"#).unwrap();
    let bare = parse(r#"{"type":"approval","prompt":"Go?"}"#).unwrap();
    match (keyed.kind, bare.kind) {
        (Kind::Approval(keyed), Kind::Approval(bare)) => {
            assert_eq!(keyed.scopes, [Scope::Once, Scope::Session]);
            assert_eq!(bare.scopes, [Scope::Once]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(bare_timeout(), crate::interact::DEFAULT_TIMEOUT);
}

fn bare_timeout() -> Duration {
    parse(r#"{"type":"approval","prompt":"Go?"}"#)
        .unwrap()
        .timeout
}

#[test]
fn input_forms_read_their_fields_initial_values_and_error() {
    let ask = parse(
        r#"{"type":"input","prompt":"Where?","fields":[{"id":"port","type":"integer","label":"Port","minimum":1024,"maximum":65535,"required":true}],"initial":{"port":8080,"other":1},"error":"Port 8080 is taken"}"#,
    )
    .unwrap();
    let Kind::Input(input) = &ask.kind else {
        panic!("{ask:?}")
    };
    assert!(input.initial_given);
    assert_eq!(
        input.form.initial,
        json!({"port": 8080}).as_object().unwrap().clone()
    );
    assert_eq!(ask.error.as_deref(), Some("Port 8080 is taken"));
    assert_eq!(ask.gist(), "Where?");
    assert!(!ask.old());
}

#[test]
fn the_first_protocol_is_read_as_before() {
    let ask = parse(r#"{"questions":[{"header":"Env","question":"Where?","options":[{"label":"a","description":""},{"label":"b","description":""}]}],"timeout_seconds":99999,"extra":1}"#).unwrap();
    assert!(ask.old());
    assert_eq!(ask.timeout, Duration::from_secs(3600));
    let wrong = parse(r#"{"questions":[]}"#).unwrap_err();
    assert_eq!(wrong["status"], "invalid");
    assert!(wrong.get("action").is_none());
    assert!(
        wrong["error"]
            .as_str()
            .unwrap()
            .contains("1 to 4 questions")
    );
}

#[test]
fn malformed_requests_are_told_what_to_fix() {
    let cases = [
        ("not json", "the request is not JSON"),
        ("[1]", "the request is a JSON object, not [1]"),
        (r#"{"prompt":"x"}"#, "has no \"type\""),
        (
            r#"{"type":"vote"}"#,
            "\"type\" is \"approval\" or \"input\"",
        ),
        (r#"{"type":"approval"}"#, "\"prompt\" is missing"),
        (
            r#"{"type":"approval","prompt":"x","scopes":["forever"]}"#,
            "\"scopes\" lists \"once\", \"session\" and \"always\", not \"forever\"",
        ),
        (
            r#"{"type":"approval","prompt":"x","scopes":["session"]}"#,
            "needs a \"key\"",
        ),
        (r#"{"type":"approval","prompt":"x","key":""}"#, "\"key\" is"),
        (
            r#"{"type":"approval","prompt":"x","timeout":5}"#,
            "there is no field \"timeout\" here; the fields are prompt, detail, scopes, key, timeout_seconds",
        ),
        (
            r#"{"type":"approval","prompt":"x","timeout_seconds":0}"#,
            "\"timeout_seconds\" is a whole number of seconds",
        ),
        (r#"{"type":"input","prompt":"x"}"#, "\"fields\" is missing"),
        (
            r#"{"type":"input","fields":[{"type":"text"}]}"#,
            "fields[0].id: missing",
        ),
        (
            r#"{"type":"input","fields":[{"id":"a"}],"initial":[1]}"#,
            "\"initial\" is an object",
        ),
        (
            r#"{"type":"input","fields":[{"id":"a"}],"pending":{"after":3}}"#,
            "\"pending\" has no field \"after\"",
        ),
        (
            r#"{"type":"input","fields":[{"id":"a"}],"pending":{}}"#,
            "\"pending.after_seconds\" is missing",
        ),
        (
            r#"{"type":"input","fields":[{"id":"a"}],"presentation":"modal"}"#,
            "\"presentation\" is \"tool\" or \"questionnaire\", not \"modal\"",
        ),
        (
            r#"{"type":"input","fields":[{"id":"a"}],"completedView":{"showInputs":"no"}}"#,
            "\"showInputs\" is true or false",
        ),
    ];
    for (line, expected) in cases {
        let error = error_of(line);
        assert!(error.contains(expected), "{line}: {error}");
    }
    assert_eq!(parse("[1]").unwrap_err()["action"], "invalid");
    assert_eq!(
        parse(r#"{"type":"input"}"#).unwrap_err(),
        json!({"action": "invalid", "error": error_of(r#"{"type":"input"}"#)})
    );
}

#[test]
fn replies_have_the_protocols_words() {
    assert_eq!(
        approved(Scope::Session),
        json!({"action": "approve", "approvalScope": "session"})
    );
    assert_eq!(
        reply("deny").with("reason", "not today"),
        json!({"action": "deny", "reason": "not today"})
    );
    let old = parse(r#"{"questions":[{"header":"E","question":"Q?","options":[{"label":"a","description":""},{"label":"b","description":""}]}]}"#).unwrap();
    assert_eq!(plain(&old, "timeout"), json!({"status": "timeout"}));
    let new = parse(r#"{"type":"approval","prompt":"Go?"}"#).unwrap();
    assert_eq!(plain(&new, "timeout"), json!({"action": "timeout"}));
}
