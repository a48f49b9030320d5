//! How many terminal columns text takes, and fitting text into a number of them: cut with an
//! ellipsis, or wrapped at word boundaries.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The terminal's width in columns (stdout's, else stderr's); 80 when neither is a terminal
/// or it says less than 20.
pub(crate) fn terminal_width() -> usize {
    // SAFETY: TIOCGWINSZ fills the zeroed winsize we own, or fails and leaves it zero.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    for fd in [1, 2] {
        if unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) } == 0 && size.ws_col >= 20 {
            return usize::from(size.ws_col);
        }
    }
    80
}

/// The widest line Marvin writes itself: the terminal's width up to 80, less one column (a
/// line that reaches the last column wraps on some terminals).
pub(crate) fn line_width() -> usize {
    terminal_width().min(80) - 1
}

/// The columns `c` takes on a terminal, by Unicode's East Asian Width and the terminal
/// conventions the `unicode-width` crate follows: two for wide characters and emoji, none for
/// combining marks and zero-width characters; a control character (which the sanitiser keeps
/// from the terminal) counts as none.
pub(crate) fn char_width(c: char) -> usize {
    UnicodeWidthChar::width(c).unwrap_or(0)
}

/// The columns `text` takes on one line (no escape sequences in it): emoji sequences joined
/// with U+200D and flags count as the one glyph a terminal draws.
pub(crate) fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` cut to at most `max` columns, ending in `…` when something was cut (`...` in ASCII).
pub(crate) fn truncate(text: &str, max: usize, unicode: bool) -> String {
    if width(text) <= max {
        return text.to_string();
    }
    let ellipsis = if unicode { "…" } else { "..." };
    let room = max.saturating_sub(width(ellipsis));
    let mut kept = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = char_width(c);
        if used + w > room {
            break;
        }
        used += w;
        kept.push(c);
    }
    kept.truncate(kept.trim_end().len());
    kept + ellipsis
}

/// `text` after `first` (a column's worth of text, or nothing), wrapped at word boundaries to
/// `width` columns, later lines indented by `indent` spaces; a word longer than a line gets a
/// line of its own (an address or a path stays whole). No newline at the end.
pub(crate) fn wrap(first: &str, text: &str, indent: usize, width: usize) -> String {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && self::width(&line) + 1 + self::width(word) > width {
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

/// The columns `text` takes on one line, its SGR codes (`ESC[…m`) taking none.
pub(crate) fn shown_width(text: &str) -> usize {
    let mut columns = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            chars.by_ref().find(|&c| c == 'm');
            continue;
        }
        columns += char_width(c);
    }
    columns
}

/// `text` with each line wider than `max` columns wrapped at its spaces, the rows after the
/// first indented two columns more than the line; lines that fit, the spaces between words
/// that stay on a row, and SGR codes are left as they are. A word wider than a row stays
/// whole (an address or a path).
pub(crate) fn fit(text: &str, max: usize) -> String {
    let lines: Vec<String> = text.split('\n').map(|line| fit_line(line, max)).collect();
    lines.join("\n")
}

fn fit_line(line: &str, max: usize) -> String {
    if shown_width(line) <= max {
        return line.to_string();
    }
    let body = line.trim_start_matches(' ');
    let indent = line.len() - body.len();
    let hang = indent + 2;
    let mut out = line[..indent].to_string();
    let (mut column, mut row_has_text) = (indent, false);
    let mut rest = body;
    while !rest.is_empty() {
        let gap = rest.len() - rest.trim_start_matches(' ').len();
        let word_end = rest[gap..].find(' ').map_or(rest.len(), |at| gap + at);
        let word = &rest[gap..word_end];
        if word.is_empty() {
            break; // Spaces at the end of a line too wide.
        }
        let columns = shown_width(word);
        if row_has_text && column + gap + columns > max {
            out.push('\n');
            out.push_str(&" ".repeat(hang));
            column = hang;
        } else {
            out.push_str(&rest[..gap]);
            column += gap;
        }
        out.push_str(word);
        column += columns;
        row_has_text = true;
        rest = &rest[word_end..];
    }
    out
}

/// `parts` joined by `separator` into as few lines of at most `max` columns as they fit in,
/// breaking only between parts (a part wider than a line is cut).
pub(crate) fn join_within(
    parts: &[String],
    separator: &str,
    max: usize,
    unicode: bool,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for part in parts {
        let part = truncate(part, max, unicode);
        if !line.is_empty() && width(&line) + width(separator) + width(&part) > max {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push_str(separator);
        }
        line.push_str(&part);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_and_zero_width_characters_count_as_shown() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("🔧 x"), 4);
        assert_eq!(width("日本"), 4);
        assert_eq!(width("e\u{301}"), 1);
        // A family joined with U+200D is one glyph; a table of single characters said 6.
        assert_eq!(width("👨\u{200D}👩\u{200D}👧"), 2);
        assert_eq!(width("\u{1F1EB}\u{1F1F7} fr"), 5);
        assert_eq!(width("⏰"), 2); // U+23F0, missing from the old table
    }

    #[test]
    fn truncation_keeps_within_the_columns() {
        assert_eq!(truncate("short", 10, true), "short");
        assert_eq!(
            truncate("cargo test --all-features", 12, true),
            "cargo test…"
        );
        assert_eq!(truncate("cargo test --all", 12, false), "cargo tes...");
        assert_eq!(width(&truncate("日本語のテキスト", 7, true)), 7);
    }

    #[test]
    fn parts_join_within_the_columns() {
        let parts: Vec<String> = ["openai-compat", "gpt-4o", "10 in / 5 out", "<$0.01"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            join_within(&parts, " · ", 80, true),
            ["openai-compat · gpt-4o · 10 in / 5 out · <$0.01"]
        );
        assert_eq!(
            join_within(&parts, " · ", 30, true),
            ["openai-compat · gpt-4o", "10 in / 5 out · <$0.01"]
        );
    }

    #[test]
    fn only_lines_too_wide_are_wrapped() {
        let cases: &[(&str, usize, &str)] = &[
            ("fits\n  as is", 10, "fits\n  as is"),
            ("one two  three four", 10, "one two\n  three\n  four"),
            (
                "    tools (3): a, b, c",
                16,
                "    tools (3):\n      a, b, c",
            ),
            (
                "\x1b[2mdim words here\x1b[0m",
                10,
                "\x1b[2mdim words\n  here\x1b[0m",
            ),
            (
                "see https://a.very.long/address ok",
                12,
                "see\n  https://a.very.long/address\n  ok",
            ),
            ("trailing   ", 8, "trailing"),
        ];
        for (text, max, expected) in cases {
            assert_eq!(fit(text, *max), *expected, "{text:?} in {max}");
        }
    }

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
            ("", "日本語 日本語 日本語", 0, 14, "日本語 日本語\n日本語"),
        ];
        for (first, text, indent, width, expected) in cases {
            assert_eq!(wrap(first, text, *indent, *width), *expected, "{text:?}");
        }
    }
}
