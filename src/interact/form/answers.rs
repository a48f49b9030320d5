//! The answers the form (or the terminal) sends back: checked against their questions (shape,
//! required questions answered), and the summary the model reads.

use serde::Serialize;
use serde_json::Value;

use super::questions::{FormQuestion, Interview, Kind};

/// One answer as the model receives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reply {
    pub id: String,
    pub value: ReplyValue,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ReplyValue {
    One(String),
    Many(Vec<String>),
}

impl ReplyValue {
    pub fn joined(&self) -> String {
        match self {
            Self::One(text) => text.clone(),
            Self::Many(items) => items.join(", "),
        }
    }

    /// Whether nothing was given: no text, no choice, no path.
    pub fn is_empty(&self) -> bool {
        match self {
            Self::One(text) => text.trim().is_empty(),
            Self::Many(items) => items.iter().all(|item| item.trim().is_empty()),
        }
    }
}

/// An answer the form sent that does not fit its question: `field` is the question id (or
/// the position in the list when there is no usable id), for the page to show at the field.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub(crate) fn new(field: &str, message: String) -> Self {
        Self {
            field: field.to_string(),
            message,
        }
    }
}

/// Checks the `responses` list of a submission against the questions: every id known and
/// answered once, values shaped by the question type (a string; a list for multi; a string
/// or list of paths for image), attachments a list of strings. Informational questions take
/// no answer.
pub fn check_replies(interview: &Interview, responses: &Value) -> Result<Vec<Reply>, FieldError> {
    let list = match responses {
        Value::Null => return Ok(Vec::new()),
        Value::Array(list) => list,
        other => {
            return Err(FieldError::new(
                "responses",
                format!("responses: expected a list, got {other}."),
            ));
        }
    };
    let mut replies: Vec<Reply> = Vec::new();
    for (index, item) in list.iter().enumerate() {
        let position = format!("responses[{index}]");
        let Some(id) = item.get("id").and_then(Value::as_str) else {
            return Err(FieldError::new(
                &position,
                format!("{position}.id: expected the question id."),
            ));
        };
        let Some(question) = interview.questions.iter().find(|q| q.id == id) else {
            return Err(FieldError::new(
                id,
                format!("Unknown question id \"{id}\"."),
            ));
        };
        if replies.iter().any(|r| r.id == id) {
            return Err(FieldError::new(id, format!("\"{id}\" is answered twice.")));
        }
        let value = reply_value(question, item.get("value").unwrap_or(&Value::Null))
            .map_err(|why| FieldError::new(id, format!("Invalid answer for \"{id}\": {why}")))?;
        let attachments = match item.get("attachments") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(paths)) if paths.iter().all(Value::is_string) => paths
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            Some(_) => {
                return Err(FieldError::new(
                    id,
                    format!("Invalid attachments for \"{id}\": expected a list of file paths."),
                ));
            }
        };
        replies.push(Reply {
            id: id.to_string(),
            value,
            attachments,
        });
    }
    Ok(replies)
}

fn reply_value(question: &FormQuestion, value: &Value) -> Result<ReplyValue, String> {
    let strings = |list: &[Value]| -> Option<Vec<String>> {
        list.iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    match (question.kind, value) {
        (Kind::Info, _) => Err("this question only shows text and takes no answer.".into()),
        (Kind::Single | Kind::Text, Value::String(text)) => Ok(ReplyValue::One(text.clone())),
        (Kind::Single | Kind::Text, _) => Err("expected text.".into()),
        (Kind::Multi, Value::Array(list)) => strings(list)
            .map(ReplyValue::Many)
            .ok_or_else(|| "expected a list of chosen options.".into()),
        (Kind::Multi, _) => Err("expected a list of chosen options.".into()),
        (Kind::Image, Value::String(path)) => Ok(ReplyValue::One(path.clone())),
        (Kind::Image, Value::Array(list)) => strings(list)
            .map(ReplyValue::Many)
            .ok_or_else(|| "expected file paths.".into()),
        (Kind::Image, Value::Null) => Ok(ReplyValue::Many(Vec::new())),
        (Kind::Image, _) => Err("expected file paths.".into()),
    }
}

/// The required questions (all but `info`, unless marked optional) that `replies` leave
/// unanswered, in the order of the form; `uploading` names the image questions that get an
/// uploaded picture with the same submission.
pub fn unanswered(interview: &Interview, replies: &[Reply], uploading: &[&str]) -> Vec<FieldError> {
    interview
        .questions
        .iter()
        .filter(|q| q.required())
        .filter(|q| !uploading.contains(&q.id.as_str()))
        .filter(|q| {
            replies
                .iter()
                .find(|r| r.id == q.id)
                .is_none_or(|r| r.value.is_empty())
        })
        .map(|q| FieldError::new(&q.id, format!("\"{}\" needs an answer.", q.id)))
        .collect()
}

/// How an interview ended, as the model is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Completed,
    Cancelled,
    Timeout,
    Aborted,
}

/// The tool's result: seed 000's summary lines, then the status and the answers as JSON.
pub fn result_text(status: Status, replies: &[Reply], timeout_secs: u64) -> String {
    let summary = match status {
        Status::Completed => format!(
            "User completed the interview form.\n\nResponses:\n{}",
            summary_lines(replies)
        ),
        Status::Cancelled => "User cancelled the interview form.".to_string(),
        Status::Timeout => format!("Interview form timed out after {timeout_secs} seconds."),
        Status::Aborted => "Interview was aborted.".to_string(),
    };
    let details = serde_json::json!({ "status": status, "responses": replies });
    format!("{summary}\n\n{details}")
}

