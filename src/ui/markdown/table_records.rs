//! A table with too many columns to draw within the terminal, shown a record per row: a
//! `Header: value` line for each cell with something in it (wrapped, later rows indented),
//! and a blank line between records.

use super::inline;
use super::table::wrap_cell;
use super::wrap::Wrap;
use crate::ui::style::Style;

/// How much a record's wrapped line is indented after its first row.
const HANG: &str = "  ";

/// The rows of `grid` (rendered cells; the header first) as records within `width` columns,
/// their lines joined by newlines; with no row below the header, the header's cells a line
/// each.
pub(super) fn records(grid: &[Vec<String>], style: Style, width: usize) -> String {
    let Some((header, body)) = grid.split_first() else {
        return String::new();
    };
    let labels: Vec<String> = header.iter().map(|cell| label(cell, style)).collect();
    if body.is_empty() {
        let lines: Vec<String> = labels.iter().flat_map(|l| wrap_cell(l, width)).collect();
        return lines.join("\n");
    }
    let shown: Vec<String> = body.iter().map(|row| record(&labels, row, width)).collect();
    shown.join("\n\n")
}

/// A header cell as it starts a record's line: bold with colour.
fn label(cell: &str, style: Style) -> String {
    match style.colour && !cell.is_empty() {
        true => format!("{}{cell}{}", inline::sgr("1"), inline::sgr("")),
        false => cell.to_string(),
    }
}

/// One row's lines: `Header: value` for each cell with text (the value alone under an empty
/// header).
fn record(labels: &[String], row: &[String], width: usize) -> String {
    let mut out = String::new();
    for (label, value) in labels.iter().zip(row) {
        if value.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let mut wrap = Wrap::new(width, 0, HANG.to_string(), "");
        match label.is_empty() {
            true => wrap.push(value, &mut out),
            false => wrap.push(&format!("{label}: {value}"), &mut out),
        }
        wrap.end(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::table_widths::grid;
    use super::*;

    #[test]
    fn each_row_is_a_record_of_header_value_lines() {
        let table = grid(&[
            &["Name", "Qty", ""],
            &["apple", "3", "fresh"],
            &["pear", "", "ripe and sweet"],
        ]);
        let shown = records(&table, Style::PLAIN, 40);
        assert_eq!(
            shown,
            "Name: apple\nQty: 3\nfresh\n\nName: pear\nripe and sweet"
        );
        let narrow = records(&table, Style::PLAIN, 8);
        assert_eq!(
            narrow,
            "Name:\n  apple\nQty: 3\nfresh\n\nName:\n  pear\nripe and\n  sweet"
        );
    }

    #[test]
    fn headers_are_bold_with_colour() {
        let colour = Style {
            colour: true,
            unicode: true,
        };
        let table = grid(&[&["Name"], &["apple"]]);
        assert_eq!(records(&table, colour, 40), "\x1b[0;1mName\x1b[0m: apple");
    }

    #[test]
    fn a_header_without_rows_is_its_cells_a_line_each() {
        let table = grid(&[&["Name", "Qty"]]);
        assert_eq!(records(&table, Style::PLAIN, 40), "Name\nQty");
    }
}
