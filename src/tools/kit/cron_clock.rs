//! The cron daemon's wall clock, in which a crontab line's five time fields are read.
//!
//! Cron daemons run without TZ, so they read the table in the system's zone
//! (/etc/localtime), or in MARVIN_CRON_TZ's when the user says the daemon was started with a
//! zone of its own; Marvin reads and shows times in TZ, else that same system zone. A
//! `CRON_TZ=` line was the other way: cronie reads it, but Debian's and Ubuntu's cron
//! (vixie-cron) does not, and it would move every job of the user's written below it. So a
//! line is written in the daemon's zone: when the two zones are one (no TZ, or TZ equal to
//! MARVIN_CRON_TZ) nothing is converted; else `date` (the same C library and zone files as the
//! daemon) converts, and a repeating line fires at every minute and hour its time falls on in
//! the daemon's zone over the next year, each run checking Marvin's clock itself (a guard), so
//! it rings at its time across both zones' DST changes.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;

use crate::when;

/// A moment on the daemon's wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wall {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
}

/// How Marvin's times become the daemon's.
#[derive(Debug, Clone)]
pub(crate) struct CronClock {
    /// Marvin's zone (TZ; `None`: the system's).
    ours: Option<String>,
    /// When the daemon's zone is another: `date` and the daemon's TZ (`None`: the system's).
    convert: Option<(Option<PathBuf>, Option<String>)>,
}

impl CronClock {
    /// The clocks of TZ `ours` and MARVIN_CRON_TZ `daemon`, with `date` to convert.
    pub(crate) fn new(ours: Option<String>, daemon: Option<String>, date: Option<PathBuf>) -> Self {
        let convert = (ours != daemon).then_some((date, daemon));
        Self { ours, convert }
    }

    /// Whether the daemon's zone is not Marvin's, so times are converted.
    pub(crate) fn converts(&self) -> bool {
        self.convert.is_some()
    }

    /// The daemon's wall clock at each of `ats`.
    pub(crate) fn walls(&self, ats: &[i64]) -> Result<Vec<Wall>, String> {
        match &self.convert {
            None => Ok(ats.iter().map(|at| own_wall(*at)).collect()),
            Some((Some(date), zone)) => run_date(date, zone.as_deref(), ats),
            Some((None, _)) => Err("Marvin's time zone (TZ) is not the cron daemon's, and `date` is not installed to convert between them: install coreutils, or unset TZ.".to_string()),
        }
    }

    /// The shell words that end a run unless Marvin's clock shows `clock` ("07:30") on one of
    /// `weekdays` (a `case` pattern of `date +%u`, `*` for any day); `None` when the daemon
    /// reads Marvin's clock and the fields are enough.
    pub(crate) fn guard(&self, clock: &str, weekdays: &str) -> Option<String> {
        self.convert.as_ref()?;
        let date = match &self.ours {
            Some(zone) => format!("TZ={} date", super::cron::quote(zone)),
            None => "(unset TZ; date)".to_string(),
        };
        Some(format!(
            "case \"$({date} +\\%H:\\%M:\\%u)\" in {clock}:{weekdays}) ;; *) exit 0 ;; esac; "
        ))
    }

    /// The minute and hour fields of a line that rings daily at `hour`:`minute` on Marvin's
    /// clock: the daemon's minutes and hours of that time on each of the next 366 days.
    pub(crate) fn daily_fields(&self, hour: u32, minute: u32, now: i64) -> Result<String, String> {
        let today = when::local(now).days();
        let ats: Vec<i64> = (0..366)
            .map(|d| when::from_local(today + d, hour, minute))
            .collect();
        let walls = self.walls(&ats)?;
        let list = |pick: fn(&Wall) -> u32| {
            let set: BTreeSet<u32> = walls.iter().map(pick).collect();
            set.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        };
        Ok(format!("{} {}", list(|w| w.minute), list(|w| w.hour)))
    }
}

fn own_wall(at: i64) -> Wall {
    let l = when::local(at);
    Wall {
        year: l.year,
        month: l.month,
        day: l.day,
        hour: l.hour,
        minute: l.minute,
    }
}

const FORMAT: &str = "+%Y %m %d %H %M";

