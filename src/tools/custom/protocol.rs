//! The `@@marvin-interact` line protocol of users' tools: what a request line may say, read
//! into what Marvin asks, and the JSON replies the tool reads on its stdin (README "Your own
//! tools"). Every mistake in a request is answered with an error that says how to fix it.

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::interact::{CompletedView, InputForm, Presentation, Question, Scope, view};
use crate::tools::ask::ask_user;

/// The line prefix of a request from a tool.
pub(super) const PREFIX: &str = "@@marvin-interact ";

/// The longest wait a tool may ask for.
const MAX_WAIT: Duration = Duration::from_secs(24 * 3600);
/// The longest approval key.
const MAX_KEY: usize = 200;

/// One request of a tool.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Ask {
    pub kind: Kind,
    /// How long the question waits for an answer.
    pub timeout: Duration,
    /// Unanswered after a while: reply `pending` and keep the question open.
    pub pending: Option<Pending>,
    pub presentation: Presentation,
    pub completed: CompletedView,
    /// Why the previous answer was refused: the request asks again (a reprompt).
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Kind {
    /// The first protocol: ask_user-shaped questions, answered with `status`.
    Questions(Vec<Question>),
    Approval(Approval),
    Input(Input),
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Approval {
    pub prompt: String,
    pub detail: String,
    /// What the person may grant: `once`, and `session` and `always` where a key is given.
    pub scopes: Vec<Scope>,
    /// What a session or always grant is remembered under (in the tool's namespace).
    pub key: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Input {
    pub form: InputForm,
    /// The tool gave the values to show filled in (else a reprompt shows the last input).
    pub initial_given: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Pending {
    pub after: Duration,
    /// What the tool says of the question left open, for the model.
    pub message: Option<String>,
}

impl Ask {
    /// Whether replies say `status` (the first protocol) rather than `action`.
    pub(super) fn old(&self) -> bool {
        matches!(self.kind, Kind::Questions(_))
    }

    /// The question in a few words, for a late answer's message.
    pub(super) fn gist(&self) -> String {
        match &self.kind {
            Kind::Questions(questions) => questions
                .iter()
                .map(|q| q.question.as_str())
                .collect::<Vec<_>>()
                .join(" / "),
            Kind::Approval(approval) => approval.prompt.clone(),
            Kind::Input(input) => match input.form.prompt.is_empty() {
                true => {
                    let labels: Vec<&str> =
                        input.form.fields.iter().map(|f| f.label.as_str()).collect();
                    labels.join(", ")
                }
                false => input.form.prompt.clone(),
            },
        }
    }
}

/// Reads a request line (the text after [`PREFIX`]). `Err` is the reply that says what is
/// wrong with it.
pub(super) fn parse(line: &str) -> Result<Ask, Value> {
    let value: Value = serde_json::from_str(line.trim()).map_err(|e| {
        unknown_invalid(format!(
            "the request is not JSON ({e}): write {PREFIX}and one JSON object on one line"
        ))
    })?;
    let Value::Object(object) = value else {
        return Err(unknown_invalid(format!(
            "the request is a JSON object, not {}",
            short(&value)
        )));
    };
    match object.get("type") {
        None if object.contains_key("questions") => questions(&object).map_err(old_invalid),
        Some(Value::String(kind)) if kind == "questions" => {
            questions(&object).map_err(old_invalid)
        }
        Some(Value::String(kind)) if kind == "approval" => {
            approval(&object).map_err(|e| reply("invalid").with("error", e))
        }
        Some(Value::String(kind)) if kind == "input" => {
            input(&object).map_err(|e| reply("invalid").with("error", e))
        }
        None => Err(unknown_invalid(
            "the request has no \"type\": give \"type\": \"approval\" or \"input\" (or a \"questions\" list)".into(),
        )),
        Some(other) => Err(unknown_invalid(format!(
            "\"type\" is \"approval\" or \"input\" (or leave it out and give \"questions\"), not {}",
            short(other)
        ))),
    }
}

/// The first protocol's questions: lenient about other fields, as it always was.
fn questions(object: &Map<String, Value>) -> Result<Ask, String> {
    let raw = object
        .get("questions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let questions = ask_user::parse_questions(&raw)?;
    let seconds = object
        .get("timeout_seconds")
        .and_then(Value::as_u64)
        .unwrap_or(600)
        .clamp(1, 3600);
    Ok(Ask {
        kind: Kind::Questions(questions),
        timeout: Duration::from_secs(seconds),
        pending: pending(object)?,
        presentation: Presentation::default(),
        completed: CompletedView::default(),
        error: None,
    })
}

const COMMON: [&str; 6] = [
    "type",
    "timeout_seconds",
    "pending",
    "presentation",
    "completedView",
    "error",
];

fn approval(object: &Map<String, Value>) -> Result<Ask, String> {
    known(object, &["prompt", "detail", "scopes", "key"])?;
    let prompt = match object.get("prompt") {
        Some(Value::String(text)) if !text.trim().is_empty() => text.trim().to_string(),
        _ => return Err("\"prompt\" is missing: say in one line what needs approval, e.g. \"Deploy v2 to prod?\"".into()),
    };
    let detail = match object.get("detail") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => return Err(format!("\"detail\" is text, not {}", short(other))),
    };
    let key = match object.get("key") {
        None | Some(Value::Null) => None,
        Some(Value::String(key))
            if !key.trim().is_empty()
                && key.len() <= MAX_KEY
                && !key.chars().any(char::is_control) =>
        {
            Some(key.trim().to_string())
        }
        Some(other) => {
            return Err(format!(
                "\"key\" is what a grant is remembered under: text of 1 to {MAX_KEY} characters without control characters, not {}",
                short(other)
            ));
        }
    };
    let scopes = match object.get("scopes") {
        None | Some(Value::Null) if key.is_some() => vec![Scope::Once, Scope::Session],
        None | Some(Value::Null) => vec![Scope::Once],
        Some(Value::Array(names)) if !names.is_empty() => {
            let mut scopes = Vec::new();
            for name in names {
                let scope = match name.as_str() {
                    Some("once") => Scope::Once,
                    Some("session") => Scope::Session,
                    Some("always") => Scope::Always,
                    _ => {
                        return Err(format!(
                            "\"scopes\" lists \"once\", \"session\" and \"always\", not {}",
                            short(name)
                        ));
                    }
                };
                if !scopes.contains(&scope) {
                    scopes.push(scope);
                }
            }
            scopes
        }
        Some(other) => {
            return Err(format!(
                "\"scopes\" is a non-empty list such as [\"once\", \"session\", \"always\"], not {}",
                short(other)
            ));
        }
    };
    if key.is_none() && scopes.iter().any(|s| *s != Scope::Once) {
        return Err("a \"session\" or \"always\" scope needs a \"key\" to remember the grant under (e.g. \"key\": \"prod\"); without one only \"once\" can be offered".into());
    }
    Ok(Ask {
        kind: Kind::Approval(Approval {
            prompt,
            detail,
            scopes,
            key,
        }),
        ..common(object)?
    })
}

fn input(object: &Map<String, Value>) -> Result<Ask, String> {
    known(object, &["prompt", "fields", "initial"])?;
    let prompt = match object.get("prompt") {
        None | Some(Value::Null) => "",
        Some(Value::String(text)) => text.as_str(),
        Some(other) => return Err(format!("\"prompt\" is text, not {}", short(other))),
    };
    let Some(fields) = object.get("fields") else {
        return Err("\"fields\" is missing: give the list of fields to fill in, e.g. [{\"id\": \"port\", \"type\": \"integer\", \"label\": \"Port\"}]".into());
    };
    let mut form = InputForm::from_fields(prompt, fields)?;
    let initial_given = match object.get("initial") {
        None | Some(Value::Null) => false,
        Some(Value::Object(values)) => {
            form = form.with_initial(values);
            true
        }
        Some(other) => {
            return Err(format!(
                "\"initial\" is an object of field ids and values, not {}",
                short(other)
            ));
        }
    };
    Ok(Ask {
        kind: Kind::Input(Input {
            form,
            initial_given,
        }),
        ..common(object)?
    })
}

/// The fields every request may carry.
fn common(object: &Map<String, Value>) -> Result<Ask, String> {
    let timeout = match object.get("timeout_seconds") {
        None | Some(Value::Null) => crate::interact::DEFAULT_TIMEOUT,
        Some(value) => seconds(value).map_err(|why| format!("\"timeout_seconds\" {why}"))?,
    };
    let presentation = match object.get("presentation") {
        None | Some(Value::Null) => Presentation::default(),
        Some(Value::String(name)) => Presentation::parse(name).ok_or_else(|| {
            format!("\"presentation\" is \"tool\" or \"questionnaire\", not \"{name}\"")
        })?,
        Some(other) => {
            return Err(format!(
                "\"presentation\" is \"tool\" or \"questionnaire\", not {}",
                short(other)
            ));
        }
    };
    let completed = match object.get("completedView") {
        None | Some(Value::Null) => CompletedView::default(),
        Some(value) => CompletedView::parse(value)?,
    };
    let error = match object.get("error") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) if !text.trim().is_empty() => Some(text.trim().to_string()),
        Some(other) => {
            return Err(format!(
                "\"error\" says why the last answer was refused, as text, not {}",
                short(other)
            ));
        }
    };
    Ok(Ask {
        kind: Kind::Questions(Vec::new()),
        timeout,
        pending: pending(object)?,
        presentation,
        completed,
        error,
    })
}

fn pending(object: &Map<String, Value>) -> Result<Option<Pending>, String> {
    let pending = match object.get("pending") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(pending)) => pending,
        Some(other) => {
            return Err(format!(
                "\"pending\" is {{\"after_seconds\": N, \"message\": \"…\"}}, not {}",
                short(other)
            ));
        }
    };
    if let Some(name) = pending
        .keys()
        .find(|k| !["after_seconds", "message"].contains(&k.as_str()))
    {
        return Err(format!(
            "\"pending\" has no field \"{name}\": give \"after_seconds\" and, if you like, \"message\""
        ));
    }
    let after = match pending.get("after_seconds") {
        Some(value) => seconds(value).map_err(|why| format!("\"pending.after_seconds\" {why}"))?,
        None => return Err("\"pending.after_seconds\" is missing: how long to wait before the tool goes on without the answer".into()),
    };
    let message = match pending.get("message") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) if !text.trim().is_empty() => Some(text.trim().to_string()),
        Some(Value::String(_)) => None,
        Some(other) => {
            return Err(format!("\"pending.message\" is text, not {}", short(other)));
        }
    };
    Ok(Some(Pending { after, message }))
}

