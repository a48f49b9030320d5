//! DuckDuckGo's HTML results page read: each result's title, address (unwrapped from the
//! `uddg=` redirect) and snippet, ads and the "EOF" pseudo-result left out, the "Next" form
//! for the following page, and whether the page is a results page at all.

use crate::tools::kit::html::{self, Tag, Token, Tokenizer};
use crate::tools::kit::web::percent_decode;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hit {
    pub(crate) title: String,
    pub(crate) url: String,
    pub(crate) snippet: String,
}

/// What one results page holds.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Page {
    pub(crate) hits: Vec<Hit>,
    /// The fields of the "Next" form, when there is a next page.
    pub(crate) next: Option<Vec<(String, String)>>,
    /// The page says there are no (more) results (`div.no-results`).
    pub(crate) no_results: bool,
    /// Any `a.result__a` at all: a page without one and without `no-results` is not a
    /// results page (a JavaScript shell, a block page).
    pub(crate) any_result_link: bool,
}

/// What is being read inside the page.
enum Capture {
    None,
    Title,
    /// A snippet, in the element of this name.
    Snippet(String),
}

/// Reads a DuckDuckGo HTML results page; `base` resolves relative links.
pub(crate) fn parse(page_html: &str, base: &str) -> Page {
    let mut reader = Reader {
        base,
        page: Page::default(),
        capture: Capture::None,
        text: String::new(),
        current: None,
        in_ad: false,
        form: None,
        form_is_next: false,
    };
    for token in Tokenizer::new(page_html) {
        match token {
            Token::Start(tag) => reader.start(&tag),
            Token::End(name) => reader.end(&name),
            Token::Text(text) => {
                if !matches!(reader.capture, Capture::None) {
                    // Text already decoded: escaped again, as it is rendered once more.
                    reader
                        .text
                        .push_str(&text.replace('&', "&amp;").replace('<', "&lt;"));
                }
            }
        }
    }
    let last = reader.current.take();
    finish(&mut reader.page, last);
    reader.page
}

struct Reader<'a> {
    base: &'a str,
    page: Page,
    capture: Capture,
    /// The markup of the title or snippet being read.
    text: String,
    current: Option<Hit>,
    /// Inside a `div.result--ad`.
    in_ad: bool,
    /// The fields of the form being read.
    form: Option<Vec<(String, String)>>,
    form_is_next: bool,
}

impl Reader<'_> {
    fn start(&mut self, tag: &Tag) {
        if tag.name == "div" && tag.has_class("result") {
            self.in_ad = tag.has_class("result--ad");
        }
        self.page.no_results |= tag.has_class("no-results");
        if tag.name == "form" {
            self.form = Some(Vec::new());
            self.form_is_next = false;
        } else if tag.name == "input" {
            read_input(tag, self.form.as_mut(), &mut self.form_is_next);
        }
        if tag.name == "a" && tag.has_class("result__a") {
            self.page.any_result_link = true;
            finish(&mut self.page, self.current.take());
            let href = tag.attr("href").unwrap_or_default();
            self.current = (!self.in_ad)
                .then(|| unwrap_url(href, self.base))
                .flatten()
                .map(|url| Hit {
                    title: String::new(),
                    url,
                    snippet: String::new(),
                });
            self.capture = Capture::Title;
            self.text.clear();
        } else if tag.has_class("result__snippet") && self.current.is_some() {
            self.capture = Capture::Snippet(tag.name.clone());
            self.text.clear();
        }
    }

    fn end(&mut self, name: &str) {
        let done = match &self.capture {
            Capture::Title => name == "a",
            Capture::Snippet(element) => element == name,
            Capture::None => false,
        };
        if done {
            let text = html::line(&self.text);
            if let Some(hit) = self.current.as_mut() {
                match self.capture {
                    Capture::Title => hit.title = text,
                    _ => hit.snippet = text,
                }
            }
            self.capture = Capture::None;
        } else if name == "form" && matches!(self.capture, Capture::None) {
            if let Some(fields) = self.form.take().filter(|_| self.form_is_next) {
                self.page.next = Some(fields);
            }
        }
    }
}

