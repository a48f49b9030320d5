//! News articles from GNews, NewsAPI and DuckDuckGo news read into one shape, merged: the
//! same address once, newest first.

use serde_json::Value;

use crate::tools::kit::html;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Article {
    pub(crate) title: String,
    pub(crate) url: String,
    pub(crate) source: String,
    pub(crate) summary: String,
    /// Seconds since 1970, when the service said.
    pub(crate) published: Option<i64>,
}

/// What one source gave: its articles, and how many it says it found in all (GNews and
/// NewsAPI say; it may be more than they sent).
pub(crate) struct Found {
    pub(crate) articles: Vec<Article>,
    pub(crate) total: Option<u64>,
}

/// GNews `/api/v4/search`: `{"totalArticles", "articles": [{title, description, url,
/// publishedAt, source: {name}}]}`.
pub(crate) fn gnews(value: &Value) -> Found {
    let articles = articles(value, "/articles", |item| Article {
        title: text(item, "/title"),
        url: text(item, "/url"),
        source: text(item, "/source/name"),
        summary: text(item, "/description"),
        published: item["publishedAt"].as_str().and_then(parse_iso8601),
    });
    Found {
        articles,
        total: value["totalArticles"].as_u64(),
    }
}

/// NewsAPI `/v2/everything` (and `/v2/top-headlines`, the same shape): `{"status": "ok",
/// "totalResults", "articles": [{source: {id, name}, author, title, description, url,
/// urlToImage, publishedAt, content}]}`, where `id`, `author`, `description`, `urlToImage` and
/// `content` may be null; removed articles come as `[Removed]`. Titles end in
/// " - <publisher>", which is the only place that names the publisher of an article that
/// came through Google News.
pub(crate) fn newsapi(value: &Value) -> Found {
    let mut list = articles(value, "/articles", |item| {
        let aggregated = item.pointer("/source/id").and_then(Value::as_str) == Some("google-news");
        let (title, source) = publisher(
            &text(item, "/title"),
            &text(item, "/source/name"),
            aggregated,
        );
        Article {
            title,
            url: text(item, "/url"),
            source,
            summary: text(item, "/description"),
            published: item["publishedAt"].as_str().and_then(parse_iso8601),
        }
    });
    list.retain(|a| a.title != "[Removed]" && !a.url.contains("removed.com"));
    Found {
        articles: list,
        total: value["totalResults"].as_u64(),
    }
}

/// A title without its " - <publisher>" suffix, and the publisher: the source itself when the
/// suffix names it; the suffix, "via" the source, when the source is an aggregator.
fn publisher(title: &str, source: &str, aggregated: bool) -> (String, String) {
    match title
        .rsplit_once(" - ")
        .map(|(head, tail)| (head.trim(), tail.trim()))
    {
        Some((head, tail)) if aggregated && !head.is_empty() && !tail.is_empty() => {
            (head.to_string(), format!("{tail} (via {source})"))
        }
        Some((head, tail)) if !head.is_empty() && tail.eq_ignore_ascii_case(source) => {
            (head.to_string(), source.to_string())
        }
        _ => (title.to_string(), source.to_string()),
    }
}

/// DuckDuckGo `news.js`: `{"results": [{date (seconds), title, excerpt (HTML), url,
/// source}]}`.
pub(crate) fn ddg(value: &Value) -> Found {
    let articles = articles(value, "/results", |item| Article {
        title: html::line(&text(item, "/title")),
        url: text(item, "/url"),
        source: text(item, "/source"),
        summary: html::line(&text(item, "/excerpt")),
        published: item["date"].as_i64(),
    });
    Found {
        articles,
        total: None,
    }
}

