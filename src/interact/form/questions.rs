//! The interview's questions (seed 000 Phase 4, schema.ts): parsing and checking a questions
//! file, every error naming the question id and the field.

use serde::Serialize;
use serde_json::{Map, Value};

pub use super::answers::{FieldError, Reply, ReplyValue, Status, check_replies, result_text};
use crate::interact::Choice;

/// A whole questions file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interview {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub questions: Vec<FormQuestion>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// One of the options (or "Other" with text).
    Single,
    /// Any of the options (and "Other" with text).
    Multi,
    Text,
    /// Pictures, uploaded or given as paths; they reach the model as file paths.
    Image,
    /// Text to read; takes no answer.
    Info,
}

impl Kind {
    const NAMES: &str = "single, multi, text, image, info";

    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "single" => Self::Single,
            "multi" => Self::Multi,
            "text" => Self::Text,
            "image" => Self::Image,
            "info" => Self::Info,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Self::Single => "single",
            Self::Multi => "multi",
            Self::Text => "text",
            Self::Image => "image",
            Self::Info => "info",
        }
    }

    fn has_options(self) -> bool {
        matches!(self, Self::Single | Self::Multi)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormQuestion {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: Kind,
    pub question: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<Choice>,
    /// The options Marvin suggests (one for `single`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recommended: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// May be left unanswered (every question but `info` must be answered otherwise).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
}

impl FormQuestion {
    /// Whether the answers are refused without this one.
    pub fn required(&self) -> bool {
        self.kind != Kind::Info && !self.optional
    }
}

/// Checks a questions file: an object with an optional title and description and a non-empty
/// list of questions with unique ids.
pub fn parse(data: &Value) -> Result<Interview, String> {
    let object = data
        .as_object()
        .ok_or("The questions must be a JSON object with a \"questions\" list.")?;
    let title = optional_text(object, "title", "title")?;
    let description = optional_text(object, "description", "description")?;
    let list = match object.get("questions") {
        Some(Value::Array(list)) if !list.is_empty() => list,
        _ => return Err("questions: must be a non-empty list of questions.".into()),
    };
    let mut questions: Vec<FormQuestion> = Vec::new();
    for (index, value) in list.iter().enumerate() {
        let question = parse_question(index, value)?;
        if questions.iter().any(|q| q.id == question.id) {
            return Err(format!(
                "questions[{index}].id: \"{}\" is used twice; every question needs its own id.",
                question.id
            ));
        }
        questions.push(question);
    }
    Ok(Interview {
        title,
        description,
        questions,
    })
}

fn optional_text(
    object: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Option<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(format!("{field}: expected a string, got {other}.")),
    }
}

fn parse_question(index: usize, value: &Value) -> Result<FormQuestion, String> {
    let object = value
        .as_object()
        .ok_or_else(|| format!("questions[{index}]: expected an object, got {value}."))?;
    let id = match object.get("id") {
        Some(Value::String(id)) if !id.trim().is_empty() => id.trim().to_string(),
        _ => {
            return Err(format!(
                "questions[{index}].id: missing; give each question a short id such as \"database\"."
            ));
        }
    };
    let at = |field: &str| format!("Question \"{id}\": {field}");
    let kind = match object.get("type") {
        Some(Value::String(name)) => Kind::parse(name),
        _ => None,
    }
    .ok_or_else(|| format!("{}: must be one of {}.", at("type"), Kind::NAMES))?;
    let question = match object.get("question") {
        Some(Value::String(text)) if !text.trim().is_empty() => text.trim().to_string(),
        _ => return Err(format!("{}: the question text is missing.", at("question"))),
    };
    let context = optional_text(object, "context", &at("context"))?;
    let options = match object.get("options") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => parse_options(list, &at("options"))?,
        Some(other) => return Err(format!("{}: expected a list, got {other}.", at("options"))),
    };
    if kind.has_options() && options.is_empty() {
        return Err(format!(
            "{}: required for type \"{}\".",
            at("options"),
            kind.name()
        ));
    }
    if !kind.has_options() && !options.is_empty() {
        return Err(format!(
            "{}: not allowed for type \"{}\".",
            at("options"),
            kind.name()
        ));
    }
    let recommended = parse_recommended(object.get("recommended"), kind, &options, &at)?;
    let optional = match object.get("optional") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(optional)) => *optional,
        Some(other) => {
            return Err(format!(
                "{}: expected true or false, got {other}.",
                at("optional")
            ));
        }
    };
    Ok(FormQuestion {
        id,
        kind,
        question,
        options,
        recommended,
        context,
        optional,
    })
}

/// Options as strings or `{label, description}` objects; labels unique.
fn parse_options(list: &[Value], field: &str) -> Result<Vec<Choice>, String> {
    let mut choices: Vec<Choice> = Vec::new();
    for (j, option) in list.iter().enumerate() {
        let (label, description) = match option {
            Value::String(label) => (label.trim(), ""),
            Value::Object(object) => (
                object
                    .get("label")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .trim(),
                object
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .trim(),
            ),
            other => {
                return Err(format!(
                    "{field}[{j}]: expected a string or {{label, description}}, got {other}."
                ));
            }
        };
        if label.is_empty() {
            return Err(format!("{field}[{j}]: the label is empty."));
        }
        if choices.iter().any(|c| c.label == label) {
            return Err(format!("{field}[{j}]: \"{label}\" appears twice."));
        }
        choices.push(Choice {
            label: label.to_string(),
            description: description.to_string(),
        });
    }
    Ok(choices)
}

