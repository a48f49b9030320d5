//! Runs parked on a question (`--on-ask park`) and answered later through the real binary:
//! the run stops after its round and exits 4, `--pending` lists it, a wrong `--answer` is
//! refused before anything runs, the right one makes the call again (its result is the
//! answer) and the turn completes; an expired one is dropped.

use serde_json::{Value, json};

use crate::common::ntfy::{NtfyServer, press};
use crate::common::{
    self, ReplayServer, Reply, TempDir, database_question, in_project, marvin, stderr,
};

fn command(c: &str) -> Reply {
    let arguments = json!({ "command": c }).to_string();
    Reply::tool_calls(&[("c1", "run_command", &arguments)])
}

fn events(output: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The `parked` event a `--json` run ended with.
fn parked_event(output: &std::process::Output) -> Value {
    events(output)
        .into_iter()
        .find(|e| e["type"] == "parked")
        .expect("a parked event")
}

/// The id of the session a `--json` run parked.
fn parked_id(output: &std::process::Output) -> String {
    parked_event(output)["session"]
        .as_str()
        .unwrap()
        .to_string()
}

/// `marvin --non-interactive --json --on-ask park` in `home` with `prompt`.
/// The commands write into `out/`: the sandbox lets them add nothing at the top of the home,
/// which holds Marvin's.
fn parked_run(home: &TempDir, server: &ReplayServer, prompt: &str) -> std::process::Output {
    std::fs::create_dir_all(home.path().join("out")).unwrap();
    in_project(home.path(), &server.url(), home.path())
        .env("MARVIN_MODEL", "gpt-4o")
        .args(["--non-interactive", "--json", "--on-ask", "park"])
        .args(["--permission-mode", "default", "--prompt", prompt])
        .output()
        .unwrap()
}

fn answering(
    home: &TempDir,
    server: &ReplayServer,
    id: &str,
    answer: &str,
) -> std::process::Output {
    marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .args(["--resume", id, "--answer", answer])
        .output()
        .unwrap()
}

#[test]
fn a_parked_approval_is_answered_later_and_the_turn_goes_on() {
    let home = TempDir::new("parked-approval");
    let server = ReplayServer::start(common::ticketed(vec![
        command("echo parked-then-ran > out/made.txt"),
        Reply::text(&["Ran it after all."]),
    ]));
    let output = parked_run(&home, &server, "make the file");
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let parked = parked_event(&output);
    let id = parked["session"].as_str().unwrap().to_string();
    assert_eq!(parked["questions"][0]["type"], "approval");
    assert_eq!(
        parked["questions"][0]["detail"],
        "echo parked-then-ran > out/made.txt"
    );
    let answer_with = format!("marvin --resume {id} --answer once");
    assert_eq!(parked["answer_with"], answer_with.as_str());
    assert!(
        stderr(&output).contains(&answer_with),
        "{}",
        stderr(&output)
    );
    assert!(
        !home.path().join("out/made.txt").exists(),
        "nothing ran before the answer"
    );
    // Only the ticket round and the parked round reached the model.
    assert_eq!(server.requests().len(), 2);

    let pending = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .arg("--pending")
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&pending.stdout).to_string();
    assert!(listed.contains(&id), "{listed}");
    assert!(
        listed.contains("waits for: approve run_command: echo parked-then-ran"),
        "{listed}"
    );
    assert!(listed.contains(&answer_with), "{listed}");

    // An answer that does not fit is refused before anything runs.
    let wrong = answering(&home, &server, &id, "maybe");
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        stderr(&wrong).contains("does not answer an approval"),
        "{}",
        stderr(&wrong)
    );
    assert!(!home.path().join("out/made.txt").exists());
    assert_eq!(server.requests().len(), 2);

    let done = answering(&home, &server, &id, "once");
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    assert_eq!(
        String::from_utf8_lossy(&done.stdout),
        "  🔧 run_command\nRan it after all.\n"
    );
    assert_eq!(
        std::fs::read_to_string(home.path().join("out/made.txt")).unwrap(),
        "parked-then-ran\n"
    );
    // The model saw the round as if it had never stopped: its call, then the command's result.
    let sent = &server.requests()[2];
    let result = sent.result_of("c1");
    assert!(!result.contains("parked"), "{result}");
    let messages = sent.body["messages"].as_array().unwrap();
    assert!(messages.iter().any(|m| m["content"] == "make the file"));

    let pending = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .arg("--pending")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&pending.stdout).contains("No run waits for an answer."));
    let again = answering(&home, &server, &id, "once");
    assert!(
        stderr(&again).contains("does not wait for an answer"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn a_parked_question_takes_an_options_number_and_an_expired_run_is_dropped() {
    let home = TempDir::new("parked-question");
    let server = ReplayServer::start(vec![
        database_question(),
        Reply::text(&["PostgreSQL it is."]),
    ]);
    let output = parked_run(&home, &server, "pick a database");
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let id = parked_id(&output);
    assert!(
        stderr(&output).contains(&format!("--resume {id} --answer SQLite")),
        "{}",
        stderr(&output)
    );
    let done = answering(&home, &server, &id, "2");
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    let result = server.requests()[1].result_of("q1");
    assert!(result.contains("PostgreSQL"), "{result}");

    // A run nobody answered in time loses its question when it is looked for; the
    // conversation stays.
    let server = ReplayServer::start(vec![database_question()]);
    let output = parked_run(&home, &server, "pick again");
    let id = parked_id(&output);
    let meta_file = home
        .path()
        .join("marvin-home/sessions")
        .join(&id)
        .join("meta.json");
    let mut meta: Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_file).unwrap()).unwrap();
    meta["parked"]["expires_at"] = json!("2020-01-01T00:00:00Z");
    std::fs::write(&meta_file, meta.to_string()).unwrap();
    let late = answering(&home, &server, &id, "1");
    assert_eq!(late.status.code(), Some(1));
    assert!(
        stderr(&late).contains("with nobody answering: its question is dropped"),
        "{}",
        stderr(&late)
    );
    let meta: Value = serde_json::from_str(&std::fs::read_to_string(&meta_file).unwrap()).unwrap();
    assert!(meta.get("parked").is_none(), "{meta}");
}

