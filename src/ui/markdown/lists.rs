//! Where a line stands in the lists above it: an item's marker (a bullet, or its number
//! counted on from the item before), and which item a later line continues.

use super::{Markdown, table};

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
    /// What starts a list item whose marker is at `indent` columns: the marker, indented by
    /// its nesting level.
    /// `ordered`: the marker as written (`3.`, `10)`), numbered on from the item before it in
    /// the list; `None` for a bullet.
    pub(super) fn item(
        &mut self,
        indent: usize,
        content: usize,
        ordered: Option<String>,
    ) -> String {
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
        let lead = format!("{}{marker} ", "  ".repeat(self.lists.len()));
        let column = table::display_width(&lead);
        self.lists.push(Item {
            indent,
            content,
            column,
            number,
        });
        lead
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
