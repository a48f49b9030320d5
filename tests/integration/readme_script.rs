//! The README's script that answers `--on-ask stdin`, run as the README shows it: taken from
//! README.md at test time, with `marvin` on its PATH being the built binary, against a user
//! tool whose forms have required fields without defaults, and one that refuses every name it
//! is given. The script answers every question (the least each field's type takes; a form of
//! words only a person can write, or one its tool refused, is cancelled), so the run finishes
//! instead of waiting out a question's ten minutes. If the README's script goes stale, this
//! fails.

use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{self, ReplayServer, Reply, TempDir};

const README: &str = include_str!("../../README.md");

/// The python block of the README's section on `--on-ask`, without its fences.
fn the_readmes_script() -> &'static str {
    let section = &README[README
        .find("### When a tool asks: `--on-ask`")
        .expect("the README's --on-ask section")..];
    let start = section
        .find("```python\n")
        .expect("a python block in the section")
        + 10;
    let end = section[start..].find("\n```").expect("a closed block") + start + 1;
    &section[start..end]
}

/// The replies a fixture tool printed (`reply: {…}`) in its result, in order.
fn replies_in(result: &str) -> Vec<Value> {
    result
        .lines()
        .filter_map(|line| line.strip_prefix("reply: "))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn the_readmes_stdin_script_answers_forms_whose_required_fields_have_no_defaults() {
    let home = TempDir::new("readme-script");
    common::install_user_tool(home.path(), "headless_tools", "set_up");
    common::install_user_tool(home.path(), "user_tools", "stubborn");
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_marvin"), bin.join("marvin")).unwrap();
    let script = home.path().join("answer.py");
    std::fs::write(&script, the_readmes_script()).unwrap();
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("s1", "set_up", "{}")]),
        Reply::tool_calls(&[("s2", "stubborn", "{}")]),
        Reply::text(&["Deployed."]),
    ]);
    let path = std::env::var("PATH").unwrap_or_default();
    // The environment `common::marvin` gives the binary, which the script starts itself.
    let child = Command::new("python3")
        .arg(&script)
        .env_clear()
        .env("PATH", format!("{}:{path}", bin.display()))
        .env("HOME", home.path())
        .env("MARVIN_HOME", home.path().join("marvin-home"))
        .env("MARVIN_LOCAL_PORTS", "none")
        .env("MARVIN_TOOLS", "all")
        .env("MARVIN_MODEL", "gpt-4o")
        .env("OPENAI_COMPAT_URL", model.url())
        .current_dir(common::work(home.path()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || sender.send(child.wait_with_output()));
    let Ok(output) = receiver.recv_timeout(Duration::from_secs(120)) else {
        // SAFETY: kill(2) on the pid of our own child, which has not been reaped; the run it
        // started ends when its stdin closes.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        panic!("the README's script still waited after 2 minutes");
    };
    let output = output.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout, "Deployed.\n",
        "every answer was used the first time"
    );

    let replies = replies_in(&model.requests()[1].last_tool_result());
    assert_eq!(
        replies,
        [
            json!({"action": "submit", "input":
                {"port": 1024, "tls": false, "mode": "dev", "regions": ["eu", "us"]},
                "requestId": "s1/1"}),
            json!({"action": "cancel", "requestId": "s1/2"}),
        ]
    );
    // A tool that refuses what it was given and asks again: the script cancels rather than
    // send the same values for ever.
    let stubborn = model.requests()[2].last_tool_result();
    assert!(
        stubborn.contains(r#"after 1 refusals: {"action":"cancel""#),
        "{stubborn}"
    );
}
