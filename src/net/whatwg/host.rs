//! The URL standard's host parser for special schemes: an IPv6 address in brackets, else the
//! host percent-decoded, made ASCII as IDNA does (`idna`), refused if it holds a forbidden
//! code point, and read as an IPv4 address when it ends in a number; and how a host is
//! written back (the standard's serialisation: `[::ffff:7f00:1]`, never dotted IPv6).

use std::net::{Ipv4Addr, Ipv6Addr};

use super::{idna, ip};

/// A host as the standard has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Host {
    /// A name, in its ASCII form.
    Domain(String),
    V4(Ipv4Addr),
    V6(Ipv6Addr),
}

/// The standard fails to parse the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Invalid;

/// Parses `input`, the host of a special URL (not empty).
pub(crate) fn parse(input: &str) -> Result<Host, Invalid> {
    if let Some(inside) = input.strip_prefix('[') {
        let inside = inside.strip_suffix(']').ok_or(Invalid)?;
        return ip::parse_v6(inside).map(Host::V6);
    }
    let decoded = percent_encoding::percent_decode_str(input).collect::<Vec<u8>>();
    let domain = String::from_utf8_lossy(&decoded);
    let ascii = idna::domain_to_ascii(&domain)?;
    if ascii.chars().any(forbidden_in_domain) {
        return Err(Invalid);
    }
    if ip::ends_in_a_number(&ascii) {
        return ip::parse_v4(&ascii).map(Host::V4);
    }
    Ok(Host::Domain(ascii))
}

/// A forbidden domain code point: a forbidden host code point, a C0 control, `%` or DEL.
fn forbidden_in_domain(c: char) -> bool {
    let forbidden_host = matches!(
        c,
        '\0' | '\t'
            | '\n'
            | '\r'
            | ' '
            | '#'
            | '/'
            | ':'
            | '<'
            | '>'
            | '?'
            | '@'
            | '['
            | '\\'
            | ']'
            | '^'
            | '|'
    );
    forbidden_host || c <= '\u{1f}' || c == '%' || c == '\u{7f}'
}

impl std::fmt::Display for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Host::Domain(name) => f.write_str(name),
            Host::V4(v4) => write!(f, "{v4}"),
            Host::V6(v6) => write!(f, "[{}]", ip::serialize_v6(v6)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_decoded_mapped_and_read_as_the_standard_reads_them() {
        let cases: &[(&str, Result<&str, Invalid>)] = &[
            ("EXAMPLE.org", Ok("example.org")),
            ("%65xample.org", Ok("example.org")),
            ("ex%2Eample", Ok("ex.ample")),
            ("０ｘ７ｆ．１", Ok("127.0.0.1")),
            ("127。0。0。1", Ok("127.0.0.1")),
            ("%ef%bc%91%ef%bc%92%ef%bc%97.0.0.1", Ok("127.0.0.1")),
            ("bücher.example", Ok("xn--bcher-kva.example")),
            ("[0:0::1]", Ok("[::1]")),
            ("[::127.0.0.1]", Ok("[::7f00:1]")),
            ("a%20b", Err(Invalid)),
            ("a%", Err(Invalid)),
            ("％４１.com", Err(Invalid)),
            ("a<b", Err(Invalid)),
            ("[::1", Err(Invalid)),
            ("1.2.3.4.5", Err(Invalid)),
            ("example.0x100000000", Err(Invalid)),
            ("\u{ad}", Err(Invalid)),
        ];
        for (input, expected) in cases {
            let got = parse(input).map(|host| host.to_string());
            assert_eq!(got.as_deref().map_err(|e| *e), *expected, "{input}");
        }
    }
}
