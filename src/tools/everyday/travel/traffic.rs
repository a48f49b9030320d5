//! `traffic_adjusted_time`: OSRM's free-flow time times a time-of-day factor and a weather
//! factor. The seed names these multipliers without giving numbers; the ones below are ours,
//! round rules of thumb (rush hours slow cars by about half, snow and ice more than rain), and
//! the result always says it is an estimate and which factors were applied.

use serde::Deserialize;

use super::{Profile, about, duration, route};
use crate::clock;
use crate::tools::ToolContext;
use crate::tools::kit::geo;
use crate::tools::schema::{Kind, Param};

pub(super) const PARAMS: &[Param] = &[
    Param::required(
        "origin",
        Kind::String,
        "Where the trip starts: a saved place's label (home, work), \"lat,lng\", or a name or address",
    ),
    Param::required("destination", Kind::String, "Where it ends"),
    Param::optional(
        "profile",
        Kind::String,
        "driving (default; also car), cycling (bike) or walking (foot)",
    ),
    Param::optional(
        "departure",
        Kind::String,
        "When: \"now\" (default), \"08:15\" (today), \"Friday 17:30\", \"tomorrow 08:00\" or \"2026-12-01 08:00\", local time",
    ),
    Param::optional(
        "weather",
        Kind::String,
        "clear (default), rain, heavy rain, fog, snow, ice or storm (a weather_forecast description works too)",
    ),
];

const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Driving, by time of day: (weekdays?, from hour, to hour (excluded), factor, what it is).
const RUSH: &[(bool, u32, u32, f64, &str)] = &[
    (true, 7, 10, 1.4, "the weekday morning rush (07:00-10:00)"),
    (true, 16, 19, 1.5, "the weekday evening rush (16:00-19:00)"),
    (true, 10, 16, 1.15, "weekday daytime traffic"),
    (true, 6, 7, 1.1, "early weekday traffic"),
    (true, 19, 21, 1.1, "weekday evening traffic"),
    (false, 10, 20, 1.1, "weekend daytime traffic"),
];

/// Every way of travelling, by the weather: (words that name it, factor, what it is).
const WEATHER: &[(&[&str], f64, &str)] = &[
    (&["thunder", "storm"], 1.4, "a storm"),
    (&["ice", "icy", "freezing", "sleet", "hail"], 1.7, "ice"),
    (&["snow"], 1.5, "snow"),
    (&["heavy rain", "violent", "downpour"], 1.35, "heavy rain"),
    (&["rain", "drizzle", "shower", "wet"], 1.2, "rain"),
    (&["fog", "mist"], 1.25, "fog"),
    (
        &["clear", "sun", "cloud", "overcast", "dry", "fine", "fair"],
        1.0,
        "",
    ),
];

/// A moment of the week: day (0 = Monday), hour, minute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Departure {
    day: usize,
    hour: u32,
    minute: u32,
}

#[derive(Deserialize)]
pub(super) struct TrafficArgs {
    origin: String,
    destination: String,
    profile: Option<String>,
    departure: Option<String>,
    weather: Option<String>,
}

pub(super) fn traffic_adjusted_time(
    args: TrafficArgs,
    ctx: &ToolContext,
) -> Result<String, String> {
    let departure = departure(args.departure.as_deref().unwrap_or("now"), local_now())?;
    let (weather_factor, weather) = weather(args.weather.as_deref().unwrap_or("clear"))?;
    let route = route(
        ctx,
        &args.origin,
        &args.destination,
        args.profile.as_deref(),
    )?;
    let (hour_factor, hour) = time_of_day(route.profile, departure);
    let factor = hour_factor * weather_factor;
    let mut why = Vec::new();
    if hour_factor > 1.0 {
        why.push(format!("× {hour_factor} for {hour}"));
    }
    if weather_factor > 1.0 {
        why.push(format!("× {weather_factor} for {weather}"));
    }
    let why = if why.is_empty() {
        "no slowdown expected at this time and in this weather".to_string()
    } else {
        format!("{} = × {:.2}", why.join(", "), factor)
    };
    let when = format!(
        "{} {:02}:{:02}",
        DAYS[departure.day], departure.hour, departure.minute
    );
    let in_weather = if weather.is_empty() {
        String::new()
    } else {
        format!(" in {weather}")
    };
    let mut out = format!(
        "Estimated travel time {}, {}, leaving {when}{in_weather}: {}.\nWithout traffic: {} ({}); {why}.\nThis is an estimate from fixed rules of thumb, not live traffic.",
        route.trip(),
        geo::distance_unit(ctx).show(route.meters),
        about(route.seconds * factor),
        duration(route.seconds),
        if route.note.is_some() {
            "at a typical pace"
        } else {
            "OSRM"
        },
    );
    if let Some(note) = &route.note {
        out.push_str(&format!("\n{note}"));
    }
    Ok(out)
}

/// The time-of-day factor: only cars wait in traffic.
fn time_of_day(profile: Profile, at: Departure) -> (f64, &'static str) {
    if profile != Profile::Driving {
        return (1.0, "");
    }
    let weekday = at.day < 5;
    RUSH.iter()
        .find(|(on_weekdays, from, to, _, _)| {
            *on_weekdays == weekday && (*from..*to).contains(&at.hour)
        })
        .map_or((1.0, ""), |(_, _, _, factor, what)| (*factor, *what))
}

