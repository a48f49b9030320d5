//! The worked example of doc/interactive-tools.md, run as the guide shows it: its `tool.json`
//! and its script are taken from the page as they are, installed in a fresh MARVIN_HOME, and a
//! room is booked through the real binary, answered over `--on-ask stdin`: a form that refuses
//! a number out of bounds, the tool's own reprompt keeping what was typed, then its approval.
//! The same booking made in the REPL under a real terminal shows what the guide's transcript
//! shows, and the guide's run by hand prints what the guide says. If the guide goes stale,
//! this fails.

use std::path::Path;

use serde_json::json;

use crate::common::asking::Script;
use crate::common::pty::Pty;
use crate::common::{ReplayServer, Reply, TempDir, in_project};

const GUIDE: &str = include_str!("../../doc/interactive-tools.md");

/// The files the guide marks with `<!-- file: PATH -->` before a fenced block, as (path, text).
fn files_of_the_guide() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut rest = GUIDE;
    while let Some(at) = rest.find("<!-- file: ") {
        let after = &rest[at + "<!-- file: ".len()..];
        let path = after[..after.find(" -->").expect("a closed marker")].to_string();
        let fence = after.find("```").expect("a block after the marker");
        let body = &after[fence..];
        let start = body.find('\n').unwrap() + 1;
        let end = body[start..].find("\n```").expect("a closed block") + start + 1;
        files.push((path, body[start..end].to_string()));
        rest = &body[end..];
    }
    files
}

/// The fenced block after the guide's `<!-- MARKER -->`, without its fences.
fn block_of_the_guide(marker: &str) -> String {
    let at = GUIDE
        .find(&format!("<!-- {marker} -->\n```"))
        .unwrap_or_else(|| panic!("no <!-- {marker} --> block in the guide"));
    let body = &GUIDE[at..];
    let start = body.find('\n').unwrap() + 1;
    let start = body[start..].find('\n').unwrap() + start + 1;
    let end = body[start..].find("\n```").expect("a closed block") + start;
    body[start..end].to_string()
}

/// Marvin asked to book a room, answered on stdin.
fn book(home: &TempDir, model: &ReplayServer) -> Script {
    let work = crate::common::work(home.path());
    let mut command = in_project(home.path(), &model.url(), &work);
    command
        .env("MARVIN_MODEL", "gpt-4o")
        .args(["--non-interactive", "--json", "--on-ask", "stdin"])
        .args(["--prompt", "book a room for the design review"]);
    Script::spawn(command)
}

fn install(home: &Path) {
    let files = files_of_the_guide();
    let names: Vec<&str> = files.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(names, ["book_room/tool.json", "book_room/book_room.py"]);
    for (path, text) in files {
        let path = home.join("marvin-home/tools").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

#[test]
fn the_guides_example_books_a_room_as_the_guide_says() {
    let home = TempDir::new("guide-example");
    install(home.path());
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("b1", "book_room", "{}")]),
        Reply::text(&["Booked."]),
    ]);
    let mut run = book(&home, &model);

    // The form, with its bounds and choices, as every surface reads it.
    let form = run.next("input");
    assert_eq!(form["tool"], "book_room");
    assert_eq!(form["prompt"], "Which room, for how many people, and when?");
    let fields = &form["inputSchema"]["fields"];
    assert_eq!(fields[1]["maximum"], 12);
    assert_eq!(
        fields[0]["options"][0],
        json!({"value": "ada", "label": "Ada (seats 4)"})
    );
    let id = form["id"].clone();

    // Out of the field's bounds: refused where it is answered; the tool never sees it.
    run.send(json!({"id": id, "input": {"room": "ada", "people": 20, "day": "2026-12-01"}}));
    let refused = run.next("answer_error");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("a whole number from 1 to 12"),
        "{refused}"
    );

    // Within bounds, but Ada seats 4: the tool's own check asks again, keeping the input.
    run.send(json!({"id": id, "input": {"room": "ada", "people": 6, "day": "2026-12-01"}}));
    let again = run.next("input");
    assert_eq!(
        again["error"],
        "Ada seats 4: choose a bigger room or fewer people."
    );
    assert_ne!(again["id"], id, "a reprompt is a prompt of its own");
    let people = &again["inputSchema"]["fields"][1];
    assert_eq!(people["initial"], 6, "{again}");
    run.send(
        json!({"id": again["id"], "input": {"room": "turing", "people": 6, "day": "2026-12-01"}}),
    );

    // Approval before the booking is written, with the scopes the tool offers.
    let approval = run.next("approval");
    assert!(
        approval
            .to_string()
            .contains("Book Turing for 6 on 2026-12-01?"),
        "{approval}"
    );
    assert!(
        !approval.to_string().contains("always"),
        "only once and session are offered: {approval}"
    );
    run.send(json!({"id": approval["id"], "approve": "once"}));

    let output = run.finish();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        model.requests()[1].last_tool_result(),
        "Booked Turing for 6 people on 2026-12-01."
    );
    assert_eq!(
        std::fs::read_to_string(home.path().join("work/bookings.txt")).unwrap(),
        "2026-12-01 Turing 6\n"
    );
}

