//! Tags as the WHATWG tokenizer reads them: the tag open and tag name states, attributes with
//! their names lowercased and values decoded (a repeated one dropped), the self-closing flag,
//! and the end tag that closes RCDATA, RAWTEXT and script data.

use super::super::entities;
use super::{Lexer, Raw, State, Step, is_space};

/// The attributes of one tag that are kept (a real page has a handful): past these the rest
/// are read and dropped, so a tag of 100,000 attributes costs linear time.
const MAX_ATTRIBUTES: usize = 64;

/// A start tag: its name and attributes lowercased, values decoded.
#[derive(Debug, Clone, Default, PartialEq)]
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

    /// A new attribute, unless one of its name came first (the first counts, as in browsers).
    fn add(&mut self, name: String, value: String) {
        if self.attrs.len() < MAX_ATTRIBUTES && !self.attrs.iter().any(|(n, _)| *n == name) {
            self.attrs.push((name, value));
        }
    }
}

/// Where an attribute leaves the tag.
enum After {
    /// The before-attribute-name state: another attribute may come.
    Next,
    /// The tag is complete.
    Done,
    /// The input ended inside the tag, which is then dropped.
    Eof,
}

impl Lexer<'_> {
    /// Markup after a `<` in the data state.
    pub(super) fn tag_open(&mut self) -> Step {
        match self.peek() {
            Some('!') => {
                self.pos += 1;
                self.declaration()
            }
            Some('/') => {
                self.pos += 1;
                self.end_tag_open()
            }
            Some(c) if c.is_ascii_alphabetic() => self.tag(false),
            Some('?') => Step::Token(self.bogus_comment()),
            _ => Step::Text("<"),
        }
    }

    fn end_tag_open(&mut self) -> Step {
        match self.peek() {
            Some(c) if c.is_ascii_alphabetic() => self.tag(true),
            Some('>') => {
                self.pos += 1;
                Step::Nothing
            }
            None => Step::Text("</"),
            Some(_) => Step::Token(self.bogus_comment()),
        }
    }

    /// A tag from its name on: the token, or nothing when the input ends inside it.
    fn tag(&mut self, end: bool) -> Step {
        let mut tag = Tag::default();
        loop {
            let after = match self.bump() {
                None => After::Eof,
                Some(c) if is_space(c) => self.attributes(&mut tag),
                Some('/') => self.self_closing(&mut tag),
                Some('>') => After::Done,
                Some('\0') => {
                    tag.name.push('\u{fffd}');
                    continue;
                }
                Some(c) => {
                    tag.name.push(c.to_ascii_lowercase());
                    continue;
                }
            };
            return match after {
                After::Eof => Step::Nothing,
                _ => Step::Token(self.tag_token(tag, end)),
            };
        }
    }

    fn tag_token(&mut self, tag: Tag, end: bool) -> Raw {
        if end {
            Raw::End(tag.name)
        } else {
            self.last_start.clone_from(&tag.name);
            Raw::Start(tag)
        }
    }

    /// The self-closing start tag state, after a `/`.
    fn self_closing(&mut self, tag: &mut Tag) -> After {
        match self.peek() {
            Some('>') => {
                self.pos += 1;
                tag.self_closing = true;
                After::Done
            }
            None => After::Eof,
            Some(_) => self.attributes(tag),
        }
    }

    /// The before-attribute-name state and the attributes from there to the tag's end.
    fn attributes(&mut self, tag: &mut Tag) -> After {
        loop {
            let after = match self.bump() {
                None => After::Eof,
                Some(c) if is_space(c) => After::Next,
                Some('/') => self.self_closing(tag),
                Some('>') => After::Done,
                Some(first) => self.attribute(first, tag),
            };
            if !matches!(after, After::Next) {
                return after;
            }
        }
    }

    /// One attribute whose name starts with `first`.
    fn attribute(&mut self, first: char, tag: &mut Tag) -> After {
        let mut name = String::new();
        push_name_char(&mut name, first);
        while let Some(c) = self.peek() {
            if is_space(c) || matches!(c, '/' | '>' | '=') {
                break;
            }
            self.pos += c.len_utf8();
            push_name_char(&mut name, c);
        }
        // The after-attribute-name state.
        while self.peek().is_some_and(is_space) {
            self.pos += 1;
        }
        match self.peek() {
            Some('=') => {
                self.pos += 1;
                let (value, after) = self.value();
                if !matches!(after, After::Eof) {
                    tag.add(name, value);
                }
                after
            }
            None => After::Eof,
            Some(_) => {
                tag.add(name, String::new());
                After::Next
            }
        }
    }

    /// An attribute's value after its `=`, and where that leaves the tag.
    fn value(&mut self) -> (String, After) {
        while self.peek().is_some_and(is_space) {
            self.pos += 1;
        }
        let mut value = String::new();
        let quote = match self.peek() {
            Some(q @ ('"' | '\'')) => {
                self.pos += 1;
                Some(q)
            }
            Some('>') => {
                self.pos += 1;
                return (value, After::Done);
            }
            _ => None,
        };
        loop {
            let Some(c) = self.bump() else {
                return (value, After::Eof);
            };
            match c {
                '&' => self.attribute_reference(&mut value),
                '\0' => value.push('\u{fffd}'),
                c if Some(c) == quote => return (value, self.after_quoted()),
                c if quote.is_none() && is_space(c) => return (value, After::Next),
                '>' if quote.is_none() => return (value, After::Done),
                c => value.push(c),
            }
        }
    }

    /// The after-attribute-value (quoted) state.
    fn after_quoted(&mut self) -> After {
        match self.peek() {
            None => After::Eof,
            Some('>') => {
                self.pos += 1;
                After::Done
            }
            // `/` and anything else go on in the before-attribute-name state.
            Some(_) => After::Next,
        }
    }

    fn attribute_reference(&mut self, value: &mut String) {
        match entities::reference(self.rest(), true) {
            Some(((first, second), used)) => {
                value.push(first);
                value.extend(second);
                self.pos += used;
            }
            None => value.push('&'),
        }
    }

    /// At a `<` in RCDATA, RAWTEXT or script data: the end tag of the element they are the
    /// content of (`</title >`, attributes and all), if it starts here. `Some(None)`: it
    /// started and the input ended inside it.
    pub(super) fn appropriate_end_tag(&mut self) -> Option<Option<Raw>> {
        let rest = self.rest().as_bytes();
        let name_len = rest
            .get(2..)?
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
        let name = rest.get(2..2 + name_len)?;
        let appropriate = rest.starts_with(b"</")
            && name_len > 0
            && name.eq_ignore_ascii_case(self.last_start.as_bytes())
            && matches!(
                rest.get(2 + name_len),
                Some(b'\t' | b'\n' | b'\x0c' | b' ' | b'/' | b'>')
            );
        if !appropriate {
            return None;
        }
        let mut tag = Tag {
            name: self.last_start.clone(),
            ..Tag::default()
        };
        self.pos += 2 + name_len;
        let after = match self.bump() {
            Some('/') => self.self_closing(&mut tag),
            Some('>') => After::Done,
            _ => self.attributes(&mut tag),
        };
        let text = self.finish();
        let end = (!matches!(after, After::Eof)).then_some(Raw::End(tag.name));
        self.state = State::Data;
        Some(match (text, end) {
            (Some(text), Some(end)) => {
                self.queued = Some(end);
                Some(text)
            }
            (text, end) => text.or(end),
        })
    }
}

fn push_name_char(name: &mut String, c: char) {
    name.push(match c {
        '\0' => '\u{fffd}',
        c => c.to_ascii_lowercase(),
    });
}
