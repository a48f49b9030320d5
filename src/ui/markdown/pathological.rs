//! The inputs of cmark's pathological tests, generated at any size, and what this renderer
//! shows for each: the shapes that make a Markdown parser slow (emphasis that never closes or
//! nests deep, brackets, backticks, deep quotes and lists). The tests check what shows, the
//! bench (`make bench`) how the time grows with the size.
//!
//! Provenance: the cases, not the code, of `test/pathological_tests.py` in
//! github.com/commonmark/cmark (commit 54b2be5, 2026-06-11; BSD-2-Clause, © 2014 John
//! MacFarlane). There each repeats 20,000 to 300,000 times; here `n` says how many. What cmark
//! expects (a regular expression over HTML) is written out in the tagged mode (see `view.rs`),
//! with this renderer's two limits: a span's marks at most `WINDOW` bytes apart, nesting shown
//! at most ten levels deep. "reference collisions" defines `n` distinct labels (cmark's chose
//! labels that collide in its hash table; definitions here are an ordered map).

/// One pathological shape at any size.
pub(crate) struct Shape {
    /// Its name in cmark's tests.
    pub name: &'static str,
    /// The input with `n` repeats of the shape's unit.
    pub input: fn(usize) -> String,
    /// What the tagged mode shows for `input(n)`, at any `n` when `any_size`, else while the
    /// whole input fits in the window (past it, marks further apart are text). Only the tests
    /// read these two; the bench takes the inputs.
    #[cfg_attr(not(test), allow(dead_code))]
    pub shown: fn(usize) -> String,
    #[cfg_attr(not(test), allow(dead_code))]
    pub any_size: bool,
}

/// What `md` shows of `doc` pushed in pieces of `piece` bytes (0: at once), then finished.
pub(crate) fn render(mut md: super::Markdown, doc: &str, piece: usize) -> String {
    let mut out = String::new();
    let mut rest = doc;
    while piece > 0 && rest.len() > piece {
        let mut at = piece;
        while !rest.is_char_boundary(at) {
            at += 1;
        }
        out.push_str(&md.push(&rest[..at]));
        rest = &rest[at..];
    }
    out.push_str(&md.push(rest));
    out.push_str(&md.finish());
    out
}

/// `unit` `n` times.
fn times(unit: &str, n: usize) -> String {
    unit.repeat(n)
}

/// The cases that come out as they went in (nothing pairs, or what might is too far apart).
const AS_WRITTEN: &[(&str, &str)] = &[
    ("many emph closers with no openers", "a_ "),
    ("many emph openers with no closers", "_a "),
    ("many link closers with no openers", "a]"),
    ("many link openers with no closers", "[a"),
    ("mismatched openers and closers", "*a_ "),
    ("link openers and emph closers", "[ a_"),
    ("pattern [ (]( repeated", "[ (]("),
    ("unclosed links A", "[a](<b"),
    ("unclosed links B", "[a](b"),
];

/// The shapes `AS_WRITTEN` names, each its unit `n` times.
pub(crate) fn as_written() -> impl Iterator<Item = (&'static str, &'static str)> {
    AS_WRITTEN.iter().copied()
}

/// The shapes whose output is not their input.
pub(crate) const SHAPES: &[Shape] = &[
    Shape {
        name: "nested strong emph",
        input: |n| format!("{}b{}", times("*a **a ", n), times(" a** a*", n)),
        shown: |n| {
            let open = times("<em>a <strong>a ", n);
            format!("{open}b{}", times(" a</strong> a</em>", n))
        },
        any_size: false,
    },
    Shape {
        name: "issue #389",
        input: |n| times("*a ", n) + &times("_a*_ ", n),
        shown: |n| times("<em>a ", n) + &times("_a</em>_ ", n),
        any_size: false,
    },
    Shape {
        name: "openers and closers multiple of 3",
        input: |n| format!("a**b{}", times("c* ", n)),
        shown: |n| format!("a**b{}", times("c* ", n)),
        any_size: true,
    },
    Shape {
        name: "pattern ![[]() repeated",
        input: |n| times("![[]()", n),
        shown: |n| times("![<a></a>", n),
        any_size: true,
    },
    Shape {
        name: "nested brackets",
        input: |n| format!("{}a{}", times("[", n), times("]", n)),
        shown: |n| format!("{}a{}", times("[", n), times("]", n)),
        any_size: true,
    },
    Shape {
        name: "nested block quotes",
        input: |n| format!("{}a", times("> ", n)),
        shown: |n| format!("{}a", times("│ ", n.min(10))),
        any_size: true,
    },
    Shape {
        name: "deeply nested lists",
        input: |n| (0..n.isqrt()).map(|x| times("  ", x) + "* a\n").collect(),
        shown: |n| {
            (0..n.isqrt())
                .map(|x| times("  ", x.min(10)) + "• a\n")
                .collect()
        },
        any_size: true,
    },
    Shape {
        name: "U+0000 in input",
        input: |n| times("abc\0de\0", n),
        shown: |n| times("abc\u{fffd}de\u{fffd}", n),
        any_size: true,
    },
    Shape {
        name: "backticks",
        input: backticks,
        shown: backticks,
        any_size: true,
    },
    Shape {
        name: "unclosed <!--",
        input: |n| format!("</{}", times("<!--", n)),
        shown: |n| format!("</{}", times("<!--", n)),
        any_size: true,
    },
    Shape {
        name: "empty lines in deeply nested lists",
        input: |n| format!("{}x{}", times("- ", n), times("\n", n)),
        shown: |n| format!("{}x{}", nested_items(n), times("\n", n)),
        any_size: true,
    },
    Shape {
        name: "empty lines in deeply nested lists in blockquote",
        input: |n| format!("> {}x\n{}", times("- ", n), times(">\n", n)),
        shown: |n| format!("│ {}x\n{}", nested_items(n), times("│\n", n)),
        any_size: true,
    },
    Shape {
        name: "emph in deep blockquote",
        input: |n| format!("{}{}", times(">", n), times("a*", n)),
        shown: |n| {
            let pairs = times("a<em>a</em>", n / 2) + if n % 2 == 1 { "a*" } else { "" };
            format!("{}{pairs}", times("│ ", n.min(10)))
        },
        any_size: true,
    },
    Shape {
        name: "reference collisions",
        input: |n| {
            (0..n)
                .map(|i| format!("[x{i}]: /url\n\n[x0]\n\n"))
                .collect()
        },
        shown: |n| times("\n<a>x0</a>\n\n", n),
        any_size: true,
    },
    Shape {
        name: "nested inlines",
        input: |n| format!("{}a{}", times("*", n), times("*", n)),
        shown: |n| {
            let (em, strong) = (n % 2 == 1, n / 2);
            let (open, close) = (if em { "<em>" } else { "" }, if em { "</em>" } else { "" });
            let strong_open = times("<strong>", strong);
            format!("{open}{strong_open}a{}{close}", times("</strong>", strong))
        },
        any_size: false,
    },
];

