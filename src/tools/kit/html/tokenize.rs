//! The tokens a reader of HTML acts on: start tags with their attributes, end tags and text
//! (references decoded, NUL gone), from the WHATWG tokenizer (`lex`), switched into RCDATA
//! (`title`, `textarea`), RAWTEXT (`style`, `xmp`, `iframe`, `noembed`, `noframes`), script data
//! and PLAINTEXT by the start tags that switch it as a tree builder with scripting off does;
//! comments and doctypes skipped. Broken markup never fails: the spec's recovery applies.

use std::borrow::Cow;

pub(crate) use super::lex::Tag;
use super::lex::{Lexer, Raw, State};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token<'a> {
    Start(Tag),
    End(String),
    Text(Cow<'a, str>),
}

/// The state the content of an HTML element is read in, when it is not markup.
fn content_state(name: &str) -> Option<State> {
    match name {
        "title" | "textarea" => Some(State::Rcdata),
        "style" | "xmp" | "iframe" | "noembed" | "noframes" => Some(State::Rawtext),
        "script" => Some(State::ScriptData),
        "plaintext" => Some(State::Plaintext),
        _ => None,
    }
}

pub(crate) struct Tokenizer<'a> {
    lexer: Lexer<'a>,
    /// Whether start tags switch the tokenizer themselves (else its user does, knowing which
    /// are HTML elements).
    switching: bool,
}

impl<'a> Tokenizer<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        Self {
            lexer: Lexer::new(src),
            switching: true,
        }
    }

    /// A tokenizer its user switches with [`Self::read_content_of`], as a tree builder does.
    pub(crate) fn driven(src: &'a str) -> Self {
        Self {
            lexer: Lexer::new(src),
            switching: false,
        }
    }

    /// The HTML element `name` was just opened: its content is read as it says (`title` as
    /// RCDATA, `script` as script data…).
    pub(crate) fn read_content_of(&mut self, name: &str) {
        if let Some(state) = content_state(name) {
            self.lexer.state = state;
        }
    }

    /// Whether the current element is SVG or MathML, where `<![CDATA[` opens a CDATA section.
    pub(crate) fn set_foreign(&mut self, foreign: bool) {
        self.lexer.cdata = foreign;
    }
}

impl<'a> Iterator for Tokenizer<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        loop {
            match self.lexer.next_raw()? {
                Raw::Chars(text) => {
                    // A NUL in the data state is dropped by the tree builder (in foreign content
                    // it would be U+FFFD; SVG and MathML are never shown).
                    let text = if text.contains('\0') {
                        text.replace('\0', "")
                    } else {
                        text
                    };
                    if !text.is_empty() {
                        return Some(Token::Text(Cow::Owned(text)));
                    }
                }
                Raw::Start(tag) => {
                    if self.switching {
                        self.read_content_of(&tag.name);
                    }
                    return Some(Token::Start(tag));
                }
                Raw::End(name) => return Some(Token::End(name)),
                Raw::Comment(_) | Raw::Doctype(_) => {}
            }
        }
    }
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
    fn markup_is_read_as_browsers_read_it() {
        let cases: &[(&str, &[&str])] = &[
            ("<p>Hi</p>", &["<p>", "\"Hi\"", "</p>"]),
            (
                "<A HREF='x?a=1&amp;b=2&copy=3' class=big data-x>t</A>",
                &[
                    "<a href=\"x?a=1&b=2&copy=3\" class=\"big\" data-x=\"\">",
                    "\"t\"",
                    "</a>",
                ],
            ),
            ("<br/><img src=a.png />", &["<br/>", "<img src=\"a.png\"/>"]),
            ("a < b && c<3 </ d", &["\"a < b && c<3 \""]),
            ("x<!-- <p>hidden</p> -->y", &["\"x\"", "\"y\""]),
            // `<!-->` is an empty comment and `--!>` ends one, as in browsers.
            ("a<!-->b<!-- c --!>d", &["\"a\"", "\"b\"", "\"d\""]),
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
            // A tag cut by the end of the input is dropped.
            ("<p title=\"unclosed", &[]),
            ("<div id=a id=b>", &["<div id=\"a\">"]),
            ("<!-- never closed <p>x", &[]),
            ("<script>never closed", &["<script>", "\"never closed\""]),
            ("</>text", &["\"text\""]),
            // HTML5 names, legacy ones without `;`, numbers repaired; NUL never comes through.
            (
                "&NotEqualTilde; &copy 2024 &#x80;&#0;a\u{0}b",
                &["\"≂\\u{338} © 2024 €\u{fffd}ab\""],
            ),
            (
                "<textarea>\u{0}</textarea>",
                &["<textarea>", "\"\u{fffd}\"", "</textarea>"],
            ),
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
