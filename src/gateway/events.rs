//! The gateway's events in the shape of seeds 001/003/004: what a session says during a turn
//! (`text_delta`, `tool_call_start`, `tool_result`, `tool_call_end`, `session_status`,
//! `interaction_response`, …) and the questions its tools ask (`interaction_request`), each a
//! JSON object the broadcaster numbers. The answers clients send back are read in `answers`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::interact::{Answer, Prompt, Question, Request, Response, view};
use crate::session::{Correlation, Event};

/// The events a session's `event` becomes (a round's start names all its calls at once).
pub(crate) fn from_event(event: &Event) -> Vec<(&'static str, Value)> {
    let Ok(mut value) = serde_json::to_value(event) else {
        return Vec::new();
    };
    if let Some(fields) = value.as_object_mut() {
        fields.remove("type");
    }
    let kind = match event {
        Event::Text { .. } => "text_delta",
        Event::Notice { .. } => "notice",
        Event::Notification { .. } => "notification",
        Event::ModelCall { .. } => "session_status",
        Event::ToolRound { .. } => "tool_call_start",
        Event::ToolResult { .. } => "tool_result",
        Event::ToolProgress { .. } => "tool_progress",
        Event::ToolRoundFinished { .. } => "tool_call_end",
        Event::QuestionClosed { .. } => "interaction_response",
        Event::ToolsOffered { .. } => "tools_offered",
    };
    vec![(kind, value)]
}

/// The event kind every question is asked with.
pub(crate) const REQUEST: &str = "interaction_request";

/// The `interaction_request` that asks `prompt` (seed 003): its `interactionType` (approval,
/// questions, input or form) with that type's body, the reprompt's `error`, how long it waits
/// (`timeoutMs`; none for a question asked again after its turn), where it is shown
/// (`presentation`), what it shows once answered (`completedView`) and where it belongs (the
/// correlation: timestamp, turnId, responseId, toolCallId, interactionId, toolName). An
/// answer names it by `interactionId`, or by `toolCallId` (the prompt open for that call now).
pub(crate) fn request(
    prompt: &Prompt,
    correlation: &Correlation,
    timeout: Option<Duration>,
) -> Value {
    let mut value = match &prompt.request {
        Request::Approval(a) => {
            let scopes: Vec<&str> = a.offered().into_iter().map(view::scope_name).collect();
            json!({"interactionType": "approval", "tool": a.tool, "summary": a.summary,
                   "detail": a.detail, "covers": a.covers, "scopes": scopes})
        }
        Request::Questions(questions) => json!({"interactionType": "questions",
            "questions": questions.iter().map(question_json).collect::<Vec<_>>()}),
        Request::Input(form) => json!({"interactionType": "input", "prompt": form.prompt,
                                       "inputSchema": form.to_json()}),
        Request::Form(form) => {
            json!({"interactionType": "form", "title": form.title, "url": form.url})
        }
    };
    if let (Some(fields), Ok(Value::Object(more))) =
        (value.as_object_mut(), serde_json::to_value(correlation))
    {
        fields.extend(more);
    }
    if let Some(error) = &prompt.error {
        value["error"] = json!(error);
    }
    value["timeoutMs"] = json!(timeout.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)));
    value["presentation"] = json!(prompt.presentation);
    value["completedView"] = prompt.completed.to_json();
    value
}

fn question_json(question: &Question) -> Value {
    let mut value = json!({"header": question.header, "question": question.question,
           "multiSelect": question.multi_select, "options": question.options});
    if let Some(initial) = &question.initial {
        value["initial"] = initial_json(initial);
    }
    value
}

/// What was entered before, for a reprompt to show chosen again (seed 003's
/// `initialValues`): the labels chosen, and the text of "Other" when it was chosen.
fn initial_json(answer: &Answer) -> Value {
    let (chosen, other): (Vec<&str>, Option<&str>) = match answer {
        Answer::One(label) => (vec![label], None),
        Answer::Other(text) => (Vec::new(), Some(text.trim())),
        Answer::Many(labels) => {
            let other = labels
                .iter()
                .find_map(|l| l.strip_prefix("Other:").map(str::trim));
            let chosen = labels.iter().filter(|l| !l.starts_with("Other:"));
            (chosen.map(String::as_str).collect(), other)
        }
    };
    json!({"chosen": chosen, "other": other})
}

/// What an answer's `interaction_response` says besides the session's `QuestionClosed`: the
/// client that gave it (`by`, when it said), and for questions each one's answer as a
/// reprompt's `initial` has it.
pub(crate) fn answered_by(by: Option<&str>, response: &Response) -> Value {
    let mut value = json!({});
    if let Some(by) = by {
        value["by"] = json!(by);
    }
    if let Response::Answers(answers) = response {
        value["answers"] = answers.iter().map(initial_json).collect();
    }
    value
}

/// The `interaction_response` of prompt `id`, closed with `outcome` (the chat log's words) and
/// `answer`; `more` (from [`answered_by`]) is added.
pub(crate) fn response(
    id: u64,
    outcome: String,
    answer: crate::session::Answered,
    more: Option<Value>,
) -> Value {
    let closed = Event::QuestionClosed {
        id,
        outcome,
        answer: Box::new(answer),
    };
    let mut value = from_event(&closed)
        .pop()
        .map(|(_, value)| value)
        .unwrap_or_else(|| json!({}));
    if let (Some(fields), Some(Value::Object(more))) = (value.as_object_mut(), more) {
        fields.extend(more);
    }
    value
}

