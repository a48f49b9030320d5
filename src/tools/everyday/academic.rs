//! Papers: `search_papers` (Semantic Scholar's graph API: title, authors, year, venue,
//! citations, link) and `search_arxiv` (arXiv's Atom API, read by `kit::feed`: id, title,
//! authors, summary, date, PDF).

use serde::Deserialize;
use serde_json::Value;

use crate::services::{ARXIV, SEMANTIC_SCHOLAR};
use crate::tools::kit::feed::{self, Entry};
use crate::tools::kit::web::{Call, Fetched};
use crate::tools::schema::{Choices, Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const PAPERS_PARAMS: &[Param] = &[
    Param::required(
        "query",
        Kind::String,
        "What to look for: a title, a topic or keywords",
    ),
    Param::optional("limit", Kind::Integer, "How many papers (1-20, default 5)"),
    Param::optional(
        "year",
        Kind::String,
        "Only papers of these years: 2019, 2016-2020, 2010- or -2015",
    ),
];

const ARXIV_PARAMS: &[Param] = &[
    Param::required(
        "query",
        Kind::String,
        "Keywords, an arXiv id (2202.12139), or arXiv's own syntax (ti:, au:, abs:, cat:)",
    ),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many preprints (1-20, default 5)",
    ),
    Param::optional(
        "sort_by",
        Kind::Choice(Choices::Fixed(&["relevance", "submitted", "updated"])),
        "relevance (default), or the newest submitted or updated first",
    ),
];

