//! Globs as git's wildmatch reads them with `WM_PATHNAME` (the way `.gitignore` patterns
//! match): `*`, `?`, `[...]` with ranges and `[:class:]`, `\` escapes, and `**` only where it
//! stands for whole directories. Matched in linear time.

/// One piece of a compiled glob.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Byte(u8),
    /// `?`: one byte other than `/`.
    Any,
    /// `[...]`: one byte of the set (never `/`).
    Class(Box<[bool; 256]>),
    /// `*`: any run of bytes without `/`.
    Star,
    /// `**`: any run of bytes.
    Stars,
    /// Reads nothing: the match may go on at the next token or `n` tokens on (`**/` is
    /// compiled as `Skip(3), Stars, Byte(b'/')`: nothing, or any run that ends with `/`).
    Skip(usize),
}

/// How a glob is matched: the plain cases as git does them, without the machine.
#[derive(Debug, Clone)]
enum Kind {
    /// No special byte: the text must be these bytes.
    Literal(Vec<u8>),
    /// `*` then no special byte: the text ends with these bytes and has no `/` before them.
    Suffix(Vec<u8>),
    Tokens(Vec<Token>),
    /// A trailing lone `\`, an unclosed `[` or an unknown `[:class:]`: wildmatch gives up on
    /// every text.
    Never,
}

/// A glob compiled for matching in linear time: the text is read once while the set of
/// pattern positions it could have reached is kept (no backtracking, so a pattern such as
/// `*a*a*a*a*a*a*a*a*b` costs text length × pattern length, never more).
#[derive(Debug, Clone)]
pub(crate) struct Glob {
    kind: Kind,
}

/// Bytes with a meaning in a glob (git's `is_glob_special`).
fn special(c: u8) -> bool {
    matches!(c, b'*' | b'?' | b'[' | b'\\')
}

impl Glob {
    /// `*` and `?` stop at `/`; `**` crosses it only as a whole component (`**/x`, `x/**`,
    /// `x/**/y`), elsewhere it is `*`; `[...]`, `[!...]`, `[^...]` and `\x` as in git.
    pub(crate) fn new(pattern: &[u8]) -> Glob {
        let kind = match pattern.iter().position(|&c| special(c)) {
            None => Kind::Literal(pattern.to_vec()),
            Some(0) if pattern[0] == b'*' && !pattern[1..].iter().any(|&c| special(c)) => {
                Kind::Suffix(pattern[1..].to_vec())
            }
            Some(_) => compile(pattern).map_or(Kind::Never, Kind::Tokens),
        };
        Glob { kind }
    }

    pub(crate) fn matches(&self, text: &[u8]) -> bool {
        match &self.kind {
            Kind::Literal(bytes) => text == bytes.as_slice(),
            Kind::Suffix(end) => {
                text.ends_with(end) && !text[..text.len() - end.len()].contains(&b'/')
            }
            Kind::Tokens(tokens) => run(tokens, text),
            Kind::Never => false,
        }
    }
}

/// The tokens of `pattern`, or `None` when wildmatch would give up on every text.
fn compile(pattern: &[u8]) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'*' => i = stars(pattern, i, &mut tokens),
            b'?' => {
                tokens.push(Token::Any);
                i += 1;
            }
            b'[' => {
                let (set, next) = super::class::parse(pattern, i + 1)?;
                tokens.push(Token::Class(set));
                i = next;
            }
            b'\\' => {
                tokens.push(Token::Byte(*pattern.get(i + 1)?));
                i += 2;
            }
            c => {
                tokens.push(Token::Byte(c));
                i += 1;
            }
        }
    }
    Some(tokens)
}

/// Compiles the run of `*` at `at`, returning where the pattern goes on. Two or more stars
/// cross `/` only when they start the pattern or follow a `/`, and end it or come before `/`
/// (or `\/`); then `**/` may also match nothing. Any other run is one `*`.
fn stars(pattern: &[u8], at: usize, tokens: &mut Vec<Token>) -> usize {
    let end = at + pattern[at..].iter().take_while(|&&c| c == b'*').count();
    let whole = end - at >= 2 && (at == 0 || pattern[at - 1] == b'/');
    let after = &pattern[end..];
    if whole && after.first() == Some(&b'/') {
        tokens.extend([Token::Skip(3), Token::Stars, Token::Byte(b'/')]);
        return end + 1;
    }
    if whole && (after.is_empty() || after.starts_with(b"\\/")) {
        tokens.push(Token::Stars);
    } else {
        tokens.push(Token::Star);
    }
    end
}

