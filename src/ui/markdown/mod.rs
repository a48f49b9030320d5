//! The model's Markdown rendered for a terminal as it streams, line by line: only what cannot
//! be decided yet is held back (a line's start until its kind is known, an opener until its
//! closer, a word until it ends, a table until its last row); prose is wrapped at word
//! boundaries to the terminal's width, code in fences is shown exactly as written.

mod blocks;
#[cfg(test)]
mod conformance;
mod guard;
mod html;
mod inline;
mod line;
mod lists;
mod nodes;
mod parse;
#[cfg(any(test, feature = "test-support"))]
pub(crate) mod pathological;
#[cfg(test)]
mod props;
#[cfg(test)]
mod streamed;
mod syntax;
mod table;
mod table_records;
mod table_widths;
#[cfg(test)]
mod tables_fitted;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod view;
mod whole;
mod wrap;

use super::sanitize::sanitize;
use super::style::Style;
use inline::Paint;
use line::{Class, Context, Kind};
use wrap::Wrap;

/// The most levels of quotes, and of lists, shown by their bars and indentation: deeper ones
/// are read as CommonMark reads them but shown at this depth, so that what starts each row
/// stays narrow (10,000 levels would otherwise start every row with 20,000 columns). Also the
/// most list items opened on one row (`- - - x`): past them the row is text, or each would
/// read the rest of the row again.
const DEEPEST: usize = 10;

/// Bytes waiting undecided (a line's start of 5,000 `>`, a run of `*` whose next character
/// tells what it is) past which a push that adds a little is not read again: the whole wait
/// would be read again for every piece, and a long one streamed in small pieces would take
/// time in the square of its length. What is shown is the same, a little later.
const LONG_WAIT: usize = 1024;

/// A streaming renderer for one answer (or the text before a tool round).
pub(crate) struct Markdown {
    style: Style,
    /// The columns a row may take: prose wraps to it, tables are fitted to it, rules are at
    /// most 80.
    width: usize,
    /// Sanitized text not rendered yet, from `pos` (the front is dropped after each push).
    buf: String,
    pos: usize,
    /// How much of `buf` waited for more text after the last push.
    stalled: usize,
    line: Line,
    fence: Option<Fence>,
    table: Option<Table>,
    /// The list items the current line may be nested in, outermost first.
    lists: Vec<lists::Item>,
    /// The last line was blank (or there was none): an unindented line ends a list.
    after_blank: bool,
    /// The output so far ends with a newline (or is empty).
    line_ended: bool,
    /// The last line was a paragraph's (text, or a list item's first): the next may continue
    /// it (lazily, or as a heading's underline).
    paragraph: bool,
    /// The quote depth of that paragraph, which a lazy line continues.
    paragraph_quote: usize,
    /// The columns the last line of text showed (for a setext heading's underline).
    last_shown: usize,
    indented: Option<blocks::Indented>,
    /// A list item's marker was written: the rest of its line is read as a line of its own.
    nested: Option<lists::Nested>,
    /// The markers on the row of the line begun (the rest of a list item's first row): a
    /// nested item's marker goes right after its parent's, not indented again.
    same_row: usize,
    /// The columns the line being read starts in (a list item's text after its marker).
    offset: usize,
    /// An HTML block is open: how it ends.
    html: Option<html::End>,
    /// The link reference definitions so far (`[label]: url`), by normalised label.
    refs: inline::Refs,
    /// The conformance tests' mode: no colour, and marks for what colour would show (see
    /// `view.rs`) in place of decorations.
    tags: bool,
    /// Rendering panicked (a bug), here (`file:line`): the rest of the answer is shown as the
    /// plain text it is, and [`Self::finish`] says so (see `guard.rs`).
    fault: Option<String>,
}

/// Where the renderer is within the current line.
enum Line {
    /// At its start: its kind is not known yet.
    Start,
    /// Its inline text streams (text, a list item, a heading, a quote).
    Text(Text),
    /// A line of a fenced code block, written as it comes.
    Code,
    /// A line held whole until its newline; `searched` bytes of it hold none.
    Whole { kind: Whole, searched: usize },
}

impl Line {
    fn text(base: &'static str, underline: Option<usize>, wrap: Wrap) -> Self {
        Line::Text(Text {
            base,
            prev: ' ',
            heading: false,
            hard: false,
            underline,
            shown: 0,
            wrap,
        })
    }
}

impl Line {
    fn heading(base: &'static str, underline: Option<usize>, wrap: Wrap) -> Self {
        let mut line = Line::text(base, underline, wrap);
        if let Line::Text(text) = &mut line {
            text.heading = true;
        }
        line
    }
}

