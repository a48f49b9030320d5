//! Moments as people give them and as they are shown back, in the local time zone: the leaf
//! that `store` (session and parked-run timestamps) and the tools (alarms, calendar) both
//! read times through.
//!
//! Zones come from the C library (`localtime_r`, TZ else /etc/localtime; see `zone`), not a
//! date crate. Measured against jiff 0.2.46 (`default-features = false`, `std`, `tz-system`,
//! `tzdb-zoneinfo`: jiff and jiff-core): jiff added 298,088 bytes to an LTO, `opt-level = "s"`,
//! stripped binary (591,800 against 293,712 for the same program on libc, 2026-11-28), while
//! `zone` gets every case of the zone corpus right (tests/fixtures/times: 8 zones' real
//! transitions, gaps, repeated hours and days added across them), so jiff does not beat it by
//! the margin a crate needs. Neither touches the zone files before a time is read or shown:
//! `--version` and a one-shot ask pay nothing.

mod iso;
mod phrase;
mod span;
mod words;
pub(crate) mod zone;

#[cfg(test)]
mod conformance;

pub(crate) use phrase::{named_day, parse};

use crate::clock::{civil_from_days, days_from_civil};

const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
pub(crate) const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A moment on the local wall clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Local {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    /// 0 is Monday.
    pub weekday: u32,
}

impl Local {
    /// Days since 1970-01-01 of its date.
    pub(crate) fn days(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day)
    }

    /// Seconds since midnight on its wall clock.
    pub(crate) fn seconds(&self) -> i64 {
        i64::from(self.hour * 3600 + self.minute * 60 + self.second)
    }
}

/// The local wall clock at unix time `at`.
pub(crate) fn local(at: i64) -> Local {
    let wall = at + zone::offset_at(at);
    let (days, rest) = (wall.div_euclid(86_400), wall.rem_euclid(86_400) as u32);
    let (year, month, day) = civil_from_days(days);
    Local {
        year,
        month,
        day,
        hour: rest / 3600,
        minute: rest % 3600 / 60,
        second: rest % 60,
        weekday: crate::clock::weekday(days) as u32,
    }
}

/// The unix time of a local wall-clock minute (see [`from_civil`]).
pub(crate) fn from_local(days: i64, hour: u32, minute: u32) -> i64 {
    from_civil(days, i64::from(hour * 3600 + minute * 60))
}

/// The unix time of `seconds` after midnight of day `days` on the local wall clock: the
/// earlier moment of a repeated time, and a time the clock skipped moved forward by the gap.
pub(crate) fn from_civil(days: i64, seconds: i64) -> i64 {
    zone::moment(days * 86_400 + seconds)
}

/// "Tue 24 Nov 2026 07:30" for unix time `at`, local (see [`clock`]).
pub(crate) fn show(at: i64) -> String {
    format!("{} {}", show_day(local(at).days()), clock(at))
}

/// "07:30", "07:30:15" with seconds, and "01:30 (-04:00)" when the clock shows that time
/// twice that day (the hour it goes back), so the two are told apart.
pub(crate) fn clock(at: i64) -> String {
    let l = local(at);
    let mut out = format!("{:02}:{:02}", l.hour, l.minute);
    if l.second != 0 {
        out.push_str(&format!(":{:02}", l.second));
    }
    if zone::ambiguous(at) {
        out.push_str(&format!(" ({})", zone::show_offset(zone::offset_at(at))));
    }
    out
}

/// "Tue 24 Nov 2026 15:00–16:00", or both days when the span ends on another: a span is
/// absolute time, so an hour in the autumn's repeated hour reads "01:30 (-04:00)–01:30
/// (-05:00)".
pub(crate) fn show_span(start: i64, end: i64) -> String {
    if local(start).days() == local(end).days() {
        format!("{}–{}", show(start), clock(end))
    } else {
        format!("{} – {}", show(start), show(end))
    }
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

#[cfg(test)]
mod tests {
    use super::words::date;
    use super::*;

    /// These tests run with the process's zone; they only compare local with local, or
    /// use explicit offsets. The zone corpus (`conformance`) runs each zone in a process of
    /// its own.
    #[test]
    fn days_and_moments_are_shown_with_seconds_when_there_are_some() {
        // 2027-01-15 is a Friday.
        let friday = date("2027-01-15").unwrap();
        assert_eq!(show_day(friday), "Fri 15 Jan 2027");
        let at = from_local(friday, 9, 5);
        assert_eq!(local(at).weekday, 4);
        assert_eq!(show(at), "Fri 15 Jan 2027 09:05");
        assert_eq!(show(at + 7), "Fri 15 Jan 2027 09:05:07");
        assert_eq!(show_span(at, at + 3600), "Fri 15 Jan 2027 09:05–10:05");
        assert_eq!(
            show_span(at, at + 86_400),
            "Fri 15 Jan 2027 09:05 – Sat 16 Jan 2027 09:05"
        );
    }
}
