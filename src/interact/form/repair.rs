//! Tolerant reading of a questions file a model wrote: JSON that does not parse as it is gets
//! the usual slips of a model repaired (a Markdown code fence around it, `//` and `/* */`
//! comments, trailing commas, curly quotes used as quotes) and is read again. What was
//! repaired is said, for the tool's result, so the model learns to write it right.

use serde_json::Value;

/// The JSON in `text`, and what had to be repaired to read it (empty when nothing did).
pub fn read(text: &str) -> Result<(Value, Vec<String>), serde_json::Error> {
    let first_error = match serde_json::from_str(text) {
        Ok(value) => return Ok((value, Vec::new())),
        Err(error) => error,
    };
    let mut repairs = Vec::new();
    let unfenced = match strip_fence(text) {
        Some(inner) => {
            repairs.push("removed the Markdown code fence around the JSON".to_string());
            inner
        }
        None => text,
    };
    let (clean, counts) = scrub(unfenced);
    for (count, verb, one, many) in [
        (counts.comments, "removed", "a comment", "comments"),
        (
            counts.commas,
            "removed",
            "a trailing comma",
            "trailing commas",
        ),
        (
            counts.quotes,
            "straightened",
            "a curly quote",
            "curly quotes",
        ),
    ] {
        match count {
            0 => {}
            1 => repairs.push(format!("{verb} {one}")),
            n => repairs.push(format!("{verb} {n} {many}")),
        }
    }
    if repairs.is_empty() {
        return Err(first_error);
    }
    serde_json::from_str(&clean).map(|value| (value, repairs))
}

/// The text between a leading ```` ``` ```` line (with any language tag) and the closing
/// fence, when the text is fenced.
fn strip_fence(text: &str) -> Option<&str> {
    let trimmed = text.trim();
    let ticks = trimmed.chars().take_while(|c| *c == '`').count();
    if ticks < 3 {
        return None;
    }
    let after_open = trimmed.split_once('\n').map_or("", |(_, rest)| rest);
    let fence = "`".repeat(ticks);
    let inner = match after_open.trim_end().rsplit_once('\n') {
        Some((body, last)) if last.trim().starts_with(&fence[..3]) => body,
        _ => after_open.trim_end().trim_end_matches('`'),
    };
    Some(inner)
}

#[derive(Default)]
struct Counts {
    comments: usize,
    commas: usize,
    quotes: usize,
}

/// Removes comments and trailing commas and straightens curly quotes, all outside strings.
fn scrub(text: &str) -> (String, Counts) {
    let mut out = String::with_capacity(text.len());
    let mut counts = Counts::default();
    let mut chars = text.chars().peekable();
    // Inside a string: the characters that end it.
    let mut closing: Option<&[char]> = None;
    while let Some(c) = chars.next() {
        if let Some(ends) = closing {
            match c {
                '\\' => {
                    out.push(c);
                    out.extend(chars.next());
                }
                c if ends.contains(&c) => {
                    if c != '"' {
                        counts.quotes += 1;
                    }
                    out.push('"');
                    closing = None;
                }
                c => out.push(c),
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                out.push('"');
                closing = Some(&['"']);
            }
            ('\u{201C}' | '\u{201D}', _) => {
                counts.quotes += 1;
                out.push('"');
                closing = Some(&['\u{201D}', '\u{201C}', '"']);
            }
            ('/', Some('/')) => {
                counts.comments += 1;
                while chars.peek().is_some_and(|c| *c != '\n') {
                    chars.next();
                }
            }
            ('/', Some('*')) => {
                counts.comments += 1;
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            ('}' | ']', _) => {
                let kept = out.trim_end().len();
                if out[..kept].ends_with(',') {
                    counts.commas += 1;
                    out.truncate(kept - 1);
                }
                out.push(c);
            }
            (c, _) => out.push(c),
        }
    }
    (out, counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The reference's own cases (pi-interview-tool's sanitizeLLMJSON tests), and the
    /// repairs each one reports.
    #[test]
    fn what_models_write_is_repaired_and_said() {
        let cases: &[(&str, Value, &[&str])] = &[
            (r#"{"a": 1}"#, json!({"a": 1}), &[]),
            (
                "```json\n{\"a\": 1}\n```",
                json!({"a": 1}),
                &["removed the Markdown code fence around the JSON"],
            ),
            (
                "```\n{\"a\": 1}\n```",
                json!({"a": 1}),
                &["removed the Markdown code fence around the JSON"],
            ),
            (
                "```jsonc\n{\"a\": 1}\n```",
                json!({"a": 1}),
                &["removed the Markdown code fence around the JSON"],
            ),
            (
                "````json\n{\"a\": 1}\n````",
                json!({"a": 1}),
                &["removed the Markdown code fence around the JSON"],
            ),
            (
                "```JSON\n{\"a\": 1}\n```",
                json!({"a": 1}),
                &["removed the Markdown code fence around the JSON"],
            ),
            (
                r#"{"a": 1, "b": 2,}"#,
                json!({"a": 1, "b": 2}),
                &["removed a trailing comma"],
            ),
            (
                r#"{"items": ["x", "y",]}"#,
                json!({"items": ["x", "y"]}),
                &["removed a trailing comma"],
            ),
            (
                "{\n  \"a\": 1,\n  \"b\": 2,\n}",
                json!({"a": 1, "b": 2}),
                &["removed a trailing comma"],
            ),
            (
                r#"{"outer": {"inner": 1,}, "arr": [1, 2,],}"#,
                json!({"outer": {"inner": 1}, "arr": [1, 2]}),
                &["removed 3 trailing commas"],
            ),
            (
                "{\n  // this is a comment\n  \"a\": 1\n}",
                json!({"a": 1}),
                &["removed a comment"],
            ),
            (
                "{\n    /* indented */ \"a\": 1 // and after\n}",
                json!({"a": 1}),
                &["removed 2 comments"],
            ),
            (
                r#"{"url": "https://example.com"}"#,
                json!({"url": "https://example.com"}),
                &[],
            ),
            (
                "{\u{201C}a\u{201D}: 1}",
                json!({"a": 1}),
                &["straightened 2 curly quotes"],
            ),
            (
                r#"{"say": "a \"quoted\" // word",}"#,
                json!({"say": "a \"quoted\" // word"}),
                &["removed a trailing comma"],
            ),
        ];
        for (text, expected, repairs) in cases {
            let (value, said) = read(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(&value, expected, "{text}");
            assert_eq!(said, *repairs, "{text}");
        }
    }

    #[test]
    fn a_realistic_answer_with_every_slip_is_read() {
        let text = "```json\n{\n  // Project configuration\n  \"title\": \"Project Setup\",\n  \"questions\": [\n    {\n      \"id\": \"framework\",\n      \"type\": \"single\",\n      \"question\": \"Which framework?\",\n      \"options\": [\"React\", \"Vue\", \"Svelte\",],\n      \"recommended\": \"React\",\n    },\n  ],\n}\n```";
        let (value, repairs) = read(text).unwrap();
        assert_eq!(
            value["questions"][0]["options"],
            json!(["React", "Vue", "Svelte"])
        );
        assert_eq!(
            repairs,
            [
                "removed the Markdown code fence around the JSON",
                "removed a comment",
                "removed 4 trailing commas"
            ]
        );
    }

    #[test]
    fn what_cannot_be_repaired_is_still_an_error() {
        assert!(read("{\"a\": }").is_err());
        assert!(read("```json\n{\"a\": [1, 2}\n```").is_err());
        assert!(read("not json at all").is_err());
    }
}
