//! wiki_search, wiki_summary, wiki_full and wiki_grep against a replayed Wikipedia: the
//! recorded REST summary, disambiguation query and `list=search` for "butteryfly" (one hit, a
//! spelling suggestion, a warning, 2013's continuation), and, where nothing was recorded (a
//! search with snippets, word counts and totalhits, none found, a whole article, a missing
//! page, the API's errors), bodies built from the MediaWiki API documentation (API:Search,
//! API:Query, API:Errors and warnings, the REST API's HyperSwitch errors), kept to the
//! documented shape.

use super::{Silent, portal, recorded, reply, run};
use crate::common::{ReplayServer, TempDir};

/// A search answer as API:Search documents it (formatversion=2: `query.search` an array of
/// ns, title, pageid, wordcount and an HTML snippet with `searchmatch` spans).
const SEARCH: &str = r#"{"batchcomplete": true, "continue": {"sroffset": 2, "continue": "-||"}, "query": {"searchinfo": {"totalhits": 4012}, "search": [
 {"ns": 0, "title": "Douglas Adams", "pageid": 8091, "wordcount": 9231, "snippet": "<span class=\"searchmatch\">Douglas</span> Noel <span class=\"searchmatch\">Adams</span> (11 March 1952 – 11 May 2001) was an English author"},
 {"ns": 0, "title": "The Hitchhiker's Guide to the Galaxy", "pageid": 10390, "wordcount": 7210, "snippet": "franchise created by <span class=\"searchmatch\">Douglas</span> <span class=\"searchmatch\">Adams</span>. Originally a 1978 radio &quot;comedy&quot;"}]}}"#;

/// No hit, with the spelling suggestion API:Search documents.
const SEARCH_NONE: &str = r#"{"batchcomplete": true, "query": {"searchinfo": {"totalhits": 0, "suggestion": "douglas adams", "suggestionsnippet": "douglas adams"}, "search": []}}"#;

/// An error inside an HTTP 200, as API:Errors and warnings documents it for formatversion=2.
const API_ERROR: &str = r#"{"error": {"code": "nosrsearch", "info": "The \"srsearch\" parameter must be set.", "docref": "See https://en.wikipedia.org/w/api.php for API usage."}, "servedby": "mw1234"}"#;

/// A whole article as prop=extracts with explaintext gives it (headings as `== … ==`).
const ARTICLE: &str = r#"{"batchcomplete": true, "query": {"pages": [{"pageid": 8091, "ns": 0, "title": "Douglas Adams", "contentmodel": "wikitext", "fullurl": "https://en.wikipedia.org/wiki/Douglas_Adams", "extract": "Douglas Noel Adams (11 March 1952 – 11 May 2001) was an English author.\n\n\n== Early life ==\nAdams was born in Cambridge, England.\n\n\n== Career ==\n\n\n=== The Hitchhiker's Guide to the Galaxy ===\nThe books made the towel famous.\nTowel Day is held every 25 May.", "links": [{"ns": 0, "title": "Cambridge"}]}]}}"#;

/// A title with no page (API:Query: `missing` in formatversion=2).
const MISSING: &str = r#"{"batchcomplete": true, "query": {"pages": [{"ns": 0, "title": "Xyzzy Qux", "missing": true}]}}"#;

/// The REST API's not-found problem (HyperSwitch errors).
const REST_404: &str = r#"{"type":"https://mediawiki.org/wiki/HyperSwitch/errors/not_found","title":"Not found.","method":"get","detail":"Page or revision not found.","uri":"/en.wikipedia.org/v1/page/summary/Xyzzy_Qux"}"#;

/// Today's REST summary of a disambiguation page: `type` says so (the recorded 2017 answer
/// predates the field).
const REST_DISAMBIGUATION: &str = r#"{"type": "disambiguation", "title": "Douglas Adams (disambiguation)", "pageid": 1167171, "extract": "Douglas Adams was an English writer and dramatist. Douglas or Doug Adams may also refer to:"}"#;

