//! Properties of the interview's questions schema: any JSON is read, or refused without a panic
//! in a message no longer than what it quotes; what is read keeps the promises the form and the
//! tool rely on, and reads again to itself from what is sent to the page, no larger than what
//! was given.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::questions::{Interview, Kind, parse};
use crate::props::{config, json as any_json, leaf, line};

/// The keys the schema reads, anywhere in a questions file.
const KEYS: &[&str] = &[
    "title",
    "description",
    "questions",
    "id",
    "type",
    "question",
    "options",
    "label",
    "recommended",
    "conviction",
    "weight",
    "context",
    "content",
    "codeBlock",
    "code",
    "source",
    "lang",
    "lines",
    "highlights",
    "showSource",
    "media",
    "src",
    "alt",
    "table",
    "headers",
    "rows",
    "chart",
    "data",
    "datasets",
    "labels",
    "position",
    "optional",
];

fn option() -> impl Strategy<Value = Value> {
    let label = prop::sample::select(&["A", "B", "C", " A ", ""][..]);
    prop_oneof![
        3 => label.clone().prop_map(Value::from),
        2 => (label, prop::option::of(line(8)), prop::option::of(any::<bool>()),
              prop::option::of(prop::sample::select(&["strong", "slight", "sure"][..])))
            .prop_map(|(label, description, recommended, conviction)| {
                json!({"label": label, "description": description, "recommended": recommended,
                       "conviction": conviction})
            }),
        1 => leaf(),
    ]
}

/// A question close to right: every field in a form the schema reads, or near it.
fn question() -> impl Strategy<Value = Value> {
    let kind =
        prop::sample::select(&["single", "multi", "text", "image", "info", "select", ""][..]);
    let content = prop_oneof![
        Just(json!({"source": "let x = 1;", "lang": "rust", "lines": [3, 4], "highlights": [1]})),
        Just(json!({"source": "# Title", "lang": "md", "showSource": true})),
        any_json(KEYS, 2),
    ];
    let media = prop_oneof![
        Just(json!([{"type": "table", "table": {"headers": ["a", "b"], "rows": [["1", "2"]]}}])),
        Just(json!([{"type": "mermaid", "mermaid": "graph TD; A-->B"}])),
        any_json(KEYS, 3),
    ];
    (
        (
            prop::sample::select(&["db", "auth", "db ", "", "x"][..]),
            kind,
            line(12),
        ),
        prop::option::of(prop::collection::vec(option(), 0..5)),
        prop::option::of(prop_oneof![
            option(),
            prop::collection::vec(option(), 0..3).prop_map(Value::Array)
        ]),
        prop::option::of(prop::sample::select(
            &["strong", "slight", "critical", "minor"][..],
        )),
        (
            prop::option::of(content),
            prop::option::of(media),
            prop::option::of(leaf()),
        ),
    )
        .prop_map(
            |((id, kind, text), options, recommended, word, (content, media, optional))| {
                let mut question = json!({"id": id, "type": kind, "question": text});
                let fields = [
                    ("options", options.map(Value::Array)),
                    ("recommended", recommended),
                    ("conviction", word.map(Value::from)),
                    ("weight", word.map(Value::from)),
                    ("content", content),
                    ("media", media),
                    ("optional", optional),
                ];
                for (key, value) in fields {
                    if let Some(value) = value {
                        question[key] = value;
                    }
                }
                question
            },
        )
}

fn questions_file() -> impl Strategy<Value = Value> {
    let file = (
        prop::option::of(line(10)),
        prop::collection::vec(question(), 0..5),
    )
        .prop_map(|(title, questions)| json!({"title": title, "questions": questions}));
    prop_oneof![4 => file, 1 => any_json(KEYS, 5)]
}

/// The promises the page, the terminal and the answer checks rely on.
fn check(interview: &Interview) -> Result<(), TestCaseError> {
    prop_assert!(!interview.questions.is_empty());
    for (i, q) in interview.questions.iter().enumerate() {
        prop_assert!(!q.id.is_empty() && q.id == q.id.trim());
        prop_assert!(
            interview.questions[..i]
                .iter()
                .all(|other| other.id != q.id)
        );
        let choice = matches!(q.kind, Kind::Single | Kind::Multi);
        prop_assert_eq!(choice, !q.options.is_empty());
        for (j, option) in q.options.iter().enumerate() {
            prop_assert!(!option.label.is_empty());
            prop_assert!(
                q.options[..j]
                    .iter()
                    .all(|other| other.label != option.label)
            );
        }
        for pick in &q.recommended {
            prop_assert!(
                q.options.iter().any(|o| &o.label == pick),
                "{} recommended",
                pick
            );
        }
        prop_assert!(q.kind != Kind::Single || q.recommended.len() <= 1);
        prop_assert!(q.conviction.is_none() || !q.recommended.is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn any_file_is_read_keeping_its_promises_or_refused_naming_a_field(file in questions_file()) {
        match parse(&file) {
            Ok(interview) => {
                check(&interview)?;
                let sent = serde_json::to_value(&interview)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert!(sent.to_string().len() <= 2 * file.to_string().len() + 64);
                let again = parse(&sent).map_err(|e| TestCaseError::fail(format!("{e}: {sent}")))?;
                prop_assert_eq!(again.questions, interview.questions);
            }
            Err(why) => {
                prop_assert!(!why.is_empty());
                prop_assert!(why.len() <= 2 * file.to_string().len() + 300, "{}", why);
            }
        }
    }
}