fn articles(value: &Value, at: &str, read: impl Fn(&Value) -> Article) -> Vec<Article> {
    value
        .pointer(at)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(read)
                .filter(|a| !a.url.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

fn text(item: &Value, at: &str) -> String {
    item.pointer(at)
        .and_then(Value::as_str)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Every source's articles in one list: each address once (the first source's copy kept),
/// newest first, undated ones last.
pub(crate) fn merge(sources: Vec<Vec<Article>>) -> Vec<Article> {
    let mut merged: Vec<Article> = Vec::new();
    for article in sources.into_iter().flatten() {
        let key = url_key(&article.url);
        if !merged.iter().any(|a| url_key(&a.url) == key) {
            merged.push(article);
        }
    }
    merged.sort_by_key(|a| std::cmp::Reverse(a.published.unwrap_or(i64::MIN)));
    merged
}

/// An address as compared for duplicates: no scheme, `www.` or fragment, no trailing `/`,
/// the host in lower case.
fn url_key(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.split('#').next().unwrap_or_default();
    let (host, path) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let host = host.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    format!("{host}{}", path.trim_end_matches('/'))
}

/// `2024-01-15T10:30:00Z`, with optional fractions and a `+02:00` offset, as seconds since
/// 1970.
pub(crate) fn parse_iso8601(text: &str) -> Option<i64> {
    let text = text.trim();
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute) = (number(11..13).unwrap_or(0), number(14..16).unwrap_or(0));
    let second = number(17..19).unwrap_or(0);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let days = crate::clock::days_from_civil(year, month as u32, day as u32);
    let mut seconds = days * 86_400 + hour * 3600 + minute * 60 + second;
    let zone = text.get(19..).unwrap_or_default();
    let zone = zone.trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    if let Some(sign) = zone.chars().next().filter(|c| *c == '+' || *c == '-') {
        let digits: String = zone[1..].chars().filter(char::is_ascii_digit).collect();
        let hours: i64 = digits.get(0..2).and_then(|h| h.parse().ok()).unwrap_or(0);
        let minutes: i64 = digits.get(2..4).and_then(|m| m.parse().ok()).unwrap_or(0);
        let offset = hours * 3600 + minutes * 60;
        seconds += if sign == '+' { -offset } else { offset };
    }
    Some(seconds)
}

/// Seconds since 1970 as `2024-01-15 10:30 UTC`.
pub(crate) fn when(seconds: i64) -> String {
    let (year, month, day) = crate::clock::civil_from_days(seconds.div_euclid(86_400));
    let rest = seconds.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dates_are_read() {
        let cases: &[(&str, Option<i64>)] = &[
            ("1970-01-01T00:00:00Z", Some(0)),
            ("2024-01-15T10:30:00Z", Some(1_705_314_600)),
            ("2024-01-15T10:30:00.123Z", Some(1_705_314_600)),
            ("2024-01-15T12:30:00+02:00", Some(1_705_314_600)),
            ("2024-01-15T05:00:00-0530", Some(1_705_314_600)),
            ("2024-01-15", Some(1_705_276_800)),
            ("yesterday", None),
            ("2024-13-01T00:00:00Z", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_iso8601(text), *expected, "{text}");
        }
        assert_eq!(when(1_705_314_600), "2024-01-15 10:30 UTC");
    }

    #[test]
    fn sources_merge_newest_first_without_duplicates() {
        let gnews = gnews(&json!({"totalArticles": 2, "articles": [
            {"title": "G old", "description": "d", "url": "https://a.org/x", "publishedAt": "2024-01-01T00:00:00Z", "source": {"name": "A"}},
            {"title": "G new", "description": "", "url": "https://www.b.org/y/", "publishedAt": "2024-03-01T00:00:00Z", "source": {"name": "B"}}
        ]}));
        let newsapi = newsapi(&json!({"status": "ok", "totalResults": 3, "articles": [
            {"source": {"id": null, "name": "B"}, "title": "N dup", "url": "https://b.org/y", "publishedAt": "2024-03-01T00:00:00Z"},
            {"source": {"name": null}, "title": "[Removed]", "url": "https://removed.com", "publishedAt": "1970-01-01T00:00:00Z"},
            {"source": {"name": "C"}, "title": "N mid", "url": "https://c.org/z", "publishedAt": "2024-02-01T00:00:00Z"}
        ]}));
        let ddg = ddg(&json!({"results": [
            {"date": 1_717_200_000, "title": "D &amp; newest", "excerpt": "<b>x</b> y", "url": "https://d.org/", "source": "D"},
            {"title": "D undated", "url": "https://e.org/"}
        ]}));
        assert_eq!(
            (gnews.total, newsapi.total, ddg.total),
            (Some(2), Some(3), None)
        );
        let merged = merge(vec![gnews.articles, newsapi.articles, ddg.articles]);
        let titles: Vec<&str> = merged.iter().map(|a| a.title.as_str()).collect();
        assert_eq!(
            titles,
            ["D & newest", "G new", "N mid", "G old", "D undated"]
        );
        assert_eq!(merged[0].summary, "x y");
        assert_eq!(merged[1].source, "B");
    }

    #[test]
    fn a_title_s_publisher_suffix_names_the_publisher() {
        let cases = [
            (
                "Story - New York Post",
                "Google News",
                true,
                "Story",
                "New York Post (via Google News)",
            ),
            (
                "Story - New York Post",
                "New York Post",
                false,
                "Story",
                "New York Post",
            ),
            (
                "A - B - The Times",
                "the times",
                false,
                "A - B",
                "the times",
            ),
            (
                "Story - Elsewhere",
                "New York Post",
                false,
                "Story - Elsewhere",
                "New York Post",
            ),
            ("No suffix", "Google News", true, "No suffix", "Google News"),
            (" - Post", "Google News", true, " - Post", "Google News"),
        ];
        for (title, source, aggregated, shown, by) in cases {
            assert_eq!(
                publisher(title, source, aggregated),
                (shown.to_string(), by.to_string()),
                "{title}"
            );
        }
    }
}
