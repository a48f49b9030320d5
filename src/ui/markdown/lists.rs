//! Where a line stands in the lists above it: an item's marker (a bullet, or its number
//! counted on from the item before), and which item a later line continues.

use super::line::{Class, Kind};
use super::wrap::Wrap;
use super::{Line, Markdown, table};

/// The rest of a list item's first line, after its marker.
pub(super) struct Nested {
    /// The column it starts in.
    pub offset: usize,
    /// The columns the bars and marker took on the screen.
    pub lead: usize,
    /// What starts the item's later rows.
    pub hang: String,
    /// The list markers on the row so far, this one's included.
    pub markers: usize,
}

pub(super) struct Item {
    /// The marker's column in the answer.
    pub indent: usize,
    /// The column of its text in the answer.
    pub content: usize,
    /// Where the item's text starts on the screen, for the lines that continue it.
    pub column: usize,
    /// An ordered item's number and delimiter (`.` or `)`: another starts a new list).
    pub number: Option<(u64, String)>,
}

impl Markdown {
    /// Writes a list item's marker (after the `bars` written from `start` in `out`) and reads
    /// the rest of its line: `(indent, marker, ordered, skip)` as the line's kind says.
    pub(super) fn begin_item(
        &mut self,
        (indent, marker, ordered, skip): (usize, (usize, usize), bool, usize),
        bars: String,
        start: usize,
        out: &mut String,
    ) {
        let (marker_start, marker_end) = marker;
        let marker = &self.buf[self.pos + marker.0..self.pos + marker.1];
        let marker = match ordered {
            true => Some(marker.to_string()),
            false => None,
        };
        let spaces = skip - marker_end;
        let gap = if spaces == 0 || spaces > 4 { 1 } else { spaces };
        let content = indent + marker_end - marker_start + gap;
        let markers = self.same_row + 1;
        let (lead, column) = self.item(indent, content, marker);
        let hang = bars + &" ".repeat(column);
        out.push_str(&lead);
        self.pos += if spaces > 4 { marker_end + 1 } else { skip };
        let lead = table::display_width(&out[start..]);
        let empty = matches!(self.buf.as_bytes().get(self.pos), None | Some(b'\n'));
        if empty {
            self.line = Line::text("", None, Wrap::new(self.width, lead, hang, ""));
        } else {
            self.nested = Some(Nested {
                offset: content,
                lead,
                hang,
                markers,
            });
            self.line = Line::Start;
        }
    }

    /// Reads what follows a list item's marker as a line of its own (a heading, a nested
    /// item, code, a quote or, mostly, text).
    pub(super) fn begin_nested(&mut self, class: Class, nested: Nested, out: &mut String) {
        match class.kind {
            Kind::Item {
                indent,
                marker,
                ordered,
                skip,
            } if nested.markers < super::DEEPEST => {
                let kind = Kind::Item {
                    indent: indent + nested.offset,
                    marker,
                    ordered,
                    skip,
                };
                self.same_row = nested.markers;
                self.begin(Class { kind, ..class }, out);
            }
            Kind::Heading { .. } | Kind::Rule | Kind::Code { .. } => self.begin(class, out),
            Kind::Fence => {
                self.offset = nested.offset;
                self.begin(class, out);
            }
            _ if class.quote > 0 => self.begin(class, out),
            _ => {
                self.paragraph = true;
                self.line = Line::text(
                    "",
                    None,
                    Wrap::new(self.width, nested.lead, nested.hang, ""),
                );
            }
        }
    }

    /// What starts a list item whose marker is at `indent` columns: the marker, indented by
    /// its nesting level (not on its parent's row), and the screen column of its text.
    /// `ordered`: the marker as written (`3.`, `10)`), numbered on from the item before it in
    /// the list; `None` for a bullet.
    pub(super) fn item(
        &mut self,
        indent: usize,
        content: usize,
        ordered: Option<String>,
    ) -> (String, usize) {
        while self.lists.last().is_some_and(|item| item.indent > indent) {
            self.lists.pop();
        }
        let before = match self.lists.last().is_some_and(|item| item.indent == indent) {
            true => self.lists.pop().and_then(|item| item.number),
            false => None,
        };
        let (marker, number) = match ordered {
            Some(marker) => {
                let (digits, delimiter) = marker.split_at(marker.len() - 1);
                let number = match before {
                    Some((n, before)) if before == delimiter => n + 1,
                    _ => digits.parse().unwrap_or(0),
                };
                (
                    format!("{number}{delimiter}"),
                    Some((number, delimiter.to_string())),
                )
            }
            None => (self.style.glyph("•", "-").to_string(), None),
        };
        let indent_shown = "  ".repeat(self.lists.len().min(super::DEEPEST));
        let lead = format!("{indent_shown}{marker} ");
        let column = table::display_width(&lead);
        // On its parent's row, the marker is where the parent's text starts already.
        let lead = match std::mem::take(&mut self.same_row) {
            0 => lead,
            _ => lead[indent_shown.len()..].to_string(),
        };
        self.lists.push(Item {
            indent,
            content,
            column,
            number,
        });
        (lead, column)
    }

    /// Where a text line at `indent` columns continues a list item (its text's column), or
    /// `None` when it is not part of a list (`after_blank`: a blank line came before it).
    pub(super) fn continuation(&mut self, indent: usize, after_blank: bool) -> Option<usize> {
        if after_blank {
            if indent == 0 {
                return None;
            }
            while self.lists.len() > 1 && self.lists.last().is_some_and(|i| i.indent >= indent) {
                self.lists.pop();
            }
        }
        self.lists.last().map(|item| item.column)
    }
}
