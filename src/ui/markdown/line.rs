//! What a line of Markdown is (heading, list item, quote, fence, table row, rule, text),
//! decided from as little of its start as possible so that the rest can stream.

/// A line's kind, with the quote marks (`>`) in front of it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Class {
    /// How many `>` marks: the quote's depth.
    pub quote: usize,
    /// Where the line starts after its quote marks (bytes).
    pub after_quote: usize,
    pub kind: Kind,
}

/// Offsets are bytes from the line's start.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Only spaces or tabs (`len` bytes) before the newline.
    Blank { len: usize },
    /// `#` to `######`; the title starts at `skip`.
    Heading { level: usize, skip: usize },
    /// `-`, `*`, `+` or `12.`/`12)` at `indent` columns; the marker is the bytes in
    /// `marker`, the content starts at `skip`.
    Item {
        indent: usize,
        marker: (usize, usize),
        ordered: bool,
        skip: usize,
    },
    /// Anything else: text, indented `indent` columns, its first character at `skip`.
    Text { indent: usize, skip: usize },
    /// `---`, `***` or `___` (three or more, spaces allowed): held until its newline.
    Rule,
    /// Three or more backticks or tildes: held until its newline (the info string).
    Fence,
    /// Starts with `|`: held until its newline.
    TableRow,
    /// Indented code (four columns past `base`, not in a paragraph): the code starts at
    /// `skip`, after `pad` spaces left of a tab that spanned the indentation.
    Code { skip: usize, pad: usize },
    /// `===` or `---` under a paragraph: it was a heading of this level.
    Setext { level: usize },
    /// Starts with `<`: held until its newline to see whether it starts an HTML block.
    Html,
    /// Starts with `[` outside a paragraph: held until its newline to see whether it defines
    /// a link reference.
    Definition,
}

/// What the lines before tell about this one.
#[derive(Debug, Clone, Copy)]
pub(super) struct Context {
    /// A paragraph is open: indentation continues it, `===` makes it a heading.
    pub paragraph: bool,
    /// The quote depth of that paragraph: an underline must be in the same quote.
    pub quote: usize,
    /// The column of the open list item's text (0 outside lists): a quote may start up to
    /// three columns past it, indented code starts four past it.
    pub content: usize,
}

