//! A page's bytes as text, in the encoding it declares, by WHATWG's rules: a byte-order mark,
//! then the Content-Type header's `charset`, then a `<meta>` (the byte-stream prescan of the
//! first 1024 bytes, then one later in the head); every WHATWG encoding, through
//! `encoding_rs`. Undeclared: UTF-8 when the bytes are valid UTF-8, else Windows-1252.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};

use super::prescan;
use super::tokenize::{Token, Tokenizer};

/// How far into a page the `<meta>` charset of its head is looked for once the prescan of its
/// first 1024 bytes found none: a head of large inline scripts and styles fits.
const HEAD_SCAN: usize = 1024 * 1024;

/// The elements of a head (a start tag of any other ends it).
const IN_HEAD: &[&str] = &[
    "html", "head", "meta", "title", "link", "style", "script", "base", "noscript", "template",
];
/// Those of them whose text is not the page's.
const RAW_IN_HEAD: &[&str] = &["title", "style", "script", "noscript", "template"];

/// The encoding a label names (WHATWG's labels: `latin1`, `cp1251`, `sjis`, …), quotes
/// around it allowed.
pub(crate) fn for_label(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.trim().trim_matches(['"', '\'']).as_bytes())
}

/// The `charset=` of a Content-Type header.
pub(crate) fn from_content_type(content_type: &str) -> Option<&'static Encoding> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| for_label(value))
            .flatten()
    })
}

/// The encoding a page is in: the one it declares, else UTF-8 when its bytes are valid UTF-8,
/// else Windows-1252.
pub(crate) fn detect(bytes: &[u8], content_type: Option<&str>) -> &'static Encoding {
    declared(bytes, content_type).unwrap_or_else(|| {
        if std::str::from_utf8(bytes).is_ok() {
            UTF_8
        } else {
            WINDOWS_1252
        }
    })
}

/// The encoding a page declares: its BOM, then the header, then a `<meta>`.
pub(crate) fn declared(bytes: &[u8], content_type: Option<&str>) -> Option<&'static Encoding> {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return Some(encoding);
    }
    content_type
        .and_then(from_content_type)
        .or_else(|| prescan::prescan(bytes))
        .or_else(|| from_head(bytes))
}

/// The page's text, decoded as [`detect`] says.
pub(crate) fn decode(bytes: &[u8], content_type: Option<&str>) -> String {
    decode_as(bytes, detect(bytes, content_type))
}

/// Bytes in `encoding` as text (a BOM, if any, wins, as in browsers); what cannot be decoded
/// becomes U+FFFD.
pub(crate) fn decode_as(bytes: &[u8], encoding: &'static Encoding) -> String {
    encoding.decode(bytes).0.into_owned()
}

/// What a `<meta>` may declare: UTF-16 cannot be declared in ASCII (a page saying so is read as
/// UTF-8), and `x-user-defined` is read as Windows-1252.
pub(crate) fn as_declared(encoding: &'static Encoding) -> &'static Encoding {
    if encoding == UTF_16LE || encoding == UTF_16BE {
        UTF_8
    } else if encoding == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        encoding
    }
}

/// A `<meta>` charset later in the head than the prescan reads. The spec's prescan stops at
/// 1024 bytes, and browsers then change the encoding (reparse) when the tree builder meets a
/// `<meta charset>` while their confidence is tentative; reading the whole head (up to
/// `HEAD_SCAN`) with the tokenizer does what that reparse does for a page whose meta comes after
/// a large script or style. The body is not searched: a `<meta>` there is rare and more often
/// quoted markup than a declaration.
fn from_head(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(HEAD_SCAN)];
    // The markup of a head is ASCII in every encoding a meta may declare.
    let text = String::from_utf8_lossy(head);
    let mut in_raw_text = false;
    for token in Tokenizer::new(&text) {
        match &token {
            Token::Start(tag) => in_raw_text = RAW_IN_HEAD.contains(&tag.name.as_str()),
            Token::End(_) => in_raw_text = false,
            Token::Text(_) => {}
        }
        match token {
            Token::Start(tag) if tag.name == "meta" => {
                // The tree builder's rules for a `<meta>` in the head, as strict as the
                // prescan's: a label as it is, a content only with its http-equiv.
                let declared = match tag.attr("charset") {
                    Some(label) => Encoding::for_label(label.as_bytes()),
                    None => tag
                        .attr("http-equiv")
                        .filter(|equiv| equiv.eq_ignore_ascii_case("content-type"))
                        .and_then(|_| prescan::from_content(tag.attr("content")?.as_bytes())),
                };
                if let Some(encoding) = declared {
                    return Some(as_declared(encoding));
                }
            }
            // The head ends at its end tag, at a tag that belongs in the body, or at text.
            Token::Start(tag) if !IN_HEAD.contains(&tag.name.as_str()) => return None,
            Token::End(name) if name == "head" => return None,
            Token::Text(text) if !text.trim().is_empty() && !in_raw_text => return None,
            _ => {}
        }
    }
    None
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
            (b"\xb3\xf3d\xbc", Some("text/html; charset=iso-8859-2"), "łódź"),
            (b"\xcf\xf0\xe8\xe2\xe5\xf2", Some("text/html; charset=windows-1251"), "Привет"),
            (b"\x93\xfa\x96\x7b", Some("text/html; charset=Shift_JIS"), "日本"),
            (b"\xc6\xfc\xcb\xdc", Some("text/html; charset=euc-jp"), "日本"),
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
    fn a_meta_after_the_first_kilobytes_of_the_head_counts() {
        let script = format!("<script>{}</script>", "var x = 1;\n".repeat(600));
        let page = format!("<html><head>{script}<meta charset=windows-1251></head><body>\u{0}");
        let mut bytes = page.into_bytes();
        bytes.extend_from_slice(b"\xcf\xf0\xe8\xe2\xe5\xf2");
        assert!(bytes.len() > 4096);
        assert_eq!(detect(&bytes, Some("text/html")), encoding_rs::WINDOWS_1251);
        assert!(decode(&bytes, None).ends_with("Привет"));
        // In the body, a meta is not a declaration.
        for body in ["<body>", "<p>", "text"] {
            let page = format!("{body}{script}<meta charset=windows-1251>\u{e9}");
            assert_eq!(detect(page.as_bytes(), None), UTF_8, "{body}");
        }
    }

    #[test]
    fn labels_name_their_encodings() {
        assert_eq!(for_label("Latin1"), Some(WINDOWS_1252));
        assert_eq!(for_label(" UTF8 "), Some(UTF_8));
        assert_eq!(for_label("'koi8-r'"), Some(encoding_rs::KOI8_R));
        assert_eq!(for_label("klingon"), None);
        assert_eq!(as_declared(UTF_16LE), UTF_8);
    }
}
