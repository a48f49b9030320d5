//! WHATWG's prescan of a byte stream for its encoding
//! (<https://html.spec.whatwg.org/#prescan-a-byte-stream-to-determine-its-encoding>): the first
//! 1024 bytes read as bytes, comments and other tags skipped, the first `<meta>` that declares
//! an encoding wins.

use encoding_rs::Encoding;

use super::charset::as_declared;

/// How many bytes the prescan reads, as the spec and browsers do.
pub(crate) const PRESCAN_BYTES: usize = 1024;

/// The encoding a `<meta>` in the first 1024 bytes declares, if one does.
pub(crate) fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    let bytes = &bytes[..bytes.len().min(PRESCAN_BYTES)];
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        if rest.starts_with(b"<!--") {
            // The `>` of the first `-->` after `<!`, which may share the opening's dashes.
            at += 2 + find(&rest[2..], b"-->")? + 2;
        } else if starts_meta(rest) {
            let (encoding, next) = meta(bytes, at + 6)?;
            if let Some(encoding) = encoding {
                return Some(as_declared(encoding));
            }
            at = next;
            continue;
        } else if rest.len() > 1
            && rest[0] == b'<'
            && (rest[1].is_ascii_alphabetic()
                || (rest[1] == b'/' && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
        {
            at += rest.iter().position(|b| is_space(*b) || *b == b'>')?;
            while let Some((_, next)) = attribute(bytes, at)? {
                at = next;
            }
            at = skip_spaces(bytes, at);
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            at += find(rest, b">")?;
        }
        at += 1;
    }
    None
}

/// `<meta` and then a space or `/`, in any case.
fn starts_meta(rest: &[u8]) -> bool {
    rest.len() >= 6
        && rest[..5].eq_ignore_ascii_case(b"<meta")
        && (is_space(rest[5]) || rest[5] == b'/')
}

/// The encoding the `<meta>` whose attributes start at `at` declares (if it does), and where
/// the prescan goes on; `None` when the bytes end inside it.
fn meta(bytes: &[u8], mut at: usize) -> Option<(Option<&'static Encoding>, usize)> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    let mut need_pragma = None;
    let mut charset = None;
    while let Some(((name, value), next)) = attribute(bytes, at)? {
        at = next;
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" => got_pragma |= value.eq_ignore_ascii_case(b"content-type"),
            b"content" if charset.is_none() => {
                if let Some(encoding) = from_content(&value) {
                    charset = Some(encoding);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Encoding::for_label(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    let declared = match need_pragma {
        Some(true) if !got_pragma => None,
        Some(_) => charset,
        None => None,
    };
    Some((declared, at + 1))
}

/// An attribute's name and value, lowercased, and where the next one starts; `Ok(None)` at the
/// tag's `>`, `None` when the bytes end first.
type Attribute = Option<((Vec<u8>, Vec<u8>), usize)>;

/// The spec's "get an attribute".
fn attribute(bytes: &[u8], at: usize) -> Option<Attribute> {
    let mut at = at;
    while is_space(*bytes.get(at)?) || bytes[at] == b'/' {
        at += 1;
    }
    if bytes[at] == b'>' {
        return Some(None);
    }
    let mut name = Vec::new();
    loop {
        let byte = *bytes.get(at)?;
        match byte {
            b'=' if !name.is_empty() => {
                at += 1;
                break;
            }
            _ if is_space(byte) => {
                at = skip_spaces(bytes, at);
                if *bytes.get(at)? != b'=' {
                    return Some(Some(((name, Vec::new()), at)));
                }
                at += 1;
                break;
            }
            b'/' | b'>' => return Some(Some(((name, Vec::new()), at))),
            _ => name.push(byte.to_ascii_lowercase()),
        }
        at += 1;
    }
    at = skip_spaces(bytes, at);
    let (value, next) = value(bytes, at)?;
    Some(Some(((name, value), next)))
}

/// An attribute's value from `at`, quoted or not, lowercased, and where it ends.
fn value(bytes: &[u8], mut at: usize) -> Option<(Vec<u8>, usize)> {
    let mut value = Vec::new();
    match *bytes.get(at)? {
        quote @ (b'"' | b'\'') => loop {
            at += 1;
            let byte = *bytes.get(at)?;
            if byte == quote {
                return Some((value, at + 1));
            }
            value.push(byte.to_ascii_lowercase());
        },
        b'>' => Some((value, at)),
        _ => loop {
            let byte = *bytes.get(at)?;
            if is_space(byte) || byte == b'>' {
                return Some((value, at));
            }
            value.push(byte.to_ascii_lowercase());
            at += 1;
        },
    }
}

/// The spec's "extracting a character encoding from a meta element" (a `content` value).
pub(super) fn from_content(value: &[u8]) -> Option<&'static Encoding> {
    let mut at = 0;
    loop {
        at += find_ignore_case(&value[at..], b"charset")? + 7;
        at = skip_spaces(value, at);
        if value.get(at) != Some(&b'=') {
            continue;
        }
        at = skip_spaces(value, at + 1);
        let rest = &value[at..];
        return match rest.first()? {
            quote @ (b'"' | b'\'') => {
                let end = rest[1..].iter().position(|b| b == quote)?;
                Encoding::for_label(&rest[1..1 + end])
            }
            _ => {
                let end = rest
                    .iter()
                    .position(|b| is_space(*b) || *b == b';')
                    .unwrap_or(rest.len());
                Encoding::for_label(&rest[..end])
            }
        };
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn skip_spaces(bytes: &[u8], at: usize) -> usize {
    at + bytes
        .get(at..)
        .map_or(0, |rest| rest.iter().take_while(|b| is_space(**b)).count())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find_ignore_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{ISO_8859_2, UTF_8, WINDOWS_1251, WINDOWS_1252};

    #[test]
    fn the_first_meta_that_declares_wins() {
        let cases: &[(&str, Option<&'static Encoding>)] = &[
            ("<meta charset=iso-8859-2>", Some(ISO_8859_2)),
            ("<META CHARSET='cp1251'/>", Some(WINDOWS_1251)),
            (
                "<meta http-equiv=Content-Type content='text/html; charset=latin1'>",
                Some(WINDOWS_1252),
            ),
            // A content without its http-equiv declares nothing.
            (
                "<meta content='text/html; charset=latin1'><meta charset=utf-8>",
                Some(UTF_8),
            ),
            (
                "<!-- <meta charset=cp1251> --><meta charset=l2>",
                Some(ISO_8859_2),
            ),
            ("<!--><meta charset=cp1251>", Some(WINDOWS_1251)),
            (
                "<p title='<meta charset=cp1251>'><meta charset=utf-16le>",
                Some(UTF_8),
            ),
            ("<meta charset=klingon><meta charset=l2>", Some(ISO_8859_2)),
            ("<meta charset=\"utf-8", None),
            ("<p>nothing here</p>", None),
        ];
        for (html, expected) in cases {
            assert_eq!(prescan(html.as_bytes()), *expected, "{html}");
        }
    }

    #[test]
    fn only_the_first_kilobyte_is_read() {
        let late = format!("{}<meta charset=cp1251>", " ".repeat(PRESCAN_BYTES));
        assert_eq!(prescan(late.as_bytes()), None);
    }
}