/// A number of seconds: a whole number from 1 to a day.
fn seconds(value: &Value) -> Result<Duration, String> {
    match value.as_u64() {
        Some(n) if n >= 1 => Ok(Duration::from_secs(n).min(MAX_WAIT)),
        _ => Err(format!(
            "is a whole number of seconds from 1 to {}, not {}",
            MAX_WAIT.as_secs(),
            short(value)
        )),
    }
}

/// Rejects a field the request's type does not have (a typo would be silently ignored).
fn known(object: &Map<String, Value>, own: &[&str]) -> Result<(), String> {
    match object
        .keys()
        .find(|k| !own.contains(&k.as_str()) && !COMMON.contains(&k.as_str()))
    {
        Some(name) => {
            let mut fields: Vec<&str> = own.to_vec();
            fields.extend(COMMON.iter().filter(|c| **c != "type"));
            Err(format!(
                "there is no field \"{name}\" here; the fields are {}",
                fields.join(", ")
            ))
        }
        None => Ok(()),
    }
}

/// A value in an error message, cut short.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(60) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// A reply: `{"action": WORD}` (or the first protocol's `{"status": WORD}`), with more
/// fields added by [`With::with`].
pub(super) fn reply(action: &str) -> Value {
    json!({ "action": action })
}

/// The first protocol's reply.
pub(super) fn status(word: &str) -> Value {
    json!({ "status": word })
}

/// The reply of `word` in the flavour of `ask` (`action`, or the first protocol's `status`).
pub(super) fn plain(ask: &Ask, word: &str) -> Value {
    match ask.old() {
        true => status(word),
        false => reply(word),
    }
}

fn old_invalid(error: String) -> Value {
    status("invalid").with("error", error)
}

/// A request whose protocol is unknown: both words, so that a tool of either reads it.
fn unknown_invalid(error: String) -> Value {
    json!({"action": "invalid", "status": "invalid", "error": error})
}

/// Adds a field to a reply.
pub(super) trait With {
    fn with(self, name: &str, value: impl Into<Value>) -> Value;
}

impl With for Value {
    fn with(mut self, name: &str, value: impl Into<Value>) -> Value {
        self[name] = value.into();
        self
    }
}

/// `{"action": "approve", "approvalScope": …}`.
pub(super) fn approved(scope: Scope) -> Value {
    reply("approve").with("approvalScope", view::scope_name(scope))
}

#[cfg(test)]
mod tests {
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
}
