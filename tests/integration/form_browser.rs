//! The interview page in real headless Chromium (Debian's chromium and chromedriver): every
//! question type by mouse and by keyboard, a pasted image, a draft that survives a reload,
//! submit, cancel, the deadline, an answer given elsewhere, and screenshots (light and dark,
//! desktop and 360 px) saved to target/browser-artifacts/.

use std::time::Duration;

use crate::common::TempDir;
use crate::common::webdriver::{Browser, key};
use marvin::interact::form;
use marvin::interact::form::questions::{self, ReplyValue, Status};
use marvin::interact::form::server::{FormEvent, FormServer, State};
use serde_json::{Value, json};

fn example_questions() -> questions::Interview {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/form/example-questions.json"
    ))
    .unwrap();
    questions::parse(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn example_server(home: &TempDir, timeout_secs: u64) -> FormServer {
    let interview = example_questions();
    FormServer::start(
        interview,
        form::page(),
        home.path().join("uploads"),
        timeout_secs,
    )
    .unwrap()
}

/// A 1×1 PNG.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const PASTE_IMAGE: &str = r##"
    const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
    const file = new File([bytes], "pasted.png", { type: "image/png" });
    const transfer = new DataTransfer();
    transfer.items.add(file);
    document.querySelector("#q-sketch .dropzone").focus();
    document.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true }));
"##;

#[test]
fn every_type_by_mouse_and_keyboard_survives_a_reload_and_reaches_the_tool() {
    let Some(browser) = Browser::start(1000, 1400) else {
        return;
    };
    let home = TempDir::new("browser-fill");
    let server = example_server(&home, 600);
    browser.open(&server.url());
    assert_eq!(browser.text("h1"), "Setting up the new service");
    assert!(browser.text("#q-database").contains("Recommended"));

    // Keyboard: the first question has the focus; ↓ chooses the next option, and Enter
    // confirms it without sending the form.
    browser.wait_until(
        "return document.activeElement.value === 'SQLite'",
        "the first question has the focus",
    );
    browser.press(&[key::DOWN]);
    browser.press(&[key::ENTER]);
    browser.wait_until(
        "return document.querySelector('#q-database input[value=PostgreSQL]').checked",
        "↓ chose PostgreSQL",
    );
    assert!(
        server.wait(Duration::from_millis(300)).is_none(),
        "Enter sent the form"
    );
    // Mouse: a multi choice with Other.
    browser.click("#q-features input[value=Search]");
    browser.click("#q-features input[data-other]");
    browser.type_into("#q-features .other-text", "Audit log");
    browser.type_into("#q-name textarea", "ledger");
    // Keyboard: to the first checkbox, down one, Space ticks "Search"→ already; tick Sign-in.
    browser.click("#q-features input[value=Search]"); // untick by mouse
    browser.script(
        "document.querySelector('#q-features input[value=\"Sign-in\"]').focus()",
        json!([]),
    );
    browser.press(&[key::SPACE]);
    browser.press(&[key::DOWN]);
    browser.press(&[key::SPACE]);
    // ← and → move between questions (not inside a text field, where they move the caret).
    let current = "return document.activeElement.closest('.question').id";
    browser.press(&[key::LEFT]);
    assert_eq!(browser.script(current, json!([])), json!("q-database"));
    browser.press(&[key::RIGHT]);
    assert_eq!(browser.script(current, json!([])), json!("q-features"));
    browser.press(&[key::RIGHT]);
    assert_eq!(browser.script(current, json!([])), json!("q-name"));

    // A draft survives a reload.
    browser.refresh();
    browser.wait_until(
        "return document.querySelector('#q-features input[value=\"Sign-in\"]').checked \
         && document.querySelector('#q-features .other-text').value === 'Audit log' \
         && document.querySelector('#q-name textarea').value === 'ledger' \
         && document.querySelector('#q-database input[value=PostgreSQL]').checked",
        "the draft is restored",
    );

    browser.script(PASTE_IMAGE, json!([PNG_BASE64]));
    browser.wait_until(
        "return document.querySelectorAll('#q-sketch .thumb').length === 1",
        "the pasted image shows",
    );
    browser.screenshot("form-filled-desktop-light");

    browser.click("#q-name textarea");
    browser.press(&[key::CONTROL, key::ENTER]);
    let Some(FormEvent::Submitted(replies)) = server.wait(Duration::from_secs(15)) else {
        panic!("the answers did not arrive");
    };
    let value = |id: &str| replies.iter().find(|r| r.id == id).map(|r| r.value.clone());
    assert_eq!(
        value("database"),
        Some(ReplyValue::One("PostgreSQL".into()))
    );
    assert_eq!(
        value("features"),
        Some(ReplyValue::Many(vec![
            "Sign-in".into(),
            "Search".into(),
            "Audit log".into()
        ]))
    );
    assert_eq!(value("name"), Some(ReplyValue::One("ledger".into())));
    let Some(ReplyValue::Many(paths)) = value("sketch") else {
        panic!("no image path")
    };
    assert!(paths[0].ends_with("/pasted.png"), "{paths:?}");
    let asked = example_questions().questions;
    let result = questions::result_text(Status::Completed, None, &asked, &replies, 600);
    assert!(
        result.contains("- features: Sign-in, Search, Other: \"Audit log\"\n"),
        "{result}"
    );
    assert!(
        result.contains("\"features\":[\"Sign-in\",\"Search\",{\"other\":\"Audit log\"}]"),
        "{result}"
    );
    // The overlay says so once the answers' reply is in (a heartbeat answered meanwhile
    // hears the interview closed, and is not news then).
    browser.wait_until(
        "return !document.getElementById('overlay').hidden && document.getElementById('overlay-title').textContent === 'Answers sent'",
        "the page says the answers were sent",
    );
    // Sent answers clear the draft.
    let left = browser.script(
        "return Object.keys(localStorage).filter(k => k.startsWith('marvin-interview-')).length",
        json!([]),
    );
    assert_eq!(left, json!(0));
}

