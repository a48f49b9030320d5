//! Moments as people give them ("07:30", "tomorrow 7:30", "friday 15:00", "in 20 minutes", an
//! ISO date-time with or without an offset), read in the machine's local time zone (the C
//! library's: TZ, else /etc/localtime), and moments shown back the same way.

use crate::clock::{civil_from_days, days_from_civil};

const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
pub(crate) const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// A moment on the local wall clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Local {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    /// 0 is Monday.
    pub weekday: u32,
}

impl Local {
    /// Days since 1970-01-01 of its date.
    pub(crate) fn days(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day)
    }
}

/// The local wall clock at unix time `at`.
pub(crate) fn local(at: i64) -> Local {
    // SAFETY: localtime_r fills the zeroed `tm` we own from a time_t we own; it is the
    // thread-safe variant.
    let tm = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        let time: libc::time_t = at as libc::time_t;
        libc::localtime_r(&time, &mut tm);
        tm
    };
    Local {
        year: i64::from(tm.tm_year) + 1900,
        month: (tm.tm_mon + 1) as u32,
        day: tm.tm_mday as u32,
        hour: tm.tm_hour as u32,
        minute: tm.tm_min as u32,
        weekday: ((tm.tm_wday + 6) % 7) as u32,
    }
}

/// The unix time of a local wall-clock moment (the C library settles daylight saving time).
pub(crate) fn from_local(days: i64, hour: u32, minute: u32) -> i64 {
    let (year, month, day) = civil_from_days(days);
    // SAFETY: mktime reads and normalises the `tm` we own.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        tm.tm_year = (year - 1900) as libc::c_int;
        tm.tm_mon = month as libc::c_int - 1;
        tm.tm_mday = day as libc::c_int;
        tm.tm_hour = hour as libc::c_int;
        tm.tm_min = minute as libc::c_int;
        tm.tm_isdst = -1;
        libc::mktime(&mut tm) as i64
    }
}

/// "Tue 24 Nov 2026 07:30" for unix time `at`, local.
pub(crate) fn show(at: i64) -> String {
    let l = local(at);
    format!("{} {:02}:{:02}", show_day(l.days()), l.hour, l.minute)
}

/// "Tue 24 Nov 2026" for a day count.
pub(crate) fn show_day(days: i64) -> String {
    let (year, month, day) = civil_from_days(days);
    let weekday = crate::clock::weekday(days);
    format!(
        "{} {day} {} {year}",
        DAYS[weekday],
        MONTHS[month as usize - 1]
    )
}

const FORMS: &str = "give a time such as \"07:30\", \"tomorrow 7:30\", \"friday 15:00\", \"in 20 minutes\" or \"2026-12-24 18:00\"";

/// The unix time `text` names, seen from `now`; a bare time of day is the next one to come.
pub(crate) fn parse(text: &str, now: i64) -> Result<i64, String> {
    let lower = text.trim().to_lowercase();
    let bad = || format!("'{}' is not a time I can read: {FORMS}.", text.trim());
    if let Some(rest) = lower.strip_prefix("in ") {
        return relative(rest, now).ok_or_else(bad);
    }
    if let Some(at) = iso(&lower) {
        return at.ok_or_else(bad);
    }
    let today = local(now).days();
    let words: Vec<&str> = lower.split_whitespace().filter(|w| *w != "at").collect();
    let (day, clock) = match words.as_slice() {
        [clock] => (None, *clock),
        [clock, suffix @ ("am" | "pm")] => {
            return next_at(today, time_of_day(&format!("{clock}{suffix}")), now).ok_or_else(bad);
        }
        [day, clock] => (Some(named_day(day, today).ok_or_else(bad)?), *clock),
        _ => return Err(bad()),
    };
    let clock = time_of_day(clock);
    match day {
        Some(day) => clock.map(|(h, m)| from_local(day, h, m)).ok_or_else(bad),
        None => next_at(today, clock, now).ok_or_else(bad),
    }
}

/// Today at `clock` when that is still to come, else tomorrow.
fn next_at(today: i64, clock: Option<(u32, u32)>, now: i64) -> Option<i64> {
    let (hour, minute) = clock?;
    let at = from_local(today, hour, minute);
    Some(if at > now {
        at
    } else {
        from_local(today + 1, hour, minute)
    })
}

/// A day count for "today", "tomorrow", a weekday (the next one, today excluded) or a date.
pub(crate) fn named_day(word: &str, today: i64) -> Option<i64> {
    match word {
        "today" => return Some(today),
        "tomorrow" => return Some(today + 1),
        _ => {}
    }
    if let Some(index) = WEEKDAYS
        .iter()
        .position(|d| word.len() >= 3 && d.starts_with(word))
    {
        let current = crate::clock::weekday(today) as i64;
        let ahead = (index as i64 - current - 1).rem_euclid(7) + 1;
        return Some(today + ahead);
    }
    date(word)
}

/// Days of a `YYYY-MM-DD` date.
pub(crate) fn date(text: &str) -> Option<i64> {
    let mut parts = text.splitn(3, '-');
    let year: i64 = number(parts.next()?, 4)?;
    let month: u32 = number(parts.next()?, 2)?;
    let day: u32 = number(parts.next()?, 2)?;
    let days = days_from_civil(year, month, day);
    (civil_from_days(days) == (year, month, day)).then_some(days)
}

