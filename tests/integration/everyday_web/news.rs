//! search_news against GNews, NewsAPI and DuckDuckGo news.
//!
//! Real recording (tests/fixtures/apis/, with its note): NewsAPI's
//! newsapi_top_headlines_us_q_new_york_reformatted.json, a `/v2/top-headlines` answer kept in
//! zagui440s/projects as Thunder Client showed it (re-formatted). The tool asks
//! `/v2/everything`, whose answer has the same shape (`status`, `totalResults`, `articles` of
//! the same fields), so the recording stands for it.
//!
//! Documentation-shaped, written here (no recording found): everything of GNews and DuckDuckGo
//! news, NewsAPI's errors and the other NewsAPI bodies. They follow the services'
//! documentation (gnews.io/docs/v4 "Search Endpoint", newsapi.org/docs/endpoints/everything
//! and /docs/errors, and the `news.js` JSON as open-source DuckDuckGo clients read it:
//! `results[]` with `date` in seconds, `title`, `excerpt`, `url`, `source`), kept minimal.

use super::{call, reply};
use crate::common::tools::call_unanswered;
use crate::common::{ReplayServer, Reply, TempDir, fixture};

fn html_fixture(name: &str) -> Reply {
    reply(
        200,
        "text/html; charset=UTF-8",
        fixture(&format!("apis/{name}")),
    )
}

const GNEWS_BODY: &str = r#"{"totalArticles": 2, "articles": [
  {"title": "Eclipse seen across Spain", "description": "Crowds gathered.", "content": "…", "url": "https://news.example/eclipse-spain", "image": null, "publishedAt": "2026-08-12T18:30:00Z", "source": {"name": "Example News", "url": "https://news.example"}},
  {"title": "Eclipse glasses sold out", "description": "Shops ran dry.", "content": "…", "url": "https://shop.example/glasses", "image": null, "publishedAt": "2026-08-10T09:00:00Z", "source": {"name": "Shop Daily", "url": "https://shop.example"}}
]}"#;
const NEWSAPI_BODY: &str = r#"{"status": "ok", "totalResults": 2, "articles": [
  {"source": {"id": null, "name": "Example News"}, "author": "A. Writer", "title": "Eclipse seen across Spain (copy)", "description": "Same story.", "url": "https://www.news.example/eclipse-spain/", "urlToImage": null, "publishedAt": "2026-08-12T18:30:00Z", "content": "…"},
  {"source": {"id": null, "name": "Sky Weekly"}, "author": null, "title": "What the eclipse showed", "description": "Science.", "url": "https://sky.example/showed", "urlToImage": null, "publishedAt": "2026-08-13T07:15:00Z", "content": "…"}
]}"#;
const DDG_NEWS_BODY: &str = r#"{"ok": 1, "results": [
  {"date": 1786687200, "excerpt": "The <b>eclipse</b> in Iceland &amp; more", "image": "", "relative_time": "1 day ago", "source": "Nordic Post", "title": "Iceland&#x27;s eclipse", "url": "https://nordic.example/iceland"}
], "vqd": {"solar eclipse": "4-123"}}"#;

fn news_server(gnews: Reply, newsapi: Reply, ddg_news: Reply) -> ReplayServer {
    ReplayServer::answering(move |request| {
        let path = request
            .url
            .split('?')
            .next()
            .unwrap_or_default()
            .to_string();
        match path.as_str() {
            "/api/v4/search" => gnews.clone(),
            "/v2/everything" => newsapi.clone(),
            "/news.js" => ddg_news.clone(),
            "/" => html_fixture("ddg_js_serp_bad_user_agent_2020.html"),
            _ => reply(404, "text/plain", "no"),
        }
    })
}

fn news_env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![
        ("DDG_URL", server.root()),
        ("GNEWS_URL", server.root()),
        ("NEWSAPI_URL", server.root()),
        ("GNEWS_API_KEY", "gnews-secret-1".into()),
        ("NEWSAPI_KEY", "newsapi-secret-2".into()),
    ]
}

