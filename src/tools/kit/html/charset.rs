//! A page's bytes as text, in the charset it declares: a byte-order mark, the Content-Type
//! header, or a `<meta>` near the start; UTF-8, UTF-16, and ISO-8859-1/Windows-1252 (which
//! browsers read as one), ISO-8859-15. Undeclared: UTF-8 when the bytes are valid UTF-8,
//! else Windows-1252.

use super::tokenize::{Token, Tokenizer};

/// The encodings Marvin reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Charset {
    Utf8,
    Utf16Le,
    Utf16Be,
    Windows1252,
    Latin9,
}

impl Charset {
    /// The encoding a charset label names (WHATWG's labels), if it is one of those read here.
    pub(crate) fn from_label(label: &str) -> Option<Self> {
        let label = label.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
        match label.as_str() {
            "utf-8" | "utf8" | "unicode-1-1-utf-8" | "x-unicode20utf8" => Some(Self::Utf8),
            "utf-16" | "utf-16le" | "unicode" | "ucs-2" => Some(Self::Utf16Le),
            "utf-16be" | "unicodefffe" => Some(Self::Utf16Be),
            "iso-8859-1" | "iso8859-1" | "iso_8859-1" | "iso-ir-100" | "latin1" | "l1"
            | "cp819" | "ibm819" | "csisolatin1" | "windows-1252" | "cp1252" | "x-cp1252"
            | "us-ascii" | "ascii" | "ansi_x3.4-1968" | "iso_8859-1:1987" => {
                Some(Self::Windows1252)
            }
            "iso-8859-15" | "iso8859-15" | "iso_8859-15" | "latin9" | "latin-9" | "l9" => {
                Some(Self::Latin9)
            }
            _ => None,
        }
    }

    /// The label lynx understands for it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Utf8 | Self::Utf16Le | Self::Utf16Be => "utf-8",
            Self::Windows1252 => "windows-1252",
            Self::Latin9 => "iso-8859-15",
        }
    }
}

/// The `charset=` of a Content-Type header.
pub(crate) fn from_content_type(content_type: &str) -> Option<Charset> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| Charset::from_label(value))
            .flatten()
    })
}

/// How far into a page a `<meta>` charset is looked for.
const PRESCAN: usize = 4096;

/// The charset a page is in: its BOM, then the header, then a `<meta>` in its first bytes,
/// then a guess.
pub(crate) fn detect(bytes: &[u8], content_type: Option<&str>) -> Charset {
    if let Some(charset) = from_bom(bytes) {
        return charset;
    }
    if let Some(charset) = content_type.and_then(from_content_type) {
        return charset;
    }
    if let Some(charset) = from_meta(&bytes[..bytes.len().min(PRESCAN)]) {
        // A page cannot declare itself UTF-16 in ASCII: browsers read such a page as UTF-8.
        return match charset {
            Charset::Utf16Le | Charset::Utf16Be => Charset::Utf8,
            other => other,
        };
    }
    if std::str::from_utf8(bytes).is_ok() {
        Charset::Utf8
    } else {
        Charset::Windows1252
    }
}

/// The page's text, decoded as [`detect`] says.
pub(crate) fn decode(bytes: &[u8], content_type: Option<&str>) -> String {
    decode_as(bytes, detect(bytes, content_type))
}

pub(crate) fn decode_as(bytes: &[u8], charset: Charset) -> String {
    let bytes = strip_bom(bytes, charset);
    match charset {
        Charset::Utf8 => String::from_utf8_lossy(bytes).into_owned(),
        Charset::Utf16Le | Charset::Utf16Be => {
            let units = bytes.chunks_exact(2).map(|pair| match charset {
                Charset::Utf16Le => u16::from_le_bytes([pair[0], pair[1]]),
                _ => u16::from_be_bytes([pair[0], pair[1]]),
            });
            char::decode_utf16(units)
                .map(|c| c.unwrap_or('\u{fffd}'))
                .collect()
        }
        Charset::Windows1252 => bytes.iter().map(|b| windows_1252(*b)).collect(),
        Charset::Latin9 => bytes.iter().map(|b| latin9(*b)).collect(),
    }
}

