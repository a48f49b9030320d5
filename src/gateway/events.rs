//! The gateway's events in the shape of seeds 001/004: what a session says during a turn
//! (`text_delta`, `tool_call_start`, `tool_result`, `tool_call_end`, `session_status`,
//! `interaction_response`, …) and the questions its tools ask (`question_prompt`,
//! `approval_required`), each a JSON object the broadcaster numbers; and the answers clients
//! send back, turned into the session's responses.

use serde_json::{Value, json};

use crate::interact::{Answer, Prompt, Question, Request, Response, Scope};
use crate::session::Event;

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

/// The event that asks prompt `id`. An answer names it by `interactionId` (this prompt), or by
/// `toolCallId` (the model's call asking: the prompt open for it now, a reprompt included).
pub(crate) fn question(id: u64, prompt: &Prompt) -> (&'static str, Value) {
    let (kind, mut value) = match &prompt.request {
        Request::Approval(a) => {
            let mut scopes = vec!["once", "session", "always"];
            if a.all_edits {
                scopes.push("all_edits");
            }
            (
                "approval_required",
                json!({"tool": a.tool, "summary": a.summary, "detail": a.detail,
                       "covers": a.covers, "scopes": scopes}),
            )
        }
        Request::Questions(questions) => (
            "question_prompt",
            json!({"questions": questions.iter().map(question_json).collect::<Vec<_>>()}),
        ),
        Request::Input(form) => (
            "input_request",
            json!({"tool": prompt.tool, "prompt": form.prompt, "inputSchema": form.to_json()}),
        ),
        Request::Form(form) => ("form_opened", json!({"title": form.title, "url": form.url})),
    };
    value["interactionId"] = json!(id.to_string());
    value["toolCallId"] = json!(call_of(id, prompt));
    if let Some(error) = &prompt.error {
        value["error"] = json!(error);
    }
    (kind, value)
}

