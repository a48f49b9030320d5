//! Sub-agents under approval: a child runs in its parent's permission mode, a grant for
//! launch_agent covers only its task, and write sub-agents of one round run one after the
//! other; real child processes against a local model server that answers each by its prompt.

use crate::common::pty::Pty;
use crate::common::{Recorded, ReplayServer, Reply, TempDir, in_project, non_interactive, stderr};
use crate::security::{executable, project};
use serde_json::json;

/// Whose conversation a request is: its first user message.
fn prompt(request: &Recorded) -> String {
    request.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

fn launch(id: &str, task: &str) -> (String, String, String) {
    let args = json!({"ticket_id": "T-1", "prompt": task});
    (id.to_string(), "launch_agent".to_string(), args.to_string())
}

fn calls(list: &[(String, String, String)]) -> Reply {
    let borrowed: Vec<(&str, &str, &str)> = list
        .iter()
        .map(|(id, name, args)| (id.as_str(), name.as_str(), args.as_str()))
        .collect();
    Reply::tool_calls(&borrowed)
}

/// What the person asks in the tests that run sub-agents as they would: the words bring the
/// sub-agents' tools.
const DELEGATE: &str = "delegate these tasks to sub-agents";

#[test]
fn write_sub_agents_of_one_round_run_one_after_the_other() {
    let home = TempDir::new("sec-writers");
    let project = project(&home);
    // Each child's tk call marks its start, gives the other child up to two seconds to start
    // too (it would, were they run together), then marks its end.
    let log = crate::common::logs(home.path()).join("log");
    let bin = home.path().join("bin");
    executable(
        &bin.join("tk"),
        &format!(
            "#!/bin/sh\nlog={}\necho \"start $2\" >> $log\ni=0\nwhile [ $i -lt 100 ] && [ $(grep -c start $log) -lt 2 ]; do sleep 0.02; i=$((i+1)); done\necho \"end $2\" >> $log\necho listed\n",
            log.display()
        ),
    );
    let server = ReplayServer::answering(|request| {
        let (prompt, results) = (prompt(request), request.tool_results());
        match (prompt.as_str(), results.is_empty()) {
            (DELEGATE, true) => calls(&[launch("p1", "task A"), launch("p2", "task B")]),
            (DELEGATE, false) => Reply::text(&["parent done"]),
            (task, true) => {
                let letter = task.trim_start_matches("task ");
                let args = json!({"args": format!("ls {letter}")}).to_string();
                calls(&[("c1".into(), "tk".into(), args)])
            }
            (task, false) => Reply::text(&[&format!("{task} done")]),
        }
    });
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let output = non_interactive(
        in_project(home.path(), &server.url(), &project).env("PATH", path),
        DELEGATE,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    let first = lines[0].trim_start_matches("start ").to_string();
    let second = if first == "A" { "B" } else { "A" };
    assert_eq!(
        lines,
        [
            format!("start {first}"),
            format!("end {first}"),
            format!("start {second}"),
            format!("end {second}")
        ],
        "the two write sub-agents overlapped"
    );
    let results = server.requests().last().unwrap().tool_results();
    assert_eq!(results.len(), 2, "{results:?}");
    let waited: Vec<&String> = results
        .iter()
        .filter(|r| r.starts_with("Another write sub-agent was running, so this one waited"))
        .collect();
    assert_eq!(waited.len(), 1, "{results:#?}");
    assert!(
        waited[0].contains(&format!("task {second} done")),
        "{}",
        waited[0]
    );
    for result in &results {
        assert!(
            result.contains("Sub-agent (") && result.contains("finished"),
            "{result}"
        );
    }
}

#[test]
fn sub_agents_inherit_the_mode_and_a_grant_covers_only_its_task() {
    let home = TempDir::new("sec-child-mode");
    let project = project(&home);
    let tool = project.join(".marvin/tools/mark");
    std::fs::create_dir_all(&tool).unwrap();
    std::fs::write(
        tool.join("tool.json"),
        json!({"name": "mark", "description": "Marks", "command": ["./mark.sh"]}).to_string(),
    )
    .unwrap();
    executable(
        &tool.join("mark.sh"),
        "#!/bin/sh\ntouch \"$MARVIN_CWD/marked\"\n",
    );
    let server = ReplayServer::answering(|request| {
        let (prompt, results) = (prompt(request), request.tool_results());
        match (prompt.as_str(), results.len()) {
            ("delegate", 0) => calls(&[launch("p1", "task A")]),
            ("delegate", 1) => calls(&[launch("p2", "task B")]),
            ("delegate", _) => Reply::text(&["parent done"]),
            (_, 0) => calls(&[("c1".into(), "mark".into(), "{}".into())]),
            (_, _) => Reply::text(&[&format!("child heard: {}", results[0])]),
        }
    });
    let mut command = in_project(home.path(), &server.url(), &project);
    // Every tool is offered, to the children too: the person's tool `mark` among them.
    command.env("TERM", "xterm").env("MARVIN_TOOLS", "all");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("!code\r");
    pty.wait_for("code› ");
    pty.send("delegate\r");
    pty.wait_for("Yes, once");
    assert!(pty.screen().contains("task A"), "{}", pty.screen());
    pty.send("2\r"); // yes, for this session
    // The child's own approval comes to this terminal (the parent's), and is denied here.
    pty.wait_for("mark (sub-agent)");
    // Drawn twice for task A (the cursor moved), once for mark: the whole chooser is shown.
    pty.wait_for_nth("No, and tell Marvin", 3);
    // Once, this session, or no: nothing granted to a child is kept for always.
    assert!(
        !pty.screen()[pty.screen().find("mark (sub-agent)").unwrap()..].contains("Always"),
        "{}",
        pty.screen()
    );
    pty.send("3\r");
    pty.wait_for("What should Marvin do instead?");
    pty.send("not in a child\r");
    // The next task is asked about again (moving the cursor redrew the first prompt).
    pty.wait_for("task B");
    let screen = pty.screen();
    let drawn = screen[..screen.find("task B").unwrap()]
        .matches("No, and tell Marvin")
        .count();
    pty.wait_for_nth("No, and tell Marvin", drawn + 1);
    pty.send("4\r");
    pty.wait_for("What should Marvin do instead?");
    pty.send("not this one\r");
    pty.wait_for("parent done");
    pty.leave();
    assert!(
        !project.join("marked").exists(),
        "the child ran a tool unasked"
    );
    let results = server.requests().last().unwrap().tool_results();
    assert!(
        results[0].contains(
            "child heard: Error: The user declined this mark call and said: not in a child"
        ),
        "{}",
        results[0]
    );
    assert_eq!(
        results[1],
        "Error: The user declined this launch_agent call and said: not this one"
    );
}
