//! The questions schema, table-driven from pi-interview-tool's own schema tests
//! (schema.test.ts) where they apply to Marvin, and from Marvin's own rules where it differs
//! (the legacy `codeBlock` is read, not refused; `optional`; file checks of its own).

use serde_json::{Value, json};

use super::content::Content;
use super::media::{MediaBody, Position};
use super::questions::{Conviction, FormQuestion, Kind, Weight, parse};

/// The reference's `valid()`: one single-select question, with `extra` fields over it.
fn single(extra: Value) -> Value {
    with(
        json!({"id": "q1", "type": "single", "question": "Pick one?", "options": ["A", "B"]}),
        extra,
    )
}

/// The reference's `validMulti()`.
fn multi(extra: Value) -> Value {
    with(
        json!({"id": "q1", "type": "multi", "question": "Pick many?", "options": ["X", "Y", "Z"]}),
        extra,
    )
}

fn with(mut question: Value, extra: Value) -> Value {
    for (key, value) in extra.as_object().unwrap() {
        question[key] = value.clone();
    }
    json!({"questions": [question]})
}

fn one(question: Value) -> Value {
    json!({"questions": [question]})
}

fn first(data: Value) -> FormQuestion {
    parse(&data)
        .unwrap_or_else(|e| panic!("{data}: {e}"))
        .questions
        .remove(0)
}

