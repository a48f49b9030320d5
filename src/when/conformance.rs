//! The time corpora of tests/fixtures/times (see its NOTE.md) run through `when`: the real
//! transitions of 8 zones as zdump prints them, dateparser's English relative dates, and
//! RFC 3339's date-times. The C library reads the zone once per process, so each zone runs
//! in a child process of this test binary with TZ set: the tests never depend on the
//! machine's own zone, only on /usr/share/zoneinfo being there.

// Checks against the real programs, run as a person would.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeSet;
use std::process::Command;

use super::{clock, from_civil, local, parse};
use crate::clock::days_from_civil;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/times");
const ZONEINFO: &str = "/usr/share/zoneinfo";

/// What a corpus run counted.
#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
    skipped: usize,
    failures: Vec<String>,
}

impl Tally {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.total += 1;
        if ok {
            self.passed += 1;
        } else {
            self.failures.push(what());
        }
    }

    fn add(&mut self, other: &Tally) {
        self.passed += other.passed;
        self.total += other.total;
        self.skipped += other.skipped;
    }
}

/// The worker: runs the corpus MARVIN_TIMES_CORPUS names in the zone TZ names and prints
/// its tally for `times_corpora_conform`, which starts it.
#[test]
#[ignore = "started by times_corpora_conform, in a process of its own per zone"]
fn corpus_child() {
    let Ok(corpus) = std::env::var("MARVIN_TIMES_CORPUS") else {
        return;
    };
    let tally = match corpus.as_str() {
        "zones" => zones(&std::env::var("TZ").unwrap_or_default()),
        "dateparser" => dateparser(),
        "rfc3339" => rfc3339(),
        other => panic!("no corpus {other}"),
    };
    for failure in &tally.failures {
        println!("FAIL {failure}");
    }
    println!("RESULT {} {} {}", tally.passed, tally.total, tally.skipped);
}

/// Runs `corpus` in a child process with TZ=`zone`.
fn in_child(corpus: &str, zone: &str) -> Tally {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["when::conformance::corpus_child", "--exact", "--ignored"])
        .args(["--nocapture", "--test-threads=1"])
        .env("TZ", zone)
        .env("MARVIN_TIMES_CORPUS", corpus)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut tally = Tally::default();
    for line in stdout.lines() {
        // libtest may have written "test … " on the same line before the child's words.
        if let Some((_, failure)) = line.split_once("FAIL ") {
            tally.failures.push(format!("{zone}: {failure}"));
        } else if let Some((_, counts)) = line.split_once("RESULT ") {
            let n: Vec<usize> = counts.split(' ').map(|n| n.parse().unwrap()).collect();
            (tally.passed, tally.total, tally.skipped) = (n[0], n[1], n[2]);
        }
    }
    assert!(
        tally.total > 0,
        "the {corpus} run in {zone} said nothing:\n{stdout}"
    );
    tally
}

#[test]
fn times_corpora_conform() {
    assert!(
        std::path::Path::new(ZONEINFO)
            .join("Europe/Berlin")
            .is_file(),
        "{ZONEINFO} is missing: the zone corpus needs the IANA time zone database (install the tzdata package)"
    );
    let text = std::fs::read_to_string(format!("{DIR}/zones.txt")).unwrap();
    let names: BTreeSet<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let mut all = Tally::default();
    let mut zones = Tally::default();
    for zone in names {
        let tally = in_child("zones", zone);
        zones.add(&tally);
        all.failures.extend(tally.failures);
    }
    eprintln!(
        "IANA zone transitions (8 zones): {}/{} passed",
        zones.passed, zones.total
    );
    all.add(&zones);
    for corpus in ["dateparser", "rfc3339"] {
        let tally = in_child(corpus, "UTC");
        let skipped = match tally.skipped {
            0 => String::new(),
            n => format!(", skipped {n} bare durations (see dateparser())"),
        };
        eprintln!("{corpus}: {}/{} passed{skipped}", tally.passed, tally.total);
        all.add(&tally);
        all.failures.extend(tally.failures);
    }
    eprintln!("times: {}/{} passed", all.passed, all.total);
    for failure in &all.failures {
        eprintln!("  {failure}");
    }
    assert_eq!(zones.passed, zones.total, "every DST case must be right");
    assert!(all.passed * 100 >= all.total * 98, "times below 98%");
}

