//! A session in interactive coding mode: a tool's approval request travels from the worker to
//! the thread that called `submit`, the answer decides what happens, and grants are remembered;
//! a front-end that breaks showing the answer does not cost the turn.

use std::path::Path;
use std::sync::Arc;

use crate::common::{self, ReplayServer, Reply, TempDir};
use marvin::cli::Args;
use marvin::config::{Config, Env};
use marvin::interact::{Answer, Prompt, Request, Response, Scope};
use marvin::llm::chain::ProviderChain;
use marvin::llm::openai::OpenAiCompat;
use marvin::session::{Event, Interaction, Session, TurnEnd, TurnUi};
use marvin::tools::Registry;

/// Answers every question from a script and remembers what was asked, and on which thread.
struct Scripted {
    answers: Vec<Response>,
    asked: Vec<(Prompt, std::thread::ThreadId)>,
}

impl TurnUi for Scripted {
    fn event(&mut self, _: &Event) {}
    fn interrupted(&mut self) -> bool {
        false
    }
    fn ask(&mut self, interaction: Interaction) {
        self.asked
            .push((interaction.prompt, std::thread::current().id()));
        interaction.reply.send(self.answers.remove(0));
    }
}

fn interactive_coding_session(server: &ReplayServer, dir: &Path, home: &Path) -> Session {
    let path = std::env::var("PATH").unwrap_or_default();
    let home = home.to_str().unwrap();
    let env = Env::from_pairs([
        ("OPENAI_COMPAT_URL", server.url().as_str()),
        ("PATH", path.as_str()),
        ("MARVIN_HOME", home),
    ]);
    let mut config = Config::build(&Args::default(), &env, dir).unwrap();
    config.coding_mode = true;
    let providers = ProviderChain::new(vec![Arc::new(OpenAiCompat::new(config.provider.clone()))]);
    Session::new(&config, Arc::new(providers), Arc::new(Registry::builtin()))
}