#[test]
fn files_the_reference_refuses_are_refused_naming_the_question_and_field() {
    let cases: Vec<(&str, Value, &str)> = vec![
        ("array at root", json!([{"id": "q1"}]), "not an array"),
        ("null", Value::Null, "must be a JSON object"),
        ("string", json!("hello"), "must be a JSON object"),
        (
            "missing questions",
            json!({"title": "Test"}),
            "questions: must be a non-empty list",
        ),
        (
            "empty questions",
            json!({"questions": []}),
            "questions: must be a non-empty list",
        ),
        (
            "a question without its list",
            json!({"label": "Test", "description": "Hi"}),
            "Did you mean to wrap",
        ),
        (
            "non-string title",
            json!({"title": 123, "questions": [{"id": "q1", "type": "text", "question": "?"}]}),
            "title: expected a string",
        ),
        (
            "non-string description",
            json!({"description": true, "questions": [{"id": "q1", "type": "text", "question": "?"}]}),
            "description: expected a string",
        ),
        (
            "missing id",
            one(json!({"type": "text", "question": "?"})),
            "questions[0].id: missing",
        ),
        (
            "invalid type",
            one(json!({"id": "q1", "type": "dropdown", "question": "?"})),
            "Question \"q1\": type: must be one of single, multi, text, image, info",
        ),
        (
            "select hints single",
            one(json!({"id": "q1", "type": "select", "question": "?"})),
            "use \"single\"",
        ),
        (
            "missing question text",
            one(json!({"id": "q1", "type": "text"})),
            "Question \"q1\": question: the question text is missing",
        ),
        (
            "label hints question",
            one(json!({"id": "q1", "type": "text", "label": "Name?"})),
            "use \"question\" for the question's text",
        ),
        (
            "non-string context",
            single(json!({"context": 123})),
            "Question \"q1\": context: expected a string",
        ),
        (
            "duplicate ids",
            json!({"questions": [{"id": "q1", "type": "text", "question": "A?"}, {"id": "q1", "type": "text", "question": "B?"}]}),
            "questions[1].id: \"q1\" is used twice",
        ),
        (
            "single without options",
            one(json!({"id": "q1", "type": "single", "question": "?"})),
            "Question \"q1\": options: required for type \"single\"",
        ),
        (
            "multi without options",
            one(json!({"id": "q1", "type": "multi", "question": "?"})),
            "options: required for type \"multi\"",
        ),
        (
            "options on text",
            one(json!({"id": "q1", "type": "text", "question": "?", "options": ["A"]})),
            "options: not allowed for type \"text\"",
        ),
        (
            "options on image",
            one(json!({"id": "q1", "type": "image", "question": "?", "options": ["A"]})),
            "options: not allowed for type \"image\"",
        ),
        (
            "options on info",
            one(json!({"id": "q1", "type": "info", "question": "?", "options": ["A"]})),
            "options: not allowed for type \"info\"",
        ),
        (
            "empty options",
            single(json!({"options": []})),
            "non-empty list",
        ),
        (
            "rich option without label",
            single(json!({"options": [{"content": {"source": "x"}}]})),
            "Question \"q1\": options[0]: must have a \"label\" string",
        ),
        (
            "number as option",
            single(json!({"options": [42]})),
            "options[0]: expected a string or {label, description}",
        ),
        (
            "same label twice",
            multi(json!({"options": ["X", "X"]})),
            "options[1]: \"X\" appears twice",
        ),
        (
            "recommended not in options (single)",
            single(json!({"recommended": "C"})),
            "recommended: \"C\" is not one of the options",
        ),
        (
            "recommended not in options (multi)",
            multi(json!({"recommended": ["X", "W"]})),
            "recommended: \"W\" is not one of the options",
        ),
        (
            "recommended on text",
            one(json!({"id": "q1", "type": "text", "question": "?", "recommended": "A"})),
            "recommended: not allowed for type \"text\"",
        ),
        (
            "recommended on image",
            one(json!({"id": "q1", "type": "image", "question": "?", "recommended": "A"})),
            "recommended: not allowed for type \"image\"",
        ),
        (
            "recommended on info",
            one(json!({"id": "q1", "type": "info", "question": "?", "recommended": "A"})),
            "recommended: not allowed for type \"info\"",
        ),
        (
            "two recommended on single",
            single(json!({"recommended": ["A", "B"]})),
            "recommended: must be one option label for single-select",
        ),
        (
            "two option flags on single",
            single(
                json!({"options": [{"label": "A", "recommended": true}, {"label": "B", "recommended": true}]}),
            ),
            "exactly one option must be recommended for single-select",
        ),
        (
            "question and option recommendations",
            single(
                json!({"recommended": "A", "options": [{"label": "A", "recommended": true}, {"label": "B"}]}),
            ),
            "use either question-level recommended/conviction or option-level recommended flags, not both",
        ),
        (
            "conviction without recommended",
            single(json!({"conviction": "strong"})),
            "Question \"q1\": conviction: requires recommended",
        ),
        (
            "invalid conviction",
            single(json!({"recommended": "A", "conviction": "high"})),
            "conviction: must be \"strong\" or \"slight\"",
        ),
        (
            "non-string conviction",
            single(json!({"recommended": "A", "conviction": true})),
            "conviction: must be \"strong\" or \"slight\"",
        ),
        (
            "option conviction without recommended",
            single(json!({"options": [{"label": "A", "conviction": "strong"}, {"label": "B"}]})),
            "options[0] (\"A\"): conviction requires \"recommended\": true",
        ),
        (
            "mixed option convictions",
            multi(
                json!({"options": [{"label": "X", "recommended": true, "conviction": "strong"}, {"label": "Y"}, {"label": "Z", "recommended": true, "conviction": "slight"}]}),
            ),
            "recommended options must use the same conviction",
        ),
        (
            "invalid weight",
            single(json!({"weight": "high"})),
            "Question \"q1\": weight: must be \"critical\" or \"minor\"",
        ),
        (
            "non-string weight",
            single(json!({"weight": 1})),
            "weight: must be \"critical\" or \"minor\"",
        ),
        (
            "invalid media type",
            single(json!({"media": {"type": "video"}})),
            "Question \"q1\": media.type: must be one of image, table, chart, mermaid, html",
        ),
        (
            "image without src",
            single(json!({"media": {"type": "image"}})),
            "media.src: required",
        ),
        (
            "chart without chart",
            single(json!({"media": {"type": "chart"}})),
            "media.chart: required",
        ),
        (
            "chart without type",
            single(json!({"media": {"type": "chart", "chart": {"data": {}}}})),
            "media.chart.type: must be a string",
        ),
        (
            "chart without data",
            single(json!({"media": {"type": "chart", "chart": {"type": "bar"}}})),
            "media.chart.data: must be an object",
        ),
        (
            "chart with a word for a number",
            single(
                json!({"media": {"type": "chart", "chart": {"type": "bar", "data": {"datasets": [{"data": [1, "two"]}]}}}}),
            ),
            "media.chart.data.datasets[0].data[1]: must be a number",
        ),
        (
            "mermaid without source",
            single(json!({"media": {"type": "mermaid"}})),
            "media.mermaid: required",
        ),
        (
            "table without table",
            single(json!({"media": {"type": "table"}})),
            "media.table: required",
        ),
        (
            "table without headers",
            single(json!({"media": {"type": "table", "table": {"rows": []}}})),
            "media.table.headers: must be an array",
        ),
        (
            "table without rows",
            single(json!({"media": {"type": "table", "table": {"headers": ["A"]}}})),
            "media.table.rows: must be an array",
        ),
        (
            "table row highlight past the end",
            single(
                json!({"media": {"type": "table", "table": {"headers": ["A"], "rows": [["1"]], "highlights": [1]}}}),
            ),
            "media.table.highlights: must be row numbers from 0 to 0",
        ),
        (
            "html without html",
            single(json!({"media": {"type": "html"}})),
            "media.html: required",
        ),
        (
            "invalid position",
            single(json!({"media": {"type": "image", "src": "/a.png", "position": "left"}})),
            "media.position: must be one of above, below, side",
        ),
        (
            "media as a word",
            single(json!({"media": "image"})),
            "media: must be an object",
        ),
        (
            "second media item wrong",
            single(
                json!({"media": [{"type": "mermaid", "mermaid": "graph LR"}, {"type": "image"}]}),
            ),
            "Question \"q1\": media[1].src: required",
        ),
        (
            "content without source",
            single(json!({"content": {"lang": "ts"}})),
            "Question \"q1\": content.source: must be a string",
        ),
        (
            "non-string content.lang",
            single(json!({"content": {"source": "x", "lang": 42}})),
            "content.lang: must be a string",
        ),
        (
            "non-number highlights",
            single(json!({"content": {"source": "x", "lang": "ts", "highlights": ["a"]}})),
            "content.highlights: must be an array of numbers",
        ),
        (
            "highlight past the end",
            single(json!({"content": {"source": "a\nb", "highlights": [3]}})),
            "content.highlights: line 3 is past the end of the source (2 lines)",
        ),
        (
            "markdown with lines",
            single(json!({"content": {"source": "# Heading", "lang": "md", "lines": "1-3"}})),
            "content.lines: not allowed for markdown content",
        ),
        (
            "markdown with highlights",
            single(json!({"content": {"source": "# Heading", "lang": "md", "highlights": [1]}})),
            "content.highlights: not allowed for markdown content",
        ),
        (
            "showSource on code",
            single(json!({"content": {"source": "const x = 1", "lang": "ts", "showSource": true}})),
            "content.showSource: only valid when lang is \"md\" or \"markdown\"",
        ),
        (
            "a backwards line range",
            single(json!({"content": {"source": "x", "lines": "12-10"}})),
            "content.lines: must be a line range such as \"10-12\"",
        ),
        (
            "content and codeBlock",
            single(json!({"content": {"source": "x"}, "codeBlock": {"code": "y"}})),
            "give \"content\" or the legacy \"codeBlock\", not both",
        ),
        (
            "codeBlock without code",
            single(json!({"codeBlock": {"lang": "ts"}})),
            "Question \"q1\": codeBlock.code: must be a string",
        ),
        (
            "optional not a boolean",
            single(json!({"optional": "yes"})),
            "Question \"q1\": optional: expected true or false",
        ),
    ];
    for (name, data, expected) in cases {
        match parse(&data) {
            Ok(_) => panic!("{name}: accepted {data}"),
            Err(error) => assert!(error.contains(expected), "{name}: {error}"),
        }
    }
}

