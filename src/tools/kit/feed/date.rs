//! Feed dates read for sorting: RFC 3339 (Atom) and RFC 822 (RSS), as seconds since 1970.

/// A feed date in seconds since 1970: RFC 3339 (Atom: `2019-07-10T11:53:37Z`, a fraction and
/// an offset allowed, or a bare date) or RFC 822 (RSS: `Tue, 17 Oct 2017 22:17:00 +0000`).
pub(crate) fn timestamp(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.len() >= 10 && text.as_bytes()[4] == b'-' {
        rfc3339(text)
    } else {
        rfc822(text)
    }
}

fn rfc3339(text: &str) -> Option<i64> {
    let number = |range: std::ops::Range<usize>| text.get(range)?.parse::<u32>().ok();
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let days = crate::clock::days_from_civil(i64::from(year), month, day);
    let Some(time) = text.get(11..).filter(|t| !t.is_empty()) else {
        return Some(days * 86_400);
    };
    let (hour, minute) = (number(11..13)?, number(14..16)?);
    let second = number(17..19).unwrap_or(0);
    let zone = time
        .find(['Z', 'z', '+', '-'])
        .map_or("Z", |at| &time[at..]);
    let clock = i64::from(hour * 3600 + minute * 60 + second);
    Some(days * 86_400 + clock - zone_offset(zone)?)
}

fn rfc822(text: &str) -> Option<i64> {
    let text = text.split_once(',').map_or(text, |(_, rest)| rest);
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [day, month, year, time, rest @ ..] = parts.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let month = month.get(..3)?.to_ascii_lowercase();
    let month = MONTHS.iter().position(|m| *m == month)? as u32 + 1;
    let year: i64 = year.parse().ok()?;
    let year = match year {
        0..=49 => 2000 + year,
        50..=99 => 1900 + year,
        _ => year,
    };
    let mut clock = time.split(':').map(|p| p.parse::<i64>().ok());
    let (hour, minute) = (clock.next()??, clock.next()??);
    let second = clock.next().flatten().unwrap_or(0);
    let days = crate::clock::days_from_civil(year, month, day.parse().ok()?);
    let offset = zone_offset(rest.first().copied().unwrap_or("Z")).unwrap_or(0);
    Some(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

/// A zone's offset from UTC in seconds: `Z`, `+02:00`, `-0500`, or a name RFC 822 allows.
fn zone_offset(zone: &str) -> Option<i64> {
    let named = match zone.to_ascii_uppercase().as_str() {
        "Z" | "UT" | "UTC" | "GMT" => Some(0),
        "EST" | "CDT" => Some(-5),
        "EDT" => Some(-4),
        "CST" | "MDT" => Some(-6),
        "MST" | "PDT" => Some(-7),
        "PST" => Some(-8),
        _ => None,
    };
    if let Some(hours) = named {
        return Some(hours * 3600);
    }
    let sign = match zone.get(..1)? {
        "+" => 1,
        "-" => -1,
        _ => return None,
    };
    let digits: String = zone[1..].chars().filter(char::is_ascii_digit).collect();
    let hours: i64 = digits.get(..2)?.parse().ok()?;
    let minutes: i64 = digits.get(2..4).and_then(|m| m.parse().ok()).unwrap_or(0);
    Some(sign * (hours * 3600 + minutes * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_both_formats() {
        let day = |y, m, d| crate::clock::days_from_civil(y, m, d) * 86_400;
        let cases: &[(&str, Option<i64>)] = &[
            ("2019-07-10T11:53:37Z", Some(day(2019, 7, 10) + 42_817)),
            ("2019-07-10T13:53:37+02:00", Some(day(2019, 7, 10) + 42_817)),
            ("2019-07-10T11:53:37.250Z", Some(day(2019, 7, 10) + 42_817)),
            ("2019-07-10", Some(day(2019, 7, 10))),
            (
                "Tue, 17 Oct 2017 22:17:00 +0000",
                Some(day(2017, 10, 17) + 80_220),
            ),
            (
                "Tue, 17 Oct 2017 18:17:00 EDT",
                Some(day(2017, 10, 17) + 80_220),
            ),
            ("17 Oct 17 22:17 GMT", Some(day(2017, 10, 17) + 80_220)),
            (
                "Wed, 18 Oct 2017 00:17:00 +0200",
                Some(day(2017, 10, 17) + 80_220),
            ),
            ("yesterday", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(timestamp(text), *expected, "{text}");
        }
    }
}
