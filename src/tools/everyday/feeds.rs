//! News feeds: `read_rss` reads an RSS (2.0, 1.0) or Atom feed at any address (through
//! `Web::open`, which asks before an address of the person's own network, parsed by
//! `kit::feed`) and lists its entries newest first.

use serde::Deserialize;

use crate::net;
use crate::tools::kit::feed::{self, Entry, Feed};
use crate::tools::kit::reach::Reach;
use crate::tools::kit::web::{Fetched, percent_decode};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const DEFAULT_LIMIT: u64 = 10;
const MAX_LIMIT: u64 = 50;
/// How much of an entry's summary a result shows.
const SUMMARY_CHARS: usize = 300;

const PARAMS: &[Param] = &[
    Param::required(
        "url",
        Kind::String,
        "The feed's address (http:// or https://), e.g. https://example.org/feed.xml",
    ),
    Param::optional(
        "limit",
        Kind::Integer,
        "How many entries, newest first (1-50, default 10)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "feeds",
    about: "RSS and Atom feeds, podcasts",
    words: &["rss", "feed", "atom", "podcast", "episode", "blog"],
    asks: &[
        "read this rss feed",
        "latest episodes of the podcast",
        "what's new on this blog",
        "subscribe to a feed",
        "atom feed of the site",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("read_rss")
            .describe("Read an RSS or Atom feed (news, blogs, podcasts, alerts): its latest entries, newest first, with date, link and summary. Use it when the user gives a feed's address or wants a site's latest posts.")
            .offered(Offered::Everywhere)
            .params(PARAMS)
            .example(r#"{"url": "https://blog.rust-lang.org/feed.xml", "limit": 5}"#)
            .handler(read_rss),
    ]
}

#[derive(Deserialize)]
struct Args {
    url: String,
    limit: Option<u64>,
}

fn read_rss(args: Args, ctx: &ToolContext) -> Result<String, String> {
    let url = args.url.trim();
    if !(url.starts_with("https://") || url.starts_with("http://")) || url.contains(' ') {
        return Err(format!(
            "'{url}' is not a feed's address: give the full address, starting with https:// or http://."
        ));
    }
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(format!(
            "limit must be between 1 and {MAX_LIMIT}, not {limit}."
        ));
    }
    let fetched = ctx
        .settings
        .web
        .open(url, &Reach::new(ctx, "read_rss"), &ctx.cancel)?;
    let (feed, unread) = read_feed(url, &fetched)?;
    let mut out = describe(url, feed, limit as usize);
    if let Some(label) = unread {
        out.push_str(&format!(
            "\n\nNote: the feed says it is in {label}, which Marvin does not read; some characters may be wrong."
        ));
    }
    Ok(out)
}

/// The feed in an answer, or a sentence: an error status, a web page (naming the feed it
/// advertises, if it does), a document that is not a feed. With the feed, the charset it
/// declares when Marvin cannot read that one.
fn read_feed(url: &str, fetched: &Fetched) -> Result<(Feed, Option<String>), String> {
    let host = net::host_of(url);
    let shown = net::without_userinfo(url);
    if !fetched.is_success() {
        return Err(format!(
            "{host} answered HTTP {} for the feed. Check the address, or try again later.",
            fetched.status
        ));
    }
    let (text, unread) = feed::decode(&fetched.body, fetched.content_type.as_deref());
    match feed::parse(&text) {
        Ok(feed) => Ok((feed, unread)),
        Err(_) if looks_like_html(fetched.content_type.as_deref(), &text) => {
            Err(match advertised_feed(&shown, &text) {
                Some(feed) => format!(
                    "{shown} is a web page, not a feed; the page names its feed: {feed} (call read_rss with that address)."
                ),
                None => format!(
                    "{shown} is a web page, not a feed, and names none. Look for the site's RSS or Atom address (often /feed, /rss or /atom.xml), or use browse_web to read the page."
                ),
            })
        }
        Err(why) => Err(format!(
            "{shown} is not a feed that can be read: {why}. Check the address."
        )),
    }
}

fn looks_like_html(content_type: Option<&str>, text: &str) -> bool {
    let start: String = text.chars().take(1024).collect::<String>().to_lowercase();
    content_type.is_some_and(|t| t.to_ascii_lowercase().contains("html"))
        || start.contains("<!doctype html")
        || start.contains("<html")
}

/// The address of the first `<link rel="alternate">` of an RSS or Atom type in a page.
fn advertised_feed(page: &str, html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("<link") {
        let start = from + at;
        let end = start + lower[start..].find('>')?;
        let tag = &lower[start..end];
        from = end;
        let is_feed = tag.contains("alternate")
            && (tag.contains("application/rss+xml") || tag.contains("application/atom+xml"));
        if !is_feed {
            continue;
        }
        let href_at = tag.find("href=")? + 5;
        let raw = &html[start + href_at..end];
        let quote = raw.chars().next().filter(|c| *c == '"' || *c == '\'');
        let href = match quote {
            Some(q) => raw[1..].split(q).next().unwrap_or(""),
            // Unquoted: up to the next space, without the slash of a self-closing tag.
            None => {
                let token = raw.split_whitespace().next().unwrap_or("");
                match token.strip_suffix('/') {
                    Some(bare) if token.len() == raw.trim_end().len() => bare,
                    _ => token,
                }
            }
        };
        return Some(absolute(page, &feed::decode_entities(href)));
    }
    None
}

/// `href` made absolute against the page it is on (`/feed`, `//host/feed`, `feed.xml`).
fn absolute(page: &str, href: &str) -> String {
    if href.starts_with("http://") || href.starts_with("https://") {
        return href.to_string();
    }
    let (scheme, rest) = page.split_once("://").unwrap_or(("https", page));
    if let Some(network) = href.strip_prefix("//") {
        return format!("{scheme}://{network}");
    }
    let origin_end = rest.find('/').unwrap_or(rest.len());
    let origin = format!("{scheme}://{}", &rest[..origin_end]);
    if href.starts_with('/') {
        return format!("{origin}{href}");
    }
    let path = &rest[origin_end..];
    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    format!("{origin}{dir}/{href}")
}

/// The feed's title, then its entries, newest first (those without a date last, in the
/// feed's order), at most `limit`.
fn describe(url: &str, mut feed: Feed, limit: usize) -> String {
    let title = if feed.title.is_empty() {
        url.to_string()
    } else {
        feed.title.clone()
    };
    if feed.entries.is_empty() {
        return format!("The feed \"{title}\" has no entries.");
    }
    let total = feed.entries.len();
    // Stable: entries of one date, and those without any, keep the feed's order.
    feed.entries
        .sort_by_key(|entry| std::cmp::Reverse(entry.date().unwrap_or(i64::MIN)));
    let shown = total.min(limit);
    let mut out = format!("{title} — {total} entries, the newest {shown}:\n");
    for (n, entry) in feed.entries.iter().take(shown).enumerate() {
        out.push_str(&describe_entry(n + 1, entry));
    }
    out
}

fn describe_entry(n: usize, entry: &Entry) -> String {
    let title = if entry.title.is_empty() {
        "(untitled)"
    } else {
        entry.title.as_str()
    };
    let when = entry.date().map(when).unwrap_or_default();
    let mut out = format!("\n{n}. {title}{when}\n");
    if !entry.link.is_empty() {
        out.push_str(&format!("   {}\n", unwrap_redirect(&entry.link)));
    }
    if !entry.authors.is_empty() {
        out.push_str(&format!("   By {}\n", entry.authors.join(", ")));
    }
    let summary = if entry.summary.is_empty() {
        &entry.content
    } else {
        &entry.summary
    };
    let summary = feed::collapse(summary);
    if !summary.is_empty() {
        out.push_str(&format!("   {}\n", cut(&summary, SUMMARY_CHARS)));
    }
    out
}

/// ` (2017-10-17 22:17 UTC)`.
fn when(seconds: i64) -> String {
    let (year, month, day) = crate::clock::civil_from_days(seconds.div_euclid(86_400));
    let rest = seconds.rem_euclid(86_400);
    format!(
        " ({year:04}-{month:02}-{day:02} {:02}:{:02} UTC)",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// The target of a Google redirect (`https://www.google.com/url?…&url=TARGET&…`, what Google
/// Alerts feeds link to); any other link as it is.
fn unwrap_redirect(link: &str) -> String {
    let Some(query) = link
        .strip_prefix("https://www.google.com/url?")
        .or_else(|| link.strip_prefix("http://www.google.com/url?"))
    else {
        return link.to_string();
    };
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("url="))
        .map(percent_decode)
        .filter(|target| target.starts_with("http"))
        .unwrap_or_else(|| link.to_string())
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", text[..at].trim_end()),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn google_redirects_are_unwrapped() {
        let cases: &[(&str, &str)] = &[
            (
                "https://www.google.com/url?rct=j&sa=t&url=https://x.example/a%3Fb%3D1&ct=ga",
                "https://x.example/a?b=1",
            ),
            (
                "https://www.google.com/url?q=1",
                "https://www.google.com/url?q=1",
            ),
            ("https://x.example/url?url=y", "https://x.example/url?url=y"),
            (
                "https://www.google.com/url?url=javascript:x",
                "https://www.google.com/url?url=javascript:x",
            ),
        ];
        for (link, expected) in cases {
            assert_eq!(unwrap_redirect(link), *expected, "{link}");
        }
    }

    #[test]
    fn a_page_names_its_feed() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            (
                "https://blog.example/posts/",
                r#"<head><link rel="alternate" type="application/rss+xml" title="RSS" href="/feed.xml"></head>"#,
                Some("https://blog.example/feed.xml"),
            ),
            (
                "https://blog.example/posts/index.html",
                r#"<LINK REL='alternate' TYPE='application/atom+xml' HREF='atom.xml?a=1&amp;b=2'>"#,
                Some("https://blog.example/posts/atom.xml?a=1&b=2"),
            ),
            (
                "http://blog.example",
                r#"<link rel="stylesheet" href="/a.css"><link rel="alternate" type="application/rss+xml" href="//feeds.example/x">"#,
                Some("http://feeds.example/x"),
            ),
            (
                "https://blog.example/",
                r#"<link rel=alternate type=application/rss+xml href=/rss/>"#,
                Some("https://blog.example/rss"),
            ),
            (
                "https://blog.example/",
                r#"<link rel=alternate type=application/rss+xml href=/rss/ title=x>"#,
                Some("https://blog.example/rss/"),
            ),
            (
                "https://blog.example/",
                r#"<link rel="alternate" hreflang="fr" href="https://blog.example/fr/">"#,
                None,
            ),
        ];
        for (page, html, expected) in cases {
            assert_eq!(advertised_feed(page, html).as_deref(), *expected, "{html}");
        }
    }

    #[test]
    fn answers_that_are_not_feeds_are_told_without_credentials() {
        let fetched = |status, content_type: &str, body: &str| Fetched {
            status,
            content_type: Some(content_type.into()),
            body: body.as_bytes().to_vec(),
            retry_after: None,
        };
        let url = "https://ann:hunter2@feeds.example/news";
        let cases: &[(Fetched, &str)] = &[
            (
                fetched(503, "text/plain", "busy"),
                "feeds.example answered HTTP 503 for the feed.",
            ),
            (
                fetched(200, "text/html", "<html><p>Hi</p></html>"),
                "https://feeds.example/news is a web page, not a feed, and names none.",
            ),
            (
                fetched(
                    200,
                    "text/plain",
                    "<!DOCTYPE html><html><head><link rel=\"alternate\" type=\"application/rss+xml\" href=\"rss.xml\"></head></html>",
                ),
                "the page names its feed: https://feeds.example/rss.xml",
            ),
            (
                fetched(200, "application/xml", "<rss><channel>"),
                "https://feeds.example/news is not a feed that can be read: it ends before its elements do",
            ),
        ];
        for (answer, said) in cases {
            let error = read_feed(url, answer).unwrap_err();
            assert!(error.contains(said), "{error}");
        }
    }

    #[test]
    fn entries_come_newest_first_and_undated_last() {
        let entry = |title: &str, published: &str| Entry {
            title: title.into(),
            published: published.into(),
            ..Entry::default()
        };
        let feed = Feed {
            title: "T".into(),
            total_results: None,
            entries: vec![
                entry("old", "Mon, 16 Oct 2017 10:00:00 +0000"),
                entry("undated", ""),
                entry("new", "2017-10-18T09:30:00+02:00"),
                entry("middle", "Tue, 17 Oct 2017 22:17:00 GMT"),
            ],
        };
        let text = describe("https://x", feed, 3);
        assert_eq!(
            text,
            "T — 4 entries, the newest 3:\n\n1. new (2017-10-18 07:30 UTC)\n\n2. middle (2017-10-17 22:17 UTC)\n\n3. old (2017-10-16 10:00 UTC)\n"
        );
    }
}
