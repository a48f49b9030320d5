//! estimate_travel_time, get_directions and traffic_adjusted_time against a local OSRM. The
//! route is osrm_route_steps_EDITED (three waypoints in Manhattan, two legs, every street
//! name empty, every step's mode "driving"; its note says to use it for shape only), the
//! refusal osrm_400_invalid_query. The NoRoute and NoSegment bodies and the cycling route
//! follow OSRM's API documentation and its sources (`code`, `message`; steps with `mode`).

use super::{home_with, recorded};
use crate::common::{ReplayServer, Reply, TempDir};
use crate::everyday_web::{Silent, call, reply};

/// Saved places at the fixture's first and last waypoints, and the person's unit.
fn home(name: &str, preferences: &str) -> TempDir {
    home_with(
        name,
        r#"[{"label": "Home", "name": "Our flat", "address": "Grand St, New York", "lat": 40.714703, "lng": -73.990195},
            {"label": "station", "name": "Delancey St station", "address": "Delancey St, New York", "lat": 40.715655, "lng": -73.985746}]"#,
        preferences,
    )
}

fn env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![("OSRM_URL", server.root())]
}

#[test]
fn directions_from_saved_places_in_the_persons_miles() {
    let home = home("travel-directions", r#"{"distance_unit": "miles"}"#);
    let server = ReplayServer::start(vec![recorded(200, "osrm_route_steps_EDITED.json")]);
    let text = call(
        &home,
        "get_directions",
        r#"{"origin": "home", "destination": "Station", "profile": "car"}"#,
        &env(&server),
    );
    // The fixture's route: 1190.5 m, 92.2 s; leg 0 depart, right, right, left, right, right,
    // arrive; leg 1 depart, arrive; no street names, so no "onto".
    assert_eq!(
        text,
        "Directions by car from Our flat (saved place Home) to Delancey St station (saved place station): 0.7 mi, about 2 min.\n\
         1. Head south (110 ft)\n\
         2. Turn right (0.1 mi)\n\
         3. Turn right (440 ft)\n\
         4. Turn left (240 ft)\n\
         5. Turn right (470 ft)\n\
         6. Turn right (120 ft)\n\
         7. Arrive at stop 1\n\
         8. Arrive at your destination"
    );
    assert_eq!(
        server.requests()[0].url,
        "/route/v1/driving/-73.990195,40.714703;-73.985746,40.715655?overview=false&steps=true"
    );
}

#[test]
fn how_long_to_the_station_by_bike() {
    let home = home("travel-bike", "{}");
    // A cycling server's answer, after OSRM's documented route object (steps carry `mode`).
    let cycling = r#"{"code": "Ok", "routes": [{"distance": 2460.0, "duration": 561.3, "legs": [{"distance": 2460.0, "duration": 561.3, "summary": "Grand Street", "steps": [
        {"name": "Grand Street", "mode": "cycling", "distance": 2460.0, "duration": 561.3, "maneuver": {"type": "depart", "bearing_after": 90}},
        {"name": "", "mode": "cycling", "distance": 0, "duration": 0, "maneuver": {"type": "arrive"}}]}]}],
      "waypoints": [{"name": "Grand Street", "location": [-73.990195, 40.714703]}, {"name": "", "location": [-73.985746, 40.715655]}]}"#;
    let server = ReplayServer::start(vec![Reply::json(200, cycling)]);
    let text = call(
        &home,
        "estimate_travel_time",
        r#"{"origin": "home", "destination": "station", "profile": "bike"}"#,
        &env(&server),
    );
    assert_eq!(
        text,
        "By bike from Our flat (saved place Home) to Delancey St station (saved place station): 2.5 km, about 9 min."
    );
    assert!(
        server.requests()[0]
            .url
            .starts_with("/route/v1/cycling/-73.990195,40.714703;"),
        "{}",
        server.requests()[0].url
    );
}

#[test]
fn a_server_with_only_cars_is_noticed() {
    let home = home("travel-car-only", "{}");
    // The public demo server answers every profile with car routes: the fixture's steps are
    // all "driving" although cycling was asked.
    let server = ReplayServer::start(vec![recorded(200, "osrm_route_steps_EDITED.json")]);
    let text = call(
        &home,
        "estimate_travel_time",
        r#"{"origin": "40.714703,-73.990195", "destination": "station", "profile": "cycling"}"#,
        &env(&server),
    );
    assert_eq!(
        text,
        format!(
            "By bike from 40.714703,-73.990195 to Delancey St station (saved place station): 1.2 km, about 5 min.\n\
             The OSRM server at {} routed a car instead (cycling asked): the distance is the car route's and the time is estimated at 15 km/h. \
             For real cycling routes set OSRM_URL to a server with that profile, e.g. https://routing.openstreetmap.de/routed-bike.",
            server.root()
        )
    );
}

