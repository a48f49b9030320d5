//! osm_search and overpass_query against a local Nominatim and a local Overpass replaying
//! answers recorded by others (tests/fixtures/apis/): the form posted, the timeout and JSON
//! output added to a query, the cap on elements, Overpass's XHTML error page.

use super::{call, fixture, reply};
use crate::common::tools::call_unanswered;
use crate::common::{ReplayServer, Reply, TempDir};

#[test]
fn osm_search_gives_address_parts_ids_and_tags() {
    let home = TempDir::new("osm-search");
    let nominatim = ReplayServer::start(vec![
        Reply::json(200, fixture("nominatim_search_jsonv2.json")),
        Reply::json(200, fixture("nominatim_search_empty.json")),
    ]);
    let env = [("NOMINATIM_URL", nominatim.root())];
    let text = call(
        &home,
        "osm_search",
        r#"{"query": "10 Downing St, London, UK", "max_results": 5}"#,
        &env,
    );
    assert!(
        text.starts_with(
            "OpenStreetMap (Nominatim) for \"10 Downing St, London, UK\":\n\n\
             1. Prime Minister’s Office, 10, Downing Street, Westminster, London, Greater London, England, SW1A 2AA, United Kingdom\n   \
             51.50344025, -0.12770820958562096 · tourism/attraction · relation 1879842\n   \
             house_number: 10; road: Downing Street; city: Westminster; state: England; postcode: SW1A 2AA; country: United Kingdom\n   \
             website: "
        ),
        "{text}"
    );
    assert!(
        text.contains("wikipedia: en:10 Downing Street; wikidata: Q169101"),
        "{text}"
    );
    assert!(text.contains("\n\n2. 10, Downing Street, Westminster, London, Greater London, England, SW1, United Kingdom\n   51.5032802, -0.1276358 · place/house · node "), "{text}");
    assert!(
        text.ends_with("Data © OpenStreetMap contributors (ODbL)."),
        "{text}"
    );
    assert_eq!(
        nominatim.requests()[0].url,
        "/search?q=10%20Downing%20St%2C%20London%2C%20UK&format=jsonv2&addressdetails=1&extratags=1&limit=5"
    );
    let empty = call(
        &home,
        "osm_search",
        r#"{"query": "jsajhgsdkfjhsfkjhaldkadjaslgldasd"}"#,
        &env,
    );
    assert_eq!(
        empty,
        "OpenStreetMap has nothing matching \"jsajhgsdkfjhsfkjhaldkadjaslgldasd\". Try a fuller address, another spelling, or fewer words."
    );
}

#[test]
fn overpass_gets_a_timeout_and_json_and_caps_what_it_shows() {
    let home = TempDir::new("overpass");
    let overpass = ReplayServer::start(vec![
        Reply::json(200, fixture("overpass_area_by_name.json")),
        Reply::json(200, fixture("overpass_relation_out_center.json")),
    ]);
    let env = [("OVERPASS_URL", overpass.root())];
    let areas = call(
        &home,
        "overpass_query",
        r#"{"query": "area[name=\"Troisdorf\"];out;", "max_results": 2}"#,
        &env,
    );
    assert!(
        areas.starts_with("Overpass found 4 elements:\n\narea 2448756446"),
        "{areas}"
    );
    assert!(
        areas.contains("\n\narea 3600055060 \"Troisdorf\"\n   TMC:cid_58:tabcd_1:Class=Area, "),
        "{areas}"
    );
    for tag in ["admin_level=8", "boundary=administrative", "wikidata=Q3900"] {
        assert!(areas.contains(tag), "{areas}");
    }
    assert!(!areas.contains("3605945175"), "{areas}");
    assert!(
        areas.contains("\n\n2 more not shown; narrow the query or ask with a larger max_results."),
        "{areas}"
    );
    let relation = call(
        &home,
        "overpass_query",
        r#"{"query": "[out:json][timeout:10];(rel[\"ref\"=\"A 555\"];);out center;"}"#,
        &env,
    );
    assert!(
        relation.starts_with("Overpass found 1 element:\n\nrelation 23092 \"Bundesautobahn 555\" centred at 50.8176646, 7.0208539, 133 members\n   "),
        "{relation}"
    );
    assert!(relation.contains("ref=A 555"), "{relation}");
    assert!(relation.contains("route=road"), "{relation}");
    let asked = overpass.requests();
    assert_eq!(asked[0].url, "/interpreter");
    assert_eq!(
        asked[0].raw,
        "data=%5Bout%3Ajson%5D%5Btimeout%3A25%5D%3B%0Aarea%5Bname%3D%22Troisdorf%22%5D%3Bout%3B"
    );
    assert_eq!(
        asked[1].raw,
        "data=%5Bout%3Ajson%5D%5Btimeout%3A10%5D%3B%28rel%5B%22ref%22%3D%22A%20555%22%5D%3B%29%3Bout%20center%3B"
    );
}

#[test]
fn overpass_errors_are_its_own_words() {
    let home = TempDir::new("overpass-errors");
    let overpass = ReplayServer::start(vec![
        reply(
            400,
            "text/html; charset=utf-8",
            fixture("overpass_400_parse_error.html"),
        ),
        Reply::json(
            200,
            r#"{"version": 0.6, "generator": "Overpass API", "elements": [], "remark": "runtime error: Query timed out in \"query\" at line 1 after 25 seconds."}"#,
        ),
        reply(200, "text/html", "<html><body>Captive portal</body></html>"),
    ]);
    let env = [("OVERPASS_URL", overpass.root())];
    let said: Vec<String> = (0..3)
        .map(|_| {
            call(
                &home,
                "overpass_query",
                r#"{"query": "node(1)\nout;"}"#,
                &env,
            )
        })
        .collect();
    assert_eq!(
        said[0],
        "Error: Overpass refused the query (HTTP 400): line 2: parse error: ';' expected - 'out' found."
    );
    assert_eq!(
        said[1],
        "Overpass found no elements for this query.\n\nOverpass remarks: runtime error: Query timed out in \"query\" at line 1 after 25 seconds. (the result may be incomplete)."
    );
    assert!(
        said[2].starts_with("Error: Overpass answered with a web page instead of data (HTTP 200)"),
        "{}",
        said[2]
    );
    let xml = call(
        &home,
        "overpass_query",
        r#"{"query": "[out:xml];node(1);out;"}"#,
        &env,
    );
    assert_eq!(
        xml,
        "Error: overpass_query reads JSON: write [out:json] instead of another output format."
    );
    let timed_out = call_unanswered(
        &home,
        "overpass_query",
        r#"{"query": "node(1);out;"}"#,
        "OVERPASS_URL",
    );
    assert_eq!(
        timed_out,
        "Error: Overpass request timed out after 1s. Try again or rephrase query."
    );
}