struct Text {
    /// The SGR codes for the whole line (a heading's); empty without colour.
    base: &'static str,
    /// The character before the text still to render.
    prev: char,
    /// A heading's: its closing `#`s are not shown.
    heading: bool,
    /// Its newline ends its spans (the next line does not continue the paragraph).
    hard: bool,
    /// A heading without colour: its level, for the row under it.
    underline: Option<usize>,
    /// The columns shown so far.
    shown: usize,
    /// Fits the line's text to the width.
    wrap: Wrap,
}

#[derive(Debug, Clone, Copy)]
enum Whole {
    Rule,
    Fence,
    TableRow,
    /// A line starting with `<`, which may start an HTML block (a paragraph open above it).
    Html {
        paragraph: bool,
    },
    HtmlLine,
    /// A line starting with `[`, which may define a link reference.
    Definition,
}

struct Fence {
    mark: u8,
    len: usize,
    /// The opening fence's indentation, which its rules keep.
    indent: String,
}

struct Table {
    /// The raw rows: the header, then (once `confirmed`) the delimiter row and the body.
    rows: Vec<String>,
    confirmed: bool,
    /// The last row ended with a newline.
    newline: bool,
}

impl Markdown {
    /// `width`: the columns a row may take (for prose, tables and rules); `style`: colour on
    /// or off and unicode or ASCII symbols.
    pub(crate) fn new(style: Style, width: usize) -> Self {
        Self {
            style,
            width,
            buf: String::new(),
            pos: 0,
            stalled: 0,
            line: Line::Start,
            fence: None,
            table: None,
            lists: Vec::new(),
            after_blank: true,
            line_ended: true,
            paragraph: false,
            paragraph_quote: 0,
            last_shown: 0,
            indented: None,
            nested: None,
            same_row: 0,
            offset: 0,
            html: None,
            refs: inline::Refs::new(),
            tags: false,
            fault: None,
        }
    }

    /// The tagged mode the conformance tests compare (no wrapping: rows are unbounded).
    #[cfg(test)]
    pub(super) fn tagged() -> Self {
        Self {
            tags: true,
            ..Self::new(Style::PLAIN, usize::MAX / 4)
        }
    }

    /// Takes the next streamed piece of the answer (split anywhere: mid-word, mid-`**`,
    /// several lines) and returns what may be written to the terminal now. The model's text is
    /// sanitized: the only escape sequences out are this renderer's SGR codes (none without
    /// colour). A heading's style stays on until its line ends, so nothing else should be
    /// written between two pushes in the middle of a line ([`Self::finish`] ends it).
    pub(crate) fn push(&mut self, text: &str) -> String {
        let text = sanitize(text);
        if self.fault.is_some() {
            return self.plain(&text);
        }
        self.buf.push_str(&text);
        self.guard(|md, out| md.run(out, false))
    }

    /// The answer paused: returns the word held until its end so far (nothing when none is),
    /// so that what arrived is on the screen while more is waited for.
    pub(crate) fn release(&mut self) -> String {
        self.guard(|md, out| {
            if let Line::Text(text) = &mut md.line {
                text.wrap.release(out);
            }
            if !out.is_empty() {
                md.line_ended = false;
            }
        })
    }

    /// The answer (or the text before a tool round) ended: returns everything still held back
    /// and starts over, so the next text is a new document.
    pub(crate) fn finish(&mut self) -> String {
        let mut out = match self.fault {
            None => self.guard(Self::close),
            Some(_) => String::new(),
        };
        out.push_str(&self.note(&out));
        *self = Self {
            tags: self.tags,
            ..Self::new(self.style, self.width)
        };
        out
    }

    /// Writes everything still held back at the answer's end.
    fn close(&mut self, out: &mut String) {
        self.run(out, true);
        if let Some(table) = self.table.take() {
            self.flush_table(table, out);
        }
        // An indented code block open at the end closes with the same rule as a fence.
        if let Some(code) = self.indented.take() {
            self.fence = Some(Fence {
                mark: b'`',
                len: 0,
                indent: code.indent,
            });
        }
        if let Some(fence) = self.fence.take() {
            let ended = if out.is_empty() {
                self.line_ended
            } else {
                out.ends_with('\n')
            };
            if !ended {
                out.push('\n');
            }
            out.push_str(&self.code_rule(&fence.indent, None));
        }
    }

