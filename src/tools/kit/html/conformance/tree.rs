//! html5lib-tests' tree-construction/*.dat, scored on text: Marvin renders text for a model,
//! not a DOM, so a case passes when the text the renderer keeps is the text of the expected
//! tree: its `#text` nodes in document order, less the content of the elements the renderer
//! deliberately does not show (script, style, template, SVG, MathML, form controls…: `HIDDEN`)
//! and of `title` (which becomes the page's title), all whitespace removed on both sides (the
//! tree builder keeps or drops whitespace-only text by insertion mode, which a reader does not
//! see). That catches the rest of a page swallowed by an unclosed element, text that is not
//! text (a comment read wrong), references decoded wrong and NUL.
//!
//! Skipped, and counted: cases parsed with scripting on (`#script-on`: Marvin parses as a
//! browser with scripting off), and fragment cases whose context element is SVG or MathML or
//! is read as text (`title`, `textarea`, `style`, `script`, `xmp`, `iframe`, `noembed`,
//! `noframes`, `noscript`, `plaintext`): Marvin renders documents and body fragments only.

use super::super::render::kept_text;
use super::{dat_cases, fixtures, report};

/// The elements whose content the renderer leaves out of the text (see `render::DROPPED`).
const HIDDEN: &[&str] = &[
    "script", "style", "noscript", "template", "iframe", "object", "canvas", "select", "button",
    "textarea", "datalist", "title",
];

/// Fragment contexts Marvin does not render from.
const TEXT_CONTEXTS: &[&str] = &[
    "title",
    "textarea",
    "style",
    "script",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "plaintext",
];

#[test]
fn html5lib_tree_construction_text() {
    let (mut passed, mut total, mut script_on, mut contexts) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (file, bytes) in fixtures("tree-construction", ".dat") {
        for case in dat_cases(&bytes) {
            let section = |name: &str| case.iter().find(|(n, _)| n == name).map(|(_, b)| b);
            let (Some(data), Some(document)) = (section("data"), section("document")) else {
                continue;
            };
            if section("script-on").is_some() {
                script_on += 1;
                continue;
            }
            if let Some(context) = section("document-fragment") {
                let context = String::from_utf8_lossy(context);
                let context = context.trim();
                if context.contains(' ') || TEXT_CONTEXTS.contains(&context) {
                    contexts += 1;
                    continue;
                }
            }
            total += 1;
            let html = String::from_utf8_lossy(data);
            let expected = squeeze(&expected_text(&String::from_utf8_lossy(document)));
            let got = squeeze(&kept_text(&html));
            if got == expected {
                passed += 1;
            } else {
                failures.push(format!(
                    "{file}: {html:?}\n  expected {expected:?}\n  got      {got:?}"
                ));
            }
        }
    }
    let skipped = format!(
        " (skipped {script_on} scripting-on cases and {contexts} fragments of a foreign or text context)"
    );
    report(
        "tree construction (text)",
        passed,
        total,
        &skipped,
        &failures,
        0.9,
    );
}

fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The text of a `#document` tree (`| ` lines, two spaces a level), less `HIDDEN` elements'
/// and SVG's and MathML's.
fn expected_text(document: &str) -> String {
    let mut text = String::new();
    // The depth of each open element, and whether it is hidden.
    let mut open: Vec<(usize, bool)> = Vec::new();
    let mut lines = document.split('\n').peekable();
    while let Some(line) = lines.next() {
        let Some(node) = line.strip_prefix("| ") else {
            continue;
        };
        let depth = node.len() - node.trim_start_matches(' ').len();
        let node = &node[depth..];
        while open.last().is_some_and(|(d, _)| *d >= depth) {
            open.pop();
        }
        let hidden = open.last().is_some_and(|(_, h)| *h);
        if let Some(quoted) = node.strip_prefix('"') {
            // A text node, perhaps over several lines, up to its closing quote.
            let mut value = quoted.to_string();
            while !value.ends_with('"') {
                let Some(next) = lines.next() else { break };
                value.push('\n');
                value.push_str(next);
            }
            value.pop();
            if !hidden {
                text.push_str(&value);
            }
        } else if let Some(element) = node.strip_prefix('<').filter(|n| !n.starts_with('!')) {
            let name = element.trim_end_matches('>');
            let foreign = name == "svg svg" || name == "math math";
            open.push((depth, hidden || foreign || HIDDEN.contains(&name)));
        } else if node == "content" {
            open.push((depth, hidden));
        }
    }
    text
}
