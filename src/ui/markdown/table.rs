//! Markdown tables, drawn once their last row has arrived: columns padded to the widest cell
//! (by display width), or narrowed with the cells' text wrapped when that is too wide, and
//! aligned as the delimiter row says, with box lines or ASCII borders; shown as records
//! (`table_records.rs`) when a column would be too narrow to read.

use super::inline::{Paint, render};
use super::wrap::Wrap;
use super::{table_records, table_widths};
use crate::ui::style::Style;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Align {
    Left,
    Centre,
    Right,
}

/// A row's cells, trimmed: split at each `|` that is not escaped, the outer pipes dropped, an
/// escaped `\|` made a plain `|`.
pub(super) fn cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = match row.strip_suffix('|') {
        Some(inner) if !inner.ends_with('\\') => inner,
        _ => row,
    };
    let (mut cells, mut cell, mut escaped) = (Vec::new(), String::new(), false);
    for c in row.chars() {
        match c {
            '|' if escaped => {
                cell.pop();
                cell.push('|');
            }
            '|' => cells.push(std::mem::take(&mut cell).trim().to_string()),
            c => cell.push(c),
        }
        escaped = c == '\\' && !escaped;
    }
    cells.push(cell.trim().to_string());
    cells
}

/// The alignments of a delimiter row (`|:--|--:|:-:|`), or `None` when `row` is not one.
pub(super) fn delimiter(row: &str) -> Option<Vec<Align>> {
    let cells = cells(row);
    cells
        .iter()
        .map(|cell| {
            let left = cell.starts_with(':');
            let right = cell.len() > 1 && cell.ends_with(':');
            let dashes = cell.trim_start_matches(':').trim_end_matches(':');
            if dashes.is_empty() || !dashes.bytes().all(|b| b == b'-') {
                return None;
            }
            Some(match (left, right) {
                (true, true) => Align::Centre,
                (false, true) => Align::Right,
                _ => Align::Left,
            })
        })
        .collect()
}

/// The table in `rows` (header, delimiter, body) drawn within `width` columns, its lines
/// joined by newlines: each column as wide as its widest cell when that fits, else narrowed
/// with its cells' text wrapped inside them (see `table_widths.rs`), else, when a column would
/// be too narrow to read, each row shown as a record (see `table_records.rs`). The renderer
/// holds a table until its last row has arrived, as no column's width is known before.
/// `tags`: the tagged mode (cells' spans marked).
pub(super) fn draw(rows: &[String], style: Style, width: usize, tags: bool) -> String {
    let (Some(header), Some(aligns)) = (rows.first(), rows.get(1).and_then(|r| delimiter(r)))
    else {
        return rows.join("\n");
    };
    let columns = aligns.len();
    let shown = |row: &str, base| -> Vec<String> {
        let mut cells = cells(row);
        cells.resize(columns, String::new());
        let paint = Paint {
            style,
            base,
            tags,
            refs: &super::syntax::NO_REFS,
        };
        cells.iter().map(|cell| render(cell, paint)).collect()
    };
    let mut grid = vec![shown(header, if style.colour { "1" } else { "" })];
    grid.extend(rows[2..].iter().map(|row| shown(row, "")));
    let room = width.saturating_sub(3 * columns + 1);
    match table_widths::fit(&grid, room) {
        Some(widths) => grid_lines(&grid, &widths, &aligns, style).join("\n"),
        None => table_records::records(&grid, style, width),
    }
}

/// The table's lines: box lines around it and under the header, and each row as many lines
/// as its tallest cell wraps to (with box lines between the rows when one takes several).
fn grid_lines(
    grid: &[Vec<String>],
    widths: &[usize],
    aligns: &[Align],
    style: Style,
) -> Vec<String> {
    let border = |corners: [(&'static str, &'static str); 3]| -> String {
        let [left, middle, right] = corners.map(|(symbol, ascii)| style.glyph(symbol, ascii));
        let line = style.glyph("─", "-");
        let spans: Vec<String> = widths.iter().map(|w| line.repeat(w + 2)).collect();
        style.dim(&format!("{left}{}{right}", spans.join(middle)))
    };
    let wrapped: Vec<Vec<Vec<String>>> = grid
        .iter()
        .map(|row| {
            let cells = row.iter().zip(widths);
            cells.map(|(cell, &width)| wrap_cell(cell, width)).collect()
        })
        .collect();
    let height = |row: &Vec<Vec<String>>| row.iter().map(Vec::len).max().unwrap_or(1);
    // Where a body row takes several lines, a line between rows shows where each ends.
    let ruled = wrapped.iter().skip(1).any(|row| height(row) > 1);
    let between = border([("├", "+"), ("┼", "+"), ("┤", "+")]);
    let mut lines = vec![border([("┌", "+"), ("┬", "+"), ("┐", "+")])];
    for (n, row) in wrapped.iter().enumerate() {
        if n == 1 || (n > 1 && ruled) {
            lines.push(between.clone());
        }
        for at in 0..height(row) {
            let parts: Vec<&str> = row
                .iter()
                .map(|cell| cell.get(at).map_or("", String::as_str))
                .collect();
            lines.push(row_line(&parts, widths, aligns, n == 0, style));
        }
    }
    lines.push(border([("└", "+"), ("┴", "+"), ("┘", "+")]));
    lines
}

