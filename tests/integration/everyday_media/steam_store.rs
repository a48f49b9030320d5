//! steam_search, steam_app_details and steam_featured against a local Steam store. Nothing of
//! the store's JSON was recorded, so these bodies follow its community documentation (the
//! storefront API page, wiki.teamfortress.com/wiki/User:RJackson/StorefrontAPI: appdetails'
//! `{"<appid>": {"success", "data": {type, name, is_free, short_description, developers,
//! publishers, price_overview {currency, initial, final, discount_percent, *_formatted},
//! platforms, metacritic {score}, genres [{id, description}], release_date {coming_soon,
//! date}}}}` and `{"<appid>": {"success": false}}` for an unknown id; featuredcategories'
//! lists `specials`, `top_sellers`, `new_releases` of `{id, name, discounted,
//! discount_percent, original_price, final_price, currency, discount_expiration}`; prices in
//! cents) and what clients read of storesearch (`{"total", "items": [{type, name, id, price
//! {currency, initial, final}, metascore, platforms}]}`, no `price` for a free game), kept
//! minimal.

use super::{call, portal};
use crate::common::tools::call_unanswered;
use crate::common::{ReplayServer, Reply, TempDir};

const SEARCH: &str = r#"{"total": 3, "items": [
  {"type": "app", "name": "Portal 2", "id": 620, "price": {"currency": "USD", "initial": 999, "final": 999}, "tiny_image": "https://shared.akamai.steamstatic.com/store_item_assets/steam/apps/620/capsule_231x87.jpg", "metascore": "95", "platforms": {"windows": true, "mac": true, "linux": true}, "streamingvideo": false, "controller_support": "full"},
  {"type": "app", "name": "Portal", "id": 400, "price": {"currency": "USD", "initial": 999, "final": 199}, "tiny_image": "https://shared.akamai.steamstatic.com/store_item_assets/steam/apps/400/capsule_231x87.jpg", "metascore": "90", "platforms": {"windows": true, "mac": true, "linux": true}, "streamingvideo": false},
  {"type": "app", "name": "Portal Stories: Mel", "id": 317400, "tiny_image": "https://shared.akamai.steamstatic.com/store_item_assets/steam/apps/317400/capsule_231x87.jpg", "metascore": "", "platforms": {"windows": true, "mac": true, "linux": true}, "streamingvideo": false}
]}"#;

const DETAILS: &str = r#"{"620": {"success": true, "data": {"type": "game", "name": "Portal 2", "steam_appid": 620, "required_age": 0, "is_free": false,
  "short_description": "The &quot;Perpetual Testing Initiative&quot; has been expanded to allow you to design co-op puzzles for you and your friends!",
  "developers": ["Valve"], "publishers": ["Valve"],
  "price_overview": {"currency": "USD", "initial": 999, "final": 199, "discount_percent": 80, "initial_formatted": "$9.99", "final_formatted": "$1.99"},
  "platforms": {"windows": true, "mac": true, "linux": true},
  "metacritic": {"score": 95, "url": "https://www.metacritic.com/game/pc/portal-2"},
  "genres": [{"id": "1", "description": "Action"}, {"id": "25", "description": "Adventure"}],
  "release_date": {"coming_soon": false, "date": "18 Apr, 2011"},
  "website": "http://www.thinkwithportals.com/"}}}"#;

const FEATURED: &str = r#"{"0": {"id": "cat_spotlight", "name": "Spotlights", "items": []},
  "specials": {"id": "cat_specials", "name": "Specials", "items": [
    {"id": 1091500, "type": 0, "name": "Cyberpunk 2077", "discounted": true, "discount_percent": 65, "original_price": 5999, "final_price": 2099, "currency": "USD", "windows_available": true, "mac_available": false, "linux_available": false, "discount_expiration": 1782403200, "controller_support": "full"}]},
  "coming_soon": {"id": "cat_comingsoon", "name": "Coming Soon", "items": []},
  "top_sellers": {"id": "cat_topsellers", "name": "Top Sellers", "items": [
    {"id": 730, "type": 0, "name": "Counter-Strike 2", "discounted": false, "discount_percent": 0, "original_price": null, "final_price": 0, "currency": "USD", "windows_available": true},
    {"id": 1245620, "type": 0, "name": "ELDEN RING", "discounted": false, "discount_percent": 0, "original_price": null, "final_price": 5999, "currency": "USD", "windows_available": true}]},
  "new_releases": {"id": "cat_newreleases", "name": "New Releases", "items": []},
  "genres": {"id": "cat_genres", "name": "Genres"},
  "status": 1}"#;

fn env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![("STEAM_STORE_URL", server.root())]
}

