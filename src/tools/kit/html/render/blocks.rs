//! Lists, table rows and cells, code blocks and links as the renderer lays them out: bullets
//! and numbers, `a | b`, fenced code, a link's footnote number or address after its text.

use super::super::tokenize::Tag;
use super::super::url::resolve;
use super::{Frame, Links, Row, Writer};

impl Writer<'_> {
    /// A row starts (or ends): cells are counted anew, on a new line.
    pub(super) fn open_row(&mut self) {
        if let Some(row) = self.tables.last_mut() {
            *row = Row::default();
        }
        self.block(false);
    }

    /// A cell starts, ending the one before if it was left open: `a | b`.
    pub(super) fn open_cell(&mut self) {
        let Some(row) = self.tables.last_mut() else {
            return;
        };
        row.in_cell = true;
        row.cells += 1;
        if row.cells > 1 {
            self.space = true;
            self.push('|');
            self.space = true;
        }
    }

    pub(super) fn open_list(&mut self, ordered: bool, tag: &Tag) {
        let nested = self.frames.iter().any(|f| matches!(f, Frame::List { .. }));
        self.block(!nested);
        let next = tag
            .attr("start")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        self.frames.push(Frame::List { ordered, next });
    }

    pub(super) fn open_item(&mut self) {
        self.block(false);
        let bullet = match self.frames.iter_mut().rev().find_map(|f| match f {
            Frame::List { ordered, next } => Some((ordered, next)),
            Frame::Quote => None,
        }) {
            Some((true, next)) => {
                *next += 1;
                format!("{}. ", *next - 1)
            }
            _ => "- ".to_string(),
        };
        self.bullet = Some(bullet);
    }

    pub(super) fn close_list(&mut self) {
        self.block(false);
        if let Some(at) = self
            .frames
            .iter()
            .rposition(|f| matches!(f, Frame::List { .. }))
        {
            self.frames.truncate(at);
        }
        self.bullet = None;
        if !self.frames.iter().any(|f| matches!(f, Frame::List { .. })) {
            self.blank = true;
        }
    }

    pub(super) fn open_pre(&mut self) {
        self.block(true);
        if self.pre == 0 {
            self.push_raw("```");
            self.flush(false);
            self.pre_start = true;
        }
        self.pre += 1;
    }

    pub(super) fn close_pre(&mut self) {
        if self.pre == 0 {
            return;
        }
        self.pre -= 1;
        if self.pre == 0 {
            self.flush(false);
            self.push_raw("```");
            self.flush(false);
            self.blank = true;
        }
    }

    pub(super) fn open_link(&mut self, tag: &Tag) {
        let href = tag.attr("href").map(str::trim).unwrap_or_default();
        let lower = href.to_ascii_lowercase();
        if href.is_empty()
            || href.starts_with('#')
            || lower.starts_with("javascript:")
            || lower.starts_with("data:")
        {
            return;
        }
        let url = match &self.base {
            Some(base) => resolve(base, href),
            None => href.to_string(),
        };
        self.link = Some((url, 0));
    }

    pub(super) fn close_link(&mut self) {
        let Some((url, written)) = self.link.take() else {
            return;
        };
        if written == 0 {
            return;
        }
        match self.options.links {
            Links::Drop => {}
            Links::Inline => {
                if !self.line.ends_with(url.as_str()) {
                    self.mark(&format!(" ({url})"));
                }
            }
            Links::Footnotes => {
                let next = self.links.len() + 1;
                let number = *self.numbers.entry(url.clone()).or_insert(next);
                if number == next {
                    self.links.push(url);
                }
                self.mark(&format!(" [{number}]"));
            }
        }
    }

    /// Adds a link's mark after its text, keeping the space that came after the text.
    fn mark(&mut self, mark: &str) {
        let space = std::mem::take(&mut self.space);
        self.inline(mark);
        self.space = space;
    }
}
