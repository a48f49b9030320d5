//! Inline Markdown within a line shown: **bold**, *italic*, `code`, ~~struck~~, links, as far
//! as `parse.rs` has settled them; an opener waits for its closer on the same line (at most
//! `WINDOW` bytes on), and without one it is shown as written.

use super::nodes::Node;
use super::parse::parse;
pub(super) use super::syntax::Refs;
use crate::ui::style::Style;

/// The style, and the SGR codes already in force on the line (a heading's bold), which each
/// span restores when it ends.
#[derive(Debug, Clone, Copy)]
pub(super) struct Paint<'a> {
    pub style: Style,
    pub base: &'a str,
    /// The conformance tests' mode: spans marked with HTML's tag names instead of painted.
    pub tags: bool,
    /// The link reference definitions read so far.
    pub refs: &'a Refs,
}

impl Paint<'_> {
    /// `text` in the tag `name` (tagged mode).
    fn tag(self, name: &str, text: &str) -> String {
        format!("<{name}>{text}</{name}>")
    }

    /// `text` with the codes `extra` on top of the base ones, then the base again.
    fn span(self, extra: &str, text: &str) -> String {
        let codes = join(self.base, extra);
        format!("\x1b[0;{codes}m{text}{}", sgr(self.base))
    }
}

/// The codes `base` and `extra` together.
fn join(base: &str, extra: &str) -> String {
    match base {
        "" => extra.to_string(),
        _ => format!("{base};{extra}"),
    }
}

/// The SGR sequence that sets exactly `codes` (none: plain).
pub(super) fn sgr(codes: &str) -> String {
    match codes {
        "" => "\x1b[0m".to_string(),
        _ => format!("\x1b[0;{codes}m"),
    }
}

/// Renders `text` up to its first newline into `out`, as far as it can be decided, and
/// returns how many bytes it took (the rest waits for more text). `eof`: nothing more comes on
/// this line. `prev`: the character before `text` on the line (a space at its start).
/// `soft`: the newline does not end the spans (the next line may continue them).
pub(super) fn stream(
    text: &str,
    eof: bool,
    soft: bool,
    prev: &mut char,
    paint: Paint,
    out: &mut String,
) -> usize {
    let (line, complete, ended) = match text.find('\n') {
        Some(end) => (&text[..end], !soft, true),
        None => (text, eof, eof),
    };
    let parsed = parse(line, *prev, (complete, ended), paint.refs);
    out.push_str(&nodes(&parsed.nodes, paint));
    if let Some(last) = line[..parsed.taken].chars().next_back() {
        *prev = last;
    }
    parsed.taken
}

/// The whole of `text` (no newline in it) rendered.
pub(super) fn render(text: &str, paint: Paint) -> String {
    let mut out = String::with_capacity(text.len());
    stream(text, true, false, &mut ' ', paint, &mut out);
    out
}

/// Inline nodes as shown: painted with colour, marked in the tagged mode, else as near to
/// what was written as shows the text (no emphasis marks, code in backticks).
fn nodes(nodes: &[Node], paint: Paint) -> String {
    nodes.iter().map(|node| self::node(node, paint)).collect()
}

fn node(node: &Node, paint: Paint) -> String {
    match node {
        Node::Text(text) | Node::Html(text) => text.clone(),
        Node::Code(code) if paint.tags => paint.tag("code", code),
        Node::Code(code) if paint.style.colour => paint.span("36", code),
        Node::Code(code) => match code.contains('`') {
            true => format!("`` {code} ``"),
            false => format!("`{code}`"),
        },
        Node::Emph(kids) => span(kids, paint, "em", "3"),
        Node::Strong(kids) => span(kids, paint, "strong", "1"),
        Node::Del(kids) if paint.tags || paint.style.colour => span(kids, paint, "del", "9"),
        Node::Del(kids) => format!("~~{}~~", nodes(kids, paint)),
        Node::Link(kids, url) => link(kids, url, paint, "a"),
        Node::Image(kids, url) => link(&[Node::Text(alt(kids))], url, paint, "img"),
        Node::Autolink(url) => underline(url, paint),
    }
}

/// An image's description as plain text (its alt text): the text of every node in it.
fn alt(kids: &[Node]) -> String {
    kids.iter()
        .map(|node| match node {
            Node::Text(text) | Node::Code(text) | Node::Html(text) | Node::Autolink(text) => {
                text.clone()
            }
            Node::Emph(kids) | Node::Strong(kids) | Node::Del(kids) => alt(kids),
            Node::Link(kids, _) | Node::Image(kids, _) => alt(kids),
        })
        .collect()
}

/// Emphasis, strong or struck text: its tag, or its SGR codes on top of the line's.
fn span(kids: &[Node], paint: Paint, tag: &str, codes: &str) -> String {
    if paint.tags {
        return paint.tag(tag, &nodes(kids, paint));
    }
    if !paint.style.colour {
        return nodes(kids, paint);
    }
    let base = join(paint.base, codes);
    let inner = nodes(
        kids,
        Paint {
            base: &base,
            ..paint
        },
    );
    paint.span(codes, &inner)
}