#[test]
fn files_the_reference_accepts_are_read_as_it_reads_them() {
    type Check = fn(&FormQuestion);
    let cases: Vec<(&str, Value, Check)> = vec![
        ("minimal single", single(json!({})), |q| {
            assert_eq!(q.kind, Kind::Single)
        }),
        ("multi", multi(json!({})), |q| {
            assert_eq!(q.kind, Kind::Multi)
        }),
        (
            "text",
            one(json!({"id": "q1", "type": "text", "question": "Describe?"})),
            |q| assert_eq!(q.kind, Kind::Text),
        ),
        (
            "image",
            one(json!({"id": "q1", "type": "image", "question": "Upload?"})),
            |q| assert_eq!(q.kind, Kind::Image),
        ),
        (
            "info",
            one(json!({"id": "q1", "type": "info", "question": "Context here"})),
            |q| assert!(!q.required()),
        ),
        (
            "rich options with content",
            single(
                json!({"options": [{"label": "A", "content": {"source": "const a = 1;", "lang": "ts"}}, {"label": "B"}]}),
            ),
            |q| {
                assert_eq!(q.options.len(), 2);
                assert_eq!(
                    q.options[0].content.as_ref().unwrap().source,
                    "const a = 1;"
                );
            },
        ),
        (
            "single option flag",
            single(json!({"options": [{"label": "A", "recommended": true}, {"label": "B"}]})),
            |q| {
                assert_eq!(q.recommended, ["A"]);
                assert_eq!(q.options[0].content, None);
            },
        ),
        (
            "multi option flags",
            multi(
                json!({"options": [{"label": "X", "recommended": true}, {"label": "Y"}, {"label": "Z", "recommended": true}]}),
            ),
            |q| assert_eq!(q.recommended, ["X", "Z"]),
        ),
        (
            "option flag with conviction",
            single(
                json!({"options": [{"label": "A", "recommended": true, "conviction": "strong"}, {"label": "B"}]}),
            ),
            |q| {
                assert_eq!(q.recommended, ["A"]);
                assert_eq!(q.conviction, Some(Conviction::Strong));
            },
        ),
        (
            "recommended for single",
            single(json!({"recommended": "A"})),
            |q| assert_eq!(q.recommended, ["A"]),
        ),
        (
            "recommended list for multi",
            multi(json!({"recommended": ["X", "Z"]})),
            |q| assert_eq!(q.recommended, ["X", "Z"]),
        ),
        (
            "one label for multi",
            multi(json!({"recommended": "X"})),
            |q| assert_eq!(q.recommended, ["X"]),
        ),
        (
            "one-element list for single",
            single(json!({"recommended": ["A"]})),
            |q| assert_eq!(q.recommended, ["A"]),
        ),
        (
            "strong conviction",
            single(json!({"recommended": "A", "conviction": "strong"})),
            |q| assert!(q.preselect()),
        ),
        (
            "slight conviction",
            single(json!({"recommended": "A", "conviction": "slight"})),
            |q| {
                assert_eq!(q.conviction, Some(Conviction::Slight));
                assert!(!q.preselect());
            },
        ),
        (
            "critical weight",
            single(json!({"weight": "critical"})),
            |q| assert_eq!(q.weight, Some(Weight::Critical)),
        ),
        ("minor weight", single(json!({"weight": "minor"})), |q| {
            assert_eq!(q.weight, Some(Weight::Minor))
        }),
        (
            "image media",
            single(json!({"media": {"type": "image", "src": "/test.png"}})),
            |q| {
                assert!(
                    matches!(&q.media[0].body, MediaBody::Image { src, .. } if src == "/test.png")
                );
                assert_eq!(q.media[0].position, Position::Above);
            },
        ),
        (
            "table media",
            single(
                json!({"media": {"type": "table", "table": {"headers": ["A", 2], "rows": [["1", 2.5, true]]}}}),
            ),
            |q| {
                let MediaBody::Table { table } = &q.media[0].body else {
                    panic!("{:?}", q.media)
                };
                assert_eq!(table.headers, ["A", "2"]);
                assert_eq!(table.rows[0], ["1", "2.5", "true"]);
            },
        ),
        (
            "mermaid media",
            single(json!({"media": {"type": "mermaid", "mermaid": "graph LR\n  A-->B"}})),
            |q| assert!(matches!(q.media[0].body, MediaBody::Mermaid { .. })),
        ),
        (
            "chart media with no data yet",
            single(
                json!({"media": {"type": "chart", "chart": {"type": "bar", "data": {"labels": ["A"], "datasets": []}}}}),
            ),
            |q| {
                let MediaBody::Chart { chart } = &q.media[0].body else {
                    panic!()
                };
                assert_eq!(
                    (
                        chart.kind.as_str(),
                        chart.labels.len(),
                        chart.datasets.len()
                    ),
                    ("bar", 1, 0)
                );
            },
        ),
        (
            "chart of points",
            single(
                json!({"media": {"type": "chart", "chart": {"type": "line", "data": {"datasets": [{"label": "p95", "data": [{"x": "Mon", "y": 3}, null]}]}}}}),
            ),
            |q| {
                let MediaBody::Chart { chart } = &q.media[0].body else {
                    panic!()
                };
                assert_eq!(chart.labels, ["Mon"]);
                assert_eq!(chart.datasets[0].data, [Some(3.0), None]);
            },
        ),
        (
            "html media",
            single(json!({"media": {"type": "html", "html": "<p>Hello</p>"}})),
            |q| assert!(matches!(q.media[0].body, MediaBody::Html { .. })),
        ),
        (
            "media list",
            single(
                json!({"media": [{"type": "image", "src": "/a.png"}, {"type": "mermaid", "mermaid": "graph LR\n  A-->B"}]}),
            ),
            |q| assert_eq!(q.media.len(), 2),
        ),
        (
            "position",
            single(json!({"media": {"type": "image", "src": "/a.png", "position": "side"}})),
            |q| assert_eq!(q.media[0].position, Position::Side),
        ),
        (
            "code content",
            single(json!({"content": {"source": "const x = 1;", "lang": "ts"}})),
            |q| assert_eq!(q.content.as_ref().unwrap().source, "const x = 1;"),
        ),
        (
            "highlights and lines",
            single(
                json!({"content": {"source": "a\nb\nc", "lang": "ts", "lines": "10-12", "highlights": [1, 3]}}),
            ),
            |q| {
                let content = q.content.as_ref().unwrap();
                assert_eq!(
                    (
                        content.lines,
                        content.highlights.clone(),
                        content.first_line()
                    ),
                    (Some((10, 12)), vec![1, 3], 10)
                );
            },
        ),
        (
            "markdown preview by default",
            single(json!({"content": {"source": "# Heading", "lang": "md"}})),
            |q| {
                let content = q.content.as_ref().unwrap();
                assert!(content.is_markdown() && content.show_source.is_none());
            },
        ),
        (
            "markdown showSource",
            single(
                json!({"content": {"source": "# Heading", "lang": "markdown", "showSource": true}}),
            ),
            |q| assert_eq!(q.content.as_ref().unwrap().show_source, Some(true)),
        ),
        (
            "critical info with media",
            one(
                json!({"id": "q1", "type": "info", "question": "Architecture", "weight": "critical", "media": {"type": "mermaid", "mermaid": "graph LR\n  A-->B"}}),
            ),
            |q| assert_eq!(q.weight, Some(Weight::Critical)),
        ),
        (
            "minor single with slight conviction",
            single(json!({"weight": "minor", "recommended": "A", "conviction": "slight"})),
            |q| {
                assert_eq!(
                    (q.weight, q.conviction),
                    (Some(Weight::Minor), Some(Conviction::Slight))
                )
            },
        ),
        (
            "every feature together",
            json!({"title": "Full Test", "description": "Every feature", "questions": [{
            "id": "q1", "type": "multi", "question": "Pick?",
            "options": [{"label": "A", "content": {"source": "a()", "lang": "ts"}}, "B", "C"],
            "recommended": ["A", "C"], "conviction": "strong", "weight": "critical", "context": "Choose wisely",
            "content": {"source": "example()", "lang": "ts"},
            "media": [
                {"type": "table", "table": {"headers": ["X"], "rows": [["1"]], "highlights": [0]}, "position": "side"},
                {"type": "image", "src": "/test.png", "alt": "test", "caption": "Figure 1"}]}]}),
            |q| {
                assert_eq!(q.options.len(), 3);
                assert_eq!(q.recommended, ["A", "C"]);
                assert_eq!(q.media[1].caption.as_deref(), Some("Figure 1"));
            },
        ),
        ("optional", single(json!({"optional": true})), |q| {
            assert!(!q.required())
        }),
    ];
    for (name, data, check) in cases {
        let question = first(data);
        check(&question);
        let _ = name;
    }
}

