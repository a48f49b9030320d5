//! ISO 8601 / RFC 3339 date-times: `2026-12-24T18:00:05.5+01:00`, `2026-12-24 18:00`,
//! offsets `Z`, `+05`, `+0530` and `+05:30` (hours to 23, minutes to 59); without an offset
//! the time is on the local wall clock.

use super::words::{date, number};

/// The unix time of an ISO date-time: `Some(None)` when `text` starts as one (a
/// `YYYY-MM-DD` date, then `T` or a space and a digit) but is not valid.
pub(super) fn date_time(text: &str) -> Option<Option<i64>> {
    let (day, rest) = (text.get(..10)?, text.get(10..)?);
    let rest = rest.strip_prefix(['t', ' '])?.trim_start();
    if !rest.starts_with(|c: char| c.is_ascii_digit()) || !looks_like_date(day) {
        return None;
    }
    Some(date(day).and_then(|days| time(days, rest)))
}

fn looks_like_date(text: &str) -> bool {
    text.bytes().enumerate().all(|(i, b)| {
        if i == 4 || i == 7 {
            b == b'-'
        } else {
            b.is_ascii_digit()
        }
    })
}

/// The moment of a time of day (and offset) on day `days`.
fn time(days: i64, text: &str) -> Option<i64> {
    let (clock, offset) = match text.find(['z', '+', '-']) {
        Some(at) => (text[..at].trim_end(), Some(&text[at..])),
        None => (text, None),
    };
    let seconds = clock_seconds(clock)?;
    match offset {
        None => Some(super::from_civil(days, seconds)),
        Some(offset) => Some(days * 86_400 + seconds - offset_seconds(offset)?),
    }
}

/// `HH:MM`, `HH:MM:SS`, `HH:MM:SS.fraction` (the fraction dropped). A leap second (`:60`,
/// which RFC 3339 allows) is read as the second before it: Unix time has none.
fn clock_seconds(text: &str) -> Option<i64> {
    let two = |text: &str| number::<i64>(text, 2).filter(|_| text.len() == 2);
    let mut parts = text.split(':');
    let hour = two(parts.next()?)?;
    let minute = two(parts.next()?)?;
    let second = match parts.next() {
        Some(s) => {
            let (whole, fraction) = s.split_once('.').unwrap_or((s, "0"));
            number::<u64>(fraction, 9)?;
            two(whole)?
        }
        None => 0,
    };
    let fits = parts.next().is_none() && hour < 24 && minute < 60 && second <= 60;
    fits.then_some(hour * 3600 + minute * 60 + second.min(59))
}

/// Seconds east of UTC of `z`, `+05`, `-0530`, `+05:30`.
fn offset_seconds(text: &str) -> Option<i64> {
    if text == "z" {
        return Some(0);
    }
    let sign = if text.starts_with('-') { -1 } else { 1 };
    let digits = &text[1..];
    let (hours, minutes) = match (digits.len(), digits.split_once(':')) {
        (2, None) => (digits, "00"),
        (4, None) => digits.split_at(2),
        (5, Some((h, m))) => (h, m),
        _ => return None,
    };
    let (hours, minutes): (i64, i64) = (number(hours, 2)?, number(minutes, 2)?);
    (hours <= 23 && minutes <= 59).then_some(sign * (hours * 3600 + minutes * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_rfc_3339_and_iso_8601() {
        let noon = 1_800_000_000 - 1_800_000_000 % 86_400 + 43_200;
        let cases: &[(&str, Option<i64>)] = &[
            ("2027-01-15t12:00:00z", Some(noon)),
            ("2027-01-15t12:00:07z", Some(noon + 7)),
            ("2027-01-15t12:00:07.25z", Some(noon + 7)),
            ("2027-01-15 17:00+05", Some(noon)),
            ("2027-01-15 17:30+0530", Some(noon)),
            ("2027-01-15 17:30 +05:30", Some(noon)),
            ("2027-01-15 07:00-05:00", Some(noon)),
            ("2027-01-15t11:59:60z", Some(noon - 1)),
            ("2027-01-15 12:00+25:00", None),
            ("2027-01-15 12:00+05:60", None),
            ("2027-01-15 12:00+5", None),
            ("2027-01-15 12:00+05:3", None),
            ("2027-01-15 24:00z", None),
            ("2027-01-15 12:0z", None),
            ("2027-01-15 1:00z", None),
            ("2027-02-30 12:00z", None),
        ];
        for (text, expected) in cases {
            assert_eq!(date_time(text), Some(*expected), "{text}");
        }
        assert_eq!(date_time("2027-01-15"), None);
        assert_eq!(date_time("2027-01-15 at 12:00"), None);
    }
}
