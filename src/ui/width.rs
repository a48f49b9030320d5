//! How many terminal columns text takes, and fitting text into a number of them: cut with an
//! ellipsis, or wrapped at word boundaries.

/// The columns `c` takes: two for emoji and East Asian wide characters, none for combining
/// marks, zero-width characters and variation selectors, else one.
pub(crate) fn char_width(c: char) -> usize {
    match c as u32 {
        0x300..=0x36f | 0x200b..=0x200f | 0x2060..=0x2064 | 0xfe00..=0xfe0f => 0,
        0x1100..=0x115f
        | 0x2e80..=0x303e
        | 0x3041..=0x33ff
        | 0x3400..=0x4dbf
        | 0x4e00..=0x9fff
        | 0xa000..=0xa4cf
        | 0xac00..=0xd7a3
        | 0xf900..=0xfaff
        | 0xfe30..=0xfe4f
        | 0xff00..=0xff60
        | 0xffe0..=0xffe6
        | 0x1f300..=0x1f64f
        | 0x1f680..=0x1f6ff
        | 0x1f900..=0x1f9ff
        | 0x20000..=0x3fffd => 2,
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

/// `text` wrapped at word boundaries into lines of at most `max` columns, each line after the
/// first starting with `indent`; a word longer than a line is cut where it must be.
pub(crate) fn wrap(text: &str, max: usize, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let prefix = if lines.is_empty() { "" } else { indent };
        let room = max.saturating_sub(width(prefix)).max(1);
        if !line.is_empty() && width(&line) + 1 + width(word) > room {
            lines.push(format!("{prefix}{line}"));
            line.clear();
        }
        let prefix = if lines.is_empty() { "" } else { indent };
        let room = max.saturating_sub(width(prefix)).max(1);
        let mut word = word;
        while line.is_empty() && width(word) > room {
            let cut = split_at_width(word, room);
            lines.push(format!("{prefix}{}", &word[..cut]));
            word = &word[cut..];
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        let prefix = if lines.is_empty() { "" } else { indent };
        lines.push(format!("{prefix}{line}"));
    }
    lines
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

/// The byte index where the first `max` columns of `word` end (at least one character).
fn split_at_width(word: &str, max: usize) -> usize {
    let mut used = 0;
    for (index, c) in word.char_indices() {
        used += char_width(c);
        if used > max {
            return index.max(c.len_utf8());
        }
    }
    word.len()
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
    fn wrapping_breaks_at_words_and_indents() {
        assert_eq!(
            wrap("one two three four five", 10, "  "),
            ["one two", "  three", "  four", "  five"]
        );
        assert_eq!(wrap("", 10, ""), [""]);
        assert_eq!(wrap("abcdefghijkl", 5, ""), ["abcde", "fghij", "kl"]);
        for line in wrap(&"word ".repeat(50), 80, "    ") {
            assert!(width(&line) <= 80, "{line}");
        }
    }
}
