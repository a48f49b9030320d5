//! Timers of the session (seed 002 §3 timers.ts): `timer_start` (a countdown of a duration as
//! people write it, "25m", "1h30", "90 seconds", or a stopwatch), `timer_check` and
//! `timer_stop`. They live in the session's [`Timers`] (in `SessionTools`), never in a global:
//! two sessions in one process never see each other's timers, and none outlives its session.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

/// Timers one session may run at once.
const MAX_TIMERS: usize = 50;
/// The longest countdown.
const MAX_COUNTDOWN: Duration = Duration::from_secs(7 * 86_400);
/// The name of a timer started without one.
const DEFAULT_NAME: &str = "timer";

const START_PARAMS: &[Param] = &[
    Param::optional(
        "name",
        Kind::String,
        "What the timer is for, to check or stop it by (default \"timer\")",
    ),
    Param::optional(
        "duration",
        Kind::String,
        "A countdown's length as people write it: \"25m\", \"1h30\", \"90 seconds\", \"1:30:00\" (a bare number is minutes); leave it out for a stopwatch",
    ),
];
const CHECK_PARAMS: &[Param] = &[Param::optional(
    "name",
    Kind::String,
    "The timer to check (default: all of them)",
)];
const STOP_PARAMS: &[Param] = &[Param::optional(
    "name",
    Kind::String,
    "The timer to stop (may be left out when only one exists)",
)];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "timers",
    about: "countdown timers",
    words: &[
        "timer",
        "timers",
        "countdown",
        "stopwatch",
        "~minutes",
        "in an hour",
        "in two hours",
        "in three hours",
        "in five minutes",
        "alert me in",
        "remind me in",
    ],
    asks: &[
        "set a timer for ten minutes",
        "countdown 5 minutes",
        "how long is left on the timer",
        "stop the timer",
        "remind me in twenty minutes",
        "time my tea for 4 minutes",
        "start a stopwatch",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("timer_start")
            .describe("Start a named countdown (\"25m\", \"1h30\", \"90 seconds\") or, without a duration, a stopwatch. Use when the user wants to time something during this session.")
            .offered(Offered::Everywhere)
            .params(START_PARAMS)
            .example(r#"{"name": "tea", "duration": "4m"}"#)
            .handler(timer_start),
        ToolDef::build("timer_check")
            .describe("Show a timer of this session (or all of them): time elapsed, time left, or how long ago a countdown finished.")
            .offered(Offered::Everywhere)
            .params(CHECK_PARAMS)
            .example(r#"{"name": "tea"}"#)
            .handler(timer_check),
        ToolDef::build("timer_stop")
            .describe("Stop a timer of this session and say its final time.")
            .offered(Offered::Everywhere)
            .params(STOP_PARAMS)
            .example(r#"{"name": "tea"}"#)
            .handler(timer_stop),
    ]
}

/// The timers of one session, in the order they were started.
#[derive(Default)]
pub struct Timers(Mutex<Vec<Timer>>);

#[derive(Debug, Clone)]
struct Timer {
    name: String,
    started: Instant,
    /// A countdown's length; `None` for a stopwatch.
    countdown: Option<Duration>,
}

impl Timers {
    fn with<T>(&self, f: impl FnOnce(&mut Vec<Timer>) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

#[derive(Deserialize)]
struct StartArgs {
    name: Option<String>,
    duration: Option<String>,
}

#[derive(Deserialize)]
struct NameArgs {
    name: Option<String>,
}

fn timer_start(args: StartArgs, ctx: &ToolContext) -> Result<String, String> {
    start(&ctx.shared.timers, args, Instant::now())
}

fn timer_check(args: NameArgs, ctx: &ToolContext) -> Result<String, String> {
    check(&ctx.shared.timers, args.name.as_deref(), Instant::now())
}

fn timer_stop(args: NameArgs, ctx: &ToolContext) -> Result<String, String> {
    stop(&ctx.shared.timers, args.name.as_deref(), Instant::now())
}

fn start(timers: &Timers, args: StartArgs, now: Instant) -> Result<String, String> {
    let name = clean_name(args.name.as_deref())?.unwrap_or_else(|| DEFAULT_NAME.to_string());
    let countdown = match args.duration.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(parse_duration(text)?),
    };
    timers.with(|list| {
        if let Some(same) = list.iter().find(|t| t.name.eq_ignore_ascii_case(&name)) {
            return Err(format!(
                "A timer named '{}' exists already ({}); stop it first or choose another name.",
                same.name,
                state(same, now)
            ));
        }
        if list.len() >= MAX_TIMERS {
            return Err(format!(
                "{MAX_TIMERS} timers are running already; stop some first."
            ));
        }
        list.push(Timer {
            name: name.clone(),
            started: now,
            countdown,
        });
        Ok(match countdown {
            Some(length) => format!("Countdown '{name}' started: {}.", show(length)),
            None => format!("Stopwatch '{name}' started."),
        })
    })
}

fn check(timers: &Timers, name: Option<&str>, now: Instant) -> Result<String, String> {
    let name = clean_name(name)?;
    timers.with(|list| {
        if list.is_empty() {
            return Ok("No timer is running in this session.".to_string());
        }
        match name {
            Some(name) => {
                let timer = find(list, &name)?;
                Ok(line(&list[timer], now))
            }
            None => Ok(list
                .iter()
                .map(|t| format!("- {}", line(t, now)))
                .collect::<Vec<_>>()
                .join("\n")),
        }
    })
}

fn stop(timers: &Timers, name: Option<&str>, now: Instant) -> Result<String, String> {
    let name = clean_name(name)?;
    timers.with(|list| {
        let index = match (&name, list.len()) {
            (_, 0) => return Err("No timer is running in this session.".to_string()),
            (Some(name), _) => find(list, name)?,
            (None, 1) => 0,
            (None, _) => {
                return Err(format!(
                    "Several timers are running ({}): say which one to stop.",
                    names(list)
                ));
            }
        };
        let timer = list.remove(index);
        let elapsed = now.saturating_duration_since(timer.started);
        Ok(match timer.countdown {
            None => format!("Stopped stopwatch '{}' at {}.", timer.name, show(elapsed)),
            Some(length) if elapsed >= length => format!(
                "Stopped countdown '{}' of {}: it had finished {} ago.",
                timer.name,
                show(length),
                show(elapsed - length)
            ),
            Some(length) => format!(
                "Stopped countdown '{}' of {} after {}, with {} left.",
                timer.name,
                show(length),
                show(elapsed),
                show(length - elapsed)
            ),
        })
    })
}

/// The index of the timer called `name` (any case), or an error naming those there are.
fn find(list: &[Timer], name: &str) -> Result<usize, String> {
    list.iter()
        .position(|t| t.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            format!(
                "No timer is named '{name}'; the timers of this session: {}.",
                names(list)
            )
        })
}

fn names(list: &[Timer]) -> String {
    let names: Vec<String> = list.iter().map(|t| format!("'{}'", t.name)).collect();
    names.join(", ")
}

/// A name given, trimmed: 1 to 40 characters without control characters.
fn clean_name(name: Option<&str>) -> Result<Option<String>, String> {
    let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    if name.chars().count() > 40 || name.chars().any(char::is_control) {
        return Err("A timer's name is 1 to 40 characters on one line, e.g. \"tea\".".into());
    }
    Ok(Some(name.to_string()))
}

/// "'tea': countdown of 4m — 1m 10s elapsed, 2m 50s left".
fn line(timer: &Timer, now: Instant) -> String {
    format!("'{}': {}", timer.name, state(timer, now))
}

fn state(timer: &Timer, now: Instant) -> String {
    let elapsed = now.saturating_duration_since(timer.started);
    match timer.countdown {
        None => format!("stopwatch — {} elapsed", show(elapsed)),
        Some(length) if elapsed >= length => format!(
            "countdown of {} — done {} ago",
            show(length),
            show(elapsed - length)
        ),
        Some(length) => format!(
            "countdown of {} — {} elapsed, {} left",
            show(length),
            show(elapsed),
            show(length - elapsed)
        ),
    }
}

/// A duration to whole seconds: "1h 05m 03s", "4m 10s", "12s", "2d 3h 00m 00s".
fn show(duration: Duration) -> String {
    let total = duration.as_secs();
    let (days, hours, minutes, seconds) = (
        total / 86_400,
        total % 86_400 / 3600,
        total % 3600 / 60,
        total % 60,
    );
    match (days, hours, minutes) {
        (0, 0, 0) => format!("{seconds}s"),
        (0, 0, _) => format!("{minutes}m {seconds:02}s"),
        (0, _, _) => format!("{hours}h {minutes:02}m {seconds:02}s"),
        _ => format!("{days}d {hours}h {minutes:02}m {seconds:02}s"),
    }
}

/// A countdown's length as people write it: "25m", "1h30", "1h 30m", "90 seconds", "2 hours
/// and 5 minutes", "an hour", "1.5h", "1:30" (m:s), "1:30:00" (h:m:s); a bare number is minutes.
/// A number after a unit without one of its own is of the next smaller unit ("1h30", "5m30").
fn parse_duration(text: &str) -> Result<Duration, String> {
    let lower = text.trim().to_lowercase();
    let seconds = if lower.contains(':') {
        clock_form(&lower)
    } else {
        word_form(&lower)
    };
    match seconds {
        Some(seconds) if seconds >= 1.0 && seconds <= MAX_COUNTDOWN.as_secs_f64() => {
            Ok(Duration::from_secs(seconds.round() as u64))
        }
        Some(_) => Err(format!(
            "A countdown lasts from 1 second to 7 days, not '{}'.",
            text.trim()
        )),
        None => Err(format!(
            "'{}' is not a duration: write it as \"25m\", \"1h30\", \"90 seconds\" or \"1:30:00\".",
            text.trim()
        )),
    }
}

/// "m:s" or "h:m:s".
fn clock_form(text: &str) -> Option<f64> {
    let parts: Vec<u64> = text
        .split(':')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    let (h, m, s) = match parts[..] {
        [m, s] => (0, m, s),
        [h, m, s] => (h, m, s),
        _ => return None,
    };
    (m < 60 || parts.len() == 2).then_some(())?;
    (s < 60).then_some((h * 3600 + m * 60 + s) as f64)
}

/// Numbers and unit words: "1h30", "90 seconds", "2 hours and 5 minutes", "an hour".
fn word_form(text: &str) -> Option<f64> {
    let cleaned = text.replace(',', " ").replace(" and ", " ");
    let mut rest = cleaned.trim();
    let (mut total, mut last_unit, mut seen) = (0.0, None::<u64>, false);
    while !rest.is_empty() {
        let (number, after) = number(rest)?;
        let after = after.trim_start();
        let word_end = after
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(after.len());
        let (word, after) = after.split_at(word_end);
        let unit = match word {
            "" => match last_unit {
                Some(60) => 1,
                Some(3600) => 60,
                Some(86_400) => 3600,
                None if after.trim().is_empty() && !seen => 60,
                _ => return None,
            },
            _ => unit(word)?,
        };
        if last_unit.is_some_and(|last| unit >= last) {
            return None;
        }
        total += number * unit as f64;
        last_unit = Some(unit);
        seen = true;
        rest = after.trim_start();
    }
    seen.then_some(total)
}

/// A leading number ("1", "1.5", "a", "an", "half an"), and what follows it.
fn number(text: &str) -> Option<(f64, &str)> {
    for (word, value) in [
        ("half an ", 0.5),
        ("half a ", 0.5),
        ("an ", 1.0),
        ("a ", 1.0),
    ] {
        if let Some(rest) = text.strip_prefix(word) {
            return Some((value, rest));
        }
    }
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let value: f64 = text[..end].parse().ok()?;
    value.is_finite().then_some((value, &text[end..]))
}

/// Seconds in a unit word.
fn unit(word: &str) -> Option<u64> {
    Some(match word {
        "s" | "sec" | "secs" | "second" | "seconds" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600,
        "d" | "day" | "days" => 86_400,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_people_write_them() {
        let cases: &[(&str, u64)] = &[
            ("25m", 1500),
            ("25 min", 1500),
            ("1h30", 5400),
            ("1h 30m", 5400),
            ("1h30m15s", 5415),
            ("5m30", 330),
            ("90 seconds", 90),
            ("90s", 90),
            ("2 hours and 5 minutes", 7500),
            ("2 hours, 5 minutes", 7500),
            ("an hour", 3600),
            ("half an hour", 1800),
            ("a minute", 60),
            ("1.5h", 5400),
            ("10", 600),
            ("1:30", 90),
            ("1:30:00", 5400),
            ("  3 MINUTES ", 180),
            ("1d", 86_400),
        ];
        for (text, seconds) in cases {
            assert_eq!(
                parse_duration(text),
                Ok(Duration::from_secs(*seconds)),
                "{text}"
            );
        }
    }

    #[test]
    fn what_is_not_a_duration_says_how_to_write_one() {
        for text in [
            "soon",
            "5 parsecs",
            "30m1h",
            "1h 2h",
            "1:70:00",
            "10 20",
            "h",
            "1:2:3:4",
        ] {
            let error = parse_duration(text).unwrap_err();
            assert!(error.contains("is not a duration"), "{text}: {error}");
        }
        for text in ["0s", "8 days", "0.2s"] {
            let error = parse_duration(text).unwrap_err();
            assert!(error.contains("from 1 second to 7 days"), "{text}: {error}");
        }
    }

    #[test]
    fn durations_show_to_the_second() {
        let cases: &[(u64, &str)] = &[
            (0, "0s"),
            (12, "12s"),
            (250, "4m 10s"),
            (3903, "1h 05m 03s"),
            (2 * 86_400 + 3 * 3600, "2d 3h 00m 00s"),
        ];
        for (seconds, text) in cases {
            assert_eq!(show(Duration::from_secs(*seconds)), *text);
        }
    }

    fn named(name: &str, duration: Option<&str>) -> StartArgs {
        StartArgs {
            name: Some(name.into()),
            duration: duration.map(Into::into),
        }
    }

    #[test]
    fn countdowns_and_stopwatches_over_time() {
        let timers = Timers::default();
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        assert_eq!(
            start(&timers, named("tea", Some("4m")), t0).unwrap(),
            "Countdown 'tea' started: 4m 00s."
        );
        assert_eq!(
            start(&timers, named("run", None), at(10)).unwrap(),
            "Stopwatch 'run' started."
        );
        let error = start(&timers, named("TEA", Some("1m")), at(20)).unwrap_err();
        assert_eq!(
            error,
            "A timer named 'tea' exists already (countdown of 4m 00s — 20s elapsed, 3m 40s left); stop it first or choose another name."
        );
        assert_eq!(
            check(&timers, None, at(70)).unwrap(),
            "- 'tea': countdown of 4m 00s — 1m 10s elapsed, 2m 50s left\n- 'run': stopwatch — 1m 00s elapsed"
        );
        assert_eq!(
            check(&timers, Some("Tea"), at(300)).unwrap(),
            "'tea': countdown of 4m 00s — done 1m 00s ago"
        );
        assert_eq!(
            check(&timers, Some("eggs"), at(300)).unwrap_err(),
            "No timer is named 'eggs'; the timers of this session: 'tea', 'run'."
        );
        assert!(
            stop(&timers, None, at(300))
                .unwrap_err()
                .starts_with("Several timers are running ('tea', 'run')")
        );
        assert_eq!(
            stop(&timers, Some("tea"), at(300)).unwrap(),
            "Stopped countdown 'tea' of 4m 00s: it had finished 1m 00s ago."
        );
        assert_eq!(
            stop(&timers, None, at(3913)).unwrap(),
            "Stopped stopwatch 'run' at 1h 05m 03s."
        );
        assert_eq!(
            check(&timers, None, at(4000)).unwrap(),
            "No timer is running in this session."
        );
        start(&timers, named("eggs", Some("6m")), at(0)).unwrap();
        assert_eq!(
            stop(&timers, Some("eggs"), at(100)).unwrap(),
            "Stopped countdown 'eggs' of 6m 00s after 1m 40s, with 4m 20s left."
        );
    }

    #[test]
    fn two_sessions_do_not_share_timers() {
        let (one, two) = (ToolContext::new("/".into()), ToolContext::new("/".into()));
        let start = |ctx, name: &str| {
            timer_start(
                StartArgs {
                    name: Some(name.into()),
                    duration: None,
                },
                ctx,
            )
        };
        start(&one, "tea").unwrap();
        let check = |ctx| timer_check(NameArgs { name: None }, ctx).unwrap();
        assert_eq!(check(&two), "No timer is running in this session.");
        start(&two, "tea").unwrap();
        assert!(check(&one).starts_with("- 'tea': stopwatch"));
        timer_stop(NameArgs { name: None }, &two).unwrap();
        assert!(check(&one).starts_with("- 'tea': stopwatch"));
        assert_eq!(check(&two), "No timer is running in this session.");
    }

    #[test]
    fn a_default_name_and_a_bad_one() {
        let timers = Timers::default();
        let now = Instant::now();
        let args = StartArgs {
            name: None,
            duration: Some("10".into()),
        };
        assert_eq!(
            start(&timers, args, now).unwrap(),
            "Countdown 'timer' started: 10m 00s."
        );
        let error = start(&timers, named("a\nb", None), now).unwrap_err();
        assert!(error.contains("1 to 40 characters"), "{error}");
    }
}