/// Runs the machine over `text`: the set of positions reached so far, one byte at a time.
fn run(tokens: &[Token], text: &[u8]) -> bool {
    let mut now = vec![false; tokens.len() + 1];
    now[0] = true;
    close(tokens, &mut now);
    let mut next = vec![false; now.len()];
    for &c in text {
        next.iter_mut().for_each(|n| *n = false);
        for (at, token) in tokens.iter().enumerate() {
            if !now[at] {
                continue;
            }
            match token {
                Token::Byte(b) => next[at + 1] |= *b == c,
                Token::Any => next[at + 1] |= c != b'/',
                Token::Class(set) => next[at + 1] |= set[c as usize],
                Token::Star => next[at] |= c != b'/',
                Token::Stars => next[at] = true,
                Token::Skip(_) => {}
            }
        }
        close(tokens, &mut next);
        std::mem::swap(&mut now, &mut next);
        if !now.contains(&true) {
            return false;
        }
    }
    now[tokens.len()]
}

/// Adds the positions reachable without reading a byte: past a star, or a skip. Every such
/// step goes forward, so one pass in order reaches them all.
fn close(tokens: &[Token], states: &mut [bool]) {
    for (at, token) in tokens.iter().enumerate() {
        if !states[at] {
            continue;
        }
        match token {
            Token::Star | Token::Stars => states[at + 1] = true,
            Token::Skip(n) => {
                states[at + 1] = true;
                states[at + n] = true;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob_match(pattern: &str, text: &str) -> bool {
        Glob::new(pattern.as_bytes()).matches(text.as_bytes())
    }

    #[test]
    fn glob_cases() {
        let cases: &[(&str, &str, bool)] = &[
            ("*.rs", "main.rs", true),
            ("*.rs", "src/main.rs", false),
            ("src/*.rs", "src/main.rs", true),
            ("**/*.rs", "main.rs", true),
            ("**/*.rs", "a/b/main.rs", true),
            ("target/**", "target/debug/x", true),
            ("a/**/b", "a/b", true),
            ("a/**/b", "a/x/y/b", true),
            ("?.txt", "a.txt", true),
            ("?.txt", "ab.txt", false),
            ("[abc].md", "b.md", true),
            ("[!abc].md", "b.md", false),
            ("[a-c]x", "cx", true),
            ("\\*star", "*star", true),
            ("log", "log", true),
            ("*", "a/b", false),
            ("**", "a/b", true),
            ("a/**/b", "a/x/c", false),
            ("**/b", "b", true),
            ("*.rs", ".rs", true),
            ("[]a]", "]", true),
            ("[!/]", "/", false),
            ("a?c", "a/c", false),
            ("", "", true),
            ("a*", "", false),
        ];
        for (pattern, text, expected) in cases {
            assert_eq!(glob_match(pattern, text), *expected, "{pattern} ~ {text}");
        }
    }

    #[test]
    fn stars_inside_a_name_do_not_cross_slashes() {
        // Failed before: any `**` crossed `/`.
        assert!(!glob_match("x**y", "x/a/y"));
        assert!(glob_match("x**y", "xay"));
        assert!(!glob_match("foo**", "foo/bar"));
        assert!(!glob_match("**bar", "foo/bar"));
        assert!(glob_match("foo**/bar", "foo/bar"));
        assert!(!glob_match("foo**/bar", "foobar"));
        assert!(glob_match("a/**\\/b", "a/x/b"));
        assert!(!glob_match("a/**\\/b", "a/b"));
    }

    #[test]
    fn a_broken_pattern_matches_nothing() {
        // Failed before: a lone `\` or unclosed `[` was taken literally.
        for (pattern, text) in [("\\", "\\"), ("foo\\", "foo\\"), ("[", "["), ("ab[", "ab[")] {
            assert!(!glob_match(pattern, text), "{pattern} ~ {text}");
        }
    }

    #[test]
    fn plain_and_suffix_patterns_take_the_short_way() {
        assert!(matches!(Glob::new(b"target").kind, Kind::Literal(_)));
        assert!(matches!(Glob::new(b"*.log").kind, Kind::Suffix(_)));
        assert!(glob_match("*.log", "a.log"));
        assert!(!glob_match("*.log", "a/b.log"));
        assert!(!glob_match("*.log", "a.logx"));
    }

    #[test]
    fn pathological_globs_take_linear_time() {
        // With backtracking this pair takes longer than the age of the universe.
        let pattern = "*a*a*a*a*a*a*a*a*a*a*a*b";
        let text = "a".repeat(10_000);
        assert!(!glob_match(pattern, &text));
        assert!(glob_match(pattern, &format!("{text}b")));
        let stars = "**/".repeat(50) + "x";
        assert!(!glob_match(&stars, &"a/".repeat(5_000)));
    }
}
