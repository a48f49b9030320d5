//! Where a URL leads, as the WHATWG URL standard parses it: the host and port of a URL of a
//! special scheme (http, https, ws, wss, ftp), so that the host Marvin judges is the host a
//! browser, or a program that follows the standard, reaches (`http://0x7f.1/`,
//! `http://%31%32%37.0.0.1/` and `http://１２７.０.０.１/` all reach 127.0.0.1). Only the
//! states that decide the host and port are followed; the path, query and fragment are not
//! parsed, and `file:` and the other schemes are left to the caller.

mod host;
mod idna;
mod idna_table;
mod ip;
mod punycode;

#[cfg(test)]
mod conformance;

pub(crate) use host::{Host, parse as parse_host};

/// The host and port a URL reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reached {
    pub host: Host,
    /// The port the URL names, else its scheme's.
    pub port: u16,
}

/// Why a URL has no host here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unreached {
    /// The standard fails to parse the URL: a browser goes nowhere with it.
    Invalid,
    /// A scheme other than the special ones (or `file:`), or none without a base.
    Unhandled,
}

/// The host and port of `input`, read against `base` (a URL too) when it is relative.
pub(crate) fn reached(input: &str, base: Option<&str>) -> Result<Reached, Unreached> {
    let input = cleaned(input);
    let (scheme, rest) = match split_scheme(&input) {
        Some((scheme, rest)) => (Some(scheme), rest),
        None => (None, input.as_str()),
    };
    let base = || -> Result<(String, Reached), Unreached> {
        let base = base.ok_or(Unreached::Unhandled)?;
        let cleaned_base = cleaned(base);
        let (base_scheme, _) = split_scheme(&cleaned_base).ok_or(Unreached::Unhandled)?;
        Ok((base_scheme, reached(base, None)?))
    };
    let scheme = match scheme {
        Some(scheme) => scheme,
        None => return relative(rest, base()?),
    };
    let port = default_port(&scheme).ok_or(Unreached::Unhandled)?;
    match base() {
        Ok(base) if base.0 == scheme => relative(rest, base),
        _ => authority(rest.trim_start_matches(['/', '\\']), port),
    }
}

/// A URL without its own scheme (or with its base's): its own authority after two slashes
/// (either way round), else its base's host and port.
fn relative(rest: &str, (scheme, base): (String, Reached)) -> Result<Reached, Unreached> {
    let port = default_port(&scheme).ok_or(Unreached::Unhandled)?;
    let mut chars = rest.chars();
    let slash = |c: Option<char>| matches!(c, Some('/' | '\\'));
    if slash(chars.next()) && slash(chars.next()) {
        authority(chars.as_str().trim_start_matches(['/', '\\']), port)
    } else {
        Ok(base)
    }
}

/// The authority at the start of `rest` (up to `/`, `\`, `?` or `#`): what follows its last
/// `@`, a host and maybe a port.
fn authority(rest: &str, default: u16) -> Result<Reached, Unreached> {
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host_port = match authority.rsplit_once('@') {
        Some((_, "")) => return Err(Unreached::Invalid),
        Some((_, host_port)) => host_port,
        None => authority,
    };
    let (host, port) = split_port(host_port);
    if host.is_empty() {
        return Err(Unreached::Invalid);
    }
    let host = host::parse(host).map_err(|_| Unreached::Invalid)?;
    let port = match port {
        None | Some("") => default,
        Some(digits) if digits.bytes().all(|b| b.is_ascii_digit()) => {
            let trimmed = digits.trim_start_matches('0');
            match trimmed.parse::<u16>() {
                Ok(port) => port,
                Err(_) if trimmed.is_empty() => 0,
                Err(_) => return Err(Unreached::Invalid),
            }
        }
        Some(_) => return Err(Unreached::Invalid),
    };
    Ok(Reached { host, port })
}

