//! What clients answer, turned into the session's responses: seed 003's `respond`
//! (`{"action": "approve" | "deny" | "submit" | "cancel", …}`, any kind of question) and the
//! older `submit-answers`, `approve` and `deny`. An answer that does not fit its question is
//! refused with why, and for an input form with each field that is wrong.

use serde_json::{Value, json};

use crate::interact::{Answer, Question, Request, Response, view};

/// Why an answer was not taken (400): what to change, and for an input form the fields that
/// are wrong (`{"field", "message"}`, in the form's order).
#[derive(Debug, PartialEq)]
pub(crate) struct Refused {
    pub error: String,
    pub fields: Vec<Value>,
}

impl From<String> for Refused {
    fn from(error: String) -> Self {
        Self {
            error,
            fields: Vec::new(),
        }
    }
}

impl From<&str> for Refused {
    fn from(error: &str) -> Self {
        Self::from(error.to_string())
    }
}

/// `respond` (seed 003's `tool_interaction_response`): `action` with what it needs.
/// An approval is approved with an offered `approvalScope` (once when none is
/// named), denied with a `reason`, or cancelled (a denial); questions are submitted with
/// `answers` (as `submit-answers` takes them) or cancelled (dismissed); an input form is
/// submitted with `input` (checked against its fields, typed) or cancelled (dismissed).
pub(crate) fn respond(request: &Request, body: &Value) -> Result<Response, Refused> {
    let action = body["action"].as_str().unwrap_or_default();
    match (request, action) {
        (Request::Approval(_), "approve") => {
            Ok(approval_response(request, &body["approvalScope"])?)
        }
        (Request::Approval(_), "deny" | "cancel") => Ok(denial_response(request, &body["reason"])?),
        (Request::Questions(_), "submit") => Ok(answers_response(request, &body["answers"])?),
        (Request::Input(form), "submit") => form
            .check(&body["input"])
            .map(Response::Submitted)
            .map_err(|wrong| {
                let named: Vec<&str> = wrong.iter().map(|e| e.field.as_str()).collect();
                Refused {
                    error: format!(
                        "the input does not fit the form ({}): fix what each field's message says",
                        named.join(", ")
                    ),
                    fields: wrong
                        .iter()
                        .map(|e| json!({"field": e.field, "message": e.message}))
                        .collect(),
                }
            }),
        (Request::Questions(_) | Request::Input(_), "cancel") => Ok(Response::Dismissed),
        (Request::Form(form), _) => Err(Refused::from(format!(
            "the form \"{}\" is answered in its own page",
            form.title
        ))),
        (_, "approve" | "deny" | "submit") => Err(Refused::from(match request {
            Request::Approval(_) => {
                "that is an approval: \"approve\" (with an offered \"approvalScope\"), \"deny\" or \"cancel\" it"
            }
            Request::Input(_) => {
                "that is an input form: \"submit\" it with \"input\", or \"cancel\" it"
            }
            _ => "that is a question: \"submit\" it with \"answers\", or \"cancel\" it",
        })),
        _ => Err(Refused::from(
            "\"action\" is approve, deny, submit or cancel",
        )),
    }
}

/// `submit-answers`: `answers` maps each question, by its text or by its index (`"0"`, `"1"`,
/// …, as seed 001's client keys them), to the label chosen or the person's own words; where
/// several may be chosen, to labels joined by ", " or a JSON array of labels (an array itself,
/// or seed 001's array serialized as a string). A question left out is refused here; an empty
/// answer is "Other" with nothing typed, which the tool itself asks again.
pub(crate) fn answers_response(request: &Request, answers: &Value) -> Result<Response, String> {
    let Request::Questions(questions) = request else {
        return Err("that is not a question: approve or deny it".into());
    };
    let Some(answers) = answers.as_object() else {
        return Err(
            "\"answers\" maps each question (its text, or its index: \"0\", \"1\", …) to its answer"
                .into(),
        );
    };
    let mut chosen = Vec::new();
    for (index, question) in questions.iter().enumerate() {
        let given = answers
            .get(&question.question)
            .or_else(|| answers.get(&index.to_string()))
            .ok_or_else(|| {
                format!(
                    "no answer for the question {:?}: key it by its text or by its index, \"{index}\"",
                    question.question
                )
            })?;
        chosen.push(answer_to(question, &parts(question, given)?));
    }
    Ok(Response::Answers(chosen))
}

