//! The gateway's page in real headless Chromium: a turn chatted in the page, a question card
//! answered by keyboard while a second page on the same session turns read-only ("answered on
//! another device"), an approval card given and denied by mouse (and one whose diff shows carriage returns), a question asked again in its
//! card's place with what was entered, a reload mid-question (one card for a prompt sent as seeds 003 and 001 name it), an answer's Markdown rendered with
//! nothing the model wrote becoming markup, and screenshots light and dark at desktop and 360 px.

use serde_json::{Value, json};

use crate::common::webdriver::{Browser, key};
use crate::common::{ReplayServer, Reply, TempDir, database_question};
use crate::gateway::Gateway;

/// What the model got back for call `id`, in the last request.
fn result_of(server: &ReplayServer, id: &str) -> String {
    server.requests().last().unwrap().result_of(id)
}

/// Starts a session in the page and sends `message`.
fn chat(browser: &Browser, page: &str, message: &str) {
    browser.open(page);
    browser.click("#new-session");
    browser.find("#composer:not([hidden]) #message");
    browser.type_into("#message", message);
    browser.press(&[key::CONTROL, key::ENTER]);
}

#[test]
fn a_question_answered_by_keyboard_in_one_page_turns_the_other_read_only() {
    let Some(first) = Browser::start(1280, 900) else {
        return;
    };
    let Some(second) = Browser::start(1280, 900) else {
        return;
    };
    let home = TempDir::new("gateway-page");
    let server = ReplayServer::start(vec![database_question(), Reply::text(&["SQLite it is."])]);
    let gateway = Gateway::start(&home, &server.url());
    chat(&first, &gateway.page(), "set up the database");
    first.find("form.card input[type=radio]");
    // A second page follows the same session, picked from the list.
    second.open(&gateway.page());
    second.click("#session-list button");
    second.find("form.card input[type=radio]");
    // The second page stops answering questions: its card stays, read-only, with a hint.
    second.click("#interactive");
    second.wait_until(
        "return !!document.querySelector('form.card .hint') && document.querySelector('form.card input').disabled",
        "the card turns read-only in the page that does not answer",
    );
    assert_eq!(
        first.script(
            "return document.querySelector('form.card button[type=submit]').disabled",
            json!([])
        ),
        json!(true),
        "Submit waits for an answer"
    );
    // The card takes the focus: Space picks SQLite, Tab past "Other", Enter on Submit.
    first.press(&[key::SPACE]);
    first.press(&[key::TAB]);
    first.press(&[key::TAB]);
    first.press(&[key::ENTER]);
    first.wait_until(
        "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'SQLite it is.')",
        "the answer arrives in the first page",
    );
    // Both cards turn into the completed view: what was chosen, read-only; the second page's
    // says it was answered elsewhere.
    let completed = "const card = document.querySelector('form.card.done');
         return card && [[...card.querySelectorAll('.completed li')].map(li =>
                           [...li.querySelectorAll('.question, .answer')].map(p => p.textContent)),
                         (card.querySelector('.by') || {}).textContent || null,
                         card.querySelectorAll('input, button').length]";
    for (page, by) in [
        (&first, Value::Null),
        (&second, json!("Answered on another device.")),
    ] {
        page.wait_until(
            "return !!document.querySelector('form.card.done')",
            "the card turns into its completed view",
        );
        assert_eq!(
            page.script(completed, json!([])),
            json!([[["Database Which database?", "✓ Database: SQLite"]], by, 0])
        );
    }
    assert!(result_of(&server, "q1").contains("SQLite"));
}

