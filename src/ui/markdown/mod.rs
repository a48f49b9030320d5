//! The model's Markdown rendered for a terminal as it streams, line by line: only what cannot
//! be decided yet is held back (a line's start until its kind is known, an opener until its
//! closer, a word until it ends, a table until its last row); prose is wrapped at word
//! boundaries to the terminal's width, code in fences is shown exactly as written.

mod blocks;
#[cfg(test)]
mod conformance;
mod html;
mod inline;
mod line;
mod lists;
mod nodes;
mod parse;
mod syntax;
mod table;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod view;
mod wrap;

use super::sanitize::sanitize;
use super::style::Style;
use inline::Paint;
use line::{Class, Context, Kind};
use wrap::Wrap;

/// A streaming renderer for one answer (or the text before a tool round).
pub(crate) struct Markdown {
    style: Style,
    /// The columns a row may take: prose wraps to it, tables wider are left as written,
    /// rules are at most 80.
    width: usize,
    /// Sanitized text not rendered yet, from `pos` (the front is dropped after each push).
    buf: String,
    pos: usize,
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
    /// The columns the line being read starts in (a list item's text after its marker).
    offset: usize,
    /// An HTML block is open: how it ends.
    html: Option<html::End>,
    /// The link reference definitions so far (`[label]: url`), by normalised label.
    refs: inline::Refs,
    /// The conformance tests' mode: no colour, and marks for what colour would show (see
    /// `view.rs`) in place of decorations.
    tags: bool,
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
            offset: 0,
            html: None,
            refs: inline::Refs::new(),
            tags: false,
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
        self.buf.push_str(&sanitize(text));
        let mut out = String::new();
        self.run(&mut out, false);
        out
    }

    /// The answer paused: returns the word held until its end so far (nothing when none is),
    /// so that what arrived is on the screen while more is waited for.
    pub(crate) fn release(&mut self) -> String {
        let mut out = String::new();
        if let Line::Text(text) = &mut self.line {
            text.wrap.release(&mut out);
        }
        if !out.is_empty() {
            self.line_ended = false;
        }
        out
    }

    /// The answer (or the text before a tool round) ended: returns everything still held back
    /// and starts over, so the next text is a new document.
    pub(crate) fn finish(&mut self) -> String {
        let mut out = String::new();
        self.run(&mut out, true);
        if let Some(table) = self.table.take() {
            self.flush_table(table, &mut out);
        }
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
        *self = Self {
            tags: self.tags,
            ..Self::new(self.style, self.width)
        };
        out
    }

    /// Renders as much of the buffer as can be decided (all of it at `eof`).
    fn run(&mut self, out: &mut String, eof: bool) {
        while self.step(out, eof) {}
        self.buf.drain(..self.pos);
        self.pos = 0;
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
            } => {
                let (marker_start, marker_end) = marker;
                let marker = &self.buf[self.pos + marker.0..self.pos + marker.1];
                let marker = match ordered {
                    true => Some(marker.to_string()),
                    false => None,
                };
                let spaces = skip - marker_end;
                let gap = if spaces == 0 || spaces > 4 { 1 } else { spaces };
                let content = indent + marker_end - marker_start + gap;
                let lead = self.item(indent, content, marker);
                let hang = bars + &" ".repeat(table::display_width(&lead));
                out.push_str(&lead);
                self.pos += if spaces > 4 { marker_end + 1 } else { skip };
                let lead = table::display_width(&out[start..]);
                let empty = matches!(self.buf.as_bytes().get(self.pos), None | Some(b'\n'));
                self.line = Line::text("", None, Wrap::new(self.width, lead, hang.clone(), ""));
                if !empty {
                    self.nested = Some(lists::Nested {
                        offset: content,
                        lead,
                        hang,
                    });
                    self.line = Line::Start;
                }
            }
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

    /// The quote bars for `depth` levels.
    fn bars(&self, depth: usize) -> String {
        let bar = self.style.dim(self.style.glyph("│", "|"));
        format!("{bar} ").repeat(depth)
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
            true => line::heading_content(rest, eof),
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

    /// What starts a line of code in a block indented by `indent`: the spaces of `line` within
    /// the indentation are skipped (how many bytes) and the block's indentation written
    /// instead (a `|` after it in the tagged mode).
    fn code_lead(&self, line: &str, indent: &str) -> (usize, String) {
        let columns = table::display_width(indent);
        let skip = line
            .bytes()
            .take(columns)
            .take_while(|&b| b == b' ')
            .count();
        let mark = if self.tags { "|" } else { "" };
        (skip, format!("{indent}{mark}"))
    }

    /// Writes a code line as it comes, byte for byte.
    fn code(&mut self, out: &mut String, eof: bool) -> bool {
        let rest = &self.buf[self.pos..];
        match rest.find('\n') {
            Some(end) => {
                out.push_str(&rest[..=end]);
                self.pos += end + 1;
                self.line = Line::Start;
                true
            }
            None => {
                out.push_str(rest);
                self.pos = self.buf.len();
                if eof {
                    self.line = Line::Start;
                }
                false
            }
        }
    }

    /// Waits for the newline of a line held whole, then writes it.
    fn whole(&mut self, out: &mut String, eof: bool) -> bool {
        let Line::Whole { kind, searched } = &mut self.line else {
            return false;
        };
        let rest = &self.buf[self.pos..];
        let (end, newline) = match rest[*searched..].find('\n') {
            Some(at) => (*searched + at, true),
            None if eof => (rest.len(), false),
            None => {
                *searched = rest.len();
                return false;
            }
        };
        let (kind, line) = (*kind, rest[..end].to_string());
        self.pos += end + usize::from(newline);
        self.line = Line::Start;
        match kind {
            Whole::Rule => {
                self.lists.clear();
                let rule = match self.tags {
                    true => "<hr>".to_string(),
                    false => self.style.dim(&self.rule(0)),
                };
                out.push_str(&rule);
                out.push_str(if newline { "\n" } else { "" });
            }
            Whole::Fence => self.open_fence(&line, newline, out),
            Whole::TableRow => self.table_row(line, newline, out),
            Whole::Html { paragraph } => self.html_start(&line, newline, paragraph, out),
            Whole::HtmlLine => self.html_line(&line, newline, out),
            Whole::Definition => self.definition(&line, newline, out),
        }
        true
    }

    /// A horizontal line for a rule or a code block, `indent` columns in.
    fn rule(&self, indent: usize) -> String {
        let columns = self.width.min(80).saturating_sub(indent);
        self.style.glyph("─", "-").repeat(columns)
    }

    /// The dim line above (with the language) or below a code block.
    /// `language`: `None` below the block.
    fn code_rule(&self, indent: &str, language: Option<&str>) -> String {
        if self.tags {
            let mark = match language {
                None => "</pre>".to_string(),
                Some("") => "<pre>".to_string(),
                Some(language) => format!("<pre {language}>"),
            };
            return format!("{indent}{mark}");
        }
        let language = language.unwrap_or("");
        let columns = table::display_width(indent);
        let rule = self.rule(columns);
        let line = match language {
            "" => rule,
            _ => {
                let mark = self.style.glyph("─", "-");
                let label = format!("{mark}{mark} {language} ");
                let used = table::display_width(&label);
                let fill = rule.chars().count().saturating_sub(used).max(2);
                format!("{label}{}", mark.repeat(fill))
            }
        };
        format!("{indent}{}", self.style.dim(&line))
    }

    fn open_fence(&mut self, line: &str, newline: bool, out: &mut String) {
        let Some((indent, mark, len, language)) = line::fence_open(line) else {
            self.plain_line(line, newline, out);
            return;
        };
        let indent = " ".repeat(std::mem::take(&mut self.offset)) + &line[..indent];
        let language = syntax::unescape(language);
        out.push_str(&self.code_rule(&indent, Some(&language)));
        out.push('\n');
        self.fence = Some(Fence { mark, len, indent });
    }

    /// A row of a table, or of what may become one: a first row waits for the delimiter row.
    fn table_row(&mut self, line: String, newline: bool, out: &mut String) {
        let mut table = self.table.take().unwrap_or(Table {
            rows: Vec::new(),
            confirmed: false,
            newline,
        });
        table.newline = newline;
        let header = table.rows.first().map(|row| table::cells(row).len());
        let delimits = table::delimiter(&line).map(|aligns| aligns.len());
        if table.confirmed || header.is_none() {
            table.rows.push(line);
        } else if header == delimits {
            table.rows.push(line);
            table.confirmed = true;
            self.lists.clear();
        } else {
            let rows = std::mem::replace(&mut table.rows, vec![line]);
            for row in rows {
                self.plain_line(&row, true, out);
            }
        }
        self.table = Some(table);
    }

    /// Writes a held table (a newline after it when its last row had one), or the lone row
    /// that never became one.
    fn flush_table(&mut self, table: Table, out: &mut String) {
        if table.confirmed {
            out.push_str(&table::draw(&table.rows, self.style, self.width));
        } else {
            let rows: Vec<String> = table.rows.iter().map(|row| self.wrapped(row)).collect();
            out.push_str(&rows.join("\n"));
        }
        out.push_str(if table.newline { "\n" } else { "" });
    }

    /// A held line shown as text after all.
    fn plain_line(&mut self, line: &str, newline: bool, out: &mut String) {
        out.push_str(&self.wrapped(line));
        out.push_str(if newline { "\n" } else { "" });
    }

    /// A whole line of text rendered and wrapped.
    fn wrapped(&self, line: &str) -> String {
        let mut wrap = self.wrap("", String::new(), "");
        let mut out = String::new();
        wrap.push(&inline::render(line, self.paint()), &mut out);
        wrap.end(&mut out);
        out
    }

    fn paint(&self) -> Paint<'_> {
        Paint {
            style: self.style,
            base: "",
            tags: self.tags,
            refs: &self.refs,
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