/// Wikipedia as these tests know it, answering by the request's address.
fn wikipedia() -> ReplayServer {
    ReplayServer::answering(|request| {
        let url = request.url.as_str();
        let json = |body: &str| reply(200, "application/json; charset=utf-8", body);
        if let Some(title) = url.strip_prefix("/api/rest_v1/page/summary/") {
            return match title.split('?').next().unwrap_or("") {
                "Douglas_Adams" => {
                    recorded(200, "application/json", "wikipedia_rest_summary_2017.json")
                }
                "Douglas_Adams_%28disambiguation%29" => json(REST_DISAMBIGUATION),
                "Captive" => portal(),
                _ => reply(404, "application/problem+json", REST_404),
            };
        }
        if url.contains("list=search") {
            return if url.contains("srsearch=douglas%20adams") {
                json(SEARCH)
            } else if url.contains("srsearch=butteryfly") {
                recorded(
                    200,
                    "application/json; charset=utf-8",
                    "mediawiki_list_search_suggestion_2013_reserialised.json",
                )
            } else if url.contains("srsearch=dougals") {
                json(SEARCH_NONE)
            } else {
                json(API_ERROR)
            };
        }
        if url.contains("titles=Douglas%20Adams%20%28disambiguation%29") {
            return recorded(
                200,
                "application/json",
                "mediawiki_query_extracts_disambiguation.json",
            );
        }
        if url.contains("titles=Douglas%20Adams&") {
            return json(ARTICLE);
        }
        json(MISSING)
    })
}

fn asked(server: &ReplayServer) -> Vec<String> {
    server.requests().into_iter().map(|r| r.url).collect()
}

