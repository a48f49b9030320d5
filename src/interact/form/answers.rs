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

/// The answers given that do not fit their question (see [`FormQuestion::misfit`]), in the
/// order of the form.
pub fn misfits(interview: &Interview, replies: &[Reply]) -> Vec<FieldError> {
    interview
        .questions
        .iter()
        .filter_map(|q| {
            let reply = replies.iter().find(|r| r.id == q.id)?;
            match reply.value.is_empty() {
                true => None,
                false => q.misfit(&reply.value),
            }
            .map(|why| FieldError::new(&q.id, why))
        })
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

/// The tool's result: seed 000's first line, one line per question (`- id: answer`, text
/// typed under "Other" and picture paths marked as such, `(skipped)` for an optional question
/// left unanswered), then the status and the answers as JSON, by question id: a chosen label
/// or the text typed as a string, several as a list, Other as `{"other": text}`, pictures as
/// `{"images": [paths]}`, pictures attached to an answer as `{"answer": …, "attached": [paths]}`,
/// a skipped question as `null`.
///
/// `answered_in` says where the answers were given (`browser`, `terminal`), when known.
pub fn result_text(
    status: Status,
    answered_in: Option<&str>,
    questions: &[FormQuestion],
    replies: &[Reply],
    timeout_secs: u64,
) -> String {
    let summary = match status {
        Status::Completed => format!(
            "User completed the interview form.\n\nResponses:\n{}",
            summary_lines(questions, replies)
        ),
        Status::Cancelled => "User cancelled the interview form.".to_string(),
        Status::Timeout => format!("Interview form timed out after {timeout_secs} seconds."),
        Status::Aborted => "Interview was aborted.".to_string(),
    };
    let mut answers = serde_json::Map::new();
    if status == Status::Completed {
        for question in questions.iter().filter(|q| q.kind != Kind::Info) {
            let reply = replies.iter().find(|r| r.id == question.id);
            answers.insert(question.id.clone(), answer_json(question, reply));
        }
    }
    let mut details = serde_json::json!({ "status": status, "answers": answers });
    if let Some(surface) = answered_in {
        details["answered_in"] = serde_json::json!(surface);
    }
    format!("{summary}\n\n{details}")
}

/// One line per question answered or skipped, in the form's order.
fn summary_lines(questions: &[FormQuestion], replies: &[Reply]) -> String {
    let lines: Vec<String> = questions
        .iter()
        .filter(|q| q.kind != Kind::Info)
        .map(|question| {
            let reply = replies.iter().find(|r| r.id == question.id);
            format!("- {}: {}", question.id, answer_line(question, reply))
        })
        .collect();
    match lines.is_empty() {
        true => "(none)".into(),
        false => lines.join("\n"),
    }
}

/// The parts of an answer: each chosen option, or the text typed under Other.
enum Part<'a> {
    Chosen(&'a str),
    Other(&'a str),
}

fn parts<'a>(question: &FormQuestion, reply: &'a Reply) -> Vec<Part<'a>> {
    let values: Vec<&str> = match &reply.value {
        ReplyValue::One(one) => vec![one.as_str()],
        ReplyValue::Many(many) => many.iter().map(String::as_str).collect(),
    };
    values
        .into_iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| match question.options.iter().any(|o| o.label == v) {
            true => Part::Chosen(v),
            false => Part::Other(v),
        })
        .collect()
}

/// An answer as one line (a text's own line breaks indented under it).
pub fn answer_line(question: &FormQuestion, reply: Option<&Reply>) -> String {
    let Some(reply) = reply.filter(|r| !r.value.is_empty() || !r.attachments.is_empty()) else {
        return "(skipped)".into();
    };
    let mut line = match question.kind {
        Kind::Single | Kind::Multi => parts(question, reply)
            .iter()
            .map(|part| match part {
                Part::Chosen(label) => label.to_string(),
                Part::Other(text) => format!("Other: {}", serde_json::json!(text)),
            })
            .collect::<Vec<_>>()
            .join(", "),
        Kind::Image => format!("image files: {}", reply.value.joined()),
        Kind::Text | Kind::Info => reply.value.joined().replace('\n', "\n  "),
    };
    if !reply.attachments.is_empty() {
        line.push_str(&format!(
            " [attached images: {}]",
            reply.attachments.join(", ")
        ));
    }
    line
}

