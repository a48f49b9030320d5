//! What the property tests share (tests only): the number of cases, which `PROPTEST_CASES`
//! raises, and generators of what services and models send: text heavy in the characters
//! parsers trip on, and JSON of any shape whose keys are mostly the ones a reader looks for.

use proptest::prelude::*;
use serde_json::{Map, Value};

/// `cases` cases, unless `PROPTEST_CASES` asks for another number (to search longer locally).
pub(crate) fn config(cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = cases;
    }
    config
}

/// Characters that mean something to one parser or another, and some that mean nothing.
const AWKWARD: &[char] = &[
    'a', 'b', 'x', '0', '1', '-', '+', ' ', '\t', '\n', '\r', '\0', '{', '}', '[', ']', '"', '\\',
    ':', ',', '@', '*', '<', '>', '=', '/', '?', '&', '%', '#', 'é', '\u{fffd}', '\u{202e}', '😀',
];

/// One character: mostly [`AWKWARD`] ones, sometimes any at all.
pub(crate) fn awkward_char() -> impl Strategy<Value = char> {
    prop_oneof![4 => prop::sample::select(AWKWARD), 1 => any::<char>()]
}

/// Text of up to `max` characters.
pub(crate) fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(awkward_char(), 0..=max).prop_map(|chars| chars.into_iter().collect())
}

/// Text of up to `max` characters without a line break.
pub(crate) fn line(max: usize) -> impl Strategy<Value = String> {
    text(max).prop_map(|text| text.replace(['\n', '\r'], " "))
}

/// A JSON leaf: null, a boolean, a number of any size, or short text.
pub(crate) fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (0u64..3).prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text(12).prop_map(Value::from),
    ]
}

/// A key: one of `keys` mostly, else any short text.
pub(crate) fn key(keys: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(keys).prop_map(str::to_string),
        1 => text(6),
    ]
}

/// JSON of any shape, `depth` levels at most, its object keys mostly from `keys`.
pub(crate) fn json(keys: &'static [&'static str], depth: u32) -> impl Strategy<Value = Value> {
    leaf().prop_recursive(depth, 96, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(keys), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// `text` cut into pieces at the given points (as a network delivers it), each point taken
/// modulo the length.
pub(crate) fn split_at(text: &[u8], points: &[usize]) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = points
        .iter()
        .map(|p| if text.is_empty() { 0 } else { p % text.len() })
        .collect();
    cuts.push(text.len());
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut start = 0;
    for cut in cuts {
        pieces.push(text[start..cut].to_vec());
        start = cut;
    }
    pieces
}
