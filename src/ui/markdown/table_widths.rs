//! How wide a table's columns are drawn within the room the terminal leaves: as wide as the
//! widest cell when all fit, else narrowed (a column's longest word kept whole where the room
//! allows, the rest shared out evenly), or not at all when a column would be too narrow to read.

use super::table::display_width;

/// The fewest columns a cell's text is wrapped into: a column narrower than this (and than its
/// widest cell) reads as a stack of word pieces, and the table is better shown as records.
pub(super) const NARROWEST: usize = 6;

/// The width of each column of `grid` (rendered cells, a row each) within `room` columns of
/// text, or `None` when some column would get fewer than [`NARROWEST`] (or than its widest
/// cell, if that is narrower).
pub(super) fn fit(grid: &[Vec<String>], room: usize) -> Option<Vec<usize>> {
    let widest = per_column(grid, display_width);
    if widest.iter().sum::<usize>() <= room {
        return Some(widest);
    }
    let words = per_column(grid, longest_word);
    let floors: Vec<usize> = match words.iter().sum::<usize>() <= room {
        true => words,
        false => vec![0; widest.len()],
    };
    let needs: Vec<usize> = widest.iter().zip(&floors).map(|(w, f)| w - f).collect();
    let extra = share(&needs, room - floors.iter().sum::<usize>());
    let widths: Vec<usize> = floors.iter().zip(extra).map(|(f, e)| f + e).collect();
    let readable = widths
        .iter()
        .zip(&widest)
        .all(|(&width, &widest)| width >= widest.min(NARROWEST));
    readable.then_some(widths)
}

/// For each column, the most `measure` gives any of its cells (at least 1).
fn per_column(grid: &[Vec<String>], measure: fn(&str) -> usize) -> Vec<usize> {
    let columns = grid.first().map_or(0, Vec::len);
    let mut most = vec![1; columns];
    for row in grid {
        for (most, cell) in most.iter_mut().zip(row) {
            *most = (*most).max(measure(cell));
        }
    }
    most
}

/// The columns the widest word of a rendered cell takes.
fn longest_word(cell: &str) -> usize {
    cell.split_whitespace()
        .map(display_width)
        .max()
        .unwrap_or(0)
}

/// `room` shared among `needs` as evenly as they allow: none gets more than it needs, and
/// what one does not need goes to the others.
fn share(needs: &[usize], room: usize) -> Vec<usize> {
    let mut given = vec![0; needs.len()];
    let mut left = room;
    let mut open: Vec<usize> = (0..needs.len()).filter(|&i| needs[i] > 0).collect();
    while !open.is_empty() && left > 0 {
        let each = (left / open.len()).max(1);
        for &i in &open {
            let give = each.min(needs[i] - given[i]).min(left);
            given[i] += give;
            left -= give;
        }
        open.retain(|&i| given[i] < needs[i]);
    }
    given
}

/// A grid of cells from their texts, a row each (for tests).
#[cfg(test)]
pub(super) fn grid(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|row| row.iter().map(|cell| cell.to_string()).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_is_even_and_gives_none_more_than_it_needs() {
        // (needs, room, given)
        let cases: &[(&[usize], usize, &[usize])] = &[
            (&[10, 10], 10, &[5, 5]),
            (&[2, 30, 30], 20, &[2, 9, 9]),
            (&[3, 4], 100, &[3, 4]),
            (&[5, 5, 5], 4, &[2, 1, 1]),
            (&[0, 8], 5, &[0, 5]),
            (&[7, 9], 0, &[0, 0]),
        ];
        for (needs, room, given) in cases {
            let shared = share(needs, *room);
            assert_eq!(shared, *given, "{needs:?} in {room}");
            assert!(shared.iter().sum::<usize>() <= *room);
        }
    }

    #[test]
    fn columns_are_as_wide_as_their_widest_cell_when_that_fits() {
        let table = grid(&[&["name", "note"], &["apple", "\x1b[0;1mfresh\x1b[0m 苹果"]]);
        assert_eq!(fit(&table, 15), Some(vec![5, 10]));
        assert_eq!(fit(&table, 40), Some(vec![5, 10]));
    }

    #[test]
    fn a_narrowed_column_keeps_its_longest_word_whole_where_there_is_room() {
        let long = "a sentence that goes on well past the room there is";
        let table = grid(&[&["id", "text", "more"], &["7", long, "extraordinarily so"]]);
        let widths = fit(&table, 40).expect("fits wrapped");
        assert_eq!(widths.iter().sum::<usize>(), 40);
        assert_eq!(widths[0], 2);
        assert!(widths[2] >= "extraordinarily".len(), "{widths:?}");
    }

    #[test]
    fn a_column_too_narrow_to_read_is_none() {
        let cells: Vec<String> = (0..12).map(|n| format!("column number {n}")).collect();
        let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
        let table = grid(&[&cells, &cells]);
        assert_eq!(fit(&table, 12 * NARROWEST - 1), None);
        assert!(fit(&table, 12 * NARROWEST).is_some());
        let narrow = grid(&[&["a", "b", "c"], &["1", "2", "3"]]);
        assert_eq!(fit(&narrow, 3), Some(vec![1, 1, 1]));
    }
}
