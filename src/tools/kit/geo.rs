//! Where a tool's "location" argument points: "lat,lng", the label of a saved place ("home",
//! "work"), or a name or address found with Nominatim. And the person's distance unit, from
//! the profile's preferences, so every tool speaks in it without being told again.

use serde_json::Value;

use super::web::Call;
use crate::services::NOMINATIM;
use crate::store;
use crate::tools::ToolContext;

/// A point on the map and how it was found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spot {
    pub(crate) lat: f64,
    pub(crate) lng: f64,
    /// What to call it in an answer: the saved place's name, the geocoder's display name, or
    /// the coordinates.
    pub(crate) name: String,
    /// Where the point came from: "coordinates", "saved place <label>", "Nominatim".
    pub(crate) source: String,
}

/// The point `text` means: coordinates, a saved place's label (any case), else the first
/// match of a Nominatim search. The error is a sentence for the model.
pub(crate) fn resolve(ctx: &ToolContext, text: &str) -> Result<Spot, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("The location is empty: give a place name, an address, a saved place's label or \"lat,lng\".".into());
    }
    if let Some((lat, lng)) = coordinates(text)? {
        return Ok(Spot {
            lat,
            lng,
            name: format!("{lat},{lng}"),
            source: "coordinates".into(),
        });
    }
    if let Some(place) = saved_place(ctx, text) {
        let source = format!("saved place {}", place.label);
        if let (Some(lat), Some(lng)) = (place.lat, place.lng) {
            return Ok(Spot {
                lat,
                lng,
                name: place.name,
                source,
            });
        }
        let found = geocode(ctx, &place.address)?;
        return Ok(Spot {
            name: place.name,
            source: format!("{source} (its address found with Nominatim)"),
            ..found
        });
    }
    geocode(ctx, text)
}

/// "lat,lng" (spaces allowed): `None` when `text` is not two numbers; an error when it is two
/// numbers off the globe.
pub(crate) fn coordinates(text: &str) -> Result<Option<(f64, f64)>, String> {
    let Some((lat, lng)) = text.split_once(',') else {
        return Ok(None);
    };
    let (Ok(lat), Ok(lng)) = (lat.trim().parse::<f64>(), lng.trim().parse::<f64>()) else {
        return Ok(None);
    };
    if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lng) {
        return Err(format!(
            "{lat},{lng} is not on the globe: latitude goes from -90 to 90, longitude from -180 to 180."
        ));
    }
    Ok(Some((lat, lng)))
}

fn saved_place(ctx: &ToolContext, label: &str) -> Option<store::places::Place> {
    let dir = ctx.shared.profile_dir()?;
    store::places::load(&dir, &ctx.shared.warnings)
        .into_iter()
        .find(|place| place.label.eq_ignore_ascii_case(label))
}

/// The first Nominatim match for `query`.
pub(crate) fn geocode(ctx: &ToolContext, query: &str) -> Result<Spot, String> {
    let call = Call {
        query: &[("q", query), ("format", "jsonv2"), ("limit", "1")],
        ..Call::default()
    };
    let found = ctx
        .settings
        .web
        .json(&NOMINATIM, "/search", &call, &ctx.cancel)?;
    first_match(&found).ok_or_else(|| {
        format!(
            "Nominatim found no place called \"{query}\". Try a fuller address, or \"lat,lng\"."
        )
    })
}

/// A Nominatim search answer's first place (its `lat`/`lon` are strings).
fn first_match(found: &Value) -> Option<Spot> {
    let first = found.as_array()?.first()?;
    let number = |key: &str| first[key].as_str()?.parse::<f64>().ok();
    Some(Spot {
        lat: number("lat")?,
        lng: number("lon")?,
        name: first["display_name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        source: "Nominatim".into(),
    })
}

/// How the person measures distance (the profile's `distance_unit` preference).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DistanceUnit {
    Kilometers,
    Miles,
}

impl DistanceUnit {
    /// `meters` in this unit, as people read it: "850 m" below a kilometre, "110 ft" below a
    /// tenth of a mile, else one decimal.
    pub(crate) fn show(self, meters: f64) -> String {
        match self {
            Self::Kilometers if meters < 1000.0 => format!("{} m", meters.round()),
            Self::Kilometers => format!("{:.1} km", meters / 1000.0),
            // Below a tenth of a mile, "0.0 mi" would say nothing: feet, to the nearest ten.
            Self::Miles if meters < 160.0 => {
                format!("{} ft", ((meters / 0.3048 / 10.0).round() as u64) * 10)
            }
            Self::Miles => format!("{:.1} mi", meters / 1609.344),
        }
    }
}

