//! Input forms in the REPL and in `--attach` under a real pseudo-terminal, asked by users' own
//! tools over `@@marvin-interact` (the shell scripts of tests/fixtures/terminal_tools): bounds
//! answered wrongly then rightly, Esc closing the form while the turn goes on, Ctrl+C
//! cancelling the turn with the tool told, and a reprompt from the tool's own check with its
//! error and what was entered kept; the presentation in the tool's block or as a
//! questionnaire, and the completed view. Attached to `marvin serve`: a form its tool left
//! pending answered late (a field the gateway refuses asked again here), a form asked here
//! that another client answers first, and ask_user's question answered with the chooser.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::pty::Pty;
use crate::common::{ReplayServer, Reply, TempDir, marvin};
use crate::gateway::Gateway;

/// Installs the fixture tool `name` (tests/fixtures/terminal_tools/) in the MARVIN_HOME of `home`.
pub(crate) fn install(home: &TempDir, name: &str) {
    crate::common::install_user_tool(home.path(), "terminal_tools", name);
}

pub(crate) fn call(name: &str, args: Value) -> Reply {
    Reply::tool_calls(&[("c1", name, &args.to_string())])
}

/// The REPL in a working directory of its own, where the tools may leave their notes.
fn repl(home: &TempDir, server: &ReplayServer) -> Pty {
    let mut command = marvin(home.path());
    command
        .current_dir(crate::common::work(home.path()))
        .env("OPENAI_COMPAT_URL", server.url())
        .env("TERM", "xterm");
    Pty::spawn(command)
}

/// Each `reply: {…}` line a tool printed, as the action and input it was told.
pub(crate) fn replies(result: &str) -> Vec<Value> {
    result
        .lines()
        .filter_map(|line| line.strip_prefix("reply: "))
        .map(|reply| {
            let reply: Value = serde_json::from_str(reply).unwrap();
            json!({"action": reply["action"], "input": reply["input"]})
        })
        .collect()
}

/// The rows shown from the one that starts with `first` on, `count` of them.
fn rows_from(pty: &Pty, first: &str, count: usize) -> Vec<String> {
    let lines = pty.visible().lines();
    let at = lines
        .iter()
        .position(|line| line.starts_with(first))
        .unwrap_or_else(|| panic!("no row {first:?} in:\n{}", lines.join("\n")));
    lines[at..(at + count).min(lines.len())].to_vec()
}

#[test]
fn an_input_form_with_bounds_is_answered_wrongly_then_rightly_and_the_tool_gets_typed_values() {
    let home = TempDir::new("form-bounds");
    install(&home, "port");
    let server = ReplayServer::start(vec![
        call("port", json!({})),
        Reply::text(&["It listens on 8443."]),
    ]);
    let mut pty = repl(&home, &server);
    pty.wait_for("› ");
    pty.send("start the server\r");
    pty.wait_for("A whole number from 1024 to 65535.");
    pty.send("80\r");
    pty.wait_for_words("Port: \"80\" is not a whole number from 1024 to 65535.");
    // What was typed is there to correct: Ctrl+U clears it.
    pty.send("\x158443\r");
    pty.wait_for("Enter chooses");
    pty.send("2\r");
    pty.wait_for("It listens on 8443.");
    // The fields sit under the tool's line; once answered, the tool's completed view.
    assert_eq!(
        rows_from(&pty, "  [port] Where should it listen?", 10),
        [
            "  [port] Where should it listen?",
            "    Enter keeps what is shown · Esc closes the form · Ctrl+C cancels the turn",
            "    Port",
            "    A whole number from 1024 to 65535.",
            "    › 80",
            "    ✗ Port: \"80\" is not a whole number from 1024 to 65535.",
            "    › 8443",
            "    TLS",
            "    › No",
            "    ✓ Listening on 8443",
        ]
    );
    // Only the answer that fits reached the tool, typed.
    let result = server.requests()[1].last_tool_result();
    assert_eq!(
        replies(&result),
        [json!({"action": "submit", "input": {"port": 8443, "tls": false}})]
    );
    assert!(pty.leave().success());
}

