//! `weather_forecast`: current conditions and 1–7 days from Open-Meteo (OPEN_METEO_URL
//! `/v1/forecast`), for a saved place's label, "lat,lng" (kit::geo::known) or a place name
//! found by Open-Meteo's geocoding (OPEN_METEO_GEOCODING_URL `/v1/search`), in the units the
//! profile's preferences ask for. Open-Meteo's `{"error": true, "reason": …}` is said, and a
//! day beyond the model's horizon (its values `null`) is said to have no forecast yet.

use serde::Deserialize;
use serde_json::Value;

use crate::clock;
use crate::services::{OPEN_METEO, OPEN_METEO_GEOCODING, Service};
use crate::tools::kit::geo::{self, DistanceUnit, Spot};
use crate::tools::kit::web::Call;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const DEFAULT_DAYS: i64 = 3;
const MAX_DAYS: i64 = 7;
const CURRENT: &str = "temperature_2m,apparent_temperature,relative_humidity_2m,precipitation,weather_code,wind_speed_10m,wind_direction_10m";
const DAILY: &str = "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max,wind_speed_10m_max,sunrise,sunset";

const PARAMS: &[Param] = &[
    Param::required(
        "location",
        Kind::String,
        "A saved place's label (home, work), \"lat,lng\", or a city name (\"Lyon\", \"Paris, France\")",
    ),
    Param::optional(
        "days",
        Kind::Integer,
        "Days of forecast, today first (default 3, at most 7)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "weather",
    about: "weather forecasts",
    words: &[
        "tmrw",
        "weather",
        "forecast",
        "rain",
        "raining",
        "rainy",
        "snow",
        "snowing",
        "sunny",
        "~sun",
        "cloudy",
        "cloud",
        "wind",
        "windy",
        "storm",
        "thunder",
        "temperature",
        "degrees",
        "~hot",
        "~cold",
        "~warm",
        "chilly",
        "freezing",
        "humid",
        "humidity",
        "umbrella",
        "raincoat",
        "warmer",
        "colder",
        "jacket",
        "coat",
        "sunscreen",
        "shorts",
        "~outside",
        "heat",
        "frost",
        "fog",
        "hail",
        "climate",
        "wear",
        "layers",
        "gloves",
        "scarf",
        "boots",
        "sweater",
        "overcast",
        "hottest",
        "coldest",
        "warmest",
        "nice out",
        "nice day",
        "degree",
    ],
    asks: &[
        "weather tomorrow",
        "the forecast for this week",
        "will it be windy tonight",
        "will it rain today",
        "should I take an umbrella",
        "how cold is it outside",
        "forecast for the weekend",
        "is it going to snow",
        "temperature in london",
        "should I wear a jacket",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("weather_forecast")
            .describe("Current weather and a 1-7 day forecast (temperatures, precipitation, wind, sunrise and sunset) from Open-Meteo, in the person's preferred units. Use for any weather question; saved places such as home work as locations.")
            .offered(Offered::Everywhere)
            .params(PARAMS)
            .example(r#"{"location": "home", "days": 2}"#)
            .handler(weather_forecast),
    ]
}

/// The units asked of Open-Meteo, from the profile's preferences.
#[derive(Debug, PartialEq, Eq)]
struct Units {
    temperature: &'static str,
    wind: &'static str,
    precipitation: &'static str,
}

impl Units {
    /// `temperature_unit`, `wind_speed_unit`, `precipitation_unit` when set; else `units`
    /// ("imperial": °F, mph, inches) and `distance_unit` (miles: wind in mph); else metric.
    fn from(preferences: &Value, distance: DistanceUnit) -> Self {
        let said = |key: &str| {
            preferences[key]
                .as_str()
                .map(|v| v.trim().trim_start_matches('°').to_ascii_lowercase())
        };
        let imperial = said("units").as_deref() == Some("imperial");
        let temperature = match said("temperature_unit").as_deref() {
            Some("f" | "fahrenheit") => "fahrenheit",
            Some("c" | "celsius") => "celsius",
            _ if imperial => "fahrenheit",
            _ => "celsius",
        };
        let wind = match said("wind_speed_unit")
            .or_else(|| said("wind_unit"))
            .as_deref()
        {
            Some("kmh" | "km/h" | "kph") => "kmh",
            Some("mph") => "mph",
            Some("ms" | "m/s") => "ms",
            Some("kn" | "knots" | "kt") => "kn",
            _ if distance == DistanceUnit::Miles => "mph",
            _ => "kmh",
        };
        let precipitation = match said("precipitation_unit").as_deref() {
            Some("inch" | "inches" | "in") => "inch",
            Some("mm") => "mm",
            _ if imperial => "inch",
            _ => "mm",
        };
        Self {
            temperature,
            wind,
            precipitation,
        }
    }
}

#[derive(Deserialize)]
struct Args {
    location: String,
    days: Option<i64>,
}

fn weather_forecast(args: Args, ctx: &ToolContext) -> Result<String, String> {
    let days = args.days.unwrap_or(DEFAULT_DAYS);
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(format!(
            "days must be between 1 and {MAX_DAYS} (got {days})."
        ));
    }
    let spot = match geo::known(ctx, &args.location)? {
        Some(spot) => spot,
        None => search(ctx, &args.location)?,
    };
    let units = Units::from(&geo::preferences(ctx), geo::distance_unit(ctx));
    let (lat, lng, days) = (spot.lat.to_string(), spot.lng.to_string(), days.to_string());
    let query = [
        ("latitude", lat.as_str()),
        ("longitude", lng.as_str()),
        ("current", CURRENT),
        ("daily", DAILY),
        ("timezone", "auto"),
        ("forecast_days", days.as_str()),
        ("temperature_unit", units.temperature),
        ("wind_speed_unit", units.wind),
        ("precipitation_unit", units.precipitation),
    ];
    let forecast = api(ctx, &OPEN_METEO, "/v1/forecast", &query)?;
    Ok(describe(&spot, &forecast))
}

/// One call; Open-Meteo's `{"error": true, "reason": …}` as a sentence.
fn api(
    ctx: &ToolContext,
    service: &Service,
    path: &str,
    query: &[(&str, &str)],
) -> Result<Value, String> {
    let call = Call {
        query,
        ..Call::default()
    };
    let value = ctx.settings.web.json(service, path, &call, &ctx.cancel)?;
    if value["error"].as_bool() == Some(true) {
        let reason = value["reason"].as_str().unwrap_or("no reason given");
        return Err(format!("{} refused the request: {reason}", service.name));
    }
    Ok(value)
}

/// A place name through Open-Meteo's geocoding: "Paris" or "Paris, France" (the part after
/// the comma picks among the matches by country, its code or region).
fn search(ctx: &ToolContext, text: &str) -> Result<Spot, String> {
    let text = text.trim();
    let (name, within) = match text.split_once(',') {
        Some((name, within)) => (name.trim(), within.trim().to_lowercase()),
        None => (text, String::new()),
    };
    let query = [
        ("name", name),
        ("count", "10"),
        ("language", "en"),
        ("format", "json"),
    ];
    let found = api(ctx, &OPEN_METEO_GEOCODING, "/v1/search", &query)?;
    // No match is an answer without `results`.
    let results = found["results"].as_array().map_or(&[][..], Vec::as_slice);
    let in_region = |place: &&Value| {
        ["country", "country_code", "admin1", "admin2"]
            .iter()
            .filter_map(|key| place[*key].as_str())
            .any(|field| field.to_lowercase() == within)
    };
    let chosen = if within.is_empty() {
        results.first()
    } else {
        results.iter().find(in_region)
    };
    chosen.and_then(place).ok_or_else(|| {
        format!("Open-Meteo's geocoding found no place called \"{text}\": give a city or town name (not a street address), or \"lat,lng\".")
    })
}

/// A geocoding result as a spot: "Enschede, Overijssel, The Netherlands".
fn place(found: &Value) -> Option<Spot> {
    let name: Vec<&str> = ["name", "admin1", "country"]
        .iter()
        .filter_map(|key| found[*key].as_str())
        .filter(|part| !part.is_empty())
        .collect();
    Some(Spot {
        lat: found["latitude"].as_f64()?,
        lng: found["longitude"].as_f64()?,
        name: name.join(", "),
        source: "Open-Meteo geocoding".into(),
    })
}

/// The forecast as text: where, now, then a line a day, then the units.
fn describe(spot: &Spot, forecast: &Value) -> String {
    let zone = forecast["timezone"].as_str().unwrap_or("GMT");
    let mut out = format!(
        "Weather for {} ({}; Open-Meteo's grid point {}, {}, elevation {} m). Times are local ({zone}).",
        spot.name,
        spot.source,
        number(&forecast["latitude"]).unwrap_or_default(),
        number(&forecast["longitude"]).unwrap_or_default(),
        number(&forecast["elevation"]).unwrap_or_default(),
    );
    if let Some(now) = current(&forecast["current"], &forecast["current_units"]) {
        out.push_str(&format!("\n{now}"));
    }
    let days = daily(&forecast["daily"], &forecast["daily_units"]);
    if !days.is_empty() {
        out.push_str("\nForecast:");
        for day in days {
            out.push_str(&format!("\n- {day}"));
        }
    }
    let units: Vec<String> = ["current_units", "daily_units"]
        .iter()
        .flat_map(|block| forecast[*block].as_object().into_iter().flatten())
        .filter_map(|(_, unit)| unit.as_str())
        .filter(|unit| !["iso8601", "seconds", "wmo code", "", "unixtime"].contains(unit))
        .fold(Vec::new(), |mut seen, unit| {
            if !seen.iter().any(|s: &String| s == unit) {
                seen.push(unit.to_string());
            }
            seen
        });
    if !units.is_empty() {
        out.push_str(&format!("\nUnits: {}.", units.join(", ")));
    }
    out
}

/// "Now (2026-06-29T22:00): mainly clear, 20.4 °C (feels like 19.0 °C), …".
fn current(now: &Value, units: &Value) -> Option<String> {
    let time = now["time"].as_str()?;
    let with = |key: &str| {
        let value = number(&now[key])?;
        Some(format!(
            "{value}{}",
            spaced(units[key].as_str().unwrap_or_default())
        ))
    };
    let mut parts = vec![
        now["weather_code"]
            .as_i64()
            .map_or("weather unknown", wmo)
            .to_string(),
    ];
    parts.extend(with("temperature_2m"));
    if let Some(feels) = with("apparent_temperature") {
        parts.push(format!("feels like {feels}"));
    }
    if let Some(wind) = with("wind_speed_10m") {
        let from = now["wind_direction_10m"]
            .as_f64()
            .map(|deg| format!(" from the {}", compass(deg)))
            .unwrap_or_default();
        parts.push(format!("wind {wind}{from}"));
    }
    if let Some(rain) = with("precipitation") {
        parts.push(format!("precipitation {rain}"));
    }
    if let Some(humidity) = with("relative_humidity_2m") {
        parts.push(format!("humidity {humidity}"));
    }
    Some(format!("Now ({time}): {}.", parts.join(", ")))
}

/// One line a day; a day whose values are all `null` is beyond the forecast's horizon.
fn daily(days: &Value, units: &Value) -> Vec<String> {
    let dates = days["time"].as_array().map_or(&[][..], Vec::as_slice);
    let at = |key: &str, i: usize| days[key].get(i).filter(|v| !v.is_null());
    let with = |key: &str, i: usize| {
        let value = number(at(key, i)?)?;
        Some(format!(
            "{value}{}",
            spaced(units[key].as_str().unwrap_or_default())
        ))
    };
    let clock_time = |key: &str, i: usize| {
        let time = at(key, i)?.as_str()?;
        Some(time.split_once('T').map_or(time, |(_, t)| t).to_string())
    };
    let mut lines = Vec::new();
    for (i, date) in dates.iter().enumerate() {
        let date = date.as_str().unwrap_or_default();
        let mut parts = Vec::new();
        parts.extend(
            at("weather_code", i)
                .and_then(Value::as_i64)
                .map(|c| wmo(c).to_string()),
        );
        match (with("temperature_2m_max", i), with("temperature_2m_min", i)) {
            (Some(high), Some(low)) => parts.push(format!("{low} to {high}")),
            (Some(high), None) => parts.push(format!("high {high}")),
            (None, Some(low)) => parts.push(format!("low {low}")),
            (None, None) => {}
        }
        if let Some(rain) = with("precipitation_sum", i) {
            let chance = with("precipitation_probability_max", i)
                .map(|p| format!(" ({p} chance)"))
                .unwrap_or_default();
            parts.push(format!("precipitation {rain}{chance}"));
        }
        parts.extend(with("wind_speed_10m_max", i).map(|w| format!("wind up to {w}")));
        parts.extend(clock_time("sunrise", i).map(|t| format!("sunrise {t}")));
        parts.extend(clock_time("sunset", i).map(|t| format!("sunset {t}")));
        let numbers = [
            "weather_code",
            "temperature_2m_max",
            "temperature_2m_min",
            "precipitation_sum",
        ];
        let line = if numbers.iter().all(|key| at(key, i).is_none()) {
            "no forecast yet (beyond the forecast's horizon)".to_string()
        } else {
            parts.join(", ")
        };
        lines.push(format!("{}{date}: {line}", weekday(date)));
    }
    lines
}

/// "Sat " for a date "2026-10-17"; nothing when it is not a date.
fn weekday(date: &str) -> &'static str {
    const DAYS: [&str; 7] = ["Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun "];
    let mut parts = date.split('-').map(str::parse::<u32>);
    match (parts.next(), parts.next(), parts.next()) {
        (Some(Ok(year)), Some(Ok(month)), Some(Ok(day))) if (1..=12).contains(&month) => {
            let days = clock::days_from_civil(i64::from(year), month, day);
            DAYS[clock::weekday(days)]
        }
        _ => "",
    }
}