fn number<T: std::str::FromStr>(text: &str, max_len: usize) -> Option<T> {
    (!text.is_empty() && text.len() <= max_len && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())?
}

/// `HH:MM`, `H:MM`, `7am`, `7:30pm`.
fn time_of_day(text: &str) -> Option<(u32, u32)> {
    let (text, shift) = match (text.strip_suffix("am"), text.strip_suffix("pm")) {
        (Some(t), _) => (t, Some(0)),
        (_, Some(t)) => (t, Some(12)),
        _ => (text, None),
    };
    let (hour, minute) = match text.split_once(':') {
        Some((h, m)) => (number::<u32>(h, 2)?, number::<u32>(m, 2)?),
        None if shift.is_some() => (number::<u32>(text, 2)?, 0),
        None => return None,
    };
    let hour = match shift {
        Some(shift) if (1..=12).contains(&hour) => hour % 12 + shift,
        Some(_) => return None,
        None => hour,
    };
    (hour < 24 && minute < 60).then_some((hour, minute))
}

/// "20 minutes", "2 hours", "1 day" from `now`.
fn relative(text: &str, now: i64) -> Option<i64> {
    let (count, unit) = text.trim().split_once(' ')?;
    let count: i64 = number(count, 5)?;
    let unit = unit.trim().trim_end_matches('s');
    let seconds = match unit {
        "min" | "minute" => 60,
        "h" | "hour" => 3600,
        "day" => 86_400,
        _ => return None,
    };
    Some(now + count * seconds)
}

/// An ISO date-time: `Some(None)` when it looks like one but is not valid.
fn iso(text: &str) -> Option<Option<i64>> {
    let (day, rest) = text.split_once(['t', ' '])?;
    let days = date(day)?;
    Some(iso_time(days, rest.trim()))
}

fn iso_time(days: i64, text: &str) -> Option<i64> {
    let (clock, offset) = match text.find(['z', '+', '-']) {
        Some(at) => (&text[..at], Some(&text[at..])),
        None => (text, None),
    };
    let mut parts = clock.split(':');
    let hour: u32 = number(parts.next()?, 2)?;
    let minute: u32 = number(parts.next()?, 2)?;
    let _seconds: Option<u32> = parts.next().and_then(|s| number(s.split('.').next()?, 2));
    if hour > 23 || minute > 59 {
        return None;
    }
    let Some(offset) = offset else {
        return Some(from_local(days, hour, minute));
    };
    let utc = days * 86_400 + i64::from(hour * 3600 + minute * 60);
    if offset == "z" {
        return Some(utc);
    }
    let sign = if offset.starts_with('-') { -1 } else { 1 };
    let digits = offset[1..].replace(':', "");
    let (h, m) = (
        number::<i64>(digits.get(..2)?, 2)?,
        number::<i64>(digits.get(2..)?, 2)?,
    );
    Some(utc - sign * (h * 3600 + m * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// These tests run with the process's zone; they only compare local with local, or
    /// use explicit offsets.
    #[test]
    fn times_are_read_in_many_forms() {
        let today = local(1_800_000_000).days();
        let now = from_local(today, 12, 0);
        let cases: &[(&str, Option<i64>)] = &[
            ("13:30", Some(from_local(today, 13, 30))),
            ("07:30", Some(from_local(today + 1, 7, 30))),
            ("at 7pm", Some(from_local(today, 19, 0))),
            ("7:05 am", Some(from_local(today + 1, 7, 5))),
            ("tomorrow 7:30", Some(from_local(today + 1, 7, 30))),
            ("Tomorrow at 07:30", Some(from_local(today + 1, 7, 30))),
            ("in 20 minutes", Some(now + 1200)),
            ("in 2 hours", Some(now + 7200)),
            (
                "2027-01-15T07:30:00Z",
                Some(1_800_000_000 - 1_800_000_000 % 86_400 + 27_000),
            ),
            (
                "2027-01-15 08:30+01:00",
                Some(1_800_000_000 - 1_800_000_000 % 86_400 + 27_000),
            ),
            (
                "2027-01-15 07:30",
                Some(from_local(date("2027-01-15").unwrap(), 7, 30)),
            ),
            ("25:00", None),
            ("2027-02-30 07:00", None),
            ("soonish", None),
            ("13pm", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text, now).ok(), *expected, "{text}");
        }
        assert!(parse("soonish", now).unwrap_err().contains("tomorrow 7:30"));
    }

    #[test]
    fn weekdays_are_the_next_one_and_days_are_shown() {
        // 2027-01-15 is a Friday.
        let friday = date("2027-01-15").unwrap();
        assert_eq!(show_day(friday), "Fri 15 Jan 2027");
        assert_eq!(named_day("friday", friday), Some(friday + 7));
        assert_eq!(named_day("mon", friday), Some(friday + 3));
        assert_eq!(named_day("sat", friday), Some(friday + 1));
        assert_eq!(named_day("2027-01-20", friday), Some(friday + 5));
        assert_eq!(named_day("fr", friday), None);
        let at = from_local(friday, 9, 5);
        assert_eq!(show(at), "Fri 15 Jan 2027 09:05");
        assert_eq!(local(at).weekday, 4);
    }
}
