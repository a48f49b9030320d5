//! An input form at the terminal (seed 003's `input`): the tool's prompt, then each field by
//! its type (a yes-or-no and a list of choices with the chooser, numbers and text typed on a
//! line that starts from what was entered before or the default), each checked against the
//! form's rule for it as it is answered, a required one asked until it is given. Enter keeps
//! what is shown; Esc closes the form (the tool hears it dismissed, the turn goes on); Ctrl+C
//! cancels the turn. In its tool's block the fields sit under the tool's line; presented as a
//! questionnaire the form is a block of its own under its heading. Once answered, the tool's
//! completed view is what stays.

use std::time::Instant;

use serde_json::{Map, Value};

use super::{Asker, Stop};
use crate::interact::input::{Field, InputForm, shown};
use crate::interact::numbered::OwnWords;
use crate::interact::{Choice, Presentation, Prompt, Response};
use crate::ui::sanitize::sanitize;

impl Asker<'_> {
    pub(super) fn input(
        &mut self,
        form: &InputForm,
        prompt: &Prompt,
        deadline: Instant,
    ) -> Result<Response, Stop> {
        // As a questionnaire, its heading says what is asked already.
        if prompt.presentation == Presentation::Tool {
            let tool = match prompt.tool.is_empty() {
                true => "form",
                false => prompt.tool.as_str(),
            };
            let asked = match form.prompt.is_empty() {
                true => "Please fill in:",
                false => form.prompt.as_str(),
            };
            self.title(tool, asked);
            self.margin = 2;
        }
        self.dismissable = !self.dumb;
        let dot = self.style.glyph("·", "|");
        let keys = match self.dismissable {
            true => format!(
                "Enter keeps what is shown {dot} Esc closes the form {dot} Ctrl+C cancels the turn"
            ),
            false => format!("Enter keeps what is shown {dot} Ctrl+C cancels the turn"),
        };
        self.note(&keys);
        let response = Response::Submitted(self.fields(form, deadline)?);
        self.dismissable = false;
        self.completed(prompt, &response, true);
        Ok(response)
    }

    /// Every field in turn, then the whole form checked: a field it still finds wrong is
    /// asked again.
    fn fields(&mut self, form: &InputForm, deadline: Instant) -> Result<Map<String, Value>, Stop> {
        let mut values: Map<String, Value> = form
            .initial
            .iter()
            .filter(|(key, _)| form.fields.iter().any(|f| &f.key == *key))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let mut todo: Vec<&Field> = form.fields.iter().collect();
        loop {
            for field in todo {
                let start = values.get(&field.key).or(field.default()).cloned();
                match self.field(field, start, deadline)? {
                    Some(value) => values.insert(field.key.clone(), value),
                    None => values.remove(&field.key),
                };
            }
            let errors = match form.check(&Value::Object(values.clone())) {
                Ok(typed) => return Ok(typed),
                Err(errors) => errors,
            };
            for error in &errors {
                self.failed(&sanitize(&error.message));
            }
            todo = form
                .fields
                .iter()
                .filter(|f| errors.iter().any(|e| e.field == f.key))
                .collect();
            if todo.is_empty() {
                // Nothing a field can change (cannot be: each was checked as it was given).
                return Err(Stop::Dismissed);
            }
        }
    }

    /// One field, asked until its answer fits its rule; `None`: an optional field left empty.
    /// `start` is shown to be kept with Enter; after a wrong answer, that answer is.
    fn field(
        &mut self,
        field: &Field,
        start: Option<Value>,
        deadline: Instant,
    ) -> Result<Option<Value>, Stop> {
        let style = self.style;
        let optional = match field.required {
            true => "",
            false => " (optional)",
        };
        let label = format!("{}{optional}", sanitize(&field.label));
        self.hang("  ", "  ", &label, |row| style.bold(row));
        let about: Vec<String> = [field.description.clone(), field.hint()]
            .into_iter()
            .flatten()
            .collect();
        if !about.is_empty() {
            self.note(&sanitize(&about.join(" ")));
        }
        let chosen = field.boolean || !field.choices.is_empty();
        let mut start = start;
        loop {
            let given = match chosen {
                true => self.field_choice(field, start.as_ref(), deadline)?,
                false => self.field_text(start.as_ref(), deadline)?,
            };
            match fitted(field, given.clone()) {
                Ok(value) => {
                    if chosen {
                        let said = match &value {
                            None => "(skipped)".to_string(),
                            Some(Value::Bool(true)) => "Yes".into(),
                            Some(Value::Bool(false)) => "No".into(),
                            Some(value) => shown(field, value),
                        };
                        self.line(&format!("  › {}", style.dim(&sanitize(&said))));
                    }
                    return Ok(value);
                }
                Err(why) => {
                    self.failed(&sanitize(&why));
                    // Shown again to be corrected; a dumb terminal cannot edit it, so keeps
                    // what it had.
                    if !self.dumb {
                        start = given.or(start);
                    }
                }
            }
        }
    }

    /// A line typed after `› `, starting from `start`; `None` when it is left empty.
    fn field_text(
        &mut self,
        start: Option<&Value>,
        deadline: Instant,
    ) -> Result<Option<Value>, Stop> {
        let start = match start {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Number(number)) => number.to_string(),
            Some(Value::Bool(yes)) => if *yes { "yes" } else { "no" }.to_string(),
            _ => String::new(),
        };
        let text = self.edit("  › ", &start, deadline)?;
        Ok((!text.is_empty()).then_some(Value::String(text)))
    }

    /// A yes-or-no or a choice with the chooser, what `start` holds chosen; Skip offered when
    /// the field is optional.
    fn field_choice(
        &mut self,
        field: &Field,
        start: Option<&Value>,
        deadline: Instant,
    ) -> Result<Option<Value>, Stop> {
        let mut items = options(field);
        if !field.required {
            items.push(Choice {
                label: "Skip".into(),
                description: "leave this one empty".into(),
            });
        }
        let preset = preset(field, start);
        let picked = self.pick_from(&items, field.multi, &preset, OwnWords::Not, deadline)?;
        Ok(picked_value(field, &picked))
    }
}

