//! What a line typed in an attached terminal does: a message for the session, or an answer to a
//! question or approval the session waits on (`/answer`, `/approve`, `/deny`), or `/cancel`.
//! The question's number may be left out when only one waits.

use serde_json::{Value, json};

use super::Target;
use super::shown::{Open, Sent};
use crate::ui::sanitize::sanitize;

const COMMANDS: &str = "Commands: /answer [ID] N, /approve [ID] [once|session|always], /deny [ID] [what instead], /cancel; quit leaves.";

/// Carries out a typed line; what to say. A message is noted in `sent` first: the prompt shows
/// it as typed, and its event is not shown again.
pub(super) fn act(target: &Target, session: &str, line: &str, open: &Open, sent: &Sent) -> String {
    let (command, rest) = match line.split_once(' ') {
        Some((command, rest)) => (command, rest.trim()),
        None => (line, ""),
    };
    let (action, body) = match command {
        "/answer" => match answer(open, rest) {
            Ok(body) => ("submit-answers", body),
            Err(why) => return why,
        },
        "/approve" => match pick(open, rest, "approval_required", true) {
            Ok((id, scope)) => {
                let scope = if scope.is_empty() { "once" } else { scope };
                ("approve", json!({"interactionId": id, "scope": scope}))
            }
            Err(why) => return why,
        },
        "/deny" => match pick(open, rest, "approval_required", true) {
            Ok((id, reason)) => ("deny", json!({"interactionId": id, "reason": reason})),
            Err(why) => return why,
        },
        "/cancel" => ("cancel", json!({})),
        _ if command.starts_with('/') => {
            return format!("There is no {} here. {COMMANDS}", sanitize(command));
        }
        _ => ("messages", json!({ "content": line })),
    };
    let path = format!("/api/sessions/{session}/{action}");
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
    if action == "messages" {
        note(true);
    }
    let reply = target.call("POST", &path, Some(&body));
    if action == "messages" && !matches!(reply, Ok((202, _))) {
        note(false);
    }
    match reply {
        Ok((200, reply)) if action == "cancel" && reply["running"] == false => {
            "No turn is under way.".into()
        }
        Ok((200 | 202, _)) => String::new(),
        Ok((409, _)) if action == "messages" => {
            "A turn is under way: wait for it to end, or /cancel it.".into()
        }
        Ok((409, _)) => {
            "That question is over: answered already (elsewhere, perhaps), timed out or cancelled."
                .into()
        }
        Ok((_, reply)) => format!(
            "Not taken: {}",
            sanitize(reply["error"].as_str().unwrap_or("the gateway refused it"))
        ),
        Err(why) => why,
    }
}