#[test]
fn wiki_search_lists_titles_snippets_and_links() {
    let home = TempDir::new("wiki-search");
    let server = wikipedia();
    let results = run(
        &home,
        &[
            (
                "1",
                "wiki_search",
                r#"{"query": "douglas adams", "limit": 2}"#,
            ),
            ("2", "wiki_search", r#"{"query": "dougals"}"#),
            ("3", "wiki_search", r#"{"query": "!!"}"#),
        ],
        &[("WIKIPEDIA_URL", server.root())],
    );
    let root = server.root();
    assert_eq!(
        results[0],
        format!(
            "Wikipedia: 4012 articles match \"douglas adams\"; the first 2:\n\n1. Douglas Adams (9231 words)\n   Douglas Noel Adams (11 March 1952 – 11 May 2001) was an English author\n   {root}/wiki/Douglas_Adams\n\n2. The Hitchhiker's Guide to the Galaxy (7210 words)\n   franchise created by Douglas Adams. Originally a 1978 radio \"comedy\"\n   {root}/wiki/The_Hitchhiker%27s_Guide_to_the_Galaxy\n"
        )
    );
    assert_eq!(
        results[1],
        "Wikipedia found no article for \"dougals\". Did you mean \"douglas adams\"? Search for that."
    );
    assert_eq!(
        results[2],
        "Error: Wikipedia refused the request: The \"srsearch\" parameter must be set (nosrsearch). Rephrase it and try again."
    );
    let urls = asked(&server);
    assert!(
        urls.iter().any(|u| u == "/w/api.php?action=query&list=search&srsearch=douglas%20adams&srlimit=2&srprop=snippet%7Cwordcount&format=json&formatversion=2"),
        "{urls:?}"
    );
}

/// The recorded search: a hit with only its title, a suggestion the model is told of even
/// so, and a warning in the 200 that is no failure.
#[test]
fn a_spelling_suggestion_is_said_beside_the_hits() {
    let home = TempDir::new("wiki-suggest");
    let server = wikipedia();
    let results = run(
        &home,
        &[("1", "wiki_search", r#"{"query": "butteryfly", "limit": 1}"#)],
        &[("WIKIPEDIA_URL", server.root())],
    );
    let root = server.root();
    assert_eq!(
        results[0],
        format!(
            "Wikipedia: the first article matching \"butteryfly\" (there are more):\n\n\
             1. Butterfly's Tongue\n   {root}/wiki/Butterfly%27s_Tongue\n\n\
             Did you mean \"butterfly\"? Wikipedia suggests that spelling: if these articles are not what was meant, search for \"butterfly\".\n"
        )
    );
}

#[test]
fn wiki_summary_gives_the_introduction_or_the_meanings_of_a_name() {
    let home = TempDir::new("wiki-summary");
    let server = wikipedia();
    let results = run(
        &home,
        &[
            ("1", "wiki_summary", r#"{"title": "Douglas Adams"}"#),
            (
                "2",
                "wiki_summary",
                r#"{"title": "Douglas Adams (disambiguation)"}"#,
            ),
            ("3", "wiki_summary", r#"{"title": "Xyzzy Qux"}"#),
            ("4", "wiki_summary", r#"{"title": "Captive"}"#),
        ],
        &[("WIKIPEDIA_URL", server.root())],
    );
    let summary = &results[0];
    assert!(
        summary.starts_with("Douglas Adams — English writer and humorist\n\nDouglas Noel Adams (11 March 1952 – 11 May 2001) was an English author"),
        "{summary}"
    );
    assert!(
        summary.contains("\nAdams is best known as the author of The Hitchhiker's Guide"),
        "{summary}"
    );
    assert!(
        summary.ends_with(&format!("\n\n{}/wiki/Douglas_Adams", server.root())),
        "{summary}"
    );
    let meanings = &results[1];
    assert!(
        meanings.starts_with("\"Douglas Adams (disambiguation)\" is a disambiguation page: the name has several meanings. Call wiki_summary with the exact title of the one meant.\nDouglas Adams was an English writer and dramatist.\nDouglas or Doug Adams may also refer to:\n- Douglas Adams (engineer), American engineer\n- Douglas Q. Adams, Indo-Europeanist professor of English\n"),
        "{meanings}"
    );
    assert!(
        meanings.contains(
            "\nTitles it links to: Adams Cable; Doug Adam; Doug Adams (American football);"
        ),
        "{meanings}"
    );
    assert!(!meanings.contains("Talk:"), "{meanings}");
    assert!(
        meanings.ends_with("\nhttps://en.wikipedia.org/wiki/Douglas_Adams_(disambiguation)"),
        "{meanings}"
    );
    assert_eq!(
        results[2],
        "Error: Wikipedia has no article titled \"Xyzzy Qux\". Use wiki_search to find the exact title."
    );
    assert!(
        results[3]
            .starts_with("Error: Wikipedia answered with a web page instead of data (HTTP 200)"),
        "{}",
        results[3]
    );
    assert!(results[3].contains("WIKIPEDIA_URL"), "{}", results[3]);
    let urls = asked(&server);
    assert!(
        urls.contains(&"/api/rest_v1/page/summary/Douglas_Adams?redirect=true".to_string()),
        "{urls:?}"
    );
}

#[test]
fn wiki_full_saves_the_article_and_wiki_grep_finds_its_lines() {
    let home = TempDir::new("wiki-full");
    let server = wikipedia();
    let env = [("WIKIPEDIA_URL", server.root())];
    let saved = run(
        &home,
        &[
            ("1", "wiki_full", r#"{"title": "Douglas Adams"}"#),
            (
                "2",
                "wiki_full",
                r#"{"title": "Douglas Adams (disambiguation)"}"#,
            ),
            ("3", "wiki_full", r#"{"title": "Xyzzy Qux"}"#),
        ],
        &env,
    );
    let dir = home.path().join("marvin-home/profiles/default/wiki");
    let path = dir.join("Douglas_Adams.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("Douglas Adams\nhttps://en.wikipedia.org/wiki/Douglas_Adams\n\nDouglas Noel Adams (11 March 1952"), "{text}");
    assert_eq!(
        saved[0],
        format!(
            "Saved \"Douglas Adams\" to {} ({} characters, {} lines, 3 sections). The text is not shown here: use wiki_grep with the title \"Douglas Adams\" to find the lines you need.",
            path.display(),
            text.chars().count(),
            text.lines().count()
        )
    );
    assert!(
        !saved[0].contains("Cambridge"),
        "the article itself never comes back"
    );
    assert!(
        saved[1].starts_with("\"Douglas Adams (disambiguation)\" is a disambiguation page"),
        "{}",
        saved[1]
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "a disambiguation page is not saved"
    );
    assert_eq!(
        saved[2],
        "Error: Wikipedia has no article titled \"Xyzzy Qux\". Use wiki_search to find the exact title."
    );
    let found = run(
        &home,
        &[
            (
                "1",
                "wiki_grep",
                r#"{"title": "Douglas Adams", "pattern": "towel|CAMBRIDGE"}"#,
            ),
            (
                "2",
                "wiki_grep",
                r#"{"title": "Arthur Dent", "pattern": "towel"}"#,
            ),
        ],
        &env,
    );
    assert_eq!(
        found[0],
        "3 lines of Douglas_Adams.txt match \"towel|CAMBRIDGE\":\n7 [Early life]: Adams was born in Cambridge, England.\n12 [The Hitchhiker's Guide to the Galaxy]: The books made the towel famous.\n13 [The Hitchhiker's Guide to the Galaxy]: Towel Day is held every 25 May."
    );
    assert_eq!(
        found[1],
        "Error: No article \"Arthur Dent\" is saved (saved: Douglas Adams). Save it first with wiki_full."
    );
}

#[test]
fn a_silent_wikipedia_times_out() {
    let home = TempDir::new("wiki-timeout");
    let silent = Silent::start();
    let results = run(
        &home,
        &[("1", "wiki_search", r#"{"query": "douglas adams"}"#)],
        &[
            ("WIKIPEDIA_URL", silent.url()),
            ("MARVIN_TOOL_TIMEOUT", "1".to_string()),
        ],
    );
    assert_eq!(
        results[0],
        "Error: Wikipedia request timed out after 1s. Try again or rephrase query."
    );
}
