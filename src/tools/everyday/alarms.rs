//! Alarms as crontab lines Marvin owns (`# marvin:alarm-<id>`, see `kit::cron`):
//! `set_alarm`, `list_alarms`, `cancel_alarm`. A line fires `notify-send` (when it was
//! installed when the alarm was set; macOS's `osascript` when it was not) and publishes to ntfy with curl (when the profile has a
//! topic: the preference `ntfy_topic`, else its first ntfy subscription). A one-shot alarm's
//! line carries its year, does nothing in any other year, and takes itself out of the crontab
//! after firing (through a temporary file, so a failing `crontab -l` never empties it); `list_alarms` also drops one-shots whose time has passed (the machine may
//! have been off). Calendar reminders are built here too ([`one_shot`]).

use std::path::PathBuf;

use serde::Deserialize;

use crate::programs::find_program;
use crate::store;
use crate::tools::kit::cron::{self, Crontab};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};
use crate::when;

/// The guard that keeps a one-shot line quiet in any other year (`\%` is cron's `%`).
const YEAR_GUARD: (&str, &str) = ("test \"$(date +\\%Y)\" = ", " || exit 0; ");
const LABEL: &str = ": ";

const SET_PARAMS: &[Param] = &[
    Param::required(
        "time",
        Kind::String,
        "When, in the user's local time: \"07:30\" (the next one), \"tomorrow 7:30\", \"friday 15:00\", \"in 20 minutes\", \"2026-12-24 18:00\" or an ISO date-time with offset",
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
        }
    }

    /// Whether the line would tell anyone at all.
    pub(crate) fn any(&self) -> bool {
        self.notify_send.is_some() || self.osascript.is_some() || self.ntfy.is_some()
    }

    /// The commands that show `title` and `message`, each text one quoted word.
    pub(crate) fn commands(&self, title: &str, message: &str) -> String {
        let mut parts = vec![format!("{LABEL}{}", cron::quote(message))];
        if let Some(program) = &self.notify_send {
            // SAFETY: getuid cannot fail.
            let uid = unsafe { libc::getuid() };
            parts.push(format!(
                "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/{uid}/bus {} -a Marvin {} {}",
                program.display(),
                cron::quote(title),
                cron::quote(message)
            ));
        }
        if let Some(program) = &self.osascript {
            let text = |t: &str| t.replace('\\', "\\\\").replace('"', "\\\"");
            let script = format!(
                "display notification \"{}\" with title \"{}\"",
                text(message),
                text(title)
            );
            parts.push(format!("{} -e {}", program.display(), cron::quote(&script)));
        }
        if let Some((curl, url)) = &self.ntfy {
            parts.push(format!(
                "{} -fsS -m 30 -H {} -d {} {} >/dev/null 2>&1",
                curl.display(),
                cron::quote(&format!("Title: {title}")),
                cron::quote(message),
                cron::quote(url)
            ));
        }
        parts.join("; ")
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

/// The crontab line of a one-time notification at unix time `at`: quiet in any other year,
/// gone from the crontab once it has fired.
pub(crate) fn one_shot(
    crontab: &Crontab,
    notifier: &Notifier,
    at: i64,
    id: &str,
    title: &str,
    message: &str,
) -> String {
    let l = when::local(at);
    let fields = format!("{} {} {} {} *", l.minute, l.hour, l.day, l.month);
    let program = cron::quote(&crontab.path().display().to_string());
    // The table goes through a file so that a `crontab -l` that fails at that moment stops
    // the removal instead of installing an empty table.
    let command = format!(
        "{}{}{}{}; f=$(mktemp) && {program} -l > \"$f\" && grep -vF {} \"$f\" | {program} -; rm -f \"$f\"",
        YEAR_GUARD.0,
        l.year,
        YEAR_GUARD.1,
        notifier.commands(title, message),
        cron::quote(&format!("marvin:{id}"))
    );
    cron::line(&fields, &command, id)
}

/// A line's year when it is a one-shot, and its label.
pub(crate) fn read_command(command: &str) -> Option<(Option<i64>, String)> {
    let (year, rest) = match command.strip_prefix(YEAR_GUARD.0) {
        Some(rest) => {
            let (year, rest) = rest.split_once(YEAR_GUARD.1)?;
            (Some(year.parse().ok()?), rest)
        }
        None => (None, command),
    };
    let (label, _) = cron::unquote(rest.strip_prefix(LABEL)?)?;
    Some((year, label))
}

/// When a one-shot line fires, as unix time.
pub(crate) fn one_shot_time(fields: &[&str; 5], year: i64) -> Option<i64> {
    let [minute, hour, day, month] = [0, 1, 2, 3].map(|i| fields[i].parse::<u32>().ok());
    let days = crate::clock::days_from_civil(year, month?, day?);
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
            one_shot(crontab, notifier, at, id, "Marvin alarm", label),
            when::show(at),
        ),
        "daily" | "every day" => (
            repeating(notifier, &l, "*", label, id),
            format!("every day at {clock}"),
        ),
        "weekdays" | "weekday" => (
            repeating(notifier, &l, "1-5", label, id),
            format!("Monday to Friday at {clock}"),
        ),
        other => {
            return Err(format!(
                "repeat '{other}' is not one I know: use \"daily\", \"weekdays\" or leave it out for once."
            ));
        }
    })
}

fn repeating(
    notifier: &Notifier,
    l: &when::Local,
    weekdays: &str,
    label: &str,
    id: &str,
) -> String {
    let fields = format!("{} {} * * {weekdays}", l.minute, l.hour);
    cron::line(&fields, &notifier.commands("Marvin alarm", label), id)
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
            let Some((year, label)) = read_command(owned.command) else {
                continue;
            };
            let f = &owned.fields;
            let said = match year.and_then(|y| one_shot_time(f, y)) {
                Some(at) if at <= now => {
                    past.push(owned.id.to_string());
                    continue;
                }
                Some(at) => when::show(at),
                None if f[4] == "1-5" => format!("Monday to Friday at {:0>2}:{:0>2}", f[1], f[0]),
                None => format!("every day at {:0>2}:{:0>2}", f[1], f[0]),
            };
            lines.push(format!("- {} — {said}: {label}", owned.id));
        }
        let (kept, _) = cron::without(table, |id| past.iter().any(|p| p == id));
        (kept, (lines, past))
    })?;
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
        };
        let crontab = Crontab::at(PathBuf::from("/usr/bin/crontab"));
        let at = when::from_local(crate::clock::days_from_civil(2027, 1, 15), 7, 30);
        let line = one_shot(&crontab, &notifier, at, "alarm-0000aaaa", "T", "it's 50%");
        let owned = cron::owned(&line).unwrap();
        assert_eq!(owned.id, "alarm-0000aaaa");
        assert_eq!(owned.fields, ["30", "7", "15", "1", "*"]);
        assert_eq!(
            read_command(owned.command),
            Some((Some(2027), "it's 50%".to_string()))
        );
        assert_eq!(one_shot_time(&owned.fields, 2027), Some(at));
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
        };
        assert_eq!(
            notifier.commands("Marvin alarm", r#"say "hi" \ it's 5%"#),
            // Each backslash is followed by '' (the quote closed and reopened) for cron.
            r#": 'say "hi" \'' it'\''s 5\%'; /usr/bin/osascript -e 'display notification "say \''"hi\''" \''\'' it'\''s 5\%" with title "Marvin alarm"'"#
        );
    }
}
