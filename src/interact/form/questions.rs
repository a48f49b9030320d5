//! The interview's questions (seed 000, and pi-interview-tool's current schema): parsing and
//! checking a questions file, every error naming the question id and the field. Forms the
//! reference reads differently are normalised here: option-level `recommended` flags become
//! the question's list, a one-element list on a single choice its one label, a legacy
//! `codeBlock` a `content` block (noted for the model).

use std::collections::HashSet;

use serde::Serialize;
use serde_json::{Map, Value};

pub use super::answers::{FieldError, Reply, ReplyValue, Status, check_replies, result_text};
use super::content::{self, Content};
use super::media::{self, Media};
use super::recommend;
pub use super::rule::Rule;
use crate::interact::Choice;

/// A whole questions file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interview {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub questions: Vec<FormQuestion>,
    /// What was read differently from how it was written (a legacy field, a repaired file),
    /// for the tool's result.
    #[serde(skip)]
    pub notes: Vec<String>,
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

    pub fn name(self) -> &'static str {
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

/// How sure the model is of its recommendation: `slight` shows it without choosing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Conviction {
    Strong,
    Slight,
}

/// How much a question matters: `critical` stands out, `minor` is compact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Weight {
    Critical,
    Minor,
}

/// One option of a choice: its label, an optional description and content block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormOption {
    pub label: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormQuestion {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: Kind,
    pub question: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<FormOption>,
    /// The options Marvin suggests (one for `single`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recommended: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conviction: Option<Conviction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<Weight>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<Media>,
    /// May be left unanswered (every question but `info` must be answered otherwise).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    /// Only the options may be chosen: no "Other" (a yes-or-no, a server's list of values).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub closed: bool,
    /// What the answer must be beyond being given (set by Marvin, never read from a file).
    #[serde(skip)]
    pub rule: Option<Rule>,
    /// A text answer filled in to start with (set by Marvin: an MCP server's default).
    #[serde(skip)]
    pub default: Option<String>,
}

impl FormQuestion {
    /// Whether the answers are refused without this one.
    pub fn required(&self) -> bool {
        self.kind != Kind::Info && !self.optional
    }

    /// Whether the recommended options start chosen (unless the model is only slightly sure).
    pub fn preselect(&self) -> bool {
        self.conviction != Some(Conviction::Slight)
    }

    /// Why a given (not empty) answer does not fit: a choice that is not an option of a
    /// closed question, or an answer against its rule.
    pub fn misfit(&self, given: &ReplyValue) -> Option<String> {
        let values = match given {
            ReplyValue::One(one) => std::slice::from_ref(one),
            ReplyValue::Many(many) => many.as_slice(),
        };
        let is_option = |value: &String| self.options.iter().any(|o| &o.label == value);
        if self.closed && !values.iter().all(is_option) {
            let labels: Vec<&str> = self.options.iter().map(|o| o.label.as_str()).collect();
            return Some(format!("Choose from {}.", labels.join(", ")));
        }
        self.rule.as_ref().and_then(|rule| rule.check(given).err())
    }

    /// The options as the terminal's chooser shows them.
    pub fn choices(&self) -> Vec<Choice> {
        self.options
            .iter()
            .map(|option| Choice {
                label: option.label.clone(),
                description: option.description.clone(),
            })
            .collect()
    }
}