/// The fields that say where a question belongs (seed 003's correlation), on its request and
/// its response alike.
const CORRELATION: [&str; 6] = [
    "timestamp",
    "turnId",
    "responseId",
    "toolCallId",
    "interactionId",
    "toolName",
];

/// The `interaction_response` that closes `asked`, a question of a session's earlier life that
/// nobody answered before the gateway stopped: nothing waits on it now.
pub(crate) fn no_longer_open(asked: &Value) -> Value {
    let id = asked["interactionId"].as_str().unwrap_or_default();
    let outcome = "no longer open: the gateway stopped before it was answered";
    let mut closed = json!({"id": id.parse::<u64>().unwrap_or(0), "outcome": outcome,
                            "action": "cancel", "completed": [outcome]});
    for name in CORRELATION {
        closed[name] = asked[name].clone();
    }
    closed["timestamp"] = json!(crate::clock::iso8601_millis(std::time::SystemTime::now()));
    closed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::{Approval, Choice, CompletedView, InputForm, Presentation, Scope};

    fn correlation(call: &str, id: &str) -> Correlation {
        Correlation {
            timestamp: "2026-11-28T09:30:00.125Z".into(),
            turn_id: "turn-1".into(),
            response_id: "turn-1/1".into(),
            tool_call_id: call.into(),
            interaction_id: id.into(),
            tool_name: "ask_user".into(),
        }
    }

    #[test]
    fn a_reprompt_shows_what_was_entered_and_names_the_call() {
        let question = Question {
            header: "Database".into(),
            question: "Which database?".into(),
            options: ["SQLite", "MySQL"]
                .map(|l| Choice {
                    label: l.into(),
                    description: String::new(),
                })
                .to_vec(),
            multi_select: true,
            initial: Some(Answer::Many(vec!["MySQL".into(), "Other:".into()])),
        };
        let prompt = Prompt {
            error: Some("Please type an answer".into()),
            call_id: "call_abc".into(),
            ..Prompt::new(Request::Questions(vec![question]), Duration::from_secs(1))
        };
        let value = request(&prompt, &correlation("call_abc", "7"), None);
        assert_eq!(value["interactionType"], "questions");
        assert_eq!(value["toolCallId"], "call_abc");
        assert_eq!(value["interactionId"], "7");
        assert_eq!(value["turnId"], "turn-1");
        assert_eq!(value["error"], "Please type an answer");
        assert_eq!(value["timeoutMs"], Value::Null);
        assert_eq!(
            value["questions"][0]["initial"],
            json!({"chosen": ["MySQL"], "other": ""})
        );
    }

    #[test]
    fn every_kind_is_one_interaction_request_with_its_body_presentation_and_completed_view() {
        let approval = Request::Approval(Approval {
            tool: "deploy".into(),
            summary: "Deploy v2?".into(),
            detail: "to prod".into(),
            covers: "prod".into(),
            all_edits: false,
            scopes: vec![Scope::Once, Scope::Session],
        });
        let value = request(
            &Prompt::new(approval, Duration::from_secs(600)),
            &correlation("c1", "1"),
            Some(Duration::from_secs(600)),
        );
        assert_eq!(value["interactionType"], "approval");
        assert_eq!(value["scopes"], json!(["once", "session"]));
        assert_eq!(value["timeoutMs"], 600_000);
        assert_eq!(value["presentation"], "tool");
        assert_eq!(
            value["completedView"],
            json!({"showInputs": true, "summaryTemplate": null})
        );
        for name in ["timestamp", "responseId", "toolName"] {
            assert!(value[name].is_string(), "{name} in {value}");
        }
        let form = InputForm::from_fields(
            "Where?",
            &json!([{"id": "port", "type": "integer", "label": "Port", "minimum": 1}]),
        )
        .unwrap();
        let prompt = Prompt {
            presentation: Presentation::Questionnaire,
            completed: CompletedView::parse(&json!({"summaryTemplate": "On {{port}}"})).unwrap(),
            error: Some("Port 8080 is taken".into()),
            ..Prompt::new(Request::Input(form), Duration::from_secs(5))
        };
        let value = request(
            &prompt,
            &correlation("c2", "2"),
            Some(Duration::from_secs(5)),
        );
        assert_eq!(value["interactionType"], "input");
        assert_eq!(value["prompt"], "Where?");
        assert_eq!(value["inputSchema"]["fields"][0]["minimum"], 1);
        assert_eq!(value["presentation"], "questionnaire");
        assert_eq!(value["completedView"]["summaryTemplate"], "On {{port}}");
        assert_eq!(value["error"], "Port 8080 is taken");
    }

    #[test]
    fn a_response_carries_the_correlation_the_completed_view_and_who_answered() {
        let prompt = Prompt::new(Request::Questions(Vec::new()), Duration::from_secs(1));
        let answered = crate::session::Answered::new(
            &prompt,
            &Response::Answers(vec![Answer::One("SQLite".into())]),
            correlation("c1", "3"),
        );
        let more = answered_by(
            Some("page-1"),
            &Response::Answers(vec![Answer::One("SQLite".into())]),
        );
        let value = response(3, "answered: SQLite".into(), answered, Some(more));
        assert_eq!(value["id"], 3);
        assert_eq!(value["interactionId"], "3");
        assert_eq!(value["toolCallId"], "c1");
        assert_eq!(value["action"], "submit");
        assert_eq!(value["by"], "page-1");
        assert_eq!(value["answers"][0]["chosen"], json!(["SQLite"]));
        assert!(value["completed"].is_array());
        assert!(value.get("type").is_none());
    }
}
