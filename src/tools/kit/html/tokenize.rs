//! A tolerant HTML tokenizer: start tags with their attributes, end tags and text (character
//! references decoded); comments, doctypes and processing instructions skipped; the contents
//! of `script` and `style` kept raw, of `title` and `textarea` as text. Broken markup never
//! fails: what is not a tag is text.

use std::borrow::Cow;

use super::entities;

/// The attributes of one tag that are kept (a real page has a handful).
const MAX_ATTRIBUTES: usize = 64;

/// A start tag: its name and attributes lowercased, values decoded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tag {
    pub(crate) name: String,
    pub(crate) attrs: Vec<(String, String)>,
    pub(crate) self_closing: bool,
}

impl Tag {
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether its `class` lists `class`.
    pub(crate) fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|classes| classes.split_ascii_whitespace().any(|c| c == class))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token<'a> {
    Start(Tag),
    End(String),
    Text(Cow<'a, str>),
}

/// Elements whose content is not markup: raw (`script`) or text with references (`title`).
fn content_kind(name: &str) -> Option<bool> {
    match name {
        "script" | "style" | "xmp" | "iframe" | "noembed" | "noframes" => Some(false),
        "title" | "textarea" => Some(true),
        _ => None,
    }
}

pub(crate) struct Tokenizer<'a> {
    src: &'a str,
    pos: usize,
    /// Inside an element whose content is not markup: its name, and whether references are
    /// decoded there.
    raw: Option<(String, bool)>,
}

impl<'a> Tokenizer<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        Self {
            src,
            pos: 0,
            raw: None,
        }
    }

    fn raw_text(&mut self, name: &str, decode: bool) -> Option<Token<'a>> {
        let rest = &self.src[self.pos..];
        let end = find_end_tag(rest, name).unwrap_or(rest.len());
        self.pos += end;
        let text = &rest[..end];
        (!text.is_empty()).then(|| {
            Token::Text(if decode {
                entities::decode(text, false)
            } else {
                Cow::Borrowed(text)
            })
        })
    }

    /// Text up to the next thing that is markup.
    fn text(&mut self) -> Token<'a> {
        let bytes = self.src.as_bytes();
        let start = self.pos;
        let mut at = start + 1;
        while at < bytes.len() {
            if bytes[at] == b'<' && markup_at(bytes, at) {
                break;
            }
            at += 1;
        }
        self.pos = at;
        Token::Text(entities::decode(&self.src[start..at], false))
    }

    fn start_tag(&mut self) -> Tag {
        let bytes = self.src.as_bytes();
        let mut at = self.pos + 1;
        let name_end = scan(bytes, at, |b| {
            !(b.is_ascii_whitespace() || b == b'/' || b == b'>')
        });
        let name = self.src[at..name_end].to_ascii_lowercase();
        at = name_end;
        let mut attrs = Vec::new();
        let mut self_closing = false;
        loop {
            at = scan(bytes, at, |b| b.is_ascii_whitespace());
            match bytes.get(at) {
                None => break,
                Some(b'>') => {
                    at += 1;
                    break;
                }
                Some(b'/') => {
                    at += 1;
                    self_closing = bytes.get(at) == Some(&b'>');
                    continue;
                }
                Some(_) => {}
            }
            self_closing = false;
            let (attr, next) = self.attribute(at);
            at = next;
            // The first of a repeated attribute counts, as in browsers; past MAX_ATTRIBUTES
            // the rest are read and dropped, so a tag of 100,000 attributes costs linear time.
            if attrs.len() < MAX_ATTRIBUTES && !attrs.iter().any(|(n, _)| *n == attr.0) {
                attrs.push(attr);
            }
        }
        self.pos = at;
        Tag {
            name,
            attrs,
            self_closing,
        }
    }

    /// One attribute starting at `at`; returns it and where the next one may start.
    fn attribute(&self, at: usize) -> ((String, String), usize) {
        let bytes = self.src.as_bytes();
        let name_end = scan(bytes, at + 1, |b| {
            !(b.is_ascii_whitespace() || b == b'/' || b == b'>' || b == b'=')
        });
        let name = self.src[at..name_end].to_ascii_lowercase();
        let mut next = scan(bytes, name_end, |b| b.is_ascii_whitespace());
        if bytes.get(next) != Some(&b'=') {
            return ((name, String::new()), name_end);
        }
        next = scan(bytes, next + 1, |b| b.is_ascii_whitespace());
        let (value, end) = match bytes.get(next) {
            Some(&quote @ (b'"' | b'\'')) => {
                let close = scan(bytes, next + 1, |b| b != quote);
                (&self.src[next + 1..close], (close + 1).min(bytes.len()))
            }
            _ => {
                let close = scan(bytes, next, |b| !(b.is_ascii_whitespace() || b == b'>'));
                (&self.src[next..close], close)
            }
        };
        ((name, entities::decode(value, true).into_owned()), end)
    }

    fn end_tag(&mut self) -> Option<Token<'a>> {
        let bytes = self.src.as_bytes();
        let at = self.pos + 2;
        let name_end = scan(bytes, at, |b| {
            !(b.is_ascii_whitespace() || b == b'/' || b == b'>')
        });
        let name = self.src[at..name_end].to_ascii_lowercase();
        self.pos = skip_past(bytes, name_end, b">");
        (!name.is_empty()).then_some(Token::End(name))
    }
}

