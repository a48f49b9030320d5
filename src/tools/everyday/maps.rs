//! OpenStreetMap for questions a place search does not answer: `osm_search` (Nominatim, with
//! the address's parts, OSM ids and extra tags) and `overpass_query` (Overpass QL posted to
//! OVERPASS_URL's `/interpreter`: JSON output and a server-side `[timeout:N]` added when the
//! query has none, a cap on the elements shown, Overpass's own error remarks shown).

use serde::Deserialize;
use serde_json::Value;

use crate::services::{NOMINATIM, OVERPASS};
use crate::tools::kit::html;
use crate::tools::kit::web::Call;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const DEFAULT_PLACES: i64 = 5;
const MAX_PLACES: i64 = 20;
const DEFAULT_ELEMENTS: i64 = 50;
const MAX_ELEMENTS: i64 = 500;
/// The longest server-side timeout asked for (Overpass's own default is 180 s).
const MAX_SERVER_TIMEOUT: u64 = 25;
/// Tags shown per element; the rest are counted.
const MAX_TAGS: usize = 12;
const ADDRESS_PARTS: &[&str] = &[
    "house_number",
    "road",
    "suburb",
    "city",
    "town",
    "village",
    "state",
    "postcode",
    "country",
];
const EXTRA_TAGS: &[&str] = &["opening_hours", "phone", "website", "wikipedia", "wikidata"];

const SEARCH_PARAMS: &[Param] = &[
    Param::required("query", Kind::String, "A name or an address"),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many (default 5, at most 20)",
    ),
];
const OVERPASS_PARAMS: &[Param] = &[
    Param::required(
        "query",
        Kind::String,
        "Overpass QL, e.g. [out:json];node[amenity=drinking_water](around:500,48.85,2.35);out;",
    ),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many elements to show (default 50, at most 500)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "maps",
    about: "addresses and coordinates (OpenStreetMap)",
    words: &[
        "map",
        "maps",
        "openstreetmap",
        "osm",
        "coordinates",
        "latitude",
        "longitude",
        "address of",
        "where is",
        "located",
        "location of",
    ],
    asks: &[
        "what are the coordinates of the eiffel tower",
        "find the address of the town hall",
        "look up this address on the map",
        "reverse geocode these coordinates",
        "which street is this latitude longitude",
        "show the postcode of the museum",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("osm_search")
            .describe("Look a place or address up in OpenStreetMap (Nominatim): full address parts, coordinates, OSM type and id, and tags such as opening hours or website. Use for precise addresses and OSM ids for overpass_query.")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "10 Downing St, London"}"#)
            .handler(osm_search),
        ToolDef::build("overpass_query")
            .describe("Run an Overpass QL query on OpenStreetMap data, for questions by tag and area (all drinking fountains within 500 m, the boundary of a town). Returns elements with their tags and positions.")
            .offered(Offered::Everywhere)
            .params(OVERPASS_PARAMS)
            .example(r#"{"query": "[out:json];node[amenity=cafe](around:300,48.8584,2.2945);out;"}"#)
            .handler(overpass_query),
    ]
}

fn within(asked: Option<i64>, default: i64, max: i64) -> Result<usize, String> {
    match asked.unwrap_or(default) {
        n if (1..=max).contains(&n) => Ok(n as usize),
        n => Err(format!(
            "max_results must be between 1 and {max} (got {n})."
        )),
    }
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    max_results: Option<i64>,
}

fn osm_search(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = args.query.trim();
    if query.is_empty() {
        return Err("The query is empty: give a name or an address.".into());
    }
    let limit = within(args.max_results, DEFAULT_PLACES, MAX_PLACES)?.to_string();
    let pairs = [
        ("q", query),
        ("format", "jsonv2"),
        ("addressdetails", "1"),
        ("extratags", "1"),
        ("limit", limit.as_str()),
    ];
    let call = Call {
        query: &pairs,
        ..Call::default()
    };
    let value = ctx
        .settings
        .web
        .json(&NOMINATIM, "/search", &call, &ctx.cancel)?;
    let Some(places) = value.as_array() else {
        let said = value["error"]
            .as_str()
            .unwrap_or("an answer that is not a list");
        return Err(format!("Nominatim could not search: {said}."));
    };
    if places.is_empty() {
        return Ok(format!(
            "OpenStreetMap has nothing matching \"{query}\". Try a fuller address, another spelling, or fewer words."
        ));
    }
    let mut out = format!("OpenStreetMap (Nominatim) for \"{query}\":");
    for (i, place) in places.iter().enumerate() {
        out.push_str(&format!("\n\n{}. {}", i + 1, describe_place(place)));
    }
    out.push_str("\n\nData © OpenStreetMap contributors (ODbL).");
    Ok(out)
}