#[test]
fn field_errors_from_the_server_show_at_the_field() {
    let Some(browser) = Browser::start(1000, 1200) else {
        return;
    };
    let home = TempDir::new("browser-errors");
    let server = example_server(&home, 600);
    browser.open(&server.url());
    // An untouched form sends nothing: each required question says so at its field (the
    // database has its recommendation chosen already).
    browser.find("#q-database input");
    assert_eq!(
        browser.script(
            "return document.querySelector('#q-database input:checked').value",
            json!([])
        ),
        json!("SQLite")
    );
    browser.click("#submit");
    browser.wait_until(
        "return !document.getElementById('err-features').hidden",
        "the field errors show",
    );
    for id in ["features", "name", "sketch"] {
        assert_eq!(
            browser.text(&format!("#err-{id}")),
            "Please answer this question.",
            "{id}"
        );
    }
    let invalid = browser.script(
        "return document.querySelectorAll('.question.invalid').length",
        json!([]),
    );
    assert_eq!(invalid, json!(3), "the info item needs no answer");
    assert!(server.wait(Duration::from_millis(300)).is_none());
    browser.click("#q-features input[data-other]");
    browser.click("#submit");
    browser.wait_until(
        "return document.getElementById('err-features').textContent.includes('after choosing Other')",
        "Other without text is said",
    );
    browser.type_into("#q-features .other-text", "Audit log");
    browser.type_into("#q-name textarea", "ledger");
    // A typed path is checked by the server: a missing file is said at its question.
    browser.type_into("#q-sketch .path-input", "no-such-sketch.png");
    browser.click("#submit");
    browser.wait_until(
        "return document.getElementById('err-sketch').textContent.includes('no such file')",
        "the typed path is refused at its field",
    );
    browser.script(
        "document.querySelector('#q-sketch .path-input').value = ''",
        json!([]),
    );
    // SVG text claiming to be a PNG gets past the page but not the server's magic-byte
    // check, and the message lands under the image question.
    browser.script(PASTE_IMAGE, json!(["PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"]));
    browser.wait_until(
        "return document.querySelectorAll('#q-sketch .thumb').length === 1",
        "the image shows",
    );
    browser.click("#submit");
    browser.wait_until(
        "return !document.getElementById('err-sketch').hidden",
        "the field error shows",
    );
    assert!(
        browser
            .text("#err-sketch")
            .contains("not a PNG, JPEG, GIF or WebP"),
        "{}",
        browser.text("#err-sketch")
    );
    assert!(server.wait(Duration::ZERO).is_none());
}

#[test]
fn escape_twice_cancels() {
    let Some(browser) = Browser::start(800, 900) else {
        return;
    };
    let home = TempDir::new("browser-cancel");
    let server = example_server(&home, 600);
    browser.open(&server.url());
    browser.find("#q-database input");
    // The second Esc must come within 1.5 s of the first: both are sent at once, and the
    // warning the first one gave is looked for after (it keeps its text once hidden; a first
    // Esc that cancelled would give none: the second is ignored on a page that has ended).
    browser.press(&[key::ESCAPE]);
    browser.press(&[key::ESCAPE]);
    assert_eq!(
        server.wait(Duration::from_secs(10)),
        Some(FormEvent::Cancelled)
    );
    browser.wait_until(
        "return document.getElementById('toast').textContent.includes('Esc again')",
        "the first Esc warned",
    );
    browser.wait_until(
        "return document.getElementById('overlay-title').textContent === 'Interview cancelled'",
        "the page says so",
    );
}