/// The waiting `kind` (`question_prompt`, `approval_required`) that `rest` names by its number
/// first, or the only one waiting; with the rest of the line. A first word is a number when
/// more words follow, or when `alone` (an approval's scope is never a number; an answer may be).
fn pick<'a>(
    open: &Open,
    rest: &'a str,
    kind: &str,
    alone: bool,
) -> Result<(String, &'a str), String> {
    let open = open
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let waiting: Vec<&String> = open
        .iter()
        .filter(|(_, event)| event["type"] == kind && event["over"].is_null())
        .map(|(id, _)| id)
        .collect();
    let (first, after) = rest
        .split_once(' ')
        .map_or((rest, ""), |(first, after)| (first, after.trim()));
    if !first.is_empty() && (alone || !after.is_empty()) {
        if waiting.iter().any(|id| *id == first) {
            return Ok((first.to_string(), after));
        }
        let named = open.get(first).filter(|event| event["type"] == kind);
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
    let what = match kind {
        "question_prompt" => "question",
        _ => "approval",
    };
    match waiting.as_slice() {
        [only] => Ok(((*only).clone(), rest)),
        [] => Err(format!("No {what} waits here.")),
        many => Err(format!(
            "Several wait ({}): name one, e.g. /{} {} …",
            many.iter()
                .map(|id| id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            if what == "question" {
                "answer"
            } else {
                "approve"
            },
            many[0]
        )),
    }
}

/// `/answer [ID] …`: each question's answer (`;` between them), an option's number standing
/// for its label; keyed by the question's text as the API wants it.
fn answer(open: &Open, rest: &str) -> Result<Value, String> {
    let (id, typed) = pick(open, rest, "question_prompt", false)?;
    if typed.is_empty() {
        return Err(format!("Say the answer: /answer {id} N"));
    }
    let open = open
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let questions = open
        .get(&id)
        .and_then(|event| event["questions"].as_array())
        .cloned()
        .unwrap_or_default();
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
        if let Some(own) = answer.strip_prefix("Other:") {
            answers.insert(text, json!(own.trim()));
            continue;
        }
        let label = |word: &str| match word.parse::<usize>() {
            Ok(n) if (1..=options.len()).contains(&n) => {
                Ok(options[n - 1]["label"].as_str().unwrap_or(word).to_string())
            }
            Ok(n) => Err(format!(
                "There is no option {n} (1–{}). To answer the number itself, write Other: {n}",
                options.len()
            )),
            Err(_) => Ok(word.to_string()),
        };
        let chosen: Vec<String> = answer
            .split(',')
            .map(|w| label(w.trim()))
            .collect::<Result<_, _>>()?;
        answers.insert(text, json!(chosen.join(", ")));
    }
    Ok(json!({"interactionId": id, "answers": answers}))
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
        json!({"type": "question_prompt", "interactionId": id, "questions": [{"question": "Which database?",
            "options": [{"label": "SQLite"}, {"label": "Postgres"}]}]})
    }

    #[test]
    fn typed_answers_become_the_api_s_with_or_without_the_question_s_number() {
        let open = waiting(&[question("4")]);
        let body = |answers: Value| json!({"interactionId": "4", "answers": answers});
        assert_eq!(
            answer(&open, "4 2").unwrap(),
            body(json!({"Which database?": "Postgres"}))
        );
        assert_eq!(
            answer(&open, "2").unwrap(),
            body(json!({"Which database?": "Postgres"}))
        );
        assert_eq!(
            answer(&open, "DuckDB in memory").unwrap(),
            body(json!({"Which database?": "DuckDB in memory"}))
        );
        assert!(answer(&open, "1; 2").unwrap_err().contains("put ; between"));
        assert_eq!(
            answer(&waiting(&[]), "1").unwrap_err(),
            "No question waits here."
        );
        let two = waiting(&[question("4"), question("5")]);
        assert!(
            answer(&two, "1")
                .unwrap_err()
                .starts_with("Several wait (4, 5)")
        );
        assert_eq!(answer(&two, "5 1").unwrap()["interactionId"], "5");
        two.lock().unwrap().get_mut("5").unwrap()["over"] = json!("answered: SQLite");
        assert_eq!(answer(&two, "1").unwrap()["interactionId"], "4");
        assert_eq!(
            answer(&two, "5 1").unwrap_err(),
            "Question 5 is over (answered: SQLite)."
        );
        // A mistyped number is not sent as the person's own words.
        assert!(
            answer(&open, "3")
                .unwrap_err()
                .starts_with("There is no option 3 (1–2)")
        );
        assert_eq!(
            answer(&open, "Other: 3").unwrap(),
            body(json!({"Which database?": "3"}))
        );
        assert!(
            answer(&open, "9 1")
                .unwrap_err()
                .starts_with("No question 9 waits here (waiting: 4)")
        );
        // A number alone is the answer, even where it is also a question's number.
        let only_two = waiting(&[question("2")]);
        assert_eq!(
            answer(&only_two, "2").unwrap(),
            json!({"interactionId": "2", "answers": {"Which database?": "Postgres"}})
        );
    }

    #[test]
    fn an_approval_is_named_or_the_only_one() {
        let approval = json!({"type": "approval_required", "interactionId": "7"});
        let open = waiting(&[approval, question("4")]);
        let approval = |rest| pick(&open, rest, "approval_required", true);
        assert_eq!(approval(""), Ok(("7".into(), "")));
        assert_eq!(approval("7"), Ok(("7".into(), "")));
        assert_eq!(approval("7 session"), Ok(("7".into(), "session")));
        assert_eq!(
            approval("use make instead"),
            Ok(("7".into(), "use make instead"))
        );
    }
}
