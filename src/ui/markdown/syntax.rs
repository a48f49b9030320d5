//! The small grammars inside a line: a link's `(destination "title")`, an autolink or a raw
//! HTML tag after `<`, a character reference after `&`, a code span's content; each tells
//! "found", "not this", or "more text needed".

/// What a grammar made of the text at hand.
#[derive(Debug, PartialEq)]
pub(super) enum Scan {
    /// Matched: the bytes taken and the value.
    Found(usize, String),
    /// Cannot match.
    No,
    /// Could still match once more of the line arrives.
    More,
}

/// What follows a `<`.
#[derive(Debug, PartialEq)]
pub(super) enum Angle {
    Autolink(usize, String),
    Html(usize),
    No,
    More,
}

/// A paragraph's line break inside its text, once the next line is known to continue it (a
/// control character, which the sanitizer keeps out of the model's text).
pub(super) const SOFT: char = '\u{1}';
pub(super) const SOFT_STR: &str = "\u{1}";

/// Link reference definitions: normalised label to destination.
pub(super) type Refs = std::collections::BTreeMap<String, String>;

/// No definitions (where no document is around, as in a table's cell).
pub(super) static NO_REFS: Refs = Refs::new();

/// A label as references match it: case folded, runs of spaces made one.
pub(super) fn label(raw: &str) -> String {
    let folded = raw.to_lowercase().replace(['ß', 'ẞ'], "ss");
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The label of `[label]` at the start of `text`: its raw text and the bytes taken; `More`
/// when it is cut short.
pub(super) fn link_label(text: &str) -> Scan {
    let b = text.as_bytes();
    if b.first() != Some(&b'[') {
        return if b.is_empty() { Scan::More } else { Scan::No };
    }
    let mut j = 1;
    loop {
        match b.get(j) {
            None => return Scan::More,
            Some(b']') => break,
            Some(b'[') => return Scan::No,
            Some(b'\\') if j + 1 < b.len() => j += 2,
            Some(_) => j += 1,
        }
    }
    let raw = &text[1..j];
    match raw.len() <= 999 {
        true => Scan::Found(j + 1, raw.to_string()),
        false => Scan::No,
    }
}

/// A whole line `[label]: destination "title"`: its normalised label and destination.
pub(super) fn definition(line: &str) -> Option<(String, String)> {
    let Scan::Found(len, raw) = link_label(line) else {
        return None;
    };
    let key = label(&raw);
    let rest = line[len..].strip_prefix(':')?;
    let start = rest.len() - rest.trim_start().len();
    if key.is_empty() || rest[start..].is_empty() {
        return None;
    }
    // The line's end ends the destination.
    let (after, url) = match destination(&format!("{rest}\n"), start) {
        Scan::Found(n, url) if n > 0 || rest[start..].starts_with('<') => (start + n, url),
        _ => return None,
    };
    let b = rest.as_bytes();
    let i = spaces(b, after);
    if i == rest.len() {
        return Some((key, url));
    }
    match (i > after, title(rest, i)) {
        (true, Scan::Found(n, _)) if rest[i + n..].trim().is_empty() => Some((key, url)),
        _ => None,
    }
}

/// A code span's content: a space stripped from each end when both have one and it is not
/// all spaces.
pub(super) fn code_content(raw: &str) -> String {
    let raw = &raw.replace(SOFT, " ");
    let padded = raw.len() >= 2 && raw.starts_with(' ') && raw.ends_with(' ');
    match padded && !raw.bytes().all(|b| b == b' ') {
        true => raw[1..raw.len() - 1].to_string(),
        false => raw.to_string(),
    }
}

/// After a link's `]`: `(destination "title")`, its length and the destination.
pub(super) fn inline_link(text: &str) -> Scan {
    let b = text.as_bytes();
    match b.first() {
        None => return Scan::More,
        Some(b'(') => {}
        Some(_) => return Scan::No,
    }
    let mut i = spaces(b, 1);
    let (dest, after) = match destination(text, i) {
        Scan::Found(len, dest) => (dest, i + len),
        other => return other,
    };
    i = spaces(b, after);
    if i > after && matches!(b.get(i), Some(b'"' | b'\'' | b'(')) {
        match title(text, i) {
            Scan::Found(len, _) => i = spaces(b, i + len),
            other => return other,
        }
    }
    match b.get(i) {
        Some(b')') => Scan::Found(i + 1, dest),
        Some(_) => Scan::No,
        None => Scan::More,
    }
}

fn spaces(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\x01')) {
        i += 1;
    }
    i
}