/// One line of zdump -v: the moment (unix time), its wall clock (counted like unix time) and
/// its offset.
struct Line {
    at: i64,
    wall: i64,
    offset: i64,
}

/// `Sun Mar 10 06:59:59 2024 UT = Sun Mar 10 01:59:59 2024 EST isdst=0 gmtoff=-18000`.
fn zdump_line(line: &str) -> Line {
    let words: Vec<&str> = line.split_whitespace().collect();
    let moment = |w: &[&str]| {
        let month = super::MONTHS.iter().position(|m| *m == w[1]).unwrap() as u32 + 1;
        let hms: Vec<i64> = w[3].split(':').map(|n| n.parse().unwrap()).collect();
        let days = days_from_civil(w[4].parse().unwrap(), month, w[2].parse().unwrap());
        days * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2]
    };
    let gmtoff = words.last().unwrap().strip_prefix("gmtoff=").unwrap();
    Line {
        at: moment(&words[1..6]),
        wall: moment(&words[8..13]),
        offset: gmtoff.parse().unwrap(),
    }
}

/// Every transition of `zone` in zones.txt, seven cases each.
fn zones(zone: &str) -> Tally {
    let text = std::fs::read_to_string(format!("{DIR}/zones.txt")).unwrap();
    let lines: Vec<Line> = text
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(zone))
        .map(zdump_line)
        .collect();
    let mut tally = Tally::default();
    for pair in lines.chunks(2) {
        let [before, after] = pair else {
            panic!("{zone}: zdump lines come in pairs")
        };
        assert_eq!(
            before.at + 1,
            after.at,
            "{zone}: a transition is two seconds"
        );
        transition(before, after, &mut tally);
    }
    tally
}

/// The wall clock of `at` counted like unix time.
fn wall_of(at: i64) -> i64 {
    let l = local(at);
    l.days() * 86_400 + l.seconds()
}

/// The cases of one transition: both seconds shown right, both wall times read back (the
/// earlier of a repeated time), a time in the gap or overlap read from ISO text, two days
/// added across it on the wall clock, and the repeated hour shown with its offsets.
fn transition(before: &Line, after: &Line, tally: &mut Tally) {
    let t = after.at;
    let (old, new) = (before.offset, after.offset);
    for line in [before, after] {
        let got = wall_of(line.at);
        tally.check(got == line.wall, || {
            format!("local({}) is {got}, not {}", line.at, line.wall)
        });
    }
    let earlier = |wall: i64| {
        if new < old {
            wall - old
        } else {
            wall - new.min(old).max(old)
        }
    };
    for (wall, expected) in [
        (before.wall, before.at),
        (
            after.wall,
            if new < old {
                after.wall - old
            } else {
                after.at
            },
        ),
    ] {
        let got = from_civil(wall.div_euclid(86_400), wall.rem_euclid(86_400));
        tally.check(got == expected, || {
            format!("from_civil({wall}) is {got}, not {expected}")
        });
    }
    let half = (new - old).abs() / 2;
    let probe = if new > old {
        t + old + half
    } else {
        t + new + half
    };
    let text = iso_local(probe);
    let got = parse(&text, 0);
    tally.check(got == Ok(earlier(probe)), || {
        format!("{text} is {got:?}, not {}", earlier(probe))
    });
    let day = before.wall.div_euclid(86_400);
    let now = (day - 1) * 86_400 + 43_200 - old;
    let expected = (day + 1) * 86_400 + 43_200 - new;
    let got = parse("in 2 days", now);
    tally.check(got == Ok(expected), || {
        format!("in 2 days from {now} is {got:?}, not {expected}")
    });
    let shown = if new < old {
        let (first, second) = (clock(t - (old - new)), clock(t));
        first != second && first.contains('(') && second.contains('(')
    } else {
        !clock(t).contains('(')
    };
    tally.check(shown, || {
        format!(
            "the hour around {t} is shown as {} and {}",
            clock(t - 3600),
            clock(t)
        )
    });
}