/// The chooser's items for a yes-or-no or a list of choices (the labels shown).
fn options(field: &Field) -> Vec<Choice> {
    let labels: Vec<String> = match field.boolean {
        true => vec!["Yes".into(), "No".into()],
        false => field
            .choices
            .iter()
            .map(|(label, _)| label.clone())
            .collect(),
    };
    labels
        .into_iter()
        .map(|label| Choice {
            label,
            description: String::new(),
        })
        .collect()
}

/// The items `start` holds chosen: a yes-or-no, a choice by its value (or label), several.
fn preset(field: &Field, start: Option<&Value>) -> Vec<usize> {
    let place = |text: &str| {
        field
            .choices
            .iter()
            .position(|(label, value)| value == text || label == text)
    };
    match start {
        Some(Value::Bool(yes)) if field.boolean => vec![usize::from(!yes)],
        Some(Value::String(text)) if field.boolean => match text.to_lowercase().as_str() {
            "yes" | "true" => vec![0],
            "no" | "false" => vec![1],
            _ => Vec::new(),
        },
        Some(Value::String(text)) => place(text).into_iter().collect(),
        Some(Value::Array(items)) => items.iter().filter_map(|i| place(i.as_str()?)).collect(),
        _ => Vec::new(),
    }
}

/// What the chooser's `picked` items give: a boolean, a choice's value or several; `None`
/// when Skip (past the options) was chosen.
fn picked_value(field: &Field, picked: &[usize]) -> Option<Value> {
    let options = match field.boolean {
        true => 2,
        false => field.choices.len(),
    };
    if picked.iter().any(|i| *i >= options) {
        return None;
    }
    if field.boolean {
        return Some(Value::Bool(picked.first() == Some(&0)));
    }
    let values: Vec<Value> = picked
        .iter()
        .map(|i| Value::String(field.choices[*i].1.clone()))
        .collect();
    match field.multi {
        true => Some(Value::Array(values)),
        false => values.into_iter().next(),
    }
}

