//! Bookmarks of the active profile (kept by `store::bookmarks`): `bookmark_save`,
//! `bookmark_list`, `bookmark_search`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::store::bookmarks::{self, Bookmark};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

/// Bookmarks shown by one call unless it asks for another number.
const DEFAULT_SHOWN: i64 = 50;
const MAX_SHOWN: i64 = 500;

const SAVE_PARAMS: &[Param] = &[
    Param::required("url", Kind::String, "The address (http:// or https://)"),
    Param::optional(
        "title",
        Kind::String,
        "What to call it (default: the address)",
    ),
    Param::optional(
        "tags",
        Kind::StringList,
        "Words to find it by, e.g. [\"recipes\", \"italian\"]",
    ),
    Param::optional("notes", Kind::String, "Anything worth remembering about it"),
];
const LIST_PARAMS: &[Param] = &[
    Param::optional("tag", Kind::String, "Only bookmarks with this tag"),
    Param::optional(
        "limit",
        Kind::Integer,
        "How many to show, newest first (default 50)",
    ),
];
const SEARCH_PARAMS: &[Param] = &[
    Param::required(
        "query",
        Kind::String,
        "Words that must all appear in the title, address, tags or notes (any case)",
    ),
    Param::optional("limit", Kind::Integer, "How many to show (default 50)"),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "bookmarks",
    about: "saved links",
    words: &[
        "bookmark",
        "bookmarks",
        "save this link",
        "save the link",
        "read later",
        "saved link",
    ],
    asks: &[
        "save this link for later",
        "bookmark that article",
        "find the link I saved about",
        "show my saved links",
        "remove that bookmark",
        "dig out the page I stored",
        "keep this url to read later",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("bookmark_save")
            .describe("Save a web page to the user's bookmarks (saving an address again updates it). Use when the user wants to keep a link for later.")
            .offered(Offered::Everywhere)
            .writes()
            .params(SAVE_PARAMS)
            .example(r#"{"url": "https://doc.rust-lang.org/book/", "title": "The Rust Book", "tags": ["rust", "docs"]}"#)
            .handler(bookmark_save),
        ToolDef::build("bookmark_list")
            .describe("List the user's bookmarks, newest first, optionally only those with a tag.")
            .offered(Offered::Everywhere)
            .params(LIST_PARAMS)
            .example(r#"{"tag": "rust"}"#)
            .handler(bookmark_list),
        ToolDef::build("bookmark_search")
            .describe("Find bookmarks whose title, address, tags or notes contain all the given words.")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "rust book"}"#)
            .handler(bookmark_search),
    ]
}

fn profile_dir(ctx: &ToolContext) -> Result<PathBuf, String> {
    ctx.shared
        .profile_dir()
        .ok_or_else(|| "There is no profile to keep bookmarks in (no MARVIN_HOME).".to_string())
}

#[derive(Deserialize)]
struct SaveArgs {
    url: String,
    title: Option<String>,
    tags: Option<Vec<String>>,
    notes: Option<String>,
}

fn bookmark_save(args: SaveArgs, ctx: &ToolContext) -> Result<String, String> {
    let url = args.url.trim().to_string();
    check_url(&url)?;
    let dir = profile_dir(ctx)?;
    let _held = bookmarks::hold(&dir)
        .map_err(|e| format!("Cannot lock the bookmarks in {}: {e}.", dir.display()))?;
    let mut list = bookmarks::load(&dir, &ctx.shared.warnings);
    let title = args
        .title
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| url.clone());
    let mut tags: Vec<String> = Vec::new();
    for tag in args.tags.unwrap_or_default() {
        let tag = tag.trim().to_lowercase();
        if !tag.is_empty() && !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    let notes = args
        .notes
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty());
    let updated = list.iter().any(|b| b.url == url);
    list.retain(|b| b.url != url);
    list.push(Bookmark {
        url: url.clone(),
        title: title.clone(),
        tags,
        notes,
        saved: crate::clock::iso8601(std::time::SystemTime::now()),
    });
    save(&dir, &list)?;
    Ok(format!(
        "{} the bookmark '{title}' ({url}); {} saved in all.",
        if updated { "Updated" } else { "Saved" },
        list.len()
    ))
}

/// An address a browser opens: http or https, a host, no spaces.
fn check_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !url.chars().any(char::is_whitespace) => Ok(()),
        _ => Err(format!(
            "'{url}' is not a web address: give the full address, starting with https:// or http://."
        )),
    }
}

fn save(dir: &Path, list: &[Bookmark]) -> Result<(), String> {
    bookmarks::save(dir, list).map_err(|unsaved| {
        format!(
            "Cannot save the bookmarks to {}: {}.",
            unsaved.path.display(),
            unsaved.error
        )
    })
}

#[derive(Deserialize)]
struct ListArgs {
    tag: Option<String>,
    limit: Option<i64>,
}

