//! The string formats a form field may have, checked as their standards write them: `date`
//! and `date-time` (RFC 3339: a real day, hour 0–23, second 60 only for a leap second, an
//! offset always), `uri` (RFC 3986: an absolute URI) and `email` (RFC 5321's mailbox, as
//! the JSON-Schema-Test-Suite reads it).

use std::net::{Ipv4Addr, Ipv6Addr};

/// Whether `text` is of `format`; a format not known here is not checked.
pub fn fits(format: &str, text: &str) -> bool {
    match format {
        "date" => date(text),
        "date-time" => date_time(text),
        "uri" => uri(text),
        "email" => email(text),
        _ => true,
    }
}

/// `n` ASCII digits, as a number.
fn number(text: &str, n: usize) -> Option<u32> {
    (text.len() == n && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// RFC 3339's `full-date`: `YYYY-MM-DD`, a day the month has.
fn date(text: &str) -> bool {
    let (Some(year), Some(month), Some(day)) = (
        text.get(0..4).and_then(|t| number(t, 4)),
        text.get(5..7).and_then(|t| number(t, 2)),
        text.get(8..).and_then(|t| number(t, 2)),
    ) else {
        return false;
    };
    let dashes = text.as_bytes()[4] == b'-' && text.as_bytes()[7] == b'-';
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => 0,
    };
    dashes && (1..=days).contains(&day)
}

/// RFC 3339's `date-time`: a date, `T`, a time with seconds (and perhaps a fraction), and an
/// offset (`Z` or `±HH:MM`). Second 60 is a leap second: only at 23:59 UTC.
fn date_time(text: &str) -> bool {
    let Some((day, time)) = text.split_once(['T', 't']) else {
        return false;
    };
    let split = time.find(['Z', 'z', '+', '-']).unwrap_or(time.len());
    let (clock, offset) = time.split_at(split);
    let (Some(hour), Some(minute), Some(second)) = (
        clock.get(0..2).and_then(|t| number(t, 2)),
        clock.get(3..5).and_then(|t| number(t, 2)),
        clock.get(6..8).and_then(|t| number(t, 2)),
    ) else {
        return false;
    };
    let colons = clock.as_bytes()[2] == b':' && clock.as_bytes()[5] == b':';
    let fraction = match &clock[8..] {
        "" => true,
        more => {
            more.starts_with('.') && more.len() > 1 && more[1..].bytes().all(|b| b.is_ascii_digit())
        }
    };
    let Some(shift) = offset_minutes(offset) else {
        return false;
    };
    let utc = (i64::from(hour * 60 + minute) - shift).rem_euclid(24 * 60);
    let second_ok = second <= 59 || (second == 60 && utc == 23 * 60 + 59);
    date(day) && colons && fraction && hour <= 23 && minute <= 59 && second_ok
}

/// The minutes an offset (`Z`, `+01:00`, `-08:00`) is ahead of UTC.
fn offset_minutes(offset: &str) -> Option<i64> {
    if offset == "Z" || offset == "z" {
        return Some(0);
    }
    let sign = match offset.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let hours = number(offset.get(1..3)?, 2)?;
    let minutes = number(offset.get(4..)?, 2)?;
    (offset.as_bytes()[3] == b':' && hours <= 23 && minutes <= 59)
        .then_some(sign * i64::from(hours * 60 + minutes))
}

fn unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~".contains(c)
}

fn sub_delim(c: char) -> bool {
    "!$&'()*+,;=".contains(c)
}

/// Whether every character of `text` is `allowed` or part of a `%XX` escape.
fn encoded(text: &str, allowed: impl Fn(char) -> bool) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3);
            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                return false;
            }
            i += 3;
        } else if allowed(char::from(bytes[i])) && bytes[i].is_ascii() {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// RFC 3986's `URI`: `scheme ":" hier-part [ "?" query ] [ "#" fragment ]`.
fn uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    let scheme_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (hier, query) = rest.split_once('?').unwrap_or((rest, ""));
    let pchar = |c: char| unreserved(c) || sub_delim(c) || ":@".contains(c);
    let tail = |c: char| pchar(c) || "/?".contains(c);
    let path_ok = |path: &str| encoded(path, |c| pchar(c) || c == '/');
    let hier_ok = match hier.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            authority(&after[..end]) && path_ok(&after[end..])
        }
        None => path_ok(hier),
    };
    scheme_ok && hier_ok && encoded(query, tail) && encoded(fragment, tail)
}

