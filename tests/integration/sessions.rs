//! Sessions that remember, through the real binary: history seeded from the chat log and in
//! the system prompt, profiles and --profile, the shell escape and shell mode, usage and the
//! lifetime ledger, /clear, preferences in $EDITOR, and saved places.

use std::os::unix::fs::PermissionsExt;

use crate::common::pty::Pty;
use crate::common::{ReplayServer, Reply, TempDir, answered, marvin, stderr};
use serde_json::Value;

fn repl(home: &TempDir, server: &ReplayServer, args: &[&str], extra_env: &[(&str, String)]) -> Pty {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("TERM", "xterm")
        .args(args);
    for (key, value) in extra_env {
        command.env(key, value);
    }
    Pty::spawn(command)
}

fn messages(server: &ReplayServer, index: usize) -> Vec<Value> {
    server.requests()[index].body["messages"]
        .as_array()
        .unwrap()
        .clone()
}

fn chat_log(home: &TempDir, profile: &str) -> Vec<Value> {
    let path = home
        .path()
        .join(format!("marvin-home/profiles/{profile}/chat_log.jsonl"));
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_new_session_remembers_the_last_one() {
    let home = TempDir::new("sessions-history");
    let server = ReplayServer::start(vec![Reply::text(&["Hello Ada."])]);
    let mut pty = repl(&home, &server, &[], &[]);
    pty.wait_for("› ");
    pty.send("my name is Ada\r");
    pty.wait_for("Hello Ada.");
    pty.leave();
    let log = chat_log(&home, "default");
    let said: Vec<(&str, &str)> = log
        .iter()
        .map(|e| (e["role"].as_str().unwrap(), e["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        said,
        [("you", "my name is Ada"), ("assistant", "Hello Ada.")]
    );

    let server = ReplayServer::start(vec![Reply::text(&["You are Ada."])]);
    let mut pty = repl(&home, &server, &[], &[]);
    pty.wait_for("› ");
    pty.send("who am I?\r");
    pty.wait_for("You are Ada.");
    let sent = messages(&server, 0);
    let contents: Vec<&str> = sent
        .iter()
        .skip(1)
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["my name is Ada", "Hello Ada.", "who am I?"]);
    // The conversation taken up is in the messages: its digest is not repeated in the prompt.
    let system = sent[0]["content"].as_str().unwrap();
    assert!(
        system.contains("Active profile: default.") && !system.contains("Recent conversation"),
        "{system}"
    );
    // /clear forgets the conversation but not the log.
    pty.send("/clear\r");
    pty.wait_for("The conversation is cleared");
    pty.leave();
    // The session is stored, named after its first message, private to the user.
    let sessions = home.path().join("marvin-home").join("sessions");
    let mode = std::fs::metadata(&sessions).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    let stored: Vec<_> = std::fs::read_dir(&sessions).unwrap().collect();
    assert_eq!(stored.len(), 1);
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(stored[0].as_ref().unwrap().path().join("meta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(meta["name"], "my name is Ada");
    assert_eq!(meta["messages"], 4);
}

#[test]
fn profiles_switch_keep_their_own_history_and_are_remembered() {
    let home = TempDir::new("sessions-profiles");
    let server = ReplayServer::start(vec![Reply::text(&["noted at work"])]);
    let mut pty = repl(&home, &server, &[], &[]);
    pty.wait_for("› ");
    pty.send("profiles work\r");
    pty.wait_for("Now using profile work.");
    pty.send("the build server is b7\r");
    pty.wait_for("noted at work");
    pty.send("profiles\r");
    pty.wait_for("* work");
    assert!(pty.screen().contains("  default"), "{}", pty.screen());
    pty.leave();
    assert_eq!(chat_log(&home, "work").len(), 2);
    assert!(chat_log(&home, "default").is_empty());
    // The next run starts in the last profile; --profile picks another.
    let server = ReplayServer::start(vec![Reply::text(&["b7"])]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .arg("which server?")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        messages(&server, 0)[0]["content"]
            .as_str()
            .unwrap()
            .contains("Active profile: work.")
    );
    let server = ReplayServer::start(vec![Reply::text(&["?"])]);
    marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .args(["--profile", "home", "hi"])
        .output()
        .unwrap();
    assert!(
        messages(&server, 0)[0]["content"]
            .as_str()
            .unwrap()
            .contains("Active profile: home.")
    );
    let bad = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .args(["--profile", "../x", "hi"])
        .output()
        .unwrap();
    assert!(
        stderr(&bad).contains("profile name \"../x\" must be 1-40 letters"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn shell_escape_and_shell_mode() {
    let home = TempDir::new("sessions-shell");
    let server = ReplayServer::unused();
    let mut pty = repl(&home, &server, &[], &[]);
    pty.wait_for("› ");
    pty.send("!echo escaped-$((6*7))\r");
    pty.wait_for("escaped-42");
    pty.send("!sh\r");
    pty.wait_for("sh› ");
    pty.send("echo in-shell-mode; false\r");
    pty.wait_for("in-shell-mode");
    pty.wait_for("(exit 1)");
    // Marvin's own `!` commands still work there; anything else is bash.
    pty.send("!v 0\r");
    pty.wait_for("!v takes");
    pty.send("!sh\r");
    pty.wait_for("Shell mode off.");
    assert!(pty.leave().success());
}

#[test]
fn the_shell_escape_runs_where_set_working_dir_moved_the_tools() {
    let home = TempDir::new("sessions-cwd");
    std::fs::create_dir(home.path().join("sub")).unwrap();
    let sub = std::fs::canonicalize(home.path().join("sub")).unwrap();
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("1", "set_working_dir", r#"{"path": "sub"}"#)]),
        Reply::text(&["moved"]),
    ]);
    let mut pty = repl(&home, &server, &[], &[]);
    pty.wait_for("› ");
    pty.send("!code\r");
    pty.wait_for("code› ");
    pty.send("change the working folder to sub\r");
    pty.wait_for("moved");
    pty.send("!pwd -P; echo pwd-done\r");
    // The typed line itself ends in "pwd-done": wait for the command's output, the directory
    // and then the marker (the wait fails the test, with the screen, if it never comes).
    pty.wait_for(&format!("{}\r\npwd-done", sub.display()));
    pty.leave();
}

#[test]
fn warnings_from_below_the_front_end_reach_the_screen() {
    let home = TempDir::new("sessions-warnings");
    let marvin_home = home.path().join("marvin-home");
    // A chat log that cannot be written, and a corrupt approvals file.
    std::fs::create_dir_all(marvin_home.join("profiles/default/chat_log.jsonl")).unwrap();
    std::fs::write(marvin_home.join("approvals.json"), "{broken").unwrap();
    let server = ReplayServer::start(vec![Reply::text(&["still here"])]);
    let mut pty = repl(&home, &server, &[], &[]);
    pty.wait_for("› ");
    // Between turns: a command read the corrupt file, and the REPL says so after it.
    pty.send("/approvals\r");
    pty.wait_for("No lasting approvals in this project.");
    pty.wait_for_words("approvals.json was not valid JSON");
    assert!(
        marvin_home.read_dir().unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("approvals.json.corrupt-")),
        "the corrupt file is moved aside"
    );
    // During a turn: the session could not log it, and the turn went on.
    pty.send("hello\r");
    pty.wait_for("marvin: cannot write the chat log in");
    pty.wait_for("still here");
    pty.leave();
}

#[test]
fn usage_shows_the_session_and_all_time() {
    let home = TempDir::new("sessions-usage");
    for round in 1..=2 {
        let server = ReplayServer::start(vec![Reply::text(&["ok"])]);
        let mut pty = repl(&home, &server, &[], &[]);
        pty.wait_for("› ");
        pty.send("hello\r");
        pty.wait_for("ok");
        pty.send("usage\r");
        pty.wait_for(&format!("All time      {round} model call"));
        assert!(
            pty.screen()
                .contains("This session  1 model call, 10 tokens in / 5 out"),
            "{}",
            pty.screen()
        );
        pty.leave();
    }
    let ledger: Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join("marvin-home/usage.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(ledger["llm_turns"], 2);
    assert_eq!(ledger["model_turns"]["gpt-4o"], 2);
}

#[test]
fn preferences_are_edited_safely_and_reach_the_prompt() {
    let home = TempDir::new("sessions-prefs");
    let editor = home.path().join("editor.sh");
    std::fs::write(&editor, "#!/bin/sh\nprintf '%s' \"$NEXT_PREFS\" > \"$1\"\n").unwrap();
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = ReplayServer::start(vec![Reply::text(&["metric it is"])]);
    let env = [
        ("EDITOR", editor.display().to_string()),
        ("NEXT_PREFS", r#"{"units": "metric"}"#.to_string()),
    ];
    let mut pty = repl(&home, &server, &[], &env);
    pty.wait_for("› ");
    pty.send("preferences\r");
    pty.wait_for("Preferences saved.");
    pty.send("how warm is 20 degrees?\r");
    pty.wait_for("metric it is");
    assert!(
        messages(&server, 0)[0]["content"]
            .as_str()
            .unwrap()
            .contains(r#"The user's preferences: {"units":"metric"}"#)
    );
    pty.leave();
    let env = [
        ("EDITOR", editor.display().to_string()),
        ("NEXT_PREFS", "{broken".to_string()),
    ];
    let mut pty = repl(&home, &ReplayServer::unused(), &[], &env);
    pty.wait_for("› ");
    pty.send("preferences\r");
    pty.wait_for("Preferences not changed: that is not valid JSON");
    pty.leave();
    let kept = std::fs::read_to_string(
        home.path()
            .join("marvin-home/profiles/default/preferences.json"),
    )
    .unwrap();
    assert_eq!(kept, r#"{"units": "metric"}"#);
}

#[test]
fn saved_places_are_kept_in_the_profile() {
    let home = TempDir::new("sessions-places");
    let save = serde_json::json!({"label": "gym", "name": "Iron Works", "address": "5 Steel Rd"})
        .to_string();
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("p", "save_place", &save)]),
        Reply::text(&["saved"]),
    ]);
    let mut pty = repl(&home, &server, &[], &[]);
    pty.wait_for("› ");
    pty.send("remember my gym\r");
    pty.wait_for("saved");
    pty.send("saved\r");
    pty.wait_for("gym: Iron Works, 5 Steel Rd");
    pty.leave();
}

#[test]
fn scripts_do_not_write_into_the_chat_log() {
    let home = TempDir::new("sessions-scripts");
    let server = ReplayServer::start(vec![Reply::text(&["done"])]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .args(["--non-interactive", "--prompt", "x"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(chat_log(&home, "default").is_empty());
}

#[test]
fn project_instructions_reach_the_prompt_outside_coding_mode_too() {
    let home = TempDir::new("sessions-instructions");
    let project = home.path().join("project");
    std::fs::create_dir_all(project.join(".marvin")).unwrap();
    std::fs::write(project.join(".marvin-instructions"), "Answer in French.").unwrap();
    std::fs::write(
        project.join(".marvin/spec.md"),
        "The spec: a tiny calculator.",
    )
    .unwrap();
    let server = ReplayServer::start(vec![Reply::text(&["Oui."])]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .current_dir(&project)
        .arg("hello")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let system = messages(&server, 0)[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let instructions = system.find("Answer in French.").expect(&system);
    let spec = system.find("The spec: a tiny calculator.").expect(&system);
    assert!(instructions < spec, "instructions come before the spec");
    assert!(
        !system.contains("create_file"),
        "no coding rules outside coding mode"
    );
}

/// The messages of request `index` after the system prompt, as text.
fn said_to_model(server: &ReplayServer, index: usize) -> Vec<String> {
    messages(server, index)[1..]
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn one_shot_runs_go_on_with_dash_c_and_resume_picks_a_session_by_name() {
    let home = TempDir::new("sessions-continue");
    let server = ReplayServer::start(vec![
        Reply::text(&["Hello Ada."]),
        Reply::text(&["You are Ada."]),
        Reply::text(&["Who?"]),
        Reply::text(&["Still Ada."]),
    ]);
    answered(&home, &server, &["my name is Ada"]);
    answered(&home, &server, &["-c", "who am I?"]);
    assert_eq!(
        said_to_model(&server, 1),
        ["my name is Ada", "Hello Ada.", "who am I?"]
    );
    // Without -c a one-shot run starts fresh.
    answered(&home, &server, &["who am I?"]);
    assert_eq!(said_to_model(&server, 2), ["who am I?"]);
    // By name (any case), from elsewhere: the session's own directory is where it works.
    let elsewhere = home.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .current_dir(&elsewhere)
        .args([
            "--non-interactive",
            "--resume",
            "MY NAME IS ADA",
            "and now?",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        said_to_model(&server, 3)[..4],
        ["my name is Ada", "Hello Ada.", "who am I?", "You are Ada."]
    );
    let system = messages(&server, 3)[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains(&format!("Working directory: {}\n", home.path().display())),
        "{system}"
    );
    let missing = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .args(["--resume", "nothing-like-it", "hi"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("`marvin --resume` lists them"),
        "{}",
        stderr(&missing)
    );
    // Without a terminal --resume alone cannot pick: it lists them.
    let listed = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .arg("--resume")
        .output()
        .unwrap();
    assert_eq!(listed.status.code(), Some(1));
    assert!(
        stderr(&listed).contains("my name is Ada"),
        "{}",
        stderr(&listed)
    );
}

#[test]
fn sessions_are_listed_renamed_forked_and_taken_up_in_the_repl() {
    let home = TempDir::new("sessions-repl");
    let server = ReplayServer::start(vec![
        Reply::text(&["Noted."]),
        Reply::text(&["On the fork."]),
        Reply::text(&["Back on the original."]),
    ]);
    let mut pty = repl(&home, &server, &[], &[]);
    pty.wait_for("› ");
    pty.send("the parser drops empty lists\r");
    pty.wait_for("2 messages");
    pty.send("/rename parser-fix\r");
    pty.wait_for("This session is now called \"parser-fix\".");
    pty.send("/fork\r");
    pty.wait_for("Forked: this is now session");
    pty.send("try the fork\r");
    pty.wait_for("4 messages");
    pty.send("/sessions\r");
    pty.wait_for("Sessions (/resume NAME or ID takes one up");
    pty.wait_for("parser-fix ·");
    pty.wait_for_nth("parser-fix (fork)", 2);
    pty.send("/resume parser-fix\r");
    pty.wait_for("Took up session");
    pty.send("and the original?\r");
    pty.wait_for("Back on the original.");
    pty.leave();
    // The original did not get the fork's turn.
    assert_eq!(
        said_to_model(&server, 2),
        [
            "the parser drops empty lists",
            "Noted.",
            "and the original?"
        ]
    );
    assert_eq!(
        said_to_model(&server, 1),
        ["the parser drops empty lists", "Noted.", "try the fork"]
    );
}

#[test]
fn a_session_open_in_one_marvin_is_not_taken_up_by_another_and_resume_picks_from_a_list() {
    let home = TempDir::new("sessions-claimed");
    let server = ReplayServer::start(vec![
        Reply::text(&["First."]),
        Reply::text(&["Fresh, since the other one is busy."]),
        Reply::text(&["Second session."]),
        Reply::text(&["Picked."]),
    ]);
    let mut pty = repl(&home, &server, &[], &[]);
    pty.wait_for("› ");
    pty.send("the first session\r");
    pty.wait_for("2 messages");
    // While that REPL holds its session, -c here starts a new one rather than race it.
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .args(["-c", "go on"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("is open in another marvin right now; this one starts a new session"),
        "{}",
        stderr(&output)
    );
    assert_eq!(said_to_model(&server, 1), ["go on"]);
    pty.leave();

    answered(&home, &server, &["a second session"]);
    // --resume alone on a terminal: the sessions, numbered, the last updated first.
    let mut pty = repl(&home, &server, &["--resume"], &[]);
    pty.wait_for("Session to take up (1-3, Enter for none): ");
    assert!(
        pty.screen().contains("a second session"),
        "{}",
        pty.screen()
    );
    pty.send("3\r");
    pty.wait_for("Resumed \"the first session\"");
    pty.send("and?\r");
    pty.wait_for("Picked.");
    pty.leave();
    assert_eq!(
        said_to_model(&server, 3),
        ["the first session", "First.", "and?"]
    );
}