#[test]
fn an_approval_is_given_or_denied_by_mouse_and_the_page_fits_light_dark_desktop_and_360_px() {
    for (width, name) in [(1280, "desktop"), (360, "360px")] {
        let Some(browser) = Browser::start(width, 900) else {
            return;
        };
        let home = TempDir::new("gateway-page-approval");
        let code = json!({"code": "print('hello from Blender')"}).to_string();
        let server = ReplayServer::start(vec![
            Reply::tool_calls(&[("b1", "blender_execute_code", &code)]),
            Reply::text(&["Not run, then."]),
        ]);
        let gateway = Gateway::start_with(&home, &server.url(), &[("BLENDER_MCP_PORT", "9")]);
        chat(&browser, &gateway.page(), "run some code");
        browser.find(".card button[data-deny]");
        for scheme in ["light", "dark"] {
            browser.colour_scheme(scheme);
            let overflow = browser.scrolls_sideways();
            assert_eq!(overflow, json!(false), "{name} {scheme} scrolls sideways");
            let clipped = browser.script(
                "const hint = document.getElementById('attach-hint'); return hint.scrollWidth > hint.clientWidth",
                json!([]),
            );
            assert_eq!(
                clipped,
                json!(false),
                "{name}: the --attach line is cut off"
            );
            browser.screenshot(&format!("gateway-{name}-{scheme}"));
        }
        assert!(
            browser
                .text(".card pre")
                .contains("print('hello from Blender')")
        );
        if name == "desktop" {
            // Approved for the session: the tool runs (and finds no Blender on port 9).
            browser.click(".card button[data-scope=session]");
            browser.wait_until(
                "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'Not run, then.')",
                "the turn goes on after the approval",
            );
            assert!(browser.text(".card").contains("approved for this session"));
            let result = result_of(&server, "b1");
            assert!(!result.contains("denied"), "{result}");
            continue;
        }
        browser.type_into(".card input[type=text]", "not on this machine");
        browser.click(".card button[data-deny]");
        browser.wait_until(
            "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'Not run, then.')",
            "the turn goes on after the denial",
        );
        assert!(result_of(&server, "b1").contains("not on this machine"));
    }
}

#[test]
fn a_reload_mid_question_replays_the_session_and_the_question_is_still_answerable() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-page-reload");
    let server = ReplayServer::start(vec![
        database_question(),
        Reply::text(&["PostgreSQL then."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    chat(&browser, &gateway.page(), "set up the database");
    browser.find("form.card input[type=radio]");
    browser.refresh();
    // The same session, replayed: the message, the tool block, the card, answerable.
    browser.find(".bubble.user");
    assert_eq!(browser.text(".bubble.user"), "set up the database");
    browser.click("form.card label.option:nth-of-type(2) input");
    browser.click("form.card button[type=submit]");
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'PostgreSQL then.')",
        "the turn goes on after the reload",
    );
    // The prompt came as interaction_request and as seed 001's question_prompt: one card.
    assert_eq!(
        browser.script(
            "return document.querySelectorAll('.card').length",
            json!([])
        ),
        json!(1)
    );
    let result = result_of(&server, "q1");
    assert!(
        result.contains("PostgreSQL") && !result.contains("SQLite"),
        "{result}"
    );
}

#[test]
fn a_question_asked_again_takes_its_card_s_place_with_the_error_and_what_was_entered() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-page-reprompt");
    let server = ReplayServer::start(vec![database_question(), Reply::text(&["DuckDB, noted."])]);
    let gateway = Gateway::start(&home, &server.url());
    chat(&browser, &gateway.page(), "set up the database");
    browser.find("form.card input[type=radio]");
    // Another client chose "Other" and typed nothing: ask_user asks again.
    let id = browser.script("return location.hash.slice(1)", json!([]));
    let path = format!("/api/sessions/{}/submit-answers", id.as_str().unwrap());
    let empty = json!({"toolCallId": "q1", "answers": {"Which database?": ""}});
    assert_eq!(gateway.call("POST", &path, Some(empty)).0, 200);
    browser.wait_until(
        "const cards = document.querySelectorAll('#log .card'); const error = cards[0] && cards[0].querySelector('.error');
         return cards.length === 1 && error && !error.hidden && error.textContent.startsWith('Please type an answer')",
        "the question comes again in the same card, with its error",
    );
    let kept = browser.script(
        "const other = document.querySelector('form.card input[type=radio][value=\"\"]');
         return [other.checked, document.activeElement === document.querySelector('form.card input[type=text]'),
                 document.querySelector('form.card button[type=submit]').disabled]",
        json!([]),
    );
    assert_eq!(
        kept,
        json!([true, true, true]),
        "Other chosen, its text focused"
    );
    browser.type_into("form.card input[type=text]", "DuckDB");
    browser.click("form.card button[type=submit]");
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'DuckDB, noted.')",
        "the turn goes on with the typed answer",
    );
    assert!(result_of(&server, "q1").contains("DuckDB"));
}

