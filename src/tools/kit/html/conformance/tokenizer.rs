//! html5lib-tests' tokenizer/*.test: every case, in each of its initial states, through the
//! tokenizer (`lex::Lexer`), its tokens compared with the expected ones (the parse errors a
//! case lists are not compared: Marvin recovers from them and reports none).

use serde_json::{Map, Value, json};

use super::super::lex::{Lexer, Raw, State};
use super::{fixtures, report};

#[test]
fn html5lib_tokenizer() {
    let (mut passed, mut total, mut surrogates) = (0, 0, 0);
    let mut failures = Vec::new();
    for (file, bytes) in fixtures("tokenizer", ".test") {
        let suite: Value = serde_json::from_slice(&bytes).expect("a tokenizer test file");
        for case in suite["tests"].as_array().expect("tests") {
            let escaped = case["doubleEscaped"].as_bool().unwrap_or(false);
            let input = unescape(case["input"].as_str().expect("input"), escaped);
            let expected = expected_tokens(&case["output"], escaped);
            let states = case["initialStates"]
                .as_array()
                .map_or(vec!["Data state"], |s| {
                    s.iter().filter_map(Value::as_str).collect()
                });
            for state in states {
                // A lone surrogate cannot be in a Rust string, nor in text any decoder gives
                // Marvin (they make it U+FFFD): such cases are counted as skipped.
                let (Some(input), Some(expected)) = (&input, &expected) else {
                    surrogates += 1;
                    continue;
                };
                total += 1;
                let got = tokens(input, state, case["lastStartTag"].as_str());
                if got == *expected {
                    passed += 1;
                } else {
                    let description = case["description"].as_str().unwrap_or_default();
                    failures.push(format!("{file} {description} ({state}): {input:?}\n  expected {expected:?}\n  got      {got:?}"));
                }
            }
        }
    }
    let skipped = format!(" (skipped {surrogates} with a lone surrogate in their input)");
    report("tokenizer", passed, total, &skipped, &failures, 0.99);
}

/// The tokens of `input` read from `state`, as the test files write them.
fn tokens(input: &str, state: &str, last_start: Option<&str>) -> Vec<Value> {
    let mut lexer = Lexer::new(input);
    lexer.state = match state {
        "Data state" => State::Data,
        "PLAINTEXT state" => State::Plaintext,
        "RCDATA state" => State::Rcdata,
        "RAWTEXT state" => State::Rawtext,
        "Script data state" => State::ScriptData,
        "CDATA section state" => State::Cdata,
        other => panic!("unknown initial state {other}"),
    };
    lexer.last_start = last_start.unwrap_or_default().to_string();
    let tokens = lexer.map(|token| match token {
        Raw::Chars(text) => json!(["Character", text]),
        Raw::Start(tag) => {
            let attrs: Map<String, Value> = tag
                .attrs
                .into_iter()
                .map(|(n, v)| (n, Value::String(v)))
                .collect();
            if tag.self_closing {
                json!(["StartTag", tag.name, attrs, true])
            } else {
                json!(["StartTag", tag.name, attrs])
            }
        }
        Raw::End(name) => json!(["EndTag", name]),
        Raw::Comment(data) => json!(["Comment", data]),
        Raw::Doctype(d) => json!(["DOCTYPE", d.name, d.public, d.system, !d.force_quirks]),
    });
    merge_characters(tokens)
}

/// The expected tokens, unescaped, adjacent characters as one token; `None` when they hold a
/// lone surrogate.
fn expected_tokens(output: &Value, escaped: bool) -> Option<Vec<Value>> {
    let mut tokens = Vec::new();
    for token in output.as_array().expect("output") {
        tokens.push(unescape_value(token, escaped)?);
    }
    Some(merge_characters(tokens.into_iter()))
}

fn unescape_value(value: &Value, escaped: bool) -> Option<Value> {
    Some(match value {
        Value::String(s) => Value::String(unescape(s, escaped)?),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| unescape_value(v, escaped))
                .collect::<Option<_>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Some((unescape(k, escaped)?, unescape_value(v, escaped)?)))
                .collect::<Option<_>>()?,
        ),
        other => other.clone(),
    })
}

fn merge_characters(tokens: impl Iterator<Item = Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for token in tokens {
        if let (Some(last), Some("Character")) = (out.last_mut(), token[0].as_str()) {
            if last[0] == "Character" {
                let joined = format!(
                    "{}{}",
                    last[1].as_str().unwrap_or_default(),
                    token[1].as_str().unwrap_or_default()
                );
                last[1] = Value::String(joined);
                continue;
            }
        }
        out.push(token);
    }
    out
}

/// A `doubleEscaped` string with its `\uXXXX` escapes read (pairs of surrogates joined);
/// `None` for a lone surrogate.
fn unescape(text: &str, escaped: bool) -> Option<String> {
    if !escaped {
        return Some(text.to_string());
    }
    let mut units = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("\\u") {
        units.extend(rest[..at].encode_utf16());
        let unit = u16::from_str_radix(rest.get(at + 2..at + 6)?, 16).ok()?;
        units.push(unit);
        rest = &rest[at + 6..];
    }
    units.extend(rest.encode_utf16());
    String::from_utf16(&units).ok()
}
