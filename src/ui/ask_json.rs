//! The JSON of a question asked outside the terminal (`--on-ask stdin`, the phone, a parked
//! run, a sub-agent's parent): the event that asks (`approval`, `question`, `input`, `form`),
//! with where it belongs and how it is shown, and the answer read back (`{"id": 1, "approve":
//! "once"}`, `{"id": 2, "input": {"port": 8080}}`, …), checked against what was asked.

use serde_json::{Value, json};

pub(crate) use crate::interact::wire::{Unfit, request_from_event, response_to};
use crate::interact::{Prompt, Request, Response, describe, view};
use crate::session::{Answered, Correlation, Event};

/// The correlation's fields that name one run only (a parked question is compared without
/// them when the run is taken up).
pub(crate) const RUN_FIELDS: [&str; 5] = [
    "timestamp",
    "turnId",
    "responseId",
    "toolCallId",
    "interactionId",
];

/// The event that asks question `id`: its kind's body, the error of a reprompt, how it is
/// shown (`presentation`, `completedView`) and where it belongs (the correlation).
pub(crate) fn question_event(id: u64, prompt: &Prompt, correlation: &Correlation) -> Value {
    let mut event = match &prompt.request {
        Request::Approval(a) => {
            let scopes: Vec<&str> = a.offered().into_iter().map(view::scope_name).collect();
            let mut choices = scopes.clone();
            choices.push("no");
            json!({
                "type": "approval", "id": id, "tool": a.tool, "summary": a.summary,
                "detail": a.detail, "covers": a.covers, "scopes": scopes, "choices": choices,
            })
        }
        Request::Questions(questions) => {
            let questions: Vec<Value> = questions
                .iter()
                .map(|q| {
                    json!({
                        "header": q.header, "question": q.question, "multi_select": q.multi_select,
                        "options": q.options,
                    })
                })
                .collect();
            // The tool that asks: ask_user, a user's tool of the first protocol, a sub-agent.
            let tool = match prompt.tool.is_empty() {
                true => "ask_user",
                false => prompt.tool.as_str(),
            };
            json!({"type": "question", "id": id, "tool": tool, "questions": questions})
        }
        Request::Input(form) => json!({
            "type": "input", "id": id, "tool": prompt.tool, "prompt": form.prompt,
            "inputSchema": form.to_json(),
        }),
        Request::Form(form) => {
            json!({"type": "form", "id": id, "title": form.title, "url": form.url})
        }
    };
    if let Some(error) = &prompt.error {
        event["error"] = json!(error);
    }
    event["presentation"] = json!(prompt.presentation);
    event["completedView"] = prompt.completed.to_json();
    if let Ok(Value::Object(fields)) = serde_json::to_value(correlation) {
        for (key, value) in fields {
            // The asking tool's own name stays where the kind puts it.
            if event.get(&key).is_none() {
                event[key] = value;
            }
        }
    }
    event
}

/// The `question_closed` event of question `id`, answered now with `response`; `outcome`
/// in the chat log's words (what the person did, or why nobody did).
pub(crate) fn closed_event(
    id: u64,
    prompt: &Prompt,
    response: &Response,
    correlation: Correlation,
    outcome: Option<&str>,
) -> Value {
    let answer = Box::new(Answered::new(prompt, response, correlation));
    let outcome = outcome.map_or_else(|| describe(response), str::to_string);
    let closed = Event::QuestionClosed {
        id,
        outcome,
        answer,
    };
    serde_json::to_value(&closed).unwrap_or(Value::Null)
}

/// The `answer_error` event: the line did not answer question `id` (`None`: no question could
/// be told), and each wrong field of a form.
pub(crate) fn answer_error(id: Option<u64>, unfit: &Unfit) -> Value {
    let mut event = json!({"type": "answer_error", "id": id, "message": unfit.message});
    if !unfit.fields.is_empty() {
        event["fields"] = unfit
            .fields
            .iter()
            .map(|(field, message)| json!({"field": field, "message": message}))
            .collect();
    }
    event
}

#[cfg(test)]
mod tests;
