//! A unified diff of a text change, for approval prompts: hunks with three lines of context,
//! as `diff -u` and git print them, so `patch` applies what the prompt showed. Line ends count:
//! a line that lost its carriage return, or the last line's newline, is a changed line.

#[cfg(test)]
mod against_gnu;
mod align;

const CONTEXT: usize = 3;
/// Longer diffs are cut: the prompt must fit on a screen.
const MAX_LINES: usize = 80;
/// After a line that has no newline, as `diff -u` and git mark it.
pub(crate) const NO_NEWLINE: &str = "\\ No newline at end of file";

/// `--- a/path` / `+++ b/path` and the hunks, cut to `MAX_LINES` lines.
pub(crate) fn unified(path: &str, old: &str, new: &str) -> String {
    let from = match old.is_empty() {
        true => "/dev/null".to_string(),
        false => format!("a/{path}"),
    };
    let mut lines = vec![format!("--- {from}"), format!("+++ b/{path}")];
    lines.extend(hunks(old, new).split_terminator('\n').map(str::to_string));
    if lines.len() > MAX_LINES {
        let more = lines.len() - MAX_LINES;
        lines.truncate(MAX_LINES);
        lines.push(format!("… {more} more lines"));
    }
    lines.join("\n")
}

/// A block of changed lines: `old[old.0..old.1]` became `new[new.0..new.1]`.
#[derive(Clone, Copy)]
struct Change {
    old: (usize, usize),
    new: (usize, usize),
}

/// The hunks of `diff -u`, each line ending in a newline; every line keeps its own line end,
/// so a carriage return stays in the text.
fn hunks(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.split_inclusive('\n').collect();
    let new: Vec<&str> = new.split_inclusive('\n').collect();
    let changes = changes(&old, &new);
    let mut out = String::new();
    let mut rest = &changes[..];
    while let Some(first) = rest.first() {
        let together = 1 + rest
            .windows(2)
            .take_while(|w| w[1].old.0 - w[0].old.1 <= 2 * CONTEXT)
            .count();
        let (hunk, after) = rest.split_at(together);
        let last = hunk[together - 1];
        let before = first.old.0.min(CONTEXT);
        let old_span = (first.old.0 - before, (last.old.1 + CONTEXT).min(old.len()));
        let new_span = (
            first.new.0 - before,
            new.len().min(last.new.1 + old_span.1 - last.old.1),
        );
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(old_span),
            range(new_span)
        ));
        let mut at = old_span.0;
        for change in hunk {
            push(&mut out, ' ', &old[at..change.old.0]);
            push(&mut out, '-', &old[change.old.0..change.old.1]);
            push(&mut out, '+', &new[change.new.0..change.new.1]);
            at = change.old.1;
        }
        push(&mut out, ' ', &old[at..old_span.1]);
        rest = after;
    }
    out
}

/// The blocks of changed lines, in order.
fn changes(old: &[&str], new: &[&str]) -> Vec<Change> {
    let (gone, added) = align::changed(old, new);
    let (mut i, mut j) = (0, 0);
    let mut changes = Vec::new();
    while i < old.len() || j < new.len() {
        let (from_i, from_j) = (i, j);
        while i < old.len() && gone[i] {
            i += 1;
        }
        while j < new.len() && added[j] {
            j += 1;
        }
        if (i, j) == (from_i, from_j) {
            (i, j) = (i + 1, j + 1);
        } else {
            changes.push(Change {
                old: (from_i, i),
                new: (from_j, j),
            });
        }
    }
    changes
}

/// A hunk header's range as `diff -u` writes it: `3,4`; `3` for one line; the line before and
/// `0` for none.
fn range((start, end): (usize, usize)) -> String {
    match end - start {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        n => format!("{},{n}", start + 1),
    }
}

/// `lines` with `mark` before each, and the no-newline marker after a last line without one.
fn push(out: &mut String, mark: char, lines: &[&str]) {
    for line in lines {
        out.push(mark);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push('\n');
            out.push_str(NO_NEWLINE);
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_shows_context_and_the_changed_lines() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            unified("x.txt", old, new),
            "--- a/x.txt\n+++ b/x.txt\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h"
        );
    }

    #[test]
    fn a_new_file_is_all_additions() {
        assert_eq!(
            unified("n.rs", "", "one\ntwo\n"),
            "--- /dev/null\n+++ b/n.rs\n@@ -0,0 +1,2 @@\n+one\n+two"
        );
    }

    #[test]
    fn an_append_keeps_the_tail_as_context() {
        let diff = unified("log.md", "1\n2\n3\n4\n", "1\n2\n3\n4\n5\n");
        assert_eq!(
            diff,
            "--- a/log.md\n+++ b/log.md\n@@ -2,3 +2,4 @@\n 2\n 3\n 4\n+5"
        );
    }

    #[test]
    fn line_ends_are_changes() {
        let cases: &[(&str, &str, &str)] = &[
            // CRLF to LF: every line changed, the carriage returns kept in the text.
            (
                "a\r\nb\r\n",
                "a\nb\n",
                "@@ -1,2 +1,2 @@\n-a\r\n-b\r\n+a\n+b",
            ),
            // The final newline dropped or added.
            (
                "a\nb\n",
                "a\nb",
                "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file",
            ),
            (
                "a\nb",
                "a\nb\nc",
                "@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n\\ No newline at end of file",
            ),
            // One line's carriage return, far from another change: two hunks.
            (
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
                "1\r\n2\n3\n4\n5\n6\n7\n8\n9\nten\n",
                "@@ -1,4 +1,4 @@\n-1\n+1\r\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten",
            ),
            ("same\n", "same\n", ""),
            ("gone\n", "", "@@ -1 +0,0 @@\n-gone"),
        ];
        for (old, new, hunks) in cases {
            let diff = unified("f", old, new);
            let shown = diff
                .split_once("+++ b/f")
                .unwrap()
                .1
                .trim_start_matches('\n');
            assert_eq!(shown, *hunks, "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn past_a_thousand_changes_the_middle_is_one_change() {
        let old: String = (0..1200).map(|i| format!("a{i}\n")).collect();
        let new: String = (0..1200).map(|i| format!("b{i}\n")).collect();
        let (old, new) = (format!("top\n{old}end\n"), format!("top\n{new}end\n"));
        let hunks = hunks(&old, &new);
        assert!(
            hunks.starts_with("@@ -1,1202 +1,1202 @@\n top\n-a0\n"),
            "{}",
            &hunks[..40]
        );
        assert_eq!(hunks.lines().filter(|l| l.starts_with('-')).count(), 1200);
        assert!(hunks.ends_with("+b1199\n end\n"));
    }

    #[test]
    fn huge_diffs_are_cut() {
        let new: String = (0..200).map(|i| format!("{i}\n")).collect();
        let diff = unified("big", "", &new);
        assert!(
            diff.ends_with("… 123 more lines"),
            "{}",
            &diff[diff.len() - 30..]
        );
    }
}
