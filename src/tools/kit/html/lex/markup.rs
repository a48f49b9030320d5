//! Comments, doctypes and the rest of `<!` markup as the WHATWG tokenizer reads them:
//! `<!-->` an empty comment, `--!>` the end of one, a bogus comment up to the next `>`, a
//! doctype's name and identifiers with its quirks flag, a CDATA section in foreign content.

use super::{Doctype, Lexer, Raw, State, Step, is_space};

/// Where the comment states are.
#[derive(Clone, Copy)]
enum In {
    Comment,
    EndDash,
    End,
    EndBang,
}

impl Lexer<'_> {
    /// The markup declaration open state, after `<!`.
    pub(super) fn declaration(&mut self) -> Step {
        if self.eat("--") {
            return Step::Token(self.comment());
        }
        if self.eat_ignore_case("doctype") {
            return Step::Token(Raw::Doctype(self.doctype()));
        }
        if self.cdata && self.eat("[CDATA[") {
            self.state = State::Cdata;
            return Step::Nothing;
        }
        Step::Token(self.bogus_comment())
    }

    /// A bogus comment: everything up to the next `>`.
    pub(super) fn bogus_comment(&mut self) -> Raw {
        let rest = self.rest();
        let end = rest.find('>');
        let data = rest[..end.unwrap_or(rest.len())].replace('\0', "\u{fffd}");
        self.pos += end.map_or(rest.len(), |at| at + 1);
        Raw::Comment(data)
    }

    /// A comment after its `<!--`.
    fn comment(&mut self) -> Raw {
        let mut data = String::new();
        // The comment start and comment start dash states: `<!-->` and `<!--->` are empty.
        if self.eat(">") || self.eat("->") {
            return Raw::Comment(data);
        }
        let mut state = In::Comment;
        while let Some(c) = self.bump() {
            state = match (state, c) {
                (In::Comment, '-') => In::EndDash,
                (In::EndDash, '-') => In::End,
                (In::End, '>') | (In::EndBang, '>') => return Raw::Comment(data),
                (In::End, '!') => In::EndBang,
                (In::End, '-') => {
                    data.push('-');
                    In::End
                }
                (In::EndBang, '-') => {
                    data.push_str("--!");
                    In::EndDash
                }
                (state, c) => {
                    data.push_str(match state {
                        In::Comment => "",
                        In::EndDash => "-",
                        In::End => "--",
                        In::EndBang => "--!",
                    });
                    if c == '-' {
                        In::EndDash
                    } else {
                        data.push(if c == '\0' { '\u{fffd}' } else { c });
                        In::Comment
                    }
                }
            };
        }
        Raw::Comment(data)
    }

    /// A doctype after its `<!DOCTYPE`.
    fn doctype(&mut self) -> Doctype {
        let mut doctype = Doctype::default();
        self.skip_spaces();
        let mut name = String::new();
        loop {
            match self.bump() {
                None => return quirks(doctype, Some(name).filter(|n| !n.is_empty())),
                Some('>') if name.is_empty() => return quirks(doctype, None),
                Some('>') => {
                    doctype.name = Some(name);
                    return doctype;
                }
                Some(c) if is_space(c) && !name.is_empty() => break,
                Some('\0') => name.push('\u{fffd}'),
                Some(c) => name.push(c.to_ascii_lowercase()),
            }
        }
        doctype.name = Some(name);
        self.skip_spaces();
        if self.eat(">") {
            return doctype;
        }
        if self.eat_ignore_case("public") {
            self.identifiers(doctype, true)
        } else if self.eat_ignore_case("system") {
            self.identifiers(doctype, false)
        } else if self.peek().is_none() {
            quirks_keeping(doctype)
        } else {
            doctype.force_quirks = true;
            self.bogus_doctype(doctype)
        }
    }

    /// From after `PUBLIC` (`public`) or `SYSTEM`: the identifiers and the doctype's end.
    fn identifiers(&mut self, mut doctype: Doctype, public: bool) -> Doctype {
        self.skip_spaces();
        let first = match self.quoted() {
            Quoted::Missing => return self.doctype_end(doctype, true),
            Quoted::Cut(id) => return cut(doctype, public, id),
            Quoted::Read(id) => id,
        };
        if !public {
            doctype.system = Some(first);
            return self.doctype_end(doctype, false);
        }
        doctype.public = Some(first);
        self.skip_spaces();
        if self.eat(">") {
            return doctype;
        }
        match self.quoted() {
            Quoted::Read(system) => {
                doctype.system = Some(system);
                self.doctype_end(doctype, false)
            }
            Quoted::Cut(system) => cut(doctype, false, system),
            Quoted::Missing => self.doctype_end(doctype, true),
        }
    }

    /// A quoted identifier.
    fn quoted(&mut self) -> Quoted {
        let Some(quote) = self.peek().filter(|c| matches!(c, '"' | '\'')) else {
            return Quoted::Missing;
        };
        self.pos += 1;
        let mut id = String::new();
        loop {
            match self.bump() {
                Some(c) if c == quote => return Quoted::Read(id),
                Some('\0') => id.push('\u{fffd}'),
                Some('>') | None => return Quoted::Cut(id),
                Some(c) => id.push(c),
            }
        }
    }

    /// After the last identifier (or where one should have been, `missing`): the `>`, else a
    /// bogus doctype (marked for quirks when something was missing).
    fn doctype_end(&mut self, mut doctype: Doctype, missing: bool) -> Doctype {
        self.skip_spaces();
        if self.eat(">") {
            doctype.force_quirks |= missing;
            return doctype;
        }
        if self.peek().is_none() {
            return quirks_keeping(doctype);
        }
        doctype.force_quirks |= missing;
        self.bogus_doctype(doctype)
    }

    fn bogus_doctype(&mut self, doctype: Doctype) -> Doctype {
        let rest = self.rest();
        self.pos += rest.find('>').map_or(rest.len(), |at| at + 1);
        doctype
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.pos += 1;
        }
    }
}

/// What a doctype's quoted identifier comes to.
enum Quoted {
    /// No quote where one should be.
    Missing,
    Read(String),
    /// Ended by a `>` or the end of the input.
    Cut(String),
}

/// The doctype ended inside an identifier: what was read of it is kept, quirks forced.
fn cut(mut doctype: Doctype, public: bool, id: String) -> Doctype {
    if public {
        doctype.public = Some(id);
    } else {
        doctype.system = Some(id);
    }
    quirks_keeping(doctype)
}

fn quirks(mut doctype: Doctype, name: Option<String>) -> Doctype {
    doctype.name = name;
    doctype.force_quirks = true;
    doctype
}

fn quirks_keeping(mut doctype: Doctype) -> Doctype {
    doctype.force_quirks = true;
    doctype
}
