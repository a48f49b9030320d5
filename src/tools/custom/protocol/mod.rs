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
mod tests;