    /// Renders as much of the buffer as can be decided (all of it at `eof`). A long wait (see
    /// [`LONG_WAIT`]) is looked at again only once it has doubled or a line ended in it.
    fn run(&mut self, out: &mut String, eof: bool) {
        let arrived = self.buf.get(self.stalled..).unwrap_or("");
        let doubled = self.buf.len() >= 2 * self.stalled;
        if eof || self.stalled < LONG_WAIT || doubled || arrived.contains('\n') {
            while self.step(out, eof) {}
        }
        self.buf.drain(..self.pos);
        self.pos = 0;
        self.stalled = self.buf.len();
        if !out.is_empty() {
            self.line_ended = out.ends_with('\n');
        }
    }

    /// One step within the line; `false` when it needs more text.
    fn step(&mut self, out: &mut String, eof: bool) -> bool {
        match self.line {
            Line::Start => self.start(out, eof),
            Line::Text(_) => self.text(out, eof),
            Line::Code => self.code(out, eof),
            Line::Whole { .. } => self.whole(out, eof),
        }
    }

    /// At a line's start: decides what the line is, once its start tells.
    fn start(&mut self, out: &mut String, eof: bool) -> bool {
        let rest = &self.buf[self.pos..];
        if rest.is_empty() {
            return false;
        }
        if let Some(fence) = &self.fence {
            match line::closes_fence(rest, eof, fence.mark, fence.len) {
                None => return false,
                Some(None) => {
                    let (skip, lead) = self.code_lead(rest, &fence.indent);
                    out.push_str(&lead);
                    self.pos += skip;
                    self.line = Line::Code;
                }
                Some(Some(len)) => {
                    let newline = rest.as_bytes()[len - 1] == b'\n';
                    self.pos += len;
                    if let Some(fence) = self.fence.take() {
                        out.push_str(&self.code_rule(&fence.indent, None));
                        out.push_str(if newline { "\n" } else { "" });
                    }
                }
            }
            return true;
        }
        if self.html.is_some() {
            let rest = self.buf[self.pos..].to_string();
            match self.in_html(&rest, eof) {
                None => return false,
                Some(true) => return true,
                Some(false) => {}
            }
        }
        let rest = &self.buf[self.pos..];
        let context = match self.nested {
            Some(_) => Context {
                paragraph: false,
                quote: 0,
                content: 0,
            },
            None => Context {
                paragraph: self.paragraph,
                quote: self.paragraph_quote,
                content: self.lists.last().map_or(0, |item| item.content),
            },
        };
        let Some(class) = line::classify(rest, eof, context) else {
            return false;
        };
        if let Some(nested) = self.nested.take() {
            self.begin_nested(class, nested, out);
            return true;
        }
        if self.in_indented(&class, out) {
            return true;
        }
        if !matches!(class.kind, Kind::Code { .. }) {
            self.close_indented(out);
        }
        if !matches!(class.kind, Kind::TableRow) {
            if let Some(table) = self.table.take() {
                self.flush_table(table, out);
            }
        }
        self.begin(class, out);
        true
    }

    /// Writes what starts the line (a quote's bars, a bullet, a heading's style) and sets how
    /// the rest of it is read.
    fn begin(&mut self, class: Class, out: &mut String) {
        let blank = matches!(class.kind, Kind::Blank { .. });
        let after_blank = std::mem::replace(&mut self.after_blank, blank);
        let paragraph = std::mem::replace(
            &mut self.paragraph,
            matches!(class.kind, Kind::Text { .. } | Kind::Item { .. }),
        );
        let lazy = paragraph && matches!(class.kind, Kind::Text { .. });
        let quote = match lazy {
            true => class.quote.max(self.paragraph_quote),
            false => class.quote,
        };
        self.paragraph_quote = quote;
        let bars = self.bars(quote);
        let start = out.len();
        out.push_str(if blank { bars.trim_end() } else { &bars });
        match class.kind {
            Kind::Blank { len } => {
                self.pos += len;
                if self.buf[self.pos..].starts_with('\n') {
                    self.pos += 1;
                    out.push('\n');
                }
            }
            Kind::Heading { level, skip } => {
                self.lists.clear();
                self.pos += skip;
                self.line = if self.style.colour {
                    let base = if level == 1 { "1;4" } else { "1" };
                    let wrap = self.wrap(&out[start..], bars, &inline::sgr(base));
                    out.push_str(&inline::sgr(base));
                    Line::heading(base, None, wrap)
                } else {
                    Line::heading("", Some(level), self.wrap(&out[start..], bars, ""))
                };
            }
            Kind::Item {
                indent,
                marker,
                ordered,
                skip,
            } => self.begin_item((indent, marker, ordered, skip), bars, start, out),
            Kind::Text { indent, skip } => {
                let hang = match self.continuation(indent, after_blank) {
                    Some(column) => {
                        out.push_str(&" ".repeat(column));
                        self.pos += skip;
                        bars + &" ".repeat(column)
                    }
                    None => {
                        self.lists.clear();
                        self.pos += class.after_quote;
                        bars
                    }
                };
                self.line = Line::text("", None, self.wrap(&out[start..], hang, ""));
            }
            Kind::Rule => self.hold(Whole::Rule),
            Kind::Fence => self.hold(Whole::Fence),
            Kind::TableRow => self.hold(Whole::TableRow),
            Kind::Html => self.hold(Whole::Html { paragraph }),
            Kind::Definition => self.hold(Whole::Definition),
            Kind::Code { skip, pad } => {
                out.truncate(start);
                self.indented_line(skip, pad, quote, out);
            }
            Kind::Setext { level } => {
                out.truncate(start);
                self.setext(level, out);
            }
        }
    }

