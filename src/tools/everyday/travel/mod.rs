//! The travel family: `estimate_travel_time`, `get_directions` and `traffic_adjusted_time`,
//! routed by OSRM at OSRM_URL (`/route/v1/{profile}/{lng,lat;lng,lat}`). Both ends go through
//! kit::geo (a saved place's label, "lat,lng", else a name or address), distances come in the
//! person's unit, OSRM's own refusals (`code`, `message`: NoRoute, NoSegment…) are said, and a
//! server that holds only the car profile (the public demo server ignores the profile in the
//! path) is noticed from its steps' `mode` and said, with the time at a typical pace instead.

mod steps;
mod traffic;

use serde::Deserialize;
use serde_json::Value;

use crate::services::OSRM;
use crate::tools::kit::geo::{self, DistanceUnit, Spot};
use crate::tools::kit::web::Call;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const ROUTE_PARAMS: &[Param] = &[
    Param::required(
        "origin",
        Kind::String,
        "Where the trip starts: a saved place's label (home, work), \"lat,lng\", or a name or address",
    ),
    Param::required(
        "destination",
        Kind::String,
        "Where it ends, in the same forms as origin",
    ),
    Param::optional(
        "profile",
        Kind::String,
        "How: driving (default; also car), cycling (bike) or walking (foot)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "travel",
    about: "directions, travel times, traffic",
    words: &[
        "directions",
        "direction",
        "route",
        "how do i get",
        "how to get",
        "get to",
        "drive",
        "driving",
        "walk",
        "walking",
        "cycle",
        "bike",
        "commute",
        "traffic",
        "jam",
        "congestion",
        "roadworks",
        "motorway",
        "highway",
        "freeway",
        "rush hour",
        "accident",
        "accidents",
        "roadblock",
        "roadblocks",
        "detour",
        "detours",
        "road closure",
        "road closures",
        "construction",
        "roads",
        "toll",
        "eta",
        "how far",
        "distance",
        "how long does it take",
        "how long will it take",
        "travel time",
        "~journey",
        "~trip",
        "train",
        "bus",
        "transit",
        "subway",
        "metro",
        "taxi",
        "uber",
        "cab",
        "flight",
        "~ride",
    ],
    asks: &[
        "directions to the station",
        "how long to drive to paris",
        "how do I get to the airport by train",
        "traffic on the way home",
        "walking route to the park",
        "how far is it to the beach",
        "cycle time to work",
        "public transport to the museum",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("estimate_travel_time")
            .describe("How far and how long from one place to another by car, bike or on foot (OSRM routing, no traffic). Use for \"how long to the station by bike?\"; places may be saved labels such as home.")
            .offered(Offered::Everywhere)
            .params(ROUTE_PARAMS)
            .example(r#"{"origin": "home", "destination": "Lyon Part-Dieu station", "profile": "cycling"}"#)
            .handler(estimate_travel_time),
        ToolDef::build("get_directions")
            .describe("Turn-by-turn directions from one place to another by car, bike or on foot: each step's maneuver, road and distance (OSRM).")
            .offered(Offered::Everywhere)
            .params(ROUTE_PARAMS)
            .example(r#"{"origin": "48.8584,2.2945", "destination": "Louvre, Paris", "profile": "walking"}"#)
            .handler(get_directions),
        ToolDef::build("traffic_adjusted_time")
            .describe("An estimate of the travel time with rush hours and bad weather allowed for, from OSRM's free-flow time and fixed rules of thumb (not live traffic). Use when the person asks how long a trip takes at a given time or in rain or snow.")
            .offered(Offered::Everywhere)
            .params(traffic::PARAMS)
            .example(r#"{"origin": "home", "destination": "work", "departure": "Monday 08:15", "weather": "rain"}"#)
            .handler(traffic::traffic_adjusted_time),
    ]
}

/// How the trip is made, as OSRM's profiles name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Profile {
    Driving,
    Cycling,
    Walking,
}

impl Profile {
    /// The profile a person means: OSRM's own names and the words people use.
    fn parse(asked: Option<&str>) -> Result<Self, String> {
        let asked = asked
            .map(|a| a.trim().to_ascii_lowercase())
            .unwrap_or_default();
        match asked.as_str() {
            "" | "driving" | "drive" | "car" | "auto" | "automobile" | "by car" => {
                Ok(Self::Driving)
            }
            "cycling" | "cycle" | "bike" | "bicycle" | "biking" | "by bike" => Ok(Self::Cycling),
            "walking" | "walk" | "foot" | "on foot" | "pedestrian" | "hiking" => Ok(Self::Walking),
            other => Err(format!(
                "'{other}' is not a way OSRM routes: use driving (car), cycling (bike) or walking (foot)."
            )),
        }
    }

    /// The profile in OSRM's path, which is also the `mode` of its steps.
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Driving => "driving",
            Self::Cycling => "cycling",
            Self::Walking => "walking",
        }
    }

    pub(super) fn words(self) -> &'static str {
        match self {
            Self::Driving => "by car",
            Self::Cycling => "by bike",
            Self::Walking => "on foot",
        }
    }

    /// A typical pace in km/h, for when the server routed a car instead.
    fn pace(self) -> f64 {
        match self {
            Self::Driving => 0.0,
            Self::Cycling => 15.0,
            Self::Walking => 5.0,
        }
    }
}