/// What `given` answers to `question`, part by part: one part where one may be chosen; the
/// labels of an array, or of text joined by ", ", where several may be.
fn parts(question: &Question, given: &Value) -> Result<Vec<String>, String> {
    let wrong = || {
        format!(
            "the answer to {:?} is a label, labels joined by \", \" or a JSON array of them, or your own words",
            question.question
        )
    };
    let listed = match given {
        Value::Array(items) => items,
        Value::String(text) if !question.multi_select => return Ok(vec![text.trim().into()]),
        // Seed 001's client sends a multi-select answer as its array serialized.
        Value::String(text) => match serde_json::from_str::<Value>(text.trim()) {
            Ok(Value::Array(items)) => return strings(&items).ok_or_else(wrong),
            _ => return Ok(text.trim().split(", ").map(str::to_string).collect()),
        },
        _ => return Err(wrong()),
    };
    let listed = strings(listed).ok_or_else(wrong)?;
    if !question.multi_select && listed.len() > 1 {
        return Err(format!(
            "only one answer is chosen for {:?}: send one label, or your own words",
            question.question
        ));
    }
    Ok(listed)
}

/// The strings of `items`, trimmed; none when one is not a string.
fn strings(items: &[Value]) -> Option<Vec<String>> {
    items
        .iter()
        .map(|item| item.as_str().map(|text| text.trim().to_string()))
        .collect()
}

/// Where one may be chosen, a label or the person's own words; where several may, the labels
/// among `parts` are chosen and the other parts are the person's own words ("Other: …").
/// Nothing given is "Other" with nothing typed.
fn answer_to(question: &Question, parts: &[String]) -> Answer {
    let label = |t: &str| question.options.iter().any(|o| o.label == t);
    let given: Vec<&str> = parts
        .iter()
        .map(String::as_str)
        .filter(|p| !p.is_empty())
        .collect();
    if !question.multi_select || given.is_empty() {
        let text = given.first().copied().unwrap_or_default();
        return match label(text) {
            true => Answer::One(text.to_string()),
            false => Answer::Other(text.to_string()),
        };
    }
    let (chosen, own): (Vec<&str>, Vec<&str>) = given.into_iter().partition(|p| label(p));
    let mut chosen: Vec<String> = chosen.into_iter().map(str::to_string).collect();
    if !own.is_empty() {
        chosen.push(format!("Other: {}", own.join(", ")));
    }
    Answer::Many(chosen)
}

/// Whether `response` chose "Other" somewhere and typed nothing.
pub(crate) fn leaves_other_empty(response: &Response) -> bool {
    matches!(response, Response::Answers(answers) if answers.iter().any(Answer::leaves_other_empty))
}