/// The character at `i`, a newline past the end when nothing more will come (`eof`), or
/// `None` when it has not arrived yet.
fn byte_at(line: &[u8], i: usize, eof: bool) -> Option<u8> {
    line.get(i).copied().or(eof.then_some(b'\n'))
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Classifies the line at the start of `line`, or `None` while its start does not tell yet.
/// `eof`: the line ends where `line` does.
pub(super) fn classify(line: &str, eof: bool, context: Context) -> Option<Class> {
    let b = line.as_bytes();
    let at = |i| byte_at(b, i, eof);
    let (mut i, mut quote) = (0, 0);
    loop {
        let mut j = i;
        let most = if quote == 0 { context.content + 3 } else { 3 };
        while j - i < most && at(j)? == b' ' {
            j += 1;
        }
        if at(j)? != b'>' {
            break;
        }
        quote += 1;
        i = j + 1;
        if at(i)? == b' ' {
            i += 1;
        }
    }
    let after_quote = i;
    let (mut indent, mut code) = (0, None);
    while is_space(at(i)?) {
        indent += if b[i] == b'\t' { 4 - indent % 4 } else { 1 };
        i += 1;
        let code_at = context.content + 4;
        if indent >= code_at && code.is_none() {
            code = Some((i, indent - code_at));
        }
    }
    let kind = match code {
        Some((skip, pad)) if !context.paragraph && at(i)? != b'\n' => Kind::Code { skip, pad },
        Some(_) if at(i)? != b'\n' => Kind::Text { indent, skip: i },
        _ if context.paragraph
            && quote == context.quote
            && indent >= context.content
            && matches!(at(i)?, b'=' | b'-') =>
        {
            match setext(b, i, eof)? {
                Some(level) => Kind::Setext { level },
                None => kind(b, i, indent, quote == 0, eof)?,
            }
        }
        _ if !context.paragraph && at(i)? == b'[' => Kind::Definition,
        _ => match kind(b, i, indent, quote == 0, eof)? {
            // A list's first item (not a sibling of the open item) interrupting a paragraph.
            item @ Kind::Item { .. }
                if context.paragraph && indent >= context.content && !interrupts(b, &item) =>
            {
                Kind::Text { indent, skip: i }
            }
            kind => kind,
        },
    };
    Some(Class {
        quote,
        after_quote,
        kind,
    })
}

/// The kind of a line whose first visible character is at `i`; `blocks`: fences, tables and
/// rules may start here (not inside a quote).
fn kind(b: &[u8], i: usize, indent: usize, blocks: bool, eof: bool) -> Option<Kind> {
    let at = |i| byte_at(b, i, eof);
    let text = Kind::Text { indent, skip: i };
    let kind = match at(i)? {
        b'\n' => Kind::Blank { len: i },
        b'#' => {
            let end = run_end(b, i, b'#', eof)?;
            if end - i > 6 || !matches!(at(end)?, b' ' | b'\t' | b'\n') {
                return Some(text);
            }
            let skip = skip_spaces(b, end, eof)?;
            Kind::Heading {
                level: end - i,
                skip,
            }
        }
        mark @ (b'`' | b'~') if blocks => match run_end(b, i, mark, eof)? - i {
            3.. => Kind::Fence,
            _ => text,
        },
        b'|' if blocks => Kind::TableRow,
        b'<' => Kind::Html,
        mark @ (b'-' | b'*' | b'_' | b'+') => {
            if mark != b'+' && blocks && is_rule(b, i, mark, eof)? {
                Kind::Rule
            } else if mark != b'_' && matches!(at(i + 1)?, b' ' | b'\t' | b'\n') {
                item(b, indent, (i, i + 1), false, eof)?
            } else {
                text
            }
        }
        b'0'..=b'9' => {
            let mut end = i;
            while end - i < 9 && at(end)?.is_ascii_digit() {
                end += 1;
            }
            let delimited = matches!(at(end)?, b'.' | b')');
            if delimited && matches!(at(end + 1)?, b' ' | b'\t' | b'\n') {
                item(b, indent, (i, end + 1), true, eof)?
            } else {
                text
            }
        }
        _ => text,
    };
    Some(kind)
}

/// Whether a list item may end a paragraph: not when it is empty, nor when it is ordered and
/// starts from another number than 1.
fn interrupts(b: &[u8], item: &Kind) -> bool {
    let Kind::Item {
        marker,
        ordered,
        skip,
        ..
    } = item
    else {
        return true;
    };
    let empty = matches!(b.get(*skip), None | Some(b'\n'));
    let one = !ordered || b[marker.0..marker.1 - 1] == *b"1";
    !empty && one
}

fn item(b: &[u8], indent: usize, marker: (usize, usize), ordered: bool, eof: bool) -> Option<Kind> {
    Some(Kind::Item {
        indent,
        marker,
        ordered,
        skip: skip_spaces(b, marker.1, eof)?,
    })
}

/// Where the run of `mark` starting at `i` ends, once the byte after it is known.
fn run_end(b: &[u8], i: usize, mark: u8, eof: bool) -> Option<usize> {
    let mut end = i;
    while byte_at(b, end, eof)? == mark {
        end += 1;
    }
    Some(end)
}

/// The first byte from `i` that is not a space or a tab, once known.
fn skip_spaces(b: &[u8], mut i: usize, eof: bool) -> Option<usize> {
    while is_space(byte_at(b, i, eof)?) {
        i += 1;
    }
    Some(i)
}

/// The level of a setext underline from `i` (`=`s or `-`s, then only spaces), `None` when
/// the line is not one; known at its newline.
fn setext(b: &[u8], i: usize, eof: bool) -> Option<Option<usize>> {
    let mark = b[i];
    let end = run_end(b, i, mark, eof)?;
    let after = skip_spaces(b, end, eof)?;
    let underline = byte_at(b, after, eof)? == b'\n';
    Some(underline.then_some(if mark == b'=' { 1 } else { 2 }))
}

/// Whether the line from `i` is a thematic break: three or more `mark`s and nothing else but
/// spaces. Known at the first other character, else at the newline.
fn is_rule(b: &[u8], mut i: usize, mark: u8, eof: bool) -> Option<bool> {
    let mut marks = 0;
    loop {
        match byte_at(b, i, eof)? {
            b'\n' => return Some(marks >= 3),
            c if c == mark => marks += 1,
            c if is_space(c) => {}
            _ => return Some(false),
        }
        i += 1;
    }
}

/// Inside a fence opened with `len` times `mark`: `Some(Some(n))` when the line closes it
/// (`n` bytes with its newline), `Some(None)` when it is a line of code, `None` while the
/// start does not tell yet.
pub(super) fn closes_fence(line: &str, eof: bool, mark: u8, len: usize) -> Option<Option<usize>> {
    let b = line.as_bytes();
    let start = skip_spaces(b, 0, eof)?;
    let end = run_end(b, start, mark, eof)?;
    if end - start < len {
        return Some(None);
    }
    let after = skip_spaces(b, end, eof)?;
    if byte_at(b, after, eof)? != b'\n' {
        return Some(None);
    }
    Some(Some((after + 1).min(b.len())))
}

/// A heading's text in `rest` (its line from the title on, or from what is still to show of
/// it, `prev` the character shown before): the bytes that may be shown now, and where the
/// line ends once it has (its closing `#`s are never shown; while the line is arriving, a run
/// of `#`s and spaces at the end may be one).
pub(super) fn heading_content(rest: &str, eof: bool, prev: char) -> (usize, Option<usize>) {
    let Some(end) = rest.find('\n').or(eof.then_some(rest.len())) else {
        return (rest.trim_end_matches([' ', '\t', '#']).len(), None);
    };
    let line = rest[..end].trim_end_matches([' ', '\t']);
    let before = line.trim_end_matches('#');
    // A closing run follows a space, or is all the title there is; text shown before `rest`
    // counts (`foo` shown, then `#` arriving is part of the title, not its end).
    let after_space = match before.is_empty() {
        true => prev == ' ' || prev == '\t',
        false => before.ends_with([' ', '\t']),
    };
    let closing = before.len() < line.len() && after_space && !before.ends_with('\\');
    let content = match closing {
        true => before.trim_end_matches([' ', '\t']),
        false => line,
    };
    (content.len(), Some(end))
}

/// An opening fence: its indentation (bytes), mark, length and the language (the info
/// string's first word); `None` when the line is not one (a backtick fence's info string
/// holds no backtick).
pub(super) fn fence_open(line: &str) -> Option<(usize, u8, usize, &str)> {
    let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
    let mark = *line.as_bytes().get(indent)?;
    let rest = &line[indent..];
    let len = rest.len() - rest.trim_start_matches(mark as char).len();
    let info = rest[len..].trim();
    if len < 3 || (mark == b'`' && info.contains('`')) {
        return None;
    }
    let language = info.split_whitespace().next().unwrap_or("");
    Some((indent, mark, len, language))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOP: Context = Context {
        paragraph: false,
        quote: 0,
        content: 0,
    };

    fn kind_of(line: &str, eof: bool) -> Option<Kind> {
        classify(line, eof, TOP).map(|class| class.kind)
    }

    #[test]
    fn kinds_once_the_start_tells() {
        let text = |indent, skip| Some(Kind::Text { indent, skip });
        let bullet = |indent, at: usize, skip| {
            Some(Kind::Item {
                indent,
                marker: (at, at + 1),
                ordered: false,
                skip,
            })
        };
        let cases: &[(&str, Option<Kind>)] = &[
            ("", None),
            ("   ", None),
            ("\n", Some(Kind::Blank { len: 0 })),
            ("  \t\n", Some(Kind::Blank { len: 3 })),
            ("#", None),
            ("## ", None),
            ("## T", Some(Kind::Heading { level: 2, skip: 3 })),
            ("#tag", text(0, 0)),
            ("####### seven", text(0, 0)),
            ("-", None),
            ("- ", None),
            ("- a", bullet(0, 0, 2)),
            ("  * b", bullet(2, 2, 4)),
            ("+ c", bullet(0, 0, 2)),
            ("-5 degrees", text(0, 0)),
            ("**bold**", text(0, 0)),
            ("*it*", text(0, 0)),
            ("---", None),
            ("---\n", Some(Kind::Rule)),
            ("* * *\n", Some(Kind::Rule)),
            ("___\n", Some(Kind::Rule)),
            ("__init__", text(0, 0)),
            ("--x", text(0, 0)),
            ("12", None),
            ("12.", None),
            ("2024 was", text(0, 0)),
            ("3.14", text(0, 0)),
            ("``", None),
            ("``x", text(0, 0)),
            ("```", None),
            ("```r", Some(Kind::Fence)),
            ("   ~~~\n", Some(Kind::Fence)),
            ("`code`", text(0, 0)),
            ("| a", Some(Kind::TableRow)),
            ("    indented", Some(Kind::Code { skip: 4, pad: 0 })),
            ("    # not a heading", Some(Kind::Code { skip: 4, pad: 0 })),
            ("  \t\tx", Some(Kind::Code { skip: 3, pad: 0 })),
            ("   ", None),
            ("Plain", text(0, 0)),
        ];
        for (line, expected) in cases {
            assert_eq!(&kind_of(line, false), expected, "line {line:?}");
        }
        let ordered = Kind::Item {
            indent: 0,
            marker: (0, 3),
            ordered: true,
            skip: 4,
        };
        assert_eq!(kind_of("12. x", false), Some(ordered));
        assert_eq!(
            kind_of("1) x", false).map(|k| matches!(k, Kind::Item { .. })),
            Some(true)
        );
    }

    #[test]
    fn a_paragraph_above_changes_what_a_line_is() {
        let paragraph = Context {
            paragraph: true,
            ..TOP
        };
        let kind = |line| classify(line, false, paragraph).unwrap().kind;
        assert_eq!(kind("    # not code"), Kind::Text { indent: 4, skip: 4 });
        assert_eq!(kind("===\n"), Kind::Setext { level: 1 });
        assert_eq!(kind("--- \n"), Kind::Setext { level: 2 });
        assert_eq!(kind("- - -\n"), Kind::Rule);
        assert_eq!(kind("=x"), Kind::Text { indent: 0, skip: 0 });
        assert_eq!(kind("*\n"), Kind::Text { indent: 0, skip: 0 });
        assert_eq!(kind("2. b"), Kind::Text { indent: 0, skip: 0 });
        assert!(matches!(kind("1. b"), Kind::Item { .. }));
        let in_item = Context { content: 2, ..TOP };
        let kind = |line| classify(line, false, in_item).unwrap().kind;
        assert_eq!(kind("    text"), Kind::Text { indent: 4, skip: 4 });
        assert_eq!(kind("      code"), Kind::Code { skip: 6, pad: 0 });
    }

    #[test]
    fn the_end_of_the_text_decides_when_nothing_follows() {
        let cases: &[(&str, Kind)] = &[
            ("", Kind::Blank { len: 0 }),
            ("  ", Kind::Blank { len: 2 }),
            ("#", Kind::Heading { level: 1, skip: 1 }),
            ("---", Kind::Rule),
            ("--", Kind::Text { indent: 0, skip: 0 }),
            ("12", Kind::Text { indent: 0, skip: 0 }),
        ];
        for (line, expected) in cases {
            assert_eq!(&kind_of(line, true).unwrap(), expected, "line {line:?}");
        }
    }

    #[test]
    fn quotes_nest_and_hold_only_text_kinds() {
        let class = classify("> > ## T", false, TOP).unwrap();
        assert_eq!((class.quote, class.after_quote), (2, 4));
        assert_eq!(class.kind, Kind::Heading { level: 2, skip: 7 });
        let plain = |line| classify(line, false, TOP).unwrap().kind;
        assert!(matches!(plain("> | a"), Kind::Text { .. }));
        assert!(matches!(plain("> ```x"), Kind::Text { .. }));
        assert!(matches!(plain("> - a"), Kind::Item { .. }));
        assert_eq!(classify(">", false, TOP), None);
        assert_eq!(classify("> ", false, TOP), None);
    }

    #[test]
    fn a_headings_closing_marks_are_not_its_text() {
        type Shown = (usize, Option<usize>);
        let cases: &[(&str, bool, Shown)] = &[
            ("foo ##\n", false, (3, Some(6))),
            ("foo ##  ", true, (3, Some(8))),
            ("foo#\n", false, (4, Some(4))),
            ("###\n", false, (0, Some(3))),
            ("foo \\##\n", false, (7, Some(7))),
            ("foo ##", false, (3, None)),
            ("foo # bar", false, (9, None)),
        ];
        for (rest, eof, expected) in cases {
            assert_eq!(heading_content(rest, *eof, ' '), *expected, "{rest:?}");
        }
        // The rest of a title whose start was shown already (it ended in `;`): its `#` is text.
        assert_eq!(heading_content("#\n", false, ';'), (1, Some(1)));
        assert_eq!(heading_content(" #\n", false, ';'), (0, Some(2)));
    }

    #[test]
    fn fence_lines() {
        let cases: &[(&str, bool, Option<Option<usize>>)] = &[
            ("```\n", false, Some(Some(4))),
            ("  ````  \nx", false, Some(Some(9))),
            ("```", true, Some(Some(3))),
            ("```", false, None),
            ("``", false, None),
            ("`` x", false, Some(None)),
            ("\n", false, Some(None)),
            ("```rust\n", false, Some(None)),
            ("fn main() {}", false, Some(None)),
        ];
        for (line, eof, expected) in cases {
            assert_eq!(
                &closes_fence(line, *eof, b'`', 3),
                expected,
                "line {line:?}"
            );
        }
        assert_eq!(fence_open("```rust title\n"), Some((0, b'`', 3, "rust")));
        assert_eq!(fence_open("   ~~~~"), Some((3, b'~', 4, "")));
        assert_eq!(fence_open("``` a`b"), None);
        assert_eq!(fence_open("~~~ a`b"), Some((0, b'~', 3, "a`b")));
    }
}
