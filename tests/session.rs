//! A session in interactive coding mode: a tool's yes/no question travels from the worker to
//! the thread that called `submit`, and the answer decides what happens.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{ReplayServer, Reply, TempDir};
use marvin::agent::AgentEvent;
use marvin::cli::Args;
use marvin::config::{Config, Env};
use marvin::llm::chain::ProviderChain;
use marvin::llm::openai::OpenAiCompat;
use marvin::session::{Session, TurnEnd, TurnUi};
use marvin::tools::Registry;

/// Answers every question with `answer` and remembers what was asked, and on which thread.
struct Scripted {
    answer: bool,
    questions: Vec<(String, std::thread::ThreadId)>,
}

impl TurnUi for Scripted {
    fn event(&mut self, _: &AgentEvent) {}
    fn interrupted(&mut self) -> bool {
        false
    }
    fn confirm(&mut self, question: &str) -> bool {
        self.questions
            .push((question.to_string(), std::thread::current().id()));
        self.answer
    }
}

fn interactive_coding_session(server: &ReplayServer, dir: &Path) -> Session {
    let path = std::env::var("PATH").unwrap_or_default();
    let env = Env::from_pairs([
        ("OPENAI_COMPAT_URL", server.url().as_str()),
        ("PATH", path.as_str()),
    ]);
    let mut config = Config::build(&Args::default(), &env, dir).unwrap();
    config.coding_mode = true;
    let providers = ProviderChain::new(vec![Arc::new(OpenAiCompat::new(config.provider.clone()))]);
    Session::new(&config, Arc::new(providers), Arc::new(Registry::builtin()))
}

fn run(answer: bool) -> (TempDir, Scripted, String) {
    let dir = TempDir::new(if answer { "confirm-yes" } else { "confirm-no" });
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "run_command", r#"{"command":"touch made-it"}"#)]),
        Reply::text(&["ok"]),
    ]);
    let mut session = interactive_coding_session(&server, dir.path());
    let mut ui = Scripted {
        answer,
        questions: Vec::new(),
    };
    let report = session.submit("make the file", &mut ui);
    assert!(
        matches!(report.end, TurnEnd::Answered(_)),
        "{:?}",
        report.end
    );
    let messages = server.requests()[1].body["messages"].clone();
    let result = messages.as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    (dir, ui, result)
}

#[test]
fn yes_runs_the_command_after_asking_on_the_calling_thread() {
    let (dir, ui, result) = run(true);
    assert_eq!(ui.questions.len(), 1);
    assert_eq!(ui.questions[0].0, "run_command wants to run: touch made-it");
    assert_eq!(
        ui.questions[0].1,
        std::thread::current().id(),
        "questions are asked on the thread that owns the terminal"
    );
    assert_eq!(result, "(no output)\n[exit code: 0]");
    assert!(dir.path().join("made-it").exists());
}

#[test]
fn no_leaves_everything_as_it_was_and_tells_the_model() {
    let (dir, ui, result) = run(false);
    assert_eq!(ui.questions.len(), 1);
    assert!(
        result.starts_with("Error: The user declined to run this command."),
        "{result}"
    );
    assert!(!dir.path().join("made-it").exists());
}