fn read_input(tag: &Tag, form: Option<&mut Vec<(String, String)>>, is_next: &mut bool) {
    let Some(fields) = form else { return };
    let kind = tag.attr("type").unwrap_or("text").to_ascii_lowercase();
    if kind == "submit" {
        *is_next |= tag.attr("value").is_some_and(|v| v.trim() == "Next");
        return;
    }
    if let Some(name) = tag.attr("name").filter(|n| !n.is_empty()) {
        let value = tag.attr("value").unwrap_or_default();
        fields.push((name.to_string(), value.to_string()));
    }
}

fn finish(page: &mut Page, hit: Option<Hit>) {
    if let Some(hit) = hit {
        if !hit.title.is_empty() && !page.hits.iter().any(|h| h.url == hit.url) {
            page.hits.push(hit);
        }
    }
}

/// A result's address as the site's own: DuckDuckGo's redirect (`//duckduckgo.com/l/?uddg=…`,
/// also relative `/l/?uddg=…`) unwrapped, a scheme-relative link given `https:`. `None` for
/// what is not a result: ad redirects and the "EOF" link to Google that ends the results.
pub(crate) fn unwrap_url(href: &str, base: &str) -> Option<String> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    let absolute = if href.starts_with("//") {
        format!("https:{href}")
    } else {
        html::resolve(base, href)
    };
    let url = match query_value(&absolute, "uddg") {
        Some(target) if is_redirect(&absolute) => percent_decode(&target),
        _ => absolute,
    };
    let lower = url.to_ascii_lowercase();
    let not_a_result = lower.contains("duckduckgo.com/y.js")
        || [
            "http://www.google.com/search?",
            "https://www.google.com/search?",
        ]
        .iter()
        .any(|eof| lower.starts_with(eof));
    (!not_a_result && (lower.starts_with("http://") || lower.starts_with("https://")))
        .then_some(url)
}

/// Whether `url`'s path is DuckDuckGo's redirect, `/l/`.
fn is_redirect(url: &str) -> bool {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = after_scheme.find('/').map_or("", |at| &after_scheme[at..]);
    path.starts_with("/l/") || path.starts_with("/l?")
}

/// The raw value of `name` in `url`'s query.
fn query_value(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1.split('#').next()?;
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| value.to_string())
    })
}