/// `approve`: `scope` is one of the scopes the approval offers (once, session, always,
/// all_edits); none named is once, where once is offered (a bare yes never grants more than
/// this one call).
pub(crate) fn approval_response(request: &Request, scope: &Value) -> Result<Response, String> {
    let Request::Approval(approval) = request else {
        return Err("that is a question, not an approval: submit answers to it".into());
    };
    let named = match scope {
        Value::Null => None,
        Value::String(name) => Some(name.as_str()),
        other => {
            let names: Vec<&str> = approval
                .offered()
                .into_iter()
                .map(view::scope_name)
                .collect();
            return Err(format!(
                "the scope is one of {}, not {other}",
                names.join(", ")
            ));
        }
    };
    let scope = approval.scope_named(named).map_err(|names| match named {
        None => format!("name the scope: this approval offers {}", names.join(", ")),
        Some(name) => format!(
            "the scope {name:?} is not offered for this approval: {}",
            names.join(", ")
        ),
    })?;
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
    use crate::interact::{Approval, Choice, InputForm, Scope};

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
    fn answers_map_question_texts_or_indexes_to_labels_arrays_or_own_words() {
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
                Err("is a label, labels joined"),
            ),
            // Seed 001's client: keyed by index, a multi-select answer a JSON array (as an
            // array, or serialized in a string), "Other" its own words among the labels.
            (
                questions(false),
                json!({"0": "SQLite"}),
                Ok(Response::Answers(vec![Answer::One("SQLite".into())])),
            ),
            (
                questions(true),
                json!({"0": ["SQLite", "MySQL"]}),
                Ok(Response::Answers(vec![Answer::Many(vec![
                    "SQLite".into(),
                    "MySQL".into(),
                ])])),
            ),
            (
                questions(true),
                json!({"0": "[\"MySQL\", \"DuckDB, in memory\"]"}),
                Ok(Response::Answers(vec![Answer::Many(vec![
                    "MySQL".into(),
                    "Other: DuckDB, in memory".into(),
                ])])),
            ),
            (
                questions(false),
                json!({"0": ["MySQL"]}),
                Ok(Response::Answers(vec![Answer::One("MySQL".into())])),
            ),
            (
                questions(true),
                json!({"0": []}),
                Ok(Response::Answers(vec![Answer::Other(String::new())])),
            ),
            (
                questions(false),
                json!({"0": ["SQLite", "MySQL"]}),
                Err("only one answer"),
            ),
            (
                questions(true),
                json!({"0": ["SQLite", 2]}),
                Err("JSON array"),
            ),
            (
                questions(false),
                json!({"1": "SQLite"}),
                Err("its index, \"0\""),
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

    fn approval_offering(scopes: Vec<Scope>) -> Request {
        Request::Approval(Approval {
            tool: "deploy".into(),
            summary: "Deploy v2?".into(),
            detail: String::new(),
            covers: String::new(),
            all_edits: false,
            scopes,
        })
    }

    #[test]
    fn respond_approves_only_an_offered_scope_and_cancel_denies() {
        let approval = approval_offering(vec![Scope::Session, Scope::Once]);
        let respond = |body: Value| respond(&approval, &body);
        assert_eq!(
            respond(json!({"action": "approve", "approvalScope": "once"})),
            Ok(Response::Approved(Scope::Once))
        );
        // None named: once, never more than this call without saying so.
        assert_eq!(
            respond(json!({"action": "approve"})),
            Ok(Response::Approved(Scope::Once))
        );
        let lasting = approval_offering(vec![Scope::Always]);
        let unnamed = super::respond(&lasting, &json!({"action": "approve"})).unwrap_err();
        assert!(unnamed.error.contains("name the scope"), "{unnamed:?}");
        let refused = respond(json!({"action": "approve", "approvalScope": "always"})).unwrap_err();
        assert!(
            refused.error.contains("\"always\" is not offered")
                && refused.error.ends_with("session, once"),
            "{refused:?}"
        );
        assert_eq!(
            respond(json!({"action": "deny", "reason": "not today"})),
            Ok(Response::Denied("not today".into()))
        );
        assert_eq!(
            respond(json!({"action": "cancel"})),
            Ok(Response::Denied(String::new()))
        );
        assert!(respond(json!({"action": "submit", "input": {}})).is_err());
        assert!(
            respond(json!({"action": "maybe"}))
                .unwrap_err()
                .error
                .contains("approve, deny, submit or cancel")
        );
    }

    #[test]
    fn respond_submits_an_input_form_typed_or_names_every_wrong_field() {
        let form = InputForm::from_fields(
            "Where should it listen?",
            &json!([{"id": "port", "type": "integer", "label": "Port", "required": true,
                     "minimum": 1024, "maximum": 65535},
                    {"id": "tls", "type": "boolean", "label": "TLS"}]),
        )
        .unwrap();
        let form = Request::Input(form);
        let submitted = respond(
            &form,
            &json!({"action": "submit", "input": {"port": "8080", "tls": "yes"}}),
        );
        assert_eq!(
            submitted,
            Ok(Response::Submitted(
                json!({"port": 8080, "tls": true})
                    .as_object()
                    .unwrap()
                    .clone()
            ))
        );
        let refused = respond(
            &form,
            &json!({"action": "submit", "input": {"port": 80, "colour": "red"}}),
        )
        .unwrap_err();
        let named: Vec<&str> = refused
            .fields
            .iter()
            .map(|f| f["field"].as_str().unwrap())
            .collect();
        assert_eq!(named, ["colour", "port"], "{refused:?}");
        assert!(refused.fields.iter().all(|f| f["message"].is_string()));
        let missing = respond(&form, &json!({"action": "submit"})).unwrap_err();
        assert_eq!(missing.fields[0]["field"], "input");
        assert_eq!(
            respond(&form, &json!({"action": "cancel"})),
            Ok(Response::Dismissed)
        );
        assert!(
            respond(&form, &json!({"action": "approve"}))
                .unwrap_err()
                .error
                .contains("input form")
        );
        // Questions: answers as submit-answers takes them, or dismissed.
        assert_eq!(
            respond(
                &questions(false),
                &json!({"action": "submit", "answers": {"Which database?": "MySQL"}})
            ),
            Ok(Response::Answers(vec![Answer::One("MySQL".into())]))
        );
        assert_eq!(
            respond(&questions(false), &json!({"action": "cancel"})),
            Ok(Response::Dismissed)
        );
        assert!(respond(&questions(false), &json!({"action": "deny"})).is_err());
    }
}
