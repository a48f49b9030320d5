//! Users' own tools, written in sh and Python, installed into a temporary MARVIN_HOME: success,
//! an error exit, a timeout, a tool that asks the user, a broken definition, a name clash, a
//! symlinked tool directory, and a project tool that must ask first.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::pty::Pty;
use crate::common::{ReplayServer, Reply, TempDir, marvin, stderr, stdout};
use serde_json::{Value, json};

fn install(dir: &Path, name: &str, definition: Value, script_name: &str, script: &str) {
    let tool = dir.join(name);
    std::fs::create_dir_all(&tool).unwrap();
    std::fs::write(tool.join("tool.json"), definition.to_string()).unwrap();
    std::fs::write(tool.join(script_name), script).unwrap();
    std::fs::set_permissions(
        tool.join(script_name),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
}

fn tools_dir(home: &TempDir) -> std::path::PathBuf {
    home.path().join("marvin-home/tools")
}

fn call(name: &str, args: Value) -> Reply {
    Reply::tool_calls(&[("call_7", name, &args.to_string())])
}

fn run(home: &TempDir, server: &ReplayServer, extra: &[&str]) -> std::process::Output {
    marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        // Every tool is offered (`--tools all`): these tests are of the person's tools, not of which a request offers.
        .env("MARVIN_TOOLS", "all")
        .args(["--non-interactive", "--prompt", "use the tool"])
        .args(extra)
        .output()
        .unwrap()
}

fn result(server: &ReplayServer) -> String {
    server.requests()[1].last_message()["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn an_sh_tool_gets_its_arguments_and_environment_and_its_stdout_is_the_result() {
    let home = TempDir::new("custom-sh");
    let script = "#!/bin/sh\nread -r args\necho \"args=$args\"\necho \"ui=$MARVIN_HAS_UI call=$MARVIN_CALL_ID cwd=$MARVIN_CWD dir=$MARVIN_TOOL_DIR\"\necho \"key=${OPENAI_COMPAT_API_KEY-none}\"\n";
    let definition = json!({"name": "greet", "description": "Greets someone", "command": ["./greet.sh"],
        "parameters": {"type": "object", "properties": {"who": {"type": "string", "description": "whom"}, "times": {"type": "integer"}}, "required": ["who"]}});
    install(&tools_dir(&home), "greet", definition, "greet.sh", script);
    let server = ReplayServer::start(vec![
        call("greet", json!({"who": "Ada", "times": "2"})),
        Reply::text(&["greeted"]),
    ]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .env("OPENAI_COMPAT_API_KEY", "secret")
        .args(["--non-interactive", "--prompt", "greet Ada"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&output),
        "  🔧 greet\ngreeted\n",
        "{}",
        stderr(&output)
    );
    let text = result(&server);
    let dir = tools_dir(&home).join("greet");
    assert_eq!(
        text,
        format!(
            "args={{\"times\":2,\"who\":\"Ada\"}}\nui=0 call=call_7 cwd={} dir={}\nkey=none",
            home.path().display(),
            dir.display()
        )
    );
    let offered = server.requests()[0].body["tools"].to_string();
    assert!(
        offered.contains("\"greet\"") && offered.contains("Greets someone"),
        "{offered}"
    );
}

#[test]
fn a_python_tool_reads_to_the_end_and_errors_carry_stderr() {
    let home = TempDir::new("custom-python");
    let script = "import json, sys\nargs = json.load(sys.stdin)\nif args['n'] < 0:\n    print('n must not be negative', file=sys.stderr)\n    sys.exit(3)\nprint(args['n'] * 2)\n";
    let definition = json!({"name": "double", "description": "Doubles", "command": ["python3", "double.py"],
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}});
    install(&tools_dir(&home), "double", definition, "double.py", script);
    let server = ReplayServer::start(vec![call("double", json!({"n": 21})), Reply::text(&["42"])]);
    run(&home, &server, &[]);
    assert_eq!(result(&server), "42");
    let server = ReplayServer::start(vec![
        call("double", json!({"n": -1})),
        Reply::text(&["oops"]),
    ]);
    run(&home, &server, &[]);
    assert_eq!(
        result(&server),
        "Error: double failed (exit code 3):\nn must not be negative"
    );
    let server = ReplayServer::start(vec![
        call("double", json!({"m": 1})),
        Reply::text(&["fixed"]),
    ]);
    run(&home, &server, &[]);
    assert!(
        result(&server).contains("  - n: missing required field (expected integer)"),
        "{}",
        result(&server)
    );
}

#[test]
fn a_slow_tool_is_stopped_with_everything_it_started() {
    let home = TempDir::new("custom-timeout");
    let pid = crate::common::logs(home.path()).join("pid");
    let script = format!(
        "#!/bin/sh\necho $$ > '{}'\nsleep 60 &\necho started\nsleep 60\n",
        pid.display()
    );
    install(
        &tools_dir(&home),
        "slow",
        json!({"name": "slow", "description": "Slow", "command": ["./slow.sh"], "timeout": 1}),
        "slow.sh",
        &script,
    );
    let server = ReplayServer::start(vec![call("slow", json!({})), Reply::text(&["gave up"])]);
    let output = run(&home, &server, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        result(&server),
        "Error: slow did not finish within 1s and was stopped. Output so far:\nstarted\n"
    );
    let group: i32 = std::fs::read_to_string(&pid)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while unsafe { libc::kill(-group, 0) } == 0 && !all_zombies(group) {
        assert!(
            std::time::Instant::now() < deadline,
            "the tool's processes outlived it"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn all_zombies(group: i32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    !entries
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .any(|stat| {
            let fields: Vec<&str> = stat
                .rsplit_once(") ")
                .map(|(_, r)| r)
                .unwrap_or("")
                .split_whitespace()
                .collect();
            fields.len() > 2 && fields[0] != "Z" && fields[2] == group.to_string()
        })
}

const ASKING_TOOL: &str = "#!/bin/sh\nread -r args\necho 'checking...'\necho '@@marvin-interact {\"questions\": [{\"header\": \"Env\", \"question\": \"Deploy where?\", \"multiSelect\": false, \"options\": [{\"label\": \"staging\", \"description\": \"safe\"}, {\"label\": \"prod\", \"description\": \"live\"}]}]}'\nread -r answer\necho \"answer=$answer\"\n";

#[test]
fn a_tool_that_asks_gets_the_answer_on_its_stdin() {
    let home = TempDir::new("custom-ask");
    install(
        &tools_dir(&home),
        "deploy",
        json!({"name": "deploy", "description": "Deploys", "command": ["./deploy.sh"], "interactive": true}),
        "deploy.sh",
        ASKING_TOOL,
    );
    let server = ReplayServer::start(vec![call("deploy", json!({})), Reply::text(&["deployed"])]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("deploy it\r");
    pty.wait_for("Deploy where?");
    pty.wait_for("Enter chooses");
    pty.send("2\r");
    pty.wait_for("deployed");
    assert_eq!(
        result(&server),
        "checking...\nanswer={\"answers\":{\"Deploy where?\":\"prod\"},\"status\":\"answered\"}"
    );
    pty.leave();
    // Without a terminal the tool hears that nobody can answer.
    let server = ReplayServer::start(vec![call("deploy", json!({})), Reply::text(&["skipped"])]);
    run(&home, &server, &[]);
    assert_eq!(
        result(&server),
        "checking...\nanswer={\"status\":\"unavailable\"}"
    );
}

#[test]
fn broken_definitions_and_clashes_are_reported_once_and_skipped() {
    let home = TempDir::new("custom-broken");
    let dir = tools_dir(&home);
    std::fs::create_dir_all(dir.join("empty-dir")).unwrap();
    std::fs::write(dir.join("broken.json"), "{\"name\": \"broken\",").unwrap();
    std::fs::write(
        dir.join("clash.json"),
        json!({"name": "read_file", "description": "mine", "command": ["true"]}).to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("fine.json"),
        json!({"name": "fine", "description": "works", "command": ["echo", "ok"]}).to_string(),
    )
    .unwrap();
    let server = ReplayServer::start(vec![
        call("fine", json!({})),
        Reply::text(&["still working"]),
    ]);
    let output = run(&home, &server, &[]);
    assert_eq!(output.status.code(), Some(0));
    let err = stderr(&output);
    assert_eq!(err.matches("marvin: skipping").count(), 2, "{err}");
    assert!(
        err.contains(&format!(
            "marvin: skipping the tool in {}: not a valid tool definition: EOF",
            dir.join("broken.json").display()
        )),
        "{err}"
    );
    assert!(
        err.contains("clash.json: the name read_file is already taken"),
        "{err}"
    );
    assert!(
        err.lines().last().unwrap().starts_with("MARVIN_COST:"),
        "{err}"
    );
    assert_eq!(
        result(&server),
        "ok",
        "echo gets the arguments on stdin, not as words"
    );
}

#[test]
fn a_symlinked_tool_directory_is_followed() {
    let home = TempDir::new("custom-symlink");
    let elsewhere = TempDir::new("custom-symlink-target");
    install(
        elsewhere.path(),
        "stamp",
        json!({"name": "stamp", "description": "Stamps", "command": ["./stamp.sh"]}),
        "stamp.sh",
        "#!/bin/sh\necho stamped\n",
    );
    std::fs::create_dir_all(tools_dir(&home)).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.path().join("stamp"),
        tools_dir(&home).join("stamp"),
    )
    .unwrap();
    let server = ReplayServer::start(vec![call("stamp", json!({})), Reply::text(&["done"])]);
    run(&home, &server, &[]);
    assert_eq!(result(&server), "stamped");
}

#[test]
fn project_tools_are_coding_tools_that_ask_first() {
    let home = TempDir::new("custom-project");
    let project = home.path().join(".marvin/tools");
    install(
        &project,
        "lint",
        json!({"name": "lint", "description": "Lints", "command": ["./lint.sh"]}),
        "lint.sh",
        "#!/bin/sh\necho linted\n",
    );
    let server = ReplayServer::start(vec![call("lint", json!({})), Reply::text(&["done"])]);
    run(&home, &server, &[]);
    assert_eq!(
        result(&server),
        "linted",
        "bypass, the non-interactive default, runs it"
    );
    let server = ReplayServer::start(vec![call("lint", json!({})), Reply::text(&["done"])]);
    run(&home, &server, &["--permission-mode", "default"]);
    assert!(
        result(&server).starts_with("Error: no one to ask: denied. lint needs approval"),
        "{}",
        result(&server)
    );
    // Outside coding mode (a plain question) the project's tools are not offered.
    let server = ReplayServer::start(vec![Reply::text(&["hi"])]);
    let output = marvin(home.path())
        .env("OPENAI_COMPAT_URL", server.url())
        .arg("hello")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(
        !server.requests()[0].body["tools"]
            .to_string()
            .contains("\"lint\"")
    );
}

#[test]
fn tools_command_lists_them_with_their_origin() {
    let home = TempDir::new("custom-list");
    install(
        &tools_dir(&home),
        "greet",
        json!({"name": "greet", "description": "Greets", "command": ["true"]}),
        "x.sh",
        "",
    );
    let server = ReplayServer::unused();
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", server.url())
        .env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("/tools\r");
    pty.wait_for("Your tools:");
    pty.wait_for_words(&format!(
        "greet {}",
        tools_dir(&home).join("greet/tool.json").display()
    ));
    pty.send("/help\r");
    pty.wait_for("/approvals            actions always allowed here");
    pty.leave();
}
