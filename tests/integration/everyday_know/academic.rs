//! search_papers against a replayed Semantic Scholar and search_arxiv against a replayed arXiv:
//! results, nothing found, the service's own error, a web page instead of data, a timeout.

use super::{Silent, portal, recorded, reply, run};
use crate::common::{ReplayServer, Reply, TempDir};

/// What one call of `tool` returned, with `variable` pointing at a server replaying `answer`,
/// and the URL the server was asked.
fn ask(tool: &str, args: &str, variable: &str, answer: Reply) -> (String, String) {
    let home = TempDir::new("academic");
    let service = ReplayServer::start(vec![answer]);
    let results = run(&home, &[("1", tool, args)], &[(variable, service.root())]);
    let asked = service.requests()[0].url.clone();
    (results[0].clone(), asked)
}

fn timed_out(tool: &str, args: &str, variable: &str) -> String {
    let home = TempDir::new("academic-timeout");
    let silent = Silent::start();
    let env = [
        (variable, silent.url()),
        ("MARVIN_TOOL_TIMEOUT", "1".to_string()),
    ];
    run(&home, &[("1", tool, args)], &env)[0].clone()
}

#[test]
fn search_papers_lists_the_papers_semantic_scholar_finds() {
    let (text, asked) = ask(
        "search_papers",
        r#"{"query": "turing", "limit": 5, "year": "2010-2020"}"#,
        "SEMANTIC_SCHOLAR_URL",
        recorded(200, "application/json", "semanticscholar_paper_search.json"),
    );
    assert!(asked.starts_with("/graph/v1/paper/search?query=turing&limit=5&fields=title%2Cauthors%2Cyear%2Cvenue%2CcitationCount%2Curl&year=2010-2020"), "{asked}");
    assert!(
        text.starts_with("Semantic Scholar: 70,499 papers match \"turing\"; the first 5:\n"),
        "{text}"
    );
    assert!(text.contains("\n1. Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B, A Large-Scale Generative Language Model\n   https://www.semanticscholar.org/paper/7cbc2a7843411a1768ab762930707af0a3c33a19\n"), "{text}");
    assert!(
        text.contains(
            "\n2. Quantum theory, the Church–Turing principle and the universal quantum computer\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n5. Neural Turing Machines\n   https://www.semanticscholar.org/paper/c1126fbffd6b8547a44c58b192b36b08b18299de\n"),
        "{text}"
    );
    assert!(!text.contains("\n6. "), "{text}");
}

#[test]
fn search_papers_says_what_semantic_scholar_refused_or_did_not_find() {
    // Built from the API's documentation: a search with no match answers a total of 0 and
    // leaves `data` out.
    let (none, _) = ask(
        "search_papers",
        r#"{"query": "zzxqv"}"#,
        "SEMANTIC_SCHOLAR_URL",
        reply(200, "application/json", r#"{"total": 0, "offset": 0}"#),
    );
    assert_eq!(
        none,
        "Semantic Scholar found no papers for \"zzxqv\". Try fewer or other keywords, or search_arxiv for preprints."
    );
    let (refused, _) = ask(
        "search_papers",
        r#"{"query": "turing"}"#,
        "SEMANTIC_SCHOLAR_URL",
        recorded(
            400,
            "application/json",
            "semanticscholar_400_bad_fields.json",
        ),
    );
    assert_eq!(
        refused,
        "Error: Semantic Scholar refused the search: Unrecognized or unsupported fields: [unknown]. Rephrase it as plain keywords (and a year such as 2019 or 2016-2020) and try again."
    );
    let (page, _) = ask(
        "search_papers",
        r#"{"query": "turing"}"#,
        "SEMANTIC_SCHOLAR_URL",
        portal(),
    );
    assert!(
        page.starts_with(
            "Error: Semantic Scholar answered with a web page instead of data (HTTP 200)"
        ),
        "{page}"
    );
    assert!(page.contains("SEMANTIC_SCHOLAR_URL"), "{page}");
    assert_eq!(
        timed_out(
            "search_papers",
            r#"{"query": "turing"}"#,
            "SEMANTIC_SCHOLAR_URL"
        ),
        "Error: Semantic Scholar request timed out after 1s. Try again or rephrase query."
    );
}

#[test]
fn search_arxiv_lists_preprints_with_their_pdf() {
    let (text, asked) = ask(
        "search_arxiv",
        r#"{"query": "testing", "max_results": 10}"#,
        "ARXIV_URL",
        recorded(200, "application/atom+xml", "arxiv_search_testing.xml"),
    );
    assert_eq!(
        asked,
        "/api/query?search_query=all%3Atesting&id_list=&start=0&max_results=10&sortBy=relevance&sortOrder=descending"
    );
    assert!(
        text.starts_with("arXiv: 214,881 results for \"testing\"; the first 10:\n"),
        "{text}"
    );
    assert!(text.contains("\n1. Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques (2202.12139v1, 2022-02-24, cs.SE)\n   Authors: Mohit Kumar Ahuja, Arnaud Gotlieb, Helge Spieker\n   PDF: https://arxiv.org/pdf/2202.12139v1\n   Page: https://arxiv.org/abs/2202.12139v1\n   Summary: Deep Learning (DL) has revolutionized"), "{text}");
    assert!(text.contains("Aurora Ramírez"), "{text}");
    assert!(!text.contains("RamÃ"), "{text}");
    assert!(text.contains("\n10. "), "{text}");
    let summaries: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("   Summary: "))
        .collect();
    assert_eq!(summaries.len(), 10, "{text}");
}

#[test]
fn search_arxiv_reports_its_error_feed_no_results_a_page_and_a_timeout() {
    let (refused, _) = ask(
        "search_arxiv",
        r#"{"query": "abc"}"#,
        "ARXIV_URL",
        recorded(400, "application/atom+xml", "arxiv_400_bad_id.xml"),
    );
    assert_eq!(
        refused,
        "Error: arXiv refused the query: incorrect id format for abc. Use keywords, an id such as 2202.12139, or arXiv's syntax (ti:, au:, abs:, cat:), and try again."
    );
    let (none, asked) = ask(
        "search_arxiv",
        r#"{"query": "arXiv:0000.0000"}"#,
        "ARXIV_URL",
        recorded(200, "application/atom+xml", "arxiv_id_list_no_results.xml"),
    );
    assert!(
        asked.contains("search_query=&id_list=0000.0000&"),
        "{asked}"
    );
    assert_eq!(
        none,
        "arXiv found nothing for \"arXiv:0000.0000\". Try other or fewer keywords, or search_papers for published work."
    );
    let (page, _) = ask(
        "search_arxiv",
        r#"{"query": "testing"}"#,
        "ARXIV_URL",
        portal(),
    );
    assert!(
        page.starts_with("Error: arXiv answered with a web page instead of a feed (HTTP 200)"),
        "{page}"
    );
    assert_eq!(
        timed_out("search_arxiv", r#"{"query": "testing"}"#, "ARXIV_URL"),
        "Error: arXiv request timed out after 1s. Try again or rephrase query."
    );
}