/// The weather factor for a description ("light rain", "Snow fall: heavy", "clear sky").
fn weather(said: &str) -> Result<(f64, &'static str), String> {
    let said = said.trim().to_lowercase();
    WEATHER
        .iter()
        .find(|(words, _, _)| words.iter().any(|word| said.contains(word)))
        .map(|(_, factor, what)| (*factor, *what))
        .ok_or_else(|| {
            format!("'{said}' is not a weather this tool knows: use clear, rain, heavy rain, fog, snow, ice or storm.")
        })
}

/// When the trip starts: "now", "HH:MM", "<day> HH:MM", "today|tomorrow HH:MM",
/// "YYYY-MM-DD HH:MM".
fn departure(said: &str, now: Departure) -> Result<Departure, String> {
    let said = said.trim().to_lowercase();
    if said.is_empty() || said == "now" {
        return Ok(now);
    }
    let wrong = || {
        format!(
            "'{said}' is not a departure time: use now, 08:15, Friday 17:30, tomorrow 08:00 or 2026-12-01 08:00."
        )
    };
    let (day, time) = match said.rsplit_once([' ', 'T', 't']) {
        Some((day, time)) => (day.trim(), time),
        None => ("today", said.as_str()),
    };
    let (hour, minute) = time.split_once(':').ok_or_else(wrong)?;
    let (Ok(hour), Ok(minute)) = (hour.parse::<u32>(), minute.parse::<u32>()) else {
        return Err(wrong());
    };
    if hour > 23 || minute > 59 {
        return Err(wrong());
    }
    let day = match day {
        "today" => now.day,
        "tomorrow" => (now.day + 1) % 7,
        day => weekday(day).ok_or_else(wrong)?,
    };
    Ok(Departure { day, hour, minute })
}

/// A weekday by name ("fri", "Friday") or a date's.
fn weekday(said: &str) -> Option<usize> {
    if let Some(day) = DAYS
        .iter()
        .position(|name| said.len() >= 3 && name.to_lowercase().starts_with(said))
    {
        return Some(day);
    }
    let mut parts = said.split('-').map(str::parse::<u32>);
    let (Some(Ok(year)), Some(Ok(month)), Some(Ok(date)), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&date) {
        return None;
    }
    Some(clock::weekday(clock::days_from_civil(
        i64::from(year),
        month,
        date,
    )))
}

/// The local day and time now (the TZ variable, else the system's zone).
fn local_now() -> Departure {
    let local = crate::when::local(crate::clock::unix_now());
    Departure {
        day: local.weekday as usize,
        hour: local.hour,
        minute: local.minute,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WEDNESDAY_NOON: Departure = Departure {
        day: 2,
        hour: 12,
        minute: 0,
    };

    #[test]
    fn departures_are_read_as_people_say_them() {
        let at = |day, hour, minute| Ok(Departure { day, hour, minute });
        for (said, meant) in [
            ("now", at(2, 12, 0)),
            ("08:15", at(2, 8, 15)),
            ("Friday 17:30", at(4, 17, 30)),
            ("sun 09:00", at(6, 9, 0)),
            ("tomorrow 08:00", at(3, 8, 0)),
            ("2026-12-01 08:00", at(1, 8, 0)),
            ("2026-11-23T19:45", at(0, 19, 45)),
        ] {
            assert_eq!(departure(said, WEDNESDAY_NOON), meant, "{said}");
        }
        for wrong in ["25:00", "someday 08:00", "soon", "2026-13-01 08:00"] {
            assert!(departure(wrong, WEDNESDAY_NOON).is_err(), "{wrong}");
        }
    }

    #[test]
    fn rush_hours_slow_cars_only() {
        let at = |day, hour| Departure {
            day,
            hour,
            minute: 0,
        };
        for (profile, when, factor) in [
            (Profile::Driving, at(0, 8), 1.4),
            (Profile::Driving, at(4, 17), 1.5),
            (Profile::Driving, at(2, 12), 1.15),
            (Profile::Driving, at(2, 23), 1.0),
            (Profile::Driving, at(5, 8), 1.0),
            (Profile::Driving, at(6, 14), 1.1),
            (Profile::Cycling, at(0, 8), 1.0),
            (Profile::Walking, at(4, 17), 1.0),
        ] {
            assert_eq!(time_of_day(profile, when).0, factor, "{profile:?} {when:?}");
        }
    }

    #[test]
    fn weather_words_and_forecast_descriptions() {
        for (said, factor) in [
            ("clear", 1.0),
            ("Partly cloudy", 1.0),
            ("rain", 1.2),
            ("slight rain showers", 1.2),
            ("heavy rain", 1.35),
            ("Snow fall: heavy", 1.5),
            ("freezing drizzle", 1.7),
            ("Thunderstorm with slight hail", 1.4),
            ("fog", 1.25),
        ] {
            assert_eq!(weather(said).map(|w| w.0), Ok(factor), "{said}");
        }
        assert!(weather("locusts").unwrap_err().contains("clear, rain"));
    }
}