/// `date` in the daemon's zone: GNU's `-f -` reads every moment at once, else BSD's `-r`.
fn run_date(date: &PathBuf, zone: Option<&str>, ats: &[i64]) -> Result<Vec<Wall>, String> {
    let command = |args: &[String]| {
        // The system's `date`, given only numbers: the person's own program.
        let mut c = crate::sandbox::unconfined(date);
        c.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        match zone {
            Some(zone) => c.env("TZ", zone),
            None => c.env_remove("TZ"),
        };
        c
    };
    let gnu = command(&["-f".into(), "-".into(), FORMAT.into()])
        .spawn()
        .and_then(|mut child| {
            let input: String = ats.iter().map(|at| format!("@{at}\n")).collect();
            if let Some(mut stdin) = child.stdin.take() {
                stdin.write_all(input.as_bytes())?;
            }
            child.wait_with_output()
        });
    if let Some(walls) = gnu
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| read_walls(&String::from_utf8_lossy(&out.stdout), ats.len()))
    {
        return Ok(walls);
    }
    let mut walls = Vec::with_capacity(ats.len());
    for at in ats {
        let out = command(&["-r".into(), at.to_string(), FORMAT.into()])
            .output()
            .map_err(|e| format!("Could not run '{}': {e}.", date.display()))?;
        walls.extend(
            read_walls(&String::from_utf8_lossy(&out.stdout), 1).ok_or_else(|| {
                format!(
                    "'{}' did not say the cron daemon's time of {at}.",
                    date.display()
                )
            })?,
        );
    }
    Ok(walls)
}

/// `count` lines of "2027 01 15 07 30".
fn read_walls(text: &str, count: usize) -> Option<Vec<Wall>> {
    let walls: Vec<Wall> = text
        .lines()
        .map(|line| {
            let n: Vec<i64> = line
                .split(' ')
                .map(|n| n.parse().ok())
                .collect::<Option<_>>()?;
            let [year, month, day, hour, minute] = n[..] else {
                return None;
            };
            Some(Wall {
                year,
                month: month as u32,
                day: day as u32,
                hour: hour as u32,
                minute: minute as u32,
            })
        })
        .collect::<Option<_>>()?;
    (walls.len() == count).then_some(walls)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date() -> Option<PathBuf> {
        ["/usr/bin/date", "/bin/date"]
            .map(PathBuf::from)
            .into_iter()
            .find(|p| p.is_file())
    }

    #[test]
    fn one_zone_needs_no_conversion_and_no_guard() {
        let same = CronClock::new(Some("UTC".into()), Some("UTC".into()), None);
        assert_eq!(same.walls(&[0]).unwrap()[0], own_wall(0));
        assert_eq!(same.guard("07:30", "*"), None);
        let none = CronClock::new(None, None, None);
        assert_eq!(none.guard("07:30", "*"), None);
        let lost = CronClock::new(Some("UTC".into()), None, None);
        assert!(
            lost.walls(&[0])
                .unwrap_err()
                .contains("`date` is not installed")
        );
    }

    /// The daemon in Sydney, Marvin in whatever zone the test runs: the fields are Sydney's
    /// (read from the zone corpus: +11:00 on 15 January 2027, +10:00 on 15 July).
    #[test]
    fn another_zone_is_converted_by_date_and_guarded() {
        let clock = CronClock::new(
            Some("Europe/Berlin".into()),
            Some("Australia/Sydney".into()),
            date(),
        );
        let jan = 1_800_000_000; // 2027-01-15T08:00:00Z
        let jul = jan + 181 * 86_400; // 2027-07-15T08:00:00Z
        let walls = clock.walls(&[jan, jul]).unwrap();
        assert_eq!((walls[0].day, walls[0].hour, walls[0].minute), (15, 19, 0));
        assert_eq!((walls[1].month, walls[1].hour), (7, 18));
        assert_eq!(
            clock.guard("07:30", "[1-5]").unwrap(),
            "case \"$(TZ='Europe/Berlin' date +\\%H:\\%M:\\%u)\" in 07:30:[1-5]) ;; *) exit 0 ;; esac; "
        );
    }
}