/// `[ userinfo "@" ] host [ ":" port ]`.
fn authority(text: &str) -> bool {
    let (userinfo, host_port) = match text.rsplit_once('@') {
        Some((user, rest)) => (user, rest),
        None => ("", text),
    };
    let user_ok = encoded(userinfo, |c| unreserved(c) || sub_delim(c) || c == ':');
    let (host, port) = match host_port.strip_prefix('[') {
        Some(literal) => match literal.split_once(']') {
            Some((inside, after)) if ip_literal(inside) => ("", after),
            _ => return false,
        },
        None => host_port.split_at(host_port.find(':').unwrap_or(host_port.len())),
    };
    let port_ok = match port.strip_prefix(':') {
        Some(digits) => digits.bytes().all(|b| b.is_ascii_digit()),
        None => port.is_empty(),
    };
    user_ok && encoded(host, |c| unreserved(c) || sub_delim(c)) && port_ok
}

/// Inside `[` `]`: an IPv6 address or `vX.…` (IPvFuture).
fn ip_literal(inside: &str) -> bool {
    if let Some(future) = inside.strip_prefix(['v', 'V']) {
        return future.split_once('.').is_some_and(|(version, rest)| {
            !version.is_empty()
                && version.bytes().all(|b| b.is_ascii_hexdigit())
                && !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| unreserved(c) || sub_delim(c) || c == ':')
        });
    }
    inside.parse::<Ipv6Addr>().is_ok()
}

/// RFC 5321's `Mailbox`: a dot-atom or quoted local part, `@`, and a domain of letter, digit
/// and hyphen labels or an address literal (`[127.0.0.1]`, `[IPv6:::1]`).
fn email(text: &str) -> bool {
    let (local_ok, domain) = match text.strip_prefix('"') {
        Some(quoted) => match quoted_end(quoted) {
            Some(end) => (true, quoted[end..].strip_prefix('@')),
            None => (false, None),
        },
        None => match text.split_once('@') {
            Some((local, domain)) => (dot_atom(local), Some(domain)),
            None => (false, None),
        },
    };
    local_ok && domain.is_some_and(email_domain)
}

/// Where a quoted string ends (just after its closing `"`), `\` escaping the next character.
fn quoted_end(text: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i + 1),
            c if c.is_control() => return None,
            _ => {}
        }
    }
    None
}

/// Atoms of `atext` joined by single dots.
fn dot_atom(text: &str) -> bool {
    let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c);
    text.split('.')
        .all(|atom| !atom.is_empty() && atom.chars().all(atext))
}

fn email_domain(domain: &str) -> bool {
    if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        return match literal.strip_prefix("IPv6:") {
            Some(v6) => v6.parse::<Ipv6Addr>().is_ok(),
            None => literal.parse::<Ipv4Addr>().is_ok(),
        };
    }
    domain.split('.').all(|label| {
        !label.is_empty()
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

#[cfg(test)]
mod tests {
    use super::fits;

    #[test]
    fn formats_are_checked_as_their_standards_say() {
        let cases = [
            ("date", "2024-02-29", true),
            ("date", "2020-02-30", false),
            ("date", "2023-02-29", false),
            ("date", "2024-13-01", false),
            ("date-time", "2026-11-24T09:30:00Z", true),
            ("date-time", "2026-11-24T09:30:00.5+01:00", true),
            ("date-time", "2026-11-24T25:00:00Z", false),
            ("date-time", "2026-11-24T09:30:61Z", false),
            ("date-time", "1998-12-31T23:59:60Z", true),
            ("date-time", "1998-12-31T15:59:60-08:00", true),
            ("date-time", "1998-12-31T22:59:60Z", false),
            ("date-time", "2026-11-24T09:30:00", false),
            ("uri", "https://example.com/a?b=c#d", true),
            ("uri", "mailto:me@example.com", true),
            ("uri", "ldap://[2001:db8::7]/c=GB", true),
            ("uri", "/relative/path", false),
            ("uri", "http://example.com/%6G", false),
            ("uri", "http://example.com:port/", false),
            ("uri", "https://example.org/foo bar", false),
            ("email", "m@example.com", true),
            ("email", "\"joe bloggs\"@example.com", true),
            ("email", "joe@[IPv6:::1]", true),
            ("email", "te..st@example.com", false),
            ("email", "joe@invalid=domain.com", false),
            ("email", "nobody", false),
        ];
        for (format, text, expected) in cases {
            assert_eq!(fits(format, text), expected, "{format} {text:?}");
        }
    }
}
