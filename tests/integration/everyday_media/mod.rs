//! The films, games and Steam families of issue 16 through the built binary: a replayed model
//! calls the tools, local servers stand in for OMDb, RAWG, the Steam store, the Steam Web API
//! and DuckDuckGo. Real recordings in tests/fixtures/apis/ with their notes where one exists
//! (OMDb's searches, lookups and refusals, RAWG's game details and a page of games, the Steam
//! Web API's, the store's app pages, DuckDuckGo's pages); elsewhere (RAWG's search by words, the
//! store's search and lists) bodies built from the service's documentation, which each test
//! module cites.

mod games;
mod movies;
mod steam_store;
mod steam_users;

pub use crate::common::tools::{Silent, call, reply};
use crate::common::{ReplayServer, Reply, fixture};

/// The key the tests set; no result or error may show it.
pub const KEY: &str = "k3y-n0t-f0r-3y3s";

/// DuckDuckGo's recorded results page for "eino" (ten results, the first on GitHub).
pub fn ddg_page() -> Reply {
    reply(
        200,
        "text/html; charset=UTF-8",
        fixture("apis/ddg_html_search_eino.html"),
    )
}

/// A captive portal's page, where a service's data was expected.
pub fn portal() -> Reply {
    reply(
        200,
        "text/html; charset=utf-8",
        "<!DOCTYPE html><html><head><title>Hotel Wi-Fi</title></head><body><form>Log in</form></body></html>",
    )
}

/// Checks that the result of a fallback starts with its sentence, lists DuckDuckGo's results,
/// and that DuckDuckGo was asked for `query`.
pub fn assert_fallback(text: &str, var: &str, service: &str, ddg: &ReplayServer, query: &str) {
    let start = format!(
        "{var} is not set, so this is a web-search fallback (DuckDuckGo), not {service}'s data: set {var} ("
    );
    assert!(text.starts_with(&start), "{text}");
    assert!(
        text.contains("\n\nDuckDuckGo results for '")
            && text.contains("1. GitHub - cloudwego/eino: The ultimate LLM/AI application development ...\n   https://github.com/cloudwego/eino"),
        "{text}"
    );
    let asked = ddg.requests();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].url, format!("/html/?q={query}"));
}
