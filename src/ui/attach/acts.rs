//! What a line typed in an attached terminal does: a message for the session, or an answer to a
//! question, approval or input form the session waits on (`/answer`, `/approve`, `/deny`,
//! `/dismiss`, sent as `POST …/respond`), or `/cancel`. The question's number may be left out
//! when only one waits; `/answer` with nothing after it asks the question here, with the
//! REPL's chooser and fields (`ask`).

use serde_json::{Value, json};

use super::Target;
use super::ask::{self, Desk};
use super::request;
use super::shown::{Open, Sent};
use crate::interact::numbered::{self, OwnWords};
use crate::ui::sanitize::sanitize;

const COMMANDS: &str = "Commands: /answer [ID] [N | FIELD=VALUE, …], /approve [ID] [SCOPE], /deny [ID] [what instead], /dismiss [ID], /cancel; Enter on an empty line answers what waits; quit leaves.";

/// Carries out a typed line; what to say. A message is noted in `sent` first: the prompt shows
/// it as typed, and its event is not shown again.
pub(super) fn act(desk: &Desk, line: &str, sent: &Sent) -> String {
    let (command, rest) = match line.split_once(' ') {
        Some((command, rest)) => (command, rest.trim()),
        None => (line, ""),
    };
    let open = &desk.open;
    let body = match command {
        "/answer" => match pick(open, rest, &["questions", "input"], false) {
            Ok((id, "")) => return ask::here(desk, &id),
            Ok((id, typed)) => match answer(open, &id, typed, &desk.client) {
                Ok(body) => body,
                Err(why) => return why,
            },
            Err(why) => return why,
        },
        "/approve" => match pick(open, rest, &["approval"], true) {
            Ok((id, scope)) => match approve(open, &id, scope, &desk.client) {
                Ok(body) => body,
                Err(why) => return why,
            },
            Err(why) => return why,
        },
        "/deny" => match pick(open, rest, &["approval"], true) {
            Ok((id, reason)) => {
                json!({"interactionId": id, "action": "deny", "reason": reason, "by": desk.client})
            }
            Err(why) => return why,
        },
        "/dismiss" => match pick(open, rest, &["input"], true) {
            Ok((id, _)) => json!({"interactionId": id, "action": "cancel", "by": desk.client}),
            Err(why) => return why,
        },
        "/cancel" => return cancel(&desk.target, &desk.session),
        _ if command.starts_with('/') => {
            return format!("There is no {} here. {COMMANDS}", sanitize(command));
        }
        _ => return message(&desk.target, &desk.session, line, sent),
    };
    ask::send(desk, body)
}

/// Enter on an empty line: the one question waiting is asked here.
pub(super) fn waiting(desk: &Desk) -> String {
    match pick(&desk.open, "", &["questions", "input", "approval"], false) {
        Ok((id, _)) => ask::here(desk, &id),
        Err(why) if why.starts_with("Several") => why,
        Err(_) => String::new(),
    }
}

/// `/cancel`: the turn under way is cancelled.
pub(super) fn cancel(target: &Target, session: &str) -> String {
    let path = format!("/api/sessions/{session}/cancel");
    match target.call("POST", &path, Some(&json!({}))) {
        Ok((200, reply)) if reply["running"] == false => "No turn is under way.".into(),
        Ok((200, _)) => String::new(),
        Ok((_, reply)) => refused(&reply),
        Err(why) => why,
    }
}

/// A message for the session, noted in `sent` while it is on its way.
fn message(target: &Target, session: &str, line: &str, sent: &Sent) -> String {
    let note = |on: bool| {
        let mut sent = sent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match on {
            true => sent.push(line.to_string()),
            false => {
                if let Some(at) = sent.iter().rposition(|s| s == line) {
                    sent.remove(at);
                }
            }
        }
    };
    note(true);
    let path = format!("/api/sessions/{session}/messages");
    let reply = target.call("POST", &path, Some(&json!({ "content": line })));
    if !matches!(reply, Ok((202, _))) {
        note(false);
    }
    match reply {
        Ok((200 | 202, _)) => String::new(),
        Ok((409, _)) => "A turn is under way: wait for it to end, or /cancel it.".into(),
        Ok((_, reply)) => refused(&reply),
        Err(why) => why,
    }
}

/// What a refusal's body says.
pub(super) fn refused(reply: &Value) -> String {
    format!(
        "Not taken: {}",
        sanitize(reply["error"].as_str().unwrap_or("the gateway refused it"))
    )
}

