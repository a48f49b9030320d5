//! How many edits turn one string into another: the measure behind every "did you mean"
//! (flags, REPL commands, tool and option names) and the nearest-line hint of an edit.

/// Edits from `a` to `b`, a swap of two neighbouring characters counting as one (`hepl`,
/// `help`): the optimal string alignment distance, for "did you mean" and nearest-line hints.
/// Three rows of the table at a time, so long lines cost little memory.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut before: Vec<usize> = Vec::new();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (previous[j] + 1)
                .min(row[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut previous, row);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("hepl", "help"), 1);
        assert_eq!(edit_distance("--modle", "--model"), 1);
        assert_eq!(edit_distance("ab", ""), 2);
    }
}
