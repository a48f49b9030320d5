//! The kernel keeps what Marvin starts for the model inside the project (Landlock), through the
//! real binary in `--non-interactive` (bypass: nobody is asked, as cron runs it): a command, a
//! user tool and a project's MCP server write only in the working and temp dirs, by absolute
//! path or by `..` alike, never read `~/.ssh` or `~/.aws`, and the model is told why. Where the
//! kernel has no Landlock these tests say so and check nothing.

use std::path::PathBuf;

use serde_json::json;

use crate::common::{self, ReplayServer, Reply, TempDir, in_project, non_interactive, stderr};
use crate::mcp::servers;
use crate::security::{executable, grant_always, project};

/// Whether this kernel has Landlock; says so when it has not.
fn landlock() -> bool {
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns a number.
    let abi = unsafe { libc::syscall(444, std::ptr::null::<u8>(), 0usize, 1u32) };
    if abi < 1 {
        eprintln!("skipped: this kernel has no Landlock, so Marvin's sandbox cannot be checked");
    }
    abi >= 1
}

/// A home with secrets (`.ssh`, `.aws`), its own temp dir, a project and a sibling directory
/// outside it holding a file.
struct Place {
    home: TempDir,
    project: PathBuf,
    outside: PathBuf,
    temp: PathBuf,
}

fn place(tag: &str) -> Place {
    let home = TempDir::new(tag);
    let project = project(&home);
    let root = std::fs::canonicalize(home.path()).unwrap();
    let (outside, temp) = (root.join("outside"), root.join("tmp"));
    for dir in [&outside, &temp, &root.join(".ssh"), &root.join(".aws")] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(outside.join("keep.txt"), "kept\n").unwrap();
    std::fs::write(root.join(".ssh/id_rsa"), "PRIVATE-KEY\n").unwrap();
    std::fs::write(root.join(".aws/credentials"), "AWS-SECRET\n").unwrap();
    Place {
        home,
        project,
        outside,
        temp,
    }
}

