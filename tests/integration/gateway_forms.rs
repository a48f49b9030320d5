//! Input forms and scoped approvals in the gateway's page, in real headless Chromium, asked by
//! user tools (shell scripts speaking `@@marvin-interact`, tests/fixtures/gateway_tools/): a
//! form of every field type inside its tool's block, answered out of bounds (the field's error
//! shows, nothing reaches the tool), refused by the tool itself (asked again in the same place
//! with its error and what was entered) and then answered (the tool gets the typed value); a
//! questionnaire in a block of its own whose completed view is its summary, after a reload; an
//! approval offering only its tool's scopes.

use serde_json::{Value, json};

use crate::common::webdriver::{Browser, key};
use crate::common::{ReplayServer, Reply, TempDir};
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

/// Waits for the assistant's `answer`.
fn answered(browser: &Browser, answer: &str) {
    browser.wait_until(
        &format!(
            "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === {})",
            json!(answer)
        ),
        answer,
    );
}

/// Empties the field `css` and types `text` into it, as a person would.
fn retype(browser: &Browser, css: &str, text: &str) {
    browser.script(
        "document.querySelector(arguments[0]).value = ''",
        json!([css]),
    );
    browser.type_into(css, text);
}

const PORT: &str = ".card.input .field[data-field=port] input";

