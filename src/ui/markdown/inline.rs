//! Inline Markdown within a line: **bold**, *italic*, `code`, ~~struck~~, links and escapes,
//! decided as soon as the text allows. An opener is held until its closer arrives on the same
//! line (at most [`WINDOW`] bytes on); without one it is shown as written.

use crate::ui::style::Style;

/// How far past an opening `*`, `` ` ``, `[` or `<` its closer is looked for: the most text a
/// span holds back while it streams. Past it, or at the line's end, the opener is plain text.
const WINDOW: usize = 256;

/// The style, and the SGR codes already in force on the line (a heading's bold), which each
/// span restores when it ends.
#[derive(Debug, Clone, Copy)]
pub(super) struct Paint<'a> {
    pub style: Style,
    pub base: &'a str,
    /// The conformance tests' mode: spans marked with HTML's tag names instead of painted.
    pub tags: bool,
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
pub(super) fn stream(
    text: &str,
    eof: bool,
    prev: &mut char,
    paint: Paint,
    out: &mut String,
) -> usize {
    let (mut i, mut plain) = (0, 0);
    while let Some(c) = text[i..].chars().next() {
        if c == '\n' {
            break;
        }
        if !special(c, paint) {
            *prev = c;
            i += c.len_utf8();
            continue;
        }
        out.push_str(&text[plain..i]);
        let Some((len, shown)) = span(text, i, eof, *prev, paint) else {
            return i;
        };
        match shown {
            Some(shown) => out.push_str(&shown),
            None => out.push_str(&text[i..i + len]),
        }
        i += len;
        plain = i;
        *prev = text[..i].chars().next_back().unwrap_or(' ');
    }
    out.push_str(&text[plain..i]);
    i
}

/// The whole of `text` (no newline in it) rendered.
pub(super) fn render(text: &str, paint: Paint) -> String {
    let mut out = String::with_capacity(text.len());
    stream(text, true, &mut ' ', paint, &mut out);
    out
}

fn special(c: char, paint: Paint) -> bool {
    matches!(c, '\\' | '`' | '*' | '_' | '[' | '!' | '<')
        || (c == '~' && (paint.style.colour || paint.tags))
}

/// A span starting at `i`: its length and what shows instead (`None`: as written), or `None`
/// while more text is needed to decide.
type Span = Option<(usize, Option<String>)>;

fn span(text: &str, i: usize, eof: bool, prev: char, paint: Paint) -> Span {
    match text.as_bytes()[i] {
        b'\\' => match at(text, i + 1, eof)? {
            c if c.is_ascii_punctuation() => Some((2, Some(c.to_string()))),
            _ => Some((1, None)),
        },
        b'`' => code(text, i, eof, paint),
        b'[' => link(text, i, i + 1, eof, paint),
        b'!' => match at(text, i + 1, eof)? {
            '[' => link(text, i, i + 2, eof, paint),
            _ => Some((1, None)),
        },
        b'<' => autolink(text, i, eof, paint),
        _ => emphasis(text, i, eof, prev, paint),
    }
}

/// The character at byte `i`; a newline past the end when nothing more comes; `None` while it
/// has not arrived.
fn at(text: &str, i: usize, eof: bool) -> Option<char> {
    let c = text.get(i..).and_then(|rest| rest.chars().next());
    c.or(eof.then_some('\n'))
}

/// The end of the run of `mark` at `i`, once the character after it is known.
fn run_end(text: &str, i: usize, mark: u8, eof: bool) -> Option<usize> {
    let b = text.as_bytes();
    let mut end = i;
    while end < b.len() && b[end] == mark {
        end += 1;
    }
    at(text, end, eof)?;
    Some(end)
}

/// What a closer search does at a character.
enum Probe {
    Close,
    /// Goes on from this byte.
    Skip(usize),
    /// There is no closer: the opener is plain.
    Fail,
}

/// Looks for a closer from byte `from` on the line, within [`WINDOW`] of the opener at
/// `start`: `Some(Some(j))` found at `j`, `Some(None)` none, `None` not known yet.
fn scan(
    text: &str,
    start: usize,
    from: usize,
    eof: bool,
    mut probe: impl FnMut(usize, char) -> Option<Probe>,
) -> Option<Option<usize>> {
    let mut j = from;
    while j <= start + WINDOW {
        let c = at(text, j, eof)?;
        if c == '\n' {
            return Some(None);
        }
        match probe(j, c)? {
            Probe::Close => return Some(Some(j)),
            Probe::Skip(next) => j = next,
            Probe::Fail => return Some(None),
        }
    }
    Some(None)
}

/// The byte after the character at `j`.
fn next(text: &str, j: usize) -> usize {
    j + text[j..].chars().next().map_or(1, char::len_utf8)
}

/// Skips the backslash at `j` and the punctuation it escapes, if any.
fn escaped(text: &str, j: usize, eof: bool) -> Option<Probe> {
    let after = j + 1;
    Some(match at(text, after, eof)? {
        p if p.is_ascii_punctuation() => Probe::Skip(after + 1),
        _ => Probe::Skip(after),
    })
}

