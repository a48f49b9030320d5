//! Character references as the WHATWG tokenizer reads them: every HTML5 name (the longest that
//! matches, the legacy ones also without their `;`), decimal and hexadecimal numbers with the
//! browsers' repairs (C1 controls read as Windows-1252, NUL, surrogates and numbers past
//! U+10FFFF as U+FFFD).

use super::entity_table::{ENTITIES, NAMES, SECONDS};

/// The longest name in the table, `;` included.
const LONGEST: usize = 32;

/// The character(s) a reference stands for: one, or two for the few names that need two.
pub(crate) type Chars = (char, Option<char>);

/// The reference at the start of `rest` (the text just after a `&`), if there is one to
/// decode: what it stands for and how many bytes of `rest` it takes. In an attribute
/// (`in_attribute`), a name without its `;` followed by `=` or a letter or digit is left as it
/// is, so a URL's `&copy=2` stays. `None` means the `&` is only a `&`.
pub(crate) fn reference(rest: &str, in_attribute: bool) -> Option<(Chars, usize)> {
    if let Some(number) = rest.strip_prefix('#') {
        return numeric(number).map(|(ch, used)| ((ch, None), used + 1));
    }
    let (chars, used) = longest_name(rest)?;
    if in_attribute
        && !rest[..used].ends_with(';')
        && rest[used..]
            .bytes()
            .next()
            .is_some_and(|b| b == b'=' || b.is_ascii_alphanumeric())
    {
        return None;
    }
    Some((chars, used))
}

/// The longest name in the table that `rest` starts with.
fn longest_name(rest: &str) -> Option<(Chars, usize)> {
    let alnum = rest.bytes().take_while(u8::is_ascii_alphanumeric).count();
    let semicolon = usize::from(rest[alnum..].starts_with(';'));
    let most = (alnum + semicolon).min(LONGEST);
    (1..=most)
        .rev()
        .find_map(|len| named(&rest[..len]).map(|chars| (chars, len)))
}

/// What a name (with its `;`, or a legacy one without) stands for.
fn named(name: &str) -> Option<Chars> {
    let (mut low, mut high) = (0, ENTITIES.len());
    while low < high {
        let mid = (low + high) / 2;
        match name_of(mid).cmp(name) {
            std::cmp::Ordering::Less => low = mid + 1,
            std::cmp::Ordering::Greater => high = mid,
            std::cmp::Ordering::Equal => return Some(chars_of(mid)),
        }
    }
    None
}

/// The `index`th name of the table.
fn name_of(index: usize) -> &'static str {
    let start = index.checked_sub(1).map_or(0, |before| ENTITIES[before].0);
    &NAMES[usize::from(start)..usize::from(ENTITIES[index].0)]
}

/// The characters of the `index`th name.
fn chars_of(index: usize) -> Chars {
    let packed = ENTITIES[index].1;
    // The generator writes only code points that are characters.
    let first = char::from_u32(packed & 0x00ff_ffff).unwrap_or('\u{fffd}');
    let second = (packed >> 24)
        .checked_sub(1)
        .and_then(|at| SECONDS.get(at as usize).copied());
    (first, second)
}

/// A numeric reference after its `#`: its character and how many bytes it takes, `None`
/// without digits.
fn numeric(text: &str) -> Option<(char, usize)> {
    let (digits, radix, skip) = match text.strip_prefix(['x', 'X']) {
        Some(hex) => (hex, 16, 1),
        None => (text, 10, 0),
    };
    let len = digits
        .bytes()
        .take_while(|b| char::from(*b).is_digit(radix))
        .count();
    if len == 0 {
        return None;
    }
    let value = digits[..len].bytes().fold(0u32, |value, b| {
        let digit = char::from(b).to_digit(radix).unwrap_or(0);
        value.saturating_mul(radix).saturating_add(digit)
    });
    let semicolon = usize::from(digits[len..].starts_with(';'));
    Some((code_point(value), skip + len + semicolon))
}

/// What a numeric reference to `value` stands for (the spec's "numeric character reference
/// end state").
pub(crate) fn code_point(value: u32) -> char {
    match value {
        0x80..=0x9f => C1[(value - 0x80) as usize],
        _ => char::from_u32(value)
            .filter(|ch| *ch != '\0')
            .unwrap_or('\u{fffd}'),
    }
}

/// The spec's table for numeric references to C1 controls: what Windows-1252 has there (the
/// five it leaves undefined stay as they are).
const C1: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}',
    '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
];

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(text: &str, in_attribute: bool) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find('&') {
            out.push_str(&rest[..at]);
            rest = &rest[at + 1..];
            match reference(rest, in_attribute) {
                Some(((first, second), used)) => {
                    out.push(first);
                    out.extend(second);
                    rest = &rest[used..];
                }
                None => out.push('&'),
            }
        }
        out + rest
    }

    #[test]
    fn references_are_decoded_as_browsers_do() {
        let cases: &[(&str, bool, &str)] = &[
            ("plain", false, "plain"),
            ("a &amp; b", false, "a & b"),
            (
                "&lt;p&gt; &quot;x&quot; &#x27;y&#39;",
                false,
                "<p> \"x\" 'y'",
            ),
            ("caf&eacute; &Eacute;t&eacute;", false, "café Été"),
            ("&hellip;&mdash;&euro;&nbsp;", false, "…—€\u{a0}"),
            ("&apos;&#X41;&#65", false, "'AA"),
            ("&#128;&#x9F;&#x81;", false, "€Ÿ\u{81}"),
            (
                "&#0;&#xD800;&#99999999999;&#x110000;",
                false,
                "\u{fffd}\u{fffd}\u{fffd}\u{fffd}",
            ),
            ("&ampx &copy2024 &notit; &notin;", false, "&x ©2024 ¬it; ∉"),
            ("&unknown; & &; &#; &#x;", false, "&unknown; & &; &#; &#x;"),
            ("?a=1&copy=2&amp;b=3&notx", true, "?a=1&copy=2&b=3&notx"),
            (
                "&Alpha;&alpha;&NotEqualTilde;&bne;",
                false,
                "Αα≂\u{338}=\u{20e5}",
            ),
            (
                "&CounterClockwiseContourIntegral;&zwnj;",
                false,
                "∳\u{200c}",
            ),
        ];
        for (input, attribute, expected) in cases {
            assert_eq!(decode(input, *attribute), *expected, "{input}");
        }
    }

    #[test]
    fn the_table_is_sorted_for_its_binary_search() {
        assert_eq!(ENTITIES.len(), 2231);
        assert!((1..ENTITIES.len()).all(|i| name_of(i - 1) < name_of(i)));
        assert!((0..ENTITIES.len()).all(|i| name_of(i).len() <= LONGEST));
    }
}
