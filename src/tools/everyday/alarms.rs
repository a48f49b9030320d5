//! Alarms as crontab lines Marvin owns (`# marvin:alarm-<id>`, see `kit::cron`):
//! `set_alarm`, `list_alarms`, `cancel_alarm`. A line fires `notify-send` (when it was
//! installed when the alarm was set; macOS's `osascript` when it was not) and publishes to ntfy with curl (when the profile has a
//! topic: the preference `ntfy_topic`, else its first ntfy subscription). A one-shot alarm's
//! line carries its year, does nothing in any other year, and takes itself out of the crontab
//! after firing (through a temporary file, so a failing `crontab -l` never empties it); `list_alarms` also drops one-shots whose time has passed (the machine may
//! have been off). Calendar reminders are built here too ([`one_shot`]). Lines are written on
//! the cron daemon's clock (`kit::cron_clock`); a long label is kept in a file the line reads
//! (`alarm_label`).

use std::path::PathBuf;

use serde::Deserialize;

use super::alarm_label::{self, Label};
use crate::programs::find_program;
use crate::store;
use crate::tools::kit::cron::{self, Crontab};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};
use crate::when;

/// The guard that keeps a one-shot line quiet in any other year (`\%` is cron's `%`).
const YEAR_GUARD: (&str, &str) = ("test \"$(date +\\%Y)\" = ", " || exit 0; ");
/// How a one-shot on another zone's clock starts: its moment, for listing it.
const AT: &str = ": at=";