#[test]
fn the_deadline_and_an_answer_elsewhere_close_the_page() {
    let Some(browser) = Browser::start(800, 900) else {
        return;
    };
    let home = TempDir::new("browser-expire");
    let server = example_server(&home, 2);
    browser.open(&server.url());
    browser.wait_until(
        "return document.getElementById('countdown').classList.contains('urgent')",
        "the badge turns urgent",
    );
    browser.wait_until(
        "return document.getElementById('overlay-title').textContent === 'Time is up'",
        "the page expires",
    );
    // Its own countdown to closing the tab, and Stay / Close.
    assert!(
        browser
            .text("#overlay-countdown")
            .starts_with("Closing this tab in")
    );
    browser.wait_until(
        "return Number(document.getElementById('close-in').textContent) < 10",
        "the close countdown runs",
    );
    browser.click("#stay");
    browser.wait_until(
        "return document.getElementById('overlay').hidden",
        "Stay keeps the page",
    );
    assert!(browser.text("#form-error").starts_with("Time is up"));
    let still = browser.script(
        "return document.getElementById('close-in').textContent",
        json!([]),
    );
    // The countdown ticks once a second: a stopped one still reads the same after a tick.
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(
        browser.script(
            "return document.getElementById('close-in').textContent",
            json!([])
        ),
        still,
        "the countdown stopped"
    );
    let late = example_server(&home, 1);
    browser.open(&late.url());
    browser.wait_until(
        "return !document.getElementById('overlay-actions').hidden",
        "the second page expires",
    );
    // The page may not close a tab it did not open: it says so instead.
    browser.script(
        "window.close = () => { window.__closed = true; }",
        json!([]),
    );
    browser.click("#close");
    assert_eq!(
        browser.script("return window.__closed === true", json!([])),
        json!(true)
    );
    assert_eq!(browser.text("#overlay-text"), "You can close this tab now.");

    let other = example_server(&home, 600);
    browser.open(&other.url());
    browser.find("#q-database input");
    other.close(State::AnsweredInTerminal);
    // The heartbeat (every 5 s) brings the news.
    browser.wait_until("return document.getElementById('overlay-text').textContent.includes('answered in the terminal')", "the page learns the terminal answered");
    assert!(other.wait(Duration::ZERO).is_none());

    // The tool returns and its server stops (say, answered in the terminal): the page says so.
    let gone = example_server(&home, 600);
    browser.open(&gone.url());
    browser.find("#q-database input");
    drop(gone);
    browser.wait_until(
        "return document.getElementById('overlay-text').textContent.includes('no longer waiting')",
        "the page learns Marvin stopped waiting",
    );
}

#[test]
fn screenshots_light_dark_desktop_and_360_px() {
    for (width, name) in [(1280, "desktop"), (360, "360px")] {
        let Some(browser) = Browser::start(width, 1600) else {
            return;
        };
        let home = TempDir::new("browser-shots");
        let server = example_server(&home, 600);
        for scheme in ["light", "dark"] {
            browser.colour_scheme(scheme);
            browser.open(&server.url());
            browser.find("#q-database input");
            let background: Value = browser.script(
                "return getComputedStyle(document.body).backgroundColor",
                json!([]),
            );
            let dark = background != json!("rgb(247, 247, 245)");
            assert_eq!(dark, scheme == "dark", "{scheme}: {background}");
            let inner = browser.inner_width();
            assert_eq!(
                inner,
                json!(width),
                "{name}: the page is laid out {inner} px wide"
            );
            // Nothing is wider than the window at 360 px.
            let overflow = browser.scrolls_sideways();
            assert_eq!(overflow, json!(false), "{name} {scheme} scrolls sideways");
            browser.screenshot(&format!("form-{name}-{scheme}"));
        }
    }
}

#[test]
fn a_page_opened_again_elsewhere_continues_from_the_draft_marvin_keeps() {
    let Some(browser) = Browser::start(1000, 1200) else {
        return;
    };
    let home = TempDir::new("browser-draft");
    let server = example_server(&home, 600);
    browser.open(&server.url());
    browser.find("#q-database input");
    browser.click("#q-database input[value=PostgreSQL]");
    browser.type_into("#q-name textarea", "ledger");
    // The page sends its draft a moment after the last change.
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while server.draft()["answers"]["name"]["text"] != json!("ledger") {
        assert!(std::time::Instant::now() < deadline, "{}", server.draft());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        server.draft()["answers"]["database"],
        json!({"picks": ["PostgreSQL"], "other": null})
    );
    // Another browser (nothing in its storage) opens the same form.
    browser.script("localStorage.clear()", json!([]));
    browser.refresh();
    browser.wait_until(
        "return document.querySelector('#q-name textarea').value === 'ledger' \
         && document.querySelector('#q-database input[value=PostgreSQL]').checked",
        "the page starts from Marvin's draft",
    );
}
