//! Raw HTML in Markdown: the tags, comments and declarations CommonMark passes through inline,
//! and the seven kinds of HTML block (their start and end lines), whose lines are shown as
//! written, never read as Markdown.

use super::syntax::Scan;

/// Elements whose block (kind 1) ends at their end tag, blank lines and all.
const RAW: [&str; 4] = ["pre", "script", "style", "textarea"];

/// The elements that start a kind 6 block.
const BLOCK: &[&str] = &[
    "address",
    "article",
    "aside",
    "base",
    "basefont",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "iframe",
    "legend",
    "li",
    "link",
    "main",
    "menu",
    "menuitem",
    "nav",
    "noframes",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
];

/// How an HTML block ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    /// At the line holding this text (any case).
    Contains(&'static str),
    /// Before a blank line.
    Blank,
}

/// The end of the HTML block that `line` (its indentation already skipped, whole) starts, or
/// `None` when it starts none; `in_paragraph`: kind 7 cannot interrupt a paragraph.
pub(super) fn block_start(line: &str, in_paragraph: bool) -> Option<End> {
    let lower: String = line
        .chars()
        .take(16)
        .collect::<String>()
        .to_ascii_lowercase();
    if !lower.starts_with('<') {
        return None;
    }
    // The tag name from byte `from`, and what follows it.
    let name_at = |from: usize| {
        let name: String = lower[from..]
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        let rest = &line[from + name.len()..];
        (name, rest)
    };
    let ends = |rest: &str| {
        rest.chars()
            .next()
            .is_none_or(|c| c.is_whitespace() || c == '>')
    };
    let (name, rest) = name_at(1);
    if let Some(raw) = RAW.iter().find(|raw| **raw == name) {
        return ends(rest).then_some(End::Contains(close_tag(raw)));
    }
    let kinds: [(&str, &'static str); 3] = [("<!--", "-->"), ("<?", "?>"), ("<![cdata[", "]]>")];
    for (open, close) in kinds {
        if lower.starts_with(open) {
            return Some(End::Contains(close));
        }
    }
    if lower.starts_with("<!") && lower.as_bytes().get(2).is_some_and(u8::is_ascii_alphabetic) {
        return Some(End::Contains(">"));
    }
    let (name, rest) = match lower.starts_with("</") {
        true => name_at(2),
        false => (name, rest),
    };
    if BLOCK.contains(&name.as_str()) && (ends(rest) || rest.starts_with("/>")) {
        return Some(End::Blank);
    }
    let whole_tag = |len: usize| line[len..].trim().is_empty();
    match inline_tag(line) {
        Scan::Found(len, _) if !in_paragraph && whole_tag(len) && !line.starts_with("<!") => {
            Some(End::Blank)
        }
        _ => None,
    }
}

fn close_tag(name: &str) -> &'static str {
    match name {
        "pre" => "</pre>",
        "script" => "</script>",
        "style" => "</style>",
        _ => "</textarea>",
    }
}

/// Whether `line` ends a block that ends with `end` (a blank line is checked by the caller).
pub(super) fn ends(line: &str, end: End) -> bool {
    match end {
        End::Contains(text) => line.to_ascii_lowercase().contains(text),
        End::Blank => false,
    }
}

/// Raw inline HTML at the start of `text` (which starts with `<`): its length.
pub(super) fn inline_tag(text: &str) -> Scan {
    let found = |len: usize| Scan::Found(len, String::new());
    let until = |from: usize, close: &str| match text[from..].find(close) {
        Some(at) => found(from + at + close.len()),
        None => Scan::More,
    };
    let b = text.as_bytes();
    if let Some(rest) = text.strip_prefix("<!--") {
        return match (rest.starts_with('>'), rest.starts_with("->")) {
            (true, _) => found(5),
            (_, true) => found(6),
            _ => until(4, "-->"),
        };
    }
    if text.starts_with("<?") {
        return until(2, "?>");
    }
    if text.starts_with("<![CDATA[") {
        return until(9, "]]>");
    }
    if text.starts_with("<!") && b.get(2).is_some_and(u8::is_ascii_alphabetic) {
        return until(2, ">");
    }
    if prefix_of(text, "<![CDATA[") || text == "<!" || text == "<!-" {
        return Scan::More;
    }
    match text.starts_with("</") {
        true => closing_tag(text),
        false => open_tag(text),
    }
}

/// Whether `text` is a start of `whole` cut short.
fn prefix_of(text: &str, whole: &str) -> bool {
    text.len() < whole.len() && whole.starts_with(text)
}

/// A tag name at `i`: its end.
fn tag_name(b: &[u8], i: usize) -> Option<usize> {
    if !b.get(i)?.is_ascii_alphabetic() {
        return None;
    }
    let len = b[i..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
        .count();
    Some(i + len)
}

fn closing_tag(text: &str) -> Scan {
    let b = text.as_bytes();
    let Some(end) = tag_name(b, 2) else {
        return if b.len() == 2 { Scan::More } else { Scan::No };
    };
    let i = skip_space(b, end);
    match b.get(i) {
        Some(b'>') => Scan::Found(i + 1, String::new()),
        Some(_) => Scan::No,
        None => Scan::More,
    }
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

fn open_tag(text: &str) -> Scan {
    let b = text.as_bytes();
    let Some(mut i) = tag_name(b, 1) else {
        return if b.len() == 1 { Scan::More } else { Scan::No };
    };
    loop {
        let spaced = skip_space(b, i);
        match b.get(spaced) {
            None => return Scan::More,
            Some(b'>') => return Scan::Found(spaced + 1, String::new()),
            Some(b'/') => {
                return match b.get(spaced + 1) {
                    Some(b'>') => Scan::Found(spaced + 2, String::new()),
                    Some(_) => Scan::No,
                    None => Scan::More,
                };
            }
            Some(_) if spaced == i => return Scan::No,
            Some(_) => match attribute(b, spaced) {
                Scan::Found(len, _) => i = spaced + len,
                other => return other,
            },
        }
    }
}

/// An attribute at `i`: a name, then maybe `=` and a value.
fn attribute(b: &[u8], i: usize) -> Scan {
    let name_start = |c: &u8| c.is_ascii_alphabetic() || *c == b'_' || *c == b':';
    if !b.get(i).is_some_and(name_start) {
        return Scan::No;
    }
    let name = b[i..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || b"_.:-".contains(c))
        .count();
    let after = skip_space(b, i + name);
    match b.get(after) {
        None => return Scan::More,
        Some(b'=') => {}
        Some(_) => return Scan::Found(name, String::new()),
    }
    let v = skip_space(b, after + 1);
    let len = match b.get(v) {
        None => return Scan::More,
        Some(q @ (b'"' | b'\'')) => match b[v + 1..].iter().position(|c| c == q) {
            Some(at) => at + 2,
            None => return Scan::More,
        },
        Some(_) => {
            let len = b[v..]
                .iter()
                .take_while(|c| !c.is_ascii_whitespace() && !b"\"'=<>`".contains(c))
                .count();
            if len == 0 {
                return Scan::No;
            }
            len
        }
    };
    Scan::Found(v + len - i, String::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_tags() {
        let cases: &[(&str, Scan)] = &[
            ("<a>", Scan::Found(3, String::new())),
            (
                "<a href=\"x\" b c='d' e=f />x",
                Scan::Found(26, String::new()),
            ),
            ("</b >", Scan::Found(5, String::new())),
            ("<!-- c -->", Scan::Found(10, String::new())),
            ("<!-->", Scan::Found(5, String::new())),
            ("<?php x ?>", Scan::Found(10, String::new())),
            ("<!DOCTYPE html>", Scan::Found(15, String::new())),
            ("<a href=\"x", Scan::More),
            ("<a", Scan::More),
            ("<33>", Scan::No),
            ("<a =x>", Scan::No),
            ("<a b=>", Scan::No),
        ];
        for (text, expected) in cases {
            assert_eq!(&inline_tag(text), expected, "{text:?}");
        }
    }

    #[test]
    fn block_starts() {
        let cases: &[(&str, bool, Option<End>)] = &[
            ("<div>", false, Some(End::Blank)),
            ("<DIV CLASS=\"x\">*md*", true, Some(End::Blank)),
            ("</table>", true, Some(End::Blank)),
            ("<pre lang=\"x\">", true, Some(End::Contains("</pre>"))),
            ("<!-- c", true, Some(End::Contains("-->"))),
            ("<?php", true, Some(End::Contains("?>"))),
            ("<!DOCTYPE html>", true, Some(End::Contains(">"))),
            ("<a href=\"x\">", false, Some(End::Blank)),
            ("<a href=\"x\">", true, None),
            ("<a href=\"x\"> text", false, None),
            ("<divx>", true, None),
            ("<http://a>", false, None),
            ("a <div>", false, None),
        ];
        for (line, in_paragraph, expected) in cases {
            assert_eq!(&block_start(line, *in_paragraph), expected, "{line:?}");
        }
    }
}
