//! Word wrapping for what Marvin writes itself: whole words to a width, later lines indented.

/// `text` after `first` (a column's worth of text, or nothing), wrapped at word boundaries to
/// `width` columns, later lines indented by `indent`; a word longer than a line gets a line of
/// its own. No newline at the end.
pub(crate) fn wrap(first: &str, text: &str, indent: usize, width: usize) -> String {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && columns(&line) + 1 + columns(word) > width {
            lines.push(line.trim_end().to_string());
            line = " ".repeat(indent);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    lines.push(line.trim_end().to_string());
    lines.join("\n")
}

/// Columns `text` takes: one per character (Marvin's own texts have no wide ones).
fn columns(text: &str) -> usize {
    text.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_stay_whole_and_later_lines_are_indented() {
        let cases: &[(&str, &str, usize, usize, &str)] = &[
            ("", "one two three", 0, 80, "one two three"),
            ("", "one two three", 0, 7, "one two\nthree"),
            (
                "  /help    ",
                "this list of things",
                11,
                20,
                "  /help    this list\n           of things",
            ),
            (
                "",
                "a averyveryverylongword b",
                2,
                10,
                "a\n  averyveryverylongword\n  b",
            ),
            ("  x ", "", 4, 10, "  x"),
        ];
        for (first, text, indent, width, expected) in cases {
            assert_eq!(wrap(first, text, *indent, *width), *expected, "{text:?}");
        }
    }
}
