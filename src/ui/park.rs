//! Parked runs (`--on-ask park`) from the person's side: the answer given with `--answer`
//! (plain words or the JSON of `--on-ask stdin`) checked against the question the run waits
//! for before anything runs, and parked runs described and listed (`--pending`, `/pending`).

use serde_json::{Value, json};

use super::ask_json::{request_from_event, response_to};
use crate::interact::numbered::{self, OwnWords};
use crate::interact::{Question, Request};
use crate::store::sessions::Meta;

/// The question a parked run waits for (the first it stopped on), from the event that asked it.
pub(crate) fn parked_request(meta: &Meta) -> Option<Request> {
    let event = meta.parked.as_ref()?.questions.first()?;
    request_from_event(event)
}

/// The JSON answer `text` gives to `request` (checked: it must fit), from plain words or
/// JSON (see [`answer_from_text`]).
pub(crate) fn answer_for(request: &Request, text: &str) -> Result<Value, String> {
    let answer = answer_from_text(request, text)?;
    response_to(request, &answer)
        .map(|_| answer)
        .map_err(|unfit| unfit.message)
}

/// The JSON answer `text` stands for (not yet checked against `request`), from plain words —
/// `once`, `session`, `always`, `no`, `no: REASON` for an approval; a label, an option's
/// number or your own words for one question (labels joined by commas where several may be
/// chosen); `port=8080, tls=yes` for a form (`FIELD=VALUE`, a field by its id or label; a
/// form of one field takes the bare answer) — or from the JSON `--on-ask stdin` reads
/// (`{"answers": [...]}`, `{"approve": "once"}`, `{"input": {...}}`, or just the list of
/// answers).
pub(crate) fn answer_from_text(request: &Request, text: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(object @ Value::Object(_)) => Ok(object),
        Ok(Value::Array(answers)) if matches!(request, Request::Questions(_)) => {
            Ok(json!({ "answers": answers }))
        }
        _ => words_as_answer(request, text.trim()),
    }
}

fn words_as_answer(request: &Request, text: &str) -> Result<Value, String> {
    match request {
        Request::Approval(_) => {
            let (word, reason) = match text.split_once(':') {
                Some((word, reason)) => (word.trim(), reason.trim()),
                None => (text, ""),
            };
            let approve = match word.to_ascii_lowercase().as_str() {
                "once" | "yes" | "y" | "approve" => "once",
                "session" => "session",
                "always" => "always",
                "all_edits" | "all edits" => "all_edits",
                "no" | "n" | "deny" => "no",
                _ => {
                    return Err(format!(
                        "{text:?} does not answer an approval: say once, session, always, no, or no: WHAT TO DO INSTEAD"
                    ));
                }
            };
            Ok(json!({"approve": approve, "reason": reason}))
        }
        Request::Questions(questions) => match questions.as_slice() {
            [question] => Ok(json!({ "answers": [one_question(question, text)?] })),
            _ => Err(format!(
                "{} questions wait for answers: give them as a JSON list in order, e.g. --answer '[\"SQLite\", \"yes\"]'",
                questions.len()
            )),
        },
        Request::Input(form) => Ok(json!({ "input": form.from_words(text)? })),
        Request::Form(_) => Err("a form is answered in its page".into()),
    }
}

/// One question's answer from words: a label (any case), or an option's number standing for
/// its label, a number that is no option refused; several joined by commas where several may
/// be chosen; anything else, or words after `Other:`, the person's own.
fn one_question(question: &Question, text: &str) -> Result<Value, String> {
    if let Some(own) = numbered::own_words(text) {
        return Ok(json!(own));
    }
    let label_of = |word: &str| -> Result<Option<String>, String> {
        let word = word.trim();
        let options = &question.options;
        if let Some(option) = options.iter().find(|o| o.label.eq_ignore_ascii_case(word)) {
            return Ok(Some(option.label.clone()));
        }
        match numbered::option_number(word, options.len(), OwnWords::Written) {
            Some(place) => place.map(|at| Some(options[at].label.clone())),
            None => Ok(None),
        }
    };
    if question.multi_select {
        let labels: Vec<Option<String>> =
            text.split(',').map(label_of).collect::<Result<_, _>>()?;
        if let Some(labels) = labels.into_iter().collect::<Option<Vec<_>>>() {
            return Ok(json!(labels));
        }
    }
    Ok(json!(label_of(text)?.unwrap_or_else(|| text.to_string())))
}

