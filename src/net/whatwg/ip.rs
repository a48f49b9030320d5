//! The URL standard's IP address parsers: IPv4 with one to four parts, each decimal, octal
//! (`0177`) or hexadecimal (`0x7f`), the last filling the bytes left (`127.1`, `2130706433`),
//! an empty last part allowed (`10.0.0.1.`); IPv6 with `::`, and a dotted IPv4 tail; and IPv6
//! written back as the standard writes it.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::host::Invalid;

/// Whether `host` ends in a number and so must be an IPv4 address: its last part (before an
/// empty one) all digits, or `0x` and hex digits.
pub(super) fn ends_in_a_number(host: &str) -> bool {
    let mut parts: Vec<&str> = host.split('.').collect();
    if parts.last() == Some(&"") {
        if parts.len() == 1 {
            return false;
        }
        parts.pop();
    }
    let last = parts.last().copied().unwrap_or_default();
    if !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    number(last).is_some()
}

/// The IPv4 address `host` names.
pub(super) fn parse_v4(host: &str) -> Result<Ipv4Addr, Invalid> {
    let mut parts: Vec<&str> = host.split('.').collect();
    if parts.last() == Some(&"") && parts.len() > 1 {
        parts.pop();
    }
    if parts.len() > 4 {
        return Err(Invalid);
    }
    let numbers = parts
        .iter()
        .map(|part| number(part).ok_or(Invalid))
        .collect::<Result<Vec<u64>, Invalid>>()?;
    let (last, leading) = numbers.split_last().ok_or(Invalid)?;
    if leading.iter().any(|&n| n > 255) {
        return Err(Invalid);
    }
    // The last part fills the bytes the others leave: 256^(5 - parts) values.
    let room = 256u64.pow(5 - numbers.len() as u32);
    if *last >= room {
        return Err(Invalid);
    }
    let address = leading
        .iter()
        .enumerate()
        .fold(*last, |address, (i, &n)| address + (n << (8 * (3 - i))));
    u32::try_from(address)
        .map(Ipv4Addr::from)
        .map_err(|_| Invalid)
}

/// One part of an IPv4 address: decimal, octal after a `0`, hex after `0x` (`0x` alone is
/// 0); `None` when it is none of them. Past `u64` it stays at `u64::MAX`, too large anyway.
fn number(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    let (digits, radix) = match part.get(..2) {
        Some("0x" | "0X") => (&part[2..], 16),
        _ if part.len() > 1 && part.starts_with('0') => (&part[1..], 8),
        _ => (part, 10),
    };
    digits.chars().try_fold(0u64, |n, c| {
        let digit = c.to_digit(radix)?;
        Some(
            n.saturating_mul(u64::from(radix))
                .saturating_add(u64::from(digit)),
        )
    })
}

/// The IPv6 address written inside brackets.
pub(super) fn parse_v6(input: &str) -> Result<Ipv6Addr, Invalid> {
    let chars: Vec<char> = input.chars().collect();
    let mut pieces = [0u16; 8];
    let (mut index, mut at, mut compress) = (0usize, 0usize, None);
    let c = |at: usize| chars.get(at).copied();
    if c(0) == Some(':') {
        if c(1) != Some(':') {
            return Err(Invalid);
        }
        at = 2;
        index = 1;
        compress = Some(1);
    }
    while at < chars.len() {
        if index == 8 {
            return Err(Invalid);
        }
        if c(at) == Some(':') {
            if compress.is_some() {
                return Err(Invalid);
            }
            at += 1;
            index += 1;
            compress = Some(index);
            continue;
        }
        let (mut value, mut length) = (0u16, 0);
        while length < 4 {
            let Some(digit) = c(at).and_then(|c| c.to_digit(16)) else {
                break;
            };
            value = value * 0x10 + digit as u16;
            at += 1;
            length += 1;
        }
        match c(at) {
            Some('.') => {
                if length == 0 || index > 6 {
                    return Err(Invalid);
                }
                dotted_tail(&chars[at - length..], &mut pieces, &mut index)?;
                break;
            }
            Some(':') => {
                at += 1;
                if at == chars.len() {
                    return Err(Invalid);
                }
            }
            Some(_) => return Err(Invalid),
            None => {}
        }
        pieces[index] = value;
        index += 1;
    }
    Ok(Ipv6Addr::from(expand(pieces, index, compress)?))
}

/// An IPv4 address ending an IPv6 one, into two pieces from `index`: four decimal numbers,
/// no leading zeros.
fn dotted_tail(chars: &[char], pieces: &mut [u16; 8], index: &mut usize) -> Result<(), Invalid> {
    let mut seen = 0;
    let mut at = 0;
    while at < chars.len() {
        if seen > 0 {
            if chars[at] != '.' || seen >= 4 {
                return Err(Invalid);
            }
            at += 1;
        }
        let mut number: Option<u16> = None;
        while let Some(digit) = chars.get(at).and_then(|c| c.to_digit(10)) {
            number = match number {
                None => Some(digit as u16),
                Some(0) => return Err(Invalid),
                Some(n) => Some(n * 10 + digit as u16),
            };
            if number.is_some_and(|n| n > 255) {
                return Err(Invalid);
            }
            at += 1;
        }
        let number = number.ok_or(Invalid)?;
        pieces[*index] = pieces[*index] * 0x100 + number;
        seen += 1;
        if seen == 2 || seen == 4 {
            *index += 1;
        }
    }
    if seen == 4 { Ok(()) } else { Err(Invalid) }
}