const SET_PARAMS: &[Param] = &[
    Param::required(
        "time",
        Kind::String,
        "When, in the user's local time: \"07:30\" (the next one), \"tomorrow at 9\", \"next friday 3pm\" (the first Friday after today), \"December 5 10:00\", \"in 20 minutes\", \"in 3 days\", \"2026-12-24 18:00\" or an ISO date-time with offset",
    ),
    Param::optional(
        "label",
        Kind::String,
        "What the alarm says (default \"Alarm\")",
    ),
    Param::optional(
        "repeat",
        Kind::String,
        "\"daily\" or \"weekdays\" (Monday to Friday) to ring every such day at that time; default once",
    ),
];
const CANCEL_PARAMS: &[Param] = &[Param::required(
    "id",
    Kind::String,
    "The alarm's id, as set_alarm or list_alarms gave it (alarm-…)",
)];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "alarms",
    about: "alarms at a time of day",
    words: &[
        "alarm",
        "alarms",
        "wake me",
        "wake up",
        "wakeup",
        "alert me",
        "remind me",
        "clock",
        "snooze",
        "ring",
        "morning alarm",
        "get me up",
        "remind*",
        "~cancel",
        "~clocktime",
    ],
    asks: &[
        "wake me up at half six",
        "set an alarm for tomorrow morning",
        "I have to be up early, get me up at 5",
        "cancel my morning alarm",
        "which alarms do I have",
        "label the alarm gym",
        "turn off the alarm",
        "alarm at 7",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("set_alarm")
            .describe("Set an alarm or a reminder at a time (once, daily or on weekdays): a desktop notification and an ntfy push when the profile has a topic. Use when the user says \"wake me\", \"remind me at…\".")
            .offered(Offered::Everywhere)
            .writes()
            .params(SET_PARAMS)
            .example(r#"{"time": "tomorrow 7:30", "label": "Dentist at 8"}"#)
            .handler(set_alarm),
        ToolDef::build("list_alarms")
            .describe("List the alarms Marvin has set (with their ids), dropping one-time alarms whose time has passed.")
            .offered(Offered::Everywhere)
            .writes()
            .example("{}")
            .handler(list_alarms),
        ToolDef::build("cancel_alarm")
            .describe("Cancel an alarm set with set_alarm, by its id.")
            .offered(Offered::Everywhere)
            .writes()
            .params(CANCEL_PARAMS)
            .example(r#"{"id": "alarm-3f9c0a12"}"#)
            .handler(cancel_alarm),
    ]
}

/// How a cron line will tell the user: the commands, and what could not be used.
pub(crate) struct Notifier {
    notify_send: Option<PathBuf>,
    /// macOS's notifications, when there is no notify-send.
    osascript: Option<PathBuf>,
    /// curl and the topic's address.
    ntfy: Option<(PathBuf, String)>,
    /// Sentences for the result about what is missing.
    pub missing: Vec<String>,
    /// MARVIN_HOME, where long labels are kept.
    pub home: Option<PathBuf>,
}

impl Notifier {
    pub(crate) fn find(ctx: &ToolContext) -> Self {
        let path = ctx
            .settings
            .search_path
            .as_deref()
            .map(std::ffi::OsStr::new);
        let mut missing = Vec::new();
        let notify_send = find_program("notify-send", path);
        let osascript = notify_send
            .is_none()
            .then(|| find_program("osascript", path))
            .flatten();
        if notify_send.is_none() && osascript.is_none() {
            missing.push("notify-send is not installed, so there will be no desktop notification (install libnotify-bin or libnotify).".to_string());
        }
        let ntfy = match (topic(ctx), find_program("curl", path)) {
            (None, _) => {
                missing.push("The profile has no ntfy topic, so nothing goes to the phone (set the preference ntfy_topic or subscribe to a topic).".to_string());
                None
            }
            (Some(_), None) => {
                missing.push("curl is not installed, so the ntfy push is left out.".to_string());
                None
            }
            (Some(topic), Some(curl)) => {
                let base = ctx.settings.ntfy.base();
                if crate::net::without_userinfo(base) != base {
                    missing.push("NTFY_URL carries credentials, which never go into the crontab: the ntfy push is left out.".to_string());
                    None
                } else {
                    Some((curl, format!("{base}/{topic}")))
                }
            }
        };
        Self {
            notify_send,
            osascript,
            ntfy,
            missing,
            home: ctx.settings.marvin_home.clone(),
        }
    }

    /// notify-send and an ntfy topic through curl, at made-up paths, keeping long labels
    /// under `home`.
    #[cfg(test)]
    pub(crate) fn for_tests(home: Option<PathBuf>) -> Self {
        Self {
            notify_send: Some(PathBuf::from("/usr/bin/notify-send")),
            osascript: None,
            ntfy: Some((PathBuf::from("/usr/bin/curl"), "https://ntfy.sh/t".into())),
            missing: Vec::new(),
            home,
        }
    }

    /// Whether the line would tell anyone at all.
    pub(crate) fn any(&self) -> bool {
        self.notify_send.is_some() || self.osascript.is_some() || self.ntfy.is_some()
    }

    /// The commands that show `title` and `message`, each text one quoted word.
    pub(crate) fn commands(&self, title: &str, message: &Label) -> String {
        let mut parts = vec![message.head()];
        let word = message.word();
        if let Some(program) = &self.notify_send {
            // SAFETY: getuid cannot fail.
            let uid = unsafe { libc::getuid() };
            parts.push(format!(
                "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/{uid}/bus {} -a Marvin {} {}",
                program.display(),
                cron::quote(title),
                word
            ));
        }
        if let Some(program) = &self.osascript {
            parts.push(osascript(program, title, message));
        }
        if let Some((curl, url)) = &self.ntfy {
            parts.push(format!(
                "{} -fsS -m 30 -H {} -d {} {} >/dev/null 2>&1",
                curl.display(),
                cron::quote(&format!("Title: {title}")),
                word,
                cron::quote(url)
            ));
        }
        parts.join("; ")
    }
}

/// macOS's notification of `message` under `title`: the texts as AppleScript strings, or
/// the label file's text passed as an argument.
fn osascript(program: &std::path::Path, title: &str, message: &Label) -> String {
    let text = |t: &str| t.replace('\\', "\\\\").replace('"', "\\\"");
    let program = program.display();
    match message {
        Label::Inline(message) => {
            let script = format!(
                "display notification \"{}\" with title \"{}\"",
                text(message),
                text(title)
            );
            format!("{program} -e {}", cron::quote(&script))
        }
        Label::File(_) => {
            let show = format!(
                "display notification (item 1 of argv) with title \"{}\"",
                text(title)
            );
            format!(
                "{program} -e 'on run argv' -e {} -e 'end run' \"$m\"",
                cron::quote(&show)
            )
        }
    }
}

/// The profile's ntfy topic: the preference `ntfy_topic`, else its first subscription.
fn topic(ctx: &ToolContext) -> Option<String> {
    let dir = ctx.shared.profile_dir()?;
    let chosen = match crate::tools::kit::geo::preferences(ctx)["ntfy_topic"].as_str() {
        Some(topic) => Some(topic.trim().to_string()),
        None => store::ntfy::load(&dir, &ctx.shared.warnings)
            .into_iter()
            .next()
            .map(|s| s.topic),
    };
    chosen.filter(|t| store::is_plain_name(t, 64))
}

/// The crontab line of a one-time notification at unix time `at`, on the daemon's clock:
/// quiet in any other year, gone from the crontab (with its label file) once it has fired.
/// When the daemon's zone is not Marvin's the line starts with `: at=<unix time>;`, so that
/// listing it needs no conversion back.
pub(crate) fn one_shot(
    crontab: &Crontab,
    notifier: &Notifier,
    at: i64,
    id: &str,
    title: &str,
    message: &str,
) -> Result<String, String> {
    let wall = crontab.clock.walls(&[at])?[0];
    let fields = format!(
        "{} {} {} {} *",
        wall.minute, wall.hour, wall.day, wall.month
    );
    let moment = match crontab.clock.converts() {
        true => format!("{AT}{at}; "),
        false => String::new(),
    };
    let program = cron::quote(&crontab.path().display().to_string());
    let line = |label: &Label| {
        // The table goes through a file so that a `crontab -l` that fails at that moment
        // stops the removal instead of installing an empty table; the label file goes only
        // with the line.
        let removal = format!(
            "f=$(mktemp) && {program} -l > \"$f\" && grep -vF {} \"$f\" | {program} -{}; rm -f \"$f\"",
            cron::quote(&format!("marvin:{id}")),
            label.cleanup()
        );
        let command = format!(
            "{moment}{}{}{}{}; {}",
            YEAR_GUARD.0,
            wall.year,
            YEAR_GUARD.1,
            notifier.commands(title, label),
            crontab.locked(&removal)
        );
        cron::line(&fields, &command, id)
    };
    fitted(notifier, id, message, line)
}

/// The line `line` makes with `message` inside it when that is short enough, else with
/// `message` kept in a label file.
fn fitted(
    notifier: &Notifier,
    id: &str,
    message: &str,
    line: impl Fn(&Label) -> String,
) -> Result<String, String> {
    let inline = line(&Label::Inline(message.to_string()));
    if inline.len() <= alarm_label::MAX_LINE {
        return Ok(inline);
    }
    Ok(line(&alarm_label::store(
        notifier.home.as_deref(),
        id,
        message,
    )?))
}

/// What a line Marvin wrote says.
#[derive(Debug, PartialEq)]
pub(crate) struct Said {
    /// A one-shot's year on the daemon's clock.
    pub year: Option<i64>,
    /// A one-shot's moment, when the line carries it (the daemon's zone is another).
    pub at: Option<i64>,
    /// A repeating line's time and weekdays on Marvin's clock, when it checks them itself.
    pub guard: Option<(String, String)>,
    pub label: String,
}

/// What `command` (a line's command) says.
pub(crate) fn read_command(command: &str) -> Option<Said> {
    let (at, rest) = match command.strip_prefix(AT) {
        Some(rest) => {
            let (at, rest) = rest.split_once("; ")?;
            (Some(at.parse().ok()?), rest)
        }
        None => (None, command),
    };
    let (year, rest) = match rest.strip_prefix(YEAR_GUARD.0) {
        Some(rest) => {
            let (year, rest) = rest.split_once(YEAR_GUARD.1)?;
            (Some(year.parse().ok()?), rest)
        }
        None => (None, rest),
    };
    let (guard, rest) = match rest.strip_prefix("case \"$(") {
        Some(rest) => {
            let (_, rest) = rest.split_once(" in ")?;
            let (pattern, rest) = rest.split_once(") ;; *) exit 0 ;; esac; ")?;
            let (clock, weekdays) = pattern.rsplit_once(':')?;
            (Some((clock.to_string(), weekdays.to_string())), rest)
        }
        None => (None, rest),
    };
    let (label, _) = alarm_label::read(rest)?;
    Some(Said {
        year,
        at,
        guard,
        label,
    })
}

/// When a one-shot line fires, as unix time: its own word for it, else its fields read on
/// Marvin's clock (the daemon's then).
pub(crate) fn one_shot_time(fields: &[&str; 5], said: &Said) -> Option<i64> {
    if said.at.is_some() {
        return said.at;
    }
    let [minute, hour, day, month] = [0, 1, 2, 3].map(|i| fields[i].parse::<u32>().ok());
    let days = crate::clock::days_from_civil(said.year?, month?, day?);
    Some(when::from_local(days, hour?, minute?))
}

fn new_id(prefix: &str) -> Result<String, String> {
    let hex = crate::secret::random_hex(4).map_err(|e| format!("no randomness for an id: {e}"))?;
    Ok(format!("{prefix}-{hex}"))
}

#[derive(Deserialize)]
struct SetArgs {
    time: String,
    label: Option<String>,
    repeat: Option<String>,
}

fn set_alarm(args: SetArgs, ctx: &ToolContext) -> Result<String, String> {
    let now = crate::clock::unix_now();
    let at = when::parse(&args.time, now)?;
    let label = args
        .label
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "Alarm".into());
    let repeat = args.repeat.as_deref().map(str::trim).unwrap_or("once");
    let crontab = Crontab::find(ctx)?;
    let notifier = Notifier::find(ctx);
    if !notifier.any() {
        return Err(format!(
            "Nothing could ring: {} Set no alarm until one of them is there.",
            notifier.missing.join(" ")
        ));
    }
    let id = new_id("alarm")?;
    let (line, said) = schedule(&crontab, &notifier, (at, now), repeat, &id, &label)?;
    crontab.edit(&ctx.cancel, |table| (cron::with_line(table, &line), ()))?;
    let mut result = format!("Alarm {id} set for {said}: {label}.");
    for note in &notifier.missing {
        result.push(' ');
        result.push_str(note);
    }
    Ok(result)
}