/// Runs of 1, 2, 3… backticks after an `e` each, about `n` bytes in all: no two runs are
/// as long, so none closes another.
fn backticks(n: usize) -> String {
    (1..(2 * n).isqrt())
        .map(|x| format!("e{}", times("`", x)))
        .collect()
}

/// `n` list items opened on one row as shown: ten bullets, then the rest as written.
fn nested_items(n: usize) -> String {
    times("• ", n.min(10)) + &times("- ", n.saturating_sub(10))
}

#[cfg(test)]
mod tests {
    use super::super::Markdown;
    use super::*;
    use crate::ui::markdown::nodes::WINDOW;
    use crate::ui::style::Style;

    /// `doc` in the tagged mode, pushed in pieces of `piece` bytes (0: at once).
    fn tagged(doc: &str, piece: usize) -> String {
        render(Markdown::tagged(), doc, piece)
    }

    /// `shown` is `expected` (both trimmed at the end); else where they part, not the
    /// megabytes around.
    fn same(shown: &str, expected: &str, name: &str) {
        let (shown, expected) = (shown.trim_end(), expected.trim_end());
        if shown == expected {
            return;
        }
        let at = shown
            .char_indices()
            .zip(expected.chars())
            .find(|((_, a), b)| a != b)
            .map_or(shown.len().min(expected.len()), |((at, _), _)| at);
        let near = |text: &str| -> String {
            text.get(at.saturating_sub(40)..)
                .unwrap_or(text)
                .chars()
                .take(80)
                .collect()
        };
        panic!(
            "{name}: {} bytes shown, {} expected, apart from byte {at}:\n \
             shown:    {:?}\n expected: {:?}",
            shown.len(),
            expected.len(),
            near(shown),
            near(expected)
        );
    }

    /// What cmark's tests expect, at a size that fits in the window.
    #[test]
    fn cmarks_pathological_cases_show_what_cmark_expects() {
        let n = 8;
        for (name, unit) in as_written() {
            let doc = times(unit, n);
            same(&tagged(&doc, 0), &doc, name);
        }
        for shape in SHAPES {
            let doc = (shape.input)(n);
            assert!(doc.len() <= WINDOW, "{}: {} bytes", shape.name, doc.len());
            same(&tagged(&doc, 0), &(shape.shown)(n), shape.name);
        }
        // cmark's one case of fixed size.
        let hard = tagged("**x [a*b**c*](d)", 0);
        assert_eq!(hard, "**x <a>a<em>b**c</em></a>", "hard link/emph case");
    }

    /// At a size past the window (cmark's are 5 to 75 times this one; `make bench` times
    /// them): the same shows whether the input comes whole or in small pieces; what
    /// holds at any size holds; where spans are too far apart to pair, every letter still
    /// shows; and the output stays within a few times the input.
    #[test]
    fn cmarks_pathological_cases_at_size_show_everything_once() {
        let n = 4000;
        for (name, unit) in as_written() {
            let doc = times(unit, n);
            same(&tagged(&doc, 0), &doc, name);
            same(&tagged(&doc, 7), &doc, &format!("{name}, streamed"));
        }
        for shape in SHAPES {
            let doc = (shape.input)(n);
            let whole = tagged(&doc, 0);
            same(
                &tagged(&doc, 7),
                &whole,
                &format!("{}, streamed", shape.name),
            );
            assert!(
                whole.len() <= 3 * doc.len() + 1024,
                "{}: {} bytes shown for {}",
                shape.name,
                whole.len(),
                doc.len()
            );
            if shape.any_size {
                same(&whole, &(shape.shown)(n), shape.name);
            } else {
                let letters = |text: &str| -> String {
                    text.chars().filter(|c| c.is_alphanumeric()).collect()
                };
                let plain = render(Markdown::new(Style::PLAIN, 80), &doc, 0);
                same(&letters(&plain), &letters(&doc), shape.name);
            }
        }
    }
}
