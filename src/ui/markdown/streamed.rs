//! Markdown streamed is Markdown whole: every CommonMark and GFM example (the conformance
//! fixtures) fed a character at a time, and short ones cut at every pair of points, renders
//! exactly as it does fed in one piece, in the tagged mode and in the terminal's.

use super::Markdown;
use super::conformance::{Example, examples};
use crate::ui::style::Style;

/// Examples up to this many characters are also cut at every pair of character boundaries.
const SHORT: usize = 40;

/// Makes a renderer afresh.
type New = fn() -> Markdown;

/// The renderers compared: the tagged mode, and the terminal's with colour at 80 and 30
/// columns (narrow enough that most examples wrap somewhere).
fn renderers() -> Vec<(&'static str, New)> {
    vec![
        ("tagged", Markdown::tagged as New),
        ("terminal 80", || Markdown::new(COLOUR, 80)),
        ("terminal 30", || Markdown::new(COLOUR, 30)),
    ]
}

const COLOUR: Style = Style {
    colour: true,
    unicode: true,
};

/// What `pieces` show, pushed one by one and then finished.
fn render(new: New, pieces: &[&str]) -> String {
    let mut md = new();
    let mut out: String = pieces.iter().map(|piece| md.push(piece)).collect();
    out.push_str(&md.finish());
    out
}

/// `text` cut at the given byte offsets (character boundaries, ascending).
fn cut_at<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a str> {
    let mut pieces = Vec::new();
    let mut from = 0;
    for &to in cuts.iter().chain([&text.len()]) {
        pieces.push(&text[from..to]);
        from = to;
    }
    pieces
}

/// The first way of cutting `text` that renders differently from it whole, if any.
fn first_difference(new: New, text: &str) -> Option<String> {
    let whole = render(new, &[text]);
    let bounds: Vec<usize> = text.char_indices().map(|(at, _)| at).skip(1).collect();
    let by_char = render(new, &cut_at(text, &bounds));
    if by_char != whole {
        return Some(format!(
            "char by char:\n  whole: {whole:?}\n  cut:   {by_char:?}"
        ));
    }
    if bounds.len() >= SHORT {
        return None;
    }
    for (n, &first) in bounds.iter().enumerate() {
        for &second in &bounds[n..] {
            let cuts = [first, second];
            let cut = render(
                new,
                &cut_at(text, &cuts[..1 + usize::from(first != second)]),
            );
            if cut != whole {
                return Some(format!(
                    "cut at bytes {first} and {second}:\n  whole: {whole:?}\n  cut:   {cut:?}"
                ));
            }
        }
    }
    None
}

/// The examples of `file` that render differently streamed, each with what differed.
fn differing(file: &str) -> Vec<(usize, String)> {
    let all: Vec<Example> = examples(file);
    let mut found = Vec::new();
    for example in &all {
        for (name, new) in renderers() {
            if let Some(how) = first_difference(new, &example.markdown) {
                found.push((
                    example.example,
                    format!("{name}, {:?}, {how}", example.markdown),
                ));
                break;
            }
        }
    }
    found
}

fn assert_streamed_is_whole(file: &str) {
    let found = differing(file);
    let numbers: Vec<String> = found.iter().map(|(n, _)| n.to_string()).collect();
    let details: Vec<String> = found
        .iter()
        .map(|(n, how)| format!("example {n}: {how}"))
        .collect();
    assert!(
        found.is_empty(),
        "{file}: {} examples render differently streamed: {}\n{}",
        found.len(),
        numbers.join(", "),
        details.join("\n")
    );
}

#[test]
fn commonmark_examples_streamed_render_as_whole() {
    assert_streamed_is_whole("spec.json");
}

#[test]
fn gfm_examples_streamed_render_as_whole() {
    assert_streamed_is_whole("gfm_extensions.json");
}