/// The line of an alarm at `at` (seen at `now`) that rings once or as `repeat` says, and
/// how the result says when.
fn schedule(
    crontab: &Crontab,
    notifier: &Notifier,
    (at, now): (i64, i64),
    repeat: &str,
    id: &str,
    label: &str,
) -> Result<(String, String), String> {
    let l = when::local(at);
    let clock = format!("{:02}:{:02}", l.hour, l.minute);
    Ok(match repeat.to_lowercase().as_str() {
        "" | "once" | "none" | "no" if at <= now => {
            return Err(format!(
                "{} has passed already: give a time to come.",
                when::show(at)
            ));
        }
        "" | "once" | "none" | "no" => (
            one_shot(crontab, notifier, at, id, "Marvin alarm", label)?,
            when::show(at),
        ),
        "daily" | "every day" => (
            repeating((crontab, notifier), (&l, now), ("*", "*"), label, id)?,
            format!("every day at {clock}"),
        ),
        "weekdays" | "weekday" => (
            repeating((crontab, notifier), (&l, now), ("1-5", "[1-5]"), label, id)?,
            format!("Monday to Friday at {clock}"),
        ),
        other => {
            return Err(format!(
                "repeat '{other}' is not one I know: use \"daily\", \"weekdays\" or leave it out for once."
            ));
        }
    })
}

