//! A served session's question as the gateway sends it (`interaction_request`) and as this
//! terminal asks it: the event read back into the prompt the REPL's asker shows (an approval
//! with the scopes the tool offers, ask_user's questions with what was chosen before, an input
//! form with what was entered), and what the person did turned into the body of
//! `POST /api/sessions/ID/respond`.

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::interact::view::scope_name;
use crate::interact::{
    Answer, Approval, Choice, CompletedView, InputForm, Presentation, Prompt, Question, Request,
    Response, Scope,
};

/// The prompt `event` (an `interaction_request`) asks, for the terminal's asker; `Err` says
/// why it cannot be asked here.
pub(super) fn prompt_of(event: &Value) -> Result<Prompt, String> {
    let request = match event["interactionType"].as_str().unwrap_or("") {
        "approval" => Request::Approval(approval(event)),
        "questions" => Request::Questions(questions(&event["questions"])),
        "input" => Request::Input(form(event)?),
        "form" => return Err("it is a page: open its address in a browser".into()),
        other => return Err(format!("this terminal does not know {other:?} questions")),
    };
    let timeout = event["timeoutMs"]
        .as_u64()
        .map_or(crate::interact::DEFAULT_TIMEOUT, Duration::from_millis);
    Ok(Prompt {
        error: event["error"].as_str().map(str::to_string),
        tool: text(&event["toolName"]),
        call_id: text(&event["toolCallId"]),
        presentation: event["presentation"]
            .as_str()
            .and_then(Presentation::parse)
            .unwrap_or_default(),
        completed: CompletedView::parse(&event["completedView"]).unwrap_or_default(),
        ..Prompt::new(request, timeout)
    })
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or("").to_string()
}

/// An approval's event as the asker's approval: only the scopes it offers.
fn approval(event: &Value) -> Approval {
    let named: Vec<&str> = event["scopes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let scopes = named
        .iter()
        .filter_map(|name| match *name {
            "once" => Some(Scope::Once),
            "session" => Some(Scope::Session),
            "always" => Some(Scope::Always),
            _ => None,
        })
        .collect();
    Approval {
        tool: text(&event["tool"]),
        summary: text(&event["summary"]),
        detail: text(&event["detail"]),
        covers: text(&event["covers"]),
        all_edits: named.contains(&"all_edits"),
        scopes,
    }
}

/// ask_user's questions, each with what was chosen before (a reprompt's `initial`).
fn questions(list: &Value) -> Vec<Question> {
    let items = list.as_array().map(Vec::as_slice).unwrap_or_default();
    items
        .iter()
        .map(|question| {
            let options = question["options"].as_array().map(Vec::as_slice);
            let multi = question["multiSelect"] == true;
            Question {
                header: text(&question["header"]),
                question: text(&question["question"]),
                options: options
                    .unwrap_or_default()
                    .iter()
                    .map(|option| Choice {
                        label: text(&option["label"]),
                        description: text(&option["description"]),
                    })
                    .collect(),
                multi_select: multi,
                initial: initial_answer(&question["initial"], multi),
            }
        })
        .collect()
}

/// A reprompt's `{"chosen": [...], "other": "..."}` as the answer it was.
fn initial_answer(initial: &Value, multi: bool) -> Option<Answer> {
    let mut chosen: Vec<String> = initial["chosen"]
        .as_array()?
        .iter()
        .filter_map(|label| label.as_str().map(str::to_string))
        .collect();
    let other = initial["other"].as_str().map(str::to_string);
    Some(match (multi, other) {
        (true, other) => {
            chosen.extend(other.map(|text| format!("Other: {text}")));
            Answer::Many(chosen)
        }
        (false, Some(other)) => Answer::Other(other),
        (false, None) => Answer::One(chosen.into_iter().next()?),
    })
}

/// An input form's event as its form, with what was entered before filled in.
pub(super) fn form(event: &Value) -> Result<InputForm, String> {
    let fields = &event["inputSchema"]["fields"];
    let form = InputForm::from_fields(event["prompt"].as_str().unwrap_or(""), fields)?;
    let initial: Map<String, Value> = fields
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|field| Some((field["id"].as_str()?.to_string(), field.get("initial")?)))
        .map(|(id, value)| (id, value.clone()))
        .collect();
    Ok(form.with_initial(&initial))
}

/// The body that sends `response` to question `id` of `request`, as client `by`; `None` when
/// there is nothing to send (the turn was cancelled, the time ran out).
pub(super) fn respond_body(
    id: &str,
    request: &Request,
    response: &Response,
    by: &str,
) -> Option<Value> {
    let mut body = match (request, response) {
        (_, Response::Approved(scope)) => {
            json!({"action": "approve", "approvalScope": scope_name(*scope)})
        }
        (_, Response::Denied(reason)) => json!({"action": "deny", "reason": reason}),
        (Request::Questions(questions), Response::Answers(answers)) => {
            json!({"action": "submit", "answers": answers_json(questions, answers)})
        }
        (_, Response::Submitted(input)) => json!({"action": "submit", "input": input}),
        (_, Response::Dismissed) => json!({"action": "cancel"}),
        _ => return None,
    };
    body["interactionId"] = json!(id);
    body["by"] = json!(by);
    Some(body)
}