/// Runs `--non-interactive` in the project with `args`, the model making `calls` (one round
/// each, after the ticket), then the results the model got, in order.
fn run(place: &Place, calls: &[(&str, serde_json::Value)], args: &[&str]) -> Vec<String> {
    let mut replies: Vec<Reply> = calls
        .iter()
        .map(|(name, input)| Reply::tool_calls(&[("c1", name, &input.to_string())]))
        .collect();
    replies.push(Reply::text(&["done"]));
    let server = ReplayServer::start(common::ticketed(replies));
    // Every tool is offered: these tests are of what the kernel lets a program do, not of
    // which tools a request offers.
    let output = non_interactive(
        in_project(place.home.path(), &server.url(), &place.project)
            .env("TMPDIR", &place.temp)
            .env("MARVIN_TOOLS", "all")
            .args(args),
        "go",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    (2..=calls.len() + 1)
        .map(|i| server.requests()[i].latest_round().pop().unwrap())
        .collect()
}

fn command(line: &str) -> (&'static str, serde_json::Value) {
    ("run_command", json!({ "command": line }))
}

#[test]
fn commands_write_only_in_the_working_and_temp_dirs_and_never_read_secrets() {
    if !landlock() {
        return;
    }
    let place = place("sandbox-commands");
    let home = std::fs::canonicalize(place.home.path()).unwrap();
    let results = run(
        &place,
        &[
            command("echo in > inside.txt && cat inside.txt"),
            command(&format!(
                "echo t > {}/t.txt && cat $TMPDIR/t.txt",
                place.temp.display()
            )),
            command(&format!("echo x > {}/x.txt", place.outside.display())),
            command("echo y > ../y.txt"),
            command("cat ~/.ssh/id_rsa; cat ~/.aws/credentials"),
            command("rm -rf ../outside; ls ../outside"),
        ],
        &[],
    );
    assert!(results[0].starts_with("in\n"), "{}", results[0]);
    assert!(results[1].starts_with("t\n"), "{}", results[1]);
    assert!(
        results[2].contains(&format!(
            "The sandbox refused to write {}/x.txt: it is outside the working directory",
            place.outside.display()
        )),
        "{}",
        results[2]
    );
    assert!(
        results[3]
            .contains("The sandbox refused to write ../y.txt: it is outside the working directory"),
        "{}",
        results[3]
    );
    assert!(results[3].contains("--sandbox off"), "{}", results[3]);
    assert!(!results[4].contains("PRIVATE-KEY") && !results[4].contains("AWS-SECRET"));
    assert!(
        results[4].contains("one of the person's secret stores"),
        "{}",
        results[4]
    );
    assert!(results[5].contains("keep.txt"), "{}", results[5]);
    assert_eq!(
        std::fs::read_to_string(place.outside.join("keep.txt")).unwrap(),
        "kept\n"
    );
    assert!(!place.outside.join("x.txt").exists() && !home.join("y.txt").exists());
    assert_eq!(
        std::fs::read_to_string(place.project.join("inside.txt")).unwrap(),
        "in\n"
    );
}

#[test]
fn read_only_writes_nowhere_and_off_confines_nothing() {
    if !landlock() {
        return;
    }
    let place = place("sandbox-modes");
    let results = run(
        &place,
        &[command("echo in > inside.txt")],
        &["--sandbox", "read-only"],
    );
    assert!(
        results[0].contains("with --sandbox read-only, programs write nowhere"),
        "{}",
        results[0]
    );
    assert!(!place.project.join("inside.txt").exists());
    let results = run(
        &place,
        &[command("echo y > ../outside/y.txt && cat ~/.ssh/id_rsa")],
        &["--sandbox", "off"],
    );
    assert!(results[0].contains("PRIVATE-KEY"), "{}", results[0]);
    assert!(place.outside.join("y.txt").exists());
}

#[test]
fn a_user_tool_is_confined_the_same_way_and_still_reads_its_own_directory() {
    if !landlock() {
        return;
    }
    let place = place("sandbox-tool");
    let dir = place.home.path().join("marvin-home/tools/probe");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("tool.json"),
        json!({"name": "probe", "description": "Tries the walls.", "command": ["sh", "probe.sh"]})
            .to_string(),
    )
    .unwrap();
    std::fs::write(dir.join("data.txt"), "own data\n").unwrap();
    executable(
        &dir.join("probe.sh"),
        &format!(
            "#!/bin/sh\ncat \"$MARVIN_TOOL_DIR/data.txt\"\necho here > made.txt && echo wrote-inside\necho x > {}/x.txt 2>&1 || echo refused-outside\ncat ~/.ssh/id_rsa 2>&1 || echo refused-secret\n",
            place.outside.display()
        ),
    );
    let results = run(&place, &[("probe", json!({}))], &[]);
    let result = &results[0];
    for line in [
        "own data",
        "wrote-inside",
        "refused-outside",
        "refused-secret",
    ] {
        assert!(result.contains(line), "{line}: {result}");
    }
    assert!(!result.contains("PRIVATE-KEY"), "{result}");
    assert!(place.project.join("made.txt").exists());
    assert!(!place.outside.join("x.txt").exists());
}

#[test]
fn a_project_mcp_server_is_confined_the_same_way() {
    if !landlock() {
        return;
    }
    let place = place("sandbox-mcp");
    let root = std::fs::canonicalize(place.home.path()).unwrap();
    let filesystem = servers()
        .join("mcp-server-filesystem")
        .display()
        .to_string();
    // The server itself would allow the whole home: the kernel is what holds it.
    let mcp = json!({"mcpServers": {"files": {"command": filesystem, "args": [root]}}});
    std::fs::write(place.project.join(".mcp.json"), mcp.to_string()).unwrap();
    let identity = format!("{filesystem} {}", root.display());
    grant_always(
        &place.home,
        &place.project,
        &[&format!("mcp-server:files:{identity}")],
    );
    let results = run(
        &place,
        &[
            (
                "files__write_file",
                json!({"path": place.project.join("in.txt"), "content": "in"}),
            ),
            (
                "files__write_file",
                json!({"path": place.outside.join("x.txt"), "content": "x"}),
            ),
            (
                "files__read_text_file",
                json!({"path": root.join(".ssh/id_rsa")}),
            ),
        ],
        &[],
    );
    assert!(place.project.join("in.txt").exists(), "{}", results[0]);
    assert!(!place.outside.join("x.txt").exists(), "{}", results[1]);
    assert!(!results[2].contains("PRIVATE-KEY"), "{}", results[2]);
    assert!(
        results[1].to_lowercase().contains("permission denied") || results[1].contains("EACCES"),
        "{}",
        results[1]
    );
}