fn bookmark_list(args: ListArgs, ctx: &ToolContext) -> Result<String, String> {
    let limit = limit(args.limit)?;
    let list = bookmarks::load(&profile_dir(ctx)?, &ctx.shared.warnings);
    if list.is_empty() {
        return Ok("No bookmarks saved yet.".into());
    }
    let tag = args
        .tag
        .map(|t| t.trim().to_lowercase())
        .filter(|t| !t.is_empty());
    let chosen: Vec<&Bookmark> = list
        .iter()
        .rev()
        .filter(|b| tag.as_ref().is_none_or(|t| b.tags.contains(t)))
        .collect();
    if chosen.is_empty() {
        return Ok(format!(
            "No bookmark is tagged '{}'. Tags in use: {}.",
            tag.unwrap_or_default(),
            tags_in_use(&list)
        ));
    }
    Ok(describe(&chosen, limit))
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    limit: Option<i64>,
}

fn bookmark_search(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let limit = limit(args.limit)?;
    let words: Vec<String> = args
        .query
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        return Err("The query is empty: give words to look for.".into());
    }
    let list = bookmarks::load(&profile_dir(ctx)?, &ctx.shared.warnings);
    let found: Vec<&Bookmark> = list.iter().rev().filter(|b| matches(b, &words)).collect();
    if found.is_empty() {
        return Ok(format!(
            "No bookmark matches '{}' ({} saved).",
            args.query.trim(),
            list.len()
        ));
    }
    Ok(describe(&found, limit))
}

fn limit(asked: Option<i64>) -> Result<usize, String> {
    let limit = asked.unwrap_or(DEFAULT_SHOWN);
    if (1..=MAX_SHOWN).contains(&limit) {
        Ok(limit as usize)
    } else {
        Err(format!(
            "limit must be between 1 and {MAX_SHOWN}, not {limit}."
        ))
    }
}

/// Whether every word appears in the bookmark's title, address, tags or notes (any case).
fn matches(bookmark: &Bookmark, words: &[String]) -> bool {
    let text = format!(
        "{}\n{}\n{}\n{}",
        bookmark.title,
        bookmark.url,
        bookmark.tags.join(" "),
        bookmark.notes.as_deref().unwrap_or_default()
    )
    .to_lowercase();
    words.iter().all(|word| text.contains(word.as_str()))
}

fn tags_in_use(list: &[Bookmark]) -> String {
    let mut tags: Vec<&str> = list
        .iter()
        .flat_map(|b| b.tags.iter().map(String::as_str))
        .collect();
    tags.sort_unstable();
    tags.dedup();
    if tags.is_empty() {
        "none".into()
    } else {
        tags.join(", ")
    }
}

/// One line per bookmark, at most `limit`, with a line saying how many more there are.
fn describe(list: &[&Bookmark], limit: usize) -> String {
    let mut lines: Vec<String> = list
        .iter()
        .take(limit)
        .map(|b| {
            let tags = if b.tags.is_empty() {
                String::new()
            } else {
                format!(" [{}]", b.tags.join(", "))
            };
            let notes = b
                .notes
                .as_deref()
                .map(|n| format!(" — {n}"))
                .unwrap_or_default();
            let day = b.saved.get(..10).unwrap_or("unknown");
            format!("- {} — {}{tags} (saved {day}){notes}", b.title, b.url)
        })
        .collect();
    if list.len() > limit {
        lines.push(format!(
            "[{} more not shown: raise limit or narrow the search]",
            list.len() - limit
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(title: &str, url: &str, tags: &[&str], notes: Option<&str>) -> Bookmark {
        Bookmark {
            url: url.into(),
            title: title.into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            notes: notes.map(str::to_string),
            saved: "2026-03-04T05:06:07Z".into(),
        }
    }

    #[test]
    fn searching_needs_every_word_in_any_field_in_any_case() {
        let book = mark(
            "The Rust Book",
            "https://doc.rust-lang.org/book/",
            &["docs"],
            Some("chapter 8 on collections"),
        );
        let cases: &[(&str, bool)] = &[
            ("rust", true),
            ("RUST book", true),
            ("docs collections", true),
            ("doc.rust-lang.org", true),
            ("rust python", false),
            ("chapter 9", false),
        ];
        for (query, expected) in cases {
            let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
            assert_eq!(matches(&book, &words), *expected, "{query}");
        }
    }

    #[test]
    fn addresses_must_be_web_addresses() {
        for (url, ok) in [
            ("https://example.org", true),
            ("http://localhost:8080/x", true),
            ("example.org", false),
            ("https://", false),
            ("javascript:alert(1)", false),
            ("https://a b", false),
        ] {
            assert_eq!(check_url(url).is_ok(), ok, "{url}");
        }
    }

    #[test]
    fn lists_are_cut_at_the_limit_and_say_how_many_more() {
        let a = mark("A", "https://a.example", &[], None);
        let b = mark("B", "https://b.example", &["x", "y"], Some("note"));
        assert_eq!(
            describe(&[&b, &a], 1),
            "- B — https://b.example [x, y] (saved 2026-03-04) — note\n[1 more not shown: raise limit or narrow the search]"
        );
        assert_eq!(tags_in_use(&[a, b]), "x, y");
        assert!(limit(Some(0)).is_err());
        assert_eq!(limit(None), Ok(50));
    }
}