/// Answers keyed by each question's text, as the API takes them: the label chosen, labels
/// joined by ", ", or the person's own words.
pub(super) fn answers_json(questions: &[Question], answers: &[Answer]) -> Value {
    let mut map = Map::new();
    for (question, answer) in questions.iter().zip(answers) {
        let given = match answer {
            Answer::One(label) | Answer::Other(label) => label.clone(),
            Answer::Many(labels) => labels
                .iter()
                .map(|l| l.strip_prefix("Other: ").unwrap_or(l))
                .collect::<Vec<_>>()
                .join(", "),
        };
        map.insert(question.question.clone(), json!(given));
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input_event() -> Value {
        json!({"type": "interaction_request", "interactionType": "input", "interactionId": "7",
               "toolCallId": "call_1", "toolName": "deploy", "prompt": "Where?",
               "error": "Port 8080 is taken", "timeoutMs": 60000, "presentation": "questionnaire",
               "completedView": {"showInputs": false, "summaryTemplate": "On {{port}}"},
               "inputSchema": {"type": "form", "fields": [
                   {"id": "port", "type": "integer", "label": "Port", "required": true,
                    "minimum": 1, "maximum": 65535, "initial": 8080},
                   {"id": "tls", "type": "boolean", "label": "TLS", "required": false}]}})
    }

    #[test]
    fn an_input_request_is_asked_as_its_form_with_what_was_entered() {
        let prompt = prompt_of(&input_event()).unwrap();
        let Request::Input(form) = &prompt.request else {
            panic!("{prompt:?}")
        };
        assert_eq!(form.prompt, "Where?");
        assert_eq!(form.initial, *json!({"port": 8080}).as_object().unwrap());
        assert_eq!(
            form.fields[0].hint().unwrap(),
            "A whole number from 1 to 65535."
        );
        assert_eq!(
            (
                prompt.error.as_deref(),
                prompt.tool.as_str(),
                prompt.timeout
            ),
            (
                Some("Port 8080 is taken"),
                "deploy",
                Duration::from_secs(60)
            )
        );
        assert_eq!(prompt.presentation, Presentation::Questionnaire);
        assert!(!prompt.completed.show_inputs);
        let input = json!({"port": 9000}).as_object().unwrap().clone();
        assert_eq!(
            respond_body("7", &prompt.request, &Response::Submitted(input), "me"),
            Some(
                json!({"action": "submit", "input": {"port": 9000}, "interactionId": "7", "by": "me"})
            )
        );
        assert_eq!(
            respond_body("7", &prompt.request, &Response::Dismissed, "me"),
            Some(json!({"action": "cancel", "interactionId": "7", "by": "me"}))
        );
        assert_eq!(
            respond_body("7", &prompt.request, &Response::Cancelled, "me"),
            None
        );
    }

    #[test]
    fn approvals_offer_their_scopes_and_questions_keep_what_was_chosen() {
        let event = json!({"type": "interaction_request", "interactionType": "approval",
                           "interactionId": "3", "tool": "deploy", "toolName": "deploy",
                           "summary": "Deploy?", "detail": "v2", "covers": "prod",
                           "scopes": ["once", "all_edits"]});
        let Request::Approval(approval) = prompt_of(&event).unwrap().request else {
            panic!()
        };
        assert_eq!(approval.offered(), [Scope::Once, Scope::AllEdits]);
        let body = respond_body(
            "3",
            &Request::Approval(approval),
            &Response::Approved(Scope::Once),
            "me",
        );
        assert_eq!(body.unwrap()["approvalScope"], "once");
        let asked = json!({"type": "interaction_request", "interactionType": "questions",
            "questions": [{"header": "Db", "question": "Which?", "multiSelect": true,
                           "options": [{"label": "A", "description": ""}, {"label": "B"}],
                           "initial": {"chosen": ["B"], "other": "C"}}]});
        let Request::Questions(questions) = prompt_of(&asked).unwrap().request else {
            panic!()
        };
        let before = Answer::Many(vec!["B".into(), "Other: C".into()]);
        assert_eq!(questions[0].initial, Some(before.clone()));
        assert_eq!(
            answers_json(&questions, &[before]),
            json!({"Which?": "B, C"})
        );
        let page = json!({"type": "interaction_request", "interactionType": "form"});
        assert!(prompt_of(&page).is_err());
    }
}