/// A rendered cell's text wrapped at its words to `width` columns, a line each (one, empty,
/// for an empty cell); a style open across a break is closed before it and opened after it.
pub(super) fn wrap_cell(cell: &str, width: usize) -> Vec<String> {
    let mut wrap = Wrap::new(width, 0, String::new(), "");
    let mut out = String::new();
    wrap.push(cell, &mut out);
    wrap.end(&mut out);
    out.split('\n').map(str::to_string).collect()
}

/// `│ a   │   b │`: each cell padded to its column's width as aligned (the header bold).
fn row_line(
    row: &[&str],
    widths: &[usize],
    aligns: &[Align],
    header: bool,
    style: Style,
) -> String {
    let bar = style.dim(style.glyph("│", "|"));
    let mut line = bar.clone();
    for ((cell, width), align) in row.iter().zip(widths).zip(aligns) {
        let gap = width.saturating_sub(display_width(cell));
        let (before, after) = match align {
            Align::Left => (0, gap),
            Align::Right => (gap, 0),
            Align::Centre => (gap / 2, gap - gap / 2),
        };
        let cell = match header && style.colour {
            true => format!("\x1b[1m{cell}\x1b[0m"),
            false => cell.to_string(),
        };
        line.push_str(&format!(
            " {}{cell}{} {bar}",
            " ".repeat(before),
            " ".repeat(after)
        ));
    }
    line
}

/// The columns `text` takes on a terminal: SGR sequences take none, combining marks none,
/// East Asian wide characters and emoji two.
pub(super) fn display_width(text: &str) -> usize {
    crate::ui::width::shown_width(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn style(colour: bool, unicode: bool) -> Style {
        Style { colour, unicode }
    }

    fn rows(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|line| line.to_string()).collect()
    }

    #[test]
    fn cells_and_delimiters() {
        assert_eq!(cells("| a | b |"), ["a", "b"]);
        assert_eq!(cells("|a|"), ["a"]);
        assert_eq!(cells("| a \\| b | `c` |"), ["a | b", "`c`"]);
        assert_eq!(cells("| a | b \\|"), ["a", "b |"]);
        assert_eq!(cells("| a || c"), ["a", "", "c"]);
        use Align::*;
        assert_eq!(
            delimiter("|---|:--|--:|:-:|"),
            Some(vec![Left, Left, Right, Centre])
        );
        assert_eq!(delimiter("| - |"), Some(vec![Left]));
        assert_eq!(delimiter("| a | --- |"), None);
        assert_eq!(delimiter("| :: |"), None);
    }

    #[test]
    fn draws_aligned_columns() {
        let table = rows(&[
            "| Name | Qty | Note |",
            "|:--|--:|:-:|",
            "| apple | 3 | ok |",
            "| 苹果 | 12 |",
        ]);
        let expected_unicode = [
            "┌───────┬─────┬──────┐",
            "│ Name  │ Qty │ Note │",
            "├───────┼─────┼──────┤",
            "│ apple │   3 │  ok  │",
            "│ 苹果  │  12 │      │",
            "└───────┴─────┴──────┘",
        ];
        assert_eq!(
            draw(&table, style(false, true), 80, false),
            expected_unicode.join("\n")
        );
        let expected_ascii = [
            "+-------+-----+------+",
            "| Name  | Qty | Note |",
            "+-------+-----+------+",
            "| apple |   3 |  ok  |",
            "| 苹果  |  12 |      |",
            "+-------+-----+------+",
        ];
        assert_eq!(
            draw(&table, style(false, false), 80, false),
            expected_ascii.join("\n")
        );
        assert_eq!(
            draw(&table, style(false, true), 21, false),
            "Name: apple\nQty: 3\nNote: ok\n\nName: 苹果\nQty: 12",
            "too narrow for the first column's cells: records"
        );
        assert_eq!(
            draw(&table, style(false, true), 22, false),
            expected_unicode.join("\n")
        );
    }

    #[test]
    fn a_table_too_wide_wraps_its_cells_with_a_line_between_rows() {
        let table = rows(&[
            "| Key | Meaning |",
            "|---|--:|",
            "| a | one two three four |",
            "| b | five |",
        ]);
        let expected = [
            "┌─────┬────────────┐",
            "│ Key │    Meaning │",
            "├─────┼────────────┤",
            "│ a   │    one two │",
            "│     │ three four │",
            "├─────┼────────────┤",
            "│ b   │       five │",
            "└─────┴────────────┘",
        ];
        assert_eq!(
            draw(&table, style(false, true), 20, false),
            expected.join("\n")
        );
    }

    #[test]
    fn cells_render_inline_markdown_and_pad_by_what_shows() {
        let table = rows(&["| a | b |", "|---|---|", "| **xy** | `y` |"]);
        let plain = draw(&table, style(false, true), 80, false);
        assert!(plain.contains("│ xy │ `y` │"), "{plain}");
        let coloured = draw(&table, style(true, true), 80, false);
        let line = coloured.lines().nth(3).unwrap();
        assert_eq!(
            display_width(line),
            display_width(coloured.lines().next().unwrap())
        );
        assert!(line.contains("\x1b[0;1mxy\x1b[0m"), "{line:?}");
        let header = coloured.lines().nth(1).unwrap();
        assert!(header.contains("\x1b[1ma\x1b[0m  "), "{header:?}");
    }

    #[test]
    fn widths() {
        let cases: &[(&str, usize)] = &[
            ("abc", 3),
            ("\x1b[0;1mab\x1b[0m", 2),
            ("苹果", 4),
            ("e\u{301}", 1),
            ("🔧 ok", 5),
            ("✓", 1),
        ];
        for (text, width) in cases {
            assert_eq!(display_width(text), *width, "{text:?}");
        }
    }
}