/// The `vqd` token DuckDuckGo's JavaScript pages carry (`vqd="4-…"`, `vqd='…'`, `vqd=…&`),
/// which its news endpoint asks for.
pub(crate) fn vqd(page: &str) -> Option<String> {
    page.match_indices("vqd=").find_map(|(at, _)| {
        let rest = page[at + 4..].trim_start_matches(['"', '\'']);
        let token: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        (token.len() > 2 && token.contains('-')).then_some(token)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "https://html.duckduckgo.com/html/";

    #[test]
    fn result_links_are_unwrapped() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "https://github.com/cloudwego/eino",
                Some("https://github.com/cloudwego/eino"),
            ),
            (
                "//duckduckgo.com/l/?uddg=https%3A%2F%2Fgithub.com%2Fnxpatterns%2Fgitnexus&rut=541d",
                Some("https://github.com/nxpatterns/gitnexus"),
            ),
            (
                "/l/?kh=-1&uddg=https%3A%2F%2Fexample.org%2Fa%3Fb%3D1%26c%3D%C3%A9",
                Some("https://example.org/a?b=1&c=é"),
            ),
            (
                "https://duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.apollographql.com%2Ftutorials%2Fclient%2Dside",
                Some("https://www.apollographql.com/tutorials/client-side"),
            ),
            ("//example.org/page", Some("https://example.org/page")),
            (
                "https://example.org/?uddg=kept",
                Some("https://example.org/?uddg=kept"),
            ),
            ("http://www.google.com/search?hl=en&q=test", None),
            ("https://duckduckgo.com/y.js?ad_provider=x&u3=y", None),
            ("", None),
            ("javascript:void(0)", None),
        ];
        for (href, expected) in cases {
            assert_eq!(unwrap_url(href, BASE).as_deref(), *expected, "{href}");
        }
    }

    #[test]
    fn a_results_page_is_read() {
        let page = parse(
            r#"<div class="result results_links web-result"><h2><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.org%2F&amp;rut=1">A &amp; <b>B</b></a></h2>
            <a class="result__url" href="x">a.org</a><span>&nbsp; 2025-06-23T00:00:00</span>
            <a class="result__snippet" href="x">It is <b>good</b> &quot;really&quot;</a></div>
            <div class="result result--ad"><a class="result__a" href="https://ad.example/">Ad</a></div>
            <div class="result"><a class="result__a" href="https://c.org/">C</a></div>
            <div class="nav-link"><form action="/html/" method="post"><input type="submit" value="Next" /><input type="hidden" name="q" value="x y"><input name="s" value="10" type="hidden"></form></div>
            <form><input type="submit" value="Search"><input name="q" value="other"></form>"#,
            BASE,
        );
        assert_eq!(
            page.hits,
            [
                Hit {
                    title: "A & B".into(),
                    url: "https://a.org/".into(),
                    snippet: "It is good \"really\"".into()
                },
                Hit {
                    title: "C".into(),
                    url: "https://c.org/".into(),
                    snippet: String::new()
                },
            ]
        );
        assert_eq!(
            page.next,
            Some(vec![("q".into(), "x y".into()), ("s".into(), "10".into())])
        );
        assert!(page.any_result_link && !page.no_results);
    }

    fn recorded(name: &str) -> Page {
        let path = format!("{}/tests/fixtures/apis/{name}", env!("CARGO_MANIFEST_DIR"));
        parse(&std::fs::read_to_string(&path).unwrap(), BASE)
    }

    fn fields(pairs: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            pairs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn the_recorded_pages_give_what_their_notes_list() {
        let eino = recorded("ddg_html_search_eino.html");
        assert_eq!(eino.hits.len(), 10);
        assert_eq!(
            eino.next,
            fields(&[
                ("q", "eino"),
                ("s", "10"),
                ("nextParams", ""),
                ("v", "l"),
                ("o", "json"),
                ("dc", "11"),
                ("api", "d.js"),
                ("vqd", "4-167208798460794982980732831674372650598"),
                ("kl", "wt-wt"),
            ])
        );
        let uddg = recorded("ddg_html_search_uddg_links.html");
        assert_eq!(uddg.hits.len(), 10);
        let next = uddg.next.unwrap();
        assert!(next.contains(&(
            "vqd".into(),
            "4-27547094037301250810679169593972079382".into()
        )));
        assert!(next.contains(&("s".into(), "10".into())));
        for (name, no_results) in [
            ("ddg_html_last_page_eof.html", true),
            ("ddg_html_no_more_results.html", true),
            ("ddg_js_serp_bad_user_agent_2020.html", false),
        ] {
            let page = recorded(name);
            assert_eq!(page.hits, [], "{name}");
            assert_eq!(page.next, None, "{name}: no next page");
            assert_eq!(page.no_results, no_results, "{name}");
        }
    }

    #[test]
    fn the_vqd_token_is_found() {
        let cases: &[(&str, Option<&str>)] = &[
            ("x vqd='3-889-149',y", Some("3-889-149")),
            ("nrj('/d.js?q=a&vqd=4-123&kl=wt')", Some("4-123")),
            ("vqd=\"4-5\"", Some("4-5")),
            ("name=\"vqd\" value", None),
        ];
        for (text, expected) in cases {
            assert_eq!(vqd(text).as_deref(), *expected, "{text}");
        }
    }
}