#[test]
fn a_number_that_is_no_option_is_refused_and_other_gives_it_as_words() {
    let home = TempDir::new("parked-no-option");
    let server = ReplayServer::start(vec![database_question(), Reply::text(&["Seven it is."])]);
    let output = parked_run(&home, &server, "pick a database");
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let id = parked_id(&output);

    // Not sent as the words "7": refused before anything runs, the run still parked.
    let wrong = answering(&home, &server, &id, "7");
    assert_eq!(wrong.status.code(), Some(1));
    let said = "marvin: --answer \"7\": There is no option 7: the options are 1 to 2. To answer 7 in your own words, write Other: 7\n";
    assert!(stderr(&wrong).starts_with(said), "{}", stderr(&wrong));
    assert_eq!(server.requests().len(), 1, "nothing ran");

    let done = answering(&home, &server, &id, "Other: 7");
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    let result = server.requests()[1].result_of("q1");
    assert!(result.contains(r#""Other: 7""#), "{result}");
}

#[test]
fn a_parked_run_is_taken_up_in_the_repl_and_its_question_asked_there() {
    let home = TempDir::new("parked-repl");
    let server = ReplayServer::start(common::ticketed(vec![
        command("echo answered-at-the-prompt > out/made.txt"),
        Reply::text(&["Made it."]),
    ]));
    let output = parked_run(&home, &server, "make the file");
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let id = parked_id(&output);
    let mut pty = common::pty::at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("1 run parked on a question waits for your answer: /pending shows it");
    pty.wait_for("› ");
    assert!(!pty.screen().contains("Resumed"), "{}", pty.screen());
    pty.send("/pending\r");
    pty.wait_for("waits for: approve run_command: echo answered-at-the-prompt");
    pty.send(&format!("/pending {id}\r"));
    pty.wait_for("Enter chooses");
    assert!(!home.path().join("out/made.txt").exists());
    pty.send("\r");
    pty.wait_for("Made it.");
    assert!(pty.leave().success());
    assert_eq!(
        std::fs::read_to_string(home.path().join("out/made.txt")).unwrap(),
        "answered-at-the-prompt\n"
    );
    let sessions = marvin(home.path()).arg("--pending").output().unwrap();
    assert!(
        String::from_utf8_lossy(&sessions.stdout).contains("No run waits"),
        "{}",
        stderr(&sessions)
    );
}

#[test]
fn a_parked_question_sent_to_the_phone_is_answered_there_and_taken_up_by_resume() {
    let home = TempDir::new("parked-phone");
    let ntfy = NtfyServer::start();
    let server = ReplayServer::start(common::ticketed(vec![
        command("echo from-the-phone > out/phoned.txt"),
        Reply::text(&["Done from the phone."]),
    ]));
    std::fs::create_dir_all(home.path().join("out")).unwrap();
    let output = in_project(home.path(), &server.url(), home.path())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("NTFY_URL", ntfy.root())
        .args([
            "--non-interactive",
            "--on-ask",
            "park",
            "--ntfy",
            "marvin-runs-5e0c2b9a41f7d36e",
        ])
        .args(["--permission-mode", "default", "--prompt", "make it"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let asked = ntfy.asked("marvin-runs-5e0c2b9a41f7d36e");
    let message = asked["message"].as_str().unwrap().to_string();
    let id = message
        .rsplit("marvin --resume ")
        .next()
        .unwrap()
        .trim()
        .to_string();
    assert!(stderr(&output).contains(&format!("--resume {id} --answer once")));
    let resume = || {
        marvin(home.path())
            .env("OPENAI_COMPAT_URL", server.url())
            .env("MARVIN_MODEL", "gpt-4o")
            .args(["--resume", &id])
            .output()
            .unwrap()
    };
    let early = resume();
    assert_eq!(early.status.code(), Some(1));
    assert!(
        stderr(&early).contains("the phone has not answered yet"),
        "{}",
        stderr(&early)
    );
    press(&asked["actions"][0]);
    let done = resume();
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    assert!(String::from_utf8_lossy(&done.stdout).ends_with("Done from the phone.\n"));
    assert_eq!(
        std::fs::read_to_string(home.path().join("out/phoned.txt")).unwrap(),
        "from-the-phone\n"
    );
}

#[test]
fn a_parked_run_can_be_dropped() {
    let home = TempDir::new("parked-drop");
    let server = ReplayServer::start(common::ticketed(vec![command(
        "echo never > out/never.txt",
    )]));
    let output = parked_run(&home, &server, "make the file");
    let id = parked_id(&output);
    let dropped = marvin(home.path()).args(["--drop", &id]).output().unwrap();
    assert_eq!(dropped.status.code(), Some(0), "{}", stderr(&dropped));
    assert!(
        String::from_utf8_lossy(&dropped.stdout)
            .starts_with(&format!("Dropped session {id} (make the file).")),
        "{}",
        String::from_utf8_lossy(&dropped.stdout)
    );
    let late = answering(&home, &server, &id, "once");
    assert_eq!(late.status.code(), Some(1));
    assert!(
        stderr(&late).contains("no session is called or numbered"),
        "{}",
        stderr(&late)
    );
    assert!(!home.path().join("out/never.txt").exists());
}

#[test]
fn an_answer_is_for_the_question_shown_and_another_one_parks_the_run_again() {
    let home = TempDir::new("parked-changed");
    let server = ReplayServer::start(common::ticketed(vec![
        command("echo the-one-approved > out/made.txt"),
        Reply::text(&["Should not get here."]),
    ]));
    let output = parked_run(&home, &server, "make the file");
    let id = parked_id(&output);
    // The call asks something else when it is made again.
    let messages = home
        .path()
        .join("marvin-home/sessions")
        .join(&id)
        .join("messages.json");
    let text = std::fs::read_to_string(&messages).unwrap();
    std::fs::write(
        &messages,
        text.replace("the-one-approved", "something-else"),
    )
    .unwrap();
    let again = answering(&home, &server, &id, "once");
    assert_eq!(again.status.code(), Some(4), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("approve run_command: echo something-else > out/made.txt"),
        "{}",
        stderr(&again)
    );
    assert!(!home.path().join("out/made.txt").exists());
}