/// One line on what a parked run waits for: "approve run_command: cargo publish".
pub(crate) fn waits_for(meta: &Meta) -> String {
    match parked_request(meta) {
        Some(Request::Approval(approval)) => {
            let detail = approval.detail.lines().next().unwrap_or("");
            format!("approve {}: {detail}", approval.tool)
        }
        Some(Request::Questions(questions)) => {
            let asked: Vec<&str> = questions.iter().map(|q| q.question.as_str()).collect();
            asked.join(" / ")
        }
        Some(Request::Input(form)) => {
            let fields: Vec<&str> = form.fields.iter().map(|f| f.label.as_str()).collect();
            format!("{} ({})", form.prompt, fields.join(", "))
                .trim()
                .to_string()
        }
        _ => "an answer".into(),
    }
}

/// How to answer a parked run, as a command line.
pub(crate) fn how_to_answer(meta: &Meta) -> String {
    let example = match parked_request(meta) {
        Some(Request::Approval(_)) => "once".to_string(),
        Some(Request::Questions(questions)) if questions.len() == 1 => questions[0]
            .options
            .first()
            .map_or("ANSWER".into(), |o| shell_word(&o.label)),
        Some(Request::Input(form)) => {
            let fields: Vec<String> = form.fields.iter().map(|f| format!("{}=…", f.key)).collect();
            shell_word(&fields.join(", "))
        }
        _ => "ANSWER".into(),
    };
    format!("marvin --resume {} --answer {example}", meta.id)
}

