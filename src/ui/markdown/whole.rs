//! The lines held whole until their newline (rules, fence openers, table rows, the starts of
//! HTML blocks and of link definitions), and the lines and rules of code blocks.

use super::inline::{self, Paint};
use super::{Fence, Line, Markdown, Table, Whole, line, syntax, table};

impl Markdown {
    /// What starts a line of code in a block indented by `indent`: the spaces of `line` within
    /// the indentation are skipped (how many bytes) and the block's indentation written
    /// instead (a `|` after it in the tagged mode).
    pub(super) fn code_lead(&self, line: &str, indent: &str) -> (usize, String) {
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
    pub(super) fn code(&mut self, out: &mut String, eof: bool) -> bool {
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
    pub(super) fn whole(&mut self, out: &mut String, eof: bool) -> bool {
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
    pub(super) fn rule(&self, indent: usize) -> String {
        let columns = self.width.min(80).saturating_sub(indent);
        self.style.glyph("─", "-").repeat(columns)
    }

    /// The dim line above (with the language) or below a code block.
    /// `language`: `None` below the block.
    pub(super) fn code_rule(&self, indent: &str, language: Option<&str>) -> String {
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

    pub(super) fn open_fence(&mut self, line: &str, newline: bool, out: &mut String) {
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
    pub(super) fn table_row(&mut self, line: String, newline: bool, out: &mut String) {
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
    pub(super) fn flush_table(&mut self, table: Table, out: &mut String) {
        if table.confirmed {
            out.push_str(&table::draw(&table.rows, self.style, self.width, self.tags));
        } else {
            let rows: Vec<String> = table.rows.iter().map(|row| self.wrapped(row)).collect();
            out.push_str(&rows.join("\n"));
        }
        out.push_str(if table.newline { "\n" } else { "" });
    }

    /// A held line shown as text after all.
    pub(super) fn plain_line(&mut self, line: &str, newline: bool, out: &mut String) {
        out.push_str(&self.wrapped(line));
        out.push_str(if newline { "\n" } else { "" });
    }

    /// A whole line of text rendered and wrapped.
    pub(super) fn wrapped(&self, line: &str) -> String {
        let mut wrap = self.wrap("", String::new(), "");
        let mut out = String::new();
        wrap.push(&inline::render(line, self.paint()), &mut out);
        wrap.end(&mut out);
        out
    }

    pub(super) fn paint(&self) -> Paint<'_> {
        Paint {
            style: self.style,
            base: "",
            tags: self.tags,
            refs: &self.refs,
        }
    }
}
