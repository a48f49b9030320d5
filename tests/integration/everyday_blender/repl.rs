//! `!blender` and blender_execute_code's approval under a real pseudo-terminal.

use std::time::{Duration, Instant};

use serde_json::json;

use super::{Addon, Answer, scene};
use crate::common::pty::Pty;
use crate::common::{ReplayServer, Reply, TempDir, closed_port, marvin};

fn repl(home: &TempDir, model: &ReplayServer, port: u16) -> Pty {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("TERM", "xterm")
        .env("BLENDER_MCP_HOST", "127.0.0.1")
        .env("BLENDER_MCP_PORT", port.to_string());
    Pty::spawn(command)
}

#[test]
fn bang_blender_says_whether_blender_answers_and_what_scene_it_has() {
    let home = TempDir::new("blender-bang");
    let model = ReplayServer::unused();
    let addon = Addon::answering(scene());
    let mut pty = repl(&home, &model, addon.port);
    pty.wait_for("› ");
    pty.send("!bl\t");
    pty.wait_for("!blender");
    pty.send("\r");
    pty.wait_for(&format!(
        "Blender is reachable at 127.0.0.1:{}: scene \"Scene\", 3 objects.",
        addon.port
    ));
    assert_eq!(
        addon.commands(),
        [json!({"type": "get_scene_info", "params": {}})]
    );
    pty.send("/help\r");
    pty.wait_for("whether Blender's add-on is reachable, and its scene");
    assert!(pty.leave().success());
}

#[test]
fn bang_blender_says_how_to_start_blender_when_nothing_listens() {
    let home = TempDir::new("blender-bang-down");
    let model = ReplayServer::unused();
    let port = closed_port();
    let mut pty = repl(&home, &model, port);
    pty.wait_for("› ");
    pty.send("!blender\r");
    pty.wait_for(&format!(
        "Blender is not reachable at 127.0.0.1:{port}: start Blender"
    ));
    pty.wait_for("BLENDER_MCP_HOST/BLENDER_MCP_PORT to where it listens.");
    assert!(pty.leave().success());
}

#[test]
fn code_for_blender_is_shown_and_runs_only_once_approved() {
    let home = TempDir::new("blender-approve");
    let code = "for o in bpy.data.objects:\n    print(o.name)";
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[(
            "c1",
            "blender_execute_code",
            &json!({"code": code}).to_string(),
        )]),
        Reply::text(&["listed"]),
        Reply::tool_calls(&[(
            "c2",
            "blender_execute_code",
            &json!({"code": code}).to_string(),
        )]),
        Reply::text(&["declined"]),
    ]);
    let addon =
        Addon::start(|_| Answer::Result(json!({"executed": true, "result": "Cube\nLight\n"})));
    let mut pty = repl(&home, &model, addon.port);
    pty.wait_for("› ");
    pty.send("list the objects\r");
    pty.wait_for("Enter chooses");
    let screen = pty.visible().text();
    // The summary is wrapped within 80 columns: read it as words.
    let words = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("[blender_execute_code]")
            && words.contains("wants to run this Python in Blender")
            && screen.contains("for o in bpy.data.objects:")
            && screen.contains("print(o.name)"),
        "{screen}"
    );
    assert_eq!(addon.commands().len(), 0, "nothing runs before the answer");
    pty.send("\r");
    pty.wait_for("listed");
    assert_eq!(
        addon.commands(),
        [json!({"type": "execute_code", "params": {"code": code}})]
    );
    assert_eq!(
        model.requests()[1].last_message()["content"],
        "Cube\nLight\n"
    );
    // Approved once is once: the same code asks again, and a no sends nothing.
    pty.send("again\r");
    pty.wait_for_nth("Yes, once", 2);
    pty.send("4\r");
    pty.wait_for("What should Marvin do instead?");
    pty.send("\r");
    // The call's ✗ line shows the refusal ("The user declined …"), then the answer comes.
    pty.wait_for_nth("declined", 2);
    assert_eq!(addon.commands().len(), 1);
    assert_eq!(
        model.requests()[3].last_message()["content"],
        "Error: The user declined this blender_execute_code call. Ask them what they would like instead."
    );
    assert!(pty.leave().success());
}

#[test]
fn ctrl_c_stops_a_call_blender_does_not_answer() {
    let home = TempDir::new("blender-cancel");
    let model = ReplayServer::start(vec![Reply::tool_calls(&[(
        "c1",
        "blender_get_scene",
        "{}",
    )])]);
    let addon = Addon::start(|_| Answer::Silent);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("TERM", "xterm")
        .env("BLENDER_MCP_PORT", addon.port.to_string())
        // Far longer than the pty waits: only the cancel can end the call.
        .env("MARVIN_TOOL_TIMEOUT", "600");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("what is in the scene?\r");
    let deadline = Instant::now() + Duration::from_secs(20);
    while addon.commands().is_empty() {
        assert!(Instant::now() < deadline, "the add-on was never asked");
        std::thread::sleep(Duration::from_millis(10));
    }
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    pty.wait_for_nth("› ", 2);
    // The cancel closed the socket: the call is not left waiting for Blender.
    let deadline = Instant::now() + Duration::from_secs(20);
    while addon.hung_up() == 0 {
        assert!(Instant::now() < deadline, "the connection stayed open");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(model.requests().len(), 1);
    assert!(pty.leave().success());
}

#[test]
fn ctrl_c_stops_bang_blender_and_a_url_for_a_host_is_named() {
    let home = TempDir::new("blender-bang-cancel");
    let model = ReplayServer::unused();
    let addon = Addon::start(|_| Answer::Silent);
    let mut pty = repl(&home, &model, addon.port);
    pty.wait_for("› ");
    pty.send("!blender\r");
    let deadline = Instant::now() + Duration::from_secs(20);
    while addon.commands().is_empty() {
        assert!(Instant::now() < deadline, "the add-on was never asked");
        std::thread::sleep(Duration::from_millis(10));
    }
    pty.send("\x03");
    pty.wait_for("Stopped asking Blender.");
    pty.wait_for_nth("› ", 2);
    assert!(pty.leave().success());

    let home = TempDir::new("blender-bang-url");
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("TERM", "xterm")
        .env("BLENDER_MCP_HOST", "http://localhost:9876");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("!blender\r");
    pty.wait_for("BLENDER_MCP_HOST is a host name or address such as 127.0.0.1, not a URL");
    assert!(pty.leave().success());
}
