//! HTML as plain text to read: headings as `#` lines, paragraphs apart, lists with bullets or
//! numbers, table rows as `a | b`, block quotes as `> `, code blocks fenced, links numbered
//! (or written out after their text), whitespace collapsed; scripts, styles, forms' controls,
//! and on a whole page its navigation and the header and footer outside the article dropped.

use std::collections::HashMap;

mod blocks;

use super::open::{Inserted, Open};
use super::tokenize::{Tag, Token, Tokenizer};
use super::url::resolve;

/// Lists and quotes nested deeper than this are indented as this deep: a hostile page of
/// 100,000 nested lists must not make every line 200,000 characters long.
const MAX_INDENT: usize = 16;
/// Rendering stops here (the tools show far less): the work stays linear in what is kept.
const MAX_TEXT: usize = 4 * 1024 * 1024;

/// What becomes of links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// `text [3]`, the URLs listed after the text.
    Footnotes,
    /// `text (https://…)`.
    Inline,
    /// Only the text.
    Drop,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Options<'a> {
    /// The page's address, for relative links.
    pub(crate) base: Option<&'a str>,
    pub(crate) links: Links,
    /// A whole page: its navigation, and a header or footer outside `article`/`main`, go.
    pub(crate) page: bool,
}

/// What a page comes to.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Rendered {
    pub(crate) title: Option<String>,
    pub(crate) text: String,
    /// The footnoted links, `[1]` first.
    pub(crate) links: Vec<String>,
}

/// Elements whose content is never text to read.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas",
    "select", "button", "textarea", "datalist",
];
/// Dropped on a whole page.
const PAGE_CHROME: &[&str] = &["nav", "header", "footer"];
/// Elements that end the line before and after them.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "center",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "form",
    "hgroup",
    "li",
    "main",
    "section",
    "summary",
    "tr",
    "caption",
    "nav",
    "header",
    "footer",
    "body",
    "html",
    "legend",
    "option",
    "label",
];

#[derive(Default)]
struct Row {
    cells: usize,
    in_cell: bool,
}

enum Frame {
    Quote,
    List { ordered: bool, next: u32 },
}

/// Renders `html` as text.
pub(crate) fn render(html: &str, options: &Options<'_>) -> Rendered {
    let mut writer = Writer::new(options);
    writer.read(html);
    writer.finish()
}

/// The document's text the renderer keeps, in order, without what it adds (marks, bullets,
/// links): what the html5lib tree-construction cases are scored on.
#[cfg(test)]
pub(crate) fn kept_text(html: &str) -> String {
    let options = Options {
        base: None,
        links: Links::Drop,
        page: false,
    };
    let mut writer = Writer::new(&options);
    writer.kept = Some(String::new());
    writer.read(html);
    writer.kept.unwrap_or_default()
}

struct Writer<'a> {
    options: Options<'a>,
    base: Option<String>,
    out: String,
    line: String,
    /// What the current line starts with (quote marks, indentation, a bullet), fixed when its
    /// first character comes.
    prefix: String,
    space: bool,
    blank: bool,
    frames: Vec<Frame>,
    bullet: Option<String>,
    /// The elements open, and whether one hides what is here.
    open: Open,
    /// A frameset replaced the body: only the text of a `noframes` (while `noframes`) shows.
    frameset: bool,
    noframes: bool,
    title: Option<String>,
    in_title: bool,
    pre: usize,
    /// Right after `<pre>`, where a first newline is not part of the code.
    pre_start: bool,
    /// The row being written of each table open, innermost last.
    tables: Vec<Row>,
    article: usize,
    link: Option<(String, usize)>,
    links: Vec<String>,
    /// Each link's footnote number, so a page of many links is numbered in linear time.
    numbers: HashMap<String, usize>,
    /// The document's text as it is kept, for the conformance tests.
    #[cfg(test)]
    kept: Option<String>,
}

impl<'a> Writer<'a> {
    fn read(&mut self, html: &str) {
        let mut tokens = Tokenizer::driven(html);
        while let Some(token) = tokens.next() {
            if self.out.len() > MAX_TEXT {
                break;
            }
            match token {
                Token::Start(tag) => {
                    if self.start(&tag) == Inserted::Html {
                        tokens.read_content_of(&tag.name);
                    }
                }
                Token::End(name) => self.end(&name),
                Token::Text(text) => self.text(&text),
            }
            tokens.set_foreign(self.open.in_foreign());
        }
    }