/// A number as Open-Meteo gave it ("20.4", "23", "-0.25").
fn number(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) => Some(n.to_string().trim_end_matches(".0").to_string()),
        _ => None,
    }
}

/// A unit after a number: "20.4 °C", "12 km/h", but "71%".
fn spaced(unit: &str) -> String {
    match unit {
        "" => String::new(),
        "%" => "%".into(),
        unit => format!(" {unit}"),
    }
}

/// Where the wind comes from, as one of eight compass points.
fn compass(degrees: f64) -> &'static str {
    const POINTS: [&str; 8] = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
    POINTS[crate::tools::kit::geo::compass_point(degrees)]
}

/// The WMO weather interpretation code in words (Open-Meteo's table).
fn wmo(code: i64) -> &'static str {
    match code {
        0 => "clear sky",
        1 => "mainly clear",
        2 => "partly cloudy",
        3 => "overcast",
        45 => "fog",
        48 => "depositing rime fog",
        51 => "light drizzle",
        53 => "moderate drizzle",
        55 => "dense drizzle",
        56 => "light freezing drizzle",
        57 => "dense freezing drizzle",
        61 => "slight rain",
        63 => "moderate rain",
        65 => "heavy rain",
        66 => "light freezing rain",
        67 => "heavy freezing rain",
        71 => "slight snow fall",
        73 => "moderate snow fall",
        75 => "heavy snow fall",
        77 => "snow grains",
        80 => "slight rain showers",
        81 => "moderate rain showers",
        82 => "violent rain showers",
        85 => "slight snow showers",
        86 => "heavy snow showers",
        95 => "thunderstorm",
        96 => "thunderstorm with slight hail",
        99 => "thunderstorm with heavy hail",
        _ => "weather code unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn preferences_choose_open_meteos_units() {
        let units = |t, w, p| Units {
            temperature: t,
            wind: w,
            precipitation: p,
        };
        for (preferences, distance, expected) in [
            (
                json!({}),
                DistanceUnit::Kilometers,
                units("celsius", "kmh", "mm"),
            ),
            (
                json!({"units": "imperial"}),
                DistanceUnit::Miles,
                units("fahrenheit", "mph", "inch"),
            ),
            (
                json!({"distance_unit": "miles"}),
                DistanceUnit::Miles,
                units("celsius", "mph", "mm"),
            ),
            (
                json!({"temperature_unit": "°F"}),
                DistanceUnit::Kilometers,
                units("fahrenheit", "kmh", "mm"),
            ),
            (
                json!({"units": "imperial", "temperature_unit": "celsius", "wind_speed_unit": "m/s", "precipitation_unit": "mm"}),
                DistanceUnit::Miles,
                units("celsius", "ms", "mm"),
            ),
        ] {
            assert_eq!(
                Units::from(&preferences, distance),
                expected,
                "{preferences}"
            );
        }
    }

    #[test]
    fn codes_compass_and_weekdays() {
        assert_eq!(wmo(1), "mainly clear");
        assert_eq!(wmo(63), "moderate rain");
        assert_eq!(wmo(4), "weather code unknown");
        assert_eq!(compass(200.0), "S");
        assert_eq!(compass(350.0), "N");
        assert_eq!(compass(225.0), "SW");
        assert_eq!(weekday("2026-10-17"), "Sat ");
        assert_eq!(weekday("2026-11-23"), "Mon ");
        assert_eq!(weekday("soon"), "");
    }

    #[test]
    fn days_beyond_the_horizon_say_so() {
        let days = json!({
            "time": ["2026-10-17", "2026-10-18"],
            "temperature_2m_max": [18.3, null],
            "temperature_2m_min": [9.0, null],
            "weather_code": [0, null],
            "sunrise": ["2026-10-17T06:01", "2026-10-18T06:02"]
        });
        let units = json!({"temperature_2m_max": "°C", "temperature_2m_min": "°C"});
        assert_eq!(
            daily(&days, &units),
            [
                "Sat 2026-10-17: clear sky, 9 °C to 18.3 °C, sunrise 06:01",
                "Sun 2026-10-18: no forecast yet (beyond the forecast's horizon)"
            ]
        );
    }
}