/// The line of an alarm every day (or weekday: `days` is the cron field and the `date +%u`
/// pattern) at `l`'s time: on the daemon's clock, or at each hour it can fall on there with a
/// guard on Marvin's clock when the two zones differ.
fn repeating(
    (crontab, notifier): (&Crontab, &Notifier),
    (l, now): (&when::Local, i64),
    (field, pattern): (&str, &str),
    label: &str,
    id: &str,
) -> Result<String, String> {
    let clock = format!("{:02}:{:02}", l.hour, l.minute);
    let (fields, guard) = match crontab.clock.guard(&clock, pattern) {
        None => (
            format!("{} {} * * {field}", l.minute, l.hour),
            String::new(),
        ),
        Some(guard) => {
            let times = crontab.clock.daily_fields(l.hour, l.minute, now)?;
            (format!("{times} * * *"), guard)
        }
    };
    fitted(notifier, id, label, |label| {
        let command = format!("{guard}{}", notifier.commands("Marvin alarm", label));
        cron::line(&fields, &command, id)
    })
}

#[derive(Deserialize)]
struct NoArgs {}

fn list_alarms(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    let crontab = Crontab::find(ctx)?;
    let now = crate::clock::unix_now();
    let (lines, past) = crontab.edit(&ctx.cancel, |table| {
        let mut lines = Vec::new();
        let mut past = Vec::new();
        for owned in cron::owned_lines(table)
            .into_iter()
            .filter(|o| o.id.starts_with("alarm-"))
        {
            let Some(said) = read_command(owned.command) else {
                continue;
            };
            let f = &owned.fields;
            let once = said.year.and_then(|_| one_shot_time(f, &said));
            let (clock, weekdays) = match &said.guard {
                Some((clock, days)) => (clock.clone(), days == "[1-5]"),
                None => (format!("{:0>2}:{:0>2}", f[1], f[0]), f[4] == "1-5"),
            };
            let when_said = match once {
                Some(at) if at <= now => {
                    past.push(owned.id.to_string());
                    continue;
                }
                Some(at) => when::show(at),
                None if weekdays => format!("Monday to Friday at {clock}"),
                None => format!("every day at {clock}"),
            };
            lines.push(format!("- {} — {when_said}: {}", owned.id, said.label));
        }
        let (kept, _) = cron::without(table, |id| past.iter().any(|p| p == id));
        (kept, (lines, past))
    })?;
    alarm_label::forget(ctx.settings.marvin_home.as_deref(), &past);
    let mut out = if lines.is_empty() {
        "No alarms are set.".to_string()
    } else {
        lines.join("\n")
    };
    if !past.is_empty() {
        out.push_str(&format!(
            "\n(Removed {} past one-time alarm(s): {}.)",
            past.len(),
            past.join(", ")
        ));
    }
    Ok(out)
}