/// Checks a questions file: an object with an optional title and description and a non-empty
/// list of questions with unique ids.
pub fn parse(data: &Value) -> Result<Interview, String> {
    let object = match data {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err("The questions must be a JSON object with a \"questions\" list, not an array: wrap the list as {\"questions\": [...]}.".into());
        }
        _ => return Err("The questions must be a JSON object with a \"questions\" list.".into()),
    };
    let title = optional_text(object, "title", "title")?;
    let description = optional_text(object, "description", "description")?;
    let list = match object.get("questions") {
        Some(Value::Array(list)) if !list.is_empty() => list,
        None if object.contains_key("question") || object.contains_key("label") => {
            return Err(
                "questions: missing. Did you mean to wrap this question in {\"questions\": [...]}?"
                    .into(),
            );
        }
        _ => return Err("questions: must be a non-empty list of questions.".into()),
    };
    let mut notes = Vec::new();
    let mut questions: Vec<FormQuestion> = Vec::new();
    // Looked up, not scanned: a file of many questions is checked in proportion to its size.
    let mut ids = HashSet::new();
    for (index, value) in list.iter().enumerate() {
        let question = parse_question(index, value, &mut notes)?;
        if !ids.insert(question.id.clone()) {
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
        notes,
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

fn parse_question(
    index: usize,
    value: &Value,
    notes: &mut Vec<String>,
) -> Result<FormQuestion, String> {
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
    let kind = parse_kind(object, &at)?;
    let question = match object.get("question") {
        Some(Value::String(text)) if !text.trim().is_empty() => text.trim().to_string(),
        _ if object.get("label").is_some_and(Value::is_string) => {
            return Err(format!(
                "{}: missing; use \"question\" for the question's text, not \"label\".",
                at("question")
            ));
        }
        _ => return Err(format!("{}: the question text is missing.", at("question"))),
    };
    let (options, flags) = parse_options(object.get("options"), kind, &at("options"))?;
    let (recommended, conviction) = recommend::resolve(object, kind, &options, &flags, &at)?;
    Ok(FormQuestion {
        id: id.clone(),
        kind,
        question,
        options,
        recommended,
        conviction,
        weight: parse_weight(object.get("weight"), &at)?,
        context: optional_text(object, "context", &at("context"))?,
        content: parse_content(object, &id, notes)?,
        media: media::parse_all(object.get("media").unwrap_or(&Value::Null), &at("media"))?,
        optional: match object.get("optional") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(optional)) => *optional,
            Some(other) => {
                return Err(format!(
                    "{}: expected true or false, got {other}.",
                    at("optional")
                ));
            }
        },
        closed: false,
        rule: None,
        default: None,
    })
}

fn parse_kind(object: &Map<String, Value>, at: &dyn Fn(&str) -> String) -> Result<Kind, String> {
    let name = object.get("type").and_then(Value::as_str).unwrap_or("");
    Kind::parse(name).ok_or_else(|| {
        let hint = match name {
            "select" | "radio" | "choice" | "dropdown" => " (use \"single\" for one choice)",
            "checkbox" | "checkboxes" | "multiselect" => " (use \"multi\" for several choices)",
            "textarea" | "input" | "string" => " (use \"text\" for typed answers)",
            _ => "",
        };
        format!("{}: must be one of {}{hint}.", at("type"), Kind::NAMES)
    })
}

fn parse_weight(
    value: Option<&Value>,
    at: &dyn Fn(&str) -> String,
) -> Result<Option<Weight>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(w)) if w == "critical" => Ok(Some(Weight::Critical)),
        Some(Value::String(w)) if w == "minor" => Ok(Some(Weight::Minor)),
        Some(_) => Err(format!(
            "{}: must be \"critical\" or \"minor\".",
            at("weight")
        )),
    }
}

/// `content`, or the legacy `codeBlock` read as one (and said in `notes`); not both.
fn parse_content(
    object: &Map<String, Value>,
    id: &str,
    notes: &mut Vec<String>,
) -> Result<Option<Content>, String> {
    let at = |field: &str| format!("Question \"{id}\": {field}");
    match (object.get("content"), object.get("codeBlock")) {
        (Some(_), Some(_)) => Err(format!(
            "{}: give \"content\" or the legacy \"codeBlock\", not both.",
            at("codeBlock")
        )),
        (Some(value), None) if !value.is_null() => {
            content::parse(value, &at("content"), false).map(Some)
        }
        (None, Some(value)) if !value.is_null() => {
            notes.push(format!(
                "Question \"{id}\": the legacy \"codeBlock\" was read as \"content\" (its \"code\" as \"source\"); write \"content\" next time."
            ));
            content::parse(value, &at("codeBlock"), true).map(Some)
        }
        _ => Ok(None),
    }
}

