//! Feed dates read for sorting, as feedparser reads them: W3C-DTF (RFC 3339, Atom), RFC 822
//! (RSS) and the variants feeds write (asctime, Perforce's `yyyy/mm/dd`, MSSQL's spaces), as
//! seconds since 1970. An impossible date or an unknown zone name is no date, not a wrong one.

use crate::clock::{civil_from_days, days_from_civil};

/// A feed date in seconds since 1970: `2019-07-10T11:53:37Z` (a fraction, an offset, or less
/// than a whole date allowed), `Tue, 17 Oct 2017 22:17:00 +0000` and their variants.
pub(crate) fn timestamp(text: &str) -> Option<i64> {
    let text = text.trim().to_ascii_lowercase();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 4 && matches!(text.as_bytes().get(4), None | Some(b'-')) {
        w3dtf(&text)
    } else {
        rfc822(&text)
    }
}

/// `yyyy[-mm[-dd]]`, then `T` or a space and `hh:mm[:ss[.fff]]`, then a zone.
fn w3dtf(text: &str) -> Option<i64> {
    let (date, rest) = match text.split_once('t') {
        Some((_, rest)) if rest.contains('t') => return None,
        Some((date, rest)) => (date, rest),
        None => text.split_once(' ').unwrap_or((text, "")),
    };
    let mut parts = date.trim().splitn(3, '-');
    let year = number(parts.next()?)?;
    let month = parts.next().map_or(Some(1), number)?;
    let day = parts.next().map_or(Some(1), number)?;
    let rest = rest.trim();
    let (time, zone) = match rest.find(['+', '-']) {
        Some(at) => (&rest[..at], &rest[at..]),
        None => match rest.strip_suffix('z') {
            Some(time) => (time, "z"),
            None => (rest, ""),
        },
    };
    let [hour, minute, second] = clock(time.trim())?;
    let local = seconds(year, month, day, hour, minute, second)?;
    within_years(local - zone_offset(zone.trim())?)
}

/// `[Day,] dd Mon yyyy [hh:mm[:ss] [zone]]`, the day and month either way round, and two
/// layouts that reorder it: asctime (`Sun Jan  4 16:29:06 [+0000] 2004`) and Perforce
/// (`Fri, 2006/09/15 08:19:53 EDT`).
fn rfc822(text: &str) -> Option<i64> {
    let mut words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    const DAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
    if words
        .first()
        .is_some_and(|w| DAYS.contains(&w.get(..3).unwrap_or(*w)))
    {
        words.remove(0);
    }
    let (year, month, day, time, zone) = match words.as_slice() {
        [ymd, time, rest @ ..] if ymd.contains('/') => {
            let mut ymd = ymd.split('/').map(number);
            let (year, month, day) = (ymd.next()??, ymd.next()??, ymd.next()??);
            (year, month, day, *time, rest.first().copied())
        }
        [m, d, time, rest @ ..] if time.contains(':') => {
            let (zone, year) = match rest {
                [zone, year] => (Some(*zone), year),
                [year] => (None, year),
                _ => return None,
            };
            (year_of(year)?, month_of(m)?, number(d)?, *time, zone)
        }
        [a, b, year, rest @ ..] => {
            let (month, day) = match month_of(b) {
                Some(month) => (month, number(a)?),
                None => (month_of(a)?, number(b)?),
            };
            (
                year_of(year)?,
                month,
                day,
                rest.first().copied().unwrap_or(""),
                rest.get(1).copied(),
            )
        }
        _ => return None,
    };
    let [hour, minute, second] = clock(time)?;
    let local = seconds(year, month, day, hour, minute, second)?;
    within_years(local - zone_offset(zone.unwrap_or(""))?)
}

fn number(text: &str) -> Option<u32> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// A year, two digits read as feedparser reads them (90-99 the 1990s, the rest this century).
fn year_of(text: &str) -> Option<u32> {
    let year = number(text)?;
    Some(match (text.len(), year) {
        (3.., _) => year,
        (_, 90..) => 1900 + year,
        _ => 2000 + year,
    })
}

/// A month by its English name or the name's first three letters.
fn month_of(text: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let start = text.get(..3)?;
    let at = MONTHS.iter().position(|m| *m == start)?;
    text.bytes()
        .all(|b| b.is_ascii_alphabetic())
        .then_some(at as u32 + 1)
}

/// `hh:mm[:ss[.fff]]` (nothing is midnight) as its three numbers.
fn clock(text: &str) -> Option<[u32; 3]> {
    if text.is_empty() {
        return Some([0; 3]);
    }
    let mut out = [0; 3];
    for (n, part) in text.split(':').enumerate() {
        let whole = if n == 2 {
            part.split_once('.').map_or(part, |(whole, _)| whole)
        } else {
            part
        };
        *out.get_mut(n)? = number(whole)?;
    }
    Some(out)
}

