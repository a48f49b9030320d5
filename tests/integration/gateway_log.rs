//! The gateway page's conversation in real headless Chromium (issue 43): a session opened or
//! reloaded shows its latest activity (the question that waits, the last answer), not its top,
//! and leaves a person who scrolled up where they are;
//! a running command shows its output in its block as it comes, and one stopped with the
//! page's Stop says it was stopped there, not by Ctrl+C.

use serde_json::{Value, json};

use crate::common::webdriver::{Browser, key};
use crate::common::{ReplayServer, Reply, TempDir, database_question};
use crate::gateway::Gateway;

/// Starts a session in the page and sends `message`.
fn chat(browser: &Browser, page: &str, message: &str) {
    browser.open(page);
    browser.click("#new-session");
    browser.find("#composer:not([hidden]) #message");
    browser.type_into("#message", message);
    browser.press(&[key::CONTROL, key::ENTER]);
}

/// Waits for the whole of [`story`].
fn told(browser: &Browser) {
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent.includes('Paragraph 60'))",
        "the story is told",
    );
}

/// Sends `message` in the session open, once the turn before is over.
fn say(browser: &Browser, message: &str) {
    browser.wait_until(
        "return !document.getElementById('send').disabled",
        "the turn before is over",
    );
    browser.type_into("#message", message);
    browser.press(&[key::CONTROL, key::ENTER]);
}

/// Waits until the last element matching `css` has its top in the visible part of the log.
fn shown(browser: &Browser, css: &str, what: &str) {
    let script = format!(
        "const all = document.querySelectorAll({}); const node = all[all.length - 1];
         if (!node) return false;
         const top = node.getBoundingClientRect().top, log = document.getElementById('log').getBoundingClientRect();
         return top >= Math.max(log.top, 0) - 1 && top < Math.min(log.bottom, innerHeight)",
        json!(css)
    );
    browser.wait_until(&script, what);
}

/// Whether the top of the log (the session's first message) is in view.
fn top_shown(browser: &Browser) -> Value {
    browser.script(
        "const first = document.querySelector('.bubble.user').getBoundingClientRect();
         return first.bottom > Math.max(document.getElementById('log').getBoundingClientRect().top, 0)",
        json!([]),
    )
}

/// A long answer: the conversation is taller than the window.
fn story() -> Reply {
    let paragraphs: Vec<String> = (1..=60)
        .map(|n| format!("Paragraph {n} of a long story.\n\n"))
        .collect();
    let pieces: Vec<&str> = paragraphs.iter().map(String::as_str).collect();
    Reply::text(&pieces)
}

#[test]
fn a_session_opened_or_reloaded_shows_the_question_that_waits_then_the_last_answer() {
    for (width, name) in [(1000, "desktop"), (360, "phone")] {
        let Some(browser) = Browser::start(width, 700) else {
            return;
        };
        let home = TempDir::new("gateway-log-scroll");
        let server = ReplayServer::start(vec![
            story(),
            database_question(),
            Reply::text(&["PostgreSQL then."]),
        ]);
        let gateway = Gateway::start(&home, &server.url());
        chat(&browser, &gateway.page(), "tell me a story");
        told(&browser);
        say(&browser, "set up the database");
        shown(
            &browser,
            "form.card",
            &format!("{name}: the question in view as it comes"),
        );
        browser.refresh();
        shown(
            &browser,
            "form.card",
            &format!("{name}: the question in view after a reload"),
        );
        assert_eq!(top_shown(&browser), json!(false), "{name}");
        // Opened from the list in a page of its own.
        browser.open(&gateway.page());
        browser.click("#session-list button");
        shown(
            &browser,
            "form.card",
            &format!("{name}: the question in view when opened"),
        );
        browser.click("form.card label.option:nth-of-type(2) input");
        browser.click("form.card button[type=submit]");
        shown(
            &browser,
            ".bubble.assistant",
            &format!("{name}: the answer in view"),
        );
        browser.refresh();
        browser.wait_until(
            "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'PostgreSQL then.')",
            "the reload replays the answer",
        );
        shown(
            &browser,
            ".bubble.assistant",
            &format!("{name}: the last answer in view after a reload"),
        );
    }
}