/// `given` checked against `field`'s rule alone: its typed value (`None`: an optional field
/// left empty), or what to change.
fn fitted(field: &Field, given: Option<Value>) -> Result<Option<Value>, String> {
    let Some(given) = given else {
        return match field.required {
            true => Err(format!("\"{}\" needs an answer.", field.label)),
            false => Ok(None),
        };
    };
    let alone = InputForm {
        prompt: String::new(),
        fields: vec![field.clone()],
        initial: Map::new(),
    };
    let mut input = Map::new();
    input.insert(field.key.clone(), given);
    match alone.check(&Value::Object(input)) {
        Ok(mut typed) => Ok(typed.remove(&field.key)),
        Err(errors) => Err(errors
            .into_iter()
            .map(|e| e.message)
            .collect::<Vec<_>>()
            .join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> InputForm {
        InputForm::from_fields(
            "Where should it listen?",
            &json!([
                {"id": "port", "type": "integer", "label": "Port", "required": true,
                 "minimum": 1, "maximum": 65535},
                {"id": "tls", "type": "boolean", "label": "TLS"},
                {"id": "region", "type": "select", "label": "Region", "required": true,
                 "options": [{"value": "eu", "label": "Europe"}, {"value": "us", "label": "America"}]},
                {"id": "tags", "type": "multiselect", "label": "Tags",
                 "options": ["web", "api", "db"]}
            ]),
        )
        .unwrap()
    }

    #[test]
    fn each_answer_is_checked_against_its_field_alone() {
        let form = form();
        let [port, tls, region, _] = [0, 1, 2, 3].map(|i| &form.fields[i]);
        assert_eq!(
            fitted(port, Some(json!("99999"))),
            Err("Port: \"99999\" is not a whole number from 1 to 65535.".into())
        );
        assert_eq!(fitted(port, Some(json!("8080"))), Ok(Some(json!(8080))));
        assert_eq!(fitted(port, None), Err("\"Port\" needs an answer.".into()));
        assert_eq!(fitted(tls, None), Ok(None));
        assert_eq!(fitted(tls, Some(json!(true))), Ok(Some(json!(true))));
        assert_eq!(fitted(region, Some(json!("us"))), Ok(Some(json!("us"))));
    }

    #[test]
    fn the_chooser_starts_from_what_was_entered_and_gives_values() {
        let form = form();
        let [_, tls, region, tags] = [0, 1, 2, 3].map(|i| &form.fields[i]);
        assert_eq!(preset(tls, Some(&json!(false))), [1]);
        assert_eq!(preset(tls, Some(&json!("yes"))), [0]);
        assert_eq!(preset(region, Some(&json!("us"))), [1]);
        assert_eq!(preset(region, Some(&json!("Europe"))), [0]);
        assert_eq!(preset(tags, Some(&json!(["db", "web"]))), [2, 0]);
        assert_eq!(preset(region, None), Vec::<usize>::new());
        assert_eq!(picked_value(tls, &[1]), Some(json!(false)));
        assert_eq!(picked_value(region, &[1]), Some(json!("us")));
        assert_eq!(picked_value(tags, &[0, 2]), Some(json!(["web", "db"])));
        // Skip comes after the options.
        assert_eq!(picked_value(tls, &[2]), None);
        assert_eq!(picked_value(tags, &[3]), None);
        let labels: Vec<String> = options(region).into_iter().map(|c| c.label).collect();
        assert_eq!(labels, ["Europe", "America"]);
    }
}
