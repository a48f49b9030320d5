//! Moves from now as people say them: "in 3 days", "2 hours ago", "3 days later", "4 days
//! from now", "after 4 days", "now - 1 hour", "+1 decade -2 years", "next week". Days, weeks,
//! months and years are counted on the wall clock (so "in 3 days" at 07:30 is 07:30 across a
//! DST change); hours, minutes and seconds are absolute time.

use super::words::count;
use crate::clock::days_from_civil;

/// A length of time: a calendar part and a clock part.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct Span {
    months: i64,
    days: i64,
    seconds: f64,
}

impl Span {
    pub(super) fn days(days: i64) -> Self {
        Self {
            days,
            ..Self::default()
        }
    }

    /// `from` moved by the span: months first (a day past the month's end becomes its last
    /// day: Jan 31 + 1 month is Feb 28), then days on the wall clock, then the clock part.
    pub(super) fn after(&self, from: i64) -> i64 {
        let seconds = self.seconds.round() as i64;
        if self.months == 0 && self.days == 0 {
            return from + seconds;
        }
        let l = super::local(from);
        let months = l.year * 12 + i64::from(l.month) - 1 + self.months;
        let (year, month) = (months.div_euclid(12), months.rem_euclid(12) as u32 + 1);
        let day = l.day.min(month_length(year, month));
        let days = days_from_civil(year, month, day) + self.days;
        super::from_civil(days, l.seconds()) + seconds
    }

    fn add(&mut self, amount: f64, unit: Unit) -> Option<()> {
        let whole = amount.trunc();
        let whole_only = (amount == whole).then_some(whole as i64);
        match unit {
            Unit::Seconds(n) => self.seconds += amount * n as f64,
            Unit::Days(n) => {
                self.days += whole as i64 * n;
                self.seconds += (amount - whole) * (n * 86_400) as f64;
            }
            Unit::Months(n) => self.months += whole_only? * n,
        }
        Some(())
    }
}

fn month_length(year: i64, month: u32) -> u32 {
    let next = if month == 12 {
        days_from_civil(year + 1, 1, 1)
    } else {
        days_from_civil(year, month + 1, 1)
    };
    (next - days_from_civil(year, month, 1)) as u32
}

/// What a unit word counts.
#[derive(Debug, Clone, Copy)]
enum Unit {
    Seconds(i64),
    Days(i64),
    Months(i64),
}

fn unit(word: &str) -> Option<Unit> {
    Some(match word {
        "s" | "sec" | "secs" | "second" | "seconds" => Unit::Seconds(1),
        "min" | "mins" | "minute" | "minutes" => Unit::Seconds(60),
        "h" | "hr" | "hrs" | "hour" | "hours" => Unit::Seconds(3600),
        "d" | "day" | "days" => Unit::Days(1),
        "w" | "wk" | "wks" | "week" | "weeks" => Unit::Days(7),
        "fortnight" | "fortnights" => Unit::Days(14),
        "mo" | "month" | "months" => Unit::Months(1),
        "y" | "yr" | "yrs" | "year" | "years" => Unit::Months(12),
        "decade" | "decades" => Unit::Months(120),
        _ => return None,
    })
}

/// The moment a whole phrase of moving names, seen from `now`; `None` when `words` is not
/// one (a bare "3 days" names no direction, so it is not one either).
pub(super) fn relative(words: &[&str], now: i64) -> Option<i64> {
    let words: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "about" | "and" | "time" | "just"))
        .collect();
    match words.as_slice() {
        ["now"] => return Some(now),
        [which, unit_word] if named(which, unit_word).is_some() => {
            return Some(named(which, unit_word)?.after(now));
        }
        _ => {}
    }
    let (direction, body) = direction(&words)?;
    Some(parts(body, direction)?.after(now))
}

/// "next week", "last year", "next decade": one unit on or back.
pub(super) fn named(which: &str, unit_word: &str) -> Option<Span> {
    let sign = match which {
        "next" => 1.0,
        "last" => -1.0,
        _ => return None,
    };
    let mut span = Span::default();
    span.add(sign, unit(unit_word)?)?;
    Some(span)
}

/// The direction a phrase's words give (+1 or -1, 0 when only signs do) and its parts.
fn direction<'a>(words: &'a [&'a str]) -> Option<(f64, &'a [&'a str])> {
    Some(match words {
        ["in" | "after", rest @ ..] => (1.0, rest),
        ["now", rest @ ..] => (0.0, rest),
        [rest @ .., "ago" | "before"] => (-1.0, rest),
        [rest @ .., "later" | "hence"] => (1.0, rest),
        [rest @ .., "from", "now"] => (1.0, rest),
        [first, ..] if first.starts_with(['+', '-']) => (0.0, words),
        _ => return None,
    })
}

/// The span of "3 days 2 hours", "1 year, 09 months", "+1 decade -2 years", "1d", "15hr":
/// a part without a sign goes the phrase's way, or the way of the first sign.
fn parts(words: &[&str], mut direction: f64) -> Option<Span> {
    let mut span = Span::default();
    let mut rest = words;
    if rest.is_empty() {
        return None;
    }
    while let Some((&first, after)) = rest.split_first() {
        let (sign, first, after) = match (first, after) {
            ("+" | "-", [next, more @ ..]) => (Some(first), *next, more),
            _ => match first.strip_prefix(['+', '-']) {
                Some(body) => (Some(&first[..1]), body, after),
                None => (None, first, after),
            },
        };
        let (amount, unit_word, after) = match split_compact(first) {
            Some((amount, unit_word)) => (amount, unit_word, after),
            None => (count(first)?, *after.first()?, after.get(1..)?),
        };
        let sign = match sign {
            Some("-") => -1.0,
            Some(_) => 1.0,
            None if direction != 0.0 => direction,
            None => return None,
        };
        if direction == 0.0 {
            direction = sign;
        }
        span.add(sign * amount, unit(unit_word)?)?;
        rest = after;
    }
    Some(span)
}

/// "1d", "15hr", "1hour", "2.5h": a count and its unit written together.
fn split_compact(word: &str) -> Option<(f64, &str)> {
    let at = word.find(|c: char| c.is_ascii_alphabetic())?;
    let (amount, unit_word) = word.split_at(at);
    unit(unit_word)?;
    Some((count(amount)?, unit_word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_move_in_their_direction_and_signs_keep_theirs() {
        let now = 1_800_000_000;
        let cases: &[(&str, Option<i64>)] = &[
            ("in 20 minutes", Some(now + 1200)),
            ("in 2.5 hours", Some(now + 9000)),
            ("2 hours ago", Some(now - 7200)),
            ("an hour from now", Some(now + 3600)),
            ("about an hour ago", Some(now - 3600)),
            ("3 hours later", Some(now + 10_800)),
            ("now - 1hour", Some(now - 3600)),
            ("now + 30 minutes", Some(now + 1800)),
            ("+2 hours", Some(now + 7200)),
            ("-1 hour +30 min", Some(now - 1800)),
            ("-1 hour 30 min", Some(now - 5400)),
            ("in 1 hour and 1 minute", Some(now + 3660)),
            ("now", Some(now)),
            ("3 hours", None),
            ("in", None),
            ("in 2 fortnights ago", None),
            ("in 1.5 months", None),
        ];
        for (text, expected) in cases {
            let words: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(relative(&words, now), *expected, "{text}");
        }
    }

    #[test]
    fn months_end_at_the_month_s_last_day() {
        assert_eq!(month_length(2028, 2), 29);
        assert_eq!(month_length(2027, 2), 28);
        assert_eq!(month_length(2027, 12), 31);
    }
}
