//! How many terminal columns text takes, and fitting text into a number of them: cut with an
//! ellipsis, or wrapped at word boundaries.

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

/// The columns `c` takes on a terminal: two for East Asian wide characters and emoji, none
/// for combining marks, zero-width characters and variation selectors, else one.
pub(crate) fn char_width(c: char) -> usize {
    match u32::from(c) {
        0x0300..=0x036F
        | 0x1AB0..=0x1AFF
        | 0x1DC0..=0x1DFF
        | 0x200B..=0x200F
        | 0x20D0..=0x20FF
        | 0xFE00..=0xFE0F
        | 0xFE20..=0xFE2F => 0,
        0x1100..=0x115F
        | 0x231A..=0x231B
        | 0x23E9..=0x23EC
        | 0x2614..=0x2615
        | 0x26A1
        | 0x26AA..=0x26AB
        | 0x26BD..=0x26BE
        | 0x26C4..=0x26C5
        | 0x26D4
        | 0x26EA
        | 0x26F2..=0x26F5
        | 0x26FA
        | 0x26FD
        | 0x2705
        | 0x270A..=0x270B
        | 0x274C
        | 0x2753..=0x2755
        | 0x2757
        | 0x2795..=0x2797
        | 0x2B1B..=0x2B1C
        | 0x2B50
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F680..=0x1F6FF
        | 0x1F900..=0x1F9FF
        | 0x1FA70..=0x1FAFF
        | 0x20000..=0x3FFFD => 2,
        _ => 1,
    }
}

/// The columns `text` takes on one line (no escape sequences in it).
pub(crate) fn width(text: &str) -> usize {
    text.chars().map(char_width).sum()
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
