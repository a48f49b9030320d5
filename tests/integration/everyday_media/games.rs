//! search_games and get_game_details against a local RAWG. The details are RAWG's real
//! answer for Grand Theft Auto V (tests/fixtures/apis/rawg_game_details_3498.json, with its
//! note), replayed byte for byte, and a page of games is RAWG's real first page of `/games`
//! (rawg_games_list_page1_EDITED.json: the recorder's key taken out), the page a search answers
//! too. No search of words, 404 or refused key of RAWG was recorded, so those bodies follow its documentation (api.rawg.io/docs: `/games` answers a page `{count, next,
//! previous, results: [{id, slug, name, released, tba, rating, rating_top, metacritic,
//! platforms: [{platform: {id, name, slug}}], genres: [{id, name, slug}]}]}`), its 404 for
//! an unknown game (`{"detail": "Not found."}`, Django REST framework's) and its 401
//! `{"error": "The key parameter is not provided"}`, kept minimal.

use serde_json::Value;

use super::{KEY, Silent, assert_fallback, call, ddg_page, portal, reply};
use crate::common::{ReplayServer, Reply, TempDir, fixture};

const SEARCH: &str = r#"{"count": 30, "next": "https://api.rawg.io/api/games?page=2&page_size=2&search=witcher+3", "previous": null, "results": [
  {"id": 3328, "slug": "the-witcher-3-wild-hunt", "name": "The Witcher 3: Wild Hunt", "released": "2015-05-18", "tba": false, "background_image": "https://media.rawg.io/media/games/618/w3.jpg", "rating": 4.65, "rating_top": 5, "ratings_count": 6500, "metacritic": 92, "playtime": 46,
   "platforms": [{"platform": {"id": 4, "name": "PC", "slug": "pc"}}, {"platform": {"id": 18, "name": "PlayStation 4", "slug": "playstation4"}}],
   "genres": [{"id": 4, "name": "Action", "slug": "action"}, {"id": 5, "name": "RPG", "slug": "role-playing-games-rpg"}]},
  {"id": 1, "slug": "the-witcher-4", "name": "The Witcher 4", "released": null, "tba": true, "background_image": null, "rating": 0, "rating_top": 0, "metacritic": null, "playtime": 0, "platforms": null, "genres": []}
]}"#;

/// The recorded details of Grand Theft Auto V.
const DETAILS: &str = "apis/rawg_game_details_3498.json";

fn env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![("RAWG_URL", server.root()), ("RAWG_API_KEY", KEY.into())]
}

#[test]
fn games_are_found() {
    let home = TempDir::new("rawg-found");
    let server = ReplayServer::start(vec![Reply::json(200, SEARCH)]);
    let found = call(
        &home,
        "search_games",
        r#"{"query": "witcher 3", "max_results": 2}"#,
        &env(&server),
    );
    assert_eq!(
        found,
        "RAWG games for 'witcher 3' (30 in all, the first 2):\n\n\
         1. The Witcher 3: Wild Hunt (id 3328, slug the-witcher-3-wild-hunt)\n   \
         released 2015-05-18; rating 4.65/5; Metacritic 92; on PC, PlayStation 4; genres Action, RPG\n\n\
         2. The Witcher 4 (id 1, slug the-witcher-4)\n   release date to be announced\n\n\
         Details of one with get_game_details (its id or slug)."
    );
    assert_eq!(
        server.requests()[0].url,
        format!("/games?key={KEY}&search=witcher%203&page_size=2")
    );
}