/// A route found: its ends, its length and time, its steps, and a note when the time is not
/// OSRM's own.
pub(super) struct Route {
    pub(super) origin: Spot,
    pub(super) destination: Spot,
    pub(super) profile: Profile,
    pub(super) meters: f64,
    pub(super) seconds: f64,
    pub(super) legs: Value,
    pub(super) note: Option<String>,
}

impl Route {
    /// "by bike from A (saved place home) to B (Nominatim)".
    pub(super) fn trip(&self) -> String {
        format!(
            "{} from {} to {}",
            self.profile.words(),
            place(&self.origin),
            place(&self.destination)
        )
    }

    /// The trip, its length and time: "by bike from A to B: 3.2 km, about 13 min."
    pub(super) fn summary(&self, unit: DistanceUnit) -> String {
        format!(
            "{}: {}, {}.",
            self.trip(),
            unit.show(self.meters),
            about(self.seconds)
        )
    }
}

fn place(spot: &Spot) -> String {
    if spot.source == "coordinates" {
        spot.name.clone()
    } else {
        format!("{} ({})", spot.name, spot.source)
    }
}

/// The route between two places, asked of OSRM.
pub(super) fn route(
    ctx: &ToolContext,
    origin: &str,
    destination: &str,
    profile: Option<&str>,
) -> Result<Route, String> {
    let profile = Profile::parse(profile)?;
    let origin = geo::resolve(ctx, origin)?;
    let destination = geo::resolve(ctx, destination)?;
    let path = format!(
        "/route/v1/{}/{},{};{},{}",
        profile.name(),
        origin.lng,
        origin.lat,
        destination.lng,
        destination.lat
    );
    let call = Call {
        query: &[("overview", "false"), ("steps", "true")],
        ..Call::default()
    };
    let web = &ctx.settings.web;
    let fetched = web.call(&OSRM, &path, &call, &ctx.cancel)?;
    let answer = serde_json::from_slice::<Value>(&fetched.body).ok();
    let answer = match answer.as_ref().and_then(|a| a["code"].as_str()) {
        Some("Ok") => answer.unwrap_or_default(),
        Some(code) => {
            let message = answer.as_ref().and_then(|a| a["message"].as_str());
            return Err(refusal(code, message.unwrap_or("no reason given"), profile));
        }
        None => web.read_json(&OSRM, &fetched).and_then(|_| {
            Err(
                "OSRM's answer has no `code`: OSRM_URL may point at another kind of server."
                    .to_string(),
            )
        })?,
    };
    let first = &answer["routes"][0];
    let (Some(meters), Some(seconds)) = (first["distance"].as_f64(), first["duration"].as_f64())
    else {
        return Err(format!(
            "OSRM found no route {} between these places.",
            profile.words()
        ));
    };
    let mut route = Route {
        origin,
        destination,
        profile,
        meters,
        seconds,
        legs: first["legs"].clone(),
        note: None,
    };
    notice_car_only(&mut route, &web.base(&OSRM));
    Ok(route)
}

/// OSRM's refusal as a sentence: what its code means and what to do.
fn refusal(code: &str, message: &str, profile: Profile) -> String {
    match code {
        "NoRoute" => format!(
            "OSRM found no route {} between these places (NoRoute: {message}): they may not be connected for this way of travelling (an island, a closed area); try another profile or nearer points.",
            profile.words()
        ),
        "NoSegment" => format!(
            "OSRM could not place one of the points on a road (NoSegment: {message}): give a point nearer a road, or a fuller address."
        ),
        _ => format!("OSRM refused the request ({code}): {message}"),
    }
}