#[test]
fn esc_closes_the_form_the_tool_hears_it_dismissed_and_the_turn_goes_on() {
    let home = TempDir::new("form-esc");
    install(&home, "port");
    let server = ReplayServer::start(vec![
        call("port", json!({})),
        Reply::text(&["Then it does not start."]),
    ]);
    let mut pty = repl(&home, &server);
    pty.wait_for("› ");
    pty.send("start the server\r");
    pty.wait_for("Esc closes the form");
    pty.send("\x1b");
    pty.wait_for("Then it does not start.");
    pty.wait_for_words("✗ dismissed without an answer");
    let result = server.requests()[1].last_tool_result();
    assert_eq!(
        replies(&result),
        [json!({"action": "cancel", "input": null})]
    );
    assert!(!pty.screen().contains("[Cancelled]"), "{}", pty.screen());
    assert!(pty.leave().success());
}

#[test]
fn ctrl_c_in_an_open_form_cancels_the_turn_and_the_tool_hears_it_cancelled() {
    let home = TempDir::new("form-ctrl-c");
    install(&home, "hold");
    let server = ReplayServer::start(vec![call("hold", json!({})), Reply::text(&["never"])]);
    let mut pty = repl(&home, &server);
    pty.wait_for("› ");
    pty.send("pick a port\r");
    pty.wait_for("Which port?");
    pty.wait_for("Ctrl+C cancels the turn");
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    let marker = home.path().join("work/hold.marker");
    let deadline = Instant::now() + Duration::from_secs(20);
    let heard = loop {
        let heard = std::fs::read_to_string(&marker).unwrap_or_default();
        if heard.contains("\"action\":\"cancelled\"") {
            break heard;
        }
        assert!(
            Instant::now() < deadline,
            "the tool did not hear it cancelled: {heard:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let reply: Value =
        serde_json::from_str(heard.lines().find(|l| l.starts_with('{')).unwrap()).unwrap();
    assert_eq!(reply["action"], "cancelled");
    assert_eq!(server.requests().len(), 1, "nothing more was asked");
    assert!(pty.leave().success());
}

#[test]
fn a_reprompt_from_the_tool_shows_its_error_above_the_questionnaire_and_keeps_what_was_entered() {
    let home = TempDir::new("form-reprompt");
    install(&home, "port");
    let server = ReplayServer::start(vec![
        call("port", json!({"presentation": "questionnaire"})),
        Reply::text(&["It listens on 9090."]),
    ]);
    let mut pty = repl(&home, &server);
    pty.wait_for("› ");
    pty.send("start the server\r");
    pty.wait_for("A whole number from 1024 to 65535.");
    pty.send("8080\r");
    pty.wait_for("Enter chooses");
    pty.send("1\r");
    pty.wait_for("Port 8080 is taken");
    // The field asked again shows what was entered: the last row the block draws.
    pty.wait_for_nth("› 8080", 2);
    // A block of its own under its heading: the tool's error above it, what was entered in
    // its fields.
    assert_eq!(
        rows_from(&pty, "  ✗ Port 8080 is taken", 5),
        [
            "  ✗ Port 8080 is taken",
            "  Enter keeps what is shown · Esc closes the form · Ctrl+C cancels the turn",
            "  Port",
            "  A whole number from 1024 to 65535.",
            "  › 8080",
        ]
    );
    let shown = pty.visible().text();
    assert_eq!(
        shown
            .matches("\n  Where should it listen?\n  ───────────────────────\n")
            .count(),
        2,
        "{shown}"
    );
    pty.send("\x159090\r");
    pty.wait_for_nth("Enter chooses", 2);
    // Yes, chosen before, is chosen still: Enter keeps it.
    pty.send("\r");
    pty.wait_for("It listens on 9090.");
    let result = server.requests()[1].last_tool_result();
    assert_eq!(
        replies(&result),
        [
            json!({"action": "submit", "input": {"port": 8080, "tls": true}}),
            json!({"action": "submit", "input": {"port": 9090, "tls": true}}),
        ]
    );
    assert!(pty.leave().success());
}

#[test]
fn a_form_left_pending_is_answered_late_from_an_attached_terminal_and_starts_a_follow_up_turn() {
    let home = TempDir::new("attach-late-form");
    install(&home, "later");
    let server = ReplayServer::start(vec![
        call("later", json!({})),
        Reply::text(&["It runs on the default port for now."]),
        Reply::text(&["Moving it to 8443."]),
    ]);
    // Every tool is offered: the person's own tool, which "start it" names for the model.
    let gateway = Gateway::start_with(&home, &server.url(), &[("MARVIN_TOOLS", "all")]);
    let (_, mut pty) = gateway.attach_new(&home, 100, 30);
    pty.wait_for("attached› ");
    pty.send("start the server\r");
    pty.wait_for("It runs on the default port for now.");
    // After the turn the question comes again, still open.
    pty.wait_for("An earlier question is still open");
    pty.wait_for_words("Port [port]: A whole number from 1024 to 65535.");
    // Typed out of bounds: the gateway refuses the field, and it is asked here again.
    pty.send("/answer port=80\r");
    pty.wait_for_words("Port: \"80\" is not a whole number from 1024 to 65535.");
    pty.wait_for("Esc closes the form");
    pty.send("\x158443\r");
    pty.wait_for_words("✓ [later] Port: 8443");
    assert!(
        !pty.screen().contains("answered elsewhere"),
        "{}",
        pty.screen()
    );
    // The late answer starts a follow-up turn, shown here as its message.
    let follow_up = "The person answered the earlier question of later (\"Which port should it listen on?\"): Port: 8443";
    pty.wait_for_words(&format!("› {follow_up}"));
    pty.wait_for("Moving it to 8443.");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[2].last_message()["content"], follow_up);
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
}

#[test]
fn a_form_asked_in_an_attached_terminal_stops_when_another_client_answers_it() {
    let home = TempDir::new("attach-elsewhere");
    install(&home, "port");
    let server = ReplayServer::start(vec![
        call("port", json!({})),
        Reply::text(&["It listens on 9000."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let (id, mut pty) = gateway.attach_new(&home, 100, 30);
    pty.wait_for("attached› ");
    pty.send("start the server\r");
    pty.wait_for("Enter fills it in here");
    // Enter on an empty line asks the one form waiting, here.
    pty.send("\r");
    pty.wait_for("Esc closes the form");
    let body = json!({"toolCallId": "c1", "action": "submit", "by": "a-page",
                      "input": {"port": 9000, "tls": true}});
    let path = format!("/api/sessions/{id}/respond");
    assert_eq!(gateway.call("POST", &path, Some(body)).0, 200);
    pty.wait_for_words("(answered elsewhere: submitted");
    // Then what waited meanwhile: the tool's completed view, answered elsewhere.
    pty.wait_for_words("✓ [port] Listening on 9000 (answered elsewhere)");
    pty.wait_for("It listens on 9000.");
    let result = server.requests()[1].last_tool_result();
    assert_eq!(
        replies(&result),
        [json!({"action": "submit", "input": {"port": 9000, "tls": true}})]
    );
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
}

#[test]
fn ask_user_s_questions_are_answered_with_the_chooser_in_an_attached_terminal() {
    let home = TempDir::new("attach-chooser");
    let server = ReplayServer::start(vec![
        crate::common::database_question(),
        Reply::text(&["PostgreSQL it is."]),
    ]);
    let gateway = Gateway::start(&home, &server.url());
    let (_, mut pty) = gateway.attach_new(&home, 100, 30);
    pty.wait_for("attached› ");
    pty.send("set up the database\r");
    pty.wait_for("/answer N (a number, a label, or Other: your own words)");
    // A questionnaire under its heading; Enter on an empty line asks it here.
    pty.wait_for_words("Marvin asks ─────────── [Database] Which database?");
    pty.send("\r");
    pty.wait_for("Enter chooses");
    pty.send("2\r");
    pty.wait_for("([Database] answered: PostgreSQL)");
    pty.wait_for("PostgreSQL it is.");
    let result = server.requests()[1].last_tool_result();
    assert!(
        result.contains(r#""Which database?":"PostgreSQL""#),
        "{result}"
    );
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
}