    fn new(options: &Options<'a>) -> Self {
        Self {
            options: *options,
            base: options.base.map(str::to_string),
            out: String::new(),
            line: String::new(),
            prefix: String::new(),
            space: false,
            blank: false,
            frames: Vec::new(),
            bullet: None,
            open: Open::default(),
            frameset: false,
            noframes: false,
            title: None,
            in_title: false,
            pre: 0,
            pre_start: false,
            tables: Vec::new(),
            article: 0,
            link: None,
            links: Vec::new(),
            numbers: HashMap::new(),
            #[cfg(test)]
            kept: None,
        }
    }

    /// A start tag: the element opens (hiding its content if it is one to drop), and what it
    /// means for the text is written.
    fn start(&mut self, tag: &Tag) -> Inserted {
        let name = tag.name.as_str();
        // Only the first title is the page's; the others are as hidden as in a browser.
        let hide = self.drops(name) || (name == "title" && self.title.is_some());
        let inserted = self.open.start(tag, hide);
        if self.frameset && name == "noframes" {
            self.noframes = true;
        }
        if self.open.hidden() || self.frameset {
            return inserted;
        }
        match name {
            "title" => {
                self.in_title = true;
                self.title = Some(String::new());
            }
            // A frameset before any text replaces the body: nothing after it is shown.
            "frameset" => self.frameset = self.out.is_empty() && self.line.is_empty(),
            _ => self.layout(tag),
        }
        inserted
    }

