//! The words and numbers a time is made of: times of day ("07:30", "3pm", "noon"), weekday
//! and month names, counts written as words, and `YYYY-MM-DD` dates.

use crate::clock::{civil_from_days, days_from_civil};

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];
const MONTH_NAMES: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const COUNTS: [&str; 13] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];

/// Digits only, at most `max_len` of them.
pub(super) fn number<T: std::str::FromStr>(text: &str, max_len: usize) -> Option<T> {
    (!text.is_empty() && text.len() <= max_len && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())?
}

/// A count: digits, a decimal ("2.5"), "a"/"an", or a word from "one" to "twelve".
pub(super) fn count(text: &str) -> Option<f64> {
    match text {
        "a" | "an" => return Some(1.0),
        _ => {}
    }
    if let Some(n) = COUNTS.iter().position(|w| *w == text) {
        return Some(n as f64);
    }
    let (whole, fraction) = text.split_once('.').unwrap_or((text, "0"));
    number::<u64>(whole, 9)?;
    number::<u64>(fraction, 6)?;
    text.parse().ok()
}

/// The weekday `word` names (0 is Monday): the whole name or its first three letters or more.
pub(super) fn weekday(word: &str) -> Option<i64> {
    let word = word.trim_end_matches('.');
    WEEKDAYS
        .iter()
        .position(|d| word.len() >= 3 && d.starts_with(word))
        .map(|i| i as i64)
}

/// The month (1 to 12) `word` names: the whole name or its first three letters or more.
pub(super) fn month(word: &str) -> Option<u32> {
    let word = word.trim_end_matches('.');
    let word = if word == "sept" { "sep" } else { word };
    MONTH_NAMES
        .iter()
        .position(|m| word.len() >= 3 && m.starts_with(word))
        .map(|i| i as u32 + 1)
}

/// A day of the month: "5", "05", "5th", "1st", "22nd", "3rd".
pub(super) fn day_of_month(word: &str) -> Option<u32> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| word.strip_suffix(s))
        .unwrap_or(word);
    number::<u32>(digits, 2).filter(|d| (1..=31).contains(d))
}

/// Seconds after midnight of `HH:MM`, `H:MM:SS`, `7am`, `7:30pm`, "noon", "midnight".
pub(super) fn time_of_day(text: &str) -> Option<i64> {
    match text {
        "noon" | "midday" => return Some(12 * 3600),
        "midnight" => return Some(0),
        _ => {}
    }
    let (text, shift) = match (text.strip_suffix("am"), text.strip_suffix("pm")) {
        (Some(t), _) => (t, Some(0)),
        (_, Some(t)) => (t, Some(12)),
        _ => (text, None),
    };
    let mut parts = text.split(':');
    let hour: u32 = number(parts.next()?, 2)?;
    let minute: u32 = match parts.next() {
        Some(m) => number(m, 2).filter(|_| m.len() == 2)?,
        None if shift.is_some() => 0,
        None => return None,
    };
    let second: u32 = match parts.next() {
        Some(s) => number(s, 2).filter(|_| s.len() == 2)?,
        None => 0,
    };
    if parts.next().is_some() || minute > 59 || second > 59 {
        return None;
    }
    let hour = match shift {
        Some(shift) if (1..=12).contains(&hour) => hour % 12 + shift,
        Some(_) => return None,
        None if hour < 24 => hour,
        None => return None,
    };
    Some(i64::from(hour * 3600 + minute * 60 + second))
}

/// Days of a `YYYY-MM-DD` date.
pub(crate) fn date(text: &str) -> Option<i64> {
    let mut parts = text.splitn(3, '-');
    let year: i64 = number(parts.next()?, 4).filter(|_| text.len() == 10)?;
    let month: u32 = number(parts.next()?, 2)?;
    let day: u32 = number(parts.next()?, 2)?;
    valid_date(year, month, day)
}

/// Days of a calendar date, when there is such a date.
pub(super) fn valid_date(year: i64, month: u32, day: u32) -> Option<i64> {
    let days = days_from_civil(year, month, day);
    (civil_from_days(days) == (year, month, day)).then_some(days)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_of_day_keep_their_seconds_and_refuse_what_is_not_one() {
        let cases: &[(&str, Option<i64>)] = &[
            ("07:30", Some(27_000)),
            ("7:30:15", Some(27_015)),
            ("7pm", Some(68_400)),
            ("12am", Some(0)),
            ("12:30pm", Some(45_000)),
            ("noon", Some(43_200)),
            ("24:00", None),
            ("7:5", None),
            ("13pm", None),
            ("7", None),
            ("07:60", None),
        ];
        for (text, expected) in cases {
            assert_eq!(time_of_day(text), *expected, "{text}");
        }
    }

    #[test]
    fn names_and_counts_are_read() {
        assert_eq!(weekday("fri"), Some(4));
        assert_eq!(weekday("fr"), None);
        assert_eq!(month("dec"), Some(12));
        assert_eq!(month("sept"), Some(9));
        assert_eq!(month("ma"), None);
        assert_eq!(day_of_month("22nd"), Some(22));
        assert_eq!(day_of_month("32"), None);
        assert_eq!(count("2.5"), Some(2.5));
        assert_eq!(count("nine"), Some(9.0));
        assert_eq!(count("an"), Some(1.0));
        assert_eq!(count("1e5"), None);
        assert_eq!(date("2027-02-30"), None);
        assert_eq!(date("2027-2-3"), None);
    }
}
