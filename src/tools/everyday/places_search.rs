//! Finding places: `places_text_search` ("pizza in Lyon") and `places_nearby_search` (cafés
//! within a radius of a place, a saved label or "lat,lng", with distances in the person's
//! unit) through Google Places (the legacy Text/Nearby Search JSON) when GOOGLE_PLACES_API_KEY
//! is set, else OpenStreetMap's Nominatim; and `setup_google_auth` (in `places_auth`), which
//! checks that key with Google and keeps it. Google's own errors come inside a 200 (`status`,
//! `error_message`).

use serde::Deserialize;
use serde_json::Value;

use super::places_auth;
use crate::services::{GOOGLE_PLACES, NOMINATIM};
use crate::tools::kit::geo::{self, DistanceUnit, Spot};
use crate::tools::kit::web::Call;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const DEFAULT_RESULTS: usize = 5;
const MAX_RESULTS: usize = 20;
const DEFAULT_RADIUS: f64 = 1000.0;
const MAX_RADIUS: f64 = 50_000.0;
const OSM_CREDIT: &str = "Data © OpenStreetMap contributors (ODbL), from Nominatim. With GOOGLE_PLACES_API_KEY set, Google Places answers instead (see setup_google_auth).";

const TEXT_PARAMS: &[Param] = &[
    Param::required(
        "query",
        Kind::String,
        "What and where, e.g. \"pizza in Lyon\", \"Louvre\", \"10 Downing St, London\"",
    ),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many (default 5, at most 20)",
    ),
];
const NEARBY_PARAMS: &[Param] = &[
    Param::required(
        "location",
        Kind::String,
        "Around where: a place name or address, a saved place's label (home, work) or \"lat,lng\"",
    ),
    Param::optional(
        "query",
        Kind::String,
        "What to look for, e.g. cafe, pharmacy, \"bike shop\"",
    ),
    Param::optional(
        "radius_m",
        Kind::Number,
        "How far, in meters (default 1000, at most 50000)",
    ),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many (default 5, at most 20)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "places_search",
    about: "restaurants, shops, services nearby",
    words: &[
        "restaurant",
        "restaurants",
        "cafe",
        "coffee shop",
        "bar",
        "bars",
        "pub",
        "shop",
        "store",
        "shops",
        "stores",
        "hotel",
        "pharmacy",
        "hospital",
        "gas station",
        "petrol",
        "near me",
        "nearby",
        "nearest",
        "closest",
        "around me",
        "places",
        "place to",
        "where can i",
        "~eat",
        "food",
        "takeaway",
        "takeout",
        "salon",
        "barber",
        "hairdresser",
        "mechanic",
        "studio",
        "studios",
        "market",
        "markets",
        "bakery",
        "reviews",
        "reviewed",
        "florist",
        "take away",
        "delivery",
        "deliver",
        "~order",
        "pizza",
        "chinese",
        "sushi",
        "burger",
        "open now",
        "opening hour",
        "museum",
        "park",
        "gym",
        "bank",
        "atm",
        "supermarket",
        "mall",
        "cinema",
    ],
    asks: &[
        "where can I get a new phone case",
        "who sells cheap laptops nearby",
        "where should we go for thai food",
        "a shop that delivers",
        "restaurants near me",
        "find a cafe nearby",
        "where can I buy a charger",
        "a pharmacy open now",
        "good pizza in town",
        "hotels in lisbon",
        "the nearest gas station",
        "where to eat sushi",
        "bars around here",
        "a place to fix my bike",
        "opening hours of the bakery",
        "set up google places",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("places_text_search")
            .describe("Find places, businesses or addresses by a text query (\"sushi in Kyoto\", \"Gare de Lyon\"): name, address, coordinates, and with Google rating and opening. Use for \"where is…\" and \"find a … in …\".")
            .offered(Offered::Everywhere)
            .params(TEXT_PARAMS)
            .example(r#"{"query": "bar in Sydney", "max_results": 5}"#)
            .handler(places_text_search),
        ToolDef::build("places_nearby_search")
            .describe("Find places of a kind near a location (a name, a saved place such as \"home\", or \"lat,lng\") within a radius, nearest first, with distances in the user's unit. Use for \"… near me/home\".")
            .offered(Offered::Everywhere)
            .params(NEARBY_PARAMS)
            .example(r#"{"location": "home", "query": "pharmacy", "radius_m": 1500}"#)
            .handler(places_nearby_search),
        ToolDef::build("setup_google_auth")
            .describe("Check a Google Places API key with Google (one request Google does not bill) and say what it answered: the key works, the Places API is not enabled for it, the key is invalid, restricted or over its quota; a key given here is kept where Marvin reads keys (~/.ssh/GOOGLE_PLACES_API_KEY). Without a key, say how to get one. Use when the user wants Google results for place searches, or a place search says Google refused the key.")
            .offered(Offered::Everywhere)
            .params(places_auth::PARAMS)
            .example("{}")
            .handler(places_auth::setup_google_auth),
    ]
}

#[derive(Deserialize)]
struct TextArgs {
    query: String,
    max_results: Option<i64>,
}

fn places_text_search(args: TextArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = args.query.trim();
    if query.is_empty() {
        return Err("The query is empty: say what to look for and where.".into());
    }
    let max = how_many(args.max_results)?;
    if let Some(key) = ctx.settings.web.key(&GOOGLE_PLACES) {
        let value = google(ctx, "/textsearch/json", &[("query", query)], &key)?;
        let found = google_places(&value);
        if found.is_empty() {
            return Ok(format!("Google Places found nothing for \"{query}\"."));
        }
        let mut out = format!("Google Places for \"{query}\":");
        out.push_str(&list(&found, max, None));
        if value.get("next_page_token").is_some() && found.len() <= max {
            out.push_str("\n\nGoogle has more results: ask a narrower question.");
        }
        return Ok(out);
    }
    let limit = max.to_string();
    let found = nominatim(ctx, &[("q", query), ("limit", limit.as_str())])?;
    if found.is_empty() {
        return Ok(format!(
            "Nominatim found nothing for \"{query}\". Try a fuller name or address, or fewer words."
        ));
    }
    Ok(format!(
        "OpenStreetMap places for \"{query}\":{}\n\n{OSM_CREDIT}",
        list(&found, max, None)
    ))
}

#[derive(Deserialize)]
struct NearbyArgs {
    location: String,
    query: Option<String>,
    radius_m: Option<f64>,
    max_results: Option<i64>,
}

fn places_nearby_search(args: NearbyArgs, ctx: &ToolContext) -> Result<String, String> {
    let max = how_many(args.max_results)?;
    let radius = args.radius_m.unwrap_or(DEFAULT_RADIUS);
    if !(1.0..=MAX_RADIUS).contains(&radius) {
        return Err(format!(
            "radius_m must be between 1 and {MAX_RADIUS} meters (got {radius})."
        ));
    }
    let query = args.query.as_deref().map(str::trim).unwrap_or_default();
    let key = ctx.settings.web.key(&GOOGLE_PLACES);
    if key.is_none() && query.is_empty() {
        return Err("Say what to look for (query, e.g. \"cafe\"): without a Google Places key, Nominatim cannot list everything around a point.".into());
    }
    let center = geo::resolve(ctx, &args.location)?;
    let unit = geo::distance_unit(ctx);
    let (mut found, source) = match key {
        Some(key) => {
            let location = format!("{},{}", center.lat, center.lng);
            let radius = format!("{}", radius.round());
            let mut pairs = vec![("location", location.as_str()), ("radius", radius.as_str())];
            if !query.is_empty() {
                pairs.push(("keyword", query));
            }
            let value = google(ctx, "/nearbysearch/json", &pairs, &key)?;
            (google_places(&value), "Google Places")
        }
        None => (
            nominatim_around(ctx, &center, query, radius)?,
            "OpenStreetMap",
        ),
    };
    for place in &mut found {
        place.meters = Some(geo::meters_between(
            center.lat, center.lng, place.lat, place.lng,
        ));
    }
    found.retain(|place| place.meters.is_some_and(|m| m <= radius));
    found.sort_by(|a, b| {
        a.meters
            .partial_cmp(&b.meters)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let what = if query.is_empty() { "places" } else { query };
    let around = format!(
        "{what} within {} of {} ({})",
        unit.show(radius),
        center.name,
        center.source
    );
    if found.is_empty() {
        return Ok(format!(
            "{source} found no {around}. Try a larger radius_m or other words."
        ));
    }
    let mut out = format!("{source}: {around}, nearest first:");
    out.push_str(&list(&found, max, Some(unit)));
    if source == "OpenStreetMap" {
        out.push_str(&format!("\n\n{OSM_CREDIT}"));
    }
    Ok(out)
}

fn how_many(asked: Option<i64>) -> Result<usize, String> {
    match asked {
        None => Ok(DEFAULT_RESULTS),
        Some(n) if (1..=MAX_RESULTS as i64).contains(&n) => Ok(n as usize),
        Some(n) => Err(format!(
            "max_results must be between 1 and {MAX_RESULTS} (got {n})."
        )),
    }
}

/// A place found, whichever service found it.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    name: String,
    address: String,
    lat: f64,
    lng: f64,
    /// What else is worth a line: kind, rating, opening, ids.
    about: Vec<String>,
    /// How far from the centre of a nearby search.
    meters: Option<f64>,
}

fn list(found: &[Found], max: usize, unit: Option<DistanceUnit>) -> String {
    let mut out = String::new();
    for (i, place) in found.iter().take(max).enumerate() {
        let distance = match (unit, place.meters) {
            (Some(unit), Some(meters)) => format!(" — {}", unit.show(meters)),
            _ => String::new(),
        };
        out.push_str(&format!("\n\n{}. {}{distance}", i + 1, place.name));
        if !place.address.is_empty() && place.address != place.name {
            out.push_str(&format!("\n   {}", place.address));
        }
        out.push_str(&format!("\n   {:.6}, {:.6}", place.lat, place.lng));
        if !place.about.is_empty() {
            out.push_str(&format!(" · {}", place.about.join(" · ")));
        }
    }
    if found.len() > max {
        out.push_str(&format!(
            "\n\n({} more not shown; ask with a larger max_results.)",
            found.len() - max
        ));
    }
    out
}

/// One Google Places call; its `status` judged (errors come inside a 200).
fn google(
    ctx: &ToolContext,
    path: &str,
    pairs: &[(&str, &str)],
    key: &str,
) -> Result<Value, String> {
    let value = google_answer(ctx, path, pairs, key)?;
    google_status(&value).map_err(|why| why.replace(key, "[key]"))?;
    Ok(value)
}

/// Google's answer to `path` with `pairs` and the `key`, whatever its `status` says (the key
/// never in an error).
pub(super) fn google_answer(
    ctx: &ToolContext,
    path: &str,
    pairs: &[(&str, &str)],
    key: &str,
) -> Result<Value, String> {
    let mut query = pairs.to_vec();
    query.push(("key", key));
    let call = Call {
        query: &query,
        ..Call::default()
    };
    ctx.settings
        .web
        .json(&GOOGLE_PLACES, path, &call, &ctx.cancel)
        .map_err(|why| why.replace(key, "[key]"))
}

fn google_status(value: &Value) -> Result<(), String> {
    let status = value["status"].as_str().unwrap_or("OK");
    let said = value["error_message"]
        .as_str()
        .map(|m| format!(": {m}"))
        .unwrap_or_default();
    match status {
        "OK" | "ZERO_RESULTS" => Ok(()),
        "REQUEST_DENIED" => Err(format!(
            "Google Places refused the request (REQUEST_DENIED){said}. Check GOOGLE_PLACES_API_KEY and that the Places API is enabled for it (setup_google_auth explains)."
        )),
        "OVER_QUERY_LIMIT" => Err(format!(
            "Google Places says the key is over its quota (OVER_QUERY_LIMIT){said}. Try later, or check billing in the Google Cloud console."
        )),
        "INVALID_REQUEST" => Err(format!(
            "Google Places found the request invalid (INVALID_REQUEST){said}. Give a query or a location."
        )),
        other => Err(format!(
            "Google Places could not answer ({other}){said}. Try again later."
        )),
    }
}

/// Google's `results`: name, `formatted_address` (text search) or `vicinity` (nearby),
/// `geometry.location.lat/lng`.
fn google_places(value: &Value) -> Vec<Found> {
    let results = value["results"].as_array().map_or(&[][..], Vec::as_slice);
    results
        .iter()
        .filter_map(|result| {
            let location = &result["geometry"]["location"];
            let mut about = Vec::new();
            if let Some(rating) = result["rating"].as_f64() {
                let count = result["user_ratings_total"]
                    .as_i64()
                    .map(|n| format!(" ({n} reviews)"))
                    .unwrap_or_default();
                about.push(format!("rated {rating}{count}"));
            }
            if let Some(level) = result["price_level"].as_i64() {
                about.push(format!("price {}", "$".repeat(level.clamp(1, 4) as usize)));
            }
            match result["opening_hours"]["open_now"].as_bool() {
                Some(true) => about.push("open now".into()),
                Some(false) => about.push("closed now".into()),
                None => {}
            }
            about.extend(
                result["place_id"]
                    .as_str()
                    .map(|id| format!("place_id {id}")),
            );
            Some(Found {
                name: result["name"].as_str()?.to_string(),
                address: result["formatted_address"]
                    .as_str()
                    .or(result["vicinity"].as_str())
                    .unwrap_or_default()
                    .to_string(),
                lat: location["lat"].as_f64()?,
                lng: location["lng"].as_f64()?,
                about,
                meters: None,
            })
        })
        .collect()
}

/// A Nominatim search (jsonv2, address details) with `pairs` added.
fn nominatim(ctx: &ToolContext, pairs: &[(&str, &str)]) -> Result<Vec<Found>, String> {
    let mut query = vec![("format", "jsonv2"), ("addressdetails", "1")];
    query.extend_from_slice(pairs);
    let call = Call {
        query: &query,
        ..Call::default()
    };
    let value = ctx
        .settings
        .web
        .json(&NOMINATIM, "/search", &call, &ctx.cancel)?;
    let Some(results) = value.as_array() else {
        let said = value["error"]
            .as_str()
            .unwrap_or("an answer that is not a list");
        return Err(format!("Nominatim could not search: {said}."));
    };
    Ok(results.iter().filter_map(nominatim_place).collect())
}

/// Nominatim's search inside the square around `center` that holds the circle of `radius`.
fn nominatim_around(
    ctx: &ToolContext,
    center: &Spot,
    query: &str,
    radius: f64,
) -> Result<Vec<Found>, String> {
    let dlat = radius / 111_320.0;
    let dlng = radius / (111_320.0 * geo::cos_degrees(center.lat).max(0.01));
    let viewbox = format!(
        "{},{},{},{}",
        center.lng - dlng,
        center.lat + dlat,
        center.lng + dlng,
        center.lat - dlat
    );
    nominatim(
        ctx,
        &[
            ("q", query),
            ("viewbox", viewbox.as_str()),
            ("bounded", "1"),
            ("limit", "40"),
        ],
    )
}

/// One Nominatim result (jsonv2: `lat`/`lon` strings, `category`/`type`).
fn nominatim_place(result: &Value) -> Option<Found> {
    let number = |key: &str| result[key].as_str()?.parse::<f64>().ok();
    let display = result["display_name"].as_str().unwrap_or_default();
    let name = result["name"]
        .as_str()
        .filter(|n| !n.is_empty())
        .or_else(|| display.split(',').next())
        .unwrap_or(display)
        .trim()
        .to_string();
    let kind = match (result["category"].as_str(), result["type"].as_str()) {
        (Some(category), Some(kind)) => vec![format!("{category}/{kind}")],
        _ => Vec::new(),
    };
    Some(Found {
        name,
        address: display.to_string(),
        lat: number("lat")?,
        lng: number("lon")?,
        about: kind,
        meters: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOGLE: &str =
        include_str!("../../../tests/fixtures/apis/google_places_textsearch_legacy.json");
    const NOMINATIM_SEARCH: &str =
        include_str!("../../../tests/fixtures/apis/nominatim_search_jsonv2.json");

    #[test]
    fn google_results_have_lng_and_optional_fields() {
        let value: Value = serde_json::from_str(GOOGLE).unwrap();
        assert_eq!(google_status(&value), Ok(()));
        let found = google_places(&value);
        assert_eq!(found.len(), 20);
        assert_eq!(found[0].name, "Papa Gede's Bar");
        assert_eq!(found[0].address, "348 Kent St, Sydney NSW 2000, Australia");
        assert_eq!((found[0].lat, found[0].lng), (-33.8698515, 151.2048769));
        assert_eq!(
            found[0].about,
            vec![
                "rated 4.7 (501 reviews)",
                "price $$",
                "closed now",
                "place_id ChIJ3SS9Lj-uEmsRrVS7u1OEV_0"
            ]
        );
        assert_eq!(found[18].name, "Jacoby’s Tiki Bar");
        assert!(
            found
                .iter()
                .any(|f| !f.about.iter().any(|a| a.starts_with("price")))
        );
    }

    #[test]
    fn google_statuses_inside_a_200_become_sentences() {
        for (status, said) in [
            ("ZERO_RESULTS", None),
            (
                "REQUEST_DENIED",
                Some("REQUEST_DENIED): The provided API key is invalid."),
            ),
            ("OVER_QUERY_LIMIT", Some("over its quota")),
            ("INVALID_REQUEST", Some("invalid")),
            ("UNKNOWN_ERROR", Some("(UNKNOWN_ERROR)")),
        ] {
            let value = serde_json::json!({"status": status, "results": [], "error_message": "The provided API key is invalid."});
            match said {
                None => assert_eq!(google_status(&value), Ok(())),
                Some(said) => {
                    let error = google_status(&value).unwrap_err();
                    assert!(error.contains(said), "{error}");
                }
            }
        }
    }

    #[test]
    fn nominatim_results_have_string_coordinates() {
        let value: Value = serde_json::from_str(NOMINATIM_SEARCH).unwrap();
        let found: Vec<Found> = value
            .as_array()
            .unwrap()
            .iter()
            .filter_map(nominatim_place)
            .collect();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].name, "Prime Minister’s Office");
        assert_eq!(
            (found[0].lat, found[0].lng),
            (51.50344025, -0.12770820958562096)
        );
        assert_eq!(found[0].about, vec!["tourism/attraction"]);
    }

    #[test]
    fn distances_are_great_circle() {
        // Paris (Notre-Dame) to London (Trafalgar Square): about 343 km.
        let d = geo::meters_between(48.853, 2.3499, 51.508, -0.128);
        assert!((340_000.0..346_000.0).contains(&d), "{d}");
        assert_eq!(geo::meters_between(1.0, 2.0, 1.0, 2.0), 0.0);
    }
}
