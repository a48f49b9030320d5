//! ask_user and approvals as a person sees them on an 80-column terminal: an empty "Other"
//! asks that question again and keeps the answers given, the mark follows the outcome (✓ or
//! ✗), options line up in columns with long descriptions wrapped under themselves, "allow all
//! file edits" turns the rest of the session into accept-edits, and nothing runs past the
//! margin.

use crate::common::pty::{Pty, at_80};
use crate::common::screen::Screen;
use crate::common::{ReplayServer, Reply, TempDir, ticket_round};
use serde_json::{Value, json};

/// The REPL at 80 columns in coding mode, working in `project`, with `prompt` sent.
fn coding_at_80(home: &TempDir, server: &ReplayServer, project: &TempDir, prompt: &str) -> Pty {
    let dir = project.path().to_str().unwrap();
    let mut pty = at_80(home, &server.url(), &[], &["--working-dir", dir]);
    pty.send_in_coding_mode(prompt);
    pty
}

fn ask_user(questions: Value) -> Reply {
    Reply::tool_calls(&[(
        "q1",
        "ask_user",
        &json!({"questions": questions}).to_string(),
    )])
}

/// Two questions: a database, then a name.
fn two_questions() -> Value {
    json!([
        {"header": "Database", "question": "Which database?", "multiSelect": false, "options": [
            {"label": "SQLite", "description": "one file"},
            {"label": "PostgreSQL", "description": "a server"}]},
        {"header": "Name", "question": "What should it be called?", "multiSelect": false, "options": [
            {"label": "alpha", "description": ""},
            {"label": "beta", "description": ""}]}])
}

fn answers(result: &str) -> Value {
    serde_json::from_str::<Value>(result.lines().next().unwrap()).unwrap()["answers"].clone()
}

/// Nothing on screen ran past the right margin.
fn fits_80(screen: &Screen) {
    let wrapped = &screen.wrapped;
    assert!(
        wrapped.is_empty(),
        "wrapped: {wrapped:?}\n{}",
        screen.text()
    );
}

/// The rows from the first one containing `from` to the last one containing `to`.
fn rows_between(screen: &Screen, from: &str, to: &str) -> Vec<String> {
    let lines = screen.lines();
    let start = lines.iter().position(|l| l.contains(from)).unwrap();
    let end = lines.iter().rposition(|l| l.contains(to)).unwrap();
    lines[start..=end].to_vec()
}

/// Waits until the REPL's prompt (`› `, or `> ` without a UTF-8 locale) ends the screen.
fn wait_prompt(pty: &Pty) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let screen = pty.screen();
        let last = screen.rsplit('\n').next().unwrap_or("");
        if last.contains("› ") || last.contains("> ") {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no prompt; screen:\n{screen}"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn an_empty_other_asks_that_question_again_and_keeps_the_answers_given() {
    let home = TempDir::new("asking-other");
    let server = ReplayServer::start(vec![ask_user(two_questions()), Reply::text(&["Noted."])]);
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    pty.send("set it up\r");
    pty.wait_for("Which database?");
    pty.wait_for("Enter chooses");
    pty.send("2\r");
    pty.wait_for("What should it be called?");
    pty.wait_for_nth("Enter chooses", 3);
    pty.send("3\r");
    pty.wait_for("Your answer:");
    pty.send("\r");
    pty.wait_for("Please type an answer after choosing Other");
    // Drawn: the first question, again after "2", the second, again after "3", and now.
    pty.wait_for_nth("Enter chooses", 5);
    // What was chosen is still chosen: Enter takes "Other" again.
    pty.send("\r");
    pty.wait_for_nth("Your answer:", 2);
    pty.send("gamma\r");
    pty.wait_for("Noted.");
    let result = server.requests()[1].last_message()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        answers(&result),
        json!({"Which database?": "PostgreSQL", "What should it be called?": "Other: gamma"})
    );
    let screen = pty.visible();
    let text = screen.text();
    assert_eq!(text.matches("Which database?").count(), 1, "{text}");
    assert_eq!(
        text.matches("What should it be called?").count(),
        1,
        "{text}"
    );
    assert!(text.contains("  ✓ Database: PostgreSQL"), "{text}");
    assert!(text.contains("  ✓ Name: Other: gamma"), "{text}");
    assert!(
        text.contains("  ✗ Please type an answer after choosing Other"),
        "{text}"
    );
    fits_80(&screen);
    pty.leave();
}

