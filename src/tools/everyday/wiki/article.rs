//! A saved article's text: blank lines squeezed, section headings (`== History ==`) told,
//! and wiki_grep's numbered lines, each with its section and cut around its match.

use std::path::Path;

/// How much of a matching line wiki_grep shows.
const LINE_CHARS: usize = 300;

/// The text with runs of blank lines as one (explaintext puts two before each heading).
pub(super) fn squeeze_blank_lines(text: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for line in text.trim().lines().map(str::trim_end) {
        if !(line.is_empty() && out.last().is_some_and(|l| l.is_empty())) {
            out.push(line);
        }
    }
    out.join("\n")
}

/// A section heading of a plain-text extract: `== History ==`.
pub(super) fn is_heading(line: &str) -> bool {
    let line = line.trim();
    line.len() > 4 && line.starts_with("==") && line.ends_with("==")
}

/// The lines holding any of `needles` (lower case), numbered from 1, each with its section.
pub(super) fn grep(
    text: &str,
    needles: &[String],
    limit: usize,
    pattern: &str,
    path: &Path,
) -> String {
    let mut section = String::new();
    let mut hits = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if is_heading(line) {
            section = line.trim().trim_matches('=').trim().to_string();
        }
        let lower = line.to_lowercase();
        let Some(at) = needles.iter().filter_map(|n| lower.find(n.as_str())).min() else {
            continue;
        };
        let place = if section.is_empty() {
            String::new()
        } else {
            format!(" [{section}]")
        };
        hits.push(format!("{}{place}: {}", n + 1, excerpt(line, &lower, at)));
    }
    let name = path
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    if hits.is_empty() {
        return format!(
            "No line of {name} contains \"{}\" ({} lines searched). Try other words.",
            pattern.trim(),
            text.lines().count()
        );
    }
    let shown = hits.len().min(limit);
    let mut out = format!(
        "{} lines of {name} match \"{}\"{}:\n",
        hits.len(),
        pattern.trim(),
        if shown < hits.len() {
            format!(" (the first {shown}; raise limit for more)")
        } else {
            String::new()
        }
    );
    out.push_str(&hits[..shown].join("\n"));
    out
}

/// At most [`LINE_CHARS`] characters of `line` around the match at byte `at` of `lower`.
fn excerpt(line: &str, lower: &str, at: usize) -> String {
    let line = line.trim();
    if line.chars().count() <= LINE_CHARS {
        return line.to_string();
    }
    // Lowercasing may change lengths; find the match's character index in `lower`.
    let at_char = lower[..at].chars().count();
    let start = at_char.saturating_sub(LINE_CHARS / 3);
    let chars: Vec<char> = line.chars().collect();
    let end = (start + LINE_CHARS).min(chars.len());
    let start = end.saturating_sub(LINE_CHARS).min(start);
    let mut out: String = chars[start..end].iter().collect();
    if start > 0 {
        out = format!("…{}", out.trim_start());
    }
    if end < chars.len() {
        out = format!("{}…", out.trim_end());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_lines_are_squeezed() {
        let cases: &[(&str, &str)] = &[
            ("a\n\n\n== B ==\nc", "a\n\n== B ==\nc"),
            ("\n\na  \n \n\nb\n\n", "a\n\nb"),
            ("", ""),
        ];
        for (text, expected) in cases {
            assert_eq!(squeeze_blank_lines(text), *expected, "{text:?}");
        }
    }

    #[test]
    fn grep_numbers_lines_names_sections_and_cuts_long_ones() {
        let long = format!("{} towel {}", "a".repeat(400), "b".repeat(400));
        let text = format!(
            "Title\nurl\n\nIntro with a Towel.\n== Life ==\nNothing.\n{long}\n=== Towel Day ===\n"
        );
        let path = std::path::Path::new("/p/wiki/Title.txt");
        let out = grep(&text, &["towel".into()], 10, "towel", path);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "3 lines of Title.txt match \"towel\":");
        assert_eq!(lines[1], "4: Intro with a Towel.");
        assert!(lines[2].starts_with("7 [Life]: …aaa"), "{}", lines[2]);
        assert!(
            lines[2].ends_with("bbb…") && lines[2].contains(" towel "),
            "{}",
            lines[2]
        );
        assert!(lines[2].chars().count() < LINE_CHARS + 20);
        assert_eq!(lines[3], "8 [Towel Day]: === Towel Day ===");
        let cut = grep(
            &text,
            &["towel".into(), "nothing".into()],
            1,
            "towel|nothing",
            path,
        );
        assert!(cut.starts_with("4 lines of Title.txt match \"towel|nothing\" (the first 1; raise limit for more):\n4: "), "{cut}");
        let none = grep(&text, &["zaphod".into()], 10, "zaphod", path);
        assert_eq!(
            none,
            "No line of Title.txt contains \"zaphod\" (8 lines searched). Try other words."
        );
    }
}
