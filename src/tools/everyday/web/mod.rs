//! The web family: `web_search` (DuckDuckGo's HTML results), `search_news` (GNews and NewsAPI
//! when their keys are set, and DuckDuckGo news, merged), `browse_web` (a page as text) and
//! `scrape_page` (a page after its JavaScript ran). Every request goes through the session's
//! web client (`ctx.settings.web`).

mod browse;
mod ddg;
mod news;

use serde::Deserialize;

use crate::cancel::CancelToken;
use crate::services::{DUCKDUCKGO, GNEWS, NEWSAPI};
use crate::tools::kit::html;
use crate::tools::kit::web::{Call, Web};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const DEFAULT_RESULTS: i64 = 10;
const MAX_RESULTS: i64 = 30;
/// Result pages read at most for one search (DuckDuckGo gives about ten a page).
const MAX_PAGES: usize = 3;

const SEARCH_PARAMS: &[Param] = &[
    Param::required("query", Kind::String, "What to search the web for"),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many results (default 10, at most 30)",
    ),
];
const NEWS_PARAMS: &[Param] = &[
    Param::required("query", Kind::String, "The subject of the news"),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many articles (default 10, at most 30)",
    ),
];
const URL_PARAMS: &[Param] = &[Param::required(
    "url",
    Kind::String,
    "The page's full address (https://…)",
)];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "web",
    about: "web search, news, reading web pages",
    words: &[
        "news",
        "headline",
        "headlines",
        "article",
        "website",
        "web page",
        "webpage",
        "url",
        "link",
        "browse",
        "open the page",
        "http",
        "www",
        "search the web",
        "google",
        "look up",
        "happening",
        "latest",
        "stock",
        "stocks",
        "share price",
    ],
    asks: &[
        "search the web for",
        "latest news about",
        "what's in the headlines today",
        "read this page",
        "summarise this article",
        "open this website",
        "what's happening in the world",
        "current events, the election, politics",
        "google this for me",
        "look it up online",
        "scrape the page after its javascript runs",
        "stock price of apple",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("web_search")
            .describe("Search the web (DuckDuckGo) for pages about something: titles, addresses and snippets. Use for current facts or to find a page to read with browse_web.")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "rust borrow checker explained", "max_results": 5}"#)
            .handler(web_search),
        ToolDef::build("search_news")
            .describe("Find recent news articles about a subject, newest first, with their source and date. Use for what happened lately.")
            .offered(Offered::Everywhere)
            .params(NEWS_PARAMS)
            .example(r#"{"query": "solar eclipse"}"#)
            .handler(search_news),
        ToolDef::build("browse_web")
            .describe("Read a web page as text, its links numbered at the end. Use to read an article or documentation page found by web_search.")
            .offered(Offered::Everywhere)
            .params(URL_PARAMS)
            .example(r#"{"url": "https://en.wikipedia.org/wiki/Lyon"}"#)
            .handler(browse_web),
        ToolDef::build("scrape_page")
            .describe("Read a page that only shows its content after running JavaScript (headless Chromium). Use when browse_web returns an empty or 'enable JavaScript' page.")
            .offered(Offered::Everywhere)
            .params(URL_PARAMS)
            .example(r#"{"url": "https://example.org/app"}"#)
            .handler(scrape_page),
    ]
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    max_results: Option<i64>,
}

fn count(asked: Option<i64>) -> Result<usize, String> {
    match asked.unwrap_or(DEFAULT_RESULTS) {
        n if (1..=MAX_RESULTS).contains(&n) => Ok(n as usize),
        n => Err(format!(
            "max_results must be between 1 and {MAX_RESULTS} (got {n})."
        )),
    }
}

fn query_of(query: &str) -> Result<&str, String> {
    let query = query.trim();
    if query.is_empty() {
        return Err("The query is empty: say what to search for.".into());
    }
    Ok(query)
}

fn web_search(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = query_of(&args.query)?;
    let max = count(args.max_results)?;
    search_text(&ctx.settings.web, query, max, &ctx.cancel)
}

/// DuckDuckGo's results for `query` as web_search shows them; other families fall back on it
/// when their service needs a key nobody set.
pub(crate) fn search_text(
    web: &Web,
    query: &str,
    max: usize,
    cancel: &CancelToken,
) -> Result<String, String> {
    let hits = ddg_search(web, query, max, cancel)?;
    if hits.is_empty() {
        return Ok(format!(
            "DuckDuckGo found nothing for '{query}'. Try other or fewer words."
        ));
    }
    let mut out = format!("DuckDuckGo results for '{query}':");
    for (i, hit) in hits.iter().enumerate() {
        out.push_str(&format!("\n\n{}. {}\n   {}", i + 1, hit.title, hit.url));
        if !hit.snippet.is_empty() {
            out.push_str(&format!("\n   {}", hit.snippet));
        }
    }
    Ok(out)
}

/// Up to `max` results, following the "Next" form of each page while more are wanted.
fn ddg_search(
    web: &Web,
    query: &str,
    max: usize,
    cancel: &CancelToken,
) -> Result<Vec<ddg::Hit>, String> {
    let page_url = format!("{}/html/", web.base(&DUCKDUCKGO));
    let first = Call {
        query: &[("q", query)],
        ..Call::default()
    };
    let mut fetched = web.call(&DUCKDUCKGO, "/html/", &first, cancel)?;
    let mut hits: Vec<ddg::Hit> = Vec::new();
    for number in 0..MAX_PAGES {
        if !fetched.is_success() {
            if number > 0 {
                break;
            }
            return Err(format!(
                "DuckDuckGo answered HTTP {} (it may be limiting requests). Try again in a minute.",
                fetched.status
            ));
        }
        let text = html::decode(&fetched.body, fetched.content_type.as_deref());
        let page = ddg::parse(&text, &page_url);
        if number == 0 && !page.any_result_link && !page.no_results {
            return Err(format!(
                "DuckDuckGo sent a page without search results (it may be blocking automated requests, or DDG_URL points at the wrong page: it should be the HTML endpoint, {}). Try again later.",
                DUCKDUCKGO.default_url
            ));
        }
        for hit in page.hits {
            if hits.len() < max && !hits.iter().any(|h| h.url == hit.url) {
                hits.push(hit);
            }
        }
        let next = match page.next {
            Some(fields) if hits.len() < max && number + 1 < MAX_PAGES => fields,
            _ => break,
        };
        let pairs: Vec<(&str, &str)> = next.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let call = Call {
            form: Some(&pairs),
            ..Call::default()
        };
        fetched = match web.call(&DUCKDUCKGO, "/html/", &call, cancel) {
            Ok(fetched) => fetched,
            Err(_) if !hits.is_empty() => break,
            Err(error) => return Err(error),
        };
    }
    Ok(hits)
}

/// What each news source gave: its articles, or why it could not.
type Outcome = Result<news::Found, String>;

fn search_news(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = query_of(&args.query)?;
    let max = count(args.max_results)?;
    let web = &ctx.settings.web;
    let keyed = web.key(&GNEWS).is_some() || web.key(&NEWSAPI).is_some();
    let mut lists = Vec::new();
    let mut problems = Vec::new();
    let mut asked = Vec::new();
    let mut more = false;
    for (name, outcome) in ask_news(web, query, max, &ctx.cancel) {
        match outcome {
            Ok(found) => {
                let (said, held_back) = tally(name, &found);
                asked.push(said);
                more |= held_back;
                lists.push(found.articles);
            }
            Err(problem) => problems.push(problem),
        }
    }
    let mut articles = news::merge(lists);
    articles.truncate(max);
    // Only when no source answered is it an error; a source that found nothing is an answer.
    if asked.is_empty() && !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    let mut out = if articles.is_empty() {
        format!("No news found for '{query}'.")
    } else {
        format!("News about '{query}', newest first:")
    };
    for (i, article) in articles.iter().enumerate() {
        out.push_str(&format!("\n\n{}. {}", i + 1, describe(article)));
    }
    out.push_str(&format!("\n\nSources: {}.", asked.join(", ")));
    if more && (max as i64) < MAX_RESULTS {
        out.push_str(&format!(
            " More were found than shown: ask again with a larger max_results (up to {MAX_RESULTS}) for more."
        ));
    }
    if !keyed {
        out.push_str(" Set GNEWS_API_KEY or NEWSAPI_KEY for more sources.");
    }
    for problem in problems {
        out.push_str(&format!("\nNot included: {problem}"));
    }
    Ok(out)
}

/// `NewsAPI (3)`, or `NewsAPI (3 of 4 found)` and true when it found more than it sent.
fn tally(name: &str, found: &news::Found) -> (String, bool) {
    let sent = found.articles.len();
    match found.total.filter(|total| *total > sent as u64) {
        Some(total) => (format!("{name} ({sent} of {total} found)"), true),
        None => (format!("{name} ({sent})"), false),
    }
}

/// Asks every news source at once: GNews and NewsAPI when their keys are set, DuckDuckGo
/// always.
fn ask_news(
    web: &Web,
    query: &str,
    max: usize,
    cancel: &CancelToken,
) -> Vec<(&'static str, Outcome)> {
    let wanted = max.to_string();
    let (gnews_key, newsapi_key) = (web.key(&GNEWS), web.key(&NEWSAPI));
    std::thread::scope(|scope| {
        let gnews = gnews_key
            .as_deref()
            .map(|key| scope.spawn(|| from_gnews(web, query, &wanted, key, cancel)));
        let newsapi = newsapi_key
            .as_deref()
            .map(|key| scope.spawn(|| from_newsapi(web, query, &wanted, key, cancel)));
        let ddg = from_ddg(web, query, cancel);
        let mut outcomes = Vec::new();
        for (name, handle) in [("GNews", gnews), ("NewsAPI", newsapi)] {
            if let Some(handle) = handle {
                let outcome = handle
                    .join()
                    .unwrap_or_else(|_| Err(format!("the {name} request failed unexpectedly.")));
                outcomes.push((name, outcome));
            }
        }
        outcomes.push(("DuckDuckGo", ddg));
        outcomes
    })
}

fn describe(article: &news::Article) -> String {
    let mut about = Vec::new();
    if !article.source.is_empty() {
        about.push(article.source.clone());
    }
    if let Some(seconds) = article.published {
        about.push(news::when(seconds));
    }
    let mut text = article.title.clone();
    if !about.is_empty() {
        text.push_str(&format!(" — {}", about.join(", ")));
    }
    text.push_str(&format!("\n   {}", article.url));
    if !article.summary.is_empty() {
        text.push_str(&format!("\n   {}", article.summary));
    }
    text
}

fn from_gnews(
    web: &Web,
    query: &str,
    max: &str,
    key: &str,
    cancel: &CancelToken,
) -> Result<news::Found, String> {
    let call = Call {
        query: &[
            ("q", query),
            ("max", max),
            ("sortby", "publishedAt"),
            ("apikey", key),
        ],
        ..Call::default()
    };
    let value = web.json(&GNEWS, "/api/v4/search", &call, cancel)?;
    Ok(news::gnews(&value))
}

fn from_newsapi(
    web: &Web,
    query: &str,
    max: &str,
    key: &str,
    cancel: &CancelToken,
) -> Result<news::Found, String> {
    let call = Call {
        query: &[("q", query), ("pageSize", max), ("sortBy", "publishedAt")],
        headers: &[("X-Api-Key", key)],
        ..Call::default()
    };
    let value = web.json(&NEWSAPI, "/v2/everything", &call, cancel)?;
    if value["status"] == "error" {
        let said = value["message"].as_str().unwrap_or("no reason given");
        return Err(web.redact(&NEWSAPI, &format!("NewsAPI refused the search: {said}")));
    }
    Ok(news::newsapi(&value))
}

/// DuckDuckGo news: its search page gives the `vqd` token that `news.js` asks for. Both live
/// on duckduckgo.com, not on the HTML endpoint's host (`html.` is dropped from DDG_URL).
fn from_ddg(web: &Web, query: &str, cancel: &CancelToken) -> Result<news::Found, String> {
    let base = web.base(&DUCKDUCKGO).replacen("://html.", "://", 1);
    let q = crate::tools::kit::web::encode(query);
    let page = web.page(&format!("{base}/?q={q}"), 0, cancel)?;
    let Some(vqd) = ddg::vqd(&page.text()) else {
        return Err(
            "DuckDuckGo news gave no search token (vqd); it may be blocking automated requests."
                .into(),
        );
    };
    let url = format!("{base}/news.js?l=wt-wt&o=json&noamp=1&p=-1&q={q}&vqd={vqd}");
    let fetched = web.page(&url, 0, cancel)?;
    let value = web.read_json(&DUCKDUCKGO, &fetched)?;
    Ok(news::ddg(&value))
}

#[derive(Deserialize)]
struct UrlArgs {
    url: String,
}

fn browse_web(args: UrlArgs, ctx: &ToolContext) -> Result<String, String> {
    browse::browse(&args.url, ctx)
}

fn scrape_page(args: UrlArgs, ctx: &ToolContext) -> Result<String, String> {
    browse::scrape(&args.url, ctx)
}