/// Options as strings or `{label, description?, content?, recommended?, conviction?}`
/// objects, labels unique; with each option's own recommendation flags (for
/// [`recommend::resolve`]).
fn parse_options(
    value: Option<&Value>,
    kind: Kind,
    field: &str,
) -> Result<(Vec<FormOption>, Vec<recommend::Flag>), String> {
    let list = match value {
        None | Some(Value::Null) => &Vec::new(),
        Some(Value::Array(list)) => list,
        Some(other) => return Err(format!("{field}: expected a list, got {other}.")),
    };
    if kind.has_options() && list.is_empty() {
        return Err(format!(
            "{field}: required for type \"{}\", as a non-empty list.",
            kind.name()
        ));
    }
    if !kind.has_options() && !list.is_empty() {
        return Err(format!(
            "{field}: not allowed for type \"{}\".",
            kind.name()
        ));
    }
    let mut options: Vec<FormOption> = Vec::new();
    let mut flags = Vec::new();
    let mut labels = HashSet::new();
    for (j, option) in list.iter().enumerate() {
        let at = format!("{field}[{j}]");
        let (parsed, flag) = match option {
            Value::String(label) => (plain(label.trim()), recommend::Flag::default()),
            Value::Object(object) => parse_rich_option(object, &at)?,
            other => {
                return Err(format!(
                    "{at}: expected a string or {{label, description}}, got {other}."
                ));
            }
        };
        if parsed.label.is_empty() {
            return Err(format!("{at}: the label is empty."));
        }
        if !labels.insert(parsed.label.clone()) {
            return Err(format!("{at}: \"{}\" appears twice.", parsed.label));
        }
        options.push(parsed);
        flags.push(flag);
    }
    Ok((options, flags))
}

fn plain(label: &str) -> FormOption {
    FormOption {
        label: label.to_string(),
        description: String::new(),
        content: None,
    }
}

fn parse_rich_option(
    object: &Map<String, Value>,
    at: &str,
) -> Result<(FormOption, recommend::Flag), String> {
    let Some(Value::String(label)) = object.get("label") else {
        return Err(format!("{at}: must have a \"label\" string."));
    };
    let description = match object.get("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.trim().to_string(),
        Some(other) => return Err(format!("{at}.description: expected a string, got {other}.")),
    };
    let content = match (object.get("content"), object.get("code")) {
        (Some(value), _) if !value.is_null() => {
            Some(content::parse(value, &format!("{at}.content"), false)?)
        }
        (_, Some(value)) if !value.is_null() => {
            Some(content::parse(value, &format!("{at}.code"), true)?)
        }
        _ => None,
    };
    let flag = recommend::Flag::parse(object, at)?;
    let option = FormOption {
        label: label.trim().to_string(),
        description,
        content,
    };
    Ok((option, flag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_good_file_parses_with_both_option_shapes() {
        let interview = parse(&json!({
            "title": "New project",
            "description": "A few choices before I start.",
            "questions": [
                {"id": "intro", "type": "info", "question": "Read me first."},
                {"id": "db", "type": "single", "question": "Which database?",
                 "options": ["SQLite", {"label": "PostgreSQL", "description": "a server"}],
                 "recommended": "SQLite", "context": "SQLite is one file."},
                {"id": "features", "type": "multi", "question": "Which features?",
                 "options": ["auth", "search", "export"], "recommended": ["auth", "search"]}
            ]
        }))
        .unwrap();
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
        assert_eq!(sent.get("notes"), None);
    }

    #[test]
    fn many_questions_and_options_are_checked_in_time() {
        // Each id, label and recommended label was compared with all before it: minutes here.
        let many = 100_000;
        let questions: Vec<Value> = (0..many)
            .map(|i| json!({"id": format!("q{i}"), "type": "text", "question": "?"}))
            .collect();
        assert_eq!(
            parse(&json!({ "questions": questions })).map(|i| i.questions.len()),
            Ok(many)
        );
        let options: Vec<Value> = (0..many).map(|i| json!(format!("option {i}"))).collect();
        let picks: Vec<Value> = options.iter().step_by(2).cloned().collect();
        let file = json!({"questions": [
            {"id": "q", "type": "multi", "question": "?", "options": options, "recommended": picks}
        ]});
        let interview = parse(&file).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(interview.questions[0].recommended.len(), many / 2);
    }
}
