//! Input forms (seed 003's `interactionType: 'input'`): the one field model behind every form
//! a tool asks for, whoever asks (a built-in tool, a user's tool over `@@marvin-interact`, an
//! MCP server's `elicitation/create`) and wherever it is answered (the terminal, the gateway's
//! page, `--attach`, `--on-ask stdin`, the phone).
//!
//! A field is a JSON-schema property, as MCP's elicitation writes it (`string` with a length or
//! a format, `number`/`integer` with bounds, `boolean`, an `enum` or `oneOf` of choices, an
//! `array` of them), with a key, a label, whether it is required and a default. Seed 003's
//! `fields` list (`text`, `textarea`, `select`, `radio`, `checkbox`) reads into the same model,
//! and [`InputForm::to_json`] writes it back in that list's shape, extended with the bounds, so
//! every surface reads one format. Answers are checked where they are given
//! ([`InputForm::check`], [`InputForm::from_replies`]) and sent typed: numbers as numbers, a
//! yes-or-no as a boolean, a choice as its value.

use serde_json::{Map, Value, json};

use super::form::questions::{self, FormQuestion, Interview, Rule};

/// At most this many fields in one form.
pub const MAX_FIELDS: usize = 40;

/// A form of fields to fill in.
#[derive(Debug, Clone, PartialEq)]
pub struct InputForm {
    /// What the person is asked, above the fields.
    pub prompt: String,
    pub fields: Vec<Field>,
    /// What was entered before, by field key, as it was sent (seed 003's `initialValues`): a
    /// reprompt shows it filled in, so nothing typed is lost.
    pub initial: Map<String, Value>,
}

/// One field: a JSON-schema property and how it is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub key: String,
    pub label: String,
    pub description: Option<String>,
    /// The property's schema: its type, bounds, format and default.
    pub schema: Value,
    pub required: bool,
    /// For a choice: (label shown, value sent).
    pub choices: Vec<(String, String)>,
    /// Several choices may be chosen.
    pub multi: bool,
    pub boolean: bool,
    /// Text over several lines (seed 003's `textarea`).
    pub long: bool,
}

impl Field {
    fn kind(&self) -> &str {
        self.schema
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// The field's type in the wire format (see [`InputForm::to_json`]).
    pub fn type_name(&self) -> &'static str {
        match () {
            _ if self.boolean => "boolean",
            _ if self.multi => "multiselect",
            _ if !self.choices.is_empty() => "select",
            _ if self.kind() == "integer" => "integer",
            _ if self.kind() == "number" => "number",
            _ if self.long => "textarea",
            _ => "text",
        }
    }

    /// What an answer must look like, in words (`A whole number from 1 to 100.`).
    pub fn hint(&self) -> Option<String> {
        Rule::new(self.schema.clone()).hint()
    }

    pub fn default(&self) -> Option<&Value> {
        self.schema.get("default").filter(|v| !v.is_null())
    }
}

impl InputForm {
    fn new(prompt: &str, fields: Vec<Field>) -> Result<Self, String> {
        if fields.is_empty() {
            return Err("a form needs at least one field".into());
        }
        if fields.len() > MAX_FIELDS {
            return Err(format!(
                "a form has at most {MAX_FIELDS} fields, not {}",
                fields.len()
            ));
        }
        Ok(Self {
            prompt: prompt.trim().to_string(),
            fields,
            initial: Map::new(),
        })
    }

    /// The same form, with `input` filled in (a reprompt keeps what was entered).
    pub fn with_initial(mut self, input: &Map<String, Value>) -> Self {
        self.initial = input
            .iter()
            .filter(|(key, _)| self.fields.iter().any(|f| &f.key == *key))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self
    }

    /// The form in the wire format every surface reads: seed 003's `inputSchema`,
    /// `{"type": "form", "fields": [...]}`, each field with its `id`, `type` (`text`,
    /// `textarea`, `number`, `integer`, `boolean`, `select`, `multiselect`), `label`,
    /// `required`, and where given `description`, `default`, `options` (`{value, label}`),
    /// the bounds, a `hint` in words and the `initial` value.
    pub fn to_json(&self) -> Value {
        let fields: Vec<Value> = self
            .fields
            .iter()
            .map(|field| {
                let mut out = json!({"id": field.key, "type": field.type_name(),
                                     "label": field.label, "required": field.required});
                if let Some(description) = &field.description {
                    out["description"] = json!(description);
                }
                if let Some(default) = field.default() {
                    out["default"] = default.clone();
                }
                if !field.choices.is_empty() {
                    out["options"] = field
                        .choices
                        .iter()
                        .map(|(label, value)| json!({"value": value, "label": label}))
                        .collect();
                }
                let bounds = ["minimum", "maximum", "minLength", "maxLength", "format"];
                let items = ["minItems", "maxItems"];
                for name in bounds.iter().chain(&items) {
                    if let Some(bound) = field.schema.get(*name) {
                        out[*name] = bound.clone();
                    }
                }
                if let Some(hint) = field.hint() {
                    out["hint"] = json!(hint);
                }
                if let Some(initial) = self.initial.get(&field.key) {
                    out["initial"] = initial.clone();
                }
                out
            })
            .collect();
        json!({"type": "form", "fields": fields})
    }