/// The most results one call shows.
const MAX_RESULTS: u64 = 20;
/// How much of an arXiv summary a result shows.
const SUMMARY_CHARS: usize = 1000;

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "academic",
    about: "research papers",
    words: &[
        "paper", "papers", "arxiv", "research", "study", "studies", "journal", "scholar",
        "citation", "preprint",
    ],
    asks: &[
        "find research papers on",
        "search arxiv for",
        "papers about transformers",
        "the latest studies on sleep",
        "cite this paper",
        "who wrote the paper",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("search_papers")
            .describe("Search published research papers (Semantic Scholar) by topic or title: authors, year, venue, citation count and a link. Use it for scholarly questions and literature.")
            .offered(Offered::Everywhere)
            .params(PAPERS_PARAMS)
            .example(r#"{"query": "neural turing machines", "limit": 5}"#)
            .handler(search_papers),
        ToolDef::build("search_arxiv")
            .describe("Search arXiv preprints (physics, maths, computer science and more) by keywords or id: title, authors, date, abstract and PDF link. Use it for recent or preprint research.")
            .offered(Offered::Everywhere)
            .params(ARXIV_PARAMS)
            .example(r#"{"query": "large language model reasoning", "max_results": 5, "sort_by": "submitted"}"#)
            .handler(search_arxiv),
    ]
}

#[derive(Deserialize)]
struct PapersArgs {
    query: String,
    limit: Option<u64>,
    year: Option<String>,
}

fn search_papers(args: PapersArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = non_empty(&args.query)?;
    let limit = args.limit.unwrap_or(5).clamp(1, MAX_RESULTS);
    let limit_text = limit.to_string();
    let mut query_pairs = vec![
        ("query", query),
        ("limit", limit_text.as_str()),
        ("fields", "title,authors,year,venue,citationCount,url"),
    ];
    if let Some(year) = args
        .year
        .as_deref()
        .map(str::trim)
        .filter(|y| !y.is_empty())
    {
        query_pairs.push(("year", year));
    }
    let call = Call {
        query: &query_pairs,
        ..Call::default()
    };
    let web = &ctx.settings.web;
    let fetched = web.call(
        &SEMANTIC_SCHOLAR,
        "/graph/v1/paper/search",
        &call,
        &ctx.cancel,
    )?;
    if let Some(refusal) = scholar_refusal(&fetched) {
        return Err(refusal);
    }
    let value = web.read_json(&SEMANTIC_SCHOLAR, &fetched)?;
    Ok(describe_papers(query, &value, limit as usize))
}

/// What Semantic Scholar's own error answers mean: `{"error": "..."}` with 400 or 404, and
/// the rate limit of requests without a key.
fn scholar_refusal(fetched: &Fetched) -> Option<String> {
    let said = serde_json::from_slice::<Value>(&fetched.body)
        .ok()
        .and_then(|v| {
            v["error"]
                .as_str()
                .or(v["message"].as_str())
                .map(str::to_string)
        });
    match (fetched.status, said) {
        (429, _) => Some("Semantic Scholar is limiting requests made without an API key. Wait a minute and try again, or use search_arxiv meanwhile.".into()),
        (400 | 404, Some(said)) => Some(format!(
            "Semantic Scholar refused the search: {}. Rephrase it as plain keywords (and a year such as 2019 or 2016-2020) and try again.",
            said.trim().trim_end_matches('.')
        )),
        _ => None,
    }
}

/// One paragraph per paper; a field the answer lacks is left out (the API returns only the
/// fields asked for, and any of them may be missing or null).
fn describe_papers(query: &str, value: &Value, limit: usize) -> String {
    let papers = value["data"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    if papers.is_empty() {
        return format!(
            "Semantic Scholar found no papers for \"{query}\". Try fewer or other keywords, or search_arxiv for preprints."
        );
    }
    let shown = papers.len().min(limit);
    let total = value["total"].as_u64().unwrap_or(papers.len() as u64);
    let mut out = format!(
        "Semantic Scholar: {} papers match \"{query}\"; the first {shown}:\n",
        thousands(total)
    );
    for (n, paper) in papers.iter().take(shown).enumerate() {
        out.push_str(&describe_paper(n + 1, paper));
    }
    out
}

fn describe_paper(n: usize, paper: &Value) -> String {
    let title = paper["title"].as_str().map_or("(untitled)", str::trim);
    let year = paper["year"]
        .as_u64()
        .map(|y| format!(" ({y})"))
        .unwrap_or_default();
    let mut out = format!("\n{n}. {title}{year}\n");
    let authors: Vec<&str> = paper["authors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["name"].as_str())
        .collect();
    let mut facts = Vec::new();
    if !authors.is_empty() {
        facts.push(format!("Authors: {}", name_list(&authors)));
    }
    if let Some(venue) = paper["venue"].as_str().filter(|v| !v.trim().is_empty()) {
        facts.push(format!("Venue: {}", venue.trim()));
    }
    if let Some(citations) = paper["citationCount"].as_u64() {
        facts.push(format!("Citations: {}", thousands(citations)));
    }
    if !facts.is_empty() {
        out.push_str(&format!("   {}\n", facts.join(" · ")));
    }
    let url = paper["url"].as_str().map(str::to_string).or_else(|| {
        paper["paperId"]
            .as_str()
            .map(|id| format!("https://www.semanticscholar.org/paper/{id}"))
    });
    if let Some(url) = url {
        out.push_str(&format!("   {url}\n"));
    }
    out
}

#[derive(Deserialize)]
struct ArxivArgs {
    query: String,
    max_results: Option<u64>,
    sort_by: Option<String>,
}

fn search_arxiv(args: ArxivArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = non_empty(&args.query)?;
    let max = args
        .max_results
        .unwrap_or(5)
        .clamp(1, MAX_RESULTS)
        .to_string();
    let sort = match args.sort_by.as_deref() {
        Some("submitted") => "submittedDate",
        Some("updated") => "lastUpdatedDate",
        _ => "relevance",
    };
    let (search, ids) = match arxiv_id(query) {
        Some(id) => (String::new(), id.to_string()),
        None => (arxiv_query(query), String::new()),
    };
    let pairs = [
        ("search_query", search.as_str()),
        ("id_list", ids.as_str()),
        ("start", "0"),
        ("max_results", max.as_str()),
        ("sortBy", sort),
        ("sortOrder", "descending"),
    ];
    let call = Call {
        query: &pairs,
        ..Call::default()
    };
    let fetched = ctx
        .settings
        .web
        .call(&ARXIV, "/api/query", &call, &ctx.cancel)?;
    let feed = read_arxiv(&fetched)?;
    Ok(describe_preprints(query, &feed))
}

/// The feed of an arXiv answer. arXiv reports a bad query as a feed too (HTTP 400, one entry
/// titled Error whose id is under `api/errors`): its summary is the reason.
fn read_arxiv(fetched: &Fetched) -> Result<feed::Feed, String> {
    let status = fetched.status;
    let is_html = fetched
        .content_type
        .as_deref()
        .is_some_and(|t| t.to_ascii_lowercase().contains("html"));
    if is_html {
        return Err(format!(
            "arXiv answered with a web page instead of a feed (HTTP {status}): a captive portal or a proxy's login page, or ARXIV_URL points at the wrong server. Try again later."
        ));
    }
    // arXiv declares no charset; its feeds are UTF-8 (feed::decode never guesses Latin-1 for
    // valid UTF-8).
    let parsed = feed::parse(&feed::decode(&fetched.body, fetched.content_type.as_deref()).0);
    let refusal = parsed.as_ref().ok().and_then(|feed| {
        feed.entries
            .iter()
            .find(|e| e.id.contains("/api/errors") || (status == 400 && e.title == "Error"))
    });
    if let Some(error) = refusal {
        return Err(format!(
            "arXiv refused the query: {}. Use keywords, an id such as 2202.12139, or arXiv's syntax (ti:, au:, abs:, cat:), and try again.",
            error.summary.trim_end_matches('.')
        ));
    }
    if !fetched.is_success() {
        return Err(format!(
            "arXiv answered HTTP {status}. Try again in a minute."
        ));
    }
    parsed.map_err(|e| format!("arXiv sent a feed that could not be read: {e}. Try again later."))
}

fn describe_preprints(query: &str, feed: &feed::Feed) -> String {
    if feed.entries.is_empty() {
        return format!(
            "arXiv found nothing for \"{query}\". Try other or fewer keywords, or search_papers for published work."
        );
    }
    let total = feed.total_results.unwrap_or(feed.entries.len() as u64);
    let mut out = format!(
        "arXiv: {} results for \"{query}\"; the first {}:\n",
        thousands(total),
        feed.entries.len()
    );
    for (n, entry) in feed.entries.iter().enumerate() {
        out.push_str(&describe_preprint(n + 1, entry));
    }
    out
}

fn describe_preprint(n: usize, entry: &Entry) -> String {
    let id = entry
        .id
        .rsplit_once("/abs/")
        .map_or(entry.id.as_str(), |(_, id)| id);
    let mut about = vec![id.to_string()];
    about.extend(entry.published.get(..10).map(str::to_string));
    about.extend(
        entry
            .extension("http://arxiv.org/schemas/atom", "primary_category")
            .map(str::to_string),
    );
    let mut out = format!("\n{n}. {} ({})\n", entry.title, about.join(", "));
    if !entry.authors.is_empty() {
        let names: Vec<&str> = entry.authors.iter().map(String::as_str).collect();
        out.push_str(&format!("   Authors: {}\n", name_list(&names)));
    }
    let pdf = entry
        .links
        .iter()
        .find(|l| l.title == "pdf" || l.media_type == "application/pdf");
    if let Some(pdf) = pdf {
        out.push_str(&format!("   PDF: {}\n", pdf.href));
    }
    if !entry.link.is_empty() {
        out.push_str(&format!("   Page: {}\n", entry.link));
    }
    out.push_str(&format!(
        "   Summary: {}\n",
        cut(&entry.summary, SUMMARY_CHARS)
    ));
    out
}

/// An arXiv identifier, new style (`2202.12139`, `2202.12139v1`) or old (`hep-th/9901001`),
/// with or without an `arXiv:` prefix.
fn arxiv_id(query: &str) -> Option<&str> {
    let id = query.trim();
    let id = id.strip_prefix("arXiv:").unwrap_or(id);
    let (number, version) = match id.rsplit_once('v') {
        Some((number, version)) if version.chars().all(|c| c.is_ascii_digit()) => (number, version),
        _ => (id, "1"),
    };
    let digits = |s: &str, lengths: &[usize]| {
        lengths.contains(&s.len()) && s.chars().all(|c| c.is_ascii_digit())
    };
    let new_style = number
        .split_once('.')
        .is_some_and(|(yymm, seq)| digits(yymm, &[4]) && digits(seq, &[4, 5]));
    let old_style = number.split_once('/').is_some_and(|(archive, seq)| {
        !archive.is_empty()
            && archive
                .chars()
                .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '.')
            && digits(seq, &[7])
    });
    ((new_style || old_style) && !version.is_empty()).then_some(id)
}

/// The `search_query` for free words: each word in any field, all of them required. A query
/// already in arXiv's syntax (a field prefix, AND/OR/ANDNOT) goes as it is.
fn arxiv_query(query: &str) -> String {
    const FIELDS: &[&str] = &[
        "ti:", "au:", "abs:", "co:", "jr:", "cat:", "rn:", "id:", "all:",
    ];
    let syntax = query.split_whitespace().any(|word| {
        FIELDS.iter().any(|f| word.starts_with(f)) || matches!(word, "AND" | "OR" | "ANDNOT")
    });
    if syntax {
        return query.trim().to_string();
    }
    query
        .split_whitespace()
        .map(|word| format!("all:{}", word.trim_matches(|c: char| c == '"')))
        .collect::<Vec<_>>()
        .join(" AND ")
}

fn non_empty(query: &str) -> Result<&str, String> {
    let query = query.trim();
    if query.is_empty() {
        return Err("The query is empty: give keywords or a title to search for.".into());
    }
    Ok(query)
}

/// Up to five names, then "et al.".
fn name_list(names: &[&str]) -> String {
    let mut list = names.iter().take(5).copied().collect::<Vec<_>>().join(", ");
    if names.len() > 5 {
        list.push_str(&format!(" et al. ({} authors)", names.len()));
    }
    list
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", text[..at].trim_end()),
        None => text.to_string(),
    }
}

/// 70499 as 70,499.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arxiv_ids_are_told_from_keywords() {
        let cases: &[(&str, Option<&str>)] = &[
            ("2202.12139", Some("2202.12139")),
            ("2202.12139v1", Some("2202.12139v1")),
            ("arXiv:1706.03762", Some("1706.03762")),
            ("hep-th/9901001", Some("hep-th/9901001")),
            ("math.GT/0309136v2", Some("math.GT/0309136v2")),
            ("0000.0000", Some("0000.0000")),
            ("abc", None),
            ("12.345", None),
            ("transformers 2017", None),
            ("2202.12139vx", None),
        ];
        for (query, expected) in cases {
            assert_eq!(arxiv_id(query), *expected, "{query}");
        }
    }

    #[test]
    fn free_words_become_arxiv_syntax() {
        let cases: &[(&str, &str)] = &[
            ("testing", "all:testing"),
            (
                "graph  neural networks",
                "all:graph AND all:neural AND all:networks",
            ),
            ("\"quantum\" error", "all:quantum AND all:error"),
            ("au:hinton AND ti:capsules", "au:hinton AND ti:capsules"),
            ("cat:cs.LG", "cat:cs.LG"),
        ];
        for (query, expected) in cases {
            assert_eq!(arxiv_query(query), *expected, "{query}");
        }
    }

    #[test]
    fn papers_with_missing_fields_still_read() {
        let value: Value = serde_json::json!({"total": 3, "data": [
            {"paperId": "abc", "title": "Only a title"},
            {"paperId": "def", "title": "Full", "year": 2020, "venue": "", "citationCount": 1234,
             "url": "https://x/def", "authors": [{"name": "A"}, {"name": null}, {"name": "B"}]},
            {"paperId": "ghi", "title": null, "year": null, "authors": null}
        ]});
        let text = describe_papers("q", &value, 5);
        assert!(
            text.starts_with("Semantic Scholar: 3 papers match \"q\"; the first 3:"),
            "{text}"
        );
        assert!(
            text.contains("1. Only a title\n   https://www.semanticscholar.org/paper/abc\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "2. Full (2020)\n   Authors: A, B · Citations: 1,234\n   https://x/def\n"
            ),
            "{text}"
        );
        assert!(text.contains("3. (untitled)\n"), "{text}");
    }

    #[test]
    fn semantic_scholars_own_errors_are_read() {
        let recorded = |name: &str| {
            let path = format!("{}/tests/fixtures/apis/{name}", env!("CARGO_MANIFEST_DIR"));
            std::fs::read(path).unwrap()
        };
        let fetched = |status, body: Vec<u8>| Fetched {
            status,
            content_type: Some("application/json".into()),
            body,
            retry_after: None,
        };
        let cases: &[(u16, Vec<u8>, Option<&str>)] = &[
            (
                400,
                recorded("semanticscholar_400_bad_fields.json"),
                Some("refused the search: Unrecognized or unsupported fields: [unknown]. Rephrase"),
            ),
            (
                404,
                recorded("semanticscholar_paper_404.json"),
                Some("refused the search: Paper with id 0 not found. Rephrase"),
            ),
            (
                429,
                b"{}".to_vec(),
                Some("limiting requests made without an API key"),
            ),
            (500, b"{}".to_vec(), None),
            (200, recorded("semanticscholar_paper_search.json"), None),
        ];
        for (status, body, said) in cases {
            let got = scholar_refusal(&fetched(*status, body.clone()));
            match (got, said) {
                (None, None) => {}
                (Some(got), Some(said)) => assert!(got.contains(said), "{status}: {got}"),
                (got, _) => panic!("{status}: {got:?}"),
            }
        }
    }

    #[test]
    fn numbers_and_lists_read_well() {
        let cases: &[(u64, &str)] = &[
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (214_881, "214,881"),
            (1_234_567, "1,234,567"),
        ];
        for (n, text) in cases {
            assert_eq!(thousands(*n), *text);
        }
        let names = ["a", "b", "c", "d", "e", "f", "g"];
        assert_eq!(name_list(&names[..2]), "a, b");
        assert_eq!(name_list(&names), "a, b, c, d, e et al. (7 authors)");
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(cut("abc", 3), "abc");
    }
}