#[test]
fn a_card_that_comes_while_a_message_is_being_typed_leaves_the_focus_where_it_is() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-page-focus");
    let (go, asked) = std::sync::mpsc::channel::<()>();
    let server = ReplayServer::answering(move |_| {
        // The question comes only once the person is typing their next message.
        let _ = asked.recv_timeout(std::time::Duration::from_secs(20));
        database_question()
    });
    let gateway = Gateway::start(&home, &server.url());
    chat(&browser, &gateway.page(), "set up the database");
    browser.find(".bubble.user");
    browser.type_into("#message", "and then");
    go.send(()).unwrap();
    browser.find("form.card input[type=radio]");
    let focus = browser.script(
        "return [document.activeElement.id, document.getElementById('message').value]",
        json!([]),
    );
    assert_eq!(focus, json!(["message", "and then"]));
}

/// An answer with a table, a code block, a list, and HTML and a `javascript:` link meant to
/// run in the page.
const HOSTILE_MARKDOWN: &str = "## Results\n\n| Tool | Size |\n|:--|--:|\n| `rg` | **4.1** MB |\n| fd | 2 MB |\n\n```rust\nfn main() { println!(\"<b>hi</b>\"); }\n```\n\n- one <img src=x onerror=\"document.title='pwned'\">\n- [docs](https://example.com/docs) and [click me](javascript:document.title='pwned')\n- <script>document.title='pwned'</script> *done*\n";

#[test]
fn the_answer_s_markdown_is_rendered_and_nothing_the_model_writes_becomes_markup() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-page-markdown");
    // Streamed in pieces that cut through the table, the fence and the tags.
    let pieces: Vec<String> = HOSTILE_MARKDOWN
        .as_bytes()
        .chunks(9)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect();
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let server = ReplayServer::start(vec![Reply::text(&pieces)]);
    let gateway = Gateway::start(&home, &server.url());
    chat(&browser, &gateway.page(), "compare them");
    browser.wait_until(
        "const b = document.querySelector('.bubble.assistant'); return !!b && !!b.querySelector('li em')",
        "the whole answer is rendered",
    );
    let shown = browser.script(
        "const b = document.querySelector('.bubble.assistant');
         const all = (css) => [...b.querySelectorAll(css)];
         return {
           heading: all('h4').map(h => h.textContent),
           head: all('th').map(c => c.textContent),
           cells: all('td').map(c => c.textContent),
           right: all('td.align-right').length,
           markup: all('td code, td strong').map(n => n.tagName + ':' + n.textContent),
           code: all('pre.code code').map(c => [c.dataset.lang, c.textContent]),
           items: all('li').map(li => li.textContent),
           links: all('a').map(a => [a.getAttribute('href'), a.rel, a.target, a.textContent]),
           inert: all('.inert-link').map(s => s.textContent),
           injected: all('img, script, b, [onerror]').length,
           title: document.title,
         }",
        json!([]),
    );
    assert_eq!(
        shown,
        json!({
            "heading": ["Results"],
            "head": ["Tool", "Size"],
            "cells": ["rg", "4.1 MB", "fd", "2 MB"],
            "right": 2,
            "markup": ["CODE:rg", "STRONG:4.1"],
            "code": [["rust", "fn main() { println!(\"<b>hi</b>\"); }"]],
            "items": [
                "one <img src=x onerror=\"document.title='pwned'\">",
                "docs and click me (javascript:document.title='pwned')",
                "<script>document.title='pwned'</script> done",
            ],
            "links": [["https://example.com/docs", "noopener noreferrer", "_blank", "docs"]],
            "inert": ["click me (javascript:document.title='pwned')"],
            "injected": 0,
            "title": "Marvin",
        })
    );
}