/// `2024-03-10T02:30:00` for a wall-clock time counted like unix time.
fn iso_local(wall: i64) -> String {
    let (y, m, d) = crate::clock::civil_from_days(wall.div_euclid(86_400));
    let s = wall.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        s / 3600,
        s % 3600 / 60,
        s % 60
    )
}

/// Unix time of `2014-09-01T10:30:00` read as UTC, for the fixtures' expectations.
fn utc(text: &str) -> i64 {
    let n = |r: std::ops::Range<usize>| text[r].parse::<i64>().unwrap();
    days_from_civil(n(0..4), n(5..7) as u32, n(8..10) as u32) * 86_400
        + n(11..13) * 3600
        + n(14..16) * 60
        + n(17..19)
}

/// dateparser's expectation: `now` moved by a relativedelta ("years=1,months=2") one way.
fn relativedelta(now: i64, sign: i64, delta: &str) -> i64 {
    let (days, rest) = (now.div_euclid(86_400), now.rem_euclid(86_400));
    let (mut year, mut month, day) = crate::clock::civil_from_days(days);
    let mut seconds = 0.0;
    let mut shift_days = 0;
    for part in delta.split(',') {
        let (unit, value) = part.split_once('=').unwrap();
        let value: f64 = value.parse().unwrap();
        match unit {
            "years" | "months" => {
                let months = value as i64 * if unit == "years" { 12 } else { 1 } * sign;
                let total = year * 12 + i64::from(month) - 1 + months;
                (year, month) = (total.div_euclid(12), total.rem_euclid(12) as u32 + 1);
            }
            "weeks" => shift_days += (value * 7.0) as i64 * sign,
            "days" => seconds += value * 86_400.0 * sign as f64,
            "hours" => seconds += value * 3600.0 * sign as f64,
            "minutes" => seconds += value * 60.0 * sign as f64,
            "seconds" => seconds += value * sign as f64,
            other => panic!("unit {other}"),
        }
    }
    let last = (1..=day)
        .rev()
        .find(|d| {
            crate::clock::civil_from_days(days_from_civil(year, month, *d)) == (year, month, *d)
        })
        .unwrap();
    (days_from_civil(year, month, last) + shift_days) * 86_400 + rest + seconds.round() as i64
}

/// dateparser's English relative dates, in UTC as its tests run. Skipped by rule: a bare
/// duration ("1 decade", "15 hr", "1 year 2 months") with no word or sign that says which
/// way: dateparser reads it as past by default and as future with PREFER_DATES_FROM=future;
/// Marvin asks for "in …" or "… ago" rather than guess.
fn dateparser() -> Tally {
    let text = std::fs::read_to_string(format!("{DIR}/dateparser_en.tsv")).unwrap();
    let mut tally = Tally::default();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let [kind, now, phrase, expected] = line.split('\t').collect::<Vec<_>>()[..] else {
            panic!("bad line {line}")
        };
        if bare_duration(phrase) {
            tally.skipped += 1;
            continue;
        }
        let now = utc(now);
        let expected = match kind {
            "ago" => relativedelta(now, -1, expected),
            "in" => relativedelta(now, 1, expected),
            _ => utc(expected),
        };
        let got = parse(phrase, now);
        tally.check(got == Ok(expected), || {
            format!("'{phrase}' is {got:?}, not {expected}")
        });
    }
    tally
}

fn bare_duration(phrase: &str) -> bool {
    let lower = phrase.to_lowercase();
    let words: Vec<&str> = lower.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let directed = [
        "ago", "before", "later", "from", "in", "after", "now", "next", "last",
    ];
    words[0].starts_with(|c: char| c.is_ascii_digit())
        && !words.iter().any(|w| directed.contains(w))
}

/// RFC 3339's examples and its grammar's limits, valid and invalid.
fn rfc3339() -> Tally {
    let text = std::fs::read_to_string(format!("{DIR}/rfc3339.tsv")).unwrap();
    let mut tally = Tally::default();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (input, expected) = line.split_once('\t').unwrap();
        let got = parse(input, 0).ok();
        let expected = expected.parse::<i64>().ok();
        tally.check(got == expected, || {
            format!("'{input}' is {got:?}, not {expected:?}")
        });
    }
    tally
}
