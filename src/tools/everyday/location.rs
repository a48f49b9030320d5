//! Where the person is: `get_my_location`. The device's own position first — GeoClue on
//! Linux through its `where-am-i` client, CoreLocation on macOS through `CoreLocationCLI`
//! (Homebrew's corelocationcli) —
//! else the network's position from IP geolocation (IPGEO_URL: ipinfo.io's `/json`, or a
//! server answering in ip-api.com's shape). The answer says which source spoke and how precise
//! it is; IP geolocation is city-level at best.
//!
//! GeoClue is not asked through `gdbus`/`busctl` calls: GeoClue deletes a client the moment
//! the D-Bus connection that created it goes away, and each of those commands is its own
//! connection, so the Start/Location calls would always find the client gone. `where-am-i`
//! (GeoClue's own demo client) holds one connection for the whole exchange.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::net;
use crate::services::{IPGEO, NOMINATIM};
use crate::tools::kit::geo;
use crate::tools::kit::process;
use crate::tools::kit::web::Call;
use crate::tools::{Family, Offered, ToolContext, ToolDef};

/// How long GeoClue is given to find the device (where-am-i's own `--timeout`).
const GEOCLUE_WAIT: u64 = 4;
/// Where distributions install GeoClue's demo client, relative to a `bin` directory of PATH.
const WHERE_AM_I: &[&str] = &[
    "../libexec/geoclue-2.0/demos/where-am-i",
    "../lib/geoclue-2.0/demos/where-am-i",
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "location",
    about: "where the person is",
    words: &[
        "where am i",
        "my location",
        "current location",
        "near me",
        "nearby",
        "around me",
        "around here",
        "~here",
        "closest",
        "nearest",
        "~local",
    ],
    asks: &[
        "where am I",
        "what's my current location",
        "what city am I in",
        "find my position",
        "which country am I in right now",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("get_my_location")
            .describe("Find where the user is now (coordinates, city, how precise): from the device (GeoClue, CoreLocation) when it can, else from the network's IP address. Use when the user says \"here\", \"near me\" or \"where am I\" and has not named a place.")
            .offered(Offered::Everywhere)
            .example("{}")
            .handler(get_my_location),
    ]
}

#[derive(Deserialize)]
struct NoArgs {}

/// A position and what to say of it.
#[derive(Debug, PartialEq)]
struct Found {
    lat: f64,
    lng: f64,
    /// "Karlskrona, Blekinge, SE", when the source names a place.
    place: Option<String>,
    /// Which source answered, and how precise it is.
    source: String,
    /// Anything else worth a line (the network's operator, the time zone).
    details: Vec<String>,
}

fn get_my_location(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    let mut tried = Vec::new();
    match device(ctx) {
        Some(Ok(mut found)) => {
            found.place = address_of(ctx, found.lat, found.lng);
            return Ok(show(&found, &tried));
        }
        Some(Err(why)) => tried.push(why),
        None => {}
    }
    let found = ip_location(ctx).map_err(|why| {
        tried.push(why);
        tried.join(" ")
    })?;
    Ok(show(&found, &tried))
}

/// What Nominatim calls the point (its reverse geocoding), when it says; a miss is
/// `{"error": "Unable to geocode"}`, and any failure only leaves the place unnamed.
fn address_of(ctx: &ToolContext, lat: f64, lng: f64) -> Option<String> {
    let (lat, lon) = (lat.to_string(), lng.to_string());
    let pairs = [
        ("format", "jsonv2"),
        ("lat", lat.as_str()),
        ("lon", lon.as_str()),
        ("zoom", "18"),
    ];
    let call = Call {
        query: &pairs,
        ..Call::default()
    };
    let value = ctx
        .settings
        .web
        .json(&NOMINATIM, "/reverse", &call, &ctx.cancel)
        .ok()?;
    let name = value["display_name"].as_str()?.trim();
    (!name.is_empty()).then(|| format!("{name} (address from OpenStreetMap's Nominatim)"))
}

fn show(found: &Found, tried: &[String]) -> String {
    let mut out = match &found.place {
        Some(place) => format!("You are in or near {place} ({}, {}).", found.lat, found.lng),
        None => format!("You are at {}, {}.", found.lat, found.lng),
    };
    out.push_str(&format!("\nSource: {}", found.source));
    for line in &found.details {
        out.push('\n');
        out.push_str(line);
    }
    for why in tried {
        out.push_str(&format!("\n({why})"));
    }
    out
}

/// The device's own position: `None` when there is no way to ask on this system.
#[cfg(target_os = "macos")]
fn device(ctx: &ToolContext) -> Option<Result<Found, String>> {
    let program = ctx.find_program("CoreLocationCLI")?;
    let command = ctx
        .program_apart(program, crate::sandbox::Paths::default())
        .ok()?;
    let limit = Duration::from_secs(GEOCLUE_WAIT + 4);
    let said = process::run_program(command, "CoreLocationCLI", limit, &ctx.cancel)
        .and_then(|exit| exit.success("CoreLocationCLI"));
    Some(
        said.and_then(|text| corelocation(&text)).map_err(|why| {
            format!("CoreLocation gave no position, so this is the network's: {why}")
        }),
    )
}