/// A command that tries to push `!command` into Marvin's own prompt (TIOCSTI) through the
/// terminal it would share with Marvin, or through the terminal's device found from its
/// parent: it has no terminal, and no right to a device's ioctl.
#[test]
fn a_command_cannot_type_into_marvins_prompt() {
    if !landlock() {
        return;
    }
    let place = place("sandbox-tiocsti");
    let pwned = place.outside.join("pwned");
    let script = format!(
        "import fcntl, os, termios\n\
         keys = '!touch {}\\r'\n\
         for path in ['/dev/tty', os.readlink('/proc/%d/fd/0' % os.getppid())]:\n\
         \x20   try:\n\
         \x20       fd = os.open(path, os.O_RDONLY | os.O_NOCTTY)\n\
         \x20       [fcntl.ioctl(fd, termios.TIOCSTI, k.encode()) for k in keys]\n\
         \x20       print('pushed through', path)\n\
         \x20   except OSError as e:\n\
         \x20       print('refused', path, e.errno)\n",
        pwned.display()
    );
    std::fs::write(place.temp.join("push.py"), script).unwrap();
    let call = json!({"command": format!("python3 {}/push.py", place.temp.display())});
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[("c1", "run_command", &call.to_string())]),
        Reply::text(&["tried"]),
    ]));
    let temp = place.temp.display().to_string();
    let mut pty = crate::common::pty::at_80(
        &place.home,
        &server.url(),
        &[("TMPDIR", temp.as_str())],
        &[
            "--working-dir",
            place.project.to_str().unwrap(),
            "--permission-mode",
            "bypass",
        ],
    );
    pty.send_in_coding_mode("try it");
    pty.wait_for("tried");
    // Whatever was pushed would have been read by now; one more turn makes sure.
    pty.send("/context\r");
    pty.wait_for("window");
    pty.leave();
    let result = server.requests()[2].latest_round().pop().unwrap();
    assert!(!result.contains("pushed through"), "{result}");
    assert!(
        !pwned.exists(),
        "a command typed into Marvin's prompt: {result}"
    );
}

/// Marvin's own environment holds its keys: a command cannot read it from /proc (Landlock
/// keeps a confined program from looking into processes outside its sandbox). Run as a
/// person runs it: as root, capabilities get past that (see the README).
#[test]
fn a_command_cannot_read_marvins_environment() {
    use std::os::unix::process::CommandExt;
    if !landlock() {
        return;
    }
    let place = place("sandbox-environ");
    let server = ReplayServer::start(common::ticketed(vec![
        Reply::tool_calls(&[(
            "c1",
            "run_command",
            r#"{"command": "tr '\\0' '\\n' < /proc/$PPID/environ | grep -c KEY-IN-ENV"}"#,
        )]),
        Reply::text(&["done"]),
    ]));
    let mut command = in_project(place.home.path(), &server.url(), &place.project);
    command
        .env("TMPDIR", &place.temp)
        .env("OPENAI_COMPAT_API_KEY", "KEY-IN-ENV");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let nobody = 65534;
        let chowned = std::process::Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(place.home.path())
            .status()
            .unwrap();
        assert!(chowned.success());
        command.uid(nobody).gid(nobody);
    }
    let output = non_interactive(&mut command, "go");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result = server.requests()[2].latest_round().pop().unwrap();
    assert!(result.contains("/environ: Permission denied"), "{result}");
    assert!(
        result.starts_with("0\n") || result.contains("\n0\n"),
        "{result}"
    );
}

/// `--no-network` refuses TCP (where the kernel can); the network stays on without it.
#[test]
fn no_network_refuses_tcp_and_the_default_allows_it() {
    let abi = unsafe { libc::syscall(444, std::ptr::null::<u8>(), 0usize, 1u32) };
    if abi < 4 {
        eprintln!("skipped: this kernel's Landlock cannot refuse the network (ABI {abi})");
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5); print('connected')\""
    );
    let place = place("sandbox-network");
    let results = run(&place, &[command(&connect)], &["--no-network"]);
    assert!(!results[0].contains("connected"), "{}", results[0]);
    assert!(results[0].contains("Permission denied"), "{}", results[0]);
    let results = run(&place, &[command(&connect)], &[]);
    assert!(results[0].starts_with("connected"), "{}", results[0]);
}