#[test]
fn games_are_found_with_prices_and_one_is_told_in_full() {
    let home = TempDir::new("steam-store");
    let server = ReplayServer::start(vec![Reply::json(200, SEARCH), Reply::json(200, DETAILS)]);
    let found = call(
        &home,
        "steam_search",
        r#"{"query": "portal"}"#,
        &env(&server),
    );
    assert_eq!(
        found,
        "Steam store results for 'portal':\n\n\
         1. Portal 2 (app_id 620): 9.99 USD; Metacritic 95; Windows, macOS, Linux\n   https://store.steampowered.com/app/620\n\n\
         2. Portal (app_id 400): 1.99 USD (was 9.99 USD, -80%); Metacritic 90; Windows, macOS, Linux\n   https://store.steampowered.com/app/400\n\n\
         3. Portal Stories: Mel (app_id 317400): no price (free, or not sold alone); Windows, macOS, Linux\n   https://store.steampowered.com/app/317400\n\n\
         Details of one with steam_app_details (its app_id)."
    );
    let details = call(
        &home,
        "steam_app_details",
        r#"{"app_id": 620}"#,
        &env(&server),
    );
    assert_eq!(
        details,
        "Portal 2 (app_id 620, game)\n\
         Price: $1.99 (was $9.99, -80%)\n\
         Released: 18 Apr, 2011\n\
         Developers: Valve\n\
         Publishers: Valve\n\
         Genres: Action, Adventure\n\
         Platforms: Windows, macOS, Linux\n\
         Metacritic: 95\n\
         Website: http://www.thinkwithportals.com/\n\
         Store: https://store.steampowered.com/app/620\n\n\
         The \"Perpetual Testing Initiative\" has been expanded to allow you to design co-op puzzles for you and your friends!"
    );
    let asked = server.requests();
    assert_eq!(
        asked[0].url,
        "/api/storesearch/?term=portal&l=english&cc=US"
    );
    assert_eq!(asked[1].url, "/api/appdetails?appids=620&l=english&cc=US");
}

#[test]
fn the_featured_lists_with_discounts() {
    let home = TempDir::new("steam-featured");
    let server = ReplayServer::start(vec![Reply::json(200, FEATURED), Reply::json(200, FEATURED)]);
    let all = call(&home, "steam_featured", "{}", &env(&server));
    assert_eq!(
        all,
        "Featured on the Steam store now (US prices):\n\n\
         Specials:\n1. Cyberpunk 2077 (app_id 1091500): 20.99 USD (was 59.99 USD, -65%), until 2026-06-25\n\n\
         Top sellers:\n1. Counter-Strike 2 (app_id 730): free\n2. ELDEN RING (app_id 1245620): 59.99 USD\n\n\
         New releases: none listed now."
    );
    let one = call(
        &home,
        "steam_featured",
        r#"{"category": "top_sellers", "max_results": 1}"#,
        &env(&server),
    );
    assert_eq!(
        one,
        "Featured on the Steam store now (US prices):\n\n\
         Top sellers:\n1. Counter-Strike 2 (app_id 730): free"
    );
    assert_eq!(
        server.requests()[0].url,
        "/api/featuredcategories?l=english&cc=US"
    );
}

#[test]
fn nothing_found_no_such_app_a_web_page_and_silence() {
    let home = TempDir::new("steam-store-errors");
    let server = ReplayServer::start(vec![
        Reply::json(200, r#"{"total": 0, "items": []}"#),
        Reply::json(200, r#"{"999999999": {"success": false}}"#),
        portal(),
    ]);
    let env = env(&server);
    let said: Vec<String> = [
        ("steam_search", r#"{"query": "zzqx frobnicate"}"#),
        ("steam_app_details", r#"{"app_id": 999999999}"#),
        ("steam_featured", "{}"),
    ]
    .iter()
    .map(|(tool, arguments)| call(&home, tool, arguments, &env))
    .collect();
    assert_eq!(
        said[0],
        "The Steam store has no game matching 'zzqx frobnicate'. Try other or fewer words."
    );
    assert_eq!(
        said[1],
        "Error: The Steam store has no app 999999999 (or does not show it in this region): find the game's app_id with steam_search."
    );
    assert!(
        said[2]
            .starts_with("Error: Steam store answered with a web page instead of data (HTTP 200)"),
        "{}",
        said[2]
    );
    assert!(said[2].contains("STEAM_STORE_URL"), "{}", said[2]);
    let text = call_unanswered(
        &home,
        "steam_search",
        r#"{"query": "portal"}"#,
        "STEAM_STORE_URL",
    );
    assert_eq!(
        text,
        "Error: Steam store request timed out after 1s. Try again or rephrase query."
    );
}
