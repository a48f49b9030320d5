//! The URL standard's "domain to ASCII" (UTS #46 ToASCII, non-transitional, without the STD3
//! rules), as far as a host's ASCII form goes: every code point UTS #46 maps into ASCII
//! (full-width digits, letters and stops, superscripts, circled and mathematical letters…) or
//! ignores is mapped exactly as its table says (`idna_table`), a disallowed one fails the
//! host, other letters are lowercased, and a label left with other characters is written in
//! Punycode (`xn--`). Not done: NFC normalisation, the Bidi and combining-mark rules, and the
//! mappings of one non-ASCII character to another beyond lowercasing; a host they would change
//! comes out as a name no server has, never as an address.

use super::host::Invalid;
use super::idna_table::{DISALLOWED, IGNORED, TO_ASCII};
use super::punycode;

/// `domain`'s ASCII form, or `Invalid` when UTS #46 records an error.
pub(super) fn domain_to_ascii(domain: &str) -> Result<String, Invalid> {
    let mapped = map(domain)?;
    let labels = mapped
        .split('.')
        .map(label_to_ascii)
        .collect::<Result<Vec<String>, Invalid>>()?;
    let ascii = labels.join(".");
    if ascii.is_empty() {
        return Err(Invalid);
    }
    Ok(ascii)
}

/// How UTS #46 maps one code point.
enum Mapping {
    Kept,
    Ignored,
    To(String),
    Disallowed,
}

fn mapping(c: char) -> Mapping {
    let cp = u32::from(c);
    if c.is_ascii() {
        return match c.is_ascii_uppercase() {
            true => Mapping::To(c.to_ascii_lowercase().to_string()),
            false => Mapping::Kept,
        };
    }
    if in_ranges(IGNORED, cp) {
        return Mapping::Ignored;
    }
    if let Some(ascii) = to_ascii(cp) {
        return Mapping::To(ascii);
    }
    // The joiners are valid only in contexts this does not check: refused rather than guessed.
    if in_ranges(DISALLOWED, cp) || matches!(c, '\u{200c}' | '\u{200d}') {
        return Mapping::Disallowed;
    }
    let lower: String = c.to_lowercase().collect();
    match lower == c.to_string() {
        true => Mapping::Kept,
        false => Mapping::To(lower),
    }
}

/// `domain` with each code point mapped; `Invalid` if one is disallowed.
fn map(domain: &str) -> Result<String, Invalid> {
    let mut mapped = String::with_capacity(domain.len());
    for c in domain.chars() {
        match mapping(c) {
            Mapping::Kept => mapped.push(c),
            Mapping::Ignored => {}
            Mapping::To(text) => mapped.push_str(&text),
            Mapping::Disallowed => return Err(Invalid),
        }
    }
    Ok(mapped)
}

/// One mapped label in ASCII: as it is, checked when it is Punycode already, else encoded.
fn label_to_ascii(label: &str) -> Result<String, Invalid> {
    if let Some(encoded) = label.strip_prefix("xn--") {
        let decoded = label
            .is_ascii()
            .then(|| punycode::decode(encoded))
            .flatten()
            .ok_or(Invalid)?;
        let valid = |c: char| matches!(mapping(c), Mapping::Kept);
        if decoded.is_ascii() || !decoded.chars().all(valid) {
            return Err(Invalid);
        }
        return Ok(label.to_string());
    }
    if label.is_ascii() {
        return Ok(label.to_string());
    }
    punycode::encode(label)
        .map(|encoded| format!("xn--{encoded}"))
        .ok_or(Invalid)
}

fn to_ascii(cp: u32) -> Option<String> {
    let at = TO_ASCII.partition_point(|&(first, _, _)| first <= cp);
    let &(first, last, text) = TO_ASCII.get(at.checked_sub(1)?)?;
    if cp > last {
        return None;
    }
    if first == last {
        return Some(text.to_string());
    }
    // A run: each next code point maps to the next character.
    let start = text.chars().next()?;
    char::from_u32(u32::from(start) + (cp - first)).map(String::from)
}

fn in_ranges(ranges: &[(u32, u32)], cp: u32) -> bool {
    let at = ranges.partition_point(|&(first, _)| first <= cp);
    at.checked_sub(1)
        .and_then(|at| ranges.get(at))
        .is_some_and(|&(_, last)| cp <= last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_come_out_in_ascii_as_uts_46_maps_them() {
        let cases: &[(&str, Result<&str, Invalid>)] = &[
            ("Example.ORG", Ok("example.org")),
            ("１２７．０．０．１", Ok("127.0.0.1")),
            ("０Ｘｃ０．０２５０．０１", Ok("0xc0.0250.01")),
            ("ⓛⓞⓒⓐⓛⓗⓞⓢⓣ", Ok("localhost")),
            ("𝟏𝟐𝟕。𝟎｡𝟎．𝟏", Ok("127.0.0.1")),
            ("¹²⁷.₀.₀.①", Ok("127.0.0.1")),
            ("LOCAL\u{200b}HOST", Ok("localhost")),
            ("\u{212a}.example", Ok("k.example")),
            ("𜳰𜳱", Ok("01")),
            ("Bücher.example", Ok("xn--bcher-kva.example")),
            ("faß.ExAmPlE", Ok("xn--fa-hia.example")),
            ("xn--bcher-kva.example", Ok("xn--bcher-kva.example")),
            ("example.com.", Ok("example.com.")),
            ("GOO\u{a0}\u{3000}goo.com", Ok("goo  goo.com")),
            ("\u{ad}", Err(Invalid)),
            ("\u{fdd0}zyx.com", Err(Invalid)),
            ("\u{fffd}", Err(Invalid)),
            ("a\u{200d}b", Err(Invalid)),
            ("xn--", Err(Invalid)),
            ("xn--abc-", Err(Invalid)),
            ("xn--pokxncvks", Err(Invalid)),
            ("xn--bcher-kva\u{e9}", Err(Invalid)),
        ];
        for (domain, expected) in cases {
            assert_eq!(
                domain_to_ascii(domain).as_deref().map_err(|e| *e),
                *expected,
                "{domain}"
            );
        }
    }
}