#[test]
fn a_first_message_from_the_landing_page_starts_a_named_session_and_a_reload_keeps_its_answer() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-page-landing");
    let server = ReplayServer::start(vec![
        database_question(),
        Reply::text(&["PostgreSQL then."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    // No session picked: the message box is there, and sending starts one.
    browser.open(&gateway.page());
    browser.type_into("#message", "set up the database");
    browser.press(&[key::CONTROL, key::ENTER]);
    browser.click("form.card label.option:nth-of-type(2) input");
    browser.click("form.card button[type=submit]");
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'PostgreSQL then.')",
        "the turn goes on after the answer",
    );
    // The served session is listed by its name, in the API and the page.
    let (_, listed) = gateway.call("GET", "/api/sessions", None);
    let sessions = listed["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{listed}");
    assert_eq!(sessions[0]["served"], true);
    assert_eq!(sessions[0]["name"], "set up the database", "{listed}");
    browser.wait_until(
        "return document.getElementById('session-title').textContent === 'set up the database'",
        "the page names the session",
    );
    // After a reload the page's own answer is its own (no "another device"), with what it chose.
    browser.refresh();
    browser.wait_until(
        "return (document.querySelector('form.card.done .completed .answer') || {}).textContent === '✓ Database: PostgreSQL'",
        "the reloaded card shows its completed view",
    );
    let shown = browser.script(
        "return [document.getElementById('session-title').textContent,
                 !!document.querySelector('form.card .by'),
                 document.querySelector('#session-list button').textContent]",
        json!([]),
    );
    let listed_as = shown[2].as_str().unwrap();
    assert_eq!(shown[0], "set up the database");
    assert_eq!(shown[1], false, "answered by this page before the reload");
    assert!(listed_as.starts_with("set up the database"), "{listed_as}");
}

/// Coding mode from the page: ticked before the first message, the session is made in it (the
/// request offers commands); a reload shows it ticked; unticked, the next request does not.
#[test]
fn the_page_turns_coding_mode_on_and_off() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-page-code");
    let server = ReplayServer::start(vec![
        Reply::text(&["Ready."]),
        Reply::text(&["Reading only."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let offers_commands = |n: usize| {
        crate::mcp::tool_names(&server.requests()[n]).contains(&"run_command".to_string())
    };
    browser.open(&gateway.page());
    browser.click("#coding");
    browser.type_into("#message", "hello");
    browser.press(&[key::CONTROL, key::ENTER]);
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'Ready.')",
        "the first turn is answered",
    );
    assert!(offers_commands(0));
    // The reloaded page opens the session its address names.
    browser.refresh();
    browser.wait_until(
        "return document.getElementById('coding').checked",
        "the reloaded page shows the session in coding mode",
    );
    browser.click("#coding");
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble')].some(b => b.textContent.startsWith('coding mode off'))",
        "every client hears the mode changed",
    );
    browser.type_into("#message", "and now?");
    browser.press(&[key::CONTROL, key::ENTER]);
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'Reading only.')",
        "the second turn is answered",
    );
    assert!(!offers_commands(1));
}

/// A file turned from CRLF to LF: the approval card's diff shows each old line's carriage
/// return as a dim `^M` (a browser would draw it as a space), so every line is seen to change.
#[test]
fn an_approval_card_shows_a_carriage_return_in_its_diff() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-page-crlf");
    std::fs::write(home.path().join("notes.txt"), "one\r\ntwo\r\n").unwrap();
    let patch = json!({"path": "notes.txt", "old_str": "one\r\ntwo\r\n", "new_str": "one\ntwo\n"});
    let server = ReplayServer::start(crate::common::ticketed(vec![
        Reply::tool_calls(&[("p1", "apply_patch", &patch.to_string())]),
        Reply::text(&["Left as it was."]),
    ]));
    let gateway = Gateway::start(&home, &server.url());
    browser.open(&gateway.page());
    browser.click("#coding");
    browser.click("#new-session");
    browser.find("#composer:not([hidden]) #message");
    browser.type_into("#message", "use LF line ends in notes.txt");
    browser.press(&[key::CONTROL, key::ENTER]);
    browser.find(".card button[data-deny]");
    assert_eq!(
        browser.script(
            "return [...document.querySelectorAll('.card pre .cr')].map(s => s.textContent)",
            json!([])
        ),
        json!(["^M", "^M"])
    );
    let text = browser.text(".card pre");
    assert!(text.contains("-one^M\n-two^M\n+one\n+two"), "{text:?}");
    browser.click(".card button[data-deny]");
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'Left as it was.')",
        "the turn goes on after the denial",
    );
    assert_eq!(
        std::fs::read_to_string(home.path().join("notes.txt")).unwrap(),
        "one\r\ntwo\r\n"
    );
}