    fn layout(&mut self, tag: &Tag) {
        let name = tag.name.as_str();
        match name {
            "base" => {
                if let Some(href) = tag.attr("href") {
                    self.base = Some(match &self.base {
                        Some(base) => resolve(base, href),
                        None => href.to_string(),
                    });
                }
            }
            "article" | "main" => {
                self.article += 1;
                self.block(false);
            }
            "br" => self.line_break(),
            "p" | "hr" => self.block(true),
            "table" => {
                self.block(true);
                self.tables.push(Row::default());
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.block(true);
                let level = usize::from(name.as_bytes()[1] - b'0');
                self.inline(&format!("{} ", "#".repeat(level)));
            }
            "ul" | "ol" | "menu" => self.open_list(name == "ol", tag),
            "li" => self.open_item(),
            "blockquote" => {
                self.block(true);
                self.frames.push(Frame::Quote);
            }
            "pre" | "listing" | "plaintext" => self.open_pre(),
            "tr" => self.open_row(),
            "td" | "th" => self.open_cell(),
            "code" | "kbd" | "samp" | "tt" if self.pre == 0 => self.inline("`"),
            "a" => self.open_link(tag),
            "img" => {
                if let Some(alt) = tag.attr("alt").map(str::trim).filter(|a| !a.is_empty()) {
                    self.inline(&format!("[{alt}]"));
                }
            }
            _ if BLOCKS.contains(&name) => self.block(false),
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        self.open.end(name);
        if name == "noframes" {
            self.noframes = false;
        }
        if self.open.hidden() || self.frameset {
            return;
        }
        match name {
            "title" => self.in_title = false,
            "article" | "main" => {
                self.article = self.article.saturating_sub(1);
                self.block(false);
            }
            "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => self.block(true),
            "table" => {
                self.tables.pop();
                self.block(true);
            }
            "ul" | "ol" | "menu" => self.close_list(),
            "li" => self.block(false),
            "blockquote" => {
                self.block(true);
                if matches!(self.frames.last(), Some(Frame::Quote)) {
                    self.frames.pop();
                }
            }
            "pre" | "listing" | "plaintext" => self.close_pre(),
            "td" | "th" => {
                if let Some(row) = self.tables.last_mut() {
                    row.in_cell = false;
                }
            }
            "tr" => self.open_row(),
            "code" | "kbd" | "samp" | "tt" if self.pre == 0 => {
                self.space = false;
                self.inline("`");
            }
            "a" => self.close_link(),
            _ if BLOCKS.contains(&name) => self.block(false),
            _ => {}
        }
    }

    fn drops(&self, name: &str) -> bool {
        DROPPED.contains(&name)
            || (self.options.page
                && PAGE_CHROME.contains(&name)
                && (name == "nav" || self.article == 0))
    }

    fn text(&mut self, text: &str) {
        if self.open.hidden() || (self.frameset && !self.noframes) {
            return;
        }
        if self.in_title {
            if let Some(title) = &mut self.title {
                title.push_str(text);
            }
            return;
        }
        #[cfg(test)]
        if let Some(kept) = &mut self.kept {
            kept.push_str(text);
        }
        if self.pre > 0 {
            return self.verbatim(text);
        }
        for ch in text.chars() {
            if ch.is_whitespace() {
                self.space = true;
            } else {
                self.push(ch);
            }
        }
    }

    /// Text of a `pre`: every space and line kept.
    fn verbatim(&mut self, text: &str) {
        let mut text = text.replace("\r\n", "\n");
        if std::mem::take(&mut self.pre_start) && text.starts_with('\n') {
            text.remove(0);
        }
        let mut lines = text.split('\n');
        if let Some(first) = lines.next() {
            self.push_raw(first);
        }
        for line in lines {
            self.flush(true);
            self.push_raw(line);
        }
    }

    fn push_raw(&mut self, text: &str) {
        for ch in text.chars() {
            let ch = if ch == '\t' { ' ' } else { ch };
            self.start_line();
            self.line.push(ch);
        }
        self.mark_link_text(!text.is_empty());
    }

    /// Text the writer adds itself (heading marks, backticks, alt text).
    fn inline(&mut self, text: &str) {
        for ch in text.chars() {
            if ch == ' ' {
                self.space = true;
            } else {
                self.push(ch);
            }
        }
    }

    fn push(&mut self, ch: char) {
        self.start_line();
        if self.space && !self.line.is_empty() && !self.line.ends_with(' ') {
            self.line.push(' ');
        }
        self.space = false;
        self.line.push(ch);
        self.mark_link_text(true);
    }

    fn mark_link_text(&mut self, wrote: bool) {
        if let Some((_, count)) = &mut self.link {
            if wrote {
                *count += 1;
            }
        }
    }

    /// Before the first character of a line: the empty line asked for, then its prefix.
    fn start_line(&mut self) {
        if !self.line.is_empty() {
            return;
        }
        if self.blank && !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
        self.blank = false;
        self.prefix = self.prefix_now();
        self.space = false;
    }

    fn prefix_now(&mut self) -> String {
        let mut prefix = String::new();
        let innermost = self
            .frames
            .iter()
            .rposition(|f| matches!(f, Frame::List { .. }));
        let shown = self.frames.len().saturating_sub(MAX_INDENT);
        for (i, frame) in self.frames.iter().enumerate().skip(shown) {
            match frame {
                Frame::Quote => prefix.push_str("> "),
                Frame::List { .. } if Some(i) == innermost => match self.bullet.take() {
                    Some(bullet) => prefix.push_str(&bullet),
                    None => prefix.push_str("  "),
                },
                Frame::List { .. } => prefix.push_str("  "),
            }
        }
        prefix
    }

    /// Ends the current line, if it has anything (or always, in `pre`).
    fn flush(&mut self, keep_empty: bool) {
        if self.line.is_empty() && !keep_empty {
            return;
        }
        if self.line.is_empty() {
            self.start_line();
        }
        let line = std::mem::take(&mut self.line);
        if line.trim().is_empty() {
            self.out.push_str(self.prefix.trim_end());
        } else {
            self.out.push_str(&self.prefix);
            self.out.push_str(line.trim_end());
        }
        self.out.push('\n');
        self.space = false;
    }

    /// A block starts or ends: the line ends (in a table cell, a space instead).
    fn block(&mut self, blank: bool) {
        if self.in_cell() {
            self.space = true;
            return;
        }
        self.flush(false);
        self.space = false;
        if blank {
            self.blank = true;
        }
    }

    fn line_break(&mut self) {
        if self.in_cell() {
            self.space = true;
        } else if self.line.is_empty() {
            self.blank = true;
        } else {
            self.flush(false);
        }
    }

    fn in_cell(&self) -> bool {
        self.tables.last().is_some_and(|row| row.in_cell)
    }

    fn finish(mut self) -> Rendered {
        if self.pre > 0 {
            self.pre = 1;
            self.close_pre();
        }
        self.flush(false);
        let title = self
            .title
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty());
        Rendered {
            title,
            text: tidy(&self.out),
            links: self.links,
        }
    }
}

/// Trailing spaces gone, at most one empty line in a row, none at the ends.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut empty = 0;
    for line in text.lines().map(str::trim_end) {
        if line.is_empty() {
            empty += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if empty > 0 { "\n\n" } else { "\n" });
        }
        empty = 0;
        out.push_str(line);
    }
    out
}
