//! Taking a form's answers, from any surface: a submitted `input` object, the terminal's
//! replies, or a person's words; each checked against its field and typed.

use serde_json::{Map, Value, json};

use super::{Field, InputForm};
use crate::interact::form::questions::{FieldError, Reply, ReplyValue, Rule};

impl InputForm {
    /// The input of a submission from the terminal's replies, typed; `Err` names the field
    /// and what is wrong.
    pub fn from_replies(&self, replies: &[Reply]) -> Result<Map<String, Value>, String> {
        let mut input = Map::new();
        for field in &self.fields {
            let given = replies
                .iter()
                .find(|reply| reply.id == field.key)
                .map(|r| &r.value)
                .filter(|value| !value.is_empty());
            let Some(given) = given else {
                if field.required {
                    return Err(format!("{} needs an answer", field.label));
                }
                continue;
            };
            input.insert(field.key.clone(), value_of(field, given)?);
        }
        Ok(input)
    }

    /// Checks a submitted `input` object (from the page, stdin, the phone, a client of the
    /// gateway): every key a field, every required field given, every value fitting its field.
    /// Values may be typed (`8080`, `true`, `["a"]`) or text as a person types it (`"8080"`,
    /// `"yes"`, `"a, b"`); a choice by its value or its label. Returns the input typed, or
    /// every field that is wrong, in the form's order.
    pub fn check(&self, input: &Value) -> Result<Map<String, Value>, Vec<FieldError>> {
        let Some(object) = input.as_object() else {
            let why = "\"input\" is an object of field ids and values".to_string();
            return Err(vec![FieldError::new("input", why)]);
        };
        let mut errors: Vec<FieldError> = object
            .keys()
            .filter(|key| !self.fields.iter().any(|f| &f.key == *key))
            .map(|key| {
                let known: Vec<&str> = self.fields.iter().map(|f| f.key.as_str()).collect();
                FieldError::new(
                    key,
                    format!(
                        "There is no field \"{key}\"; the fields are {}.",
                        known.join(", ")
                    ),
                )
            })
            .collect();
        let mut typed = Map::new();
        for field in &self.fields {
            let value = object.get(&field.key);
            if let Some(why) = value.and_then(|value| wrong_type(field, value)) {
                errors.push(FieldError::new(&field.key, why));
                continue;
            }
            let given = value.and_then(|value| as_reply(field, value));
            let Some(given) = given.filter(|g| !g.is_empty()) else {
                if let Some(default) = field.default().filter(|_| value.is_none()) {
                    typed.insert(field.key.clone(), default.clone());
                } else if field.required {
                    let why = format!("\"{}\" needs an answer.", field.label);
                    errors.push(FieldError::new(&field.key, why));
                }
                continue;
            };
            match value_of(field, &given) {
                Ok(value) => {
                    typed.insert(field.key.clone(), value);
                }
                Err(why) => errors.push(FieldError::new(&field.key, why)),
            }
        }
        match errors.is_empty() {
            true => Ok(typed),
            false => Err(errors),
        }
    }

    /// The input a person wrote in words (`port=8080, tls=yes` or one `port: 8080` per
    /// line; a field by its id or its label), as an `input` object for [`InputForm::check`].
    /// A form of one field takes the bare answer (`8080`).
    pub fn from_words(&self, text: &str) -> Result<Value, String> {
        let text = text.trim();
        let known = |name: &str| {
            let name = name.trim();
            self.fields
                .iter()
                .find(|f| f.key == name || f.label.eq_ignore_ascii_case(name))
        };
        let parts: Vec<&str> = match text.contains('\n') {
            true => text.lines().collect(),
            false => text.split([',', ';']).collect(),
        };
        let mut input = Map::new();
        for part in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
            let split = part
                .split_once('=')
                .or_else(|| part.split_once(':'))
                .and_then(|(name, value)| Some((known(name)?, value.trim())));
            match split {
                Some((field, value)) => {
                    let value = match input.remove(&field.key) {
                        // A list's items may be written apart: `tags=a, b`.
                        Some(Value::String(before)) => format!("{before}, {value}"),
                        _ => value.to_string(),
                    };
                    input.insert(field.key.clone(), Value::String(value));
                }
                None if self.fields.len() == 1 => {
                    input.insert(self.fields[0].key.clone(), Value::String(text.to_string()));
                    break;
                }
                // A bare word after a list's `name=` is one more of its items.
                None => match input.iter_mut().next_back() {
                    Some((key, Value::String(before)))
                        if self.fields.iter().any(|f| &f.key == key && f.multi) =>
                    {
                        *before = format!("{before}, {part}");
                    }
                    _ => {
                        let names: Vec<&str> = self.fields.iter().map(|f| f.key.as_str()).collect();
                        return Err(format!(
                            "{part:?} names no field: write FIELD=VALUE, with the fields {}",
                            names.join(", ")
                        ));
                    }
                },
            }
        }
        Ok(Value::Object(input))
    }
}

