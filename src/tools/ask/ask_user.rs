//! `ask_user`: one to four multiple-choice questions to the person at the terminal, in the
//! AskUserQuestion shape (seed 001). "Other" with free text is always offered. The answers go
//! back as JSON plus a one-line summary; a question left unanswered stays open and its late
//! answer reaches the model at the start of a later turn.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::interact::{
    Answer, Ask, Choice, Hooks, Outcome, Presentation, Question, Request, Response,
};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const QUESTION_SCHEMA: &str = r#"{"type": "object", "properties": {
    "header": {"type": "string", "description": "A short tag for the question, at most 12 characters"},
    "question": {"type": "string", "description": "The full question"},
    "options": {"type": "array", "description": "2 to 4 choices", "items": {"type": "object", "properties": {
        "label": {"type": "string"}, "description": {"type": "string"}}, "required": ["label", "description"]}},
    "multiSelect": {"type": "boolean", "description": "Several options may be chosen"}},
  "required": ["header", "question", "options", "multiSelect"]}"#;

const PARAMS: &[Param] = &[
    Param::required(
        "questions",
        Kind::ObjectList(QUESTION_SCHEMA),
        "1 to 4 questions; an \"Other\" answer with free text is always offered",
    ),
    Param::optional(
        "timeout_seconds",
        Kind::Integer,
        "How long to wait for an answer before going on (default 600)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "ask",
    about: "asking the person a multiple-choice question",
    words: &[
        "ask me",
        "choose",
        "choice",
        "options",
        "which one",
        "help me decide",
    ],
    asks: &[
        "help me choose between options",
        "ask me which one I prefer",
        "let me pick from a few choices",
        "give me options to decide",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![ToolDef::build("ask_user")
        .describe("Ask the user 1-4 multiple-choice questions when you need a decision or preference to go on. Returns their answers as JSON.")
        .offered(Offered::Everywhere)
        .params(PARAMS)
        .example(r#"{"questions": [{"header": "Database", "question": "Which database should the app use?", "options": [{"label": "SQLite", "description": "one file, no server"}, {"label": "PostgreSQL", "description": "a server, scales further"}], "multiSelect": false}]}"#)
        .handler(ask_user)]
}

#[derive(Deserialize)]
struct Args {
    questions: Vec<Value>,
    timeout_seconds: Option<i64>,
}

fn ask_user(args: Args, ctx: &ToolContext) -> Result<String, String> {
    let questions = parse_questions(&args.questions)?;
    let seconds = args.timeout_seconds.unwrap_or(600);
    if !(1..=3600).contains(&seconds) {
        return Err(format!(
            "timeout_seconds must be between 1 and 3600, not {seconds}."
        ));
    }
    let timeout = Duration::from_secs(seconds as u64);
    let request = Request::Questions(questions.clone());
    // Shared with the late answer: a question asked again alone is answered late in its place.
    let kept = Arc::new(Mutex::new(Kept::new(&questions)));
    let mut on_response = |response: Response| match response {
        Response::Answers(answers) => kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(answers),
        _ => Outcome::Complete(Err("The user gave no answer.".into())),
    };
    // The front-end may wait less or more than asked (marvin serve's MARVIN_QUESTION_TIMEOUT):
    // the model is told how long it really waited.
    let asked = std::time::Instant::now();
    let mut on_timeout = || {
        let waited = asked.elapsed().as_secs().max(1);
        Outcome::Pending(format!(
            "The user has not answered yet (waited {waited}s). The question stays open: their answer will reach you as a message at the start of a later turn. Carry on with what does not depend on it, or end your turn."
        ))
    };
    let late = Arc::clone(&kept);
    let follow_up: crate::interact::FollowUp =
        Box::new(move |response: &Response| match response {
            Response::Answers(answers) => format!(
                "(Late answer to your earlier ask_user question)\n{}",
                late.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .late(answers.clone())
            ),
            _ => {
                "(The user dismissed your earlier ask_user question without answering.)".to_string()
            }
        });
    // The question is the whole point of the call: a block of its own in the conversation
    // (seed 003's questionnaire), which shows the answers once given.
    let ask = Ask {
        presentation: Presentation::Questionnaire,
        ..Ask::new(request, timeout)
    };
    ctx.request_interaction(
        ask,
        Hooks {
            on_response: &mut on_response,
            on_timeout: &mut on_timeout,
            on_cancel: &mut || {},
            follow_up: Some(follow_up),
        },
    )
}

/// The answers given so far. An empty "Other" is asked again, that question alone: the
/// answers to the others are kept.
struct Kept {
    questions: Vec<Question>,
    answers: Vec<Option<Answer>>,
}

impl Kept {
    fn new(questions: &[Question]) -> Self {
        Self {
            questions: questions.to_vec(),
            answers: vec![None; questions.len()],
        }
    }

    /// Takes the answers to the questions still open, in their order; asks again what is
    /// still not answered (with what was entered chosen again), or completes with every
    /// answer.
    fn take(&mut self, answers: Vec<Answer>) -> Outcome {
        let mut entered = vec![None; self.questions.len()];
        let open = (0..self.questions.len()).filter(|i| self.answers[*i].is_none());
        for (i, answer) in open.collect::<Vec<_>>().into_iter().zip(answers) {
            match answer.leaves_other_empty() {
                true => entered[i] = Some(answer),
                false => self.answers[i] = Some(answer),
            }
        }
        let again: Vec<Question> = (0..self.questions.len())
            .filter(|i| self.answers[*i].is_none())
            .map(|i| Question {
                initial: entered[i].take(),
                ..self.questions[i].clone()
            })
            .collect();
        if !again.is_empty() {
            return Outcome::Reprompt(
                Request::Questions(again),
                crate::interact::EMPTY_OTHER.into(),
            );
        }
        let answers: Vec<Answer> = self.answers.iter().flatten().cloned().collect();
        Outcome::Complete(Ok(render(&self.questions, &answers)))
    }
}

impl Kept {
    /// A late answer to the questions still open, rendered with those answered before; the
    /// ones still without an answer are named.
    fn late(&mut self, answers: Vec<Answer>) -> String {
        let _ = self.take(answers);
        let (questions, answers): (Vec<Question>, Vec<Answer>) = self
            .questions
            .iter()
            .zip(&self.answers)
            .filter_map(|(q, a)| Some((q.clone(), a.clone()?)))
            .unzip();
        let mut text = render(&questions, &answers);
        let missing: Vec<&str> = self
            .questions
            .iter()
            .zip(&self.answers)
            .filter(|(_, a)| a.is_none())
            .map(|(q, _)| q.header.as_str())
            .collect();
        if !missing.is_empty() {
            text.push_str(&format!("\nNot answered: {}", missing.join(", ")));
        }
        text
    }
}

/// Checks the questions, naming the question and field of every problem.
pub(crate) fn parse_questions(raw: &[Value]) -> Result<Vec<Question>, String> {
    if raw.is_empty() || raw.len() > 4 {
        return Err(format!(
            "questions: give 1 to 4 questions, not {}.",
            raw.len()
        ));
    }
    raw.iter()
        .enumerate()
        .map(|(i, value)| parse_question(i, value))
        .collect()
}

fn parse_question(i: usize, value: &Value) -> Result<Question, String> {
    let field = |name: &str| format!("questions[{i}].{name}");
    let text = |name: &str| -> Result<String, String> {
        match value.get(name) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            Some(Value::String(_)) => Err(format!("{}: must not be empty.", field(name))),
            Some(other) => Err(format!("{}: expected a string, got {other}.", field(name))),
            None => Err(format!("{}: missing.", field(name))),
        }
    };
    let header = text("header")?;
    if header.chars().count() > 12 {
        return Err(format!(
            "{}: at most 12 characters, but \"{header}\" has {}.",
            field("header"),
            header.chars().count()
        ));
    }
    let question = text("question")?;
    let options = value
        .get("options")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{}: missing, or not a list.", field("options")))?;
    if !(2..=4).contains(&options.len()) {
        return Err(format!(
            "{}: give 2 to 4 options, not {} (\"Other\" is added by itself).",
            field("options"),
            options.len()
        ));
    }
    let mut choices: Vec<Choice> = Vec::new();
    for (j, option) in options.iter().enumerate() {
        let label = option
            .get("label")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|l| !l.is_empty());
        let label =
            label.ok_or_else(|| format!("questions[{i}].options[{j}].label: missing or empty."))?;
        let description = option.get("description").and_then(Value::as_str);
        let description = description.ok_or_else(|| format!("questions[{i}].options[{j}].description: missing (it may be empty, but it must be there)."))?;
        if choices.iter().any(|c| c.label == label) {
            return Err(format!(
                "questions[{i}].options[{j}].label: \"{label}\" appears twice."
            ));
        }
        choices.push(Choice {
            label: label.to_string(),
            description: description.trim().to_string(),
        });
    }
    if let Some(key) = misspelt_multi_select(value) {
        return Err(format!(
            "{}: the key is \"multiSelect\" (true where several options may be chosen), not \"{key}\"; ask again with \"multiSelect\".",
            field(key)
        ));
    }
    let multi_select = match value.get("multiSelect") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "{}: expected true or false, got {other}.",
                field("multiSelect")
            ));
        }
    };
    Ok(Question {
        header,
        question,
        options: choices,
        multi_select,
        initial: None,
    })
}

