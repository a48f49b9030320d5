//! Tables through the whole renderer at a terminal's width: one that fits is drawn as it is,
//! a wide one is narrowed with its cells wrapped (every line within the width, every cell's
//! words kept in order, markup still rendered), one of many columns becomes records, and a
//! table streamed a row at a time shows, once it ends, what it shows whole.

use super::Markdown;
use crate::ui::style::Style;
use crate::ui::width::width as columns_of;

const COLOUR: Style = Style {
    colour: true,
    unicode: true,
};

fn whole(doc: &str, style: Style, width: usize) -> String {
    let mut md = Markdown::new(style, width);
    let mut out = md.push(doc);
    out.push_str(&md.finish());
    out
}

/// `text` without its SGR escape sequences.
fn visible(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        let end = rest[at..].find('m').map_or(rest.len(), |m| at + m + 1);
        rest = &rest[end..];
    }
    out + rest
}

/// The table as Markdown: the header, the delimiter row, the body.
fn markdown(rows: &[Vec<String>]) -> String {
    let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
    let delimiter = vec!["---".to_string(); rows[0].len()];
    let mut doc = line(&rows[0]) + &line(&delimiter);
    for row in &rows[1..] {
        doc.push_str(&line(row));
    }
    doc
}

/// A cell's words as shown with colour: its `**` and backticks are styles, not text.
fn shown_words(cell: &str) -> Vec<String> {
    let plain = cell.replace("**", "").replace('`', "");
    plain.split_whitespace().map(str::to_string).collect()
}

/// A drawn table read back: for each row (the header first), each column's words in order.
fn read_grid(shown: &str) -> Vec<Vec<Vec<String>>> {
    let mut rows: Vec<Vec<Vec<String>>> = Vec::new();
    let mut new_row = true;
    for line in shown.lines() {
        if !line.starts_with('│') {
            new_row = true;
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('│').split('│').collect();
        if std::mem::take(&mut new_row) {
            rows.push(vec![Vec::new(); cells.len()]);
        }
        let row = rows.last_mut().expect("a row was started above");
        for (words, cell) in row.iter_mut().zip(cells) {
            words.extend(cell.split_whitespace().map(str::to_string));
        }
    }
    rows
}

fn assert_within(shown: &str, width: usize) {
    for line in shown.lines() {
        assert!(
            columns_of(line) <= width,
            "{} columns at {width}: {line:?}\n{shown}",
            columns_of(line)
        );
    }
}

fn wide_table() -> Vec<Vec<String>> {
    let rows: &[&[&str]] = &[
        &["Crate", "What it is for", "Notes"],
        &[
            "`serde`",
            "A framework for **serialising** and deserialising Rust data structures",
            "Pairs with `serde_json` for JSON; derive macros write the code",
        ],
        &[
            "`ureq`",
            "A blocking HTTP client with no async runtime",
            "Small, and **simple** to read 日本語 too",
        ],
        &["`lexopt`", "Argument parsing", "One loop"],
    ];
    let cells = |row: &&[&str]| row.iter().map(|cell| cell.to_string()).collect();
    rows.iter().map(cells).collect()
}

#[test]
fn a_table_that_fits_is_drawn_as_it_is_at_any_wider_width() {
    let doc = "| a | b |\n|---|--:|\n| **x** | `10` |\n";
    let drawn = whole(doc, COLOUR, 200);
    assert_eq!(whole(doc, COLOUR, 80), drawn);
    assert_eq!(whole(doc, COLOUR, 10), drawn, "exactly its width");
    assert_eq!(visible(&drawn).lines().count(), 5, "{drawn}");
}

#[test]
fn a_wide_table_is_narrowed_to_the_width_with_its_words_in_order() {
    let rows = wide_table();
    let doc = markdown(&rows);
    let expected: Vec<Vec<Vec<String>>> = rows
        .iter()
        .map(|row| row.iter().map(|cell| shown_words(cell)).collect())
        .collect();
    assert_eq!(
        visible(&whole(&doc, COLOUR, 200)).lines().count(),
        7,
        "unwrapped"
    );
    for width in [80, 40] {
        let shown = visible(&whole(&doc, COLOUR, width));
        assert_within(&shown, width);
        assert!(shown.starts_with('┌'), "a table at {width}:\n{shown}");
        assert!(!shown.contains('`') && !shown.contains("**"), "{shown}");
        assert_eq!(read_grid(&shown), expected, "at {width}:\n{shown}");
    }
}

#[test]
fn a_table_of_many_columns_is_shown_as_records() {
    let header: Vec<String> = (1..=14).map(|n| format!("Field{n}")).collect();
    let row = |r: usize| -> Vec<String> {
        (1..=14)
            .map(|n| format!("value {r}.{n} is **long**"))
            .collect()
    };
    let rows = vec![header.clone(), row(1), row(2)];
    let shown = visible(&whole(&markdown(&rows), COLOUR, 80));
    assert_within(&shown, 80);
    assert!(!shown.contains('│') && !shown.contains("**"), "{shown}");
    let records: Vec<&str> = shown.trim_end().split("\n\n").collect();
    assert_eq!(records.len(), 2, "{shown}");
    for (record, row) in records.iter().zip(&rows[1..]) {
        let expected: Vec<String> = header
            .iter()
            .zip(row)
            .map(|(name, cell)| format!("{name}: {}", shown_words(cell).join(" ")))
            .collect();
        assert_eq!(record.lines().collect::<Vec<_>>(), expected, "{shown}");
    }
}

#[test]
fn a_table_streamed_a_row_at_a_time_shows_at_its_end_what_it_shows_whole() {
    let doc = markdown(&wide_table()) + "\nafter\n";
    for width in [80, 40] {
        let mut md = Markdown::new(COLOUR, width);
        let mut lines = doc.split_inclusive('\n');
        let rows = wide_table().len() + 1;
        let held: String = lines
            .by_ref()
            .take(rows)
            .map(|line| md.push(line))
            .collect();
        assert_eq!(held, "", "the table waits for its end");
        let mut out: String = lines.map(|line| md.push(line)).collect();
        out.push_str(&md.finish());
        assert_eq!(out, whole(&doc, COLOUR, width), "at {width}");
    }
}
