//! How a question is shown (seed 003 §Chat Rendering): inside its tool's block or as a block
//! of its own, and what its completed state says. The tool decides; every surface (the
//! terminal, the gateway's page, `--attach`, a replay after a reload) renders the same words,
//! made here.

use serde::Serialize;
use serde_json::{Value, json};

use super::{Request, Response, Scope, input};

/// Where a question is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Presentation {
    /// Inside the block of the tool that asks; its result comes below.
    #[default]
    Tool,
    /// A block of its own in the conversation, for questions that are the whole point of the
    /// call (a questionnaire).
    Questionnaire,
}

impl Presentation {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "tool" => Some(Self::Tool),
            "questionnaire" => Some(Self::Questionnaire),
            _ => None,
        }
    }
}

/// What an answered question shows (seed 003's `completedView`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletedView {
    /// The values given, read-only (default: yes).
    pub show_inputs: bool,
    /// One line instead of (or above) the values: `{{action}}`, `{{scope}}`, `{{reason}}`,
    /// `{{summary}}` and `{{FIELD}}` (a field's value) are filled in.
    pub summary_template: Option<String>,
}

impl Default for CompletedView {
    fn default() -> Self {
        Self {
            show_inputs: true,
            summary_template: None,
        }
    }
}

/// The completed view's limit on a template.
const MAX_TEMPLATE: usize = 500;

impl CompletedView {
    /// From seed 003's JSON (`{"showInputs": false, "summaryTemplate": "…"}`); `Err` names
    /// what is wrong.
    pub fn parse(value: &Value) -> Result<Self, String> {
        let mut view = Self::default();
        let Some(object) = value.as_object() else {
            return Err(format!("\"completedView\" is an object, not {value}"));
        };
        match object.get("showInputs") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(show)) => view.show_inputs = *show,
            Some(other) => return Err(format!("\"showInputs\" is true or false, not {other}")),
        }
        match object.get("summaryTemplate") {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) if text.len() <= MAX_TEMPLATE => {
                view.summary_template = Some(text.clone());
            }
            Some(Value::String(_)) => {
                return Err(format!(
                    "\"summaryTemplate\" is at most {MAX_TEMPLATE} bytes"
                ));
            }
            Some(other) => return Err(format!("\"summaryTemplate\" is text, not {other}")),
        }
        Ok(view)
    }

    pub fn to_json(&self) -> Value {
        json!({"showInputs": self.show_inputs, "summaryTemplate": self.summary_template})
    }

    /// What the completed question says: the template filled in (when there is one), then
    /// the values given (when shown). Lines, for any surface to print. A template that names
    /// a form's fields is left out when no form was submitted (closed, timed out): it would
    /// read "Dinner for :"; what happened is said instead.
    pub fn render(&self, request: &Request, response: &Response) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(template) = &self.summary_template {
            if matches!(response, Response::Submitted(_)) || !names_a_field(template) {
                lines.push(fill(template, request, response));
            }
        }
        if self.show_inputs || lines.is_empty() {
            lines.extend(values(request, response));
        }
        lines
    }
}

/// The seed's action word for a response.
pub fn action(response: &Response) -> &'static str {
    match response {
        Response::Approved(_) => "approve",
        Response::Denied(_) => "deny",
        Response::Answers(_) | Response::FormAnswers(_) | Response::Submitted(_) => "submit",
        Response::Dismissed | Response::Cancelled => "cancel",
        Response::TimedOut => "timeout",
        Response::Shown => "shown",
        Response::Parked => "park",
        Response::Unavailable(_) => "unavailable",
    }
}

/// The seed's scope word for an approval.
pub fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Once => "once",
        Scope::Session => "session",
        Scope::Always => "always",
        Scope::AllEdits => "all_edits",
    }
}

/// Whether `template` has a `{{FIELD}}` besides the words every answer fills.
fn names_a_field(template: &str) -> bool {
    template.split("{{").skip(1).any(|part| {
        let name = part.split("}}").next().unwrap_or("").trim();
        part.contains("}}") && !["action", "scope", "reason", "summary"].contains(&name)
    })
}

fn fill(template: &str, request: &Request, response: &Response) -> String {
    let summary = super::describe(response);
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            rest = &rest[open..];
            break;
        };
        let name = after[..close].trim();
        let value = match (name, response) {
            ("action", _) => action(response).to_string(),
            ("scope", Response::Approved(scope)) => scope_name(*scope).to_string(),
            ("reason", Response::Denied(reason)) => reason.clone(),
            ("summary", _) => summary.clone(),
            (field, Response::Submitted(input)) => match (request, input.get(field)) {
                (Request::Input(form), Some(value)) => form
                    .fields
                    .iter()
                    .find(|f| f.key == field)
                    .map_or_else(|| value.to_string(), |f| input::shown(f, value)),
                _ => String::new(),
            },
            _ => String::new(),
        };
        out.push_str(&value);
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}

/// The values given, one line each: a form's fields as `Label: value`, an approval's scope.
fn values(request: &Request, response: &Response) -> Vec<String> {
    match (request, response) {
        (Request::Input(form), Response::Submitted(input)) => form.lines(input),
        (Request::Questions(questions), Response::Answers(answers)) => questions
            .iter()
            .zip(answers)
            .map(|(question, answer)| {
                let given = match answer {
                    super::Answer::One(label) => label.clone(),
                    super::Answer::Many(labels) => labels.join(", "),
                    super::Answer::Other(text) => text.clone(),
                };
                format!("{}: {given}", question.question)
            })
            .collect(),
        _ => vec![super::describe(response)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::InputForm;

    fn form() -> Request {
        Request::Input(
            InputForm::from_fields(
                "Where?",
                &json!([{"id": "port", "type": "integer", "label": "Port"},
                        {"id": "tls", "type": "boolean", "label": "TLS"}]),
            )
            .unwrap(),
        )
    }

    #[test]
    fn the_completed_view_is_the_tools_to_choose() {
        let submitted = Response::Submitted(
            json!({"port": 8080, "tls": true})
                .as_object()
                .unwrap()
                .clone(),
        );
        let plain = CompletedView::default();
        assert_eq!(
            plain.render(&form(), &submitted),
            ["Port: 8080", "TLS: yes"]
        );
        let summary = CompletedView::parse(
            &json!({"showInputs": false, "summaryTemplate": "Listening on {{port}} ({{action}}, TLS {{tls}}){{nothing}}"}),
        )
        .unwrap();
        assert_eq!(
            summary.render(&form(), &submitted),
            ["Listening on 8080 (submit, TLS yes)"]
        );
        let approval =
            CompletedView::parse(&json!({"summaryTemplate": "User approved: {{scope}}"})).unwrap();
        assert_eq!(
            approval.render(&form(), &Response::Approved(Scope::Session)),
            ["User approved: session", "approved for this session"]
        );
        // Closed without an answer: the fields' template has nothing to say.
        assert_eq!(
            summary.render(&form(), &Response::Dismissed),
            ["dismissed without an answer"]
        );
        assert!(CompletedView::parse(&json!({"showInputs": "no"})).is_err());
        assert_eq!(
            Presentation::parse("questionnaire"),
            Some(Presentation::Questionnaire)
        );
    }
}
