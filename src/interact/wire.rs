//! The JSON answer to a question asked outside the terminal (`--on-ask stdin`, the phone, a
//! parked run, a sub-agent's parent), read against what was asked (`{"id": 1, "approve":
//! "once"}`, `{"id": 2, "input": {"port": 8080}}`, seed 003's `{"action": …}`), written back in
//! the same shape, and the request an event describes read back: below the front-ends and the
//! tools, which both speak it (the headless front-end, and the sub-agent relay to its child).

use serde_json::{Map, Value, json};

use super::{Answer, Approval, InputForm, Question, Request, Response, Scope, view};

/// Why an answer does not fit its question: in words, and for an input form each wrong field
/// (its id and what to change).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unfit {
    pub message: String,
    pub fields: Vec<(String, String)>,
}

impl From<String> for Unfit {
    fn from(message: String) -> Self {
        Self {
            message,
            fields: Vec::new(),
        }
    }
}

impl From<&str> for Unfit {
    fn from(message: &str) -> Self {
        Self::from(message.to_string())
    }
}

impl std::fmt::Display for Unfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What the JSON answer `answer` says to `request`, or why it does not fit. Each kind takes
/// its own shape (`{"approve": "once"}`, `{"answers": [...]}`, `{"input": {...}}` or
/// `{"cancel": true}`), or seed 003's (`{"action": "approve" | "deny" | "submit" | "cancel",
/// "approvalScope", "reason", "input"}`).
pub(crate) fn response_to(request: &Request, answer: &Value) -> Result<Response, Unfit> {
    match request {
        Request::Approval(approval) => approval_response(approval, answer),
        Request::Questions(questions) => questions_response(questions, answer).map_err(Unfit::from),
        Request::Input(form) => input_response(form, answer),
        Request::Form(_) => Err("a form is answered in its page".into()),
    }
}

/// `{"input": {"port": 8080}}` for an input form (checked against its fields, every wrong
/// field named), or `{"cancel": true}` to close it without an answer.
pub(crate) fn input_response(form: &InputForm, answer: &Value) -> Result<Response, Unfit> {
    if answer["cancel"] == json!(true) || answer["action"] == json!("cancel") {
        return Ok(Response::Dismissed);
    }
    if answer.get("input").is_none() {
        return Err(
            "\"input\" is an object of field ids and values (or send {\"cancel\": true})".into(),
        );
    }
    form.check(&answer["input"])
        .map(Response::Submitted)
        .map_err(|errors| {
            let said: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
            Unfit {
                message: said.join(" "),
                fields: errors.into_iter().map(|e| (e.field, e.message)).collect(),
            }
        })
}

/// `{"approve": SCOPE | "no" | false, "reason": "..."}` for an approval, a scope being one
/// the approval offers.
pub(crate) fn approval_response(approval: &Approval, answer: &Value) -> Result<Response, Unfit> {
    let reason = answer["reason"].as_str().unwrap_or("").to_string();
    let given = match (&answer["approve"], answer["action"].as_str()) {
        (Value::Null, Some("approve")) => match &answer["approvalScope"] {
            Value::Null => json!("once"),
            scope => scope.clone(),
        },
        (Value::Null, Some("deny")) => json!("no"),
        (given, _) => given.clone(),
    };
    if given == json!("no") || given == json!(false) {
        return Ok(Response::Denied(reason));
    }
    // A scope is named in words: anything else (`true`, a number) names none of them.
    let named = match &given {
        Value::String(name) => approval.scope_named(Some(name)),
        _ => approval.scope_named(Some("")),
    };
    named.map(Response::Approved).map_err(|names| {
        let names: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
        format!(
            "\"approve\" is one of {} or \"no\" (with a \"reason\")",
            names.join(", ")
        )
        .into()
    })
}

/// `{"answers": [...]}`: for each question in order, a label or your own text; a list of
/// labels where several may be chosen.
pub(crate) fn questions_response(
    questions: &[Question],
    answer: &Value,
) -> Result<Response, String> {
    let Some(given) = answer["answers"].as_array() else {
        return Err("\"answers\" is a list with one answer per question, in order".into());
    };
    if given.len() != questions.len() {
        return Err(format!(
            "{} questions were asked and {} answers given",
            questions.len(),
            given.len()
        ));
    }
    let answers = questions
        .iter()
        .zip(given)
        .map(|(question, given)| one_answer(question, given))
        .collect::<Result<Vec<Answer>, String>>()?;
    Ok(Response::Answers(answers))
}