/// Where the code span opened by `n` backticks ending at `from` closes (the start of its
/// closing run), searched within the window of the opener at `start`.
fn code_end(text: &str, start: usize, from: usize, n: usize, eof: bool) -> Option<Option<usize>> {
    scan(text, start, from, eof, |j, c| {
        if c != '`' {
            return Some(Probe::Skip(next(text, j)));
        }
        let end = run_end(text, j, b'`', eof)?;
        Some(if end - j == n {
            Probe::Close
        } else {
            Probe::Skip(end)
        })
    })
}

/// `` `code` ``: in the code colour without its backticks; as written without colour.
fn code(text: &str, i: usize, eof: bool, paint: Paint) -> Span {
    let open = run_end(text, i, b'`', eof)?;
    let n = open - i;
    let Some(close) = code_end(text, i, open, n, eof)? else {
        return Some((n, None));
    };
    if !paint.style.colour && !paint.tags {
        return Some((close + n - i, None));
    }
    let mut content = &text[open..close];
    let padded = content.starts_with(' ') && content.ends_with(' ');
    if padded && !content.trim().is_empty() {
        content = &content[1..content.len() - 1];
    }
    let shown = match paint.tags {
        true => paint.tag("code", content),
        false => paint.span("36", content),
    };
    Some((close + n - i, Some(shown)))
}

/// Whether `c` counts as punctuation for the flanking rules (ASCII or any symbol).
fn punct(c: char) -> bool {
    !c.is_alphanumeric() && !c.is_whitespace()
}

/// CommonMark's left- and right-flanking for a delimiter run between `prev` and `next`.
fn flanking(prev: char, next: char) -> (bool, bool) {
    let left = !next.is_whitespace() && (!punct(next) || prev.is_whitespace() || punct(prev));
    let right = !prev.is_whitespace() && (!punct(prev) || next.is_whitespace() || punct(next));
    (left, right)
}

/// Whether a run of `mark` between `prev` and `next` may open (`open`) or close emphasis:
/// `_` never inside a word (snake_case), `*` not between letters or digits (2*3*4).
fn can(open: bool, mark: u8, prev: char, next: char) -> bool {
    let (left, right) = flanking(prev, next);
    let (this, other, outer) = if open {
        (left, right, prev)
    } else {
        (right, left, next)
    };
    match mark {
        b'_' => this && (!other || punct(outer)),
        _ => this && !(prev.is_alphanumeric() && next.is_alphanumeric()),
    }
}

/// `*italic*`, `**bold**`, `***both***`, `_`-forms alike, and `~~struck~~` (with colour): the
/// markers dropped, the text painted (plain without colour).
fn emphasis(text: &str, i: usize, eof: bool, prev: char, paint: Paint) -> Span {
    let mark = text.as_bytes()[i];
    let open = run_end(text, i, mark, eof)?;
    let n = open - i;
    let next_char = at(text, open, eof)?;
    let fits = if mark == b'~' { n == 2 } else { n <= 3 };
    if !fits || !can(true, mark, prev, next_char) {
        return Some((n, None));
    }
    let close = emphasis_end(text, i, open, eof)?;
    let Some(close) = close else {
        return Some((n, None));
    };
    let inner = &text[open..close];
    let shown = if paint.tags {
        let inner = render(inner, paint);
        match (mark, n) {
            (b'~', _) => paint.tag("del", &inner),
            (_, 1) => paint.tag("em", &inner),
            (_, 2) => paint.tag("strong", &inner),
            _ => paint.tag("em", &paint.tag("strong", &inner)),
        }
    } else if paint.style.colour {
        let codes = match (mark, n) {
            (b'~', _) => "9",
            (_, 1) => "3",
            (_, 2) => "1",
            _ => "1;3",
        };
        let base = join(paint.base, codes);
        let inner = render(
            inner,
            Paint {
                base: &base,
                ..paint
            },
        );
        paint.span(codes, &inner)
    } else {
        render(inner, paint)
    };
    Some((close + n - i, Some(shown)))
}

/// Where the emphasis opened by the run from `i` to `open` closes: the same run on the line
/// that may close, past code spans and escapes.
fn emphasis_end(text: &str, i: usize, open: usize, eof: bool) -> Option<Option<usize>> {
    let (mark, n) = (text.as_bytes()[i], open - i);
    // Backtick runs whose length found no closer up to the window's end: no later run of
    // that length will either, so they are not searched again.
    let mut unclosed = Vec::new();
    scan(text, i, open, eof, |j, c| {
        let end = match c {
            '\\' => return escaped(text, j, eof),
            '`' => run_end(text, j, b'`', eof)?,
            c if c == char::from(mark) => run_end(text, j, mark, eof)?,
            _ => return Some(Probe::Skip(next(text, j))),
        };
        if c == '`' {
            if unclosed.contains(&(end - j)) {
                return Some(Probe::Skip(end));
            }
            return Some(match code_end(text, i, end, end - j, eof)? {
                Some(code) => Probe::Skip(code + end - j),
                None => {
                    unclosed.push(end - j);
                    Probe::Skip(end)
                }
            });
        }
        let before = text[..j].chars().next_back().unwrap_or(' ');
        let closes = end - j == n && can(false, mark, before, at(text, end, eof)?);
        Some(if closes {
            Probe::Close
        } else {
            Probe::Skip(end)
        })
    })
}