#[test]
fn a_game_is_told_in_full_from_the_recorded_details() {
    let home = TempDir::new("rawg-details");
    let server = ReplayServer::start(vec![Reply::json(200, fixture(DETAILS))]);
    // A name is asked for as RAWG's slug of it.
    let details = call(
        &home,
        "get_game_details",
        r#"{"game": "Grand Theft Auto V"}"#,
        &env(&server),
    );
    let recorded: Value = serde_json::from_slice(&fixture(DETAILS)).unwrap();
    let plain = recorded["description_raw"].as_str().unwrap();
    assert_eq!(
        details,
        format!(
            "Grand Theft Auto V (id 3498, slug grand-theft-auto-v)\n   \
             released 2013-09-17; rating 4.47/5; Metacritic 92; on PC, PlayStation 5, Xbox Series S/X, PlayStation 4, PlayStation 3, Xbox 360, Xbox One; genres Action; ESRB Mature\n\
             Rated by 6847 RAWG users; average playtime 74 hours\n\
             Metacritic by platform: PC 96, PlayStation 3 97, PlayStation 4 97, PlayStation 5 81, Xbox 360 97, Xbox One 97, Xbox Series S/X 79\n\
             Developers: Rockstar North, Rockstar Games\n\
             Publishers: Rockstar Games\n\
             Website: http://www.rockstargames.com/V/\n\
             RAWG: https://rawg.io/games/grand-theft-auto-v\n\n\
             {plain}"
        )
    );
    // The plain description, not the HTML one.
    assert!(plain.starts_with("Rockstar Games went bigger"), "{plain}");
    assert!(
        !details.contains("<p>") && !details.contains("<br"),
        "{details}"
    );
    assert_eq!(
        server.requests()[0].url,
        format!("/games/grand-theft-auto-v?key={KEY}")
    );
}

