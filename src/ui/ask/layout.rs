//! Fitting what the asker prints into the terminal's width (80 columns at most): prose wrapped
//! at word boundaries, options in two aligned columns (labels, then descriptions) that wrap
//! within their own column, and commands or diffs broken into rows without losing a character.

use crate::ui::width::char_width as cells;
pub(super) use crate::ui::width::width;

/// The widest row of what the asker writes itself (titles, options, notes): the terminal's
/// width up to 80, less one column, so that a full row never leaves the cursor in the margin
/// and rows can be counted for erasing.
pub(super) fn columns() -> usize {
    crate::ui::width::line_width()
}

/// The widest row of what is shown exactly as it is (a command, a diff, an address): the
/// terminal's whole width less one, so that it is broken no more than it must be.
pub(super) fn full_columns() -> usize {
    crate::ui::width::terminal_width() - 1
}

/// `text` wrapped at word boundaries into rows of at most `room` cells; its own line breaks
/// are kept, runs of spaces become one, and a word longer than a row is broken.
pub(super) fn wrap(text: &str, room: usize) -> Vec<String> {
    wrap_from(text, room, room)
}

/// Like [`wrap`], with `first` cells for the first row and `room` for the others.
fn wrap_from(text: &str, first: usize, room: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    let room_now = |rows: &Vec<String>| if rows.is_empty() { first } else { room }.max(1);
    for paragraph in text.split('\n') {
        let mut row = String::new();
        for word in paragraph.split_whitespace() {
            let needed = width(&row) + usize::from(!row.is_empty()) + width(word);
            if !row.is_empty() && needed > room_now(&rows) {
                rows.push(std::mem::take(&mut row));
            }
            if !row.is_empty() {
                row.push(' ');
            }
            for c in word.chars() {
                if !row.is_empty() && width(&row) + cells(c) > room_now(&rows) {
                    rows.push(std::mem::take(&mut row));
                }
                row.push(c);
            }
        }
        rows.push(row);
    }
    rows
}

/// One line of a command or a diff in rows of at most `room` cells, every character kept:
/// broken after the last space that fits, else where the row is full. Tabs become spaces to
/// the next multiple of four.
pub(super) fn wrap_exact(line: &str, room: usize) -> Vec<String> {
    let room = room.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut used = 0;
    for c in line.chars() {
        let text = match c {
            '\t' => " ".repeat(4 - used % 4),
            c => c.to_string(),
        };
        let size = width(&text);
        if used + size > room && !row.is_empty() {
            let cut = match row.rfind(' ') {
                Some(space) if space + 1 < row.len() => space + 1,
                _ => row.len(),
            };
            let rest = row.split_off(cut);
            rows.push(std::mem::replace(&mut row, rest));
            used = width(&row);
        }
        row.push_str(&text);
        used += size;
    }
    rows.push(row);
    rows
}

/// `text` in rows after a first-row lead of `lead` cells (`  [Header] `), and how far later
/// rows are indented: as far as the lead, so they line up under the first, unless that leaves
/// less than half the room, when by four.
pub(super) fn hanging(lead: usize, text: &str, room: usize) -> (usize, Vec<String>) {
    let indent = if lead * 2 <= room { lead } else { 4.min(lead) };
    let first = room.saturating_sub(lead);
    (indent, wrap_from(text, first, room.saturating_sub(indent)))
}

/// Columns between a label and its description.
const GAP: usize = 2;

/// One row of an option: its part of the label (padded to the label column when descriptions
/// follow) and its part of the description.
#[derive(Debug, PartialEq)]
pub(super) struct OptionRow {
    pub label: String,
    pub description: String,
}

