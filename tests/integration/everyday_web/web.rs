//! web_search against DuckDuckGo's recorded result pages, browse_web with the built-in renderer
//! and with lynx, scrape_page with and without Chromium (search_news is in news.rs).

use super::{Silent, call, reply};
use crate::common::tools::{allow_loopback, call_unanswered};
use crate::common::{ReplayServer, Reply, TempDir, fixture};

fn html_fixture(name: &str) -> Reply {
    reply(
        200,
        "text/html; charset=UTF-8",
        fixture(&format!("apis/{name}")),
    )
}

fn ddg_env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![("DDG_URL", server.root())]
}

/// Numbered results as (title, url, snippet).
fn results(text: &str) -> Vec<(String, String, String)> {
    text.split("\n\n")
        .skip(1)
        .map(|block| {
            let mut lines = block.lines();
            let title = lines
                .next()
                .unwrap()
                .split_once(". ")
                .unwrap()
                .1
                .to_string();
            let url = lines.next().unwrap_or_default().trim().to_string();
            let snippet = lines.next().unwrap_or_default().trim().to_string();
            (title, url, snippet)
        })
        .collect()
}

#[test]
fn a_results_page_with_direct_links_and_the_page_after_the_last() {
    let home = TempDir::new("ddg-eino");
    let ddg = ReplayServer::start(vec![
        html_fixture("ddg_html_search_eino.html"),
        html_fixture("ddg_html_no_more_results.html"),
    ]);
    let text = call(
        &home,
        "web_search",
        r#"{"query": "eino", "max_results": 15}"#,
        &ddg_env(&ddg),
    );
    assert!(text.starts_with("DuckDuckGo results for 'eino':"), "{text}");
    let found = results(&text);
    assert_eq!(found.len(), 10, "{text}");
    assert_eq!(
        found[0].0,
        "GitHub - cloudwego/eino: The ultimate LLM/AI application development ..."
    );
    assert_eq!(found[0].1, "https://github.com/cloudwego/eino");
    assert!(
        found[0]
            .2
            .starts_with("Eino is a framework for building LLM applications in Golang"),
        "{}",
        found[0].2
    );
    assert_eq!(found[1].0, "Eino: 概述 | CloudWeGo");
    assert!(!text.contains("2025-06-23T00:00:00"), "{text}");
    assert!(
        !text.contains("&#x27;") && !text.contains("&quot;"),
        "{text}"
    );
    assert_eq!(found[9].1, "https://en.wikipedia.org/wiki/Eino");
    assert_eq!(found[9].0, "Eino - Wikipedia");
    let asked = ddg.requests();
    assert_eq!(asked.len(), 2, "the Next form is followed once: {asked:?}");
    assert_eq!(asked[0].url, "/html/?q=eino");
    assert_eq!(asked[1].url, "/html/");
    assert_eq!(
        asked[1].header("Content-Type"),
        Some("application/x-www-form-urlencoded")
    );
}

#[test]
fn redirect_links_are_unwrapped_and_max_results_kept() {
    let home = TempDir::new("ddg-uddg");
    let ddg = ReplayServer::start(vec![html_fixture("ddg_html_search_uddg_links.html")]);
    let text = call(
        &home,
        "web_search",
        r#"{"query": "client-side graph database javascript typescript browser", "max_results": 3}"#,
        &ddg_env(&ddg),
    );
    let found = results(&text);
    assert_eq!(found.len(), 3, "{text}");
    assert_eq!(
        found[0].0,
        "GitHub - nxpatterns/gitnexus: GitNexus: The Zero-Server Code ..."
    );
    assert_eq!(found[0].1, "https://github.com/nxpatterns/gitnexus");
    assert_eq!(
        found[2].1,
        "https://www.apollographql.com/tutorials/client-side-graphql-react/05-codegen"
    );
    assert!(!text.contains("uddg") && !text.contains("rut="), "{text}");
    assert!(!text.contains("2026-02-24"), "{text}");
    assert_eq!(
        ddg.requests()[0].url,
        "/html/?q=client-side%20graph%20database%20javascript%20typescript%20browser"
    );
}

