//! The timers, personal tickets and exit_app of issue 15 through the built binary (and two
//! sessions of the library in one process, for the timers): a replayed model calls the tools
//! in rounds and the tests read what each call returned.

mod exit;
mod tickets;
mod timers;

use std::process::Output;

use crate::common::{ReplayServer, Reply, TempDir, marvin, non_interactive};

/// A run of the binary whose model makes one round of calls per entry of `rounds`, then
/// answers "done".
pub struct Run {
    pub output: Output,
    /// What each round's calls returned, in call order.
    pub rounds: Vec<Vec<String>>,
}

impl Run {
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }
}

/// Runs `marvin --non-interactive --tools all` in `home`, its model making `rounds` of calls
/// (id, tool, arguments), one round after another. Every tool is offered: these tests are of
/// what the tools do, not of which a request offers.
pub fn run(home: &TempDir, rounds: &[&[(&str, &str, &str)]]) -> Run {
    let mut replies: Vec<Reply> = rounds
        .iter()
        .map(|calls| Reply::tool_calls(calls))
        .collect();
    replies.push(Reply::text(&["done"]));
    let model = ReplayServer::start(replies);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("MARVIN_TOOLS", "all");
    let output = non_interactive(&mut command, "help me");
    let requests = model.requests();
    assert_eq!(
        requests.len(),
        rounds.len() + 1,
        "the model was not asked after every round: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rounds = requests[1..]
        .iter()
        .map(|request| request.latest_round())
        .collect();
    Run { output, rounds }
}

/// One round of calls; their results.
pub fn round(home: &TempDir, calls: &[(&str, &str, &str)]) -> Vec<String> {
    let run = run(home, &[calls]);
    assert_eq!(run.output.status.code(), Some(0), "{}", run.stderr());
    run.rounds.into_iter().next().unwrap_or_default()
}

/// One call; its result.
pub fn call(home: &TempDir, tool: &str, arguments: &str) -> String {
    let results = round(home, &[("1", tool, arguments)]);
    assert_eq!(results.len(), 1, "{results:?}");
    results[0].clone()
}