fn answer_json(question: &FormQuestion, reply: Option<&Reply>) -> Value {
    let Some(reply) = reply.filter(|r| !r.value.is_empty() || !r.attachments.is_empty()) else {
        return Value::Null;
    };
    let part = |part: &Part| match part {
        Part::Chosen(label) => serde_json::json!(label),
        Part::Other(text) => serde_json::json!({ "other": text }),
    };
    let answer = match question.kind {
        Kind::Single => parts(question, reply).first().map_or(Value::Null, part),
        Kind::Multi => Value::Array(parts(question, reply).iter().map(part).collect()),
        Kind::Image => serde_json::json!({ "images": reply.value_list() }),
        Kind::Text | Kind::Info => serde_json::json!(reply.value.joined()),
    };
    match reply.attachments.is_empty() {
        true => answer,
        false => serde_json::json!({ "answer": answer, "attached": reply.attachments }),
    }
}

impl Reply {
    /// The values as a list, blanks left out.
    fn value_list(&self) -> Vec<&str> {
        match &self.value {
            ReplyValue::One(one) => vec![one.as_str()],
            ReplyValue::Many(many) => many.iter().map(String::as_str).collect(),
        }
        .into_iter()
        .filter(|v| !v.trim().is_empty())
        .collect()
    }
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
    fn the_result_marks_other_text_and_pictures_and_keeps_the_form_order() {
        let interview = example();
        let reply = |id: &str, value: ReplyValue, attachments: &[&str]| Reply {
            id: id.into(),
            value,
            attachments: attachments.iter().map(|a| a.to_string()).collect(),
        };
        let one = |text: &str| ReplyValue::One(text.into());
        let many = |items: &[&str]| ReplyValue::Many(items.iter().map(|i| i.to_string()).collect());
        let replies = vec![
            reply("features", many(&["auth", "audit \"log\""]), &[]),
            reply("db", one("MariaDB"), &[]),
            reply("name", one("ledger\nsecond line"), &["/tmp/a.png"]),
            reply("logo", many(&["/tmp/x/logo.png"]), &[]),
        ];
        let text = result_text(
            Status::Completed,
            Some("browser"),
            &interview.questions,
            &replies,
            600,
        );
        let (summary, json) = text.rsplit_once("\n\n").unwrap();
        assert_eq!(
            summary,
            "User completed the interview form.\n\nResponses:\n\
             - db: Other: \"MariaDB\"\n\
             - features: auth, Other: \"audit \\\"log\\\"\"\n\
             - name: ledger\n  second line [attached images: /tmp/a.png]\n\
             - logo: image files: /tmp/x/logo.png\n\
             - notes: (skipped)"
        );
        let json: Value = serde_json::from_str(json).unwrap();
        assert_eq!(
            json,
            json!({"status": "completed", "answered_in": "browser", "answers": {
                "db": {"other": "MariaDB"},
                "features": ["auth", {"other": "audit \"log\""}],
                "name": {"answer": "ledger\nsecond line", "attached": ["/tmp/a.png"]},
                "logo": {"images": ["/tmp/x/logo.png"]},
                "notes": null}})
        );
        let chosen = vec![reply("db", one("SQLite"), &[])];
        let text = result_text(
            Status::Completed,
            None,
            &interview.questions[..2],
            &chosen,
            600,
        );
        assert!(
            text.ends_with(
                "- db: SQLite\n\n{\"answers\":{\"db\":\"SQLite\"},\"status\":\"completed\"}"
            ),
            "{text}"
        );
        let ended = |status| result_text(status, None, &interview.questions, &[], 90);
        assert!(
            ended(Status::Timeout).starts_with("Interview form timed out after 90 seconds.\n\n")
        );
        assert!(ended(Status::Cancelled).starts_with("User cancelled the interview form."));
        assert!(ended(Status::Aborted).ends_with("{\"answers\":{},\"status\":\"aborted\"}"));
    }
}
