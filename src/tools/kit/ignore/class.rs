//! Bracket expressions as git's wildmatch reads them: `[abc]`, `[!a-z]`, `[^x]`, `[]a]`,
//! `[\]]`, `[[:alpha:]]` and its eleven sisters (ASCII only, as git's own ctype), ranges that
//! end at an escaped byte, and the malformed ones that make wildmatch give up.

/// The set a bracket expression takes (never `/`) and the index just past its `]`, reading
/// `pattern` from `at` (just after the `[`). `None` when wildmatch gives up on it: no closing
/// `]`, or a `[:name:]` it does not know.
pub(super) fn parse(pattern: &[u8], at: usize) -> Option<(Box<[bool; 256]>, usize)> {
    let mut i = at;
    let negated = matches!(pattern.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let mut set = Box::new([false; 256]);
    // The byte a following `-` makes a range from; none after a range or a `[:class:]`.
    let mut prev: Option<u8> = None;
    let mut first = true;
    loop {
        let c = *pattern.get(i)?;
        if c == b']' && !first {
            break;
        }
        first = false;
        prev = match c {
            b'\\' => {
                i += 1;
                take(&mut set, *pattern.get(i)?)
            }
            b'-' if prev.is_some() && pattern.get(i + 1).is_some_and(|&n| n != b']') => {
                i += 1;
                if pattern[i] == b'\\' {
                    i += 1;
                }
                let high = *pattern.get(i)?;
                prev.into_iter()
                    .flat_map(|low| low..=high)
                    .for_each(|c| set[c as usize] = true);
                None
            }
            b'[' if pattern.get(i + 1) == Some(&b':') => match named(pattern, i + 2)? {
                Some((members, end)) => {
                    (0..=255u8)
                        .filter(|&c| members(c))
                        .for_each(|c| set[c as usize] = true);
                    i = end;
                    None
                }
                // Not `[:name:]` after all: the `[` is a byte of the set, and `:` comes next.
                None => take(&mut set, b'['),
            },
            c => take(&mut set, c),
        };
        i += 1;
    }
    for (c, taken) in set.iter_mut().enumerate() {
        *taken = *taken != negated && c != usize::from(b'/');
    }
    Some((set, i + 1))
}

/// Adds `c` to the set; it may start a range.
fn take(set: &mut [bool; 256], c: u8) -> Option<u8> {
    set[c as usize] = true;
    Some(c)
}

type Members = fn(u8) -> bool;

/// The class `[:name:]` whose name starts at `at`: `Some(None)` when the next `]` is not
/// preceded by `:` (so this was no class), `None` when the name is unknown or no `]` follows.
/// With a class: its test and the index of its `]`.
fn named(pattern: &[u8], at: usize) -> Option<Option<(Members, usize)>> {
    let end = at + pattern[at..].iter().position(|&c| c == b']')?;
    if end == at || pattern[end - 1] != b':' {
        return Some(None);
    }
    let members: Members = match &pattern[at..end - 1] {
        b"alnum" => |c| c.is_ascii_alphanumeric(),
        b"alpha" => |c| c.is_ascii_alphabetic(),
        b"blank" => |c| c == b' ' || c == b'\t',
        b"cntrl" => |c| c.is_ascii_control(),
        b"digit" => |c| c.is_ascii_digit(),
        b"graph" => |c| c.is_ascii_graphic(),
        b"lower" => |c| c.is_ascii_lowercase(),
        b"print" => |c| c == b' ' || c.is_ascii_graphic(),
        b"punct" => |c| c.is_ascii_punctuation(),
        // git's own isspace: no vertical tab, no form feed.
        b"space" => |c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'),
        b"upper" => |c| c.is_ascii_uppercase(),
        b"xdigit" => |c| c.is_ascii_hexdigit(),
        _ => return None,
    };
    Some(Some((members, end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn takes(class: &str, c: u8) -> Option<bool> {
        parse(class.as_bytes(), 0).map(|(set, _)| set[c as usize])
    }

    #[test]
    fn bracket_expressions_read_as_git_reads_them() {
        // Each failed before: no `[:class:]`, no `\` inside, `-` after a range, a leading `]`.
        let cases: &[(&str, u8, Option<bool>)] = &[
            ("[:alpha:]]", b'q', Some(true)),
            ("[:alpha:]]", b'1', Some(false)),
            ("!a-z]", b'A', Some(true)),
            ("!a-z]", b'q', Some(false)),
            ("]a]", b']', Some(true)),
            ("\\]]", b']', Some(true)),
            ("a-e-n]", b'-', Some(true)),
            ("a-e-n]", b'j', Some(false)),
            ("\\1-\\3]", b'2', Some(true)),
            ("[:]ab]", b':', Some(true)),
            ("[:digit]ab]", b't', Some(true)),
            ("[::]ab]", b'a', None),
            ("[:spaci:]]", b' ', None),
            ("abc", b'a', None),
            ("[:space:]]", 0x0b, Some(false)),
            ("!/]", b'/', Some(false)),
            ("!]", b'a', None),
        ];
        for (class, c, expected) in cases {
            assert_eq!(takes(class, *c), *expected, "[{class} ~ {:?}", *c as char);
        }
    }

    #[test]
    fn the_end_is_just_past_the_closing_bracket() {
        assert_eq!(parse(b"[ab]x", 1).map(|(_, end)| end), Some(4));
        assert_eq!(parse(b"[[:digit:]]x", 1).map(|(_, end)| end), Some(11));
    }
}