    /// The fields as the interview's questions, for the surfaces that ask questions one by one
    /// (the terminal): a yes-or-no or a list of choices takes only its options, every answer
    /// is checked against its field, and what was entered before (or the default) starts
    /// filled in. An info block with the prompt comes first when there is one.
    pub fn questions(&self) -> Vec<FormQuestion> {
        let mut list = Vec::new();
        if !self.prompt.is_empty() {
            list.push(json!({"id": "_prompt", "type": "info", "question": self.prompt}));
        }
        for field in &self.fields {
            list.push(question_json(field, self.initial.get(&field.key)));
        }
        let Ok(mut interview) = questions::parse(&json!({"questions": list})) else {
            return Vec::new(); // every field was checked when the form was made
        };
        for question in &mut interview.questions {
            let Some(field) = self.fields.iter().find(|f| f.key == question.id) else {
                continue;
            };
            question.closed = field.boolean || !field.choices.is_empty();
            question.rule = Some(Rule::new(field.schema.clone()));
            if question.kind == questions::Kind::Text {
                question.default = self.initial.get(&field.key).or(field.default()).and_then(
                    |value| match value {
                        Value::String(text) => Some(text.clone()),
                        Value::Number(number) => Some(number.to_string()),
                        _ => None,
                    },
                );
            }
        }
        interview.questions
    }

    /// The form as an interview (title and questions), for a surface that shows the
    /// interview's page.
    pub fn interview(&self, title: &str) -> Interview {
        Interview {
            title: Some(title.to_string()),
            description: None,
            questions: self.questions(),
            notes: Vec::new(),
        }
    }

    /// The input as one line per field, for a chat log or a completed view: `Port: 8080`.
    pub fn summary(&self, input: &Map<String, Value>) -> String {
        self.lines(input).join("; ")
    }

    /// The input as the lines a completed form shows: `Port: 8080`, in the form's order.
    pub fn lines(&self, input: &Map<String, Value>) -> Vec<String> {
        self.fields
            .iter()
            .filter_map(|field| {
                let value = input.get(&field.key)?;
                Some(format!("{}: {}", field.label, shown(field, value)))
            })
            .collect()
    }
}

/// A value as a person reads it: a choice by its label, a boolean as yes or no.
pub fn shown(field: &Field, value: &Value) -> String {
    let label = |v: &str| {
        field
            .choices
            .iter()
            .find(|(_, value)| value == v)
            .map_or(v.to_string(), |(label, _)| label.clone())
    };
    match value {
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::String(text) => label(text),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map_or(item.to_string(), label))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// The interview question that asks `field`, with what was entered before chosen again.
fn question_json(field: &Field, initial: Option<&Value>) -> Value {
    let mut question = Map::new();
    question.insert("id".into(), json!(field.key));
    if !field.required {
        question.insert("optional".into(), json!(true));
    }
    question.insert("question".into(), json!(field.label));
    let start = initial.or(field.default());
    if field.boolean {
        question.insert("type".into(), json!("single"));
        question.insert("options".into(), json!(["Yes", "No"]));
        if let Some(Value::Bool(yes)) = start {
            question.insert("recommended".into(), json!(if *yes { "Yes" } else { "No" }));
        }
    } else if !field.choices.is_empty() {
        let labels: Vec<&str> = field.choices.iter().map(|(l, _)| l.as_str()).collect();
        question.insert(
            "type".into(),
            json!(if field.multi { "multi" } else { "single" }),
        );
        question.insert("options".into(), json!(labels));
        let chosen: Vec<&str> = match start {
            Some(Value::String(value)) => vec![value.as_str()],
            Some(Value::Array(values)) => values.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let recommended: Vec<&str> = field
            .choices
            .iter()
            .filter(|(_, value)| chosen.contains(&value.as_str()))
            .map(|(label, _)| label.as_str())
            .collect();
        if !recommended.is_empty() && (field.multi || recommended.len() == 1) {
            question.insert(
                "recommended".into(),
                match field.multi {
                    true => json!(recommended),
                    false => json!(recommended[0]),
                },
            );
        }
    } else {
        question.insert("type".into(), json!("text"));
    }
    let mut context: Vec<String> = Vec::new();
    if let Some(description) = &field.description {
        context.push(description.clone());
    }
    if let Some(hint) = field.hint() {
        context.push(hint);
    }
    if !context.is_empty() {
        question.insert("context".into(), json!(context.join(" ")));
    }
    Value::Object(question)
}

mod answers;
#[cfg(test)]
mod conformance;
mod read;
#[cfg(test)]
mod tests;
