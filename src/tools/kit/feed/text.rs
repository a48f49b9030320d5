//! Text of feeds and snippets: XML and HTML character references, a small tag stripper that
//! keeps a line per block (enough for a feed's description or a search snippet; a page wants
//! more), white space collapsed, and a feed's bytes turned into text.

use crate::tools::kit::html::{self, charset};

/// The text of an XML reference: the five predefined entities and character references;
/// any other entity (`&nbsp;` in a careless feed) is kept for the HTML pass.
pub(super) fn xml_reference(name: &str) -> String {
    let known = match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "apos" => Some('\''),
        "quot" => Some('"'),
        _ => char_reference(name),
    };
    known.map_or_else(|| format!("&{name};"), String::from)
}

/// `#65` or `#x41` as the character it names.
fn char_reference(name: &str) -> Option<char> {
    let number = name.strip_prefix('#')?;
    let code = match number.strip_prefix(['x', 'X']) {
        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
        None => number.parse().ok()?,
    };
    char::from_u32(code).filter(|c| *c != '\0')
}

/// An attribute value with its XML references resolved.
pub(super) fn xml_unescape(raw: &str) -> String {
    replace_references(raw, |name| Some(xml_reference(name)))
}

/// Replaces each `&name;` whose `lookup` is known, leaving the rest as written.
fn replace_references(text: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let end = after.char_indices().take(32).find(|(_, c)| *c == ';');
        match end.and_then(|(end, _)| Some((end, lookup(&after[..end])?))) {
            Some((end, text)) => {
                out.push_str(&text);
                rest = &after[end + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// HTML's character references: numeric ones, and every HTML5 name (the HTML reader's
/// table) written with its `;`; the spaces and invisible marks of typesetting become a plain
/// space or nothing, so collapsing white space treats them as it treats the rest.
pub(crate) fn decode_entities(text: &str) -> String {
    replace_references(text, |name| {
        char_reference(name)
            .map(String::from)
            .or_else(|| named_entity(name))
    })
}

/// The text of `&name;`, whole names only.
fn named_entity(name: &str) -> Option<String> {
    let reference = format!("{name};");
    let ((first, second), used) = html::character_reference(&reference, false)?;
    (used == reference.len()).then(|| {
        std::iter::once(first)
            .chain(second)
            .filter_map(|c| match c {
                '\u{a0}' | '\u{2002}' | '\u{2003}' | '\u{2009}' => Some(' '),
                '\u{ad}' | '\u{200c}'..='\u{200f}' => None,
                c => Some(c),
            })
            .collect()
    })
}

/// Elements that break a line.
pub(super) const BLOCKS: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "tr",
    "table",
    "section",
    "article",
    "header",
    "footer",
    "pre",
    "hr",
    "dt",
    "dd",
    "figure",
    "figcaption",
];

/// HTML reduced to its words: tags dropped (scripts and styles with their content), a line
/// per block, list items marked, entities decoded, spaces collapsed, empty lines dropped.
pub(crate) fn html_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let after = &rest[lt + 1..];
        if let Some(comment) = after.strip_prefix("!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let is_tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!');
        if !is_tag {
            out.push('<');
            rest = after;
            continue;
        }
        let Some(gt) = tag_end(after) else {
            // No tag can close any more: the rest is text (and each `<` is not searched from
            // again, which made a page of unclosed `<a` quadratic).
            out.push('<');
            rest = after;
            break;
        };
        let tag = &after[..gt];
        rest = &after[gt + 1..];
        let closing = tag.starts_with('/');
        let name = tag
            .trim_start_matches('/')
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if !closing && (name == "script" || name == "style") {
            rest = skip_past_end_tag(rest, &name);
        } else if name == "li" && !closing {
            out.push_str("\n- ");
        } else if BLOCKS.contains(&name.as_str()) {
            out.push('\n');
        } else if closing && (name == "td" || name == "th") {
            out.push_str(" | ");
        }
    }
    out.push_str(rest);
    decode_entities(&out)
        .lines()
        .map(|line| collapse(line).trim_end_matches(" |").to_string())
        .filter(|line| !line.is_empty() && line != "-")
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where a tag ends: its `>` outside quoted attribute values (`alt="cat<br />dog"`), else
/// its first `>` (a quote never closed).
fn tag_end(tag: &str) -> Option<usize> {
    let mut quote = None;
    let mut after_equals = false;
    for (at, b) in tag.bytes().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'>') => return Some(at),
            (None, b'"' | b'\'') if after_equals => quote = Some(b),
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            after_equals = b == b'=';
        }
    }
    tag.find('>')
}

/// What follows `</name ...>` in any case, found without copying the rest (which would make
/// a page of many scripts quadratic); nothing when it never ends.
fn skip_past_end_tag<'a>(rest: &'a str, name: &str) -> &'a str {
    let mut from = 0;
    while let Some(found) = rest[from..].find("</") {
        let at = from + found + 2;
        let named = rest
            .get(at..at + name.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(name));
        if named {
            return rest[at..].find('>').map_or("", |gt| &rest[at + gt + 1..]);
        }
        from = at;
    }
    ""
}