/// `/approve [ID] [SCOPE]`: a scope the approval offers (once when none is said).
fn approve(open: &Open, id: &str, scope: &str, by: &str) -> Result<Value, String> {
    let offered: Vec<String> = open
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(id)
        .and_then(|event| event["scopes"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect();
    let scope = if scope.is_empty() { "once" } else { scope };
    if !offered.is_empty() && !offered.iter().any(|s| s == scope) {
        return Err(format!(
            "{} is not offered here: /approve {}",
            sanitize(scope),
            offered.join(", /approve ")
        ));
    }
    Ok(json!({"interactionId": id, "action": "approve", "approvalScope": scope, "by": by}))
}

/// `/answer [ID] …` in words: ask_user's answers (see [`answers`]), or an input form's
/// `FIELD=VALUE, …` (a form of one field takes the bare value).
fn answer(open: &Open, id: &str, typed: &str, by: &str) -> Result<Value, String> {
    let event = open
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(id)
        .cloned()
        .unwrap_or_default();
    if event["interactionType"] != "input" {
        let answers = answers(&event, typed)?;
        return Ok(json!({"interactionId": id, "action": "submit", "answers": answers, "by": by}));
    }
    let form = request::form(&event)?;
    let input = form.from_words(typed)?;
    Ok(json!({"interactionId": id, "action": "submit", "input": input, "by": by}))
}

/// The waiting question of one of `kinds` (`questions`, `input`, `approval`) that `rest` names
/// by its number first, or the only one waiting; with the rest of the line. A first word is a
/// number when more words follow, or when `alone` (an approval's scope is never a number; an
/// answer may be).
fn pick<'a>(
    open: &Open,
    rest: &'a str,
    kinds: &[&str],
    alone: bool,
) -> Result<(String, &'a str), String> {
    let open = open
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let of_kind = |event: &Value| kinds.iter().any(|kind| event["interactionType"] == *kind);
    let waiting: Vec<&String> = open
        .iter()
        .filter(|(_, event)| of_kind(event) && event["over"].is_null())
        .map(|(id, _)| id)
        .collect();
    let (first, after) = rest
        .split_once(' ')
        .map_or((rest, ""), |(first, after)| (first, after.trim()));
    if !first.is_empty() && (alone || !after.is_empty()) {
        if waiting.iter().any(|id| *id == first) {
            return Ok((first.to_string(), after));
        }
        let named = open.get(first).filter(|event| of_kind(event));
        if let Some(over) = named.and_then(|event| event["over"].as_str()) {
            return Err(format!("Question {first} is over ({over})."));
        }
        if !after.is_empty() && first.bytes().all(|b| b.is_ascii_digit()) {
            let list: Vec<&str> = waiting.iter().map(|id| id.as_str()).collect();
            return Err(format!(
                "No question {first} waits here (waiting: {}). To answer in your own words starting with a number, write Other: {rest}",
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                }
            ));
        }
    }
    let (what, command) = match kinds {
        ["approval"] => ("approval", "approve"),
        ["input"] => ("form", "dismiss"),
        _ => ("question", "answer"),
    };
    match waiting.as_slice() {
        [only] => Ok(((*only).clone(), rest)),
        [] => Err(format!("No {what} waits here.")),
        many => Err(format!(
            "Several wait ({}): name one, e.g. /{command} {} …",
            many.iter()
                .map(|id| id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            many[0]
        )),
    }
}

/// ask_user's answers typed (`;` between the questions'), an option's number standing for its
/// label; keyed by the question's text as the API wants them.
fn answers(event: &Value, typed: &str) -> Result<Value, String> {
    let questions = event["questions"].as_array().cloned().unwrap_or_default();
    let given: Vec<&str> = typed.split(';').map(str::trim).collect();
    if given.len() != questions.len() {
        return Err(format!(
            "{} questions, {} answers: put ; between them",
            questions.len(),
            given.len()
        ));
    }
    let mut answers = serde_json::Map::new();
    for (question, answer) in questions.iter().zip(given) {
        let options = question["options"].as_array().cloned().unwrap_or_default();
        let text = question["question"].as_str().unwrap_or("").to_string();
        // "Other: …" is the person's own words as they are, a number included.
        if let Some(own) = numbered::own_words(answer) {
            answers.insert(text, json!(own));
            continue;
        }
        let labels: Vec<&str> = options.iter().filter_map(|o| o["label"].as_str()).collect();
        let label = |word: &str| match labels.iter().find(|l| l.eq_ignore_ascii_case(word)) {
            Some(label) => Ok(label.to_string()),
            None => match numbered::option_number(word, labels.len(), OwnWords::Written) {
                Some(place) => place.map(|at| labels[at].to_string()),
                None => Ok(word.to_string()),
            },
        };
        let chosen: Vec<String> = answer
            .split(',')
            .map(|w| label(w.trim()))
            .collect::<Result<_, _>>()?;
        answers.insert(text, json!(chosen.join(", ")));
    }
    Ok(Value::Object(answers))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn waiting(events: &[Value]) -> Open {
        let open: Open = Arc::default();
        for event in events {
            let id = event["interactionId"].as_str().unwrap().to_string();
            open.lock().unwrap().insert(id, event.clone());
        }
        open
    }

    fn question(id: &str) -> Value {
        json!({"type": "interaction_request", "interactionType": "questions", "interactionId": id,
            "questions": [{"question": "Which database?",
            "options": [{"label": "SQLite"}, {"label": "Postgres"}]}]})
    }

    /// `/answer REST` as the body it sends.
    fn typed(open: &Open, rest: &str) -> Result<Value, String> {
        let (id, typed) = pick(open, rest, &["questions", "input"], false)?;
        answer(open, &id, typed, "me")
    }

    #[test]
    fn typed_answers_become_the_api_s_with_or_without_the_question_s_number() {
        let open = waiting(&[question("4")]);
        let body = |answers: Value| json!({"interactionId": "4", "action": "submit", "answers": answers, "by": "me"});
        assert_eq!(
            typed(&open, "4 2").unwrap(),
            body(json!({"Which database?": "Postgres"}))
        );
        assert_eq!(
            typed(&open, "2").unwrap(),
            body(json!({"Which database?": "Postgres"}))
        );
        assert_eq!(
            typed(&open, "DuckDB in memory").unwrap(),
            body(json!({"Which database?": "DuckDB in memory"}))
        );
        assert!(typed(&open, "1; 2").unwrap_err().contains("put ; between"));
        assert_eq!(
            typed(&waiting(&[]), "1").unwrap_err(),
            "No question waits here."
        );
        let two = waiting(&[question("4"), question("5")]);
        assert!(
            typed(&two, "1")
                .unwrap_err()
                .starts_with("Several wait (4, 5)")
        );
        assert_eq!(typed(&two, "5 1").unwrap()["interactionId"], "5");
        two.lock().unwrap().get_mut("5").unwrap()["over"] = json!("answered: SQLite");
        assert_eq!(typed(&two, "1").unwrap()["interactionId"], "4");
        assert_eq!(
            typed(&two, "5 1").unwrap_err(),
            "Question 5 is over (answered: SQLite)."
        );
        // A mistyped number is not sent as the person's own words.
        assert_eq!(
            typed(&open, "3").unwrap_err(),
            "There is no option 3: the options are 1 to 2. To answer 3 in your own words, write Other: 3"
        );
        assert_eq!(
            typed(&open, "Other: 3").unwrap(),
            body(json!({"Which database?": "3"}))
        );
        assert!(
            typed(&open, "9 1")
                .unwrap_err()
                .starts_with("No question 9 waits here (waiting: 4)")
        );
        // A number alone is the answer, even where it is also a question's number.
        let only_two = waiting(&[question("2")]);
        assert_eq!(
            typed(&only_two, "2").unwrap()["answers"],
            json!({"Which database?": "Postgres"})
        );
    }

    #[test]
    fn an_input_form_takes_field_equals_value_and_an_approval_its_offered_scopes() {
        let form = json!({"type": "interaction_request", "interactionType": "input",
            "interactionId": "6", "prompt": "Where?", "inputSchema": {"type": "form", "fields": [
                {"id": "port", "type": "integer", "label": "Port", "required": true},
                {"id": "tls", "type": "boolean", "label": "TLS", "required": false}]}});
        let approval = json!({"type": "interaction_request", "interactionType": "approval",
            "interactionId": "7", "scopes": ["once", "session"]});
        let open = waiting(&[approval, question("4"), form]);
        assert_eq!(
            typed(&open, "6 port=8080, tls=yes").unwrap(),
            json!({"interactionId": "6", "action": "submit", "by": "me",
                   "input": {"port": "8080", "tls": "yes"}})
        );
        assert!(
            typed(&open, "6 colour=red")
                .unwrap_err()
                .contains("names no field")
        );
        assert_eq!(pick(&open, "", &["input"], true), Ok(("6".into(), "")));
        let approve = |rest| {
            let (id, scope) = pick(&open, rest, &["approval"], true)?;
            approve(&open, &id, scope, "me")
        };
        assert_eq!(approve("").unwrap()["approvalScope"], "once");
        assert_eq!(approve("7 session").unwrap()["approvalScope"], "session");
        assert_eq!(
            approve("always").unwrap_err(),
            "always is not offered here: /approve once, /approve session"
        );
    }

    #[test]
    fn an_approval_is_named_or_the_only_one() {
        let approval = json!({"type": "interaction_request", "interactionType": "approval",
            "interactionId": "7"});
        let open = waiting(&[approval, question("4")]);
        let approval = |rest| pick(&open, rest, &["approval"], true);
        assert_eq!(approval(""), Ok(("7".into(), "")));
        assert_eq!(approval("7"), Ok(("7".into(), "")));
        assert_eq!(approval("7 session"), Ok(("7".into(), "session")));
        assert_eq!(
            approval("use make instead"),
            Ok(("7".into(), "use make instead"))
        );
    }
}