/// Seconds since 1970 of a date and time that exist (no 31 April, no 25 o'clock).
fn seconds(year: u32, month: u32, day: u32, hour: u32, minute: u32, second: u32) -> Option<i64> {
    let days = days_from_civil(i64::from(year), month, day);
    let real = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && civil_from_days(days) == (i64::from(year), month, day)
        && hour < 24
        && minute < 60
        && second < 60;
    real.then(|| days * 86_400 + i64::from(hour * 3600 + minute * 60 + second))
}

/// The instant, when it falls in years 1 to 9999 (what a date can be written in).
fn within_years(seconds: i64) -> Option<i64> {
    let (year, _, _) = civil_from_days(seconds.div_euclid(86_400));
    (1..=9999).contains(&year).then_some(seconds)
}

/// A zone's offset from UTC in seconds: none (UTC), `z`, `+02:00`, `-0500`, `gmt+1`,
/// `etc/gmt`, a military letter, or a name in [`ZONES`]; `None` for a name it does not know.
fn zone_offset(zone: &str) -> Option<i64> {
    let zone = zone.strip_prefix("etc/").unwrap_or(zone);
    let zone = match zone
        .strip_prefix("gmt")
        .or_else(|| zone.strip_prefix("utc"))
    {
        Some("") => "",
        Some(offset) => offset,
        None => zone,
    };
    let sign = match zone.as_bytes() {
        [] => return Some(0),
        [b'+', ..] => 1,
        [b'-', ..] => -1,
        [letter] => return military(*letter).map(|hours| hours * 3600),
        _ => {
            let mut words = ZONES.split_whitespace();
            while let (Some(name), Some(minutes)) = (words.next(), words.next()) {
                if name == zone {
                    return minutes.parse::<i64>().ok().map(|m| m * 60);
                }
            }
            return None;
        }
    };
    let digits = zone[1..].replacen(':', "", 1);
    let (hours, minutes) = digits.split_at(digits.len().min(2));
    let hours = number(hours).filter(|h| *h < 24)?;
    let minutes = if minutes.is_empty() {
        Some(0)
    } else {
        number(minutes)
    };
    let minutes = minutes.filter(|m| *m < 60)?;
    Some(sign * i64::from(hours * 3600 + minutes * 60))
}

/// RFC 822's military zones in hours, with the signs RFC 822 gives them (as feedparser reads
/// them): `a`-`i` and `k`-`m` west, `n`-`y` east, `z` UTC; `j` is none.
fn military(letter: u8) -> Option<i64> {
    let at = i64::from(letter) - i64::from(b'a');
    match letter {
        b'a'..=b'i' => Some(-(at + 1)),
        b'k'..=b'm' => Some(-at),
        b'n'..=b'y' => Some(at - 12),
        b'z' => Some(0),
        _ => None,
    }
}

/// Zone names and their offsets in minutes: RFC 822's, feedparser's others, and the
/// abbreviations feeds commonly write that name one offset.
const ZONES: &str = "
    ut 0 utc 0 gmt 0 wet 0 west 60 bst 60 met 60 mest 120 cet 60 cest 120 eet 120 eest 180
    est -300 edt -240 et -300 cst -360 cdt -300 ct -360 mst -420 mdt -360 mt -420
    pst -480 pdt -420 pt -480 ast -240 adt -180 at -240 nst -210 ndt -150
    akst -540 akdt -480 hst -600 msk 180 jst 540 kst 540 hkt 480 sgt 480
    awst 480 acst 570 aest 600 aedt 660 nzst 720 nzdt 780";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_both_formats() {
        let day = |y, m, d| days_from_civil(y, m, d) * 86_400;
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
            (
                "Wed, 18 Oct 2017 07:17:00 JST",
                Some(day(2017, 10, 17) + 80_220),
            ),
            // A zone name nobody knows is no date rather than a guess at UTC.
            ("Tue, 17 Oct 2017 22:17:00 XYZT", None),
            ("Tue, 31 Apr 2017 22:17:00 GMT", None),
            ("Tue, 29 Feb 2017 22:17:00 GMT", None),
            ("2017-10-17T24:00:00Z", None),
            ("17 Oct 2017 21:17 A", Some(day(2017, 10, 17) + 80_220)),
            ("18 Oct 2017 10:17 Y", Some(day(2017, 10, 17) + 80_220)),
            ("17 Oct 2017 22:17 J", None),
            ("yesterday", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(timestamp(text), *expected, "{text}");
        }
    }
}
