//! What the gateway page's cards say, in real headless Chromium (issue 43): an ask_user card's
//! head names the tool and nothing else, its completed view shows the question and the chosen
//! answer apart as the terminal does, and a form field's description and hint are lines of
//! their own.

use serde_json::json;

use crate::common::webdriver::{Browser, key};
use crate::common::{ReplayServer, Reply, TempDir, database_question};
use crate::gateway::Gateway;
use crate::gateway_respond::user_tools;

/// Starts a session in the page and sends `message`.
fn chat(browser: &Browser, page: &str, message: &str) {
    browser.open(page);
    browser.click("#new-session");
    browser.find("#composer:not([hidden]) #message");
    browser.type_into("#message", message);
    browser.press(&[key::CONTROL, key::ENTER]);
}

#[test]
fn an_ask_user_card_is_headed_by_its_tool_and_its_answer_stands_under_its_question() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-card-question");
    let server = ReplayServer::start(vec![
        database_question(),
        Reply::text(&["PostgreSQL then."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    chat(&browser, &gateway.page(), "set up the database");
    browser.find("form.card input[type=radio]");
    let head = browser.script(
        "return document.querySelector('form.card .card-head').textContent",
        json!([]),
    );
    assert_eq!(head, json!("ask_user"));
    browser.click("form.card label.option:nth-of-type(2) input");
    browser.click("form.card button[type=submit]");
    browser.wait_until(
        "return !!document.querySelector('form.card.done .completed .answer')",
        "the card shows its completed view",
    );
    browser.screenshot("gateway-question-completed");
    let shown = browser.script(
        "const li = document.querySelector('form.card.done .completed li');
         const question = li.querySelector('.question'), answer = li.querySelector('.answer');
         return [question.textContent, answer.textContent,
                 answer.getBoundingClientRect().top >= question.getBoundingClientRect().bottom]",
        json!([]),
    );
    assert_eq!(
        shown,
        json!(["Database Which database?", "✓ Database: PostgreSQL", true])
    );
}

#[test]
fn a_field_s_description_and_hint_are_lines_of_their_own() {
    let Some(browser) = Browser::start(1000, 1000) else {
        return;
    };
    let home = TempDir::new("gateway-card-hint");
    user_tools(&home, &["listen"]);
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("l1", "listen", "{}")]),
        Reply::text(&["Listening."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    chat(&browser, &gateway.page(), "start the server");
    browser.find(".card.input .field[data-field=ratio] .field-hint");
    let shown = browser.script(
        "const field = document.querySelector('.card.input .field[data-field=ratio]');
         const description = field.querySelector('.description'), hint = field.querySelector('.field-hint');
         return [description.textContent, hint.textContent,
                 hint.getBoundingClientRect().top >= description.getBoundingClientRect().bottom,
                 /sample\\n+Allowed: A number/.test(field.innerText)]",
        json!([]),
    );
    assert_eq!(
        shown,
        json!([
            "Fraction of the requests to sample",
            "Allowed: A number from 0 to 1.",
            true,
            true
        ])
    );
}