fn parse_recommended(
    value: Option<&Value>,
    kind: Kind,
    options: &[Choice],
    at: &dyn Fn(&str) -> String,
) -> Result<Vec<String>, String> {
    let picks: Vec<&str> = match (value, kind) {
        (None | Some(Value::Null), _) => return Ok(Vec::new()),
        (Some(_), Kind::Text | Kind::Image | Kind::Info) => {
            return Err(format!(
                "{}: not allowed for type \"{}\".",
                at("recommended"),
                kind.name()
            ));
        }
        (Some(Value::String(one)), _) => vec![one.as_str()],
        (Some(Value::Array(many)), Kind::Multi) => many
            .iter()
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| format!("{}: expected option labels.", at("recommended")))
            })
            .collect::<Result<_, _>>()?,
        (Some(_), Kind::Single) => {
            return Err(format!(
                "{}: must be one option label for single-select.",
                at("recommended")
            ));
        }
        (Some(other), _) => {
            return Err(format!(
                "{}: expected option labels, got {other}.",
                at("recommended")
            ));
        }
    };
    for pick in &picks {
        if !options.iter().any(|o| o.label == *pick) {
            return Err(format!(
                "{}: \"{pick}\" is not one of the options.",
                at("recommended")
            ));
        }
    }
    Ok(picks.into_iter().map(str::to_string).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn example() -> Interview {
        parse(&json!({
            "title": "New project",
            "description": "A few choices before I start.",
            "questions": [
                {"id": "intro", "type": "info", "question": "Read me first."},
                {"id": "db", "type": "single", "question": "Which database?",
                 "options": ["SQLite", {"label": "PostgreSQL", "description": "a server"}],
                 "recommended": "SQLite", "context": "SQLite is one file."},
                {"id": "features", "type": "multi", "question": "Which features?",
                 "options": ["auth", "search", "export"], "recommended": ["auth", "search"]},
                {"id": "name", "type": "text", "question": "Project name?"},
                {"id": "logo", "type": "image", "question": "A logo?"}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn a_good_file_parses_with_both_option_shapes() {
        let interview = example();
        assert_eq!(interview.title.as_deref(), Some("New project"));
        let db = &interview.questions[1];
        assert_eq!(db.kind, Kind::Single);
        assert_eq!(db.options[1].label, "PostgreSQL");
        assert_eq!(db.options[1].description, "a server");
        assert_eq!(db.recommended, ["SQLite"]);
        assert_eq!(interview.questions[2].recommended, ["auth", "search"]);
        let sent = serde_json::to_value(&interview).unwrap();
        assert_eq!(sent["questions"][1]["type"], "single");
        assert_eq!(sent["questions"][1]["options"][0]["label"], "SQLite");
    }

    #[test]
    fn every_mistake_names_the_question_and_the_field() {
        let q = |question: Value| json!({"questions": [question]});
        let cases = [
            (json!([]), "must be a JSON object"),
            (
                json!({"questions": []}),
                "questions: must be a non-empty list",
            ),
            (
                json!({"title": 3, "questions": []}),
                "title: expected a string",
            ),
            (
                q(json!({"type": "text", "question": "?"})),
                "questions[0].id: missing",
            ),
            (
                q(json!({"id": "a", "type": "radio", "question": "?"})),
                "Question \"a\": type: must be one of single, multi, text, image, info",
            ),
            (
                q(json!({"id": "a", "type": "text"})),
                "Question \"a\": question: the question text is missing",
            ),
            (
                q(json!({"id": "a", "type": "single", "question": "?"})),
                "Question \"a\": options: required for type \"single\"",
            ),
            (
                q(json!({"id": "a", "type": "text", "question": "?", "options": ["x"]})),
                "Question \"a\": options: not allowed for type \"text\"",
            ),
            (
                q(json!({"id": "a", "type": "multi", "question": "?", "options": ["x", 2]})),
                "Question \"a\": options[1]: expected a string or {label, description}",
            ),
            (
                q(json!({"id": "a", "type": "multi", "question": "?", "options": ["x", "x"]})),
                "Question \"a\": options[1]: \"x\" appears twice",
            ),
            (
                q(
                    json!({"id": "a", "type": "single", "question": "?", "options": ["x"], "recommended": "y"}),
                ),
                "Question \"a\": recommended: \"y\" is not one of the options",
            ),
            (
                q(
                    json!({"id": "a", "type": "single", "question": "?", "options": ["x"], "recommended": ["x"]}),
                ),
                "must be one option label for single-select",
            ),
            (
                q(json!({"id": "a", "type": "image", "question": "?", "recommended": "x"})),
                "Question \"a\": recommended: not allowed for type \"image\"",
            ),
            (
                q(json!({"id": "a", "type": "text", "question": "?", "context": 1})),
                "Question \"a\": context: expected a string",
            ),
            (
                json!({"questions": [
                {"id": "a", "type": "text", "question": "?"},
                {"id": "a", "type": "text", "question": "?"}]}),
                "questions[1].id: \"a\" is used twice",
            ),
        ];
        for (data, expected) in cases {
            let error = parse(&data).unwrap_err();
            assert!(error.contains(expected), "{data}: {error}");
        }
    }
}