/// CoreLocationCLI's default output: "<latitude> <longitude>".
#[cfg(target_os = "macos")]
fn corelocation(text: &str) -> Result<Found, String> {
    let numbers: Vec<f64> = text
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect();
    let [lat, lng, ..] = numbers[..] else {
        return Err(format!("unexpected output: {}", text.trim()));
    };
    Ok(Found {
        lat,
        lng,
        place: None,
        source: "the device (CoreLocation).".into(),
        details: Vec::new(),
    })
}

#[cfg(target_os = "linux")]
fn device(ctx: &ToolContext) -> Option<Result<Found, String>> {
    let program = where_am_i(ctx)?;
    let mut command = ctx
        .program_apart(program, crate::sandbox::Paths::default())
        .ok()?;
    command.arg(format!("--timeout={GEOCLUE_WAIT}"));
    let limit = Duration::from_secs(GEOCLUE_WAIT + 4);
    let output = process::run_program(command, "GeoClue's where-am-i", limit, &ctx.cancel)
        .map(|exit| exit.output);
    Some(
        output
            .and_then(|text| geoclue(&text, geo::distance_unit(ctx)))
            .map_err(|why| format!("GeoClue gave no position, so this is the network's: {why}")),
    )
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn device(_: &ToolContext) -> Option<Result<Found, String>> {
    None
}

/// GeoClue's `where-am-i`: on PATH, else where distributions put it beside a `bin` of PATH.
#[cfg(target_os = "linux")]
fn where_am_i(ctx: &ToolContext) -> Option<PathBuf> {
    if let Some(found) = ctx.find_program("where-am-i") {
        return Some(found);
    }
    let path = ctx.settings.search_path.clone()?;
    std::env::split_paths(&path)
        .flat_map(|dir| WHERE_AM_I.iter().map(move |rel| dir.join(rel)))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The last "New location:" block `where-am-i` printed (`Latitude:    45.764043°`,
/// `Longitude:   4.835659°`, `Accuracy:    20.000000 meters`, `Description: …`).
fn geoclue(text: &str, unit: geo::DistanceUnit) -> Result<Found, String> {
    let Some((_, block)) = text.rsplit_once("New location:") else {
        let said = text.trim().lines().last().unwrap_or("it printed nothing");
        return Err(format!("no location ({said})."));
    };
    let field = |name: &str| {
        block.lines().find_map(|line| {
            let value = line.trim().strip_prefix(name)?.strip_prefix(':')?;
            Some(value.trim().to_string())
        })
    };
    let number = |name: &str| {
        field(name)?
            .trim_end_matches('°')
            .trim_end_matches(" meters")
            .parse::<f64>()
            .ok()
    };
    let (Some(lat), Some(lng)) = (number("Latitude"), number("Longitude")) else {
        return Err("its answer had no latitude and longitude.".into());
    };
    let precision = match number("Accuracy") {
        Some(meters) => format!(", precise to about {}", unit.show(meters)),
        None => String::new(),
    };
    Ok(Found {
        lat,
        lng,
        place: None,
        source: format!("the device (GeoClue){precision}."),
        details: field("Description")
            .filter(|d| !d.is_empty())
            .map(|d| format!("GeoClue says: {d}"))
            .into_iter()
            .collect(),
    })
}

/// The network's position from IPGEO_URL's `/json`.
fn ip_location(ctx: &ToolContext) -> Result<Found, String> {
    let web = &ctx.settings.web;
    let value = web.json(&IPGEO, "/json", &Call::default(), &ctx.cancel)?;
    let host = net::host_of(&web.base(&IPGEO));
    if value.get("status").is_some() {
        ip_api(&value, &host)
    } else {
        ipinfo(&value, &host)
    }
}

const IP_PRECISION: &str = "city-level only: it is where the network's address is registered, not the device, and can be off by tens of kilometres (more behind a VPN or a mobile network).";

/// ipinfo.io's answer: `loc` is one "lat,lng" string; a private address is `bogon: true`.
fn ipinfo(value: &Value, host: &str) -> Result<Found, String> {
    let text = |key: &str| value[key].as_str().map(str::trim).filter(|s| !s.is_empty());
    let ip = text("ip").unwrap_or("this machine's address");
    if value["bogon"].as_bool() == Some(true) {
        return Err(bogon(ip, host));
    }
    let coordinates = text("loc").and_then(|loc| geo::coordinates(loc).ok().flatten());
    let Some((lat, lng)) = coordinates else {
        return Err(no_position(ip, host));
    };
    let place = join(&[text("city"), text("region"), text("country")]);
    let mut details = vec![format!("Address seen: {ip}")];
    details.extend(text("postal").map(|p| format!("Postal code: {p}")));
    details.extend(text("org").map(|o| format!("Network: {o}")));
    details.extend(text("timezone").map(|t| format!("Time zone: {t}")));
    Ok(Found {
        lat,
        lng,
        place,
        source: format!("IP geolocation ({host}), {IP_PRECISION}"),
        details,
    })
}

/// ip-api.com's answer: numbers `lat`/`lon`; a failure is `status: fail` with a `message`.
fn ip_api(value: &Value, host: &str) -> Result<Found, String> {
    let text = |key: &str| value[key].as_str().map(str::trim).filter(|s| !s.is_empty());
    let ip = text("query").unwrap_or("this machine's address");
    if text("status") != Some("success") {
        let message = text("message").unwrap_or("no reason given");
        if message.contains("private range") || message.contains("reserved range") {
            return Err(bogon(ip, host));
        }
        return Err(format!(
            "IP geolocation ({host}) could not place {ip}: {message}. Ask the user where they are, or use a saved place."
        ));
    }
    let (Some(lat), Some(lng)) = (value["lat"].as_f64(), value["lon"].as_f64()) else {
        return Err(no_position(ip, host));
    };
    let place = join(&[text("city"), text("regionName"), text("country")]);
    let mut details = vec![format!("Address seen: {ip}")];
    details.extend(text("zip").map(|p| format!("Postal code: {p}")));
    details.extend(text("as").or(text("isp")).map(|o| format!("Network: {o}")));
    details.extend(text("timezone").map(|t| format!("Time zone: {t}")));
    Ok(Found {
        lat,
        lng,
        place,
        source: format!("IP geolocation ({host}), {IP_PRECISION}"),
        details,
    })
}

fn join(parts: &[Option<&str>]) -> Option<String> {
    let parts: Vec<&str> = parts.iter().flatten().copied().collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn bogon(ip: &str, host: &str) -> String {
    format!(
        "IP geolocation ({host}) sees this machine as {ip}, a private or reserved address that has no location. Ask the user where they are, or use a saved place (list_places)."
    )
}

fn no_position(ip: &str, host: &str) -> String {
    format!(
        "IP geolocation ({host}) knows no position for {ip}. Ask the user where they are, or use a saved place (list_places)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::kit::geo::DistanceUnit;

    const IPINFO: &str = include_str!("../../../tests/fixtures/apis/ipinfo_ip_lookup.json");
    const BOGON: &str = include_str!("../../../tests/fixtures/apis/ipinfo_bogon.json");
    const IP_API: &str =
        include_str!("../../../tests/fixtures/apis/ipapi_com_ip_lookup_resorted.json");

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn ipinfo_gives_its_loc_string_split_and_the_country_code() {
        let found = ipinfo(&parse(IPINFO), "ipinfo.io").unwrap();
        assert_eq!((found.lat, found.lng), (56.1616, 15.5866));
        assert_eq!(found.place.as_deref(), Some("Karlskrona, Blekinge, SE"));
        assert!(found.source.contains("city-level"));
        assert!(found.details.contains(&"Postal code: 371 40".to_string()));
        assert!(
            found
                .details
                .contains(&"Network: AS2119 Telenor Norge AS".to_string())
        );
        let bogon = ipinfo(&parse(BOGON), "ipinfo.io").unwrap_err();
        assert!(
            bogon
                .contains("2001:0db8:0000:0042:0000:8a2e:0370:7334, a private or reserved address"),
            "{bogon}"
        );
    }

    #[test]
    fn ip_api_gives_numbers_and_fails_inside_a_200() {
        let found = ip_api(&parse(IP_API), "ip-api.com").unwrap();
        assert_eq!((found.lat, found.lng), (40.7209, -74.0468));
        assert_eq!(
            found.place.as_deref(),
            Some("Jersey City, New Jersey, United States")
        );
        assert!(found.details.contains(&"Postal code: 07302".to_string()));
        assert!(
            found
                .details
                .contains(&"Network: AS22576 DataPipe, Inc.".to_string())
        );
        for (message, said) in [
            ("private range", "private or reserved address"),
            ("reserved range", "private or reserved address"),
            ("invalid query", "could not place 10.0.0.1: invalid query."),
        ] {
            let value =
                serde_json::json!({"status": "fail", "message": message, "query": "10.0.0.1"});
            let error = ip_api(&value, "ip-api.com").unwrap_err();
            assert!(error.contains(said), "{error}");
        }
    }

    #[test]
    fn where_am_i_output_gives_the_last_position_and_its_accuracy() {
        let printed = "Client object: /org/freedesktop/GeoClue2/Client/1\n\nNew location:\nLatitude:    45.764043°\nLongitude:   4.835659°\nAccuracy:    20.000000 meters\nDescription: WiFi\n";
        let found = geoclue(printed, DistanceUnit::Kilometers).unwrap();
        assert_eq!((found.lat, found.lng), (45.764043, 4.835659));
        assert_eq!(found.source, "the device (GeoClue), precise to about 20 m.");
        assert_eq!(found.details, vec!["GeoClue says: WiFi".to_string()]);
        let refused = geoclue(
            "Failed to connect to GeoClue2 service: GDBus.Error:org.freedesktop.DBus.Error.AccessDenied: 'marvin' disallowed, no agent for UID 1000",
            DistanceUnit::Kilometers,
        )
        .unwrap_err();
        assert!(refused.contains("AccessDenied"), "{refused}");
        assert!(geoclue("", DistanceUnit::Miles).is_err());
    }
}
