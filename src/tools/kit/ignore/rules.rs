//! The lines of one ignore file as git reads them (`dir.c`: comments, `\r\n`, unescaped trailing
//! spaces only, `!`, a trailing `/`, anchoring by any other `/`), and which of them decides a
//! path.

use super::glob::Glob;

/// One line of an ignore file.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    glob: Glob,
    negated: bool,
    dir_only: bool,
    /// No `/` but a trailing one: matched against the last component of the path, at any depth.
    basename: bool,
}

/// The rules of one ignore file, matched against paths relative to the directory `base`
/// (relative to the top of the walk or repository; empty for the top itself).
#[derive(Debug, Clone)]
pub(crate) struct Rules {
    pub base: Vec<u8>,
    rules: Vec<Rule>,
}

impl Rules {
    pub(crate) fn parse(base: Vec<u8>, text: &[u8]) -> Rules {
        let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
        let mut lines: Vec<&[u8]> = text.split(|&c| c == b'\n').collect();
        if text.ends_with(b"\n") {
            lines.pop();
        }
        let rules = lines.into_iter().filter_map(rule).collect();
        Rules { base, rules }
    }

    /// What the last rule matching `path` (relative to the top, no trailing `/`) says: ignored
    /// (`Some(true)`), taken back by a `!` rule (`Some(false)`), or nothing matched.
    pub(crate) fn decide(&self, path: &[u8], is_dir: bool) -> Option<bool> {
        let inside = if self.base.is_empty() {
            path
        } else {
            path.strip_prefix(self.base.as_slice())?
                .strip_prefix(b"/")?
        };
        let name = inside.rsplit(|&c| c == b'/').next().unwrap_or(inside);
        self.rules
            .iter()
            .rev()
            .filter(|rule| is_dir || !rule.dir_only)
            .find(|rule| rule.glob.matches(if rule.basename { name } else { inside }))
            .map(|rule| !rule.negated)
    }
}

/// The rule a line makes, if any: none for a blank line or a comment.
fn rule(line: &[u8]) -> Option<Rule> {
    if line.is_empty() || line[0] == b'#' {
        return None;
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = trim_trailing_spaces(line);
    let (negated, line) = match line.strip_prefix(b"!") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (dir_only, line) = match line.strip_suffix(b"/") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let basename = !line.contains(&b'/');
    let line = if basename {
        line
    } else {
        line.strip_prefix(b"/").unwrap_or(line)
    };
    // An empty pattern (a line of spaces, a lone `!` or `/`) matches no name.
    (!line.is_empty()).then(|| Rule {
        glob: Glob::new(line),
        negated,
        dir_only,
        basename,
    })
}

/// `line` without its trailing spaces, unless a `\` escapes them (`foo\ ` keeps one). Only
/// spaces: a trailing tab stays part of the pattern. A line ending in a lone `\` is kept whole.
fn trim_trailing_spaces(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    let mut i = 0;
    let mut run_start = None;
    while i < line.len() {
        match line[i] {
            b' ' => {
                run_start.get_or_insert(i);
            }
            b'\\' if i + 1 == line.len() => return line,
            b'\\' => {
                i += 1;
                run_start = None;
            }
            _ => run_start = None,
        }
        i += 1;
    }
    if let Some(start) = run_start {
        end = start;
    }
    &line[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ignored(text: &str, path: &str, is_dir: bool) -> Option<bool> {
        Rules::parse(Vec::new(), text.as_bytes()).decide(path.as_bytes(), is_dir)
    }

    #[test]
    fn a_leading_backslash_stays_an_escape() {
        // Failed before: the `\` was stripped, so `\*` became `*` and hid every file.
        assert_eq!(ignored("\\*", "main.rs", false), None);
        assert_eq!(ignored("\\*", "*", false), Some(true));
        assert_eq!(ignored("\\#c", "#c", false), Some(true));
        assert_eq!(ignored("\\!d", "!d", false), Some(true));
        assert_eq!(ignored("#c", "#c", false), None);
        assert_eq!(ignored("*\n!d", "d", false), Some(false));
    }

    #[test]
    fn only_unescaped_trailing_spaces_are_trimmed() {
        // Failed before: every trailing blank went, tabs and escaped spaces too.
        let cases: &[(&str, &str)] = &[
            ("a  ", "a"),
            ("a\\ ", "a\\ "),
            ("a\\  ", "a\\ "),
            ("a\t", "a\t"),
            ("a\t ", "a\t"),
            ("a \\", "a \\"),
            ("a\\\\ ", "a\\\\"),
            ("   ", ""),
        ];
        for (line, kept) in cases {
            assert_eq!(
                trim_trailing_spaces(line.as_bytes()),
                kept.as_bytes(),
                "{line:?}"
            );
        }
        assert_eq!(ignored("a\t", "a\t", false), Some(true));
        assert_eq!(ignored("a\t", "a", false), None);
        assert_eq!(ignored("a\\ ", "a ", false), Some(true));
    }

    #[test]
    fn lines_end_at_newlines_with_or_without_a_carriage_return() {
        let rules = "\u{feff}one\r\ntwo\n#three\n  \n!\n/\nfour/\n";
        assert_eq!(ignored(rules, "one", false), Some(true));
        assert_eq!(ignored(rules, "two", false), Some(true));
        assert_eq!(ignored(rules, "#three", false), None);
        assert_eq!(ignored(rules, "four", false), None);
        assert_eq!(ignored(rules, "x/four", true), Some(true));
    }

    #[test]
    fn a_slash_anchors_to_the_files_directory() {
        let rules = Rules::parse(b"sub".to_vec(), b"/a\nb/c\nd\n");
        assert_eq!(rules.decide(b"sub/a", false), Some(true));
        assert_eq!(rules.decide(b"sub/x/a", false), None);
        assert_eq!(rules.decide(b"sub/b/c", false), Some(true));
        assert_eq!(rules.decide(b"sub/x/b/c", false), None);
        assert_eq!(rules.decide(b"sub/x/y/d", false), Some(true));
        assert_eq!(rules.decide(b"subway/d", false), None);
        assert_eq!(rules.decide(b"d", false), None);
    }
}