/// The profile's distance unit: `distance_unit` ("miles"/"mi", else kilometers), or `units`
/// ("imperial") when that is all the preferences say.
pub(crate) fn distance_unit(ctx: &ToolContext) -> DistanceUnit {
    let preferences = preferences(ctx);
    let said = |key: &str| {
        preferences[key]
            .as_str()
            .map(|value| value.trim().to_ascii_lowercase())
    };
    match said("distance_unit").or_else(|| said("units")).as_deref() {
        Some("miles" | "mile" | "mi" | "imperial") => DistanceUnit::Miles,
        _ => DistanceUnit::Kilometers,
    }
}

/// The profile's preferences (an empty object when there are none).
pub(crate) fn preferences(ctx: &ToolContext) -> Value {
    ctx.shared
        .profile_dir()
        .map(|dir| store::preferences::load(&dir, &ctx.shared.warnings))
        .unwrap_or(Value::Null)
}

/// The point `text` means when it needs no search by name: "lat,lng", or a saved place's
/// label (a place saved with its address only has that address found as [`resolve`] does).
/// `None` for anything else, which the caller looks up with its own geocoder.
pub(crate) fn known(ctx: &ToolContext, text: &str) -> Result<Option<Spot>, String> {
    let text = text.trim();
    if coordinates(text)?.is_some() || saved_place(ctx, text).is_some() {
        return resolve(ctx, text).map(Some);
    }
    Ok(None)
}

/// The great-circle distance in meters between two points (haversine, mean Earth radius).
pub(crate) fn meters_between(lat1: f64, lng1: f64, lat2: f64, lng2: f64) -> f64 {
    let half = |degrees: f64| sin_cos((degrees / 2.0).to_radians()).0;
    let a = half(lat2 - lat1).powi(2)
        + cos_degrees(lat1) * cos_degrees(lat2) * half(lng2 - lng1).powi(2);
    2.0 * 6_371_008.8 * asin(a.sqrt().min(1.0))
}

/// Which of the eight compass points (0 north, 1 northeast, … 7 northwest) a bearing in
/// degrees is nearest to; whole degrees in integers, so no float remainder (libm).
pub(crate) fn compass_point(degrees: f64) -> usize {
    let degrees = (degrees as i64).rem_euclid(360);
    ((degrees * 2 + 45) / 90 % 8) as usize
}

/// The cosine of an angle in degrees.
pub(crate) fn cos_degrees(degrees: f64) -> f64 {
    sin_cos(degrees.to_radians()).1
}

// The few trigonometric functions distances need, written out: `f64::sin` and its kin come
// from the system's libm, which would be one more library loaded (and 300 KB more resident) on
// every start, for a distance now and then. Accurate to about 1e-15, which is far below a
// metre on the Earth.

/// sin and cos of `x` radians: reduced by quarter turns to [-π/4, π/4], then Taylor series.
fn sin_cos(x: f64) -> (f64, f64) {
    use std::f64::consts::FRAC_PI_2;
    let quarters = (x / FRAC_PI_2).round();
    let r = x - quarters * FRAC_PI_2;
    let r2 = r * r;
    let (mut sin, mut cos) = (0.0, 0.0);
    let (mut sin_term, mut cos_term) = (r, 1.0);
    for k in 0..10u32 {
        sin += sin_term;
        cos += cos_term;
        let k = f64::from(k);
        sin_term *= -r2 / ((2.0 * k + 2.0) * (2.0 * k + 3.0));
        cos_term *= -r2 / ((2.0 * k + 1.0) * (2.0 * k + 2.0));
    }
    match (quarters as i64).rem_euclid(4) {
        0 => (sin, cos),
        1 => (cos, -sin),
        2 => (-sin, -cos),
        _ => (-cos, sin),
    }
}

/// asin of `x` in [-1, 1], through atan.
fn asin(x: f64) -> f64 {
    let rest = (1.0 - x * x).max(0.0).sqrt();
    if rest == 0.0 {
        return std::f64::consts::FRAC_PI_2.copysign(x);
    }
    atan(x / rest)
}