/// The model's tool call that asks; a question asked outside one goes by its own id.
pub(crate) fn call_of(id: u64, prompt: &Prompt) -> String {
    match prompt.call_id.is_empty() {
        true => format!("interaction-{id}"),
        false => prompt.call_id.clone(),
    }
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

/// What an answer's `interaction_response` says besides the outcome: the client that gave it
/// (`by`, when it said), and for questions each one's answer as a reprompt's `initial` has it,
/// so every client can show what was chosen.
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

/// `submit-answers`: `answers` maps each question's text to the label chosen (labels joined by
/// ", " where several may be chosen) or the person's own words. A question left out is refused
/// here; an empty answer is "Other" with nothing typed, which the tool itself asks again.
pub(crate) fn answers_response(request: &Request, answers: &Value) -> Result<Response, String> {
    let Request::Questions(questions) = request else {
        return Err("that is not a question: approve or deny it".into());
    };
    let Some(answers) = answers.as_object() else {
        return Err("\"answers\" maps each question's text to its answer".into());
    };
    let mut chosen = Vec::new();
    for question in questions {
        let text = match answers.get(&question.question) {
            Some(Value::String(text)) => text.trim(),
            Some(_) => {
                return Err(format!(
                    "the answer to {:?} is a string: a label, labels joined by \", \", or your own words",
                    question.question
                ));
            }
            None => {
                return Err(format!(
                    "no answer for the question {:?}",
                    question.question
                ));
            }
        };
        chosen.push(answer_to(question, text));
    }
    Ok(Response::Answers(chosen))
}

/// Where several may be chosen, the labels among `text`'s parts are chosen and the other parts
/// are the person's own words ("Other: …").
fn answer_to(question: &Question, text: &str) -> Answer {
    let label = |t: &str| question.options.iter().any(|o| o.label == t);
    if !question.multi_select || text.is_empty() {
        return match label(text) {
            true => Answer::One(text.to_string()),
            false => Answer::Other(text.to_string()),
        };
    }
    let (mut chosen, own): (Vec<&str>, Vec<&str>) = text.split(", ").partition(|p| label(p));
    let mut chosen: Vec<String> = chosen.drain(..).map(str::to_string).collect();
    if !own.is_empty() {
        chosen.push(format!("Other: {}", own.join(", ")));
    }
    Answer::Many(chosen)
}

/// Whether `response` chose "Other" somewhere and typed nothing.
pub(crate) fn leaves_other_empty(response: &Response) -> bool {
    matches!(response, Response::Answers(answers) if answers.iter().any(Answer::leaves_other_empty))
}

/// `approve`: `scope` is once, session, always, or all_edits where offered.
pub(crate) fn approval_response(request: &Request, scope: &Value) -> Result<Response, String> {
    let Request::Approval(approval) = request else {
        return Err("that is a question, not an approval: submit answers to it".into());
    };
    let scope = match scope.as_str().unwrap_or("once") {
        "once" => Scope::Once,
        "session" => Scope::Session,
        "always" => Scope::Always,
        "all_edits" if approval.all_edits => Scope::AllEdits,
        other => {
            return Err(format!(
                "\"scope\" is once, session or always, not {other:?}"
            ));
        }
    };
    Ok(Response::Approved(scope))
}

/// `deny`: with what to do instead.
pub(crate) fn denial_response(request: &Request, reason: &Value) -> Result<Response, String> {
    if !matches!(request, Request::Approval(_)) {
        return Err("only an approval is denied; a question is answered".into());
    }
    Ok(Response::Denied(reason.as_str().unwrap_or("").to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::{Approval, Choice};

    fn questions(multi: bool) -> Request {
        Request::Questions(vec![Question {
            header: "Database".into(),
            question: "Which database?".into(),
            options: ["SQLite", "MySQL"]
                .map(|l| Choice {
                    label: l.into(),
                    description: String::new(),
                })
                .to_vec(),
            multi_select: multi,
            initial: None,
        }])
    }

    #[test]
    fn answers_map_question_texts_to_labels_or_own_words() {
        let cases: &[(Request, Value, Result<Response, &str>)] = &[
            (
                questions(false),
                json!({"Which database?": "MySQL"}),
                Ok(Response::Answers(vec![Answer::One("MySQL".into())])),
            ),
            (
                questions(false),
                json!({"Which database?": "DuckDB"}),
                Ok(Response::Answers(vec![Answer::Other("DuckDB".into())])),
            ),
            (
                questions(true),
                json!({"Which database?": "SQLite, MySQL"}),
                Ok(Response::Answers(vec![Answer::Many(vec![
                    "SQLite".into(),
                    "MySQL".into(),
                ])])),
            ),
            (
                questions(true),
                json!({"Which database?": "MySQL, DuckDB, in memory"}),
                Ok(Response::Answers(vec![Answer::Many(vec![
                    "MySQL".into(),
                    "Other: DuckDB, in memory".into(),
                ])])),
            ),
            // Left empty: "Other" with nothing typed, which ask_user asks again.
            (
                questions(true),
                json!({"Which database?": " "}),
                Ok(Response::Answers(vec![Answer::Other(String::new())])),
            ),
            (
                questions(false),
                json!({"Other?": "x"}),
                Err("no answer for"),
            ),
            (
                questions(false),
                json!(["MySQL"]),
                Err("maps each question"),
            ),
            (
                questions(false),
                json!({"Which database?": 1}),
                Err("is a string: a label"),
            ),
        ];
        for (request, answers, expected) in cases {
            match (answers_response(request, answers), expected) {
                (Ok(got), Ok(expected)) => assert_eq!(&got, expected),
                (Err(why), Err(part)) => assert!(why.contains(part), "{why}"),
                (got, expected) => panic!("{answers}: {got:?} vs {expected:?}"),
            }
        }
    }

    #[test]
    fn a_reprompt_shows_what_was_entered_and_names_the_call() {
        let mut question = match questions(true) {
            Request::Questions(q) => q,
            _ => unreachable!(),
        };
        question[0].initial = Some(Answer::Many(vec!["MySQL".into(), "Other:".into()]));
        let prompt = Prompt {
            error: Some("Please type an answer".into()),
            call_id: "call_abc".into(),
            ..Prompt::new(
                Request::Questions(question),
                std::time::Duration::from_secs(1),
            )
        };
        let (kind, value) = super::question(7, &prompt);
        assert_eq!(kind, "question_prompt");
        assert_eq!(value["toolCallId"], "call_abc");
        assert_eq!(value["interactionId"], "7");
        assert_eq!(value["error"], "Please type an answer");
        assert_eq!(
            value["questions"][0]["initial"],
            json!({"chosen": ["MySQL"], "other": ""})
        );
    }

    #[test]
    fn approvals_take_a_scope_or_a_reason() {
        let approval = Request::Approval(Approval {
            tool: "run_command".into(),
            summary: String::new(),
            detail: "make".into(),
            covers: String::new(),
            all_edits: false,
            scopes: Vec::new(),
        });
        assert_eq!(
            approval_response(&approval, &json!("session")),
            Ok(Response::Approved(Scope::Session))
        );
        assert!(approval_response(&approval, &json!("all_edits")).is_err());
        assert!(approval_response(&questions(false), &json!("once")).is_err());
        assert_eq!(
            denial_response(&approval, &json!("not now")),
            Ok(Response::Denied("not now".into()))
        );
    }
}
