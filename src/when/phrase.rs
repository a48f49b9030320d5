//! Reading a moment from what people write: ISO date-times, moves from now ("in 3 days"),
//! and a day and a time of day in either order ("tomorrow at 9", "next friday 3pm",
//! "December 5 10:00", "5 dec", "friday at noon", "13:30").
//!
//! What the words mean, seen from today:
//! - a time alone is the next one to come (today if it is still to come, else tomorrow);
//! - "friday" and "next friday" are the first Friday after today (today excluded), as GNU
//!   date reads them; "this friday" is today when today is a Friday, else the coming one;
//!   "last friday" is the latest Friday before today;
//! - a month and day without a year ("December 5", "5 dec") is the next one to come, today
//!   included;
//! - a named day without a time is its midnight; a move ("tomorrow", "in 3 days", "next
//!   week") keeps the time of day of now, as dateparser does;
//! - a time with a move ("1 day ago at 2 pm", "tomorrow at 9") is that time on the day the
//!   move reaches; "at 9" is 09:00.

use super::span::{self, Span};
use super::words::{day_of_month, month, number, time_of_day, valid_date, weekday};
use super::{from_civil, iso, local};

const FORMS: &str = "give a time such as \"07:30\", \"tomorrow at 9\", \"next friday 3pm\", \"December 5 10:00\", \"in 20 minutes\", \"in 3 days\" or \"2026-12-24T18:00:00+01:00\"";

/// The unix time `text` names, seen from `now`.
pub(crate) fn parse(text: &str, now: i64) -> Result<i64, String> {
    let lower = normalise(text);
    let bad = || format!("'{}' is not a time I can read: {FORMS}.", text.trim());
    if let Some(at) = iso::date_time(&lower) {
        return at.ok_or_else(bad);
    }
    let words: Vec<&str> = lower
        .split_whitespace()
        .filter(|w| !matches!(*w, "the" | "on" | "by" | "of"))
        .collect();
    read(&words, now).ok_or_else(bad)
}