#[derive(Deserialize)]
struct CancelArgs {
    id: String,
}

fn cancel_alarm(args: CancelArgs, ctx: &ToolContext) -> Result<String, String> {
    let id = args.id.trim();
    if !id.starts_with("alarm-") || !cron::is_id(id) {
        return Err(format!(
            "'{id}' is not an alarm id: list_alarms shows them (alarm-…)."
        ));
    }
    let crontab = Crontab::find(ctx)?;
    let removed = crontab.edit(&ctx.cancel, |table| cron::without(table, |i| i == id))?;
    alarm_label::forget(ctx.settings.marvin_home.as_deref(), &[id.to_string()]);
    if removed == 0 {
        return Err(format!(
            "There is no alarm {id} (it may have rung already): list_alarms shows those set."
        ));
    }
    Ok(format!("Cancelled alarm {id}."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_its_year_and_label_back() {
        let notifier = Notifier {
            notify_send: Some(PathBuf::from("/usr/bin/notify-send")),
            osascript: None,
            ntfy: Some((PathBuf::from("/usr/bin/curl"), "https://ntfy.sh/t".into())),
            missing: Vec::new(),
            home: None,
        };
        let crontab = Crontab::at(PathBuf::from("/usr/bin/crontab"));
        let at = when::from_local(crate::clock::days_from_civil(2027, 1, 15), 7, 30);
        let line = one_shot(&crontab, &notifier, at, "alarm-0000aaaa", "T", "it's 50%").unwrap();
        let owned = cron::owned(&line).unwrap();
        assert_eq!(owned.id, "alarm-0000aaaa");
        assert_eq!(owned.fields, ["30", "7", "15", "1", "*"]);
        let said = read_command(owned.command).unwrap();
        assert_eq!((said.year, said.label.as_str()), (Some(2027), "it's 50%"));
        assert_eq!(one_shot_time(&owned.fields, &said), Some(at));
        assert!(line.ends_with("; f=$(mktemp) && '/usr/bin/crontab' -l > \"$f\" && grep -vF 'marvin:alarm-0000aaaa' \"$f\" | '/usr/bin/crontab' -; rm -f \"$f\" # marvin:alarm-0000aaaa"), "{line}");
        assert!(!line.contains('\n'));
    }

    #[test]
    fn on_macos_osascript_shows_the_texts_as_applescript_strings() {
        let notifier = Notifier {
            notify_send: None,
            osascript: Some(PathBuf::from("/usr/bin/osascript")),
            ntfy: None,
            missing: Vec::new(),
            home: None,
        };
        assert_eq!(
            notifier.commands(
                "Marvin alarm",
                &Label::Inline(r#"say "hi" \ it's 5%"#.into())
            ),
            // Each backslash is followed by '' (the quote closed and reopened) for cron.
            r#": 'say "hi" \'' it'\''s 5\%'; /usr/bin/osascript -e 'display notification "say \''"hi\''" \''\'' it'\''s 5\%" with title "Marvin alarm"'"#
        );
    }
}