/// Two turns that each run `touch made-it`; returns the dir, the UI and the two tool results.
fn two_turns(answers: Vec<Response>) -> (TempDir, Scripted, Vec<String>) {
    let dir = TempDir::new("approve");
    let home = TempDir::new("approve-home");
    let call = Reply::tool_calls(&[("c1", "run_command", r#"{"command":"touch made-it"}"#)]);
    let server = ReplayServer::start(vec![
        common::ticket_round(),
        call.clone(),
        Reply::text(&["ok"]),
        call,
        Reply::text(&["ok"]),
    ]);
    let mut session = interactive_coding_session(&server, dir.path(), home.path());
    let mut ui = Scripted {
        answers,
        asked: Vec::new(),
    };
    for _ in 0..2 {
        let report = session.submit("make the file", &mut ui);
        assert!(
            matches!(report.end, TurnEnd::Answered(_)),
            "{:?}",
            report.end
        );
    }
    // The first turn opens the ticket gate, then runs the command.
    let results = [2, 4]
        .iter()
        .map(|i| {
            let messages = server.requests()[*i].body["messages"].clone();
            messages.as_array().unwrap().last().unwrap()["content"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    (dir, ui, results)
}

#[test]
fn once_asks_every_time_on_the_thread_that_owns_the_terminal() {
    let (dir, ui, results) = two_turns(vec![
        Response::Approved(Scope::Once),
        Response::Approved(Scope::Once),
    ]);
    assert_eq!(ui.asked.len(), 2);
    let (prompt, thread) = &ui.asked[0];
    assert_eq!(*thread, std::thread::current().id());
    let Request::Approval(approval) = &prompt.request else {
        panic!("{prompt:?}")
    };
    assert_eq!(
        (approval.summary.as_str(), approval.detail.as_str()),
        ("run_command wants to run:", "touch made-it")
    );
    assert_eq!(
        (approval.covers.as_str(), approval.all_edits),
        ("`touch made-it …`", false)
    );
    assert_eq!(results, ["(no output)\n[exit code: 0]"; 2]);
    assert!(dir.path().join("made-it").exists());
}

#[test]
fn a_session_grant_is_not_asked_again() {
    let (_dir, ui, results) = two_turns(vec![Response::Approved(Scope::Session)]);
    assert_eq!(ui.asked.len(), 1);
    assert_eq!(results[1], "(no output)\n[exit code: 0]");
}

#[test]
fn no_with_instructions_tells_the_model_what_to_do_instead() {
    let (dir, _ui, results) = two_turns(vec![
        Response::Denied("use mkdir instead".into()),
        Response::Denied(String::new()),
    ]);
    assert_eq!(
        results[0],
        "Error: The user declined this run_command call and said: use mkdir instead"
    );
    assert_eq!(
        results[1],
        "Error: The user declined this run_command call. Ask them what they would like instead."
    );
    assert!(!dir.path().join("made-it").exists());
}

#[test]
fn coding_mode_brings_its_longer_idle_timeout_unless_marvin_timeout_is_set() {
    use std::time::Duration;
    let dir = TempDir::new("timeout-modes");
    let server = ReplayServer::unused();
    for (variable, normal, coding) in [(None, 180, 900), (Some("30"), 30, 30)] {
        let url = server.url();
        let mut pairs = vec![("OPENAI_COMPAT_URL", url.as_str())];
        pairs.extend(variable.map(|v| ("MARVIN_TIMEOUT", v)));
        let config = Config::build(&Args::default(), &Env::from_pairs(pairs), dir.path()).unwrap();
        let provider = Arc::new(OpenAiCompat::new(config.provider.clone()));
        let chain = ProviderChain::new(vec![provider.clone()]);
        let mut session = Session::new(&config, Arc::new(chain), Arc::new(Registry::builtin()));
        let seconds = |p: &OpenAiCompat| p.http().idle_timeout();
        assert_eq!(seconds(&provider), Duration::from_secs(normal));
        session.set_coding_mode(true);
        assert_eq!(seconds(&provider), Duration::from_secs(coding));
        // A provider switched to in coding mode gets the coding timeout too.
        let other = Arc::new(OpenAiCompat::new(config.provider.clone()));
        session.switch_provider(other.clone());
        assert_eq!(seconds(&other), Duration::from_secs(coding));
        // It replaced its namesake, and leaves coding mode with the session.
        session.set_coding_mode(false);
        assert_eq!(seconds(&other), Duration::from_secs(normal));
    }
}

/// Holds questions instead of answering them, and answers them later from another thread,
/// once both are open and the third call of the round has finished meanwhile.
#[derive(Default)]
struct Later {
    /// What reached the front-end, in order.
    seen: Vec<String>,
    held: Vec<Interaction>,
    /// Till when it waits for all that before it gives up and cancels the turn.
    deadline: Option<std::time::Instant>,
}

impl TurnUi for Later {
    fn event(&mut self, event: &Event) {
        match event {
            Event::ToolResult { name, .. } => self.seen.push(format!("result {name}")),
            Event::QuestionClosed { outcome, .. } => self.seen.push(format!("closed: {outcome}")),
            _ => {}
        }
    }
    fn ask(&mut self, interaction: Interaction) {
        self.seen.push("asked".into());
        self.held.push(interaction);
    }
    fn interrupted(&mut self) -> bool {
        let deadline = *self
            .deadline
            .get_or_insert_with(|| std::time::Instant::now() + std::time::Duration::from_secs(60));
        let ready = self.held.len() == 2 && self.seen.iter().any(|s| s == "result get_working_dir");
        if ready {
            // The two calls ask in an order their threads decide: answer each by its question.
            let asks_two = |i: &Interaction| match &i.prompt.request {
                Request::Questions(questions) => questions[0].question == "Question 2?",
                _ => false,
            };
            self.held.sort_by_key(asks_two);
            let (second, first) = (self.held.pop().unwrap(), self.held.pop().unwrap());
            let pick = |label: &str| Response::Answers(vec![Answer::One(label.into())]);
            std::thread::spawn(move || {
                second.reply.send(pick("y2"));
                // A second surface answers too late: the first answer counts.
                second.reply.clone().send(pick("x2"));
                first.reply.send(pick("x1"));
            })
            .join()
            .unwrap();
        }
        std::time::Instant::now() > deadline
    }
}

#[test]
fn questions_wait_for_a_later_answer_while_the_turn_goes_on_and_the_first_answer_counts() {
    let dir = TempDir::new("later");
    let home = TempDir::new("later-home");
    let question = |n: u8| {
        serde_json::json!({"questions": [{"header": format!("Q{n}"), "question": format!("Question {n}?"), "multiSelect": false, "options": [{"label": format!("x{n}"), "description": ""}, {"label": format!("y{n}"), "description": ""}]}]}).to_string()
    };
    let (one, two) = (question(1), question(2));
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[
            ("a", "ask_user", &one),
            ("b", "ask_user", &two),
            ("c", "get_working_dir", "{}"),
        ]),
        Reply::text(&["both"]),
    ]);
    let mut session = interactive_coding_session(&server, dir.path(), home.path());
    let mut ui = Later::default();
    let report = session.submit(
        "ask me two questions, then say which folder we are in",
        &mut ui,
    );
    assert!(
        matches!(report.end, TurnEnd::Answered(_)),
        "{:?} {:?}",
        report.end,
        ui.seen
    );
    // Both questions were open at once, and the other call's result was shown meanwhile (in
    // an order the threads decide); the answers came later, the late second one dropped.
    let mut first_three = ui.seen[..3].to_vec();
    first_three.sort();
    assert_eq!(
        first_three,
        ["asked", "asked", "result get_working_dir"],
        "{:?}",
        ui.seen
    );
    assert_eq!(
        ui.seen[3..],
        [
            "closed: answered: y2",
            "closed: answered: x1",
            "result ask_user",
            "result ask_user"
        ]
    );
    let messages = server.requests()[1].body["messages"].clone();
    let results: Vec<String> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert!(results[0].contains(r#""Question 1?":"x1""#), "{results:?}");
    assert!(results[1].contains(r#""Question 2?":"y2""#), "{results:?}");
}

/// Breaks on the answer's text, as a front-end with a bug in its rendering would.
struct BreaksOnText;

impl TurnUi for BreaksOnText {
    fn event(&mut self, event: &Event) {
        if let Event::Text { .. } = event {
            panic!("the front-end broke showing the answer");
        }
    }
    fn interrupted(&mut self) -> bool {
        false
    }
    fn ask(&mut self, _: Interaction) {}
}

/// Issue 41, finding 5: a front-end that panicked while drawing the answer unwound through
/// the turn, which was never stored. The turn now goes on and is stored whatever the
/// front-end does: in the report, the chat log and the conversation.
#[test]
fn a_front_end_that_breaks_showing_the_answer_does_not_cost_the_turn() {
    let dir = TempDir::new("broken-ui");
    let home = TempDir::new("broken-ui-home");
    let server = ReplayServer::start(vec![
        Reply::text(&["Kept ", "all the same."]),
        Reply::text(&["Second."]),
    ]);
    let mut session = interactive_coding_session(&server, dir.path(), home.path());
    let report = session.submit("hello", &mut BreaksOnText);
    match &report.end {
        TurnEnd::Answered(message) => assert_eq!(message.text(), "Kept all the same."),
        other => panic!("{other:?}"),
    }
    let log = std::fs::read_to_string(home.path().join("profiles/default/chat_log.jsonl"));
    let log = log.unwrap_or_default();
    assert!(log.contains(r#""text":"Kept all the same.""#), "{log}");
    let mut ui = Scripted {
        answers: Vec::new(),
        asked: Vec::new(),
    };
    session.submit("and now?", &mut ui);
    let messages = &server.requests()[1].body["messages"];
    assert_eq!(messages[2]["content"], "Kept all the same.");
}
