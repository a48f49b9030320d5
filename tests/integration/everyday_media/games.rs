//! search_games and get_game_details against a local RAWG. Nothing of RAWG was recorded, so
//! these bodies follow its documentation (api.rawg.io/docs: `/games` answers a page `{count,
//! next, previous, results: [{id, slug, name, released, tba, rating, rating_top, metacritic,
//! platforms: [{platform: {id, name, slug}}], genres: [{id, name, slug}]}]}`; `/games/{id or
//! slug}` one game with `description` (HTML), `website`, `developers`, `publishers`,
//! `esrb_rating`, and the `description_raw` text the live API adds), its 404 for an unknown
//! game (`{"detail": "Not found."}`, Django REST framework's) and its 401 `{"error": "The key
//! parameter is not provided"}`, kept minimal.

use super::{KEY, Silent, assert_fallback, call, ddg_page, portal, reply};
use crate::common::{ReplayServer, Reply, TempDir, fixture};

const SEARCH: &str = r#"{"count": 30, "next": "https://api.rawg.io/api/games?page=2&page_size=2&search=witcher+3", "previous": null, "results": [
  {"id": 3328, "slug": "the-witcher-3-wild-hunt", "name": "The Witcher 3: Wild Hunt", "released": "2015-05-18", "tba": false, "background_image": "https://media.rawg.io/media/games/618/w3.jpg", "rating": 4.65, "rating_top": 5, "ratings_count": 6500, "metacritic": 92, "playtime": 46,
   "platforms": [{"platform": {"id": 4, "name": "PC", "slug": "pc"}}, {"platform": {"id": 18, "name": "PlayStation 4", "slug": "playstation4"}}],
   "genres": [{"id": 4, "name": "Action", "slug": "action"}, {"id": 5, "name": "RPG", "slug": "role-playing-games-rpg"}]},
  {"id": 1, "slug": "the-witcher-4", "name": "The Witcher 4", "released": null, "tba": true, "background_image": null, "rating": 0, "rating_top": 0, "metacritic": null, "playtime": 0, "platforms": null, "genres": []}
]}"#;

const DETAILS: &str = r#"{"id": 3328, "slug": "the-witcher-3-wild-hunt", "name": "The Witcher 3: Wild Hunt", "name_original": "The Witcher 3: Wild Hunt",
  "description": "<p>The third game in a series, it holds nothing back from the player.</p>", "metacritic": 92, "released": "2015-05-18", "tba": false,
  "website": "https://thewitcher.com/en/witcher3", "rating": 4.65, "rating_top": 5,
  "platforms": [{"platform": {"id": 4, "name": "PC", "slug": "pc"}, "released_at": "2015-05-18", "requirements": {"minimum": "64-bit Windows 7"}}],
  "developers": [{"id": 9023, "name": "CD PROJEKT RED", "slug": "cd-projekt-red"}],
  "genres": [{"id": 4, "name": "Action", "slug": "action"}, {"id": 5, "name": "RPG", "slug": "role-playing-games-rpg"}],
  "publishers": [{"id": 7411, "name": "CD PROJEKT RED", "slug": "cd-projekt-red"}],
  "esrb_rating": {"id": 4, "name": "Mature", "slug": "mature"},
  "description_raw": "The third game in a series, it holds nothing back from the player."}"#;

fn env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![("RAWG_URL", server.root()), ("RAWG_API_KEY", KEY.into())]
}

#[test]
fn games_are_found_and_one_is_told_in_full() {
    let home = TempDir::new("rawg-found");
    let server = ReplayServer::start(vec![Reply::json(200, SEARCH), Reply::json(200, DETAILS)]);
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
    // A name is asked for as RAWG's slug of it.
    let details = call(
        &home,
        "get_game_details",
        r#"{"game": "The Witcher 3: Wild Hunt"}"#,
        &env(&server),
    );
    assert_eq!(
        details,
        "The Witcher 3: Wild Hunt (id 3328, slug the-witcher-3-wild-hunt)\n   \
         released 2015-05-18; rating 4.65/5; Metacritic 92; on PC; genres Action, RPG\n\
         Developers: CD PROJEKT RED\n\
         Publishers: CD PROJEKT RED\n\
         ESRB: Mature\n\
         Website: https://thewitcher.com/en/witcher3\n\
         RAWG: https://rawg.io/games/the-witcher-3-wild-hunt\n\n\
         The third game in a series, it holds nothing back from the player."
    );
    let asked = server.requests();
    assert_eq!(
        asked[0].url,
        format!("/games?key={KEY}&search=witcher%203&page_size=2")
    );
    assert_eq!(
        asked[1].url,
        format!("/games/the-witcher-3-wild-hunt?key={KEY}")
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
