//! places_text_search and places_nearby_search against a local Google Places (the recorded
//! legacy Text Search answer; Nearby Search answers in the same `results` shape, so the same
//! recording stands in for it) and a local Nominatim (recorded answers), and setup_google_auth
//! against Google's real refusals (an unknown key, a quota, a restricted key, a disabled
//! project, an API not enabled). The searches' errors inside a 200 follow its documentation.

use super::{call, fixture, reply};
use crate::common::tools::call_unanswered;
use crate::common::{ReplayServer, Reply, TempDir};

const KEY: &str = "AIza-test-key-1234";

fn profile(home: &TempDir) -> std::path::PathBuf {
    let dir = home.path().join("marvin-home/profiles/default");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn google_answers_when_a_key_is_set_and_the_key_never_shows() {
    let home = TempDir::new("places-google");
    let google = ReplayServer::start(vec![
        Reply::json(200, fixture("google_places_textsearch_legacy.json")),
        Reply::json(
            200,
            r#"{"html_attributions": [], "results": [], "status": "ZERO_RESULTS"}"#,
        ),
        Reply::json(
            200,
            format!(
                r#"{{"error_message": "The provided API key is invalid: {KEY}", "html_attributions": [], "results": [], "status": "REQUEST_DENIED"}}"#
            ),
        ),
        Reply::json(
            200,
            r#"{"error_message": "You have exceeded your daily request quota for this API.", "html_attributions": [], "results": [], "status": "OVER_QUERY_LIMIT"}"#,
        ),
    ]);
    let env = [
        ("GOOGLE_PLACES_URL", google.root()),
        ("GOOGLE_PLACES_API_KEY", KEY.to_string()),
    ];
    let found = call(
        &home,
        "places_text_search",
        r#"{"query": "bar in sydney", "max_results": 2}"#,
        &env,
    );
    assert!(
        found.starts_with(
            "Google Places for \"bar in sydney\":\n\n\
             1. Papa Gede's Bar\n   348 Kent St, Sydney NSW 2000, Australia\n   \
             -33.869852, 151.204877 · rated 4.7 (501 reviews) · price $$ · closed now · place_id ChIJ3SS9Lj-uEmsRrVS7u1OEV_0\n\n2. "
        ),
        "{found}"
    );
    assert!(
        found.ends_with("(18 more not shown; ask with a larger max_results.)"),
        "{found}"
    );
    assert_eq!(
        google.requests()[0].url,
        format!("/textsearch/json?query=bar%20in%20sydney&key={KEY}")
    );
    let said: Vec<String> = (0..3)
        .map(|_| call(&home, "places_text_search", r#"{"query": "zzqx"}"#, &env))
        .collect();
    assert_eq!(said[0], "Google Places found nothing for \"zzqx\".");
    assert_eq!(
        said[1],
        "Error: Google Places refused the request (REQUEST_DENIED): The provided API key is invalid: [key]. Check GOOGLE_PLACES_API_KEY and that the Places API is enabled for it (setup_google_auth explains)."
    );
    assert!(said[2].starts_with("Error: Google Places says the key is over its quota (OVER_QUERY_LIMIT): You have exceeded"), "{}", said[2]);
    for text in said.iter().chain([&found]) {
        assert!(!text.contains(KEY), "{text}");
    }
}

#[test]
fn nearby_with_google_sends_the_point_and_radius_and_sorts_by_distance() {
    let home = TempDir::new("places-google-nearby");
    let google = ReplayServer::start(vec![Reply::json(
        200,
        fixture("google_places_textsearch_legacy.json"),
    )]);
    let text = call(
        &home,
        "places_nearby_search",
        r#"{"location": "-33.8698515,151.2048769", "query": "bar", "radius_m": 300, "max_results": 3}"#,
        &[
            ("GOOGLE_PLACES_URL", google.root()),
            ("GOOGLE_PLACES_API_KEY", KEY.to_string()),
        ],
    );
    assert!(
        text.starts_with(
            "Google Places: bar within 300 m of -33.8698515,151.2048769 (coordinates), nearest first:\n\n1. Papa Gede's Bar — 0 m\n"
        ),
        "{text}"
    );
    assert_eq!(
        google.requests()[0].url,
        format!(
            "/nearbysearch/json?location=-33.8698515%2C151.2048769&radius=300&keyword=bar&key={KEY}"
        )
    );
}

#[test]
fn without_a_key_nominatim_answers_and_a_saved_place_is_a_centre() {
    let home = TempDir::new("places-nominatim");
    let dir = profile(&home);
    std::fs::write(
        dir.join("saved_places.json"),
        r#"[{"label": "home", "name": "Our flat", "address": "Whitehall, London", "lat": 51.5033, "lng": -0.1281}]"#,
    )
    .unwrap();
    std::fs::write(dir.join("preferences.json"), r#"{"distance_unit": "km"}"#).unwrap();
    let nominatim = ReplayServer::start(vec![
        Reply::json(200, fixture("nominatim_search_jsonv2.json")),
        Reply::json(200, fixture("nominatim_search_jsonv2.json")),
        Reply::json(200, fixture("nominatim_search_empty.json")),
    ]);
    let env = [("NOMINATIM_URL", nominatim.root())];
    let text = call(
        &home,
        "places_text_search",
        r#"{"query": "10 Downing St, London, UK"}"#,
        &env,
    );
    assert!(
        text.starts_with(
            "OpenStreetMap places for \"10 Downing St, London, UK\":\n\n\
             1. Prime Minister’s Office\n   Prime Minister’s Office, 10, Downing Street, Westminster, London, Greater London, England, SW1A 2AA, United Kingdom\n   51.503440, -0.127708 · tourism/attraction\n\n\
             2. 10\n   10, Downing Street, Westminster, London, Greater London, England, SW1, United Kingdom\n   51.503280, -0.127636 · place/house"
        ),
        "{text}"
    );
    assert!(text.ends_with("Data © OpenStreetMap contributors (ODbL), from Nominatim. With GOOGLE_PLACES_API_KEY set, Google Places answers instead (see setup_google_auth)."), "{text}");
    let nearby = call(
        &home,
        "places_nearby_search",
        r#"{"location": "HOME", "query": "downing street", "radius_m": 500}"#,
        &env,
    );
    assert!(
        nearby.starts_with(
            "OpenStreetMap: downing street within 500 m of Our flat (saved place home), nearest first:\n\n\
             1. Prime Minister’s Office — 31 m\n"
        ),
        "{nearby}"
    );
    assert!(nearby.contains("\n\n2. 10 — 32 m\n"), "{nearby}");
    let asked = nominatim.requests();
    assert_eq!(
        asked[0].url,
        "/search?format=jsonv2&addressdetails=1&q=10%20Downing%20St%2C%20London%2C%20UK&limit=5"
    );
    assert!(
        asked[1]
            .url
            .contains("&q=downing%20street&viewbox=-0.13531"),
        "{}",
        asked[1].url
    );
    assert!(
        asked[1].url.ends_with("&bounded=1&limit=40"),
        "{}",
        asked[1].url
    );
    let empty = call(
        &home,
        "places_text_search",
        r#"{"query": "jsajhgsdkfjhsfkjhaldkadjaslgldasd"}"#,
        &env,
    );
    assert_eq!(
        empty,
        "Nominatim found nothing for \"jsajhgsdkfjhsfkjhaldkadjaslgldasd\". Try a fuller name or address, or fewer words."
    );
    let no_query = call(
        &home,
        "places_nearby_search",
        r#"{"location": "home"}"#,
        &env,
    );
    assert!(
        no_query.starts_with("Error: Say what to look for"),
        "{no_query}"
    );
}

#[test]
fn nominatim_html_and_silence_become_sentences() {
    let home = TempDir::new("places-errors");
    let nominatim = ReplayServer::start(vec![reply(
        200,
        "text/html",
        "<!DOCTYPE html><html><body>Access blocked: see the usage policy</body></html>",
    )]);
    let html = call(
        &home,
        "places_text_search",
        r#"{"query": "x"}"#,
        &[("NOMINATIM_URL", nominatim.root())],
    );
    assert!(
        html.starts_with("Error: Nominatim answered with a web page instead of data (HTTP 200)"),
        "{html}"
    );
    let timed_out = call_unanswered(
        &home,
        "places_text_search",
        r#"{"query": "x"}"#,
        "NOMINATIM_URL",
    );
    assert_eq!(
        timed_out,
        "Error: Nominatim request timed out after 1s. Try again or rephrase query."
    );
}

#[test]
fn setup_google_auth_says_how_when_there_is_no_key() {
    let home = TempDir::new("places-auth");
    let without = call(&home, "setup_google_auth", "{}", &[]);
    assert!(without.starts_with("No key is set now"), "{without}");
    assert!(
        without.contains("~/.ssh/GOOGLE_PLACES_API_KEY"),
        "{without}"
    );
}

/// setup_google_auth's answer with Google answering `recording`, and the file the key would
/// be kept in.
fn check_key(home: &TempDir, args: &str, recording: &str) -> (String, std::path::PathBuf) {
    let google = ReplayServer::start(vec![Reply::json(200, fixture(recording))]);
    let said = call(
        home,
        "setup_google_auth",
        args,
        &[("GOOGLE_PLACES_URL", google.root())],
    );
    assert_eq!(
        google.requests()[0].url,
        format!(
            "/findplacefromtext/json?input=Eiffel%20Tower&inputtype=textquery&fields=place_id&key={KEY}"
        )
    );
    assert!(!said.contains(KEY), "{said}");
    (said, home.path().join(".ssh/GOOGLE_PLACES_API_KEY"))
}

#[test]
fn setup_google_auth_checks_the_key_it_has_with_google() {
    let home = TempDir::new("places-auth-file");
    let ssh = home.path().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("GOOGLE_PLACES_API_KEY"), format!("{KEY}\n")).unwrap();
    // A real answer of the same API with status OK (its list, Text Search's, is not read).
    let (said, _) = check_key(&home, "{}", "google_places_textsearch_legacy.json");
    let base = said.split(" answered").next().unwrap();
    assert!(
        base.starts_with("Google Places (the Places API at http://127.0.0.1:"),
        "{said}"
    );
    assert!(
        said.ends_with(
            ") answered a test search with OK.\n\
             The key works: places_text_search and places_nearby_search can use Google Places.\n\n\
             Marvin reads this key from ~/.ssh/GOOGLE_PLACES_API_KEY."
        ),
        "{said}"
    );
}

#[test]
fn setup_google_auth_keeps_a_key_google_knows_and_says_why_it_refused() {
    use std::os::unix::fs::PermissionsExt;
    let args = format!(r#"{{"key": " {KEY} "}}"#);
    let home = TempDir::new("places-auth-invalid");
    let (said, file) = check_key(
        &home,
        &args,
        "google_places_findplace_invalid_key_crawled.json",
    );
    assert!(
        said.contains(
            "answered a test search with REQUEST_DENIED: \"The provided API key is invalid.\".\n\
             Google does not know this key"
        ),
        "{said}"
    );
    assert!(
        said.ends_with("Nothing was kept: give a key Google accepts."),
        "{said}"
    );
    assert!(!file.exists());
    let cases = [
        (
            "google_places_autocomplete_over_query_limit_issue.json",
            "with OVER_QUERY_LIMIT: \"You have exceeded your daily request quota for this API.",
            "The key is valid, but over its quota",
        ),
        (
            "google_geocode_api_not_authorized_quoted.json",
            "with REQUEST_DENIED: \"This API project is not authorized to use this API.",
            "The key is valid, but the Places API is not enabled for its project: enable \"Places API\" at https://console.cloud.google.com/apis/library/places-backend.googleapis.com.",
        ),
        (
            "google_places_nearby_referer_restricted_issue.json",
            "with REQUEST_DENIED: \"Browser API keys cannot have referer restrictions",
            "The key is valid, but its restrictions refuse this request",
        ),
        (
            "google_places_project_disabled_issue.json",
            "with REQUEST_DENIED: \"Google has disabled the use of APIs",
            "Google has disabled the key's project",
        ),
    ];
    for (recording, answered, advice) in cases {
        let home = TempDir::new("places-auth-kept");
        let (said, file) = check_key(&home, &args, recording);
        assert!(
            said.contains(&format!(" answered a test search {answered}")),
            "{said}"
        );
        assert!(said.contains(&format!("\n{advice}")), "{said}");
        assert!(
            said.ends_with("Kept in ~/.ssh/GOOGLE_PLACES_API_KEY, readable by you alone: place searches use it from now on."),
            "{said}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), format!("{KEY}\n"));
        let mode =
            |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
    }
}
