//! A question left unanswered at the REPL goes to the phone (MARVIN_PHONE_TOPIC, after
//! MARVIN_PHONE_AFTER minutes) and the first answer counts: a button on the phone closes the
//! question on the terminal, and an answer at the terminal tells the phone.

use std::time::{Duration, Instant};

use crate::common::ntfy::{NtfyServer, press};
use crate::common::pty::{Pty, at_80};
use crate::common::{ReplayServer, Reply, TempDir, database_question};

/// A REPL whose questions go to the phone at once, asked the database question.
fn asking(home: &TempDir, ntfy: &NtfyServer, server: &ReplayServer) -> Pty {
    let root = ntfy.root();
    let env = [
        ("NTFY_URL", root.as_str()),
        ("MARVIN_PHONE_TOPIC", "my-phone-5e0c2b9a41f7d36e"),
        ("MARVIN_PHONE_AFTER", "0"),
    ];
    let mut pty = at_80(home, &server.url(), &env, &[]);
    pty.wait_for("› ");
    pty.send("set up the database\r");
    pty.wait_for("Which database?");
    pty
}

/// The result the model got for call `q1` in request `index`.
fn result_of_q1(server: &ReplayServer, index: usize) -> String {
    server.requests()[index].result_of("q1")
}

#[test]
fn the_phone_answers_a_question_left_at_the_terminal() {
    let home = TempDir::new("phone-first");
    let ntfy = NtfyServer::start();
    let server = ReplayServer::start(vec![
        database_question(),
        Reply::text(&["PostgreSQL then."]),
    ]);
    let mut pty = asking(&home, &ntfy, &server);
    let asked = ntfy.asked("my-phone-5e0c2b9a41f7d36e");
    assert_eq!(asked["title"], "Marvin asks");
    let buttons = asked["actions"].as_array().unwrap();
    assert_eq!(buttons[1]["label"], "PostgreSQL");
    press(&buttons[1]);
    pty.wait_for("answered elsewhere");
    pty.wait_for("PostgreSQL then.");
    assert!(pty.leave().success());
    assert!(
        result_of_q1(&server, 1).contains("PostgreSQL"),
        "{}",
        result_of_q1(&server, 1)
    );
    // The phone answered: it is not told again.
    assert!(
        !ntfy
            .messages
            .lock()
            .unwrap()
            .iter()
            .any(|(_, m)| m["title"] == "Marvin: question answered")
    );
}

#[test]
fn an_answer_at_the_terminal_wins_and_the_phone_is_told() {
    let home = TempDir::new("phone-second");
    let ntfy = NtfyServer::start();
    let server = ReplayServer::start(vec![database_question(), Reply::text(&["SQLite then."])]);
    let mut pty = asking(&home, &ntfy, &server);
    let asked = ntfy.asked("my-phone-5e0c2b9a41f7d36e");
    pty.send("\r");
    pty.wait_for("SQLite then.");
    let deadline = Instant::now() + Duration::from_secs(20);
    let told = loop {
        let found = ntfy.messages.lock().unwrap().iter().find_map(|(topic, m)| {
            (topic == "my-phone-5e0c2b9a41f7d36e"
                && m["message"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("Answered at the terminal")))
            .then(|| m["message"].as_str().unwrap().to_string())
        });
        if let Some(told) = found {
            break told;
        }
        assert!(Instant::now() < deadline, "the phone was not told");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(told, "Answered at the terminal: answered: SQLite");
    // A late press on the phone changes nothing.
    press(&asked["actions"][1]);
    assert!(pty.leave().success());
    assert!(
        result_of_q1(&server, 1).contains("SQLite"),
        "{}",
        result_of_q1(&server, 1)
    );
    assert_eq!(server.requests().len(), 2);
}
