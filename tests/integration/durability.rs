//! Nothing the user wrote is lost: marvin killed with SIGKILL mid-turn loses at most that
//! turn, and marvin processes running at once (sub-agents, two terminals) lose no usage and no
//! chat-log line, even when some are killed while they write.

use std::process::{Child, Stdio};
use std::time::Duration;

use crate::common::pty::Pty;
use crate::common::{ReplayServer, Reply, StallServer, TempDir, marvin};
use serde_json::Value;

fn profile_file(home: &TempDir, name: &str) -> std::path::PathBuf {
    home.path().join("marvin-home/profiles/default").join(name)
}

/// Every line of the chat log, each of which must be whole JSON.
/// The chat log's entries, but for the marks where a new conversation starts (each one-shot
/// run writes one: the lines of the conversation are what these tests count).
fn chat_log(home: &TempDir) -> Vec<Value> {
    let entries: Vec<Value> = std::fs::read_to_string(profile_file(home, "chat_log.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line:?}")))
        .collect();
    entries
        .into_iter()
        .filter(|e| !(e["role"] == "system" && e["text"] == "a new conversation starts here"))
        .collect()
}

fn ledger(home: &TempDir) -> Value {
    let text = std::fs::read_to_string(home.path().join("marvin-home/usage.json")).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("usage.json: {e}: {text}"))
}

/// `marvin QUESTION` with nothing on stdin: one answer, as from a script or a sub-agent.
fn ask(home: &TempDir, url: &str, question: &str) -> Child {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", url)
        .env("MARVIN_MODEL", "gpt-4o")
        .arg(question)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command.spawn().unwrap()
}

fn has_corrupt_files(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
}

#[test]
fn kill_9_mid_turn_loses_only_that_turn() {
    let home = TempDir::new("durable-kill");
    let server = ReplayServer::start(vec![Reply::text(&["Apples, noted."])]);
    let first = ask(&home, &server.url(), "remember apples")
        .wait_with_output()
        .unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );

    let stall = StallServer::start(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Half an answ\"}}]}\n\n",
    );
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", stall.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("a question that never finishes\r");
    pty.wait_for("Half an answ");
    assert!(!pty.kill_hard().success());

    // Everything before the killed turn is whole; the killed turn's question is kept too.
    let log = chat_log(&home);
    let texts: Vec<&str> = log.iter().filter_map(|e| e["text"].as_str()).collect();
    assert_eq!(
        texts,
        [
            "remember apples",
            "Apples, noted.",
            "a question that never finishes"
        ]
    );
    assert_eq!(ledger(&home)["llm_turns"], 1);

    // The next run starts cleanly and remembers what came before.
    let server = ReplayServer::start(vec![Reply::text(&["Still here."])]);
    let next = ask(&home, &server.url(), "what did I say?")
        .wait_with_output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&next.stderr);
    assert!(
        next.status.success() && !stderr.contains("marvin:"),
        "{stderr}"
    );
    let prompt = server.requests()[0].body["messages"].to_string();
    assert!(prompt.contains("remember apples"), "{prompt}");
    assert!(!has_corrupt_files(&home.path().join("marvin-home")));
}

#[test]
fn a_fresh_home_opened_by_many_at_once_and_an_empty_file_are_never_taken_for_corrupt() {
    const RUNS: usize = 8;
    const ROUNDS: usize = 10;
    let server = ReplayServer::answering(|_| Reply::text(&["ok"]));
    for round in 0..ROUNDS {
        let home = TempDir::new(&format!("durable-fresh-{round}"));
        let children: Vec<Child> = (0..RUNS)
            .map(|i| ask(&home, &server.url(), &format!("question {i}")))
            .collect();
        for child in children {
            let output = child.wait_with_output().unwrap();
            let said = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "{said}");
            assert!(!said.contains("not valid JSON"), "round {round}: {said}");
        }
        let profile = home.path().join("marvin-home/profiles/default");
        assert!(!has_corrupt_files(&profile), "round {round}");
        assert_eq!(
            std::fs::read_to_string(profile.join("preferences.json")).unwrap(),
            "{}\n"
        );
    }
    // A full disk leaves an empty file: it holds nothing to lose, so it is empty, not corrupt.
    let home = TempDir::new("durable-empty");
    let profile = profile_file(&home, "");
    std::fs::create_dir_all(&profile).unwrap();
    for file in ["preferences.json", "places.json", "tokens.json"] {
        std::fs::write(profile.join(file), "").unwrap();
    }
    let output = ask(&home, &server.url(), "hello")
        .wait_with_output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{said}");
    assert!(!said.contains("not valid JSON"), "{said}");
    assert!(!has_corrupt_files(&profile));
}

#[test]
fn processes_at_once_lose_no_usage_and_no_chat_log_line() {
    const RUNS: usize = 8;
    let home = TempDir::new("durable-concurrent");
    let server = ReplayServer::start((0..RUNS).map(|_| Reply::text(&["ok"])).collect());
    let children: Vec<Child> = (0..RUNS)
        .map(|i| ask(&home, &server.url(), &format!("question {i}")))
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let totals = ledger(&home);
    assert_eq!(totals["llm_turns"], RUNS);
    assert_eq!(totals["input_tokens"], 10 * RUNS);
    assert_eq!(totals["output_tokens"], 5 * RUNS);
    let log = chat_log(&home);
    assert_eq!(log.len(), 2 * RUNS);
    for i in 0..RUNS {
        let question = format!("question {i}");
        assert_eq!(
            log.iter()
                .filter(|e| e["text"] == question.as_str())
                .count(),
            1
        );
    }
}

#[test]
fn processes_killed_while_others_write_leave_every_file_whole() {
    const RUNS: usize = 12;
    let home = TempDir::new("durable-killed-writers");
    let server = ReplayServer::start((0..RUNS).map(|_| Reply::text(&["ok"])).collect());
    let mut children: Vec<Child> = (0..RUNS)
        .map(|i| ask(&home, &server.url(), &format!("question {i}")))
        .collect();
    // Kill every other one at staggered moments: some before, some during, some after their
    // writes to the profile, the chat log and the ledger.
    for (i, child) in children.iter_mut().enumerate().filter(|(i, _)| i % 2 == 0) {
        std::thread::sleep(Duration::from_millis(i as u64));
        let _ = child.kill();
    }
    let mut finished = 0;
    for child in children {
        if child.wait_with_output().unwrap().status.success() {
            finished += 1;
        }
    }
    assert!(finished >= RUNS / 2, "{finished} of {RUNS} finished");
    // Every file parses; the ledger counts at least every run that finished.
    let turns = ledger(&home)["llm_turns"].as_u64().unwrap() as usize;
    assert!(
        (finished..=RUNS).contains(&turns),
        "{turns} turns, {finished} finished"
    );
    let answers = chat_log(&home)
        .iter()
        .filter(|e| e["role"] == "assistant")
        .count();
    assert!((finished..=RUNS).contains(&answers), "{answers} answers");
    for file in ["preferences.json", "saved_places.json", "tokens.json"] {
        let text = std::fs::read_to_string(profile_file(&home, file)).unwrap();
        serde_json::from_str::<Value>(&text).unwrap_or_else(|e| panic!("{file}: {e}: {text:?}"));
    }
    assert!(!has_corrupt_files(&home.path().join("marvin-home")));
}
