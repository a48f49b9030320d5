//! get_my_location: the network's position from a local IP geolocation server (ipinfo.io's
//! recorded answers, and ip-api.com's shape), its errors, and GeoClue through a fake
//! `where-am-i` on PATH that prints what GeoClue's demo client prints (its `print_location`:
//! "New location:", `Latitude:    %f°`, `Longitude:   %f°`, `Accuracy:    %f meters`).

use std::os::unix::fs::PermissionsExt;

use super::{Silent, call, fixture, reply};
use crate::common::{ReplayServer, Reply, TempDir};

/// A PATH of one directory, holding `where-am-i` with `script` as its body when given (no
/// system directory: a GeoClue client installed on the machine must not answer).
fn path_with(home: &TempDir, script: Option<&str>) -> String {
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    if let Some(script) = script {
        let program = bin.join("where-am-i");
        std::fs::write(&program, script).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin.display().to_string()
}

#[test]
fn without_geoclue_the_ip_address_places_the_user_at_city_level() {
    let home = TempDir::new("location-ipinfo");
    let ipgeo = ReplayServer::start(vec![Reply::json(200, fixture("ipinfo_ip_lookup.json"))]);
    let text = call(
        &home,
        "get_my_location",
        "{}",
        &[
            ("PATH", path_with(&home, None)),
            ("IPGEO_URL", ipgeo.root()),
        ],
    );
    assert_eq!(
        text,
        "You are in or near Karlskrona, Blekinge, SE (56.1616, 15.5866).\n\
         Source: IP geolocation (127.0.0.1), city-level only: it is where the network's address is registered, not the device, and can be off by tens of kilometres (more behind a VPN or a mobile network).\n\
         Address seen: 83.227.123.8\n\
         Postal code: 371 40\n\
         Network: AS2119 Telenor Norge AS"
    );
    assert_eq!(ipgeo.requests()[0].url, "/json");
}

#[test]
fn an_ip_api_server_is_read_too_and_its_failures_inside_a_200_are_said() {
    let home = TempDir::new("location-ipapi");
    let ipgeo = ReplayServer::start(vec![
        Reply::json(200, fixture("ipapi_com_ip_lookup_resorted.json")),
        Reply::json(
            200,
            r#"{"status":"fail","message":"reserved range","query":"127.0.0.1"}"#,
        ),
    ]);
    let env = [
        ("PATH", path_with(&home, None)),
        ("IPGEO_URL", ipgeo.root()),
    ];
    let found = call(&home, "get_my_location", "{}", &env);
    assert!(
        found.starts_with(
            "You are in or near Jersey City, New Jersey, United States (40.7209, -74.0468).\nSource: IP geolocation (127.0.0.1), city-level only"
        ),
        "{found}"
    );
    assert!(found.ends_with("Address seen: 74.200.247.59\nPostal code: 07302\nNetwork: AS22576 DataPipe, Inc.\nTime zone: America/New_York"), "{found}");
    let failed = call(&home, "get_my_location", "{}", &env);
    assert_eq!(
        failed,
        "Error: IP geolocation (127.0.0.1) sees this machine as 127.0.0.1, a private or reserved address that has no location. Ask the user where they are, or use a saved place (list_places)."
    );
}

#[test]
fn a_private_address_html_and_silence_become_sentences() {
    let home = TempDir::new("location-errors");
    let ipgeo = ReplayServer::start(vec![
        Reply::json(200, fixture("ipinfo_bogon.json")),
        reply(
            200,
            "text/html",
            "<html><body>Sign in to the hotel Wi-Fi</body></html>",
        ),
        Reply::json(
            429,
            "Rate limit exceeded. Subscribe to a paid plan to increase your usage limits",
        ),
    ]);
    let env = [
        ("PATH", path_with(&home, None)),
        ("IPGEO_URL", ipgeo.root()),
    ];
    let said: Vec<String> = (0..3)
        .map(|_| call(&home, "get_my_location", "{}", &env))
        .collect();
    assert_eq!(
        said[0],
        "Error: IP geolocation (127.0.0.1) sees this machine as 2001:0db8:0000:0042:0000:8a2e:0370:7334, a private or reserved address that has no location. Ask the user where they are, or use a saved place (list_places)."
    );
    assert!(
        said[1].starts_with(
            "Error: IP geolocation (ipinfo.io) answered with a web page instead of data (HTTP 200)"
        ),
        "{}",
        said[1]
    );
    assert!(said[1].contains("IPGEO_URL"), "{}", said[1]);
    assert_eq!(
        said[2],
        "Error: IP geolocation (ipinfo.io) answered HTTP 429: Rate limit exceeded. Subscribe to a paid plan to increase your usage limits"
    );
    let silent = Silent::start();
    let timed_out = call(
        &home,
        "get_my_location",
        "{}",
        &[
            ("PATH", path_with(&home, None)),
            ("IPGEO_URL", silent.url()),
            ("MARVIN_TOOL_TIMEOUT", "1".into()),
        ],
    );
    assert_eq!(
        timed_out,
        "Error: IP geolocation (ipinfo.io) request timed out after 1s. Try again or rephrase query."
    );
}

#[test]
fn geoclue_answers_first_with_its_accuracy_and_nominatim_names_the_place() {
    let home = TempDir::new("location-geoclue");
    let log = crate::common::logs(home.path()).join("where-am-i.log");
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\n\
         printf 'Client object: /org/freedesktop/GeoClue2/Client/1\\n\\nNew location:\\n'\n\
         printf 'Latitude:    48.860442°\\nLongitude:   2.350354°\\nAccuracy:    20.000000 meters\\n'\n\
         printf 'Description: WiFi\\nTimestamp:   Mon 23 Nov 2026 20:00:00 (1795464000 seconds since the Epoch)\\n'\n",
        log.display()
    );
    // Asked, the IP service would never answer and the call would fail.
    let ipgeo = Silent::start();
    // A reverse miss is {"error": "Unable to geocode"} (the fixture's note): the point
    // stays unnamed.
    let nominatim = ReplayServer::start(vec![
        Reply::json(200, fixture("nominatim_reverse_jsonv2.json")),
        Reply::json(200, r#"{"error":"Unable to geocode"}"#),
    ]);
    let env = [
        ("PATH", path_with(&home, Some(&script))),
        ("IPGEO_URL", ipgeo.url()),
        ("MARVIN_TOOL_TIMEOUT", "5".into()),
        ("NOMINATIM_URL", nominatim.root()),
    ];
    let text = call(&home, "get_my_location", "{}", &env);
    assert_eq!(
        text,
        "You are in or near Starbucks, Rue Quincampoix, Beaubourg, Quartier Saint-Merri, Paris 4e Arrondissement, Paris, Île-de-France, France métropolitaine, 75004, France (address from OpenStreetMap's Nominatim) (48.860442, 2.350354).\n\
         Source: the device (GeoClue), precise to about 20 m.\n\
         GeoClue says: WiFi"
    );
    assert_eq!(
        nominatim.requests()[0].url,
        "/reverse?format=jsonv2&lat=48.860442&lon=2.350354&zoom=18"
    );
    let unnamed = call(&home, "get_my_location", "{}", &env);
    assert!(
        unnamed.starts_with("You are at 48.860442, 2.350354.\nSource: the device (GeoClue)"),
        "{unnamed}"
    );
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "--timeout=4\n--timeout=4\n"
    );
}

#[test]
fn when_geoclue_refuses_the_ip_address_answers_and_says_why() {
    let home = TempDir::new("location-geoclue-refused");
    let script = "#!/bin/sh\necho \"Failed to connect to GeoClue2 service: GDBus.Error:org.freedesktop.DBus.Error.AccessDenied: 'geoclue-where-am-i' disallowed, no agent for UID 1000\" >&2\nexit 1\n";
    let ipgeo = ReplayServer::start(vec![Reply::json(200, fixture("ipinfo_ip_lookup.json"))]);
    let text = call(
        &home,
        "get_my_location",
        "{}",
        &[
            ("PATH", path_with(&home, Some(script))),
            ("IPGEO_URL", ipgeo.root()),
        ],
    );
    assert!(text.starts_with("You are in or near Karlskrona, Blekinge, SE (56.1616, 15.5866).\nSource: IP geolocation"), "{text}");
    assert!(
        text.ends_with("\n(GeoClue gave no position, so this is the network's: no location (Failed to connect to GeoClue2 service: GDBus.Error:org.freedesktop.DBus.Error.AccessDenied: 'geoclue-where-am-i' disallowed, no agent for UID 1000).)"),
        "{text}"
    );
}
