//! The WHATWG HTML tokenizer (<https://html.spec.whatwg.org/#tokenization>): every token it
//! emits, with the spec's recovery from broken markup; the states of text (data, RCDATA,
//! RAWTEXT, script data, PLAINTEXT, CDATA) here, tags, comments, doctypes and script data in the
//! files beside. Parse errors are recovered from as the spec says, never reported.

mod markup;
mod script;
mod tag;

use std::borrow::Cow;

use super::entities;
pub(crate) use tag::Tag;

/// What the tokenizer emits; adjacent characters come as one `Chars`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Raw {
    Chars(String),
    Start(Tag),
    End(String),
    Comment(String),
    Doctype(Doctype),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Doctype {
    pub(crate) name: Option<String>,
    pub(crate) public: Option<String>,
    pub(crate) system: Option<String>,
    pub(crate) force_quirks: bool,
}

/// The states the tokenizer reads text in; the tree builder (here, its user) switches them
/// after a start tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Data,
    Rcdata,
    Rawtext,
    ScriptData,
    Plaintext,
    Cdata,
}

pub(crate) struct Lexer<'a> {
    /// The input with its newlines normalised (CR LF and CR as LF), as the spec's input stream.
    src: Cow<'a, str>,
    pos: usize,
    pub(crate) state: State,
    /// The last start tag's name, for the end tag that closes RCDATA, RAWTEXT or script data.
    pub(crate) last_start: String,
    /// Whether `<![CDATA[` opens a CDATA section (the current node is foreign).
    pub(crate) cdata: bool,
    text: String,
    queued: Option<Raw>,
}

/// What reading from a `<` comes to.
enum Step {
    Token(Raw),
    /// Characters to emit; the rest is read again in the current state.
    Text(&'static str),
    /// Nothing to emit (`</>`, a tag cut by the end of input, a CDATA section opened).
    Nothing,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        let src = if src.contains('\r') {
            Cow::Owned(src.replace("\r\n", "\n").replace('\r', "\n"))
        } else {
            Cow::Borrowed(src)
        };
        Self {
            src,
            pos: 0,
            state: State::Data,
            last_start: String::new(),
            cdata: false,
            text: String::new(),
            queued: None,
        }
    }

    fn rest(&self) -> &str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let ch = self.peek()?;
        self.pos += ch.len_utf8();
        Some(ch)
    }

    /// Whether the input goes on with `word` (ASCII, any case); if so it is consumed.
    fn eat_ignore_case(&mut self, word: &str) -> bool {
        let rest = self.rest().as_bytes();
        let found =
            rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word.as_bytes());
        if found {
            self.pos += word.len();
        }
        found
    }

    fn eat(&mut self, word: &str) -> bool {
        let found = self.rest().starts_with(word);
        if found {
            self.pos += word.len();
        }
        found
    }

    /// The text read so far, then `token`.
    fn emit(&mut self, token: Raw) -> Option<Raw> {
        if self.text.is_empty() {
            return Some(token);
        }
        self.queued = Some(token);
        Some(Raw::Chars(std::mem::take(&mut self.text)))
    }

    /// The text read so far, at the end of the input.
    fn finish(&mut self) -> Option<Raw> {
        (!self.text.is_empty()).then(|| Raw::Chars(std::mem::take(&mut self.text)))
    }

    /// A character reference in text: what it stands for, or the `&` alone.
    fn reference(&mut self) {
        self.pos += 1;
        match entities::reference(self.rest(), false) {
            Some(((first, second), used)) => {
                self.text.push(first);
                self.text.extend(second);
                self.pos += used;
            }
            None => self.text.push('&'),
        }
    }

    /// Plain characters up to the next one `special` picks, pushed as they are.
    fn run(&mut self, special: fn(char) -> bool) {
        let rest = &self.src[self.pos..];
        let len = rest.find(special).unwrap_or(rest.len());
        self.text.push_str(&rest[..len]);
        self.pos += len;
    }

    /// The data state: text, references and markup.
    fn data(&mut self) -> Option<Raw> {
        loop {
            self.run(|c| matches!(c, '<' | '&'));
            match self.peek() {
                None => return self.finish(),
                Some('&') => self.reference(),
                _ => {
                    self.pos += 1;
                    match self.tag_open() {
                        Step::Token(token) => return self.emit(token),
                        Step::Text(text) => self.text.push_str(text),
                        Step::Nothing if self.state != State::Data => {
                            return self.finish_then_continue();
                        }
                        Step::Nothing => {}
                    }
                }
            }
        }
    }

    /// The state changed under the data state (a CDATA section opened): what was read so far.
    fn finish_then_continue(&mut self) -> Option<Raw> {
        match self.finish() {
            Some(text) => Some(text),
            None => self.next_raw(),
        }
    }

    /// RCDATA (`decode`: `title`, `textarea`) or RAWTEXT: text up to the end tag that closes it.
    fn raw_text(&mut self, decode: bool) -> Option<Raw> {
        loop {
            self.run(|c| matches!(c, '<' | '&' | '\0'));
            match self.peek() {
                None => return self.finish(),
                Some('&') if decode => self.reference(),
                Some('&') => {
                    self.pos += 1;
                    self.text.push('&');
                }
                Some('\0') => {
                    self.pos += 1;
                    self.text.push('\u{fffd}');
                }
                _ => {
                    if let Some(end) = self.appropriate_end_tag() {
                        return end;
                    }
                    self.pos += 1;
                    self.text.push('<');
                }
            }
        }
    }

    /// PLAINTEXT: everything to the end.
    fn plaintext(&mut self) -> Option<Raw> {
        let rest = self.rest().replace('\0', "\u{fffd}");
        self.pos = self.src.len();
        self.text.push_str(&rest);
        self.finish()
    }

    /// A CDATA section: its characters as they are, up to `]]>`.
    fn cdata_section(&mut self) -> Option<Raw> {
        let rest = &self.src[self.pos..];
        let end = rest.find("]]>");
        let len = end.unwrap_or(rest.len());
        self.text.push_str(&rest[..len]);
        self.pos += len;
        if end.is_some() {
            self.pos += 3;
            self.state = State::Data;
            return self.data();
        }
        self.finish()
    }

    /// The next token.
    pub(crate) fn next_raw(&mut self) -> Option<Raw> {
        if let Some(token) = self.queued.take() {
            return Some(token);
        }
        match self.state {
            State::Data => self.data(),
            State::Rcdata => self.raw_text(true),
            State::Rawtext => self.raw_text(false),
            State::ScriptData => self.script_data(),
            State::Plaintext => self.plaintext(),
            State::Cdata => self.cdata_section(),
        }
    }
}

impl Iterator for Lexer<'_> {
    type Item = Raw;

    fn next(&mut self) -> Option<Raw> {
        self.next_raw()
    }
}

/// The spec's ASCII whitespace as the tokenizer reads it (CR is gone by then).
fn is_space(ch: char) -> bool {
    matches!(ch, '\t' | '\n' | '\x0c' | ' ')
}