/// A destination at `i`: `<…>` or a run without spaces or controls, its parentheses balanced.
fn destination(text: &str, i: usize) -> Scan {
    let b = text.as_bytes();
    if b.get(i) == Some(&b'<') {
        let mut j = i + 1;
        loop {
            match b.get(j) {
                None => return Scan::More,
                Some(b'>') => return Scan::Found(j + 1 - i, unescape(&text[i + 1..j])),
                Some(b'<') => return Scan::No,
                Some(b'\\') if b.get(j + 1).is_some_and(u8::is_ascii_punctuation) => j += 2,
                Some(_) => j += 1,
            }
        }
    }
    let (mut j, mut depth) = (i, 0usize);
    loop {
        match b.get(j) {
            None => return Scan::More,
            Some(b'\\') if b.get(j + 1).is_some_and(u8::is_ascii_punctuation) => j += 2,
            Some(b'(') => {
                depth += 1;
                j += 1;
            }
            Some(b')') if depth == 0 => break,
            Some(b')') => {
                depth -= 1;
                j += 1;
            }
            Some(c) if *c <= b' ' || *c == 0x7f => break,
            Some(_) => j += 1,
        }
    }
    match depth {
        0 => Scan::Found(j - i, unescape(&text[i..j])),
        _ => Scan::No,
    }
}

/// A title at `i`: in `"…"`, `'…'` or `(…)`.
fn title(text: &str, i: usize) -> Scan {
    let b = text.as_bytes();
    let close = match b[i] {
        b'(' => b')',
        c => c,
    };
    let mut j = i + 1;
    loop {
        match b.get(j) {
            None => return Scan::More,
            Some(c) if *c == close => return Scan::Found(j + 1 - i, unescape(&text[i + 1..j])),
            Some(b'(') if close == b')' => return Scan::No,
            Some(b'\\') if b.get(j + 1).is_some_and(u8::is_ascii_punctuation) => j += 2,
            Some(_) => j += 1,
        }
    }
}

/// Backslash escapes and character references resolved, as in a destination or title.
pub(super) fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let next = text[i + c.len_utf8()..].chars().next();
        if c == '\\' && next.is_some_and(|n| n.is_ascii_punctuation()) {
            out.extend(next);
            i += 2;
            continue;
        }
        if let (true, Scan::Found(len, decoded)) = (c == '&', entity(&text[i..])) {
            out.push_str(&decoded);
            i += len;
            continue;
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// A character reference at the start of `text` (which starts with `&`).
pub(super) fn entity(text: &str) -> Scan {
    let b = text.as_bytes();
    let (digits, max, hex) = match (b.get(1), b.get(2)) {
        (Some(b'#'), Some(b'x' | b'X')) => (3, 6, true),
        (Some(b'#'), _) => (2, 7, false),
        _ => (1, 32, false),
    };
    let ok = |c: &u8| match (digits, hex) {
        (1, _) => c.is_ascii_alphanumeric(),
        (_, true) => c.is_ascii_hexdigit(),
        _ => c.is_ascii_digit(),
    };
    let len = b[digits.min(b.len())..]
        .iter()
        .take_while(|c| ok(c))
        .count();
    let end = digits + len;
    if end >= b.len() {
        return if len <= max { Scan::More } else { Scan::No };
    }
    if len == 0 || len > max || b[end] != b';' || (digits == 1 && !b[1].is_ascii_alphabetic()) {
        return Scan::No;
    }
    match decode(&text[..=end]) {
        Some(decoded) => Scan::Found(end + 1, decoded),
        None => Scan::No,
    }
}

/// What a character reference (`&…;`, whole, its length already checked by [`entity`])
/// stands for, or `None` for an unknown name: read by the HTML reader (0 and what is no
/// character as U+FFFD; all 2,231 HTML5 names, here only with their `;`, as CommonMark wants).
/// The answer was sanitized before it was parsed, so what a reference decodes to is sanitized
/// here: `&#27;` is ESC, and `&#x1B;[2J` must not clear the screen.
fn decode(reference: &str) -> Option<String> {
    let rest = reference.strip_prefix('&')?;
    match crate::tools::kit::html::character_reference(rest, false) {
        Some(((first, second), used)) if used == rest.len() && rest.ends_with(';') => {
            let decoded: String = std::iter::once(first).chain(second).collect();
            Some(crate::ui::sanitize::sanitize(&decoded).into_owned())
        }
        _ => None,
    }
}

/// After `<`: an autolink (`<scheme:…>`, `<a@b.c>`) or an HTML tag, comment, processing
/// instruction, declaration or CDATA section, all on this line.
pub(super) fn angle(text: &str) -> Angle {
    let stop = text[1..].find(|c: char| c == '<' || c == '>' || c <= ' ');
    let auto = match stop.map(|at| at + 1) {
        Some(end) if text.as_bytes()[end] == b'>' => {
            let inner = &text[1..end];
            match (is_uri(inner), is_email(inner)) {
                (true, _) => Some(Angle::Autolink(end + 1, inner.to_string())),
                (_, true) => Some(Angle::Autolink(end + 1, format!("mailto:{inner}"))),
                _ => None,
            }
        }
        Some(_) => None,
        None => Some(Angle::More),
    };
    match (auto, super::html::inline_tag(text)) {
        (Some(Angle::Autolink(len, url)), _) => Angle::Autolink(len, url),
        (_, Scan::Found(len, _)) => Angle::Html(len),
        (Some(Angle::More), _) | (_, Scan::More) => Angle::More,
        _ => Angle::No,
    }
}

fn is_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let scheme_ok = (2..=32).contains(&scheme.len())
        && scheme.as_bytes()[0].is_ascii_alphabetic()
        && scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"+.-".contains(&c));
    scheme_ok && !rest.bytes().any(|c| c <= b' ' || c == b'<' || c == b'>')
}

fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b".!#$%&'*+/=?^_`{|}~-".contains(&c));
    let label_ok = |label: &str| {
        (1..=63).contains(&label.len())
            && label
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    local_ok && domain.split('.').all(label_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_references() {
        let found = |len, url: &str| Scan::Found(len, url.to_string());
        assert_eq!(inline_link("(u)"), found(3, "u"));
        assert_eq!(inline_link("(<a b> \"t\")x"), found(11, "a b"));
        assert_eq!(inline_link("(a(b)c 't')"), found(11, "a(b)c"));
        assert_eq!(inline_link("(u \"t"), Scan::More);
        assert_eq!(inline_link("(u x)"), Scan::No);
        assert_eq!(inline_link(" (u)"), Scan::No);
        assert_eq!(inline_link(""), Scan::More);
        assert_eq!(entity("&amp; x"), found(5, "&"));
        assert_eq!(entity("&copy;"), found(6, "©"));
        // HTML5 names past HTML 4's 253, one of them two characters.
        assert_eq!(entity("&Dcaron;"), found(8, "Ď"));
        assert_eq!(entity("&ngE;"), found(5, "≧\u{338}"));
        assert_eq!(entity("&#35;"), found(5, "#"));
        assert_eq!(entity("&#X22;"), found(6, "\""));
        assert_eq!(entity("&#0;"), found(4, "\u{fffd}"));
        // Decoded, as the sanitizer would have the character itself.
        assert_eq!(entity("&#x1B;"), found(6, "^["));
        assert_eq!(entity("&#27;"), found(5, "^["));
        assert_eq!(entity("&#x8D;"), found(6, "\u{fffd}"));
        assert_eq!(entity("&#x202E;"), found(8, "\u{fffd}"));
        assert_eq!(entity("&#10;"), found(5, "\n"));
        assert_eq!(entity("&#9;"), found(4, "\t"));
        assert_eq!(entity("&copy"), Scan::More);
        assert_eq!(entity("&copy x"), Scan::No);
        assert_eq!(entity("&nosuch;"), Scan::No);
        assert_eq!(entity("&#87654321;"), Scan::No);
        assert_eq!(unescape("a\\*b&amp;"), "a*b&");
    }

    #[test]
    fn after_an_angle() {
        let auto = |len, url: &str| Angle::Autolink(len, url.to_string());
        assert_eq!(angle("<https://a.b/c>"), auto(15, "https://a.b/c"));
        assert_eq!(angle("<a@b.c>"), auto(7, "mailto:a@b.c"));
        assert_eq!(angle("<http"), Angle::More);
        assert_eq!(angle("<b>"), Angle::Html(3));
        assert_eq!(angle("< b>"), Angle::No);
    }
}