/// Runs of white space as one space, none at the ends.
pub(crate) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A feed's bytes as text: in the charset it declares (the Content-Type's `charset`, else its
/// XML declaration's `encoding`) when that is one Marvin reads; otherwise UTF-8 whenever the
/// bytes are valid UTF-8 (arXiv declares nothing), else Windows-1252 (what an old feed that is
/// not UTF-8 nearly always is). A declared charset Marvin does not read comes back as its
/// label, so the result can say its characters may be wrong.
pub(crate) fn decode(bytes: &[u8], content_type: Option<&str>) -> (String, Option<String>) {
    let declared = content_type
        .and_then(|t| t.split(';').skip(1).find_map(|p| param(p, "charset")))
        .or_else(|| xml_encoding(bytes));
    let guessed = || match std::str::from_utf8(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes))
    {
        Ok(text) => text.to_string(),
        Err(_) => charset::decode_as(bytes, encoding_rs::WINDOWS_1252),
    };
    match declared {
        Some(label) => match charset::for_label(&label) {
            Some(known) => (charset::decode_as(bytes, known), None),
            None => (guessed(), Some(label)),
        },
        None => (guessed(), None),
    }
}

/// `name=value` (the value unquoted) when the parameter is `name`.
fn param(text: &str, name: &str) -> Option<String> {
    let (key, value) = text.split_once('=')?;
    key.trim()
        .eq_ignore_ascii_case(name)
        .then(|| value.trim().trim_matches(['"', '\'']).to_string())
}

/// The `encoding` of an `<?xml ...?>` declaration at the start.
fn xml_encoding(bytes: &[u8]) -> Option<String> {
    let start = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let head = &start[..start.len().min(200)];
    let head = match std::str::from_utf8(head) {
        Ok(text) => text,
        // The declaration is ASCII: what comes before the first byte that is not UTF-8 holds it.
        Err(error) => std::str::from_utf8(&head[..error.valid_up_to()]).ok()?,
    };
    let declaration = &head[..head.find("?>")?];
    let declaration = declaration.strip_prefix("<?xml")?;
    declaration
        .split_whitespace()
        .find_map(|attribute| param(attribute, "encoding"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_lines_of_words() {
        let cases: &[(&str, &str)] = &[
            ("<p>One <b>two</b></p><p>three</p>", "One two\nthree"),
            ("<ul><li>a</li><li>b</li></ul>", "- a\n- b"),
            (
                "x<script>var a = '<p>';</script>y<style>p{}</style>z",
                "xyz",
            ),
            ("a <!-- hidden <p> --> b", "a b"),
            ("1 < 2 &amp;&amp; 3 > 2", "1 < 2 && 3 > 2"),
            ("caf&eacute;&#233;&#xE9; &unknown; &", "cafééé &unknown; &"),
            ("line<br/>break", "line\nbreak"),
            ("<img alt=\"cat<br />dog\" src='x>y'>z", "z"),
            ("<a title=it's>x</a>", "x"),
            ("<table><tr><td>a</td><td>b</td></tr></table>", "a | b"),
        ];
        for (html, text) in cases {
            assert_eq!(html_text(html), *text, "{html}");
        }
    }

    #[test]
    fn bytes_are_in_the_declared_charset_else_utf8_unless_they_cannot_be() {
        let text = |bytes: &[u8], content_type| decode(bytes, content_type);
        let plain = |text: &str| (text.to_string(), None);
        assert_eq!(text("Ramírez".as_bytes(), None), plain("Ramírez"));
        assert_eq!(text(b"\xef\xbb\xbfx", None), plain("x"));
        assert_eq!(text(b"Ram\xedrez \x93q\x94", None), plain("Ramírez “q”"));
        // Declared: ISO-8859-15 has € at 0xA4, where Windows-1252 has ¤.
        let latin9 = Some("application/rss+xml; charset=ISO-8859-15");
        assert_eq!(text(b"5 \xa4", latin9), plain("5 €"));
        let declared = b"<?xml version=\"1.0\" encoding='iso-8859-15'?><rss>\xa4</rss>";
        assert_eq!(
            text(declared, None).0,
            "<?xml version=\"1.0\" encoding='iso-8859-15'?><rss>€</rss>"
        );
        // Every WHATWG encoding is read; a label that names none is named back, and the bytes
        // read as best they can be.
        let koi8 = Some("text/xml; charset=KOI8-R");
        assert_eq!(text(b"\xf0\xd2", koi8), plain("Пр"));
        let klingon = Some("text/xml; charset=x-klingon");
        assert_eq!(
            text(b"\xf0\xd2", klingon),
            ("ðÒ".to_string(), Some("x-klingon".to_string()))
        );
    }

    #[test]
    fn unclosed_tags_and_many_scripts_read_in_one_pass() {
        let unclosed = format!("before {} after", "<a".repeat(100_000));
        let text = html_text(&unclosed);
        assert!(text.starts_with("before <a<a"), "{}", &text[..20]);
        assert!(text.ends_with(" after"));
        let scripts = format!("{}kept", "<SCRIPT>x</Script >".repeat(100_000));
        assert_eq!(html_text(&scripts), "kept");
        assert_eq!(html_text("a<script>never ends"), "a");
    }
}
