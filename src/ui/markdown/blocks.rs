//! The blocks CommonMark decides from the lines around them: indented code (shown as code,
//! between rules, blank lines inside it kept), HTML blocks (their lines as written until their
//! end), and setext headings (the `===` under a paragraph drawn as the heading's underline).

use super::html::{self, End};
use super::line::{self, Class, Context, Kind};
use super::syntax;
use super::syntax::SOFT_STR;
use super::{Line, Markdown, Whole};

/// An indented code block being shown.
pub(super) struct Indented {
    /// Blank lines since its last line of code: inside it if more code follows.
    pub blanks: usize,
    /// Its screen indentation (a list item's, or a quote's bars).
    pub indent: String,
    /// The depth of the quote it is in.
    pub quote: usize,
}

impl Markdown {
    /// A line while an indented code block is open: blank lines wait, code continues it,
    /// anything else closes it (then `false`: the line is read as usual).
    pub(super) fn in_indented(&mut self, class: &Class, out: &mut String) -> bool {
        let Some(code) = &mut self.indented else {
            return false;
        };
        match class.kind {
            Kind::Blank { len } => {
                code.blanks += 1;
                self.pos += len;
                self.pos += usize::from(self.buf[self.pos..].starts_with('\n'));
                true
            }
            Kind::Code { .. } if class.quote == code.quote => false,
            _ => {
                let blanks = code.blanks;
                self.close_indented(out);
                out.push_str(&"\n".repeat(blanks));
                false
            }
        }
    }

    /// Ends an open indented code block with its rule.
    pub(super) fn close_indented(&mut self, out: &mut String) {
        if let Some(code) = self.indented.take() {
            out.push_str(&self.code_rule(&code.indent, None));
            out.push('\n');
        }
    }

    /// A line of indented code in `quote` levels of quote: its code starts at `skip`, after
    /// `pad` spaces.
    pub(super) fn indented_line(
        &mut self,
        skip: usize,
        pad: usize,
        quote: usize,
        out: &mut String,
    ) {
        let blanks = match &self.indented {
            Some(code) => code.blanks,
            None => {
                let column = self.lists.last().map_or(0, |item| item.column);
                let indent = self.bars(quote) + &" ".repeat(column);
                out.push_str(&self.code_rule(&indent, Some("")));
                out.push('\n');
                self.indented = Some(Indented {
                    blanks: 0,
                    indent,
                    quote,
                });
                0
            }
        };
        let indent = self
            .indented
            .as_ref()
            .map_or(String::new(), |c| c.indent.clone());
        let (_, lead) = self.code_lead("", &indent);
        for _ in 0..blanks {
            out.push_str(&lead);
            out.push('\n');
        }
        if let Some(code) = &mut self.indented {
            code.blanks = 0;
        }
        out.push_str(&lead);
        out.push_str(&" ".repeat(pad));
        self.pos += skip;
        self.line = Line::Code;
    }

    /// The `===` or `---` under a paragraph: the heading's underline, as wide as the line
    /// above was.
    pub(super) fn setext(&mut self, level: usize, out: &mut String) {
        let line = &self.buf[self.pos..];
        let end = line.find('\n').map_or(line.len(), |at| at + 1);
        self.pos += end;
        let underline = self.underline(level, self.last_shown.max(3));
        out.push_str(underline.trim_start_matches('\n'));
        out.push_str(if end > 0 && self.buf[..self.pos].ends_with('\n') {
            "\n"
        } else {
            ""
        });
    }

    /// A line starting with `<`, whole: the start of an HTML block (written as it is), or
    /// text; `paragraph`: a paragraph was open above it.
    pub(super) fn html_start(
        &mut self,
        line: &str,
        newline: bool,
        paragraph: bool,
        out: &mut String,
    ) {
        let trimmed = line.trim_start_matches(' ');
        match html::block_start(trimmed, paragraph) {
            Some(end) => {
                self.paragraph = false;
                self.html = (!html::ends(line, end)).then_some(end);
                out.push_str(line);
                out.push_str(if newline { "\n" } else { "" });
            }
            None => {
                self.paragraph = true;
                self.plain_line(line, newline, out);
            }
        }
    }

    /// At a line's start inside an HTML block: `true` when the line is the block's (held whole
    /// then), `false` when a blank line ended the block; `None` while its start does not tell.
    pub(super) fn in_html(&mut self, rest: &str, eof: bool) -> Option<bool> {
        let Some(end) = self.html else {
            return Some(false);
        };
        let blank_end = rest.find(|c| c != ' ' && c != '\t');
        let blank = match blank_end {
            Some(at) => rest.as_bytes()[at] == b'\n',
            None if eof => true,
            None => return None,
        };
        if blank && end == End::Blank {
            self.html = None;
            return Some(false);
        }
        self.line = Line::Whole {
            kind: Whole::HtmlLine,
            searched: 0,
        };
        Some(true)
    }

    /// At the newline of a paragraph's line whose end is still open (a span may close on the
    /// next line): when the next line continues the paragraph, the newline and that line's
    /// indentation and quote marks become one soft break in the text (`true`); `false`
    /// when the paragraph ends there; `None` while the next line's start does not tell.
    pub(super) fn join(&mut self, eof: bool) -> Option<bool> {
        let rest = &self.buf[self.pos..];
        let newline = rest.find('\n')?;
        let context = Context {
            paragraph: true,
            quote: self.paragraph_quote,
            content: self.lists.last().map_or(0, |item| item.content),
        };
        let class = line::classify(&rest[newline + 1..], eof, context)?;
        let Kind::Text { skip, .. } = class.kind else {
            return Some(false);
        };
        let at = self.pos + newline;
        self.buf.replace_range(at..at + 1 + skip, SOFT_STR);
        Some(true)
    }

    /// A line starting with `[`, whole: a link reference definition is kept (the first for a
    /// label) and not shown; anything else is a paragraph's text.
    pub(super) fn definition(&mut self, line: &str, newline: bool, out: &mut String) {
        match syntax::definition(line.trim_start()) {
            Some((label, url)) => {
                self.paragraph = false;
                self.refs.entry(label).or_insert(url);
            }
            None => {
                self.paragraph = true;
                self.plain_line(line, newline, out);
            }
        }
    }

    /// A line of an HTML block, whole: written as it is; the block ends after it when it holds
    /// the end mark.
    pub(super) fn html_line(&mut self, line: &str, newline: bool, out: &mut String) {
        if let Some(end) = self.html {
            if html::ends(line, end) {
                self.html = None;
            }
        }
        out.push_str(line);
        out.push_str(if newline { "\n" } else { "" });
    }
}
