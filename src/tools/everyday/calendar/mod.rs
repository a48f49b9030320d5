//! The profile's calendar: one iCalendar file an event in `calendar/` (`<id>.ics`, written by
//! `ics`; any `.ics` put there by hand or by another calendar is read too), and the tools
//! `calendar_add_event`, `calendar_delete_event`, `calendar_view`, `calendar_list_upcoming`.
//! An event added here gets reminders 1 hour and 30 minutes before, as one-time crontab lines
//! Marvin owns (`# marvin:event-<id>-60`, `-30`: see `alarms::one_shot`), removed with it.

mod ics;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::alarms::{Notifier, one_shot};
use crate::store::calendar;
use crate::tools::kit::cron::{self, Crontab};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};
use crate::when;
use ics::Event;

/// Minutes before an event that its reminders ring.
const REMINDERS: [i64; 2] = [60, 30];
const DEFAULT_MINUTES: i64 = 60;
const DEFAULT_DAYS: i64 = 7;
const MAX_DAYS: i64 = 366;

const ADD_PARAMS: &[Param] = &[
    Param::required("summary", Kind::String, "What the event is"),
    Param::required(
        "start",
        Kind::String,
        "When it starts, local time: \"2026-12-24 18:00\", \"friday 15:00\", \"tomorrow at 9:30\", \"December 5 10:00\", \"in 3 days\"",
    ),
    Param::optional(
        "end",
        Kind::String,
        "When it ends (a bare time is on the start's day); default: duration_minutes after the start",
    ),
    Param::optional(
        "duration_minutes",
        Kind::Integer,
        "How long it lasts (default 60)",
    ),
    Param::optional("location", Kind::String, "Where"),
    Param::optional("description", Kind::String, "Notes"),
    Param::optional(
        "reminders",
        Kind::Boolean,
        "Notify 1 hour and 30 minutes before (default true)",
    ),
];
const DELETE_PARAMS: &[Param] = &[Param::required(
    "id",
    Kind::String,
    "The event's id, as calendar_add_event or calendar_view gave it",
)];
const VIEW_PARAMS: &[Param] = &[
    Param::optional(
        "date",
        Kind::String,
        "The day: \"today\" (default), \"tomorrow\", a weekday, \"next friday\", \"December 5\" or YYYY-MM-DD",
    ),
    Param::optional(
        "end_date",
        Kind::String,
        "The last day of a range, same forms (default: the same day)",
    ),
];
const UPCOMING_PARAMS: &[Param] = &[Param::optional(
    "days",
    Kind::Integer,
    "How many days ahead (default 7, at most 366)",
)];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "calendar",
    about: "calendar events, meetings, reminders",
    words: &[
        "cal",
        "calendar",
        "schedule",
        "scheduled",
        "meeting",
        "meetings",
        "appointment",
        "appointments",
        "event",
        "events",
        "agenda",
        "diary",
        "remind me",
        "reminder",
        "reminders",
        "~plan",
        "~plans",
        "planned",
        "busy",
        "~free on",
        "birthday",
        "anniversary",
        "wedding",
        "save the date",
        "party",
        "holiday",
        "vacation",
        "lunch",
        "dinner",
        "conference",
        "call with",
        "~booked",
        "~book",
        "whats on",
        "what is on",
        "~do i have",
        "~am i",
        "~tomorrow",
        "~today",
        "~tonight",
        "~next week",
        "~this week",
        "~monday",
        "~tuesday",
        "~wednesday",
        "~thursday",
        "~friday",
        "~saturday",
        "~sunday",
        "~weekend",
        "clear my",
        "cancel my",
        "program",
        "remind*",
        "when is",
        "when are",
        "when will",
        "concert",
        "~match",
        "tournament",
        "~show",
        "gig",
        "~cancel",
        "flight",
        "~clocktime",
        "~january",
        "~february",
        "~march",
        "~april",
        "~june",
        "~july",
        "~august",
        "~september",
        "~october",
        "~november",
        "~december",
    ],
    asks: &[
        "remind me to call the bank",
        "set a reminder for the dentist",
        "what does my day look like",
        "anything planned this morning",
        "when is my next appointment",
        "what's on my calendar tomorrow",
        "add a meeting on friday at 3",
        "book dentist next tuesday",
        "what is coming up this week",
        "cancel the appointment",
        "when is the party",
        "do I have anything on at the weekend",
        "schedule lunch with sam",
        "import this ics file",
        "put it in my diary",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("calendar_add_event")
            .describe("Add an event to the user's calendar (an .ics file other calendars can import), with reminders 1 hour and 30 minutes before. Use for appointments and plans at a date and time.")
            .offered(Offered::Everywhere)
            .writes()
            .params(ADD_PARAMS)
            .example(r#"{"summary": "Dentist", "start": "friday 15:00", "duration_minutes": 45, "location": "Main St 5"}"#)
            .handler(add_event),
        ToolDef::build("calendar_delete_event")
            .describe("Delete an event from the user's calendar by its id, with its reminders.")
            .offered(Offered::Everywhere)
            .writes()
            .params(DELETE_PARAMS)
            .example(r#"{"id": "3f9c0a12"}"#)
            .handler(delete_event),
        ToolDef::build("calendar_view")
            .describe("Show the user's calendar for a day or a range of days.")
            .offered(Offered::Everywhere)
            .params(VIEW_PARAMS)
            .example(r#"{"date": "tomorrow"}"#)
            .handler(view),
        ToolDef::build("calendar_list_upcoming")
            .describe("List the user's coming events (those not over yet), soonest first.")
            .offered(Offered::Everywhere)
            .params(UPCOMING_PARAMS)
            .example(r#"{"days": 7}"#)
            .handler(upcoming),
    ]
}

/// The profile directory, whose `calendar/` holds the events (store::calendar).
fn profile(ctx: &ToolContext) -> Result<PathBuf, String> {
    ctx.shared
        .profile_dir()
        .ok_or_else(|| "There is no profile to keep a calendar in (no MARVIN_HOME).".to_string())
}

#[derive(Deserialize)]
struct AddArgs {
    summary: String,
    start: String,
    end: Option<String>,
    duration_minutes: Option<i64>,
    location: Option<String>,
    description: Option<String>,
    reminders: Option<bool>,
}

fn add_event(args: AddArgs, ctx: &ToolContext) -> Result<String, String> {
    let summary = args.summary.trim().to_string();
    if summary.is_empty() {
        return Err("The summary is empty: say what the event is.".into());
    }
    let now = crate::clock::unix_now();
    let start = when::parse(&args.start, now)?;
    let end = match (&args.end, args.duration_minutes) {
        (Some(end), _) => end_after(end, start, now)?,
        (None, Some(minutes)) if (1..=60 * 24 * 31).contains(&minutes) => start + minutes * 60,
        (None, Some(minutes)) => {
            return Err(format!(
                "duration_minutes {minutes} is out of range: give 1 to 44640 minutes."
            ));
        }
        (None, None) => start + DEFAULT_MINUTES * 60,
    };
    if end <= start {
        return Err(format!(
            "The end ({}) is not after the start ({}).",
            when::show(end),
            when::show(start)
        ));
    }
    let id = crate::secret::random_hex(4).map_err(|e| format!("no randomness for an id: {e}"))?;
    let event = Event {
        uid: format!("{id}@marvin"),
        summary,
        start,
        end,
        location: given(args.location),
        description: given(args.description),
        stamp: now,
        all_day: false,
    };
    let dir = profile(ctx)?;
    let path = calendar::save(&dir, &id, &ics::write(&event)).map_err(|e| {
        let folder = calendar::folder(&dir);
        format!("Cannot save the event in {}: {e}.", folder.display())
    })?;
    let mut result = format!(
        "Added {} (id {id}), saved as {}.",
        describe(&event),
        path.display()
    );
    if args.reminders.unwrap_or(true) {
        result.push(' ');
        result.push_str(&remind(ctx, &id, &event, now));
    }
    Ok(result)
}

/// The end as people give it, read both from now (as the start was: "friday 16:00",
/// "tomorrow 16:00") and from the start ("16:00", "in 2 hours"), whichever comes first after
/// the start: so a start and an end on the same named day stay on that day, and a bare time
/// is the next one after the start.
fn end_after(end: &str, start: i64, now: i64) -> Result<i64, String> {
    let from_now = when::parse(end, now)?;
    let from_start = when::parse(end, start)?;
    Ok([from_now, from_start]
        .into_iter()
        .filter(|at| *at > start)
        .min()
        .unwrap_or(from_now))
}

fn given(text: Option<String>) -> Option<String> {
    text.map(|t| t.trim().to_string()).filter(|t| !t.is_empty())
}

/// Puts the event's reminders in the crontab; says what was set, or why not.
fn remind(ctx: &ToolContext, id: &str, event: &Event, now: i64) -> String {
    let due: Vec<i64> = REMINDERS
        .into_iter()
        .filter(|minutes| event.start - minutes * 60 > now)
        .collect();
    if due.is_empty() {
        return "No reminders: the event is less than 30 minutes away.".into();
    }
    let crontab = match Crontab::find(ctx) {
        Ok(crontab) => crontab,
        Err(why) => return format!("The event is saved, but without reminders. {why}"),
    };
    let notifier = Notifier::find(ctx);
    if !notifier.any() {
        return format!(
            "The event is saved, but without reminders: {}",
            notifier.missing.join(" ")
        );
    }
    let lines: Result<Vec<String>, String> = due
        .iter()
        .map(|minutes| reminder(&crontab, &notifier, id, event, *minutes))
        .collect();
    let written = lines.and_then(|lines| {
        crontab.edit(&ctx.cancel, |table| {
            let table = lines
                .iter()
                .fold(table.to_string(), |t, l| cron::with_line(&t, l));
            (table, ())
        })
    });
    let when_said: Vec<String> = due
        .iter()
        .map(|minutes| when::clock(event.start - minutes * 60))
        .collect();
    match written {
        Ok(()) => {
            let mut said = format!("Reminders at {}.", when_said.join(" and "));
            for note in &notifier.missing {
                said.push(' ');
                said.push_str(note);
            }
            said
        }
        Err(why) => format!("The event is saved, but the reminders could not be set: {why}"),
    }
}

/// The crontab line of the reminder `minutes` before `event`.
fn reminder(
    crontab: &Crontab,
    notifier: &Notifier,
    id: &str,
    event: &Event,
    minutes: i64,
) -> Result<String, String> {
    let title = if minutes == 60 {
        "In 1 hour".to_string()
    } else {
        format!("In {minutes} minutes")
    };
    let mut message = format!("{} at {}", event.summary, when::clock(event.start));
    if let Some(location) = &event.location {
        message.push_str(&format!(" ({location})"));
    }
    let at = event.start - minutes * 60;
    one_shot(
        crontab,
        notifier,
        at,
        &format!("event-{id}-{minutes}"),
        &title,
        &message,
    )
}

/// "'Dentist' on Tue 24 Nov 2026 15:00–16:00 at Main St 5".
fn describe(event: &Event) -> String {
    let start = when::local(event.start);
    let span = if event.all_day {
        let last = when::local(event.end - 1).days();
        if last > start.days() {
            format!(
                "{} to {} (all day)",
                when::show_day(start.days()),
                when::show_day(last)
            )
        } else {
            format!("{} (all day)", when::show_day(start.days()))
        }
    } else {
        when::show_span(event.start, event.end)
    };
    let mut text = format!("'{}' on {span}", event.summary.replace('\n', " "));
    if let Some(location) = &event.location {
        text.push_str(&format!(" at {}", location.replace('\n', " ")));
    }
    text
}

/// Every event of the calendar with the id of its file, soonest first; unreadable files are
/// skipped.
fn events(profile: &Path) -> Vec<(String, Event)> {
    let mut all: Vec<(String, Event)> = calendar::all(profile)
        .into_iter()
        .flat_map(|(id, text)| ics::parse(&text).into_iter().map(move |e| (id.clone(), e)))
        .collect();
    all.sort_by_key(|(id, e)| (e.start, e.end, id.clone()));
    all
}

/// The lines of the events that overlap `[from, to)`.
fn listing(dir: &Path, from: i64, to: i64) -> Vec<String> {
    events(dir)
        .into_iter()
        .filter(|(_, e)| e.start < to && (e.end > from || (e.end == e.start && e.start >= from)))
        .map(|(id, e)| {
            let mut line = format!("- {} (id {id})", describe(&e));
            if let Some(description) = &e.description {
                line.push_str(&format!("\n  {}", description.replace('\n', "\n  ")));
            }
            line
        })
        .collect()
}

#[derive(Deserialize)]
struct DeleteArgs {
    id: String,
}

fn delete_event(args: DeleteArgs, ctx: &ToolContext) -> Result<String, String> {
    let id = args.id.trim().trim_end_matches(".ics");
    let id = id.strip_suffix("@marvin").unwrap_or(id);
    if !cron::is_id(id) {
        return Err(format!(
            "'{id}' is not an event id: calendar_view and calendar_list_upcoming show them."
        ));
    }
    let dir = profile(ctx)?;
    let text = calendar::read(&dir, id).map_err(|_| {
        format!("There is no event {id} in the calendar: calendar_list_upcoming shows the ids.")
    })?;
    let events = ics::parse(&text);
    if events.len() > 1 {
        return Err(format!(
            "{id}.ics holds {} events (a file from another calendar), and Marvin deletes only a file of one event. The user can remove {} themselves if all of them should go.",
            events.len(),
            calendar::folder(&dir).join(format!("{id}.ics")).display()
        ));
    }
    let what = events
        .first()
        .map_or_else(|| format!("event {id}"), describe);
    calendar::remove(&dir, id).map_err(|e| format!("Cannot delete event {id}: {e}."))?;
    let prefix = format!("event-{id}-");
    // Without a cron there are no reminders to take out.
    let Ok(crontab) = Crontab::find(ctx) else {
        return Ok(format!("Deleted {what}."));
    };
    let reminders = crontab.edit(&ctx.cancel, |table| {
        cron::without_ids(table, |owned| owned.starts_with(&prefix))
    });
    if let Ok(ids) = &reminders {
        super::alarm_label::forget(ctx.settings.marvin_home.as_deref(), ids);
    }
    Ok(match reminders.map(|ids| ids.len()) {
        Ok(0) => format!("Deleted {what}."),
        Ok(n) => format!("Deleted {what} and its {n} reminder(s)."),
        Err(why) => format!("Deleted {what}; its reminders could not be looked for: {why}"),
    })
}

#[derive(Deserialize)]
struct ViewArgs {
    date: Option<String>,
    end_date: Option<String>,
}

fn view(args: ViewArgs, ctx: &ToolContext) -> Result<String, String> {
    let today = when::local(crate::clock::unix_now()).days();
    let day = |text: Option<&str>, default: i64| -> Result<i64, String> {
        match text.map(|t| t.trim().to_lowercase()).filter(|t| !t.is_empty()) {
            None => Ok(default),
            Some(text) => when::named_day(&text, today).ok_or_else(|| {
                format!("'{text}' is not a day I can read: give \"today\", \"tomorrow\", a weekday or YYYY-MM-DD.")
            }),
        }
    };
    let first = day(args.date.as_deref(), today)?;
    let last = day(args.end_date.as_deref(), first)?;
    if last < first || last - first > MAX_DAYS {
        return Err("end_date must be on or after date, and at most 366 days later.".into());
    }
    let lines = listing(
        &profile(ctx)?,
        when::from_local(first, 0, 0),
        when::from_local(last + 1, 0, 0),
    );
    let span = if last == first {
        when::show_day(first)
    } else {
        format!("{} to {}", when::show_day(first), when::show_day(last))
    };
    Ok(if lines.is_empty() {
        format!("Nothing on the calendar for {span}.")
    } else {
        format!("{span}:\n{}", lines.join("\n"))
    })
}

#[derive(Deserialize)]
struct UpcomingArgs {
    days: Option<i64>,
}

fn upcoming(args: UpcomingArgs, ctx: &ToolContext) -> Result<String, String> {
    let days = args.days.unwrap_or(DEFAULT_DAYS);
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(format!("days must be 1 to {MAX_DAYS}, not {days}."));
    }
    let now = crate::clock::unix_now();
    let lines = listing(&profile(ctx)?, now, now + days * 86_400);
    Ok(if lines.is_empty() {
        format!("Nothing on the calendar in the next {days} day(s).")
    } else {
        lines.join("\n")
    })
}