fn describe_place(place: &Value) -> String {
    let text = |v: &Value| {
        v.as_str()
            .map(str::to_string)
            .or(v.as_i64().map(|n| n.to_string()))
    };
    let mut out = place["display_name"]
        .as_str()
        .unwrap_or("(no name)")
        .to_string();
    out.push_str(&format!(
        "\n   {}, {} · {}/{} · {} {}",
        place["lat"].as_str().unwrap_or("?"),
        place["lon"].as_str().unwrap_or("?"),
        place["category"]
            .as_str()
            .or(place["class"].as_str())
            .unwrap_or("?"),
        place["type"].as_str().unwrap_or("?"),
        place["osm_type"].as_str().unwrap_or("?"),
        text(&place["osm_id"]).unwrap_or_default()
    ));
    let address: Vec<String> = ADDRESS_PARTS
        .iter()
        .filter_map(|part| Some(format!("{part}: {}", text(&place["address"][part])?)))
        .collect();
    if !address.is_empty() {
        out.push_str(&format!("\n   {}", address.join("; ")));
    }
    let extra: Vec<String> = EXTRA_TAGS
        .iter()
        .filter_map(|tag| Some(format!("{tag}: {}", text(&place["extratags"][tag])?)))
        .collect();
    if !extra.is_empty() {
        out.push_str(&format!("\n   {}", extra.join("; ")));
    }
    out
}

#[derive(Deserialize)]
struct OverpassArgs {
    query: String,
    max_results: Option<i64>,
}

fn overpass_query(args: OverpassArgs, ctx: &ToolContext) -> Result<String, String> {
    let max = within(args.max_results, DEFAULT_ELEMENTS, MAX_ELEMENTS)?;
    let timeout = ctx
        .settings
        .web
        .settings()
        .timeout
        .as_secs()
        .clamp(1, MAX_SERVER_TIMEOUT);
    let query = prepared(&args.query, timeout)?;
    let web = &ctx.settings.web;
    let form = [("data", query.as_str())];
    let call = Call {
        form: Some(&form),
        ..Call::default()
    };
    let fetched = web.call(&OVERPASS, "/interpreter", &call, &ctx.cancel)?;
    if !fetched.is_success() {
        if let Some(said) = error_remarks(&fetched.text()) {
            return Err(format!(
                "Overpass refused the query (HTTP {}): {said}",
                fetched.status
            ));
        }
        match fetched.status {
            429 => return Err("Overpass is busy with this address's other queries (HTTP 429). Wait a minute and try again.".into()),
            504 => return Err("Overpass is overloaded (HTTP 504). Try again later, or a smaller area.".into()),
            _ => {}
        }
    }
    let value = web.read_json(&OVERPASS, &fetched)?;
    Ok(elements(&value, max))
}

/// The query with `[out:json]` and `[timeout:N]` added to its settings when it has none.
fn prepared(query: &str, timeout: u64) -> Result<String, String> {
    let query = query.trim();
    if query.is_empty() {
        return Err("The query is empty: write Overpass QL, e.g. [out:json];node[amenity=cafe](around:300,48.85,2.29);out;".into());
    }
    if query.contains("[out:") && !query.contains("[out:json]") {
        return Err(
            "overpass_query reads JSON: write [out:json] instead of another output format.".into(),
        );
    }
    let mut settings = String::new();
    if !query.contains("[out:json]") {
        settings.push_str("[out:json]");
    }
    if !query.contains("[timeout:") {
        settings.push_str(&format!("[timeout:{timeout}]"));
    }
    Ok(match (settings.is_empty(), query.starts_with('[')) {
        (true, _) => query.to_string(),
        (false, true) => format!("{settings}{query}"),
        (false, false) => format!("{settings};\n{query}"),
    })
}

/// The `Error: …` paragraphs of Overpass's XHTML error page, tags stripped.
fn error_remarks(page: &str) -> Option<String> {
    let errors: Vec<String> = page
        .split("<p>")
        .skip(1)
        .map(|paragraph| html::line(paragraph.split("</p>").next().unwrap_or_default()))
        .filter_map(|line| Some(line.strip_prefix("Error:")?.trim().to_string()))
        .collect();
    (!errors.is_empty()).then(|| errors.join(" "))
}

/// The elements, at most `max`, then a runtime `remark` (a timeout, memory) if Overpass made one.
fn elements(value: &Value, max: usize) -> String {
    let all = value["elements"].as_array().map_or(&[][..], Vec::as_slice);
    let remark = value["remark"]
        .as_str()
        .map(str::trim)
        .filter(|r| !r.is_empty());
    let mut out = match all.len() {
        0 => "Overpass found no elements for this query.".to_string(),
        1 => "Overpass found 1 element:".to_string(),
        n => format!("Overpass found {n} elements:"),
    };
    for element in all.iter().take(max) {
        out.push_str(&format!("\n\n{}", describe_element(element)));
    }
    if all.len() > max {
        out.push_str(&format!(
            "\n\n{} more not shown; narrow the query or ask with a larger max_results.",
            all.len() - max
        ));
    }
    if let Some(remark) = remark {
        out.push_str(&format!(
            "\n\nOverpass remarks: {remark} (the result may be incomplete)."
        ));
    }
    if !all.is_empty() {
        out.push_str("\n\nData © OpenStreetMap contributors (ODbL).");
    }
    out
}