#[test]
fn news_from_three_sources_is_merged_newest_first() {
    let home = TempDir::new("news");
    let server = news_server(
        Reply::json(200, GNEWS_BODY),
        Reply::json(200, NEWSAPI_BODY),
        reply(200, "application/x-javascript", DDG_NEWS_BODY),
    );
    let text = call(
        &home,
        "search_news",
        r#"{"query": "solar eclipse", "max_results": 5}"#,
        &news_env(&server),
    );
    let titles: Vec<&str> = text
        .lines()
        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect();
    assert_eq!(
        titles,
        [
            "1. Iceland's eclipse — Nordic Post, 2026-08-14 06:00 UTC",
            "2. What the eclipse showed — Sky Weekly, 2026-08-13 07:15 UTC",
            "3. Eclipse seen across Spain — Example News, 2026-08-12 18:30 UTC",
            "4. Eclipse glasses sold out — Shop Daily, 2026-08-10 09:00 UTC",
        ],
        "{text}"
    );
    assert!(
        text.contains("\n   The eclipse in Iceland & more"),
        "{text}"
    );
    assert!(
        text.contains("Sources: GNews (2), NewsAPI (2), DuckDuckGo (1)."),
        "{text}"
    );
    assert!(!text.contains("secret"), "{text}");
    let asked = server.requests();
    let gnews = asked
        .iter()
        .find(|r| r.url.starts_with("/api/v4/search"))
        .unwrap();
    assert!(
        gnews.url.contains("q=solar%20eclipse") && gnews.url.contains("apikey=gnews-secret-1"),
        "{}",
        gnews.url
    );
    let newsapi = asked
        .iter()
        .find(|r| r.url.starts_with("/v2/everything"))
        .unwrap();
    assert_eq!(newsapi.header("X-Api-Key"), Some("newsapi-secret-2"));
    assert!(!newsapi.url.contains("secret"), "{}", newsapi.url);
    let news_js = asked
        .iter()
        .find(|r| r.url.starts_with("/news.js"))
        .unwrap();
    assert!(
        news_js
            .url
            .contains("vqd=3-88941791805106005388209340599888603291-149382371238630188"),
        "the token of the search page: {}",
        news_js.url
    );
}

#[test]
fn news_errors_name_each_service_and_never_show_a_key() {
    let home = TempDir::new("news-errors");
    let server = news_server(
        Reply::json(
            401,
            r#"{"errors": ["You did not provide an API key or the key gnews-secret-1 is invalid."]}"#,
        ),
        Reply::json(
            401,
            r#"{"status": "error", "code": "apiKeyInvalid", "message": "Your API key is invalid or incorrect. Check your key, or go to https://newsapi.org to create a free API key."}"#,
        ),
        reply(
            200,
            "text/html",
            "<html><body>Sign in to the wifi</body></html>",
        ),
    );
    let text = call(
        &home,
        "search_news",
        r#"{"query": "solar eclipse"}"#,
        &news_env(&server),
    );
    assert!(
        text.starts_with("Error: GNews answered HTTP 401: You did not provide an API key"),
        "{text}"
    );
    assert!(
        text.contains("NewsAPI answered HTTP 401: Your API key is invalid or incorrect."),
        "{text}"
    );
    assert!(
        text.contains("DuckDuckGo answered with a web page instead of data"),
        "{text}"
    );
    assert!(!text.contains("gnews-secret-1"), "{text}");
}