fn from_bom(bytes: &[u8]) -> Option<Charset> {
    match bytes {
        [0xef, 0xbb, 0xbf, ..] => Some(Charset::Utf8),
        [0xff, 0xfe, ..] => Some(Charset::Utf16Le),
        [0xfe, 0xff, ..] => Some(Charset::Utf16Be),
        _ => None,
    }
}

fn strip_bom(bytes: &[u8], charset: Charset) -> &[u8] {
    match (charset, bytes) {
        (Charset::Utf8, [0xef, 0xbb, 0xbf, rest @ ..]) => rest,
        (Charset::Utf16Le, [0xff, 0xfe, rest @ ..])
        | (Charset::Utf16Be, [0xfe, 0xff, rest @ ..]) => rest,
        _ => bytes,
    }
}

/// `<meta charset=…>` or `<meta http-equiv="Content-Type" content="…; charset=…">`.
fn from_meta(start: &[u8]) -> Option<Charset> {
    let text = String::from_utf8_lossy(start);
    Tokenizer::new(&text).find_map(|token| match token {
        Token::Start(tag) if tag.name == "meta" => tag
            .attr("charset")
            .and_then(Charset::from_label)
            .or_else(|| {
                let equiv = tag.attr("http-equiv")?;
                equiv
                    .eq_ignore_ascii_case("content-type")
                    .then(|| tag.attr("content").and_then(from_content_type))
                    .flatten()
            }),
        _ => None,
    })
}

/// A Windows-1252 byte (what browsers read ISO-8859-1 as): Latin-1, with printable
/// characters in 0x80–0x9F.
pub(crate) fn windows_1252(byte: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    match byte {
        0x80..=0x9f => HIGH[usize::from(byte - 0x80)],
        _ => char::from(byte),
    }
}

/// An ISO-8859-15 byte: Latin-1 with the euro sign and seven letters in place of symbols.
fn latin9(byte: u8) -> char {
    match byte {
        0xa4 => '€',
        0xa6 => 'Š',
        0xa8 => 'š',
        0xb4 => 'Ž',
        0xb8 => 'ž',
        0xbc => 'Œ',
        0xbd => 'œ',
        0xbe => 'Ÿ',
        _ => char::from(byte),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_charset_is_honoured() {
        let latin = b"<p>caf\xe9 \x80 \x93ok\x94</p>";
        let cases: &[(&[u8], Option<&str>, &str)] = &[
            ("<p>café</p>".as_bytes(), Some("text/html; charset=UTF-8"), "<p>café</p>"),
            (latin, Some("text/html; charset=ISO-8859-1"), "<p>café € “ok”</p>"),
            (latin, Some("text/html;charset=\"windows-1252\""), "<p>café € “ok”</p>"),
            (latin, None, "<p>café € “ok”</p>"),
            (b"\xa4", Some("text/html; charset=iso-8859-15"), "€"),
            (
                b"<meta charset=\"iso-8859-1\"><p>\xe9t\xe9</p>",
                None,
                "<meta charset=\"iso-8859-1\"><p>été</p>",
            ),
            (
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">\xe9",
                Some("text/html"),
                "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">é",
            ),
            ("\u{feff}<p>bom</p>".as_bytes(), Some("text/html; charset=iso-8859-1"), "<p>bom</p>"),
            (b"\xff\xfeh\0i\0", None, "hi"),
            ("<p>naïve</p>".as_bytes(), Some("text/html; charset=klingon"), "<p>naïve</p>"),
        ];
        for (bytes, content_type, expected) in cases {
            assert_eq!(
                decode(bytes, *content_type),
                *expected,
                "{content_type:?} {:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn labels_name_their_charsets() {
        assert_eq!(Charset::from_label("Latin1"), Some(Charset::Windows1252));
        assert_eq!(Charset::from_label(" UTF8 "), Some(Charset::Utf8));
        assert_eq!(Charset::from_label("koi8-r"), None);
        assert_eq!(Charset::Windows1252.label(), "windows-1252");
    }
}