#[test]
fn no_results_a_blocked_page_an_error_status_and_a_silent_service() {
    let home = TempDir::new("ddg-empty");
    let ddg = ReplayServer::start(vec![
        html_fixture("ddg_html_last_page_eof.html"),
        html_fixture("ddg_html_no_more_results.html"),
        html_fixture("ddg_js_serp_bad_user_agent_2020.html"),
        reply(503, "text/html", "<html><body>busy</body></html>"),
    ]);
    let mut said = Vec::new();
    for _ in 0..4 {
        said.push(call(
            &home,
            "web_search",
            r#"{"query": "testtesttest"}"#,
            &ddg_env(&ddg),
        ));
    }
    let nothing = "DuckDuckGo found nothing for 'testtesttest'. Try other or fewer words.";
    assert_eq!(said[0], nothing, "the EOF pseudo-result is no result");
    assert_eq!(said[1], nothing);
    assert!(
        said[2].starts_with("Error: DuckDuckGo sent a page without search results"),
        "{}",
        said[2]
    );
    assert_eq!(
        said[3],
        "Error: DuckDuckGo answered HTTP 503 (it may be limiting requests). Try again in a minute."
    );
    let timed_out = call_unanswered(&home, "web_search", r#"{"query": "eino"}"#, "DDG_URL");
    assert_eq!(
        timed_out,
        "Error: DuckDuckGo request timed out after 1s. Try again or rephrase query."
    );
}

/// A page with what an article has, in ISO-8859-1 declared by its `<meta>`.
const ARTICLE: &[u8] =
    b"<!DOCTYPE html><html><head><meta charset=\"iso-8859-1\"><title>Cr\xe8me</title>\
<style>p{color:red}</style><script>var hidden = 1;</script></head><body>\
<nav><a href=\"/\">Home</a> <a href=\"/menu\">Menu</a></nav>\
<article><h1>Cr\xe8me br\xfbl\xe9e</h1><p>A dessert &amp; a <a href=\"/history\">story</a>.</p>\
<ul><li>cream</li><li>sugar</li></ul>\
<table><tr><th>Step</th><th>Minutes</th></tr><tr><td>Bake</td><td>40</td></tr></table></article>\
<footer>\xa9 2026</footer></body></html>";

/// A page in Windows-1252 declared by its `<meta>`: "Café … 5€".
const CAFE: &[u8] = b"<html><head><meta charset=\"windows-1252\"></head>\
<body><p>Caf\xe9 \x85 5\x80</p></body></html>";

fn page_server() -> ReplayServer {
    ReplayServer::answering(|request| {
        match request.url.trim_start_matches("http://scrape.invalid") {
            "/recipe" => reply(200, "text/html", ARTICLE),
            "/notes.txt" => reply(200, "text/plain; charset=utf-8", "just text\n"),
            "/cafe" => reply(200, "text/html", CAFE),
            "/app" => reply(
                200,
                "text/html",
                "<html><body><p>static</p><script>document.body.innerHTML = '<h1>Made by script</h1><p>' + (6 * 7) + '</p>';</script></body></html>",
            ),
            _ => reply(404, "text/html", "<html><body>Not here</body></html>"),
        }
    })
}

/// A PATH with none of the renderers: the built-in one is used, and no Chromium is found.
fn bare_path(home: &TempDir) -> (&'static str, String) {
    let dir = home.path().join("bare-bin");
    std::fs::create_dir_all(&dir).unwrap();
    ("PATH", dir.display().to_string())
}

#[test]
fn browse_web_renders_a_page_with_the_built_in_renderer() {
    let home = TempDir::new("browse-builtin");
    let server = page_server();
    let env = [bare_path(&home), allow_loopback()];
    let base = server.root();
    let text = call(
        &home,
        "browse_web",
        &format!(r#"{{"url": "{base}/recipe"}}"#),
        &env,
    );
    assert_eq!(
        text,
        format!(
            "{base}/recipe\n\n# Crème brûlée\n\nA dessert & a story [1].\n\n- cream\n- sugar\n\nStep | Minutes\nBake | 40\n\nLinks:\n[1] {base}/history"
        )
    );
    let missing = call(
        &home,
        "browse_web",
        &format!(r#"{{"url": "{base}/gone"}}"#),
        &env,
    );
    assert_eq!(
        missing,
        format!(
            "Error: 127.0.0.1 answered HTTP 404 for {base}/gone; check the address, or try again later."
        )
    );
    let plain = call(
        &home,
        "browse_web",
        &format!(r#"{{"url": "{base}/notes.txt"}}"#),
        &env,
    );
    assert_eq!(plain, format!("{base}/notes.txt\n\njust text"));
    let not_web = call(
        &home,
        "browse_web",
        r#"{"url": "file:///etc/passwd"}"#,
        &env,
    );
    assert!(
        not_web.starts_with("Error: 'file:///etc/passwd' is not a web address"),
        "{not_web}"
    );
    let silent = Silent::start();
    let timed_out = call(
        &home,
        "browse_web",
        &format!(r#"{{"url": "{}/x"}}"#, silent.url()),
        &[
            bare_path(&home),
            ("MARVIN_TOOL_TIMEOUT", "1".into()),
            allow_loopback(),
        ],
    );
    assert_eq!(
        timed_out,
        "Error: 127.0.0.1 request timed out after 1s. Try again or rephrase query."
    );
}

fn installed(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

#[test]
fn browse_web_uses_lynx_when_it_is_installed() {
    if !installed("lynx") {
        println!("lynx is not installed: its path of browse_web is not tested here");
        return;
    }
    let home = TempDir::new("browse-lynx");
    let server = page_server();
    let base = server.root();
    let text = call(
        &home,
        "browse_web",
        &format!(r#"{{"url": "{base}/recipe"}}"#),
        &[allow_loopback()],
    );
    assert!(text.starts_with(&format!("{base}/recipe\n\n")), "{text}");
    assert!(
        text.contains("Crème brûlée"),
        "the page's charset is honoured: {text}"
    );
    assert!(text.contains("References"), "lynx lists the links: {text}");
    assert!(
        text.contains(&format!("{base}/history")),
        "relative links resolve: {text}"
    );
    assert!(!text.contains("var hidden"), "{text}");
}

#[test]
fn scrape_page_runs_the_pages_javascript_in_chromium() {
    let home = TempDir::new("scrape");
    let missing = call(
        &home,
        "scrape_page",
        r#"{"url": "https://example.org/"}"#,
        &[bare_path(&home)],
    );
    assert_eq!(
        missing,
        "Error: scrape_page requires headless Chromium (chromium or google-chrome), which is not installed. Install it (sudo apt install chromium), or use browse_web for pages that do not need JavaScript."
    );
    if !installed("chromium") && !installed("google-chrome") && !installed("chromium-browser") {
        println!("Chromium is not installed: scrape_page's rendering is not tested here");
        return;
    }
    let server = page_server();
    let base = server.root();
    let text = call(
        &home,
        "scrape_page",
        &format!(r#"{{"url": "{base}/app"}}"#),
        &[("MARVIN_TOOL_TIMEOUT", "120".into()), allow_loopback()],
    );
    assert_eq!(text, format!("{base}/app\n\n# Made by script\n\n42"));
    // Chromium's DOM is decoded already: the page's charset is not applied to it again.
    let text = call(
        &home,
        "scrape_page",
        &format!(r#"{{"url": "{base}/cafe"}}"#),
        &[("MARVIN_TOOL_TIMEOUT", "120".into()), allow_loopback()],
    );
    assert_eq!(text, format!("{base}/cafe\n\nCafé … 5€"));
    // Chromium fetches the page itself, through the proxy every other request takes (a name
    // only the proxy can resolve is the proxy's to reach).
    let proxy = page_server();
    let text = call(
        &home,
        "scrape_page",
        r#"{"url": "http://scrape.invalid/app"}"#,
        &[
            ("MARVIN_TOOL_TIMEOUT", "120".into()),
            ("HTTPS_PROXY", proxy.root()),
        ],
    );
    assert_eq!(text, "http://scrape.invalid/app\n\n# Made by script\n\n42");
    assert!(
        proxy.requests().iter().any(|r| r.url.ends_with("/app")),
        "{:?}",
        proxy.requests()
    );
}

/// A directory on PATH holding a `lynx` script with `body`.
fn fake_lynx(home: &TempDir, name: &str, body: &str) -> (&'static str, String) {
    use std::os::unix::fs::PermissionsExt;
    let dir = home.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("lynx");
    std::fs::write(&script, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    ("PATH", dir.display().to_string())
}

#[test]
fn lynx_gets_the_fetched_page_with_its_base_and_charset_but_no_keys() {
    let home = TempDir::new("browse-fake-lynx");
    let server = page_server();
    let base = server.root();
    let seen = crate::common::logs(home.path()).join("seen");
    let recording = fake_lynx(
        &home,
        "recording",
        &format!(
            "/usr/bin/env > {0}.env\necho \"$@\" > {0}.args\n/bin/cat > {0}.stdin\necho 'rendered by lynx'\n",
            seen.display()
        ),
    );
    let text = call(
        &home,
        "browse_web",
        &format!(r#"{{"url": "{base}/recipe"}}"#),
        &[
            recording,
            ("GNEWS_API_KEY", "gnews-secret-1".into()),
            allow_loopback(),
        ],
    );
    assert_eq!(text, format!("{base}/recipe\n\nrendered by lynx"));
    let read = |ext: &str| std::fs::read(format!("{}.{ext}", seen.display())).unwrap();
    let args = String::from_utf8(read("args")).unwrap();
    assert!(args.contains("-dump -stdin -force_html"), "{args}");
    assert!(
        args.contains("-assume_charset=windows-1252"),
        "the page's <meta>: {args}"
    );
    let stdin = read("stdin");
    let head = format!("<base href=\"{base}/recipe\">");
    assert!(
        stdin.starts_with(head.as_bytes()),
        "{}",
        String::from_utf8_lossy(&stdin)
    );
    assert!(stdin.ends_with(ARTICLE), "the page's own bytes follow");
    let env = String::from_utf8(read("env")).unwrap();
    assert!(!env.contains("gnews-secret-1"), "{env}");
    // A lynx that fails leaves the page to the built-in renderer.
    let failing = fake_lynx(&home, "failing", "echo broken >&2\nexit 3\n");
    let text = call(
        &home,
        "browse_web",
        &format!(r#"{{"url": "{base}/recipe"}}"#),
        &[failing, allow_loopback()],
    );
    assert!(
        text.starts_with(&format!("{base}/recipe\n\n# Crème brûlée\n")),
        "{text}"
    );
}