fn summary_lines(replies: &[Reply]) -> String {
    if replies.is_empty() {
        return "(none)".into();
    }
    replies
        .iter()
        .map(|reply| {
            let mut line = format!("- {}: {}", reply.id, reply.value.joined());
            if !reply.attachments.is_empty() {
                line.push_str(&format!(" [attachments: {}]", reply.attachments.join(", ")));
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::form::questions::parse;
    use serde_json::json;

    fn example() -> Interview {
        parse(&json!({
            "questions": [
                {"id": "intro", "type": "info", "question": "Read me first."},
                {"id": "db", "type": "single", "question": "Which database?",
                 "options": ["SQLite", "PostgreSQL"]},
                {"id": "features", "type": "multi", "question": "Which features?",
                 "options": ["auth", "search", "export"]},
                {"id": "name", "type": "text", "question": "Project name?"},
                {"id": "logo", "type": "image", "question": "A logo?"},
                {"id": "notes", "type": "text", "question": "Notes?", "optional": true}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn answers_are_checked_against_their_questions() {
        let interview = example();
        let replies = check_replies(
            &interview,
            &json!([
                {"id": "db", "value": "PostgreSQL"},
                {"id": "features", "value": ["auth", "a custom one"]},
                {"id": "name", "value": "marvin", "attachments": ["/tmp/x/sketch.png"]},
                {"id": "logo", "value": ["/tmp/x/logo.png"]}
            ]),
        )
        .unwrap();
        assert_eq!(
            replies[1].value,
            ReplyValue::Many(vec!["auth".into(), "a custom one".into()])
        );
        assert_eq!(replies[2].attachments, ["/tmp/x/sketch.png"]);
        let bad = |responses: Value| check_replies(&interview, &responses).unwrap_err();
        let error = bad(json!([{"id": "nope", "value": "x"}]));
        assert_eq!(
            (error.field.as_str(), error.message.as_str()),
            ("nope", "Unknown question id \"nope\".")
        );
        let error = bad(json!([{"id": "features", "value": "auth"}]));
        assert_eq!(error.field, "features");
        assert!(
            error.message.contains("expected a list"),
            "{}",
            error.message
        );
        assert_eq!(bad(json!([{"id": "db", "value": 3}])).field, "db");
        assert_eq!(bad(json!([{"id": "intro", "value": "ok"}])).field, "intro");
        assert_eq!(bad(json!([{"value": "x"}])).field, "responses[0]");
        assert_eq!(
            bad(json!([{"id": "db", "value": "a"}, {"id": "db", "value": "b"}])).field,
            "db"
        );
        assert_eq!(
            bad(json!([{"id": "name", "value": "x", "attachments": "y"}])).field,
            "name"
        );
        assert_eq!(bad(json!({"db": "x"})).field, "responses");
    }

    #[test]
    fn every_required_question_must_be_answered() {
        let interview = example();
        let fields = |responses: Value, uploading: &[&str]| -> Vec<String> {
            let replies = check_replies(&interview, &responses).unwrap();
            unanswered(&interview, &replies, uploading)
                .into_iter()
                .map(|e| e.field)
                .collect()
        };
        // An untouched form: every question but the info and the optional one.
        assert_eq!(fields(json!([]), &[]), ["db", "features", "name", "logo"]);
        // Blank text, an empty choice and an empty list count as unanswered.
        let blank = json!([{"id": "db", "value": ""}, {"id": "features", "value": []},
            {"id": "name", "value": "  "}, {"id": "logo", "value": [""]}]);
        assert_eq!(fields(blank, &[]), ["db", "features", "name", "logo"]);
        let full = json!([{"id": "db", "value": "SQLite"}, {"id": "features", "value": ["auth"]},
            {"id": "name", "value": "x"}]);
        // An uploaded picture answers the image question.
        assert_eq!(fields(full.clone(), &["logo"]), Vec::<String>::new());
        assert_eq!(fields(full, &[]), ["logo"]);
        let message = &unanswered(&interview, &[], &[])[0].message;
        assert_eq!(message, "\"db\" needs an answer.");
    }

    #[test]
    fn the_result_has_the_seed_summary_and_the_answers_as_json() {
        let replies = vec![
            Reply {
                id: "db".into(),
                value: ReplyValue::One("SQLite".into()),
                attachments: vec![],
            },
            Reply {
                id: "features".into(),
                value: ReplyValue::Many(vec!["auth".into(), "search".into()]),
                attachments: vec!["/tmp/a.png".into()],
            },
        ];
        let text = result_text(Status::Completed, &replies, 600);
        assert!(text.starts_with("User completed the interview form.\n\nResponses:\n- db: SQLite\n- features: auth, search [attachments: /tmp/a.png]\n\n"), "{text}");
        let json: Value = serde_json::from_str(text.rsplit("\n\n").next().unwrap()).unwrap();
        assert_eq!(json["status"], "completed");
        assert_eq!(json["responses"][1]["value"][1], "search");
        assert_eq!(json["responses"][0].get("attachments"), None);
        assert!(
            result_text(Status::Timeout, &[], 90)
                .starts_with("Interview form timed out after 90 seconds.")
        );
        assert!(
            result_text(Status::Cancelled, &[], 90)
                .starts_with("User cancelled the interview form.")
        );
        assert!(result_text(Status::Aborted, &[], 90).contains("\"status\":\"aborted\""));
        assert!(result_text(Status::Completed, &[], 90).contains("Responses:\n(none)"));
    }
}