impl<'a> Iterator for Tokenizer<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        loop {
            if let Some((name, decode)) = self.raw.take() {
                if let Some(text) = self.raw_text(&name, decode) {
                    return Some(text);
                }
            }
            let bytes = self.src.as_bytes();
            if self.pos >= bytes.len() {
                return None;
            }
            if bytes[self.pos] != b'<' || !markup_at(bytes, self.pos) {
                return Some(self.text());
            }
            match bytes.get(self.pos + 1) {
                Some(b'!') if bytes[self.pos..].starts_with(b"<!--") => {
                    self.pos = skip_past(bytes, self.pos + 4, b"-->");
                }
                Some(b'!' | b'?') => self.pos = skip_past(bytes, self.pos + 2, b">"),
                Some(b'/') => {
                    if let Some(end) = self.end_tag() {
                        return Some(end);
                    }
                }
                _ => {
                    let tag = self.start_tag();
                    if !tag.self_closing {
                        self.raw = content_kind(&tag.name).map(|d| (tag.name.clone(), d));
                    }
                    return Some(Token::Start(tag));
                }
            }
        }
    }
}

/// Whether the `<` at `at` starts markup (a tag, an end tag, a comment or declaration).
fn markup_at(bytes: &[u8], at: usize) -> bool {
    match bytes.get(at + 1) {
        Some(b) if b.is_ascii_alphabetic() || *b == b'!' || *b == b'?' => true,
        Some(b'/') => bytes.get(at + 2).is_some_and(|b| b.is_ascii_alphabetic()),
        _ => false,
    }
}

/// The first index from `at` whose byte does not satisfy `keep`.
fn scan(bytes: &[u8], at: usize, keep: impl Fn(u8) -> bool) -> usize {
    let at = at.min(bytes.len());
    at + bytes[at..].iter().take_while(|b| keep(**b)).count()
}

/// The index just past the first `needle` from `at`, or the end.
fn skip_past(bytes: &[u8], at: usize, needle: &[u8]) -> usize {
    let at = at.min(bytes.len());
    bytes[at..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map_or(bytes.len(), |i| at + i + needle.len())
}

/// Where `</name` (any case, then a space, `/` or `>`) starts in `text`.
fn find_end_tag(text: &str, name: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = bytes[from..].windows(2).position(|w| w == b"</") {
        let at = from + i;
        let after = at + 2 + name.len();
        if bytes.len() >= after
            && bytes[at + 2..after].eq_ignore_ascii_case(name.as_bytes())
            && bytes
                .get(after)
                .is_none_or(|b| b.is_ascii_whitespace() || *b == b'/' || *b == b'>')
        {
            return Some(at);
        }
        from = at + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(html: &str) -> Vec<String> {
        Tokenizer::new(html)
            .map(|token| match token {
                Token::Start(tag) => {
                    let attrs: Vec<String> = tag
                        .attrs
                        .iter()
                        .map(|(n, v)| format!(" {n}={v:?}"))
                        .collect();
                    let close = if tag.self_closing { "/" } else { "" };
                    format!("<{}{}{close}>", tag.name, attrs.concat())
                }
                Token::End(name) => format!("</{name}>"),
                Token::Text(text) => format!("{text:?}"),
            })
            .collect()
    }

    #[test]
    fn markup_is_read_tolerantly() {
        let cases: &[(&str, &[&str])] = &[
            ("<p>Hi</p>", &["<p>", "\"Hi\"", "</p>"]),
            (
                "<A HREF='x?a=1&amp;b=2' class=big data-x>t</A>",
                &[
                    "<a href=\"x?a=1&b=2\" class=\"big\" data-x=\"\">",
                    "\"t\"",
                    "</a>",
                ],
            ),
            ("<br/><img src=a.png />", &["<br/>", "<img src=\"a.png\"/>"]),
            ("a < b && c<3 </ d", &["\"a < b && c<3 </ d\""]),
            ("x<!-- <p>hidden</p> -->y", &["\"x\"", "\"y\""]),
            ("<!DOCTYPE html><?xml x?>z", &["\"z\""]),
            (
                "<script>if (a<b) { x='</div>' }</script>after",
                &[
                    "<script>",
                    "\"if (a<b) { x='</div>' }\"",
                    "</script>",
                    "\"after\"",
                ],
            ),
            ("<STYLE>p{}</style >", &["<style>", "\"p{}\"", "</style>"]),
            (
                "<title>A &amp; <b>B</title>",
                &["<title>", "\"A & <b>B\"", "</title>"],
            ),
            ("<p title=\"unclosed", &["<p title=\"unclosed\">"]),
            ("<div id=a id=b>", &["<div id=\"a\">"]),
            ("<!-- never closed <p>x", &[]),
            ("<script>never closed", &["<script>", "\"never closed\""]),
            ("</>text</ p>", &["\"</>text</ p>\""]),
        ];
        for (html, expected) in cases {
            assert_eq!(tokens(html), *expected, "{html}");
        }
    }

    #[test]
    fn classes_and_attributes_are_looked_up() {
        let Some(Token::Start(tag)) = Tokenizer::new("<a class=\" result__a  x\" HREF=u>").next()
        else {
            panic!("no tag");
        };
        assert!(tag.has_class("result__a"));
        assert!(!tag.has_class("result"));
        assert_eq!(tag.attr("href"), Some("u"));
    }
}
