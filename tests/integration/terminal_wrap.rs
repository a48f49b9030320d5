//! What Marvin prints at the terminal's width, seen through a real pty: the answer's prose
//! wrapped at word boundaries as it streams (code blocks keep their lines), and Marvin's own
//! long lines (`/fork`, `/mcp`, the local-server notice, the `--attach` banner) wrapped too.

use serde_json::json;

use crate::common::pty::{Pty, at_80, repl_at};
use crate::common::{ReplayServer, Reply, TempDir, marvin};

const PARAGRAPH: &str = "Marvin wraps the prose of an answer at word boundaries, so that a \
    word such as eighty never ends up cut in two at the right margin of an eighty column \
    terminal, however the answer arrives.";
const ITEM: &str = "a list item that runs on well past the width keeps its text in line \
    under the first word of the item";
const CODE: &str = "let line = \"a line of code is left exactly as it was written, however \
    long it is, to copy it\";";

#[test]
fn an_answer_is_wrapped_at_words_as_it_streams_and_code_keeps_its_lines() {
    let home = TempDir::new("wrap-answer");
    let answer = format!("{PARAGRAPH}\n\n- {ITEM}\n\n```\n{CODE}\n```\n");
    // Three characters at a time: words arrive cut in pieces.
    let chars: Vec<char> = answer.chars().collect();
    let pieces: Vec<String> = chars.chunks(3).map(|c| c.iter().collect()).collect();
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let server = ReplayServer::start(vec![Reply::text(&pieces)]);
    let mut pty = at_80(&home, &server.url(), &[], &["--once", "how do you wrap?"]);
    pty.wait_for("to copy it");
    assert!(pty.wait_exit().success());
    let screen = pty.visible();
    let lines = screen.lines();
    let text = screen.text();
    // The code's row is the only one that ran past the margin.
    assert_eq!(screen.wrapped.len(), 1, "{:?}\n{text}", screen.wrapped);
    assert!(screen.wrapped[0].starts_with("let line ="), "{text}");
    // The paragraph's rows are its words, broken only between them, none past 79 columns.
    let first = lines
        .iter()
        .position(|l| l.starts_with("Marvin wraps"))
        .unwrap();
    let end = first + lines[first..].iter().position(String::is_empty).unwrap();
    assert!(end - first >= 3, "{text}");
    assert_eq!(lines[first..end].join(" "), PARAGRAPH, "{text}");
    assert!(lines[first..end].iter().all(|l| l.chars().count() <= 79));
    // The item's later rows line up under its text.
    let item = lines
        .iter()
        .position(|l| l.starts_with("• a list item"))
        .unwrap();
    assert!(lines[item + 1].starts_with("  ") && !lines[item + 1].starts_with("   "));
    let rows: Vec<&str> = lines[item..item + 2]
        .iter()
        .map(|l| l[..].trim_start_matches("• ").trim())
        .collect();
    assert_eq!(rows.join(" "), ITEM, "{text}");
}

/// A session whose name is long, `/fork`ed, and `/mcp` listing a server that cannot start,
/// on an 80-column terminal.
#[test]
fn marvins_own_long_lines_are_wrapped_at_80_columns() {
    let home = TempDir::new("wrap-own");
    let marvin_home = home.path().join("marvin-home");
    std::fs::create_dir_all(&marvin_home).unwrap();
    let mcp = json!({"mcpServers": {"a-server-with-a-long-name": {
        "command": "no-such-mcp-server-with-a-rather-long-name-indeed",
        "args": ["--with", "several", "arguments", "that", "make", "its", "command", "line", "long"]
    }}});
    std::fs::write(marvin_home.join("mcp.json"), mcp.to_string()).unwrap();
    let server = ReplayServer::start(vec![Reply::text(&["Noted."])]);
    let mut pty = at_80(&home, &server.url(), &[], &[]);
    pty.wait_for("› ");
    pty.send("remember that the parser drops empty lists when they come last in a file\r");
    pty.wait_for("Noted.");
    pty.wait_for(" messages");
    pty.send("/fork\r");
    pty.wait_for("Forked: this is now session");
    // The server starts in the background: /mcp is asked until it says how that went.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut asked = 0;
    while !pty.screen().contains("a-server-with-a-long-name  failed:") {
        assert!(std::time::Instant::now() < deadline, "{}", pty.screen());
        asked += 1;
        pty.send("/mcp\r");
        pty.wait_for_nth("starts a server again.", asked);
    }
    let screen = pty.visible();
    assert!(
        screen.wrapped.is_empty(),
        "{:?}\n{}",
        screen.wrapped,
        screen.text()
    );
    let text = screen.text().replace("\n  ", " ");
    assert!(text.contains("the old one stays as it was."), "{text}");
    assert!(
        text.contains("it is not installed, or not on PATH"),
        "{text}"
    );
    assert!(pty.leave().success());
}

#[test]
fn the_local_server_notice_is_wrapped_at_80_columns() {
    let home = TempDir::new("wrap-local");
    let server = ReplayServer::answering_all(|request| {
        Some(match request.url.as_str() {
            "/v1/models" => Reply::json(
                200,
                r#"{"object": "list", "data": [{"id": "smollm2-135m-instruct", "object": "model"}]}"#,
            ),
            "/api/tags" | "/props" => Reply::json(404, r#"{"error": "not found"}"#),
            _ => Reply::text(&["Hello from a small model."]),
        })
    });
    let port = server.port().to_string();
    let mut command = marvin(home.path());
    command
        .env("MARVIN_LOCAL_PORTS", &port)
        .env("TERM", "xterm")
        .args(["--once", "hello"]);
    let mut pty = Pty::spawn_sized(command, 80, 24);
    pty.wait_for("Hello from a small model.");
    assert!(pty.wait_exit().success());
    let screen = pty.visible();
    let text = screen.text();
    assert!(
        text.contains("marvin: no provider is set up; using the local"),
        "{text}"
    );
    assert!(screen.wrapped.is_empty(), "{:?}\n{text}", screen.wrapped);
}

#[test]
fn the_attach_banner_is_wrapped_at_80_columns() {
    let home = TempDir::new("wrap-attach");
    let server = ReplayServer::unused();
    let gateway = crate::gateway::Gateway::start(&home, &server.url());
    let (_, mut pty) = gateway.attach_new(&home, 80, 24);
    pty.wait_for("Ctrl+D leaves.");
    pty.wait_for("attached› ");
    let screen = pty.visible();
    assert!(
        screen.wrapped.is_empty(),
        "{:?}\n{}",
        screen.wrapped,
        screen.text()
    );
    pty.send("quit\r");
    assert!(pty.wait_exit().success());
}

#[test]
fn a_wider_terminal_gets_wider_rows() {
    let home = TempDir::new("wrap-120");
    let server = ReplayServer::start(vec![Reply::text(&[PARAGRAPH])]);
    let mut pty = repl_at(120, &home, &server.url(), &[], &["--once", "wrap?"]);
    assert!(pty.wait_exit().success());
    let screen = pty.visible();
    let lines = screen.lines();
    let first = lines
        .iter()
        .position(|l| l.starts_with("Marvin wraps"))
        .unwrap();
    assert!(lines[first].chars().count() > 80, "{}", screen.text());
    assert!(screen.wrapped.is_empty(), "{}", screen.text());
}