#[test]
fn a_running_command_shows_its_output_in_its_block_as_it_comes() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-log-progress");
    // The command prints, then waits for `go`: until then it runs.
    let script = "echo compiling one; echo compiling two; while [ ! -e go ]; do sleep 0.05; done; echo finished";
    let command = json!({ "command": script }).to_string();
    let server = ReplayServer::start(crate::common::ticketed(vec![
        Reply::tool_calls(&[("c1", "run_command", &command)]),
        Reply::text(&["Built."]),
    ]));
    let gateway = Gateway::start(&home, &server.url());
    browser.open(&gateway.page());
    browser.click("#coding");
    browser.type_into("#message", "build it");
    browser.press(&[key::CONTROL, key::ENTER]);
    browser.click(".card button[data-scope=once]");
    let block = "const block = [...document.querySelectorAll('details.tool')]
                   .find(b => b.querySelector('summary').textContent.includes('run_command'));";
    browser.wait_until(
        &format!(
            "{block} const live = block && block.querySelector('pre.progress');
             return !!live && block.open && live.textContent === 'compiling one\\ncompiling two'
               && !block.querySelector('pre.result')"
        ),
        "the command's output shows in its block while it runs",
    );
    browser.screenshot("gateway-command-running");
    std::fs::write(home.path().join("go"), "").unwrap();
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'Built.')",
        "the turn goes on after the command",
    );
    let ended = browser.script(
        &format!(
            "{block} return [!!block.querySelector('pre.progress'),
                             block.querySelector('pre.result').textContent.includes('finished')]"
        ),
        json!([]),
    );
    assert_eq!(ended, json!([false, true]));
}

/// Starts a session in coding mode in the page, sends `message` and approves the command.
fn run_in_page(browser: &Browser, page: &str, message: &str) {
    browser.open(page);
    browser.click("#coding");
    browser.type_into("#message", message);
    browser.press(&[key::CONTROL, key::ENTER]);
    browser.click(".card button[data-scope=once]");
}

/// The block of the run_command call, in a script.
const COMMAND_BLOCK: &str = "const block = [...document.querySelectorAll('details.tool')]
    .find(b => b.querySelector('summary').textContent.includes('run_command'));";

#[test]
fn a_command_stopped_from_the_page_says_it_was_stopped_there_not_by_ctrl_c() {
    let Some(browser) = Browser::start(1000, 900) else {
        return;
    };
    let home = TempDir::new("gateway-log-stop");
    let command = json!({"command": "echo begun; sleep 60"}).to_string();
    let server = ReplayServer::start(crate::common::ticketed(vec![
        Reply::tool_calls(&[("c1", "run_command", &command)]),
        Reply::text(&["unused"]),
    ]));
    let gateway = Gateway::start(&home, &server.url());
    run_in_page(&browser, &gateway.page(), "wait a minute");
    browser.wait_until(
        &format!(
            "{COMMAND_BLOCK} const live = block && block.querySelector('pre.progress');
             return !!live && live.textContent === 'begun'"
        ),
        "the command runs",
    );
    browser.click("#cancel");
    browser.wait_until(
        &format!(
            "{COMMAND_BLOCK} const result = block.querySelector('pre.result');
             return !!result && result.textContent.includes('The command was cancelled')"
        ),
        "the command's result comes",
    );
    let said = browser.script(
        &format!("{COMMAND_BLOCK} return block.querySelector('pre.result').textContent"),
        json!([]),
    );
    let said = said.as_str().unwrap();
    assert!(
        said.starts_with(
            "Error: The command was cancelled by the user (Stop in the browser page)."
        ),
        "{said}"
    );
    assert!(!said.contains("Ctrl+C"), "{said}");
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble.error')].some(b => b.textContent === 'the turn was cancelled')",
        "the turn ends cancelled",
    );
}

#[test]
fn a_person_who_scrolled_up_stays_there_while_a_command_streams_its_output() {
    let Some(browser) = Browser::start(1000, 600) else {
        return;
    };
    let home = TempDir::new("gateway-log-scrolled");
    let script = "n=0; while [ ! -e go ]; do n=$((n+1)); echo tick $n; sleep 0.1; done";
    let command = json!({ "command": script }).to_string();
    let server = ReplayServer::start(crate::common::ticketed(vec![
        story(),
        Reply::tool_calls(&[("c1", "run_command", &command)]),
        Reply::text(&["Built."]),
    ]));
    let gateway = Gateway::start(&home, &server.url());
    browser.open(&gateway.page());
    browser.click("#coding");
    browser.type_into("#message", "tell me a story");
    browser.press(&[key::CONTROL, key::ENTER]);
    told(&browser);
    say(&browser, "build it");
    browser.click(".card button[data-scope=once]");
    let live =
        format!("{COMMAND_BLOCK} const live = block && block.querySelector('pre.progress');");
    browser.wait_until(
        &format!("{live} return !!live && live.textContent.includes('tick')"),
        "the command runs",
    );
    // The person scrolls up to read the story while the output keeps coming.
    browser.script(
        &format!(
            "{live} window.seen = live.textContent; document.getElementById('log').scrollTop = 0"
        ),
        json!([]),
    );
    browser.wait_until(
        &format!("{live} return live.textContent !== window.seen"),
        "more output comes",
    );
    std::fs::write(home.path().join("go"), "").unwrap();
    browser.wait_until(
        "return [...document.querySelectorAll('.bubble.assistant')].some(b => b.textContent === 'Built.')",
        "the turn ends",
    );
    let top = browser.script("return document.getElementById('log').scrollTop", json!([]));
    assert_eq!(top, json!(0), "the view stays where the person put it");
}