#[test]
fn a_dumb_terminal_asks_an_empty_other_again_and_keeps_the_answers_given() {
    let home = TempDir::new("asking-other-dumb");
    let server = ReplayServer::start(vec![ask_user(two_questions()), Reply::text(&["Noted."])]);
    let mut pty = at_80(&home, &server.url(), &[("TERM", "dumb")], &[]);
    pty.wait_for("› ");
    pty.send("set it up\r");
    pty.wait_for("Number:");
    pty.send("1\r");
    pty.wait_for_nth("Number:", 2);
    pty.send("3\r");
    pty.wait_for("Your answer:");
    pty.send("\r");
    pty.wait_for("Please type an answer after choosing Other");
    pty.wait_for_nth("Number:", 3);
    pty.send("2\r");
    pty.wait_for("Noted.");
    let result = server.requests()[1].last_message()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        answers(&result),
        json!({"Which database?": "SQLite", "What should it be called?": "beta"})
    );
    let screen = pty.visible();
    let text = screen.text();
    assert_eq!(text.matches("Which database?").count(), 1, "{text}");
    assert!(
        !pty.screen().contains("\x1b["),
        "no escape sequences on a dumb terminal"
    );
    fits_80(&screen);
    pty.leave();
}

#[test]
fn a_denied_approval_shows_a_cross_and_no_tick() {
    let home = TempDir::new("asking-deny");
    let project = TempDir::new("asking-deny-project");
    let server = ReplayServer::start(vec![
        ticket_round(),
        Reply::tool_calls(&[("c1", "run_command", r#"{"command": "rm -rf build"}"#)]),
        Reply::text(&["Understood."]),
    ]);
    let mut pty = coding_at_80(&home, &server, &project, "clean up");
    pty.wait_for("Enter chooses");
    let offered = pty.visible().text();
    assert!(
        !offered.contains("allow all file edits"),
        "only for file edits: {offered}"
    );
    pty.send("4\r");
    pty.wait_for("What should Marvin do instead?");
    pty.send("keep the build\r");
    pty.wait_for("Understood.");
    let screen = pty.visible();
    let text = screen.text();
    assert!(text.contains("  ✗ denied: keep the build"), "{text}");
    // From the question on, nothing is ticked: the denied call's own line is a cross too.
    let asked = &text[text.find("rm -rf build").unwrap()..];
    assert!(!asked.contains('✓'), "{asked}");
    assert!(
        asked
            .lines()
            .any(|l| l.starts_with("  ✗ run_command  rm -rf build  (")),
        "{asked}"
    );
    fits_80(&screen);
    pty.leave();
}

#[test]
fn without_a_utf8_locale_the_marks_are_ascii() {
    let home = TempDir::new("asking-ascii");
    let project = TempDir::new("asking-ascii-project");
    let dir = project.path().to_str().unwrap();
    let server = ReplayServer::start(vec![
        ticket_round(),
        Reply::tool_calls(&[(
            "c1",
            "run_command",
            r#"{"command": "cargo test --release"}"#,
        )]),
        Reply::tool_calls(&[("c2", "run_command", r#"{"command": "rm -rf build"}"#)]),
        Reply::text(&["Done."]),
    ]);
    let mut pty = at_80(
        &home,
        &server.url(),
        &[("LANG", "C")],
        &["--working-dir", dir],
    );
    wait_prompt(&pty);
    pty.send("!code\r");
    pty.wait_for("Coding mode on");
    wait_prompt(&pty);
    pty.send("test it\r");
    pty.wait_for("Enter chooses");
    let chooser = pty.visible();
    let offered = rows_between(&chooser, "[run_command]", "Enter chooses").join("\n");
    assert!(
        offered.contains("  > 1. Yes, once")
            && offered.contains("Yes, and don't ask again this session for `cargo test ...`")
            && offered.contains("Always in this project, for `cargo test ...`"),
        "{offered}"
    );
    assert!(offered.is_ascii(), "{offered}");
    pty.send("\r");
    pty.wait_for("ok approved once");
    pty.wait_for("rm -rf build");
    pty.wait_for_nth("Enter chooses", 2);
    pty.send("4\r");
    pty.wait_for("What should Marvin do instead?");
    pty.send("\r");
    pty.wait_for("Done.");
    let screen = pty.visible();
    let asked = rows_between(&screen, "[run_command]", "Done.").join("\n");
    assert!(asked.contains("  x denied"), "{asked}");
    assert!(
        pty.screen()
            .contains("Up/Down or 1-4 move | Enter chooses | Ctrl+C cancels"),
        "{asked}"
    );
    assert!(asked.is_ascii(), "{asked}");
    fits_80(&screen);
    // Ctrl+D only once the prompt is back (the terminal's line mode would take it before).
    wait_prompt(&pty);
    pty.send("\x04");
    assert!(pty.wait_exit().success());
}

#[test]
fn option_columns_line_up_and_long_descriptions_wrap_under_themselves() {
    let home = TempDir::new("asking-columns");
    let long = "a server of its own that scales much further, with replication, roles, \
                extensions and backups to look after";
    let questions = json!([{"header": "Database", "question": "Which database should the new service keep its orders, customers and invoices in from now on?", "multiSelect": false, "options": [
        {"label": "SQLite", "description": "one file"},
        {"label": "PostgreSQL", "description": long},
        {"label": "A managed cloud database with automatic failover", "description": "someone else's server"}]}]);
    let server = ReplayServer::start(vec![ask_user(questions), Reply::text(&["Fine."])]);
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    pty.send("pick\r");
    pty.wait_for("Enter chooses");
    let screen = pty.visible();
    fits_80(&screen);
    let lines = screen.lines();
    let row = |text: &str| {
        lines
            .iter()
            .position(|line| line.contains(text))
            .unwrap_or_else(|| panic!("{text:?} not on screen:\n{}", lines.join("\n")))
    };
    // In columns (characters), since the pointer `›` takes more than one byte.
    let column = |line: &str, text: &str| line[..line.find(text).unwrap()].chars().count();
    // The descriptions start in one column, right of the widest label's column.
    let starts = [
        column(&lines[row("one file")], "one file"),
        column(&lines[row("a server of its own")], "a server of its own"),
        column(&lines[row("someone else's")], "someone else's"),
        column(&lines[row("type your own answer")], "type your own answer"),
    ];
    assert!(starts.iter().all(|start| *start == starts[0]), "{starts:?}");
    // The long description goes on in rows of its own, in its column, label column blank.
    let first = row("a server of its own");
    let after: Vec<&String> = lines[first + 1..]
        .iter()
        .take_while(|line| !line.contains("3."))
        .collect();
    assert!(!after.is_empty(), "{lines:?}");
    for line in &after {
        assert_eq!(line.len() - line.trim_start().len(), starts[0], "{line:?}");
    }
    let rest: String = lines[first].chars().skip(starts[0]).collect();
    let continued: String = std::iter::once(rest.as_str())
        .chain(after.iter().map(|line| line.trim()))
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(
        continued,
        long.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    // The question wraps under itself, after the tag.
    let asked = row("Which database should");
    assert!(lines[asked].starts_with("  [Database] Which database should"));
    assert!(lines[asked + 1].starts_with(&" ".repeat("  [Database] ".len())));
    pty.send("\r");
    pty.wait_for("Fine.");
    pty.leave();
}

/// Two files created in one round, a patch, then a command.
fn edits_then_a_command() -> Vec<Reply> {
    let create = |path: &str| json!({"path": path, "content": "one\n"}).to_string();
    let patch = json!({"path": "a.txt", "old_str": "one", "new_str": "two"}).to_string();
    vec![
        ticket_round(),
        Reply::tool_calls(&[
            ("f1", "create_file", &create("a.txt")),
            ("f2", "create_file", &create("b.txt")),
        ]),
        Reply::tool_calls(&[("p1", "apply_patch", &patch)]),
        Reply::tool_calls(&[("c1", "run_command", r#"{"command": "ls"}"#)]),
        Reply::text(&["All done."]),
    ]
}

#[test]
fn allowing_all_file_edits_spares_later_edits_but_not_commands() {
    let home = TempDir::new("asking-all-edits");
    let project = TempDir::new("asking-all-edits-project");
    let server = ReplayServer::start(edits_then_a_command());
    let mut pty = coding_at_80(&home, &server, &project, "make the files");
    pty.wait_for("Enter chooses");
    let offered = pty.visible().text();
    assert!(
        offered.contains("3. Yes, and allow all file edits in this session")
            && offered.contains("5. No, and tell Marvin what to do instead"),
        "{offered}"
    );
    pty.send("3\r");
    pty.wait_for("wants to run:");
    let asked = pty.visible().text();
    assert!(
        asked.contains("File edits go ahead without asking for the rest of this session"),
        "{asked}"
    );
    // One of the two parallel creations asked; the other, and the patch, did not.
    assert_eq!(asked.matches("wants to change").count(), 1, "{asked}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("a.txt")).unwrap(),
        "two\n"
    );
    assert!(project.path().join("b.txt").exists());
    // Commands still ask, and are not offered the file-edit choice. (Drawn: the edit's
    // choices, again after "3", then the command's.)
    pty.wait_for_nth("Enter chooses", 3);
    let commands = pty.visible().text();
    assert!(
        commands.contains("4. No, and tell Marvin what to do instead")
            && !commands.contains("allow all file edits"),
        "{commands}"
    );
    pty.send("1\r");
    pty.wait_for("All done.");
    let screen = pty.visible();
    fits_80(&screen);
    pty.leave();
    // A new session asks again: the grant was never saved.
    let server = ReplayServer::start(vec![
        ticket_round(),
        Reply::tool_calls(&[("f3", "create_file", r#"{"path": "c.txt", "content": "x"}"#)]),
        Reply::text(&["Made."]),
    ]);
    let mut pty = coding_at_80(&home, &server, &project, "one more");
    pty.wait_for("wants to change c.txt");
    pty.wait_for("Enter chooses");
    pty.send("1\r");
    pty.wait_for("Made.");
    pty.leave();
}

#[test]
fn long_commands_paths_and_labels_fit_80_columns() {
    let home = TempDir::new("asking-long");
    let project = TempDir::new("asking-long-project");
    let deep = "src/services/billing/invoices/quarterly_reports_for_the_finance_team.rs";
    let command = format!(
        "cargo test --package billing --test quarterly_reports -- --nocapture --test-threads 1 {}",
        "and_a_very_long_test_name_that_goes_on_and_on_without_any_break_in_it_at_all"
    );
    let create = json!({"path": deep, "content": "fn main() {}\n"}).to_string();
    let server = ReplayServer::start(vec![
        ticket_round(),
        Reply::tool_calls(&[(
            "c1",
            "run_command",
            &json!({"command": command}).to_string(),
        )]),
        Reply::tool_calls(&[("f1", "create_file", &create)]),
        Reply::text(&["Ok."]),
    ]);
    let mut pty = coding_at_80(&home, &server, &project, "go");
    pty.wait_for("Enter chooses");
    let shown = pty.visible();
    fits_80(&shown);
    let shown = shown.text();
    // Every character of the command is shown, over several rows.
    let joined: String = shown.split_whitespace().collect();
    let wanted: String = command.split_whitespace().collect();
    assert!(joined.contains(&wanted), "{shown}");
    assert!(
        shown.contains("2. Yes, and don't ask again this session for `cargo test …`"),
        "{shown}"
    );
    pty.send("2\r");
    pty.wait_for("wants to change");
    pty.wait_for_nth("Enter chooses", 3);
    let shown = pty.visible();
    fits_80(&shown);
    let shown = shown.text();
    let joined: String = shown.split_whitespace().collect();
    let covers = format!("Yes,anddon'taskagainthissessionforcreate_filechangesto{deep}");
    assert!(joined.contains(&covers), "{shown}");
    pty.send("2\r");
    pty.wait_for("Ok.");
    fits_80(&pty.visible());
    pty.leave();
}