#[test]
fn rush_hour_and_rain_make_an_estimate_that_says_so() {
    let home = home("travel-traffic", "{}");
    let server = ReplayServer::start(vec![recorded(200, "osrm_route_steps_EDITED.json")]);
    let text = call(
        &home,
        "traffic_adjusted_time",
        r#"{"origin": "home", "destination": "station", "departure": "Monday 08:00", "weather": "moderate rain"}"#,
        &env(&server),
    );
    // 92.2 s × 1.4 × 1.2 = 154.9 s.
    assert_eq!(
        text,
        "Estimated travel time by car from Our flat (saved place Home) to Delancey St station (saved place station), 1.2 km, leaving Monday 08:00 in rain: about 3 min.\n\
         Without traffic: 2 min (OSRM); × 1.4 for the weekday morning rush (07:00-10:00), × 1.2 for rain = × 1.68.\n\
         This is an estimate from fixed rules of thumb, not live traffic."
    );
}

#[test]
fn osrm_refusals_html_and_silence() {
    let home = home("travel-errors", "{}");
    let server = ReplayServer::start(vec![
        recorded(400, "osrm_400_invalid_query.json"),
        Reply::json(
            400,
            r#"{"message":"Impossible route between points","code":"NoRoute"}"#,
        ),
        Reply::json(
            400,
            r#"{"message":"Could not find a matching segment for coordinate 1","code":"NoSegment"}"#,
        ),
        Reply::json(200, r#"{"code": "Ok", "routes": [], "waypoints": []}"#),
        reply(
            200,
            "text/html",
            "<!DOCTYPE html><html><body>Service unavailable</body></html>",
        ),
    ]);
    let env = env(&server);
    let route = r#"{"origin": "home", "destination": "station", "profile": "walking"}"#;
    let said: Vec<String> = (0..5)
        .map(|_| call(&home, "estimate_travel_time", route, &env))
        .collect();
    assert_eq!(
        said[0],
        "Error: OSRM refused the request (InvalidQuery): Query string malformed close to position 28"
    );
    assert_eq!(
        said[1],
        "Error: OSRM found no route on foot between these places (NoRoute: Impossible route between points): they may not be connected for this way of travelling (an island, a closed area); try another profile or nearer points."
    );
    assert_eq!(
        said[2],
        "Error: OSRM could not place one of the points on a road (NoSegment: Could not find a matching segment for coordinate 1): give a point nearer a road, or a fuller address."
    );
    assert_eq!(
        said[3],
        "Error: OSRM found no route on foot between these places."
    );
    assert!(
        said[4].starts_with("Error: OSRM answered with a web page instead of data (HTTP 200)")
            && said[4].contains("OSRM_URL"),
        "{}",
        said[4]
    );
    assert!(server.requests()[1].url.starts_with("/route/v1/walking/"));
    let unknown = call(
        &home,
        "get_directions",
        r#"{"origin": "home", "destination": "station", "profile": "boat"}"#,
        &env,
    );
    assert_eq!(
        unknown,
        "Error: 'boat' is not a way OSRM routes: use driving (car), cycling (bike) or walking (foot)."
    );
    let silent = Silent::start();
    let timed_out = call(
        &home,
        "get_directions",
        route,
        &[
            ("OSRM_URL", silent.url()),
            ("MARVIN_TOOL_TIMEOUT", "1".into()),
        ],
    );
    assert_eq!(
        timed_out,
        "Error: OSRM request timed out after 1s. Try again or rephrase query."
    );
}

#[test]
fn names_and_addresses_are_found_with_nominatim() {
    let home = home("travel-names", "{}");
    // nominatim_search_jsonv2: "10 Downing St, London, UK", lat/lon as strings;
    // nominatim_search_empty: `[]`.
    let nominatim = ReplayServer::start(vec![
        recorded(200, "nominatim_search_jsonv2.json"),
        recorded(200, "nominatim_search_empty.json"),
    ]);
    let osrm = ReplayServer::start(vec![recorded(200, "osrm_route_steps_EDITED.json")]);
    let env = vec![
        ("OSRM_URL", osrm.root()),
        ("NOMINATIM_URL", nominatim.root()),
    ];
    let text = call(
        &home,
        "estimate_travel_time",
        r#"{"origin": "10 Downing St, London, UK", "destination": "home"}"#,
        &env,
    );
    assert_eq!(
        text,
        "By car from Prime Minister’s Office, 10, Downing Street, Westminster, London, Greater London, England, SW1A 2AA, United Kingdom (Nominatim) to Our flat (saved place Home): 1.2 km, about 2 min."
    );
    assert_eq!(
        osrm.requests()[0].url,
        "/route/v1/driving/-0.12770820958562096,51.50344025;-73.990195,40.714703?overview=false&steps=true"
    );
    assert!(
        nominatim.requests()[0]
            .url
            .starts_with("/search?q=10%20Downing%20St%2C%20London%2C%20UK&"),
        "{}",
        nominatim.requests()[0].url
    );
    let nowhere = call(
        &home,
        "get_directions",
        r#"{"origin": "home", "destination": "Nowhere Lane 99, Atlantis"}"#,
        &env,
    );
    assert_eq!(
        nowhere,
        "Error: Nominatim found no place called \"Nowhere Lane 99, Atlantis\". Try a fuller address, or \"lat,lng\"."
    );
}