#[test]
fn the_legacy_code_block_is_read_as_content_and_said() {
    let interview = parse(&single(
        json!({"codeBlock": {"code": "fn main() {}", "lang": "rust", "file": "src/main.rs"}}),
    ))
    .unwrap();
    assert_eq!(
        interview.questions[0].content,
        Some(Content {
            source: "fn main() {}".into(),
            lang: Some("rust".into()),
            file: Some("src/main.rs".into()),
            lines: None,
            highlights: vec![],
            title: None,
            show_source: None,
        })
    );
    assert_eq!(
        interview.notes,
        [
            "Question \"q1\": the legacy \"codeBlock\" was read as \"content\" (its \"code\" as \"source\"); write \"content\" next time."
        ]
    );
    // An option's legacy `code` too.
    let option = first(single(
        json!({"options": [{"label": "A", "code": {"code": "a()"}}, "B"]}),
    ));
    assert_eq!(option.options[0].content.as_ref().unwrap().source, "a()");
}

#[test]
fn what_the_page_receives_keeps_the_reference_field_names() {
    let question = first(single(json!({
        "recommended": "A", "conviction": "slight", "weight": "minor",
        "content": {"source": "# Hi", "lang": "MD", "showSource": true},
        "media": {"type": "chart", "chart": {"type": "bar", "data": {"labels": ["a"], "datasets": [{"data": [1]}]}}, "caption": "c"}})));
    let sent = serde_json::to_value(&question).unwrap();
    assert_eq!(sent["conviction"], "slight");
    assert_eq!(sent["weight"], "minor");
    assert_eq!(
        sent["content"],
        json!({"source": "# Hi", "lang": "md", "showSource": true})
    );
    assert_eq!(
        sent["media"][0],
        json!({"type": "chart", "chart": {"type": "bar", "labels": ["a"], "datasets": [{"label": "Series 1", "data": [1.0]}]}, "caption": "c", "position": "above"})
    );
}