fn one_answer(question: &Question, given: &Value) -> Result<Answer, String> {
    let is_label = |text: &str| question.options.iter().any(|o| o.label == text);
    match given {
        Value::String(text) if text.trim().is_empty() => Err(format!(
            "the answer to {:?} is empty: give a label or your own words",
            question.header
        )),
        Value::String(text) if is_label(text) && question.multi_select => {
            Ok(Answer::Many(vec![text.clone()]))
        }
        Value::String(text) if is_label(text) => Ok(Answer::One(text.clone())),
        Value::String(text) => Ok(Answer::Other(text.clone())),
        Value::Array(items) if question.multi_select => {
            let labels: Option<Vec<String>> = items
                .iter()
                .map(|item| item.as_str().filter(|t| is_label(t)).map(str::to_string))
                .collect();
            match labels {
                Some(labels) if !labels.is_empty() => Ok(Answer::Many(labels)),
                _ => Err(format!(
                    "the answer to {:?} is a list of its labels ({}), or your own words as one string",
                    question.header,
                    labels_of(question)
                )),
            }
        }
        _ => Err(format!(
            "the answer to {:?} is one of its labels ({}) or your own words",
            question.header,
            labels_of(question)
        )),
    }
}

fn labels_of(question: &Question) -> String {
    let labels: Vec<&str> = question.options.iter().map(|o| o.label.as_str()).collect();
    labels.join(", ")
}

/// The answer in the JSON this module reads, for a response given elsewhere (a sub-agent's
/// parent answering the child's question): `None` when it is no answer (a timeout, a
/// cancelled turn).
pub(crate) fn answer_json(id: &Value, response: &Response) -> Option<Value> {
    let body = match response {
        Response::Approved(scope) => json!({"approve": view::scope_name(*scope)}),
        Response::Denied(reason) => json!({"approve": "no", "reason": reason}),
        Response::Answers(answers) => {
            let answers: Vec<Value> = answers
                .iter()
                .map(|answer| match answer {
                    Answer::One(label) | Answer::Other(label) => json!(label),
                    Answer::Many(labels) => json!(labels),
                })
                .collect();
            json!({ "answers": answers })
        }
        Response::Submitted(input) => json!({ "input": Value::Object(input.clone()) }),
        Response::Dismissed => json!({"cancel": true}),
        _ => return None,
    };
    let mut answer = Map::new();
    answer.insert("id".into(), id.clone());
    if let Value::Object(fields) = body {
        answer.extend(fields);
    }
    Some(Value::Object(answer))
}

/// The request a question event describes (`approval`, `question` or `input`), as a parked
/// run or a sub-agent's parent reads it back; `None` when it cannot be read.
pub(crate) fn request_from_event(event: &Value) -> Option<Request> {
    let text = |key: &str| event[key].as_str().unwrap_or("").to_string();
    match event["type"].as_str()? {
        "approval" => {
            let named = |name: &Value| -> Option<Scope> {
                [Scope::Once, Scope::Session, Scope::Always, Scope::AllEdits]
                    .into_iter()
                    .find(|scope| name.as_str() == Some(view::scope_name(*scope)))
            };
            // `scopes` lists what the approval offers; an older event only `choices`.
            let listed = match event["scopes"].as_array() {
                Some(scopes) => scopes.clone(),
                None => event["choices"].as_array().cloned().unwrap_or_default(),
            };
            let mut scopes: Vec<Scope> = listed.iter().filter_map(named).collect();
            let all_edits = scopes.contains(&Scope::AllEdits);
            scopes.retain(|scope| *scope != Scope::AllEdits);
            Some(Request::Approval(Approval {
                tool: text("tool"),
                summary: text("summary"),
                detail: text("detail"),
                covers: text("covers"),
                all_edits,
                scopes,
            }))
        }
        "question" => {
            let questions = event["questions"].as_array()?;
            Some(Request::Questions(
                questions.iter().map(question_from_event).collect(),
            ))
        }
        "input" => {
            let schema = &event["inputSchema"];
            let form = InputForm::from_fields(&text("prompt"), &schema["fields"]).ok()?;
            let initial: Map<String, Value> = schema["fields"]
                .as_array()?
                .iter()
                .filter_map(|f| Some((f["id"].as_str()?.to_string(), f.get("initial")?.clone())))
                .collect();
            Some(Request::Input(form.with_initial(&initial)))
        }
        _ => None,
    }
}

fn question_from_event(question: &Value) -> Question {
    let text = |v: &Value, key: &str| v[key].as_str().unwrap_or("").to_string();
    Question {
        header: text(question, "header"),
        question: text(question, "question"),
        multi_select: question["multi_select"].as_bool().unwrap_or(false),
        initial: None,
        options: question["options"]
            .as_array()
            .map(|options| {
                options
                    .iter()
                    .map(|o| crate::interact::Choice {
                        label: text(o, "label"),
                        description: text(o, "description"),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}