/// The host and the port after the first `:` outside brackets.
fn split_port(host_port: &str) -> (&str, Option<&str>) {
    let mut inside = false;
    for (at, c) in host_port.char_indices() {
        match c {
            '[' => inside = true,
            ']' => inside = false,
            ':' if !inside => return (&host_port[..at], Some(&host_port[at + 1..])),
            _ => {}
        }
    }
    (host_port, None)
}

/// `input` without the C0 controls and spaces around it, and without any tab or newline.
fn cleaned(input: &str) -> String {
    input
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// The scheme, lowercased, and what follows its `:`.
fn split_scheme(input: &str) -> Option<(String, &str)> {
    let (scheme, rest) = input.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let fits = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.');
    (first.is_ascii_alphabetic() && chars.all(fits)).then(|| (scheme.to_ascii_lowercase(), rest))
}

/// The default port of a special scheme; `None` for the others (and `file`, which has no port).
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(url: &str) -> Result<(String, u16), Unreached> {
        reached(url, None).map(|r| (r.host.to_string(), r.port))
    }

    #[test]
    fn every_spelling_of_a_private_address_reaches_it() {
        let cases: &[(&str, &str, u16)] = &[
            ("http://0x7f.1/", "127.0.0.1", 80),
            ("http://%31%32%37.0.0.1/", "127.0.0.1", 80),
            ("http://１２７.０.０.１/", "127.0.0.1", 80),
            ("http://192.168.257/", "192.168.1.1", 80),
            ("http://192.168.257./", "192.168.1.1", 80),
            ("http://0x.0x.0/", "0.0.0.0", 80),
            ("https://2130706433:8443/x", "127.0.0.1", 8443),
            ("http://0177.0.0.1/", "127.0.0.1", 80),
            ("HTTP://[::FFFF:7f00:1]:00080/", "[::ffff:7f00:1]", 80),
            ("http://user:pw@LOCALHOST.:3000", "localhost.", 3000),
            ("http:\\\\ｌｏｃａｌｈｏｓｔ\\x", "localhost", 80),
            ("  http://10.0.0.1\t/ ", "10.0.0.1", 80),
            ("http://a@b@169.254.169.254/", "169.254.169.254", 80),
            ("http://example.com:/", "example.com", 80),
        ];
        for (url, host, port) in cases {
            assert_eq!(shown(url), Ok((host.to_string(), *port)), "{url}");
        }
    }

    #[test]
    fn urls_a_browser_refuses_or_that_are_not_web_addresses_reach_nothing() {
        use Unreached::*;
        let cases: &[(&str, Unreached)] = &[
            ("http://", Invalid),
            ("http://user@/x", Invalid),
            ("http://127.0.0.1:99999/", Invalid),
            ("http://127.0.0.1:8o/", Invalid),
            ("http://1.2.3.4.5/", Invalid),
            ("http://256.0.0.1/", Invalid),
            ("http://exa mple.org/", Invalid),
            ("http://%25/", Invalid),
            ("http://[::1/", Invalid),
            ("file:///etc/passwd", Unhandled),
            ("mailto:a@b", Unhandled),
            ("//no-base", Unhandled),
        ];
        for (url, why) in cases {
            assert_eq!(shown(url), Err(*why), "{url}");
        }
    }

    #[test]
    fn a_relative_url_reaches_its_bases_host_unless_it_names_its_own() {
        let base = Some("https://base.example:8443/a/b");
        let cases: &[(&str, &str, u16)] = &[
            ("/path", "base.example", 8443),
            ("https:path", "base.example", 8443),
            ("//other.example/x", "other.example", 443),
            ("\\/other.example", "other.example", 443),
            ("http:other.example", "other.example", 80),
        ];
        for (url, host, port) in cases {
            let got = reached(url, base).map(|r| (r.host.to_string(), r.port));
            assert_eq!(got, Ok((host.to_string(), *port)), "{url}");
        }
    }
}