    /// Wraps a text line whose start, `lead`, is written: later rows start with `hang`.
    fn wrap(&self, lead: &str, hang: String, sgr: &str) -> Wrap {
        Wrap::new(self.width, table::display_width(lead), hang, sgr)
    }

    fn hold(&mut self, kind: Whole) {
        self.line = Line::Whole { kind, searched: 0 };
    }

    /// The quote bars for `depth` levels (at most [`DEEPEST`]).
    fn bars(&self, depth: usize) -> String {
        let bar = self.style.dim(self.style.glyph("│", "|"));
        format!("{bar} ").repeat(depth.min(DEEPEST))
    }

    /// Streams a line's inline text; ends the line at its newline.
    fn text(&mut self, out: &mut String, eof: bool) -> bool {
        let Line::Text(text) = &mut self.line else {
            return false;
        };
        let paint = Paint {
            style: self.style,
            base: text.base,
            tags: self.tags,
            refs: &self.refs,
        };
        let mut piece = String::new();
        let rest = &self.buf[self.pos..];
        let (content, line_end) = match text.heading {
            true => line::heading_content(rest, eof, text.prev),
            false => (rest.len(), None),
        };
        let complete = eof || line_end.is_some();
        // A paragraph's spans may go on into its next line: its newline does not end them.
        let soft = !text.heading && !text.hard && rest.contains('\n');
        let taken = inline::stream(
            &rest[..content],
            complete,
            soft,
            &mut text.prev,
            paint,
            &mut piece,
        );
        self.pos += match line_end {
            Some(end) if taken == content => end,
            _ => taken,
        };
        text.shown += table::display_width(&piece);
        text.wrap.push(&piece, out);
        if soft && !self.buf[self.pos..].starts_with('\n') {
            // Something waits at the line's end: the next line tells whether it continues.
            return match self.join(eof) {
                None => false,
                Some(joined) => {
                    if let Line::Text(text) = &mut self.line {
                        text.hard = !joined;
                    }
                    true
                }
            };
        }
        let newline = self.buf[self.pos..].starts_with('\n');
        let ended = newline || (eof && self.pos == self.buf.len());
        if !ended {
            return false;
        }
        text.wrap.end(out);
        self.pos += usize::from(newline);
        if !text.base.is_empty() {
            out.push_str(&inline::sgr(""));
        }
        let (underline, shown) = (text.underline, text.shown);
        if let Some(level) = underline {
            out.push_str(&self.underline(level, shown));
        }
        self.last_shown = shown;
        out.push_str(if newline { "\n" } else { "" });
        self.line = Line::Start;
        true
    }

    /// The row under a heading without colour (none when nothing shows), after a newline.
    fn underline(&self, level: usize, shown: usize) -> String {
        let bars = self.bars(self.paragraph_quote);
        if self.tags {
            return format!("\n{bars}</h{level}>");
        }
        let mark = match level {
            1 => self.style.glyph("═", "="),
            _ => self.style.glyph("─", "-"),
        };
        match shown {
            0 => String::new(),
            _ => format!("\n{bars}{}", mark.repeat(shown.min(self.width))),
        }
    }
}

/// Writes SGR codes readably for tests: `{1}` for `\x1b[0;1m`, `{}` for `\x1b[0m`.
#[cfg(test)]
fn readable(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        let end = rest[at..].find('m').map_or(rest.len(), |m| at + m + 1);
        let codes = rest.get(at + 2..end - 1).unwrap_or("");
        let codes = codes
            .strip_prefix('0')
            .map_or(codes, |c| c.trim_start_matches(';'));
        out.push_str(&format!("{{{codes}}}"));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}