/// `[text](url)` (and `![alt](url)`) as `text (url)`, just `url` when the text is the url.
/// `label` is where the text starts.
fn link(text: &str, i: usize, label: usize, eof: bool, paint: Paint) -> Span {
    let plain = Some((1, None));
    let close = scan(text, i, label, eof, |j, c| {
        Some(match c {
            ']' => Probe::Close,
            '[' => Probe::Fail,
            '\\' => escaped(text, j, eof)?,
            _ => Probe::Skip(next(text, j)),
        })
    })?;
    let Some(close) = close else { return plain };
    if at(text, close + 1, eof)? != '(' {
        return plain;
    }
    let mut depth = 0;
    let end = scan(text, i, close + 2, eof, |j, c| {
        Some(match c {
            ')' if depth == 0 => Probe::Close,
            ')' => {
                depth -= 1;
                Probe::Skip(j + 1)
            }
            '(' => {
                depth += 1;
                Probe::Skip(j + 1)
            }
            c if c.is_whitespace() => Probe::Fail,
            _ => Probe::Skip(next(text, j)),
        })
    })?;
    let Some(end) = end else { return plain };
    let (words, url) = (&text[label..close], &text[close + 2..end]);
    let url_shown = underline(url, paint);
    let shown = if paint.tags {
        let name = if label > i + 1 { "img" } else { "a" };
        paint.tag(name, &render(words, paint))
    } else if words.is_empty() || words == url {
        url_shown
    } else {
        format!("{} ({url_shown})", render(words, paint))
    };
    Some((end + 1 - i, Some(shown)))
}

/// `<https://…>`: the address without its brackets.
fn autolink(text: &str, i: usize, eof: bool, paint: Paint) -> Span {
    const SCHEMES: [&str; 3] = ["https://", "http://", "mailto:"];
    let rest = &text[i + 1..];
    if !SCHEMES.iter().any(|scheme| rest.starts_with(scheme)) {
        let partial = SCHEMES
            .iter()
            .any(|s| s.len() > rest.len() && s.starts_with(rest));
        return if partial && !eof {
            None
        } else {
            Some((1, None))
        };
    }
    let end = scan(text, i, i + 1, eof, |j, c| {
        Some(match c {
            '>' => Probe::Close,
            '<' => Probe::Fail,
            c if c.is_whitespace() => Probe::Fail,
            _ => Probe::Skip(next(text, j)),
        })
    })?;
    let Some(end) = end else {
        return Some((1, None));
    };
    Some((end + 1 - i, Some(underline(&text[i + 1..end], paint))))
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
        }
    }

    #[test]
    fn spans_with_and_without_colour() {
        // (input, with colour (m shown as }), without colour)
        let cases: &[(&str, &str, &str)] = &[
            ("plain text", "plain text", "plain text"),
            ("a **bold** b", "a {1}bold{} b", "a bold b"),
            ("a *it* _it_ b", "a {3}it{} {3}it{} b", "a it it b"),
            ("***both***", "{1;3}both{}", "both"),
            ("__strong__", "{1}strong{}", "strong"),
            ("**a *b* c**", "{1}a {1;3}b{1} c{}", "a b c"),
            ("snake_case_name", "snake_case_name", "snake_case_name"),
            ("2*3*4 and 2 * 3", "2*3*4 and 2 * 3", "2*3*4 and 2 * 3"),
            ("**unclosed", "**unclosed", "**unclosed"),
            ("** not**", "** not**", "** not**"),
            (
                "use `a*b*c` here",
                "use {36}a*b*c{} here",
                "use `a*b*c` here",
            ),
            ("``a ` b``", "{36}a ` b{}", "``a ` b``"),
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
            ("2*3", "2*3"),
            ("x `y", "x "),
            ("see [a", "see "),
            ("see [a] b", "see [a] b"),
            ("end\\", "end"),
            ("<http", ""),
            ("<ok", "<ok"),
            ("line one\nline two", "line one"),
        ];
        for (input, shown) in cases {
            let mut out = String::new();
            stream(input, false, &mut ' ', paint(true), &mut out);
            assert_eq!(readable(&out), *shown, "{input:?}");
        }
    }

    #[test]
    fn an_opener_without_a_closer_in_the_window_is_plain() {
        let long = format!("**{}** end", "x".repeat(WINDOW));
        let mut out = String::new();
        let taken = stream(&long, false, &mut ' ', paint(true), &mut out);
        assert_eq!(taken, long.len());
        assert_eq!(out, long);
    }
}
