//! An input form left unanswered at the REPL goes to the phone (MARVIN_PHONE_TOPIC) with its
//! fields and how to answer in words: wrong words are told back, right ones answer the form on
//! the terminal too, and the tool gets typed values.

use serde_json::json;

use crate::common::ntfy::{NtfyServer, press};
use crate::common::pty::at_80;
use crate::common::{ReplayServer, Reply, TempDir};
use crate::headless_forms::{TOPIC, call, install, published, reply_in, words_line};

#[test]
fn a_form_at_the_terminal_is_answered_from_the_phone_in_words() {
    let home = TempDir::new("phone-form");
    install(&home, "listen_on");
    let ntfy = NtfyServer::start();
    let server = ReplayServer::start(vec![call("c1", "listen_on"), Reply::text(&["Listening."])]);
    let root = ntfy.root();
    let env = [
        ("NTFY_URL", root.as_str()),
        ("MARVIN_PHONE_TOPIC", TOPIC),
        ("MARVIN_PHONE_AFTER", "0"),
    ];
    let mut pty = at_80(&home, &server.url(), &env, &[]);
    pty.wait_for("› ");
    pty.send("set the server up\r");
    pty.wait_for("Where should it listen?");
    let asked = published(&ntfy, TOPIC, "Marvin asks", 0);
    let text = asked["message"].as_str().unwrap();
    assert!(
        text.contains("port: Port (required). A whole number from 1024 to 65535."),
        "{text}"
    );
    let (url, start) = words_line(&asked);
    press(&json!({"url": url, "body": format!("{start} port=99999")}));
    let told = published(&ntfy, TOPIC, "Marvin: answer not used", 0);
    assert!(
        told["message"].as_str().unwrap().contains("Port: "),
        "{told}"
    );
    press(&json!({"url": url, "body": format!("{start} port=8080, tls=no")}));
    pty.wait_for("answered elsewhere");
    pty.wait_for("Listening.");
    assert!(pty.leave().success());
    let typed = reply_in(&server.requests()[1].last_tool_result());
    assert_eq!(typed["input"], json!({"port": 8080, "tls": false}));
}
