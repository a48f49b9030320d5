//! Staged attacks for the confinement tests: runs of the real binary against a replay server
//! (a hang fails the test, as every `common::non_interactive` run does), and a secret kept
//! outside the project.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{Recorded, ReplayServer, Reply, TempDir, in_project, non_interactive, stderr};

pub const SECRET: &str = "SECRET-7f3a9c";

/// A run of the binary and what the provider was sent.
pub struct Run {
    pub output: Output,
    pub requests: Vec<Recorded>,
}

impl Run {
    /// The tool results of the last request, in call order.
    pub fn results(&self) -> Vec<String> {
        let last = self.requests.last().expect("the provider was called");
        last.tool_results()
    }

    /// Everything the provider received, as one text.
    pub fn sent(&self) -> String {
        self.requests.iter().map(|r| r.body.to_string()).collect()
    }

    pub fn system_prompt(&self) -> String {
        self.requests[0].body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_string()
    }

    pub fn assert_ok(&self) {
        assert_eq!(
            self.output.status.code(),
            Some(0),
            "{}",
            stderr(&self.output)
        );
        assert!(
            !self.sent().contains(SECRET),
            "the secret reached the provider"
        );
    }
}

/// Runs `marvin --non-interactive` in `project` against a server replaying `replies`; `setup`
/// adds flags or variables. A run that never ends is killed and fails the test.
pub fn run(project: &Path, replies: Vec<Reply>, setup: impl FnOnce(&mut Command)) -> Run {
    let home = TempDir::new("confine-home");
    run_in(home.path(), project, replies, setup)
}

/// [`run`] with HOME (and MARVIN_HOME, its `marvin-home`) in `home`.
pub fn run_in(
    home: &Path,
    project: &Path,
    replies: Vec<Reply>,
    setup: impl FnOnce(&mut Command),
) -> Run {
    let server = ReplayServer::start(replies);
    let mut command = in_project(home, &server.url(), project);
    // Every tool is offered (`--tools all`): these tests are of where writes land, not of
    // which tools a request offers.
    command
        .env("OPENAI_COMPAT_API_KEY", "sk-test")
        .env("MARVIN_MODEL", "gpt-4o")
        .env("MARVIN_TOOLS", "all");
    setup(&mut command);
    let output = non_interactive(&mut command, "go");
    Run {
        output,
        requests: server.requests(),
    }
}

/// A directory outside the project holding the secret, and the names it holds.
pub fn outside() -> TempDir {
    let dir = TempDir::new("confine-outside");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("secret.txt"), format!("{SECRET}\n")).unwrap();
    dir
}

pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// ripgrep, when this machine has it.
pub fn which_rg() -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("rg"))
            .find(|rg| rg.is_file())
    })
}