#[test]
fn an_input_form_out_of_bounds_shows_its_field_error_then_the_tool_gets_the_typed_value() {
    let Some(browser) = Browser::start(1000, 1000) else {
        return;
    };
    let home = TempDir::new("gateway-form-page");
    user_tools(&home, &["listen"]);
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("l1", "listen", "{}")]),
        Reply::text(&["Listening."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    chat(&browser, &gateway.page(), "start the server");
    browser.find(PORT);
    // Every field by its type, inside the listen call's block, the first one focused.
    let shown = browser.script(
        "const card = document.querySelector('.card.input');
         const field = (id) => card.querySelector('.field[data-field=' + id + ']');
         const control = (id) => field(id).querySelector('input, select, textarea');
         const port = control('port'), ratio = control('ratio');
         return {
           block: card.closest('details.tool').querySelector('summary').textContent,
           prompt: card.querySelector('.prompt').textContent,
           port: [port.type, port.min, port.max, port.step, port.value],
           hint: field('port').querySelector('.field-hint').textContent,
           host: [control('host').type, control('host').value,
                  field('host').querySelector('.description').textContent],
           tls: [control('tls').type, control('tls').checked],
           mode: [...control('mode').options].map(o => [o.value, o.textContent]),
           features: [...field('features').querySelectorAll('input')].map(i => [i.type, i.value]),
           notes: control('notes').tagName,
           ratio: [ratio.type, ratio.min, ratio.max, ratio.step],
           required: [...card.querySelectorAll('.field')].filter(f => f.querySelector('.required'))
             .map(f => f.dataset.field),
           buttons: [...card.querySelectorAll('.actions button')].map(b => b.textContent),
           focused: document.activeElement === port,
         }",
        json!([]),
    );
    assert_eq!(
        shown,
        json!({
            "block": "… listen",
            "prompt": "Where should the server listen?",
            "port": ["number", "1024", "65535", "1", "8080"],
            "hint": shown["hint"],
            "host": ["text", "127.0.0.1", "An address of this machine"],
            "tls": ["checkbox", false],
            "mode": [["", "Choose…"], ["dev", "Development"], ["prod", "Production"]],
            "features": [["checkbox", "gzip"], ["checkbox", "cors"]],
            "notes": "TEXTAREA",
            "ratio": ["number", "0", "1", "any"],
            "required": ["port", "mode"],
            "buttons": ["Submit", "Cancel"],
            "focused": true,
        })
    );
    assert!(shown["hint"].as_str().unwrap().contains("1024"), "{shown}");

    // Out of bounds, by keyboard: the port's own error, and the form stays.
    retype(&browser, PORT, "80");
    browser.script(
        "document.querySelector('.card.input select').value = 'prod'",
        json!([]),
    );
    browser.click(PORT);
    browser.press(&[key::ENTER]);
    browser.wait_until(
        "const e = document.querySelector('.field[data-field=port] .field-error'); return !!e && !e.hidden",
        "the port's error shows at the port",
    );
    browser.screenshot("gateway-input-form-refused");
    let refused = browser.script(
        "const card = document.querySelector('.card.input');
         return [card.querySelector('.field[data-field=port] .field-error').textContent,
                 card.querySelector('.field[data-field=port] input').getAttribute('aria-invalid'),
                 card.classList.contains('done'),
                 [...card.querySelectorAll('.field-error')].filter(e => !e.hidden).length,
                 document.activeElement === card.querySelector('.field[data-field=port] input')]",
        json!([]),
    );
    assert!(refused[0].as_str().unwrap().contains("1024"), "{refused}");
    assert_eq!(
        refused.as_array().unwrap()[1..],
        [json!("true"), json!(false), json!(1), json!(true)]
    );

    // 8080 fits the form, but the tool finds it taken: asked again in the same place, with
    // the tool's error above the form and what was entered.
    retype(&browser, PORT, "8080");
    browser.press(&[key::ENTER]);
    browser.wait_until(
        "const cards = document.querySelectorAll('#log .card.input');
         const error = cards.length === 1 && cards[0].querySelector('.reprompt');
         return !!error && !error.hidden && error.textContent === 'Port 8080 is taken'",
        "the tool's reprompt takes the card's place",
    );
    let kept = browser.script(
        "const card = document.querySelector('.card.input');
         return [card.querySelector('.field[data-field=port] input').value,
                 card.querySelector('select').value, !!card.closest('details.tool'),
                 card.firstElementChild.nextElementSibling.classList.contains('reprompt')]",
        json!([]),
    );
    assert_eq!(kept, json!(["8080", "prod", true, true]));
    browser.screenshot("gateway-input-form-reprompt");

    retype(&browser, PORT, "9090");
    browser.press(&[key::ENTER]);
    answered(&browser, "Listening.");
    browser.screenshot("gateway-input-form-completed");
    let completed = browser.script(
        "const card = document.querySelector('.card.input.done');
         return [[...card.querySelectorAll('.completed li')].map(li => li.textContent),
                 card.querySelectorAll('input, select, textarea, button').length,
                 !!card.querySelector('.by')]",
        json!([]),
    );
    let lines = completed[0].as_array().unwrap();
    assert!(lines.contains(&json!("Port: 9090")), "{completed}");
    assert_eq!(completed.as_array().unwrap()[1..], [json!(0), json!(false)]);
    // The tool heard 8080 and 9090, typed; 80 never reached it.
    let result = server.requests().last().unwrap().result_of("l1");
    assert!(
        result.contains("\"port\":8080") && result.contains("\"port\":9090"),
        "{result}"
    );
    assert!(result.contains("\"mode\":\"prod\""), "{result}");
    assert!(!result.contains("\"port\":80,"), "{result}");
}

#[test]
fn a_questionnaire_is_a_block_of_its_own_and_shows_its_summary_after_a_reload() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-form-questionnaire");
    user_tools(&home, &["dinner"]);
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("d1", "dinner", "{}")]),
        Reply::text(&["Cooking."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    chat(&browser, &gateway.page(), "plan dinner");
    let guests = "#log > .card.input.questionnaire .field[data-field=guests] input";
    browser.find(guests);
    browser.type_into(guests, "4");
    browser.script(
        "document.querySelector('.card.questionnaire select').value = 'curry'",
        json!([]),
    );
    browser.click(".card.questionnaire button[type=submit]");
    answered(&browser, "Cooking.");
    let result = server.requests().last().unwrap().result_of("d1");
    assert!(
        result.contains("\"guests\":4") && result.contains("\"dish\":\"curry\""),
        "{result}"
    );
    // After a reload, the replayed block shows the summary the tool chose, and nothing else.
    browser.refresh();
    browser.wait_until(
        "return !!document.querySelector('#log > .card.questionnaire.done')",
        "the questionnaire is replayed answered",
    );
    let shown = browser.script(
        "const card = document.querySelector('#log > .card.questionnaire.done');
         return [[...card.querySelectorAll('.completed li')].map(li => li.textContent),
                 card.querySelector('.prompt').textContent, !!card.querySelector('.by'),
                 card.querySelectorAll('input, select, button').length,
                 document.querySelectorAll('details.tool .card').length]",
        json!([]),
    );
    assert_eq!(
        shown,
        json!([
            ["Dinner for 4: Green curry"],
            "Dinner on Friday",
            false,
            0,
            0
        ])
    );
}

#[test]
fn an_approval_offers_only_the_scopes_its_tool_offers() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-form-approval");
    user_tools(&home, &["deploy"]);
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("p1", "deploy", "{}")]),
        Reply::text(&["Deployed."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    chat(&browser, &gateway.page(), "deploy it");
    browser.find(".card.approval button[data-deny]");
    let offered = browser.script(
        "return [...document.querySelectorAll('.card.approval button[data-scope]')]
           .map(b => [b.dataset.scope, b.textContent])",
        json!([]),
    );
    assert_eq!(
        offered,
        json!([["once", "Approve once"], ["session", "For this session"]])
    );
    assert!(
        browser
            .text(".card.approval pre")
            .contains("rsync -a site/")
    );
    browser.click(".card.approval button[data-scope=session]");
    answered(&browser, "Deployed.");
    assert!(
        browser
            .text(".card.approval.done .completed")
            .contains("approved for this session")
    );
    let result = server.requests().last().unwrap().result_of("p1");
    let reply: Value = result
        .lines()
        .find_map(|l| l.strip_prefix("reply: "))
        .and_then(|r| serde_json::from_str(r).ok())
        .unwrap_or_else(|| panic!("{result}"));
    assert_eq!(
        (&reply["action"], &reply["approvalScope"]),
        (&json!("approve"), &json!("session"))
    );
}

#[test]
fn esc_closes_an_input_form_and_the_tool_hears_cancel() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-form-esc");
    user_tools(&home, &["dinner"]);
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("d1", "dinner", "{}")]),
        Reply::text(&["No dinner, then."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    chat(&browser, &gateway.page(), "plan dinner");
    browser.find(".card.questionnaire .field[data-field=guests] input");
    // The form took the focus: Esc closes it.
    browser.press(&[key::ESCAPE]);
    answered(&browser, "No dinner, then.");
    assert_eq!(
        browser.text(".card.questionnaire.done .completed"),
        "dismissed without an answer"
    );
    let result = server.requests().last().unwrap().result_of("d1");
    assert!(result.contains("\"action\":\"cancel\""), "{result}");
}