#[test]
fn an_error_inside_a_200_that_echoes_the_key_never_shows_it() {
    let home = TempDir::new("news-echo");
    let server = news_server(
        Reply::json(200, r#"{"totalArticles": 0, "articles": []}"#),
        Reply::json(
            200,
            r#"{"status": "error", "code": "apiKeyInvalid", "message": "Your API key newsapi-secret-2 is invalid."}"#,
        ),
        Reply::json(200, "{\"results\": []}"),
    );
    let text = call(
        &home,
        "search_news",
        r#"{"query": "x"}"#,
        &news_env(&server),
    );
    assert!(text.starts_with("No news found for 'x'."), "{text}");
    assert!(
        text.contains(
            "Not included: NewsAPI refused the search: Your API key [redacted] is invalid."
        ),
        "{text}"
    );
    assert!(!text.contains("newsapi-secret-2"), "{text}");
}

#[test]
fn no_news_is_said_plainly_and_one_failing_source_is_noted() {
    let home = TempDir::new("news-empty");
    let server = news_server(
        Reply::json(200, r#"{"totalArticles": 0, "articles": []}"#),
        Reply::json(
            200,
            "{\"status\": \"ok\", \"totalResults\": 0, \"articles\": []}",
        ),
        Reply::json(200, "{\"results\": []}"),
    );
    let text = call(
        &home,
        "search_news",
        r#"{"query": "zzqx"}"#,
        &news_env(&server),
    );
    assert_eq!(
        text,
        "No news found for 'zzqx'.\n\nSources: GNews (0), NewsAPI (0), DuckDuckGo (0)."
    );
    // Without keys only DuckDuckGo is asked; its failure is the tool's failure.
    let ddg_only = news_server(
        Reply::json(500, "{}"),
        Reply::json(500, "{}"),
        reply(200, "application/json", DDG_NEWS_BODY),
    );
    let text = call(
        &home,
        "search_news",
        r#"{"query": "solar eclipse"}"#,
        &[("DDG_URL", ddg_only.root())],
    );
    assert!(
        text.starts_with("News about 'solar eclipse', newest first:\n\n1. Iceland's eclipse"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "Sources: DuckDuckGo (1). Set GNEWS_API_KEY or NEWSAPI_KEY for more sources."
        ),
        "{text}"
    );
    let text = call_unanswered(
        &home,
        "search_news",
        r#"{"query": "solar eclipse"}"#,
        "DDG_URL",
    );
    assert_eq!(
        text,
        "Error: 127.0.0.1 request timed out after 1s. Try again or rephrase query."
    );
}

/// NewsAPI's recorded answer (3 of 4 articles, two through Google News with the publisher only
/// in the title's " - <publisher>" suffix and the author, no description; the third with its
/// publisher's own name also at the end of its title) with only NEWSAPI_KEY set, DuckDuckGo
/// finding nothing.
#[test]
fn a_recorded_newsapi_answer_names_each_publisher_and_says_more_were_found() {
    let home = TempDir::new("news-recorded");
    let server = news_server(
        reply(404, "text/plain", "no"),
        Reply::json(
            200,
            fixture("apis/newsapi_top_headlines_us_q_new_york_reformatted.json"),
        ),
        Reply::json(200, "{\"results\": []}"),
    );
    let text = call(
        &home,
        "search_news",
        r#"{"query": "New York", "max_results": 3}"#,
        &[
            ("DDG_URL", server.root()),
            ("NEWSAPI_URL", server.root()),
            ("NEWSAPI_KEY", "newsapi-secret-2".into()),
        ],
    );
    assert_eq!(
        text,
        "News about 'New York', newest first:\n\n\
         1. Yankees trade for star closer Devin Williams in end to Nestor Cortes’ Bronx tenure — New York Post (via Google News), 2024-12-13 17:38 UTC\n   \
         https://news.google.com/rss/articles/CBMikgFBVV95cUxQMEM2Wmw4SjViNTVFbEtzd1phVVdDSVZHZExqUjR6LXpRNnl6MFNDOEQ2UDdPaVcxQzM1STRMbFBMUjl1NHA2VEJxT0hWRXFFTDV6YVV4akZjMEdmaEJreE0tZElHaTRLMWZtQjRZMTh6WG9WRnQ1TTNXRVF0dGl5Q1RYRzlLYUNZLXZKZkotdnhmdw?oc=5\n\n\
         2. Daniel Penny Will Join Trump and Vance at Army-Navy Football Game — The New York Times (via Google News), 2024-12-13 16:08 UTC\n   \
         https://news.google.com/rss/articles/CBMijwFBVV95cUxOelpXWUFCYU1naGdUYUpSaHVudGVTbDlEMVAyZkFCaFZPN0x5TlEwTW04Z1daYXVXUWtLTXB5dFd5Tl9YODVfYVNEb0NvcEtrNXBDOWF3amhMcHVsblphekNObURvSk1sTS0waGd4R3NUandMNDk4TkRoVWNFd2czbjdVTFctMGUzQko1OG4tOA?oc=5\n\n\
         3. Trump aides mull abolishing FDIC as part of dramatic banking deregulation spree: report — New York Post, 2024-12-13 14:55 UTC\n   \
         https://nypost.com/2024/12/13/business/trump-aides-mull-abolishing-fdic-as-part-of-deregulation-spree/\n   \
         The Trump transition team has been busy examining ways to consolidate, shrink or even outright eliminate banking regulators in Washington, DC.\n\n\
         Sources: NewsAPI (3 of 4 found), DuckDuckGo (0). More were found than shown: ask again with a larger max_results (up to 30) for more."
    );
    let asked = server.requests();
    let newsapi = asked
        .iter()
        .find(|r| r.url.starts_with("/v2/everything"))
        .unwrap();
    assert_eq!(
        newsapi.url,
        "/v2/everything?q=New%20York&pageSize=3&sortBy=publishedAt"
    );
    assert_eq!(newsapi.header("X-Api-Key"), Some("newsapi-secret-2"));
}