fn describe_element(element: &Value) -> String {
    let kind = element["type"].as_str().unwrap_or("element");
    let id = element["id"].as_i64().unwrap_or_default();
    let tags = element["tags"].as_object();
    let name = tags
        .and_then(|t| t.get("name"))
        .and_then(Value::as_str)
        .map(|n| format!(" \"{n}\""))
        .unwrap_or_default();
    let position = match (element["lat"].as_f64(), element["lon"].as_f64()) {
        (Some(lat), Some(lon)) => format!(" at {lat}, {lon}"),
        _ => match (
            element["center"]["lat"].as_f64(),
            element["center"]["lon"].as_f64(),
        ) {
            (Some(lat), Some(lon)) => format!(" centred at {lat}, {lon}"),
            _ => String::new(),
        },
    };
    let mut out = format!("{kind} {id}{name}{position}");
    if let Some(members) = element["members"].as_array() {
        out.push_str(&format!(", {} members", members.len()));
    }
    if let Some(nodes) = element["nodes"].as_array() {
        out.push_str(&format!(", {} nodes", nodes.len()));
    }
    if let Some(tags) = tags {
        let shown: Vec<String> = tags
            .iter()
            .filter(|(key, _)| key.as_str() != "name")
            .take(MAX_TAGS)
            .map(|(key, value)| format!("{key}={}", value.as_str().unwrap_or_default()))
            .collect();
        if !shown.is_empty() {
            out.push_str(&format!("\n   {}", shown.join(", ")));
        }
        let rest = tags.len() - usize::from(tags.contains_key("name")) - shown.len();
        if rest > 0 {
            out.push_str(&format!(" (+{rest} more tags)"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ERROR_PAGE: &str =
        include_str!("../../../tests/fixtures/apis/overpass_400_parse_error.html");
    const AREAS: &str = include_str!("../../../tests/fixtures/apis/overpass_area_by_name.json");
    const RELATION: &str =
        include_str!("../../../tests/fixtures/apis/overpass_relation_out_center.json");

    #[test]
    fn queries_get_json_output_and_a_timeout_when_they_have_none() {
        for (query, prepared_as) in [
            ("node(1);out;", "[out:json][timeout:25];\nnode(1);out;"),
            (
                "[out:json];node(1);out;",
                "[timeout:25][out:json];node(1);out;",
            ),
            (
                "[bbox:1,2,3,4];node;out;",
                "[out:json][timeout:25][bbox:1,2,3,4];node;out;",
            ),
            (
                "[out:json][timeout:5];node(1);out;",
                "[out:json][timeout:5];node(1);out;",
            ),
        ] {
            assert_eq!(prepared(query, 25).unwrap(), prepared_as);
        }
        assert!(
            prepared("[out:xml];node(1);out;", 25)
                .unwrap_err()
                .contains("[out:json]")
        );
        assert!(prepared("  ", 25).is_err());
    }

    #[test]
    fn the_error_page_gives_its_error_and_not_the_licence() {
        assert_eq!(
            error_remarks(ERROR_PAGE).as_deref(),
            Some("line 2: parse error: ';' expected - 'out' found.")
        );
        assert_eq!(
            error_remarks("<html><p>The data included…</p></html>"),
            None
        );
    }

    #[test]
    fn elements_show_tags_positions_and_what_is_left_out() {
        let areas: Value = serde_json::from_str(AREAS).unwrap();
        let text = elements(&areas, 2);
        assert!(text.starts_with("Overpass found 4 elements:"), "{text}");
        assert!(text.contains("area 3600055060 \"Troisdorf\""), "{text}");
        assert!(text.contains("admin_level=8"), "{text}");
        assert!(text.contains("wikidata=Q3900"), "{text}");
        assert!(!text.contains("3605945176"), "{text}");
        assert!(text.contains("2 more not shown"), "{text}");
        let relation: Value = serde_json::from_str(RELATION).unwrap();
        let text = elements(&relation, 50);
        assert!(
            text.contains("relation 23092 \"Bundesautobahn 555\" centred at 50.8176646, 7.0208539, 133 members"),
            "{text}"
        );
        assert!(text.contains("ref=A 555"), "{text}");
        let timed_out = serde_json::json!({"elements": [], "remark": "runtime error: Query timed out in \"query\" at line 1 after 2 seconds."});
        assert!(
            elements(&timed_out, 5).contains("Overpass remarks: runtime error: Query timed out")
        );
    }
}
