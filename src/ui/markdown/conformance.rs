//! The CommonMark spec's examples and GFM's extension examples (tests/fixtures/commonmark/)
//! rendered in the tagged mode and compared with their expected HTML, both seen through
//! `view.rs`; prints the pass counts and holds them to the targets.

use super::{Markdown, view};

#[derive(serde::Deserialize)]
pub(super) struct Example {
    pub(super) markdown: String,
    html: String,
    pub(super) example: usize,
    section: String,
    extension: String,
}

pub(super) fn examples(file: &str) -> Vec<Example> {
    let path = format!(
        "{}/tests/fixtures/commonmark/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The document as the tagged mode shows it, seen through the view.
fn rendered(markdown: &str) -> Vec<String> {
    let mut md = Markdown::tagged();
    let mut out = md.push(markdown);
    out.push_str(&md.finish());
    view::normalise(&out)
}

/// Runs `examples`, prints `name: passed/run` and each failure when `MARKDOWN_FAILURES` is
/// set; returns (passed, run).
fn run(name: &str, examples: &[Example]) -> (usize, usize) {
    let show = std::env::var_os("MARKDOWN_FAILURES").is_some();
    let mut passed = 0;
    for example in examples {
        let (ours, expected) = (
            rendered(&example.markdown),
            view::from_html(&example.html, &example.markdown),
        );
        if ours == expected {
            passed += 1;
        } else if show {
            eprintln!(
                "--- example {} ({}{})\n{}\nours:     {ours:?}\nexpected: {expected:?}",
                example.example, example.section, example.extension, example.markdown
            );
        }
    }
    eprintln!("{name}: {passed}/{} passed", examples.len());
    (passed, examples.len())
}

/// Whether a link reference definition in `markdown` comes after a line that may use it (a
/// line with a `[` that defines nothing). Out of scope: a renderer that streams has shown the
/// `[foo]` before the definition that would make it a link arrives (CommonMark resolves
/// references over the whole document).
fn defined_after_use(markdown: &str) -> bool {
    let mut bracket_seen = false;
    for line in markdown.lines() {
        let start = line.trim_start_matches(' ');
        let defines = line.len() - start.len() < 4
            && start.starts_with('[')
            && start.find("]:").is_some_and(|at| at > 1);
        if defines && bracket_seen {
            return true;
        }
        bracket_seen |= !defines && line.contains('[');
    }
    false
}

#[test]
fn commonmark_spec_examples() {
    let all = examples("spec.json");
    assert_eq!(all.len(), 652, "CommonMark 0.31.2 has 652 examples");
    let (later, examples): (Vec<Example>, Vec<Example>) = all
        .into_iter()
        .partition(|e| defined_after_use(&e.markdown));
    let (passed, run) = run("CommonMark 0.31.2 spec", &examples);
    eprintln!(
        "  (skipped {} examples that define a link reference after its use)",
        later.len()
    );
    assert!(
        passed * 100 >= run * TARGET,
        "{passed}/{run} is under {TARGET}%"
    );
}

/// The share of the spec's examples that must pass, in percent.
const TARGET: usize = 95;

#[test]
fn gfm_extension_examples() {
    let examples = examples("gfm_extensions.json");
    for kind in [
        "table",
        "strikethrough",
        "autolink",
        "tagfilter",
        "disabled",
    ] {
        let of_kind: Vec<Example> = examples
            .iter()
            .filter(|e| e.extension == kind)
            .map(|e| Example {
                markdown: e.markdown.clone(),
                html: e.html.clone(),
                example: e.example,
                section: e.section.clone(),
                extension: e.extension.clone(),
            })
            .collect();
        run(&format!("GFM extension {kind}"), &of_kind);
    }
}
