//! Wikipedia: `wiki_search` (the MediaWiki search API; its spelling suggestion is said even
//! with hits), `wiki_summary` (the REST summary), `wiki_full` (the article as plain text,
//! saved in the profile by `store::wiki`; the result is its path and size, never the
//! article) and `wiki_grep` (lines of a saved article). A disambiguation page says so and
//! lists what the name may mean. `article` is the saved text: its lines, headings and what
//! wiki_grep shows of them.

use serde::Deserialize;
use serde_json::Value;

use crate::services::WIKIPEDIA;
use crate::store::wiki as saved;
use crate::tools::kit::feed::{collapse, html_text};
use crate::tools::kit::web::{Call, encode};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

mod article;

use article::{grep, is_heading, squeeze_blank_lines};

const API: &str = "/w/api.php";
const MAX_RESULTS: u64 = 20;
const MAX_MATCHES: u64 = 200;
/// How many lines of a disambiguation page are listed.
const OPTION_LINES: usize = 60;

const SEARCH_PARAMS: &[Param] = &[
    Param::required("query", Kind::String, "Words to look for in Wikipedia"),
    Param::optional(
        "limit",
        Kind::Integer,
        "How many articles (1-20, default 5)",
    ),
];
const TITLE_PARAMS: &[Param] = &[Param::required(
    "title",
    Kind::String,
    "The article's exact title, as wiki_search gives it",
)];
const GREP_PARAMS: &[Param] = &[
    Param::required(
        "title",
        Kind::String,
        "The title of an article saved by wiki_full (or the path it gave)",
    ),
    Param::required(
        "pattern",
        Kind::String,
        "Text to find, any case; several alternatives separated by |",
    ),
    Param::optional(
        "limit",
        Kind::Integer,
        "How many matching lines (1-200, default 30)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "wiki",
    about: "Wikipedia articles",
    words: &[
        "wikipedia",
        "wiki",
        "who is",
        "who was",
        "who were",
        "what is",
        "what was",
        "what are",
        "tell me about",
        "history of",
        "biography",
        "definition",
        "define",
        "~meaning",
        "~mean",
        "describe",
        "explain",
    ],
    asks: &[
        "what is a lighthouse",
        "describe a koala",
        "what does a tapir look like",
        "facts about the moon",
        "who was ada lovelace",
        "tell me about the roman empire",
        "look up photosynthesis on wikipedia",
        "what is the history of jazz",
        "a biography of marie curie",
        "keep a wikipedia page offline",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("wiki_search")
            .describe("Search Wikipedia for articles about a subject: titles, a snippet and a link each. Use it to find the exact title before wiki_summary or wiki_full.")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "hitchhiker's guide author", "limit": 5}"#)
            .handler(wiki_search),
        ToolDef::build("wiki_summary")
            .describe("The introduction of a Wikipedia article (a few paragraphs) with its description and link. Use it for quick facts about a person, place or thing.")
            .offered(Offered::Everywhere)
            .params(TITLE_PARAMS)
            .example(r#"{"title": "Douglas Adams"}"#)
            .handler(wiki_summary),
        ToolDef::build("wiki_full")
            .describe("Save a whole Wikipedia article as plain text in the profile and return its path and size (not the text). Then use wiki_grep to find what you need in it.")
            .offered(Offered::Everywhere)
            .writes()
            .params(TITLE_PARAMS)
            .example(r#"{"title": "Douglas Adams"}"#)
            .handler(wiki_full),
        ToolDef::build("wiki_grep")
            .describe("Find lines in a Wikipedia article saved by wiki_full, with line numbers and section names. Use it to read the parts of a long article that answer the question.")
            .offered(Offered::Everywhere)
            .params(GREP_PARAMS)
            .example(r#"{"title": "Douglas Adams", "pattern": "towel|Hitchhiker"}"#)
            .handler(wiki_grep),
    ]
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    limit: Option<u64>,
}

fn wiki_search(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = args.query.trim();
    if query.is_empty() {
        return Err("The query is empty: give words to look for.".into());
    }
    let limit = args.limit.unwrap_or(5).clamp(1, MAX_RESULTS).to_string();
    let pairs = [
        ("action", "query"),
        ("list", "search"),
        ("srsearch", query),
        ("srlimit", limit.as_str()),
        ("srprop", "snippet|wordcount"),
        ("format", "json"),
        ("formatversion", "2"),
    ];
    let value = api(ctx, &pairs)?;
    let base = ctx.settings.web.base(&WIKIPEDIA);
    Ok(describe_search(query, &value, &base))
}

/// What the action API answered, or the sentence for its error (which comes inside an HTTP
/// 200: `{"error": {"code", "info"}}`).
fn api(ctx: &ToolContext, pairs: &[(&str, &str)]) -> Result<Value, String> {
    let call = Call {
        query: pairs,
        ..Call::default()
    };
    let value = ctx.settings.web.json(&WIKIPEDIA, API, &call, &ctx.cancel)?;
    match value.get("error") {
        Some(error) => Err(format!(
            "Wikipedia refused the request: {} ({}). Rephrase it and try again.",
            error["info"]
                .as_str()
                .unwrap_or("no reason given")
                .trim_end_matches('.'),
            error["code"].as_str().unwrap_or("error")
        )),
        None => Ok(value),
    }
}

fn describe_search(query: &str, value: &Value, base: &str) -> String {
    let hits = value
        .pointer("/query/search")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let suggested = value
        .pointer("/query/searchinfo/suggestion")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty());
    if hits.is_empty() {
        let suggestion = suggested
            .map(|s| format!(" Did you mean \"{s}\"? Search for that."))
            .unwrap_or_default();
        return format!("Wikipedia found no article for \"{query}\".{suggestion}");
    }
    let mut out = search_head(query, value, hits.len());
    for (n, hit) in hits.iter().enumerate() {
        let title = hit["title"].as_str().unwrap_or("(untitled)");
        let words = hit["wordcount"]
            .as_u64()
            .map(|w| format!(" ({w} words)"))
            .unwrap_or_default();
        out.push_str(&format!("\n{}. {title}{words}\n", n + 1));
        let snippet = collapse(&html_text(hit["snippet"].as_str().unwrap_or("")));
        if !snippet.is_empty() {
            out.push_str(&format!("   {snippet}\n"));
        }
        out.push_str(&format!("   {}\n", page_url(base, title)));
    }
    if let Some(suggested) = suggested {
        out.push_str(&format!(
            "\nDid you mean \"{suggested}\"? Wikipedia suggests that spelling: if these articles are not what was meant, search for \"{suggested}\".\n"
        ));
    }
    out
}

/// `Wikipedia: 4012 articles match "q"; the first 5:`. Without `totalhits` (the recorded
/// 2013 answer has none) the count is not known, only whether there are more.
fn search_head(query: &str, value: &Value, shown: usize) -> String {
    match value
        .pointer("/query/searchinfo/totalhits")
        .and_then(Value::as_u64)
    {
        Some(1) => format!("Wikipedia: 1 article matches \"{query}\":\n"),
        Some(total) => {
            format!("Wikipedia: {total} articles match \"{query}\"; the first {shown}:\n")
        }
        None => {
            let more = ["/continue", "/query-continue"]
                .iter()
                .any(|at| value.pointer(at).is_some());
            let first = match shown {
                1 => "the first article".to_string(),
                n => format!("the first {n} articles"),
            };
            let more = if more { " (there are more)" } else { "" };
            format!("Wikipedia: {first} matching \"{query}\"{more}:\n")
        }
    }
}

#[derive(Deserialize)]
struct TitleArgs {
    title: String,
}

fn title_of(args: &TitleArgs) -> Result<&str, String> {
    let title = args.title.trim();
    if title.is_empty() {
        return Err("The title is empty: give an article's title (wiki_search finds it).".into());
    }
    Ok(title)
}

fn wiki_summary(args: TitleArgs, ctx: &ToolContext) -> Result<String, String> {
    let title = title_of(&args)?;
    let web = &ctx.settings.web;
    let path = format!(
        "/api/rest_v1/page/summary/{}",
        encode(&title.replace(' ', "_"))
    );
    let call = Call {
        query: &[("redirect", "true")],
        ..Call::default()
    };
    let fetched = web.call(&WIKIPEDIA, &path, &call, &ctx.cancel)?;
    if fetched.status == 404 && !crate::net::is_html(fetched.content_type.as_deref(), &fetched.body)
    {
        return Err(no_article(title));
    }
    let value = web.read_json(&WIKIPEDIA, &fetched)?;
    let title = value["title"].as_str().unwrap_or(title);
    match value["type"].as_str() {
        Some("disambiguation") => {
            let page = query_page(ctx, title, true)?;
            Ok(describe_disambiguation(&page))
        }
        Some("no-extract") => Ok(format!(
            "The article \"{title}\" has no summary. Use wiki_full to save it and wiki_grep to read it."
        )),
        _ => Ok(describe_summary(title, &value, &web.base(&WIKIPEDIA))),
    }
}

fn no_article(title: &str) -> String {
    format!("Wikipedia has no article titled \"{title}\". Use wiki_search to find the exact title.")
}

fn describe_summary(title: &str, value: &Value, base: &str) -> String {
    let description = value["description"]
        .as_str()
        .map(|d| format!(" — {d}"))
        .unwrap_or_default();
    let extract = value["extract"].as_str().unwrap_or("").trim();
    let url = value
        .pointer("/content_urls/desktop/page")
        .and_then(Value::as_str)
        .map_or_else(|| page_url(base, title), str::to_string);
    format!("{title}{description}\n\n{extract}\n\n{url}")
}

/// An article as the action API gives it: plain text, whether it is a disambiguation page,
/// and the articles it links to.
struct Page {
    title: String,
    url: String,
    text: String,
    disambiguation: bool,
    links: Vec<String>,
}

/// The page `title` (following redirects); `intro` asks for its introduction only.
fn query_page(ctx: &ToolContext, title: &str, intro: bool) -> Result<Page, String> {
    let mut pairs = vec![
        ("action", "query"),
        ("prop", "extracts|pageprops|links|info"),
        ("explaintext", "1"),
        ("inprop", "url"),
        ("ppprop", "disambiguation"),
        ("plnamespace", "0"),
        ("pllimit", "500"),
        ("redirects", "1"),
        ("titles", title),
        ("format", "json"),
        ("formatversion", "2"),
    ];
    if intro {
        pairs.push(("exintro", "1"));
    }
    let value = api(ctx, &pairs)?;
    read_page(title, &value, &ctx.settings.web.base(&WIKIPEDIA))
}

/// The first page of a `formatversion=2` answer (`query.pages` is an array).
fn read_page(asked: &str, value: &Value, base: &str) -> Result<Page, String> {
    let Some(page) = value.pointer("/query/pages/0") else {
        return Err(format!(
            "Wikipedia's answer for \"{asked}\" held no page. Try again, or use wiki_search."
        ));
    };
    if page.get("missing").is_some_and(|m| m != false) {
        return Err(no_article(asked));
    }
    if page.get("invalid").is_some_and(|m| m != false) {
        let why = page["invalidreason"]
            .as_str()
            .unwrap_or("it is not a valid title");
        return Err(format!("\"{asked}\" cannot be a Wikipedia title: {why}"));
    }
    let title = page["title"].as_str().unwrap_or(asked).to_string();
    let extract = page["extract"].as_str().unwrap_or("");
    // An extract asked for without explaintext is HTML (as in the recorded disambiguation).
    let text = if extract.trim_start().starts_with('<') {
        html_text(extract)
    } else {
        squeeze_blank_lines(extract)
    };
    let links = page["links"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| l["ns"].as_i64() == Some(0))
        .filter_map(|l| l["title"].as_str().map(str::to_string))
        .collect();
    Ok(Page {
        url: page["fullurl"]
            .as_str()
            .map_or_else(|| page_url(base, &title), str::to_string),
        title,
        text,
        disambiguation: page.pointer("/pageprops/disambiguation").is_some(),
        links,
    })
}

fn describe_disambiguation(page: &Page) -> String {
    let mut out = format!(
        "\"{}\" is a disambiguation page: the name has several meanings. Call wiki_summary with the exact title of the one meant.\n",
        page.title
    );
    let lines: Vec<&str> = page.text.lines().filter(|l| !l.trim().is_empty()).collect();
    for line in lines.iter().take(OPTION_LINES) {
        out.push_str(&format!("{line}\n"));
    }
    if lines.len() > OPTION_LINES {
        out.push_str(&format!("[{} more lines]\n", lines.len() - OPTION_LINES));
    }
    if !page.links.is_empty() {
        out.push_str(&format!("Titles it links to: {}\n", page.links.join("; ")));
    }
    out.push_str(&page.url);
    out
}

fn wiki_full(args: TitleArgs, ctx: &ToolContext) -> Result<String, String> {
    let title = title_of(&args)?;
    let profile = ctx.shared.profile_dir().ok_or_else(|| {
        "There is no profile to save Wikipedia articles in (no MARVIN_HOME).".to_string()
    })?;
    let page = query_page(ctx, title, false)?;
    if page.disambiguation {
        return Ok(describe_disambiguation(&page));
    }
    if page.text.is_empty() {
        return Err(format!(
            "Wikipedia gave no text for \"{}\"; nothing was saved. Try wiki_summary.",
            page.title
        ));
    }
    let text = format!("{}\n{}\n\n{}\n", page.title, page.url, page.text);
    let path = saved::save(&profile, &page.title, &text).map_err(|unsaved| {
        format!(
            "Cannot save the article to {}: {}.",
            unsaved.path.display(),
            unsaved.error
        )
    })?;
    let sections = text.lines().filter(|l| is_heading(l)).count();
    Ok(format!(
        "Saved \"{}\" to {} ({} characters, {} lines, {sections} sections). The text is not shown here: use wiki_grep with the title \"{}\" to find the lines you need.",
        page.title,
        path.display(),
        text.chars().count(),
        text.lines().count(),
        page.title
    ))
}

#[derive(Deserialize)]
struct GrepArgs {
    title: String,
    pattern: String,
    limit: Option<u64>,
}

fn wiki_grep(args: GrepArgs, ctx: &ToolContext) -> Result<String, String> {
    let limit = args.limit.unwrap_or(30);
    if !(1..=MAX_MATCHES).contains(&limit) {
        return Err(format!(
            "limit must be between 1 and {MAX_MATCHES}, not {limit}."
        ));
    }
    let needles: Vec<String> = args
        .pattern
        .split('|')
        .map(|n| n.trim().to_lowercase())
        .filter(|n| !n.is_empty())
        .collect();
    if needles.is_empty() {
        return Err("The pattern is empty: give text to find.".into());
    }
    let profile = ctx.shared.profile_dir().ok_or_else(|| {
        "There is no profile with saved Wikipedia articles (no MARVIN_HOME).".to_string()
    })?;
    let Ok((path, text)) = saved::read(&profile, &args.title) else {
        let titles = saved::list(&profile);
        let known = if titles.is_empty() {
            "none yet".to_string()
        } else {
            titles.join(", ")
        };
        return Err(format!(
            "No article \"{}\" is saved (saved: {known}). Save it first with wiki_full.",
            args.title.trim()
        ));
    };
    Ok(grep(&text, &needles, limit as usize, &args.pattern, &path))
}

/// The article's address under `base`: `/wiki/Title_with_underscores`.
fn page_url(base: &str, title: &str) -> String {
    let path: String = encode(&title.replace(' ', "_"))
        .replace("%28", "(")
        .replace("%29", ")")
        .replace("%2C", ",")
        .replace("%3A", ":")
        .replace("%2F", "/");
    format!("{base}/wiki/{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn article_addresses_read_as_wikipedias_own() {
        let cases: &[(&str, &str)] = &[
            ("Douglas Adams", "https://w.example/wiki/Douglas_Adams"),
            (
                "Douglas Adams (disambiguation)",
                "https://w.example/wiki/Douglas_Adams_(disambiguation)",
            ),
            ("AC/DC", "https://w.example/wiki/AC/DC"),
            ("Zürich", "https://w.example/wiki/Z%C3%BCrich"),
            ("Talk:Foo, bar?", "https://w.example/wiki/Talk:Foo,_bar%3F"),
        ];
        for (title, url) in cases {
            assert_eq!(page_url("https://w.example", title), *url, "{title}");
        }
    }

    #[test]
    fn the_recorded_disambiguation_page_lists_its_options() {
        let path = format!(
            "{}/tests/fixtures/apis/mediawiki_query_extracts_disambiguation.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let value: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let page = read_page("Douglas Adams (disambiguation)", &value, "https://x").unwrap();
        assert!(page.disambiguation);
        assert_eq!(page.title, "Douglas Adams (disambiguation)");
        assert_eq!(
            page.url,
            "https://en.wikipedia.org/wiki/Douglas_Adams_(disambiguation)"
        );
        assert_eq!(page.links.len(), 10);
        assert!(!page.links.iter().any(|l| l.starts_with("Talk:")));
        let text = describe_disambiguation(&page);
        assert!(
            text.contains("\n- Douglas Adams (engineer), American engineer\n"),
            "{text}"
        );
        assert!(
            text.contains("\n- Douglas Adams (cricketer) (1876–1931), American cricketer\n"),
            "{text}"
        );
    }

    #[test]
    fn missing_and_invalid_titles_are_told() {
        let cases: &[(Value, &str)] = &[
            (
                serde_json::json!({"query": {"pages": [{"ns": 0, "title": "Xyzzy", "missing": true}]}}),
                "Wikipedia has no article titled \"Xyzzy\".",
            ),
            (
                serde_json::json!({"query": {"pages": [{"title": "A|B", "invalid": true, "invalidreason": "The requested page title contains invalid characters: \"|\"."}]}}),
                "cannot be a Wikipedia title: The requested page title contains invalid characters",
            ),
            (serde_json::json!({"batchcomplete": true}), "held no page"),
        ];
        for (value, said) in cases {
            let error = read_page("Xyzzy", value, "https://x").err().unwrap();
            assert!(error.contains(said), "{error}");
        }
    }
}