/// `[text](url)` (and `![alt](url)`) as `text (url)`, just `url` when the text is the url.
fn link(kids: &[Node], url: &str, paint: Paint, tag: &str) -> String {
    let words = nodes(kids, paint);
    if paint.tags {
        return paint.tag(tag, &words);
    }
    let url_shown = underline(url, paint);
    let plain = Style {
        colour: false,
        ..paint.style
    };
    let bare = nodes(
        kids,
        Paint {
            style: plain,
            base: "",
            tags: false,
            refs: paint.refs,
        },
    );
    if words.is_empty() || bare == url {
        url_shown
    } else {
        format!("{words} ({url_shown})")
    }
}

fn underline(url: &str, paint: Paint) -> String {
    if paint.tags {
        paint.tag("a", url)
    } else if paint.style.colour {
        paint.span("4", url)
    } else {
        url.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::markdown::readable;

    fn paint(colour: bool) -> Paint<'static> {
        Paint {
            style: Style {
                colour,
                unicode: true,
            },
            base: "",
            tags: false,
            refs: &super::super::syntax::NO_REFS,
        }
    }

    #[test]
    fn spans_with_and_without_colour() {
        // (input, with colour (m shown as }), without colour)
        let cases: &[(&str, &str, &str)] = &[
            ("plain text", "plain text", "plain text"),
            ("a **bold** b", "a {1}bold{} b", "a bold b"),
            ("a *it* _it_ b", "a {3}it{} {3}it{} b", "a it it b"),
            ("***both***", "{3}{3;1}both{3}{}", "both"),
            ("__strong__", "{1}strong{}", "strong"),
            ("**a *b* c**", "{1}a {1;3}b{1} c{}", "a b c"),
            ("snake_case_name", "snake_case_name", "snake_case_name"),
            ("2*3*4 and 2 * 3", "2{3}3{}4 and 2 * 3", "234 and 2 * 3"),
            ("**unclosed", "**unclosed", "**unclosed"),
            ("** not**", "** not**", "** not**"),
            (
                "use `a*b*c` here",
                "use {36}a*b*c{} here",
                "use `a*b*c` here",
            ),
            ("``a ` b``", "{36}a ` b{}", "`` a ` b ``"),
            ("`unclosed", "`unclosed", "`unclosed"),
            ("*x `*` y*", "{3}x {3;36}*{3} y{}", "x `*` y"),
            ("\\*not\\*", "*not*", "*not*"),
            ("a\\b", "a\\b", "a\\b"),
            ("~~old~~", "{9}old{}", "~~old~~"),
            (
                "[docs](https://x.y/a_(b))",
                "docs ({4}https://x.y/a_(b){})",
                "docs (https://x.y/a_(b))",
            ),
            ("[**b**](u)", "{1}b{} ({4}u{})", "b (u)"),
            ("![logo](l.png)", "logo ({4}l.png{})", "logo (l.png)"),
            ("[u](u)", "{4}u{}", "u"),
            ("[a] [b](c d)", "[a] [b](c d)", "[a] [b](c d)"),
            ("<https://a.b>", "{4}https://a.b{}", "https://a.b"),
            ("a <b> c", "a <b> c", "a <b> c"),
            ("wow!", "wow!", "wow!"),
        ];
        for (input, coloured, plain) in cases {
            assert_eq!(
                readable(&render(input, paint(true))),
                *coloured,
                "{input:?}"
            );
            assert_eq!(render(input, paint(false)), *plain, "{input:?}");
        }
    }

    #[test]
    fn a_span_restores_the_lines_own_codes() {
        let heading = Paint {
            base: "1;4",
            ..paint(true)
        };
        assert_eq!(readable(&render("a `b` c", heading)), "a {1;4;36}b{1;4} c");
    }

    #[test]
    fn holds_only_what_is_undecided() {
        // (streamed so far, shown now)
        let cases: &[(&str, &str)] = &[
            ("Hello wor", "Hello wor"),
            ("Hello *", "Hello "),
            ("Hello **wor", "Hello "),
            ("Hello **world** and", "Hello {1}world{} and"),
            ("2*", "2"),
            ("2*3", "2"),
            ("x `y", "x "),
            ("see [a", "see "),
            ("see [a] b", "see [a] b"),
            ("end\\", "end"),
            ("<http", ""),
            ("<ok", ""),
            ("a < b", "a < b"),
            ("line one\nline two", "line one"),
        ];
        for (input, shown) in cases {
            let mut out = String::new();
            stream(input, false, false, &mut ' ', paint(true), &mut out);
            assert_eq!(readable(&out), *shown, "{input:?}");
        }
    }

    #[test]
    fn an_opener_without_a_closer_in_the_window_is_plain() {
        let long = format!("**{}** end", "x".repeat(super::super::nodes::WINDOW));
        let mut out = String::new();
        let taken = stream(&long, false, false, &mut ' ', paint(true), &mut out);
        assert_eq!(taken, long.len());
        assert_eq!(out, long);
    }
}
