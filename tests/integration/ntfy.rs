//! ntfy against a local server speaking its protocol: --ntfy notifications of a run, the
//! subscribe/publish/list tools, and new messages shown before an interactive prompt (one poll
//! answered with the ntfy maintainers' example stream, tests/fixtures/apis/ntfy_json_stream),
//! a long one as one line that `/notifications` shows whole.

use crate::common::pty::Pty;
use crate::common::{self, ReplayServer, Reply, TempDir, fixture, marvin, stderr, stdout};
use serde_json::json;

#[test]
fn ntfy_flag_reports_start_and_finish() {
    let home = TempDir::new("ntfy-flag");
    let server = ReplayServer::start(vec![Reply::text(&["All done."])]);
    let ntfy = ReplayServer::start(vec![Reply::json(200, "{}"), Reply::json(200, "{}")]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .env("NTFY_URL", ntfy.root())
        .args([
            "--non-interactive",
            "--prompt",
            "build it",
            "--ntfy",
            "my-builds",
        ])
        .output()
        .unwrap();
    assert_eq!(stdout(&output), "All done.\n", "{}", stderr(&output));
    let posts = ntfy.requests();
    assert_eq!(posts.len(), 2);
    assert!(posts.iter().all(|p| p.url == "/my-builds"));
    assert_eq!(posts[0].header("title"), Some("Marvin started"));
    assert_eq!(posts[1].header("title"), Some("Marvin finished"));
}

#[test]
fn questions_never_go_to_a_topic_that_could_be_guessed_unless_the_person_insists() {
    let home = TempDir::new("ntfy-guessable");
    let unused = ReplayServer::unused();
    for mode in ["notify", "wait:5", "park"] {
        let output = marvin(home.path())
            .env("OPENAI_COMPAT_URL", unused.url())
            .args(["--non-interactive", "--on-ask", mode, "--ntfy", "my-runs"])
            .args(["--prompt", "deploy"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{mode}: {}", stderr(&output));
        assert!(
            stderr(&output).starts_with("marvin: --ntfy my-runs: whoever can read an ntfy topic can answer the questions sent to it, and this name could be guessed; use one nobody can guess, such as marvin-"),
            "{mode}: {}",
            stderr(&output)
        );
    }
    let server = ReplayServer::start(vec![Reply::text(&["Deployed."])]);
    let ntfy = ReplayServer::start(vec![Reply::json(200, "{}"), Reply::json(200, "{}")]);
    let insisted = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .env("NTFY_URL", ntfy.root())
        .env("MARVIN_NTFY_ANY_TOPIC", "1")
        .env("NTFY_TOKEN", "tk_mine")
        .args([
            "--non-interactive",
            "--on-ask",
            "notify",
            "--ntfy",
            "my-runs",
        ])
        .args(["--prompt", "deploy"])
        .output()
        .unwrap();
    assert_eq!(stdout(&insisted), "Deployed.\n", "{}", stderr(&insisted));
    let posts = ntfy.requests();
    assert_eq!(posts.len(), 2);
    assert!(
        posts
            .iter()
            .all(|p| p.header("authorization") == Some("Bearer tk_mine"))
    );
}

#[test]
fn an_unreachable_ntfy_is_only_a_warning() {
    let home = TempDir::new("ntfy-down");
    let server = ReplayServer::start(vec![Reply::text(&["fine"])]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .env(
            "NTFY_URL",
            format!("http://127.0.0.1:{}", common::closed_port()),
        )
        .args(["--non-interactive", "--prompt", "x", "--ntfy", "t"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stderr(&output).contains("marvin: --ntfy: cannot reach ntfy at"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output)
            .lines()
            .last()
            .unwrap()
            .starts_with("MARVIN_COST:")
    );
}

#[test]
fn subscriptions_are_polled_before_each_prompt() {
    let home = TempDir::new("ntfy-poll");
    let event = json!({"id": "msg1", "time": 1, "event": "message", "topic": "alerts", "title": "Backup", "message": "disk 91% full"});
    // No subscription at the first prompt, so the first request is the second prompt's poll.
    let ntfy = ReplayServer::start(vec![Reply::ndjson(format!("{event}\n"))]);
    let (mut pty, _model) = subscribe_then_ask(&home, "alerts", &ntfy);
    pty.wait_for("🔔 alerts · Backup: disk 91% full");
    pty.wait_for("noted");
    let polls = ntfy.requests();
    assert_eq!(polls.len(), 1);
    assert!(
        polls[0].url.starts_with("/alerts/json?poll=1&since="),
        "{}",
        polls[0].url
    );
    pty.leave();
    let saved = saved_subscriptions(&home);
    assert!(saved.contains("\"since\": \"msg1\""), "{saved}");
}

#[test]
fn a_long_message_shows_one_line_before_the_prompt_and_notifications_shows_it_whole() {
    let home = TempDir::new("ntfy-long");
    // About 900 KB, as a server that takes long messages may send them.
    let long = format!("START {}END", "filler ".repeat(130_000));
    let event = json!({"id": "big1", "time": 1, "event": "message", "topic": "alerts", "title": "Log", "message": long});
    let ntfy = ReplayServer::start(vec![Reply::ndjson(format!("{event}\n"))]);
    let (mut pty, _model) = subscribe_then_ask(&home, "alerts", &ntfy);
    pty.wait_for("noted");
    let lines = pty.visible().lines();
    let shown: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("alerts · Log"))
        .collect();
    assert_eq!(
        shown,
        ["🔔 alerts · Log: START filler filler filler fi… (/notifications shows it whole)"],
        "{lines:?}"
    );
    assert!(pty.screen().len() < 20_000, "the message was printed whole");
    pty.send("/notifications\r");
    pty.wait_for("filler END");
    let screen = pty.screen();
    assert!(screen.contains(&long), "shown whole");
    pty.leave();
    let kept = std::fs::read_to_string(
        home.path()
            .join("marvin-home/profiles/default/ntfy_heard.json"),
    )
    .unwrap();
    assert!(kept.contains(&long));
}

/// A one-shot question says a long message in one line on stderr and keeps it whole for
/// `/notifications`; `--json` gives it whole to the program that reads it.
#[test]
fn a_long_message_is_one_line_on_stderr_and_whole_in_json() {
    let home = TempDir::new("ntfy-long-batch");
    let profile = home.path().join("marvin-home/profiles/default");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::write(
        profile.join("ntfy_subscriptions.json"),
        r#"[{"topic": "alerts", "since": "all"}]"#,
    )
    .unwrap();
    let long = format!("START\n{}END", "filler ".repeat(130_000));
    let event =
        json!({"id": "big1", "time": 1, "event": "message", "topic": "alerts", "message": long});
    let stream = format!("{event}\n");
    let ntfy = ReplayServer::start(vec![Reply::ndjson(stream.clone()), Reply::ndjson(stream)]);
    let model = ReplayServer::start(vec![Reply::text(&["Seen."]), Reply::text(&["Seen."])]);
    let run = |args: &[&str]| {
        marvin(home.path())
            .env("OPENAI_COMPAT_URL", model.url())
            .env("NTFY_URL", ntfy.root())
            .args(args)
            .output()
            .unwrap()
    };
    let output = run(&["anything new?"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stderr(&output).lines().next().unwrap_or_default(),
        "🔔 alerts: START filler filler filler filler f… (/notifications shows it whole)"
    );
    let kept = std::fs::read_to_string(profile.join("ntfy_heard.json")).unwrap();
    let quoted = serde_json::to_string(&format!("alerts: {long}")).unwrap();
    assert!(kept.contains(&quoted), "kept whole");

    let output = run(&["--non-interactive", "--json", "--prompt", "check"]);
    let notified = stdout(&output)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|e| e["type"] == "notification")
        .unwrap();
    assert_eq!(notified["message"], format!("alerts: {long}"));
}

/// A REPL that subscribes to `topic` at its first prompt (a replayed model calls
/// ntfy_subscribe) and asks "anything new?" at its second, polling `ntfy` before it; the model
/// server is returned to live as long as the terminal.
fn subscribe_then_ask(home: &TempDir, topic: &str, ntfy: &ReplayServer) -> (Pty, ReplayServer) {
    let arguments = json!({ "topic": topic }).to_string();
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("s", "ntfy_subscribe", &arguments)]),
        Reply::text(&["subscribed"]),
        Reply::text(&["noted"]),
    ]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("NTFY_URL", ntfy.root())
        .env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send(&format!("follow {topic}\r"));
    pty.wait_for("subscribed");
    pty.send("anything new?\r");
    (pty, model)
}

/// The profile's subscriptions file as saved.
fn saved_subscriptions(home: &TempDir) -> String {
    std::fs::read_to_string(
        home.path()
            .join("marvin-home/profiles/default/ntfy_subscriptions.json"),
    )
    .unwrap()
}

/// The ntfy maintainers' example of a subscription stream (tests/fixtures/apis/
/// ntfy_json_stream.ndjson: an `open`, a message, a `keepalive`): only the message is shown,
/// and the next poll starts after it, not after the keepalive.
#[test]
fn a_polled_stream_shows_its_messages_only() {
    let home = TempDir::new("ntfy-stream");
    let ntfy = ReplayServer::start(vec![Reply::ndjson(
        String::from_utf8(fixture("apis/ntfy_json_stream.ndjson")).unwrap(),
    )]);
    let (mut pty, _model) = subscribe_then_ask(&home, "mytopic", &ntfy);
    pty.wait_for("🔔 mytopic: Disk full");
    pty.wait_for("noted");
    pty.leave();
    let screen = pty.screen();
    assert!(
        !screen.contains("SLiKI64DOt") && !screen.contains("keepalive"),
        "{screen}"
    );
    let saved = saved_subscriptions(&home);
    assert!(saved.contains("\"since\": \"hwQ2YpKdmg\""), "{saved}");
}

/// Seed 002 polls the subscriptions at every submit: a one-shot question and a cron run
/// (`--non-interactive --json`) hear the new message first too, on stderr and as a
/// `notification` event, and the answer on stdout stays the answer alone.
#[test]
fn every_prompt_hears_new_messages_first_not_only_the_repl() {
    let home = TempDir::new("ntfy-every");
    let profile = home.path().join("marvin-home/profiles/default");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::write(
        profile.join("ntfy_subscriptions.json"),
        r#"[{"topic": "mytopic", "since": "all"}]"#,
    )
    .unwrap();
    let stream = String::from_utf8(fixture("apis/ntfy_json_stream.ndjson")).unwrap();
    let ntfy = ReplayServer::start(vec![Reply::ndjson(stream.clone()), Reply::ndjson(stream)]);
    let model = ReplayServer::start(vec![
        Reply::text(&["Nothing else."]),
        Reply::text(&["Done."]),
    ]);
    let run = |args: &[&str]| {
        marvin(home.path())
            .env("OPENAI_COMPAT_URL", model.url())
            .env("NTFY_URL", ntfy.root())
            .args(args)
            .output()
            .unwrap()
    };
    let output = run(&["anything new?"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("🔔 mytopic: Disk full"),
        "{}",
        stderr(&output)
    );
    assert_eq!(stdout(&output).trim(), "Nothing else.");

    let output = run(&["--non-interactive", "--json", "--prompt", "check the disks"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let events: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "notification" && e["message"] == "mytopic: Disk full"),
        "{events:?}"
    );
    let polls = ntfy.requests();
    assert_eq!(polls.len(), 2);
    assert!(
        polls[0].url.starts_with("/mytopic/json?poll=1&since=all"),
        "{}",
        polls[0].url
    );
    assert!(
        polls[1]
            .url
            .starts_with("/mytopic/json?poll=1&since=hwQ2YpKdmg"),
        "{}",
        polls[1].url
    );
}