/// A row as the guide compares it: a tool's time (`  ✓ book_room  (2.3s)`) left out.
fn untimed(row: &str) -> String {
    match row.rfind("  (") {
        Some(at) if row.ends_with("s)") => row[..at].to_string(),
        _ => row.to_string(),
    }
}

/// The rows on `pty`'s screen that start where `block`'s first row stands, as many as it has,
/// compared with it.
fn assert_shows(pty: &Pty, block: &str) {
    let wanted: Vec<String> = block.lines().map(untimed).collect();
    let lines = pty.visible().lines();
    let at = lines
        .iter()
        .position(|line| *line == wanted[0])
        .unwrap_or_else(|| panic!("no row {:?} in:\n{}", wanted[0], lines.join("\n")));
    let shown: Vec<String> = lines[at..(at + wanted.len()).min(lines.len())]
        .iter()
        .map(|row| untimed(row))
        .collect();
    assert_eq!(shown, wanted, "the screen:\n{}", lines.join("\n"));
}

#[test]
fn the_guides_transcript_is_what_the_terminal_shows() {
    let home = TempDir::new("guide-transcript");
    install(home.path());
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("b1", "book_room", "{}")]),
        Reply::text(&["Booked."]),
    ]);
    let mut command = crate::common::marvin(home.path());
    command
        .current_dir(crate::common::work(home.path()))
        .env("OPENAI_COMPAT_URL", model.url())
        .env("MARVIN_MODEL", "gpt-4o")
        .env("TERM", "xterm");
    let mut pty = Pty::spawn_sized(command, 80, 24);
    pty.wait_for("› ");
    pty.send("book a room for the design review\r");
    // Ada; 20 over the default 2, refused by the form; then 6; then the day.
    pty.wait_for("Enter chooses");
    pty.send("1\r");
    pty.wait_for("A whole number from 1 to 12.");
    pty.send("\x1520\r");
    pty.wait_for_words("\"20\" is not a whole number from 1 to 12.");
    pty.send("\x156\r");
    pty.wait_for("A date like 2026-11-24.");
    pty.send("2026-12-01\r");
    // Asked again by the tool: Turing; Enter keeps 6 and the day.
    pty.wait_for("Ada seats 4");
    pty.wait_for_nth("Enter chooses", 2);
    pty.send("2\r");
    pty.wait_for_nth("A whole number from 1 to 12.", 2);
    pty.send("\r");
    pty.wait_for_nth("A date like 2026-11-24.", 2);
    pty.send("\r");
    pty.wait_for("Enter chooses · Ctrl+C cancels");
    assert_shows(&pty, &block_of_the_guide("screen: approval"));
    pty.send("1\r");
    pty.wait_for("Booked.");
    assert_shows(&pty, &block_of_the_guide("screen: booked"));
    assert_eq!(
        model.requests()[1].last_tool_result(),
        "Booked Turing for 6 people on 2026-12-01."
    );
    assert!(pty.leave().success());
}

#[test]
fn the_guides_run_by_hand_prints_what_the_guide_says() {
    let home = TempDir::new("guide-by-hand");
    install(home.path());
    let scratch = home.path().join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(block_of_the_guide("run: by hand"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("MARVIN_HOME", home.path().join("marvin-home"))
        .env("TMPDIR", &scratch)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        block_of_the_guide("output: by hand") + "\n"
    );
    let made: Vec<_> = std::fs::read_dir(&scratch).unwrap().collect();
    assert_eq!(made.len(), 1, "one scratch working directory");
    let work = made[0].as_ref().unwrap().path();
    assert_eq!(
        std::fs::read_to_string(work.join("bookings.txt")).unwrap(),
        "2026-12-01 Turing 6\n"
    );
}