/// A key of `question` that spells multiSelect another way (`multi_select`, `multiselect`,
/// `multi-select`): taken silently it would show a single choice where several were meant.
fn misspelt_multi_select(question: &Value) -> Option<&str> {
    let keys = question.as_object()?.keys();
    keys.map(String::as_str).find(|key| {
        let bare: String = key.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        *key != "multiSelect" && bare.eq_ignore_ascii_case("multiselect")
    })
}

/// `{"answers": {...}}` and a one-line summary.
fn render(questions: &[Question], answers: &[Answer]) -> String {
    format!(
        "{}\nThe user answered: {}",
        answers_json(questions, answers),
        summary(questions, answers)
    )
}

/// `{"answers": {question: label | [labels] | "Other: text"}}`.
pub(crate) fn answers_json(questions: &[Question], answers: &[Answer]) -> Value {
    let mut by_question = Map::new();
    for (question, answer) in questions.iter().zip(answers) {
        by_question.insert(question.question.clone(), answer_value(answer));
    }
    json!({"answers": by_question})
}

fn answer_value(answer: &Answer) -> Value {
    match answer {
        Answer::One(label) => json!(label),
        Answer::Many(labels) => json!(labels),
        Answer::Other(text) => json!(format!("Other: {text}")),
    }
}

