//! What is typed at the REPL prompt, through the real binary on an 80-column pty: commands
//! with and without the slash never reach the model, a mistyped one is told the closest,
//! `/new`, entries of several lines (Alt+Enter, a trailing `\`, a bracketed paste),
//! `preferences` with an editor that fails, and `!cd` followed by `!` commands and the tools.

use std::time::{Duration, Instant};

use crate::common::pty::{Pty, at_80};
use crate::common::{ReplayServer, Reply, TempDir};

/// Types `keys` (ending in Enter) and waits until what it did is shown and a new prompt
/// follows it.
fn enter(pty: &mut Pty, keys: &str) {
    let before = pty.screen().len();
    pty.send(keys);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let screen = pty.screen();
        let after = screen.get(before..).unwrap_or("");
        let last_line = after.rsplit('\n').next().unwrap_or("");
        if after.contains('\n') && last_line.contains("› ") {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "no prompt after {keys:?}; screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The rows that ran past the right margin.
fn wrapped(pty: &Pty) -> Vec<String> {
    pty.visible().wrapped
}

/// The screen's text with every run of white space one space, so that a sentence is found
/// whatever row it wrapped at.
fn flat(pty: &Pty) -> String {
    let text = pty.visible().text();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text of the last user message of request `index`.
fn asked(server: &ReplayServer, index: usize) -> String {
    let messages = server.requests()[index].body["messages"].clone();
    let last = messages.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user", "{messages}");
    last["content"].as_str().unwrap().to_string()
}

#[test]
fn command_words_with_or_without_the_slash_never_reach_the_model() {
    let home = TempDir::new("input-words");
    let server = ReplayServer::unused();
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    for line in ["help", "usage", "/usage", "Tools", "clear", "new", "model"] {
        enter(&mut pty, &format!("{line}\r"));
    }
    enter(&mut pty, "/hepl\r");
    enter(&mut pty, "/xyzzy\r");
    enter(&mut pty, "/help me\r");
    assert!(pty.leave().success());
    let text = flat(&pty);
    for shown in [
        "Commands, with or without the slash (help or /help)",
        "Alt+Enter a new line in the message",
        "This session 0 model calls",
        "No tools of your own",
        "The conversation is cleared (the chat log keeps it).",
        "A new conversation starts here (the chat log keeps the old one).",
        "openai-compat · gpt-4o — /model NAME",
        "Unknown command /hepl — did you mean /help?",
        "Unknown command /xyzzy — /help lists the commands.",
        "/help takes nothing after it; /help lists the commands.",
    ] {
        assert!(text.contains(shown), "{shown:?} not in:\n{text}");
    }
    // /help fits 80 columns: no row of it ran past the margin.
    assert_eq!(wrapped(&pty), Vec::<String>::new(), "{text}");
}

#[test]
fn new_starts_a_conversation_without_the_earlier_messages() {
    let home = TempDir::new("input-new");
    let server = ReplayServer::start(vec![Reply::text(&["First."]), Reply::text(&["Second."])]);
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    enter(&mut pty, "my name is Ada\r");
    enter(&mut pty, "/new\r");
    enter(&mut pty, "what is my name?\r");
    assert!(pty.leave().success());
    let messages = server.requests()[1].body["messages"].clone();
    let roles: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user"], "{messages}");
    assert_eq!(asked(&server, 1), "what is my name?");
}

#[test]
fn alt_enter_a_trailing_backslash_and_a_paste_keep_their_line_breaks() {
    let home = TempDir::new("input-lines");
    let server = ReplayServer::start(vec![
        Reply::text(&["One."]),
        Reply::text(&["Two."]),
        Reply::text(&["Three."]),
        Reply::text(&["Four."]),
    ]);
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    enter(&mut pty, "first line\x1b\rsecond line\r");
    enter(&mut pty, "roses are red\\\rviolets are blue\r");
    enter(&mut pty, "\x1b[200~one\ntwo\r\n  three\x1b[201~\r");
    // A pasted block that begins with a command word is a prompt all the same.
    enter(&mut pty, "\x1b[200~quit\nsmoking\x1b[201~\r");
    assert!(pty.leave().success());
    assert_eq!(asked(&server, 0), "first line\nsecond line");
    assert_eq!(asked(&server, 1), "roses are red\nviolets are blue");
    assert_eq!(asked(&server, 2), "one\ntwo\n  three");
    assert_eq!(asked(&server, 3), "quit\nsmoking");
    // The history file keeps each entry whole.
    let history =
        std::fs::read_to_string(home.path().join("marvin-home/profiles/default/history")).unwrap();
    assert!(history.contains("first line\\nsecond line\n"), "{history}");
}

#[test]
fn an_editor_that_fails_or_is_missing_changes_nothing_and_says_so() {
    let home = TempDir::new("input-editor");
    let profile = home.path().join("marvin-home/profiles/default");
    std::fs::create_dir_all(&profile).unwrap();
    let file = profile.join("preferences.json");
    std::fs::write(&file, r#"{"units": "metric"}"#).unwrap();
    let server = ReplayServer::unused();
    let cases = [
        (
            "false",
            "The editor `false` failed (exit 1): what it left is not used;",
        ),
        (
            "marvin-test-no-such-editor",
            "The editor `marvin-test-no-such-editor` failed (exit 127): it was not found;",
        ),
        ("true", "Preferences unchanged."),
    ];
    for (editor, said) in cases {
        let mut pty = at_80(&home, &server.url(), &[("EDITOR", editor)], &[]);
        pty.wait_for("› ");
        enter(&mut pty, "preferences\r");
        assert!(pty.leave().success());
        let text = flat(&pty);
        assert!(text.contains(said), "{editor}: {text}");
        if editor != "true" {
            assert!(
                text.contains("preferences not changed."),
                "{editor}: {text}"
            );
            assert!(!text.contains("Preferences saved."), "{editor}: {text}");
        }
        assert_eq!(wrapped(&pty), Vec::<String>::new(), "{text}");
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            r#"{"units": "metric"}"#
        );
        assert!(!profile.join("preferences.json.edit").exists());
    }
}

#[test]
fn the_editor_is_visual_then_editor_then_vi() {
    use std::os::unix::fs::PermissionsExt;
    let home = TempDir::new("input-visual");
    let bin = home.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    // Each "editor" leaves its name in the draft, so the preferences say which one ran.
    for name in ["vi", "visual-editor", "plain-editor"] {
        let script = bin.join(name);
        std::fs::write(
            &script,
            format!("#!/bin/sh\necho '{{\"by\": \"{name}\"}}' > \"$1\"\n"),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let server = ReplayServer::unused();
    let file = home
        .path()
        .join("marvin-home/profiles/default/preferences.json");
    let cases: [(&[(&str, &str)], &str); 3] = [
        (
            &[("VISUAL", "visual-editor"), ("EDITOR", "plain-editor")],
            "visual-editor",
        ),
        (&[("EDITOR", "plain-editor")], "plain-editor"),
        (&[], "vi"),
    ];
    for (editors, by) in cases {
        let mut env = vec![("PATH", path.as_str())];
        env.extend_from_slice(editors);
        let mut pty = at_80(&home, &server.url(), &env, &[]);
        pty.wait_for("› ");
        enter(&mut pty, "preferences\r");
        pty.wait_for("Preferences saved.");
        assert!(pty.leave().success());
        let saved = std::fs::read_to_string(&file).unwrap();
        assert!(
            saved.contains(&format!("\"by\": \"{by}\"")),
            "{editors:?}: {saved}"
        );
    }
}

#[test]
fn a_cd_in_the_shell_escape_moves_the_next_commands_and_the_tools() {
    let home = TempDir::new("input-cd");
    std::fs::create_dir(home.path().join("sub")).unwrap();
    std::fs::write(home.path().join("sub/note.txt"), "written in sub\n").unwrap();
    let root = std::fs::canonicalize(home.path()).unwrap();
    let sub = root.join("sub");
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "read_file", r#"{"path": "note.txt"}"#)]),
        Reply::text(&["Read it."]),
    ]);
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    enter(&mut pty, "!code\r");
    enter(&mut pty, "!cd sub\r");
    enter(&mut pty, "!pwd -P\r");
    pty.wait_for(&format!("\n{}\r\n", sub.display()));
    // Outside the directory Marvin started in, where the tools may not go: said, not kept.
    enter(&mut pty, "!cd /\r");
    pty.wait_for("is outside");
    enter(&mut pty, "!pwd -P; echo after-refusal\r");
    pty.wait_for(&format!("{}\r\nafter-refusal", sub.display()));
    enter(&mut pty, "what does the note say?\r");
    pty.wait_for("Read it.");
    // Shell mode keeps a cd too; a bare cd goes home, here where Marvin started.
    enter(&mut pty, "!sh\r");
    enter(&mut pty, "cd\r");
    enter(&mut pty, "pwd -P; echo in-shell-mode\r");
    pty.wait_for(&format!("{}\r\nin-shell-mode", root.display()));
    enter(&mut pty, "!sh\r");
    assert!(pty.leave().success());
    let result = server.requests()[1].last_tool_result();
    assert!(result.contains("written in sub"), "{result}");
    let text = flat(&pty);
    assert!(
        text.contains(&format!(
            "/ is outside {}, where the tools may work: !commands and the tools stay in {}. \
             To work in /, start Marvin there (or with --working-dir /).",
            root.display(),
            sub.display()
        )),
        "{text}"
    );
    assert_eq!(wrapped(&pty), Vec::<String>::new(), "{text}");
}