/// atan, by halving the angle (atan t = 2 atan(t / (1 + √(1+t²)))) until the series is quick.
fn atan(t: f64) -> f64 {
    let (mut t, mut scale) = (t, 1.0);
    while t.abs() > 0.05 {
        t /= 1.0 + (1.0 + t * t).sqrt();
        scale *= 2.0;
    }
    let t2 = t * t;
    let (mut sum, mut power) = (0.0, t);
    for k in 0..12u32 {
        let term = power / f64::from(2 * k + 1);
        sum += if k % 2 == 0 { term } else { -term };
        power *= t2;
    }
    scale * sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_two_numbers_on_the_globe() {
        assert_eq!(coordinates("48.85, 2.35"), Ok(Some((48.85, 2.35))));
        assert_eq!(coordinates("-33.9,151.2"), Ok(Some((-33.9, 151.2))));
        assert_eq!(coordinates("home"), Ok(None));
        assert_eq!(coordinates("10 Downing Street, London"), Ok(None));
        assert!(
            coordinates("91,0")
                .unwrap_err()
                .contains("not on the globe")
        );
        assert!(coordinates("0,181").is_err());
    }

    #[test]
    fn nominatim_places_have_their_coordinates_as_strings() {
        let found: Value = serde_json::from_str(
            r#"[{"lat": "51.50344025", "lon": "-0.12770820958562096", "display_name": "Prime Minister’s Office, 10, Downing Street"}]"#,
        )
        .unwrap();
        let spot = first_match(&found).unwrap();
        assert_eq!((spot.lat, spot.lng), (51.50344025, -0.12770820958562096));
        assert_eq!(spot.name, "Prime Minister’s Office, 10, Downing Street");
        assert_eq!(first_match(&Value::Array(vec![])), None);
    }

    #[test]
    fn saved_places_are_found_by_label_and_preferences_give_the_unit() {
        let home = crate::test_support::TempDir::new("geo-resolve");
        std::fs::write(
            home.path().join("saved_places.json"),
            r#"[{"label": "Home", "name": "Our flat", "address": "1 Rue X, Lyon", "lat": 45.76, "lng": 4.83}]"#,
        )
        .unwrap();
        std::fs::write(
            home.path().join("preferences.json"),
            r#"{"distance_unit": "miles"}"#,
        )
        .unwrap();
        let ctx = ToolContext::new(home.path().to_path_buf());
        *ctx.shared.profile_dir.write().unwrap() = Some(home.path().to_path_buf());
        let spot = resolve(&ctx, "home").unwrap();
        assert_eq!((spot.lat, spot.lng), (45.76, 4.83));
        assert_eq!(spot.name, "Our flat");
        assert_eq!(spot.source, "saved place Home");
        assert_eq!(distance_unit(&ctx), DistanceUnit::Miles);
        assert!(resolve(&ctx, "  ").unwrap_err().contains("empty"));
    }

    #[test]
    fn trigonometry_without_libm_agrees_with_it() {
        for i in -720..=720 {
            let x = f64::from(i) * 0.0137;
            let (sin, cos) = sin_cos(x);
            assert!(
                (sin - x.sin()).abs() < 1e-14,
                "sin {x}: {sin} vs {}",
                x.sin()
            );
            assert!(
                (cos - x.cos()).abs() < 1e-14,
                "cos {x}: {cos} vs {}",
                x.cos()
            );
        }
        for i in -100..=100 {
            let x = f64::from(i) / 100.0;
            assert!((asin(x) - x.asin()).abs() < 1e-13, "asin {x}");
        }
        // Paris to London, and a point to itself.
        let d = meters_between(48.8566, 2.3522, 51.5074, -0.1278);
        assert!((d - 343_560.0).abs() < 500.0, "{d}");
        assert_eq!(meters_between(1.0, 2.0, 1.0, 2.0), 0.0);
    }

    #[test]
    fn distances_read_in_the_persons_unit() {
        assert_eq!(DistanceUnit::Kilometers.show(850.4), "850 m");
        assert_eq!(DistanceUnit::Kilometers.show(12_345.0), "12.3 km");
        assert_eq!(DistanceUnit::Miles.show(1609.344 * 3.0), "3.0 mi");
        assert_eq!(DistanceUnit::Miles.show(33.1), "110 ft");
        assert_eq!(DistanceUnit::Miles.show(553.0), "0.3 mi");
    }
}
