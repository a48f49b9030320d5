//! exit_app: the REPL shows the answer and ends (status 0, no prompt after it); a
//! non-interactive run ends as usual, its answer printed and its cost line last.

use crate::common::pty::Pty;
use crate::common::{
    ReplayServer, Reply, TempDir, last_stderr_line, marvin, non_interactive, stdout,
};

fn goodbye() -> ReplayServer {
    ReplayServer::start(vec![
        Reply::tool_calls(&[("1", "exit_app", "{}")]),
        Reply::text(&["Goodbye, ", "and thanks for all the fish."]),
    ])
}

#[test]
fn the_repl_shows_the_answer_then_ends() {
    let home = TempDir::new("exit-repl");
    let server = goodbye();
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("I'm done for today, close Marvin\r");
    pty.wait_for("thanks for all the fish.");
    let status = pty.wait_exit();
    assert_eq!(status.code(), Some(0), "{}", pty.screen());
    let screen = pty.screen();
    let after = &screen[screen.find("thanks for all the fish.").unwrap()..];
    assert!(
        !after.contains("› "),
        "a prompt after the answer:\n{screen}"
    );
    // The model was told what happens and asked for its goodbye.
    let told = server.requests()[1].last_tool_result();
    assert_eq!(
        told,
        "Marvin ends once this answer is shown: say a short goodbye, and call no more tools."
    );
}

#[test]
fn a_first_question_that_ends_marvin_ends_it_before_any_prompt() {
    let home = TempDir::new("exit-first");
    let server = goodbye();
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("TERM", "xterm")
        .arg("quit please");
    let mut pty = Pty::spawn(command);
    pty.wait_for("thanks for all the fish.");
    assert_eq!(pty.wait_exit().code(), Some(0), "{}", pty.screen());
    // The question shown as asked, and no prompt after the answer.
    let screen = pty.screen();
    assert!(screen.contains("› quit please"), "{screen}");
    assert_eq!(screen.matches("› ").count(), 1, "{screen}");
}

#[test]
fn a_non_interactive_run_ends_cleanly_after_the_answer() {
    let home = TempDir::new("exit-batch");
    let server = goodbye();
    let mut command = marvin(home.path());
    command.env("OPENAI_COMPAT_URL", server.url());
    let output = non_interactive(&mut command, "quit");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "  🔧 exit_app\nGoodbye, and thanks for all the fish.\n"
    );
    assert!(last_stderr_line(&output).starts_with("MARVIN_COST:"));
    assert_eq!(server.requests().len(), 2);
}