fn summary(questions: &[Question], answers: &[Answer]) -> String {
    let shown: Vec<String> = questions
        .iter()
        .zip(answers)
        .map(|(q, a)| match a {
            Answer::One(label) => format!("{}: {label}", q.header),
            Answer::Many(labels) => format!("{}: {}", q.header, labels.join(", ")),
            Answer::Other(text) => format!("{}: Other: {text}", q.header),
        })
        .collect();
    shown.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(header: &str, options: Value) -> Value {
        json!({"header": header, "question": "Pick?", "options": options, "multiSelect": false})
    }

    fn two_options() -> Value {
        json!([{"label": "A", "description": "first"}, {"label": "B", "description": ""}])
    }

    #[test]
    fn schema_errors_name_the_question_and_field() {
        let cases: Vec<(Vec<Value>, &str)> = vec![
            (vec![], "questions: give 1 to 4 questions, not 0."),
            (
                vec![one("A very long header", two_options())],
                "questions[0].header: at most 12 characters",
            ),
            (
                vec![one("Ok", two_options()), one("", two_options())],
                "questions[1].header: must not be empty.",
            ),
            (
                vec![one("Ok", json!([{"label": "A", "description": "x"}]))],
                "questions[0].options: give 2 to 4 options, not 1",
            ),
            (
                vec![one(
                    "Ok",
                    json!([{"label": "A"}, {"label": "B", "description": ""}]),
                )],
                "questions[0].options[0].description: missing",
            ),
            (
                vec![one(
                    "Ok",
                    json!([{"label": "A", "description": ""}, {"label": "A", "description": ""}]),
                )],
                "questions[0].options[1].label: \"A\" appears twice.",
            ),
            (
                vec![
                    json!({"header": "Ok", "question": "Q", "options": two_options(), "multiSelect": "yes"}),
                ],
                "questions[0].multiSelect: expected true or false",
            ),
            (
                vec![
                    json!({"header": "Ok", "question": "Q", "options": two_options(), "multi_select": true}),
                ],
                "questions[0].multi_select: the key is \"multiSelect\" (true where several options may be chosen), not \"multi_select\"; ask again with \"multiSelect\".",
            ),
            (
                vec![
                    json!({"header": "Ok", "question": "Q", "options": two_options(), "MultiSelect": true}),
                ],
                "questions[0].MultiSelect: the key is \"multiSelect\"",
            ),
        ];
        for (questions, expected) in cases {
            let error = parse_questions(&questions).unwrap_err();
            assert!(error.starts_with(expected), "{error}");
        }
    }

    #[test]
    fn answers_render_as_json_and_a_summary() {
        let questions = parse_questions(&[
            json!({"header": "Db", "question": "Which database?", "options": two_options(), "multiSelect": false}),
            json!({"header": "Tests", "question": "Which tests?", "options": two_options(), "multiSelect": true}),
        ])
        .unwrap();
        let text = render(
            &questions,
            &[
                Answer::Other("DuckDB".into()),
                Answer::Many(vec!["A".into(), "B".into()]),
            ],
        );
        let (json_line, summary) = text.split_once('\n').unwrap();
        let value: Value = serde_json::from_str(json_line).unwrap();
        assert_eq!(
            value,
            json!({"answers": {"Which database?": "Other: DuckDB", "Which tests?": ["A", "B"]}})
        );
        assert_eq!(summary, "The user answered: Db: Other: DuckDB; Tests: A, B");
    }

    #[test]
    fn a_late_answer_to_a_question_asked_again_goes_to_that_question_with_the_others_kept() {
        let questions = parse_questions(&[
            json!({"header": "Db", "question": "Which database?", "options": two_options(), "multiSelect": false}),
            json!({"header": "Name", "question": "Which name?", "options": two_options(), "multiSelect": false}),
        ])
        .unwrap();
        let mut kept = Kept::new(&questions);
        let _ = kept.take(vec![Answer::One("B".into()), Answer::Other(String::new())]);
        // The question asked again alone timed out; its answer comes late, alone.
        let late = kept.late(vec![Answer::Other("gamma".into())]);
        assert!(
            late.starts_with(r#"{"answers":{"Which database?":"B","Which name?":"Other: gamma"}}"#),
            "{late}"
        );
        let mut unanswered = Kept::new(&questions);
        let late = unanswered.late(vec![Answer::One("A".into()), Answer::Other(" ".into())]);
        assert!(late.ends_with("\nNot answered: Name"), "{late}");
    }

    #[test]
    fn an_empty_other_asks_that_question_again_and_keeps_the_other_answers() {
        let questions = parse_questions(&[
            json!({"header": "Db", "question": "Which database?", "options": two_options(), "multiSelect": false}),
            json!({"header": "Name", "question": "Which name?", "options": two_options(), "multiSelect": false}),
            json!({"header": "Tests", "question": "Which tests?", "options": two_options(), "multiSelect": true}),
        ])
        .unwrap();
        let mut kept = Kept::new(&questions);
        let asked_again = |outcome: Outcome| match outcome {
            Outcome::Reprompt(Request::Questions(again), error) => {
                assert!(error.starts_with("Please type an answer after choosing Other"));
                again
                    .into_iter()
                    .map(|q| (q.header, q.initial))
                    .collect::<Vec<_>>()
            }
            _ => panic!("expected the question again"),
        };
        let first = kept.take(vec![
            Answer::One("B".into()),
            Answer::Other("  ".into()),
            Answer::Many(vec!["A".into(), "Other:".into()]),
        ]);
        // Asked again with what was chosen, so the person only types the missing words.
        assert_eq!(
            asked_again(first),
            [
                ("Name".to_string(), Some(Answer::Other("  ".into()))),
                (
                    "Tests".to_string(),
                    Some(Answer::Many(vec!["A".into(), "Other:".into()]))
                ),
            ]
        );
        let second = kept.take(vec![
            Answer::Other(String::new()),
            Answer::Many(vec!["A".into()]),
        ]);
        assert_eq!(
            asked_again(second),
            [("Name".to_string(), Some(Answer::Other(String::new())))]
        );
        let Outcome::Complete(Ok(text)) = kept.take(vec![Answer::Other("Zed".into())]) else {
            panic!("expected every answer");
        };
        let value: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(
            value,
            json!({"answers": {"Which database?": "B", "Which name?": "Other: Zed", "Which tests?": ["A"]}})
        );
    }

    #[test]
    fn without_a_terminal_the_model_is_told_to_ask_in_plain_text() {
        let ctx = ToolContext::new(std::env::temp_dir());
        let error = ask_user(
            Args {
                questions: vec![one("Ok", two_options())],
                timeout_seconds: None,
            },
            &ctx,
        )
        .unwrap_err();
        assert_eq!(error, crate::interact::NO_UI);
    }
}
