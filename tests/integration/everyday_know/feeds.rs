//! read_rss against feeds served locally: the recorded RSS 2.0 and Atom feeds, an empty feed,
//! an error status, a web page that names its feed, a server that never answers.

use super::{Silent, recorded, reply, run};
use crate::common::tools::allow_loopback;
use crate::common::{ReplayServer, Reply, TempDir};

/// What read_rss returned for `args` (a JSON object after `"url": ROOT/feed`) with a server
/// replaying `answer` at ROOT.
fn read(extra: &str, answer: Reply) -> String {
    let home = TempDir::new("feeds");
    let server = ReplayServer::start(vec![answer]);
    let args = format!(r#"{{"url": "{}/feed"{extra}}}"#, server.root());
    let results = run(&home, &[("1", "read_rss", &args)], &[allow_loopback()]);
    assert_eq!(server.requests()[0].url, "/feed");
    results[0].clone()
}

#[test]
fn an_rss_feed_is_read_newest_first_with_plain_text() {
    let text = read(
        "",
        recorded(200, "application/rss+xml", "rss2_huffpost_canada.xml"),
    );
    assert!(
        text.starts_with("HuffPost Canada - Athena2 - All Posts — 2 entries, the newest 2:\n\n1. Winnipeg High School Orders Custom Hijabs For Muslim Athletes (2017-10-17 22:17 UTC)\n   http://www.huffingtonpost.ca/2017/10/17/winnipeg-high-school-orders-custom-hijabs-for-musl"),
        "{text}"
    );
    assert!(text.contains("\n   By Canadian Press\n   Winnipeg high school student Nusaybah Mohamed's basketball uniform"), "{text}");
    assert!(text.contains("\n2. "), "{text}");
    assert!(text.contains("(2017-10-17 21:38 UTC)"), "{text}");
    assert!(!text.contains('<'), "{text}");
    assert!(!text.contains("CDATA"), "{text}");
}

#[test]
fn an_atom_feed_is_cut_at_the_limit_with_its_links_unwrapped() {
    let text = read(
        r#", "limit": 3"#,
        recorded(200, "application/atom+xml", "atom_google_alerts.xml"),
    );
    assert!(
        text.starts_with("Google Alert - Slack — 20 entries, the newest 3:\n\n1. Report offers Prediction of Automotive Slack Market by Top key players like Haldex, Meritor, Bendix ... (2019-07-10 11:53 UTC)\n   https://www.aglobalmarketresearch.com/report-offers-prediction-"),
        "{text}"
    );
    assert!(!text.contains("google.com/url"), "{text}");
    assert!(!text.contains("&nbsp;") && !text.contains("<b>"), "{text}");
    assert!(text.contains("\n3. "), "{text}");
    assert!(!text.contains("\n4. "), "{text}");
}

#[test]
fn empty_feeds_error_statuses_pages_and_silence_are_told_apart() {
    // A minimal RSS 2.0 channel without items, as the RSS 2.0 specification allows.
    let empty = read(
        "",
        reply(
            200,
            "application/rss+xml",
            r#"<?xml version="1.0"?><rss version="2.0"><channel><title>Quiet blog</title><link>https://quiet.example/</link><description>Nothing yet</description></channel></rss>"#,
        ),
    );
    assert_eq!(empty, "The feed \"Quiet blog\" has no entries.");
    let missing = read(
        "",
        reply(404, "text/html", "<html><body>Not Found</body></html>"),
    );
    assert_eq!(
        missing,
        "Error: 127.0.0.1 answered HTTP 404 for the feed. Check the address, or try again later."
    );
    let page = read(
        "",
        reply(
            200,
            "text/html; charset=utf-8",
            r#"<!DOCTYPE html><html><head><link rel="alternate" type="application/atom+xml" href="/atom.xml"></head><body>Blog</body></html>"#,
        ),
    );
    assert!(
        page.starts_with("Error: http://127.0.0.1:")
            && page.contains(
                "/feed is a web page, not a feed; the page names its feed: http://127.0.0.1:"
            ),
        "{page}"
    );
    assert!(
        page.ends_with("/atom.xml (call read_rss with that address)."),
        "{page}"
    );
    let json = read("", reply(200, "application/json", r#"{"items": []}"#));
    assert!(json.contains("/feed is not a feed that can be read: it is neither an RSS nor an Atom feed. Check the address."), "{json}");
    let home = TempDir::new("feeds-timeout");
    let silent = Silent::start();
    let args = format!(r#"{{"url": "{}/feed"}}"#, silent.url());
    let results = run(
        &home,
        &[("1", "read_rss", &args)],
        &[("MARVIN_TOOL_TIMEOUT", "1".to_string()), allow_loopback()],
    );
    assert_eq!(
        results[0],
        "Error: 127.0.0.1 request timed out after 1s. Try again or rephrase query."
    );
}