/// A server with only the car profile answers any profile with car routes (their steps'
/// `mode` is "driving"): the time then comes from the distance at a typical pace, and says so.
fn notice_car_only(route: &mut Route, base: &str) {
    if route.profile == Profile::Driving {
        return;
    }
    let modes: Vec<&str> = route
        .legs
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|leg| leg["steps"].as_array().into_iter().flatten())
        .filter_map(|step| step["mode"].as_str())
        .filter(|mode| *mode != "ferry")
        .collect();
    if modes.is_empty() || modes.iter().any(|mode| *mode != "driving") {
        return;
    }
    let pace = route.profile.pace();
    route.seconds = route.meters / 1000.0 / pace * 3600.0;
    route.note = Some(format!(
        "The OSRM server at {base} routed a car instead ({} asked): the distance is the car route's and the time is estimated at {pace} km/h. For real {} routes set OSRM_URL to a server with that profile, e.g. https://routing.openstreetmap.de/routed-{}.",
        route.profile.name(),
        route.profile.name(),
        if route.profile == Profile::Cycling {
            "bike"
        } else {
            "foot"
        }
    ));
}

/// "about 12 min", or "under a minute" (which needs no "about").
pub(super) fn about(seconds: f64) -> String {
    match duration(seconds) {
        short if short.starts_with("under") => short,
        said => format!("about {said}"),
    }
}

/// A duration as people read it: "under a minute", "12 min", "1 h 5 min", "2 h".
pub(super) fn duration(seconds: f64) -> String {
    // A cast saturates: a negative or NaN time reads as none.
    let minutes = (seconds / 60.0 + 0.5) as u64;
    match (minutes / 60, minutes % 60) {
        (0, 0) => "under a minute".into(),
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

#[derive(Deserialize)]
pub(super) struct RouteArgs {
    origin: String,
    destination: String,
    profile: Option<String>,
}

fn estimate_travel_time(args: RouteArgs, ctx: &ToolContext) -> Result<String, String> {
    let route = route(
        ctx,
        &args.origin,
        &args.destination,
        args.profile.as_deref(),
    )?;
    let mut out = capitalised(&route.summary(geo::distance_unit(ctx)));
    if let Some(note) = &route.note {
        out.push_str(&format!("\n{note}"));
    }
    Ok(out)
}

fn get_directions(args: RouteArgs, ctx: &ToolContext) -> Result<String, String> {
    let route = route(
        ctx,
        &args.origin,
        &args.destination,
        args.profile.as_deref(),
    )?;
    let unit = geo::distance_unit(ctx);
    let mut out = format!("Directions {}", route.summary(unit));
    if let Some(note) = &route.note {
        out.push_str(&format!("\n{note}"));
    }
    for (i, line) in steps::lines(&route.legs, unit).iter().enumerate() {
        out.push_str(&format!("\n{}. {line}", i + 1));
    }
    Ok(out)
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_named_as_people_say_them() {
        for (asked, profile) in [
            (None, Profile::Driving),
            (Some("car"), Profile::Driving),
            (Some(" Driving "), Profile::Driving),
            (Some("bike"), Profile::Cycling),
            (Some("bicycle"), Profile::Cycling),
            (Some("cycling"), Profile::Cycling),
            (Some("foot"), Profile::Walking),
            (Some("walk"), Profile::Walking),
        ] {
            assert_eq!(Profile::parse(asked), Ok(profile), "{asked:?}");
        }
        assert!(
            Profile::parse(Some("boat"))
                .unwrap_err()
                .contains("cycling (bike)")
        );
    }

    #[test]
    fn durations_read_as_people_say_them() {
        for (seconds, said) in [
            (0.0, "under a minute"),
            (29.0, "under a minute"),
            (92.2, "2 min"),
            (3600.0, "1 h"),
            (3929.0, "1 h 5 min"),
            (90_000.0, "25 h"),
        ] {
            assert_eq!(duration(seconds), said, "{seconds}");
        }
        assert_eq!(about(10.0), "under a minute");
        assert_eq!(about(600.0), "about 10 min");
    }

    #[test]
    fn refusals_say_what_osrm_meant() {
        let no_route = refusal(
            "NoRoute",
            "Impossible route between points",
            Profile::Walking,
        );
        assert!(
            no_route.starts_with("OSRM found no route on foot"),
            "{no_route}"
        );
        let no_segment = refusal(
            "NoSegment",
            "Could not find a matching segment for coordinate 1",
            Profile::Driving,
        );
        assert!(no_segment.contains("nearer a road"), "{no_segment}");
        assert_eq!(
            refusal(
                "InvalidQuery",
                "Query string malformed close to position 28",
                Profile::Driving
            ),
            "OSRM refused the request (InvalidQuery): Query string malformed close to position 28"
        );
    }
}