#[test]
fn nothing_found_an_unknown_game_and_a_refused_key() {
    let home = TempDir::new("rawg-errors");
    let server = ReplayServer::start(vec![
        Reply::json(
            200,
            r#"{"count": 0, "next": null, "previous": null, "results": []}"#,
        ),
        Reply::json(404, r#"{"detail": "Not found."}"#),
        Reply::json(401, r#"{"error": "The key parameter is not provided"}"#),
    ]);
    let env = env(&server);
    let said: Vec<String> = [
        ("search_games", r#"{"query": "zzqx frobnicate"}"#),
        ("get_game_details", r#"{"game": "999999999"}"#),
        ("search_games", r#"{"query": "portal"}"#),
    ]
    .iter()
    .map(|(tool, arguments)| call(&home, tool, arguments, &env))
    .collect();
    assert_eq!(
        said,
        [
            "RAWG has no game matching 'zzqx frobnicate'. Try other or fewer words.",
            "Error: RAWG has no game '999999999': find it with search_games and ask with its id.",
            "Error: RAWG refused the key in RAWG_API_KEY (The key parameter is not provided): check it, or get a free one at https://rawg.io/apidocs.",
        ]
    );
    assert_eq!(
        server.requests()[1].url,
        format!("/games/999999999?key={KEY}")
    );
}

#[test]
fn without_a_key_the_web_is_searched_and_says_so() {
    let home = TempDir::new("rawg-fallback");
    let rawg = ReplayServer::unused();
    let ddg = ReplayServer::start(vec![ddg_page()]);
    let text = call(
        &home,
        "search_games",
        r#"{"query": "witcher 3"}"#,
        &[("RAWG_URL", rawg.root()), ("DDG_URL", ddg.root())],
    );
    assert_fallback(
        &text,
        "RAWG_API_KEY",
        "RAWG",
        &ddg,
        "witcher%203%20video%20game",
    );
    assert!(
        text.contains("(a free key from https://rawg.io/apidocs)"),
        "{text}"
    );
    let ddg = ReplayServer::start(vec![ddg_page()]);
    let text = call(
        &home,
        "get_game_details",
        r#"{"game": "3328"}"#,
        &[("RAWG_URL", rawg.root()), ("DDG_URL", ddg.root())],
    );
    assert_fallback(
        &text,
        "RAWG_API_KEY",
        "RAWG",
        &ddg,
        "3328%20video%20game%20release%20developer%20publisher",
    );
    // DuckDuckGo's page for a client it blocks: the fallback says it failed, and why.
    let blocked = ReplayServer::start(vec![reply(
        200,
        "text/html",
        fixture("apis/ddg_js_serp_bad_user_agent_2020.html"),
    )]);
    let text = call(
        &home,
        "search_games",
        r#"{"query": "witcher 3"}"#,
        &[("RAWG_URL", rawg.root()), ("DDG_URL", blocked.root())],
    );
    assert!(
        text.starts_with("Error: RAWG_API_KEY is not set (a free key from https://rawg.io/apidocs gives RAWG's data), and the web-search fallback failed: DuckDuckGo sent a page without search results"),
        "{text}"
    );
}

#[test]
fn a_web_page_instead_of_data_and_a_silent_server() {
    let home = TempDir::new("rawg-portal");
    let server = ReplayServer::start(vec![portal()]);
    let text = call(
        &home,
        "search_games",
        r#"{"query": "portal"}"#,
        &env(&server),
    );
    assert!(
        text.starts_with("Error: RAWG answered with a web page instead of data (HTTP 200)"),
        "{text}"
    );
    assert!(text.contains("RAWG_URL") && !text.contains(KEY), "{text}");
    let silent = Silent::start();
    let text = call(
        &home,
        "get_game_details",
        r#"{"game": "portal-2"}"#,
        &[
            ("RAWG_URL", silent.url()),
            ("RAWG_API_KEY", KEY.into()),
            ("MARVIN_TOOL_TIMEOUT", "1".into()),
        ],
    );
    assert_eq!(
        text,
        "Error: RAWG request timed out after 1s. Try again or rephrase query."
    );
}

/// RAWG's recorded first page of `/games` (marcoaoteixeira/RawgClient, 2024; the recorder's key
/// in `next` replaced): the page a search answers too, with 871,752 games in all, ESRB ratings,
/// and each platform's hardware requirements, which are not the model's business.
#[test]
fn a_recorded_page_of_games() {
    let home = TempDir::new("rawg-page");
    let server = ReplayServer::start(vec![Reply::json(
        200,
        crate::common::fixture("apis/rawg_games_list_page1_EDITED.json"),
    )]);
    let found = call(
        &home,
        "search_games",
        r#"{"query": "games", "max_results": 4}"#,
        &env(&server),
    );
    // The page holds 20 whatever was asked; four were. Counter-Strike's `rating_top` is 4: the
    // rating it was given most, not the scale.
    assert_eq!(
        found,
        "RAWG games for 'games' (871752 in all, the first 4):\n\n\
         1. Grand Theft Auto V (id 3498, slug grand-theft-auto-v)\n   \
         released 2013-09-17; rating 4.47/5; Metacritic 92; on PC, PlayStation 5, Xbox Series S/X, PlayStation 4, PlayStation 3, Xbox 360, Xbox One; genres Action; ESRB Mature\n\n\
         2. The Witcher 3: Wild Hunt (id 3328, slug the-witcher-3-wild-hunt)\n   \
         released 2015-05-18; rating 4.65/5; Metacritic 92; on Xbox Series S/X, PlayStation 5, macOS, PlayStation 4, Nintendo Switch, PC, Xbox One; genres Action, RPG; ESRB Mature\n\n\
         3. Portal 2 (id 4200, slug portal-2)\n   \
         released 2011-04-18; rating 4.60/5; Metacritic 95; on PlayStation 3, PC, Xbox 360, Linux, macOS, Xbox One; genres Shooter, Puzzle; ESRB Everyone 10+\n\n\
         4. Counter-Strike: Global Offensive (id 4291, slug counter-strike-global-offensive)\n   \
         released 2012-08-21; rating 3.56/5; Metacritic 81; on PC, Linux, Xbox 360, PlayStation 3; genres Shooter; ESRB Mature\n\n\
         Details of one with get_game_details (its id or slug)."
    );
    assert!(!found.contains("requirements"), "{found}");
}