/// `text` as one shell word.
fn shell_word(text: &str) -> String {
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.,/".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question_event(multi: bool, count: usize) -> Value {
        let question = json!({
            "header": "Database", "question": "Which database?", "multi_select": multi,
            "options": [{"label": "SQLite", "description": ""}, {"label": "Postgres", "description": "server"}],
        });
        json!({"type": "question", "id": 3, "tool": "ask_user", "questions": vec![question; count]})
    }

    fn approval_event() -> Value {
        json!({
            "type": "approval", "id": 1, "tool": "run_command", "summary": "run a command",
            "detail": "cargo publish", "covers": "this exact command",
            "choices": ["once", "session", "no"],
        })
    }

    fn form_event() -> Value {
        json!({
            "type": "input", "id": 2, "tool": "listen", "prompt": "Where should it listen?",
            "inputSchema": {"type": "form", "fields": [
                {"id": "port", "type": "integer", "label": "Port", "required": true,
                 "minimum": 1024, "maximum": 65535},
                {"id": "tls", "type": "boolean", "label": "TLS", "required": false}]},
        })
    }

    #[test]
    fn words_become_answers_that_fit_the_question() {
        let approval = request_from_event(&approval_event()).unwrap();
        let single = request_from_event(&question_event(false, 1)).unwrap();
        let multi = request_from_event(&question_event(true, 1)).unwrap();
        let two = request_from_event(&question_event(false, 2)).unwrap();
        let form = request_from_event(&form_event()).unwrap();
        let cases: &[(&Request, &str, Result<Value, &str>)] = &[
            (
                &approval,
                "once",
                Ok(json!({"approve": "once", "reason": ""})),
            ),
            (
                &approval,
                "Yes",
                Ok(json!({"approve": "once", "reason": ""})),
            ),
            (
                &approval,
                "session",
                Ok(json!({"approve": "session", "reason": ""})),
            ),
            (
                &approval,
                "no: publish to staging first",
                Ok(json!({"approve": "no", "reason": "publish to staging first"})),
            ),
            (&approval, "all_edits", Err("\"approve\" is one of")),
            (&approval, "maybe", Err("does not answer an approval")),
            (&single, "2", Ok(json!({"answers": ["Postgres"]}))),
            (&single, "sqlite", Ok(json!({"answers": ["SQLite"]}))),
            (&single, "DuckDB", Ok(json!({"answers": ["DuckDB"]}))),
            (
                &single,
                "9",
                Err(
                    "There is no option 9: the options are 1 to 2. To answer 9 in your own words, write Other: 9",
                ),
            ),
            (&single, "Other: 9", Ok(json!({"answers": ["9"]}))),
            (
                &multi,
                "1, 3",
                Err("There is no option 3: the options are 1 to 2."),
            ),
            (&multi, "2", Ok(json!({"answers": [["Postgres"]]}))),
            (
                &multi,
                "SQLite, DuckDB",
                Ok(json!({"answers": ["SQLite, DuckDB"]})),
            ),
            (
                &multi,
                "1, Postgres",
                Ok(json!({"answers": [["SQLite", "Postgres"]]})),
            ),
            (&two, "SQLite", Err("2 questions wait for answers")),
            (
                &two,
                r#"["SQLite", "Postgres"]"#,
                Ok(json!({"answers": ["SQLite", "Postgres"]})),
            ),
            (
                &approval,
                r#"{"approve": "no", "reason": "later"}"#,
                Ok(json!({"approve": "no", "reason": "later"})),
            ),
            (&single, "", Err("is empty")),
            (
                &approval,
                "always",
                Err("\"approve\" is one of \"once\", \"session\" or \"no\""),
            ),
            (
                &form,
                "port=8080, TLS=yes",
                Ok(json!({"input": {"port": "8080", "tls": "yes"}})),
            ),
            (
                &form,
                r#"{"input": {"port": 8443}}"#,
                Ok(json!({"input": {"port": 8443}})),
            ),
            (&form, "port=80", Err("Port: ")),
            (&form, "color=red", Err("names no field")),
        ];
        for (request, text, expected) in cases {
            match (answer_for(request, text), expected) {
                (Ok(got), Ok(expected)) => assert_eq!(&got, expected, "{text}"),
                (Err(why), Err(expected)) => assert!(why.contains(expected), "{text}: {why}"),
                (got, expected) => panic!("{text}: {got:?} vs {expected:?}"),
            }
        }
    }

    #[test]
    fn a_parked_run_says_what_it_waits_for_and_how_to_answer() {
        let mut meta = Meta {
            id: "ab12cd34".into(),
            ..Meta::default()
        };
        meta.parked = Some(crate::store::sessions::Parked {
            calls: vec!["call_1".into()],
            questions: vec![approval_event()],
            parked_at: String::new(),
            expires_at: String::new(),
            permission_mode: "default".into(),
            coding_mode: true,
            phone: None,
        });
        assert_eq!(waits_for(&meta), "approve run_command: cargo publish");
        assert_eq!(
            how_to_answer(&meta),
            "marvin --resume ab12cd34 --answer once"
        );
        meta.parked.as_mut().unwrap().questions = vec![question_event(false, 1)];
        assert_eq!(waits_for(&meta), "Which database?");
        assert_eq!(
            how_to_answer(&meta),
            "marvin --resume ab12cd34 --answer SQLite"
        );
        meta.parked.as_mut().unwrap().questions = vec![form_event()];
        assert_eq!(waits_for(&meta), "Where should it listen? (Port, TLS)");
        assert_eq!(
            how_to_answer(&meta),
            "marvin --resume ab12cd34 --answer 'port=…, tls=…'"
        );
    }
}