/// Each option as rows, after a first-row lead of `lead` cells (pointer, number, box) that
/// later rows repeat as spaces: the labels in one column as wide as the widest label (but
/// never more than half the room while descriptions follow), the descriptions in the next,
/// each wrapped within its own column.
pub(super) fn options(items: &[(&str, &str)], lead: usize, room: usize) -> Vec<Vec<OptionRow>> {
    let room = room.saturating_sub(lead).max(2);
    let described = items.iter().any(|(_, description)| !description.is_empty());
    let widest = items
        .iter()
        .map(|(label, _)| width(label))
        .max()
        .unwrap_or(0);
    let label_column = if described {
        widest.min(room.saturating_sub(GAP) / 2).max(1)
    } else {
        room
    };
    let description_column = room.saturating_sub(label_column + GAP).max(1);
    items
        .iter()
        .map(|(label, description)| {
            let labels = wrap(label, label_column);
            let descriptions = match description.is_empty() {
                true => Vec::new(),
                false => wrap(description, description_column),
            };
            (0..labels.len().max(descriptions.len()))
                .map(|i| {
                    let label = labels.get(i).map_or("", String::as_str);
                    let description = descriptions.get(i).cloned().unwrap_or_default();
                    let pad = match described && !description.is_empty() {
                        true => label_column.saturating_sub(width(label)),
                        false => 0,
                    };
                    OptionRow {
                        label: format!("{label}{}", " ".repeat(pad)),
                        description,
                    }
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_wraps_at_words_and_long_words_break() {
        let cases: &[(&str, usize, &[&str])] = &[
            ("one two three", 20, &["one two three"]),
            ("one two three", 7, &["one two", "three"]),
            ("one  two\nthree", 20, &["one two", "three"]),
            ("abcdefghij", 4, &["abcd", "efgh", "ij"]),
            ("a abcdefghij", 4, &["a", "abcd", "efgh", "ij"]),
            ("", 10, &[""]),
            ("日本語 テキスト", 7, &["日本語", "テキス", "ト"]),
        ];
        for (text, room, rows) in cases {
            assert_eq!(wrap(text, *room), *rows, "{text:?} in {room}");
        }
    }

    #[test]
    fn commands_and_diffs_keep_every_character() {
        let cases: &[(&str, usize, &[&str])] = &[
            ("cargo test --release", 30, &["cargo test --release"]),
            ("cargo test --release", 12, &["cargo test ", "--release"]),
            ("a  b", 3, &["a  ", "b"]),
            ("abcdefgh", 3, &["abc", "def", "gh"]),
            ("+\tx", 10, &["+   x"]),
            ("", 5, &[""]),
        ];
        for (line, room, rows) in cases {
            let got = wrap_exact(line, *room);
            assert_eq!(got, *rows, "{line:?} in {room}");
            assert!(got.iter().all(|row| width(row) <= *room));
            if !line.contains('\t') {
                assert_eq!(got.concat(), *line);
            }
        }
    }

    #[test]
    fn hanging_rows_line_up_under_the_first() {
        let (indent, rows) = hanging(11, "Which database should the app use today?", 30);
        assert_eq!(indent, 11);
        assert_eq!(rows, ["Which database", "should the app use", "today?"]);
        assert!(rows.iter().all(|row| width(row) + indent <= 30));
        let (indent, rows) = hanging(20, "a long question here", 30);
        assert_eq!((indent, rows.len()), (4, 2));
        assert_eq!(rows, ["a long", "question here"]);
        assert_eq!(hanging(2, "first\nsecond", 30).1, ["first", "second"]);
    }

    #[test]
    fn option_columns_line_up_and_descriptions_wrap_under_themselves() {
        let items = [
            ("SQLite", "one file, no server"),
            (
                "PostgreSQL",
                "a server that scales much further than one file could",
            ),
            ("Other", ""),
        ];
        let rows = options(&items, 7, 50);
        let shown: Vec<Vec<(&str, &str)>> = rows
            .iter()
            .map(|rows| {
                rows.iter()
                    .map(|r| (r.label.as_str(), r.description.as_str()))
                    .collect()
            })
            .collect();
        assert_eq!(
            shown,
            [
                vec![("SQLite    ", "one file, no server")],
                vec![
                    ("PostgreSQL", "a server that scales much"),
                    ("          ", "further than one file could"),
                ],
                vec![("Other", "")],
            ]
        );
        // A continuation row's description starts where the first row's did.
        for option in &rows {
            for row in option.iter().filter(|r| !r.description.is_empty()) {
                assert_eq!(width(&row.label), 10);
                assert!(7 + 10 + GAP + width(&row.description) <= 50);
            }
        }
    }

    #[test]
    fn long_labels_wrap_in_their_column_and_leave_room_for_descriptions() {
        let label = "Yes, and don't ask again this session for apply_patch changes to src/a.rs";
        let rows = options(&[(label, ""), ("No", "")], 7, 79);
        assert_eq!(rows[0].len(), 2);
        assert!(rows[0].iter().all(|row| 7 + width(&row.label) <= 79));
        let rows = options(&[(label, "why not"), ("No", "")], 7, 79);
        assert_eq!(width(&rows[0][0].label), (79 - 7 - GAP) / 2);
        assert_eq!(rows[0][0].description, "why not");
        assert_eq!(rows[1][0].label, "No");
    }
}