/// Why a submitted value cannot be a text field's answer: a number, a yes-or-no, a list or
/// an object is not text (a number or yes-or-no field takes its answer as text as well).
fn wrong_type(field: &Field, value: &Value) -> Option<String> {
    let text_field = field.kind() == "string" && !field.multi;
    match value {
        Value::Null | Value::String(_) => None,
        _ if text_field => Some(format!(
            "\"{}\" is text: give it as a string, not {value}.",
            field.label
        )),
        _ => None,
    }
}

/// A submitted value as the answer a person would have typed or chosen.
fn as_reply(field: &Field, value: &Value) -> Option<ReplyValue> {
    match value {
        Value::Null => None,
        Value::String(text) if field.multi => Some(ReplyValue::Many(
            text.split(',')
                .map(|part| part.trim().to_string())
                .filter(|part| !part.is_empty())
                .collect(),
        )),
        Value::String(text) => Some(ReplyValue::One(text.clone())),
        Value::Bool(yes) => Some(ReplyValue::One(if *yes { "yes" } else { "no" }.into())),
        Value::Number(number) => Some(ReplyValue::One(number.to_string())),
        Value::Array(items) => Some(ReplyValue::Many(
            items
                .iter()
                .map(|item| item.as_str().map_or(item.to_string(), str::to_string))
                .collect(),
        )),
        Value::Object(_) => Some(ReplyValue::One(value.to_string())),
    }
}

/// The value sent for one answer, checked against its field: `Err` says what to change.
fn value_of(field: &Field, given: &ReplyValue) -> Result<Value, String> {
    let label = &field.label;
    let pick = |text: &str| -> Result<String, String> {
        let text = text.trim();
        field
            .choices
            .iter()
            // A value first: a label may be another option's value.
            .find(|(_, value)| value == text)
            .or_else(|| field.choices.iter().find(|(shown, _)| shown == text))
            .map(|(_, value)| value.clone())
            .ok_or_else(|| {
                let shown: Vec<&str> = field.choices.iter().map(|(l, _)| l.as_str()).collect();
                format!("{label}: choose from {}.", shown.join(", "))
            })
    };
    if field.boolean {
        return match given.joined().trim().to_lowercase().as_str() {
            "yes" | "y" | "true" | "on" => Ok(Value::Bool(true)),
            "no" | "n" | "false" | "off" => Ok(Value::Bool(false)),
            _ => Err(format!("{label}: answer yes or no.")),
        };
    }
    let rule = Rule::new(field.schema.clone());
    if field.multi {
        let items: Vec<String> = match given {
            ReplyValue::Many(items) => items.clone(),
            ReplyValue::One(text) => vec![text.clone()],
        };
        let values = items
            .iter()
            .map(|item| pick(item))
            .collect::<Result<Vec<_>, _>>()?;
        rule.check(&ReplyValue::Many(values.clone()))
            .map_err(|why| format!("{label}: {why}"))?;
        return Ok(json!(values));
    }
    let text = given.joined().trim().to_string();
    if field.choices.is_empty() && field.schema.get("enum").is_some() {
        return Err(format!(
            "{label}: no answer fits: its list of choices is empty."
        ));
    }
    if !field.choices.is_empty() {
        return pick(&text).map(Value::String);
    }
    rule.check(&ReplyValue::One(text.clone()))
        .map_err(|why| format!("{label}: {why}"))?;
    match field.kind() {
        "number" | "integer" => rule
            .number_value(&text)
            .ok_or_else(|| format!("{label}: {text:?} is not a number.")),
        _ => Ok(Value::String(text)),
    }
}