/// The pieces with those after `::` moved to the end.
fn expand(
    mut pieces: [u16; 8],
    index: usize,
    compress: Option<usize>,
) -> Result<[u16; 8], Invalid> {
    match compress {
        Some(compress) => {
            let mut swaps = index - compress;
            let mut to = 7;
            while to != 0 && swaps > 0 {
                pieces.swap(to, compress + swaps - 1);
                to -= 1;
                swaps -= 1;
            }
            Ok(pieces)
        }
        None if index == 8 => Ok(pieces),
        None => Err(Invalid),
    }
}

/// `address` as the standard writes it: lowercase hex, the first longest run of two or more
/// zero pieces as `::`, no dotted IPv4 tail.
pub(super) fn serialize_v6(address: &Ipv6Addr) -> String {
    let pieces = address.segments();
    let mut best: Option<(usize, usize)> = None;
    let mut at = 0;
    while at < 8 {
        let run = pieces[at..].iter().take_while(|&&p| p == 0).count();
        if run >= 2 && best.is_none_or(|(_, longest)| run > longest) {
            best = Some((at, run));
        }
        at += run.max(1);
    }
    let hex = |pieces: &[u16]| -> Vec<String> { pieces.iter().map(|p| format!("{p:x}")).collect() };
    match best {
        Some((start, run)) => format!(
            "{}::{}",
            hex(&pieces[..start]).join(":"),
            hex(&pieces[start + run..]).join(":")
        ),
        None => hex(&pieces).join(":"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_parts_are_read_in_every_radix_and_the_last_fills_the_rest() {
        let cases: &[(&str, Option<[u8; 4]>)] = &[
            ("127.0.0.1", Some([127, 0, 0, 1])),
            ("0x7f.1", Some([127, 0, 0, 1])),
            ("0177.0.0.01", Some([127, 0, 0, 1])),
            ("2130706433", Some([127, 0, 0, 1])),
            ("0x7F000001", Some([127, 0, 0, 1])),
            ("192.168.257", Some([192, 168, 1, 1])),
            ("10.0.0.1.", Some([10, 0, 0, 1])),
            ("0x.0x.0", Some([0, 0, 0, 0])),
            ("4294967295", Some([255, 255, 255, 255])),
            ("4294967296", None),
            ("256.0.0.1", None),
            ("1.2.3.256", None),
            ("1.2.65536", None),
            ("1.2.3.4.5", None),
            ("1..2", None),
            ("09.1", None),
            ("0x1g.1", None),
            ("99999999999999999999999999", None),
        ];
        for (host, expected) in cases {
            let got = parse_v4(host).ok().map(|ip| ip.octets());
            assert_eq!(got, *expected, "{host}");
        }
    }

    #[test]
    fn a_host_ends_in_a_number_when_its_last_part_is_one() {
        for host in ["1.2.3.4", "a.1", "a.0x", "a.0X1f", "a.09", "1."] {
            assert!(ends_in_a_number(host), "{host}");
        }
        for host in ["example.com", "a.0x1g", "a.1a", ".", "", "a..", "1.a"] {
            assert!(!ends_in_a_number(host), "{host}");
        }
    }

    #[test]
    fn ipv6_addresses_are_read_and_written_as_the_standard_does() {
        let cases: &[(&str, Option<&str>)] = &[
            ("::1", Some("::1")),
            ("::", Some("::")),
            ("0:0:0:0:0:0:0:1", Some("::1")),
            ("1:0:0:2:0:0:0:3", Some("1:0:0:2::3")),
            ("1:0:0:2:0:0:3:4", Some("1::2:0:0:3:4")),
            ("::ffff:127.0.0.1", Some("::ffff:7f00:1")),
            ("FE80::ABCD", Some("fe80::abcd")),
            ("1:2:3:4:5:6:7:8", Some("1:2:3:4:5:6:7:8")),
            ("1:2:3:4:5:6:1.2.3.4", Some("1:2:3:4:5:6:102:304")),
            (":1", None),
            ("1:::2", None),
            ("1::2::3", None),
            ("1:2:3:4:5:6:7", None),
            ("1:2:3:4:5:6:7:8:9", None),
            ("12345::", None),
            ("1:", None),
            ("::1.2.3", None),
            ("::1.2.3.04", None),
            ("::1.2.3.256", None),
            ("1:2:3:4:5:6:7:1.2.3.4", None),
            ("::g", None),
        ];
        for (input, expected) in cases {
            let got = parse_v6(input).ok().map(|ip| serialize_v6(&ip));
            assert_eq!(got.as_deref(), *expected, "{input}");
        }
    }
}
