//! weather_forecast against a local Open-Meteo and its geocoding: openmeteo_geocoding_search
//! ("Enschede", two results), openmeteo_forecast_daily_beyond_horizon_TRIMMED (a day of
//! `null`s at the horizon), openmeteo_forecast_current_only (London, current block only),
//! openmeteo_geocoding_400_missing_name (`{"error": true, "reason": …}`). The empty search
//! (an answer without `results`) and the forecast's 400 follow Open-Meteo's documentation.

use super::{home_with, recorded};
use crate::common::tools::call_unanswered;
use crate::common::{ReplayServer, Reply};
use crate::everyday_web::{call, reply};

fn env(forecast: &ReplayServer, geocoding: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![
        ("OPEN_METEO_URL", forecast.root()),
        ("OPEN_METEO_GEOCODING_URL", geocoding.root()),
    ]
}

#[test]
fn a_place_name_is_found_and_a_day_beyond_the_horizon_is_said() {
    let home = home_with("weather-name", "[]", "{}");
    let geocoding = ReplayServer::start(vec![recorded(200, "openmeteo_geocoding_search.json")]);
    let forecast = ReplayServer::start(vec![recorded(
        200,
        "openmeteo_forecast_daily_beyond_horizon_TRIMMED.json",
    )]);
    let text = call(
        &home,
        "weather_forecast",
        r#"{"location": "Enschede, NL", "days": 2}"#,
        &env(&forecast, &geocoding),
    );
    assert_eq!(
        text,
        "Weather for Enschede, Overijssel, The Netherlands (Open-Meteo geocoding; Open-Meteo's grid point 52.276, 6.8729997, elevation 29 m). Times are local (GMT).\n\
         Forecast:\n\
         - Sat 2026-10-17: clear sky, high 18.3 °C, sunrise 06:01\n\
         - Sun 2026-10-18: no forecast yet (beyond the forecast's horizon)\n\
         Units: °C."
    );
    assert_eq!(
        geocoding.requests()[0].url,
        "/v1/search?name=Enschede&count=10&language=en&format=json"
    );
    let asked = &forecast.requests()[0].url;
    assert!(
        asked.starts_with("/v1/forecast?latitude=52.21833&longitude=6.89583&current="),
        "{asked}"
    );
    assert!(
        asked.ends_with("&timezone=auto&forecast_days=2&temperature_unit=celsius&wind_speed_unit=kmh&precipitation_unit=mm"),
        "{asked}"
    );
}

#[test]
fn a_saved_place_in_the_persons_units() {
    let home = home_with(
        "weather-home",
        r#"[{"label": "home", "name": "Our house", "address": "Kew, London", "lat": 51.4787, "lng": -0.2956}]"#,
        r#"{"units": "imperial"}"#,
    );
    let geocoding = ReplayServer::unused();
    let forecast = ReplayServer::start(vec![recorded(200, "openmeteo_forecast_current_only.json")]);
    let text = call(
        &home,
        "weather_forecast",
        r#"{"location": "Home", "days": 1}"#,
        &env(&forecast, &geocoding),
    );
    // The recorded answer was asked in metric: the units said are the answer's own.
    assert_eq!(
        text,
        "Weather for Our house (saved place home; Open-Meteo's grid point 51.5, -0.25, elevation 23 m). Times are local (GMT).\n\
         Now (2026-06-29T22:00): mainly clear, 20.4 °C, wind 12.2 km/h.\n\
         Units: °C, km/h."
    );
    let asked = &forecast.requests()[0].url;
    assert!(
        asked.starts_with("/v1/forecast?latitude=51.4787&longitude=-0.2956&"),
        "{asked}"
    );
    assert!(
        asked.ends_with("&forecast_days=1&temperature_unit=fahrenheit&wind_speed_unit=mph&precipitation_unit=inch"),
        "{asked}"
    );
    assert!(geocoding.requests().is_empty());
}

#[test]
fn open_meteo_errors_empty_searches_html_and_silence() {
    let home = home_with("weather-errors", "[]", "{}");
    let geocoding = ReplayServer::start(vec![
        recorded(400, "openmeteo_geocoding_400_missing_name.json"),
        Reply::json(200, r#"{"generationtime_ms": 0.4}"#),
        recorded(200, "openmeteo_geocoding_search.json"),
        reply(
            200,
            "text/html",
            "<!DOCTYPE html><html><body>Bad gateway</body></html>",
        ),
    ]);
    let forecast = ReplayServer::start(vec![Reply::json(
        400,
        r#"{"error":true,"reason":"Cannot initialize ForecastVariableDaily from invalid String value sunshine."}"#,
    )]);
    let env = env(&forecast, &geocoding);
    let said: Vec<String> = [
        r#"{"location": "Enschede"}"#,
        r#"{"location": "Nowhereville"}"#,
        r#"{"location": "Enschede, Germany"}"#,
        r#"{"location": "Lyon"}"#,
        r#"{"location": "52.2,6.9"}"#,
        r#"{"location": "52.2,6.9", "days": 9}"#,
    ]
    .iter()
    .map(|arguments| call(&home, "weather_forecast", arguments, &env))
    .collect();
    assert_eq!(
        said[0],
        "Error: Open-Meteo geocoding answered HTTP 400: No value found (expected type 'String') at path 'name'."
    );
    assert_eq!(
        said[1],
        "Error: Open-Meteo's geocoding found no place called \"Nowhereville\": give a city or town name (not a street address), or \"lat,lng\"."
    );
    assert!(
        said[2].contains("no place called \"Enschede, Germany\""),
        "{}",
        said[2]
    );
    assert!(
        said[3].starts_with("Error: Open-Meteo geocoding answered with a web page instead of data")
            && said[3].contains("OPEN_METEO_GEOCODING_URL"),
        "{}",
        said[3]
    );
    assert_eq!(
        said[4],
        "Error: Open-Meteo answered HTTP 400: Cannot initialize ForecastVariableDaily from invalid String value sunshine."
    );
    assert_eq!(said[5], "Error: days must be between 1 and 7 (got 9).");
    let timed_out = call_unanswered(
        &home,
        "weather_forecast",
        r#"{"location": "52.2,6.9"}"#,
        "OPEN_METEO_URL",
    );
    assert_eq!(
        timed_out,
        "Error: Open-Meteo request timed out after 1s. Try again or rephrase query."
    );
}