/// Lower case; apostrophes gone ("three weeks' time"); a comma between digits a decimal
/// point ("0,5 hours"), any other a space; "a.m." and "p.m." as "am" and "pm".
fn normalise(text: &str) -> String {
    let lower = text
        .trim()
        .to_lowercase()
        .replace("a.m.", "am")
        .replace("p.m.", "pm");
    let chars: Vec<char> = lower.chars().collect();
    let mut out = String::with_capacity(lower.len());
    for (i, &c) in chars.iter().enumerate() {
        let digit_at = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(char::is_ascii_digit)
        };
        match c {
            '\'' | '’' => {}
            ',' if digit_at(i.checked_sub(1)) && digit_at(Some(i + 1)) => out.push('.'),
            ',' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn read(words: &[&str], now: i64) -> Option<i64> {
    if let Some(at) = span::relative(words, now) {
        return Some(at);
    }
    // A move then a time: "1 day ago at 2 pm", "in 2 days at 9".
    if let Some(i) = words.iter().position(|w| *w == "at") {
        if let Some(moved) = span::relative(&words[..i], now) {
            let (clock, used) = clock_at(&words[i..])?;
            return (used == words.len() - i).then(|| from_civil(local(moved).days(), clock));
        }
    }
    day_and_clock(words, now)
}

/// A day as the words name it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Day {
    /// A move from now that keeps the time of day ("tomorrow", "next week").
    Moved(Span),
    /// A date, at midnight unless a time is given.
    Date(i64),
}

/// "tomorrow at 9", "next friday 3pm", "December 5 10:00", "13:30", in either order.
fn day_and_clock(words: &[&str], now: i64) -> Option<i64> {
    let today = local(now).days();
    let (mut day, mut clock) = (None, None);
    let mut rest = words;
    while !rest.is_empty() {
        if let Some((seconds, used)) = clock_at(rest) {
            clock = replace_none(clock, seconds)?;
            rest = &rest[used..];
        } else if let Some((named, used)) = day_words(rest, today) {
            day = replace_none(day, named)?;
            rest = &rest[used..];
        } else {
            return None;
        }
    }
    match (day, clock) {
        (None, None) => None,
        (None, Some(clock)) => Some(next_at(today, clock, now)),
        (Some(Day::Moved(span)), None) => Some(span.after(now)),
        (Some(Day::Moved(span)), Some(clock)) => {
            Some(from_civil(local(span.after(now)).days(), clock))
        }
        (Some(Day::Date(days)), clock) => Some(from_civil(days, clock.unwrap_or(0))),
    }
}

/// `Some(new)` when nothing was there yet: a phrase names one day and one time.
fn replace_none<T>(old: Option<T>, new: T) -> Option<Option<T>> {
    old.is_none().then_some(Some(new))
}

/// Today at `clock` when that is still to come, else tomorrow.
fn next_at(today: i64, clock: i64, now: i64) -> i64 {
    let at = from_civil(today, clock);
    if at > now {
        at
    } else {
        from_civil(today + 1, clock)
    }
}

/// A time of day at the start of `words` and how many words it took: "15:00", "3pm",
/// "3 pm", "noon", "at 9", "at 9:30 pm".
fn clock_at(words: &[&str]) -> Option<(i64, usize)> {
    let (skip, words) = match words {
        ["at", rest @ ..] => (1, rest),
        _ => (0, words),
    };
    let first = *words.first()?;
    if let Some(suffix @ ("am" | "pm")) = words.get(1).copied() {
        return Some((time_of_day(&format!("{first}{suffix}"))?, skip + 2));
    }
    if let Some(seconds) = time_of_day(first) {
        return Some((seconds, skip + 1));
    }
    // "at 9": an hour alone after "at".
    let hour: i64 = number(first, 2).filter(|h| skip == 1 && *h < 24)?;
    Some((hour * 3600, skip + 1))
}

/// A day at the start of `words` and how many words it took.
fn day_words(words: &[&str], today: i64) -> Option<(Day, usize)> {
    let moved = |days| Some((Day::Moved(Span::days(days)), 1));
    match words {
        ["today" | "tonight", ..] => moved(0),
        ["tomorrow", ..] => moved(1),
        ["yesterday", ..] => moved(-1),
        ["day", "after", "tomorrow", ..] => Some((Day::Moved(Span::days(2)), 3)),
        ["day", "before", "yesterday", ..] => Some((Day::Moved(Span::days(-2)), 3)),
        [which @ ("next" | "last" | "this"), name, ..] => {
            if let Some(at) = weekday(name) {
                return Some((Day::Date(weekday_from(which, at, today)), 2));
            }
            Some((Day::Moved(span::named(which, name)?), 2))
        }
        [name, ..] if weekday(name).is_some() => {
            Some((Day::Date(weekday_from("next", weekday(name)?, today)), 1))
        }
        _ => calendar_date(words, today),
    }
}

/// The day of weekday `at` (0 is Monday) that "next", "last" or "this" names.
fn weekday_from(which: &str, at: i64, today: i64) -> i64 {
    let current = crate::clock::weekday(today) as i64;
    match which {
        "last" => today - ((current - at - 1).rem_euclid(7) + 1),
        "this" => today + (at - current).rem_euclid(7),
        _ => today + (at - current - 1).rem_euclid(7) + 1,
    }
}

/// "2026-12-05", "December 5", "dec 5 2026", "5 dec", "5th december 2026": a date without
/// a year is the next one to come.
fn calendar_date(words: &[&str], today: i64) -> Option<(Day, usize)> {
    if let Some(days) = super::words::date(words.first()?) {
        return Some((Day::Date(days), 1));
    }
    let (month, day) = match words {
        [m, d, ..] if month(m).is_some() => (month(m)?, day_of_month(d)?),
        [d, m, ..] if month(m).is_some() => (month(m)?, day_of_month(d)?),
        _ => return None,
    };
    if let Some(year) = words
        .get(2)
        .and_then(|y| number::<i64>(y, 4).filter(|_| y.len() == 4))
    {
        return Some((Day::Date(valid_date(year, month, day)?), 3));
    }
    let this_year = crate::clock::civil_from_days(today).0;
    // The next year with that date (February 29 waits for a leap year).
    let days = (this_year..this_year + 9)
        .filter_map(|year| valid_date(year, month, day))
        .find(|days| *days >= today)?;
    Some((Day::Date(days), 2))
}

/// A day count for a day named alone: "today", "tomorrow", "friday", "next friday",
/// "December 5", "2026-12-24", "next week" (for a range of days to show).
pub(crate) fn named_day(text: &str, today: i64) -> Option<i64> {
    let lower = normalise(text);
    let words: Vec<&str> = lower
        .split_whitespace()
        .filter(|w| !matches!(*w, "the" | "on" | "of"))
        .collect();
    match day_words(&words, today)? {
        (day, used) if used == words.len() => Some(match day {
            Day::Date(days) => days,
            Day::Moved(span) => local(span.after(from_civil(today, 12 * 3600))).days(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::from_local;
    use super::super::words::date;
    use super::*;

    /// These run in the process's zone, comparing local with local.
    #[test]
    fn everyday_phrases_are_read() {
        // Friday 15 January 2027, 12:00.
        let today = date("2027-01-15").unwrap();
        let now = from_local(today, 12, 0);
        let at = |days: i64, h: u32, m: u32| Some(from_local(today + days, h, m));
        let cases: &[(&str, Option<i64>)] = &[
            ("13:30", at(0, 13, 30)),
            ("07:30", at(1, 7, 30)),
            ("at 7pm", at(0, 19, 0)),
            ("7:05 am", at(1, 7, 5)),
            ("tomorrow 7:30", at(1, 7, 30)),
            ("Tomorrow at 07:30", at(1, 7, 30)),
            ("tomorrow at 9", at(1, 9, 0)),
            ("today 17:30", at(0, 17, 30)),
            ("next friday 3pm", at(7, 15, 0)),
            ("friday at noon", at(7, 12, 0)),
            ("this friday 3 pm", at(0, 15, 0)),
            ("last friday", at(-7, 0, 0)),
            ("monday", at(3, 0, 0)),
            (
                "December 5 10:00",
                Some(from_local(date("2027-12-05").unwrap(), 10, 0)),
            ),
            (
                "10:00 on 5 dec",
                Some(from_local(date("2027-12-05").unwrap(), 10, 0)),
            ),
            ("jan 15 2027", at(0, 0, 0)),
            ("15 january", at(0, 0, 0)),
            ("5th of february at 9:15pm", at(21, 21, 15)),
            ("2027-01-20 at 8", at(5, 8, 0)),
            ("tomorrow", at(1, 12, 0)),
            ("next week", at(7, 12, 0)),
            ("day after tomorrow 6am", at(2, 6, 0)),
            ("1 day ago at 2 PM", at(-1, 14, 0)),
            ("in 3 days", at(3, 12, 0)),
            ("in 2 days at 9", at(2, 9, 0)),
            ("in 2 hours", Some(now + 7200)),
            ("2027-01-15 07:30", at(0, 7, 30)),
            ("2027-01-15 07:30:45", Some(from_local(today, 7, 30) + 45)),
            ("25:00", None),
            ("at 25", None),
            ("9", None),
            ("tomorrow friday", None),
            ("13:00 14:00", None),
            ("february 30", None),
            ("2027-02-30 07:00", None),
            ("soonish", None),
            ("13pm", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text, now).ok(), *expected, "{text}");
        }
        assert!(parse("soonish", now).unwrap_err().contains("tomorrow at 9"));
    }

    #[test]
    fn named_days_are_the_ones_the_module_says() {
        let friday = date("2027-01-15").unwrap();
        assert_eq!(named_day("friday", friday), Some(friday + 7));
        assert_eq!(named_day("next friday", friday), Some(friday + 7));
        assert_eq!(named_day("this friday", friday), Some(friday));
        assert_eq!(named_day("mon", friday), Some(friday + 3));
        assert_eq!(named_day("last mon", friday), Some(friday - 4));
        assert_eq!(named_day("sat", friday), Some(friday + 1));
        assert_eq!(named_day("2027-01-20", friday), Some(friday + 5));
        assert_eq!(named_day("Jan 10", friday), date("2028-01-10"));
        assert_eq!(named_day("next week", friday), Some(friday + 7));
        assert_eq!(named_day("fr", friday), None);
    }
}
