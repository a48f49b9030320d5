//! timer_start, timer_check and timer_stop: across the rounds of a run, and per session — two
//! sessions in one process never see each other's timers.

use std::path::Path;
use std::sync::Arc;

use super::run;
use crate::common::{ReplayServer, Reply, TempDir};
use marvin::cli::Args;
use marvin::config::{Config, Env};
use marvin::llm::chain::ProviderChain;
use marvin::llm::openai::OpenAiCompat;
use marvin::session::{Event, Interaction, Session, TurnEnd, TurnUi};
use marvin::tools::Registry;

#[test]
fn a_countdown_and_a_stopwatch_are_started_checked_and_stopped() {
    let home = TempDir::new("timers-run");
    let run = run(
        &home,
        &[
            &[
                ("1", "timer_start", r#"{"name": "tea", "duration": "25m"}"#),
                ("2", "timer_start", r#"{"name": "run"}"#),
                (
                    "3",
                    "timer_start",
                    r#"{"name": "pasta", "duration": "1h30"}"#,
                ),
                (
                    "4",
                    "timer_start",
                    r#"{"name": "eggs", "duration": "soon"}"#,
                ),
            ],
            &[
                ("5", "timer_check", "{}"),
                ("6", "timer_check", r#"{"name": "TEA"}"#),
                (
                    "7",
                    "timer_start",
                    r#"{"name": "Tea", "duration": "90 seconds"}"#,
                ),
            ],
            &[
                ("8", "timer_stop", r#"{"name": "run"}"#),
                ("9", "timer_stop", r#"{"name": "tea"}"#),
            ],
            // Calls of one round run at once: what depends on those before comes after.
            &[("10", "timer_stop", "{}")],
            &[("11", "timer_check", r#"{"name": "run"}"#)],
        ],
    );
    assert_eq!(run.output.status.code(), Some(0), "{}", run.stderr());
    let [started, checked, stopped, last, none] = &run.rounds[..] else {
        panic!("{:?}", run.rounds)
    };
    assert_eq!(
        started[..3],
        [
            "Countdown 'tea' started: 25m 00s.",
            "Stopwatch 'run' started.",
            "Countdown 'pasta' started: 1h 30m 00s.",
        ]
    );
    assert_eq!(
        started[3],
        "Error: 'soon' is not a duration: write it as \"25m\", \"1h30\", \"90 seconds\" or \"1:30:00\"."
    );
    // The calls of a round run at once: the list is in the order they happened to start.
    let all: Vec<&str> = checked[0].lines().collect();
    assert_eq!(all.len(), 3, "{}", checked[0]);
    let of = |name: &str| {
        let prefix = format!("- '{name}': ");
        *all.iter().find(|l| l.starts_with(&prefix)).unwrap()
    };
    let tea = of("tea");
    assert!(
        tea.starts_with("- 'tea': countdown of 25m 00s — ") && tea.ends_with(" left"),
        "{tea}"
    );
    assert!(of("run").starts_with("- 'run': stopwatch — ") && of("run").ends_with(" elapsed"));
    assert!(of("pasta").starts_with("- 'pasta': countdown of 1h 30m 00s — "));
    assert!(
        checked[1].starts_with("'tea': countdown of 25m 00s — "),
        "{}",
        checked[1]
    );
    assert!(
        checked[2].starts_with("Error: A timer named 'tea' exists already (countdown of 25m 00s"),
        "{}",
        checked[2]
    );
    assert!(
        stopped[0].starts_with("Stopped stopwatch 'run' at "),
        "{}",
        stopped[0]
    );
    assert!(
        stopped[1].starts_with("Stopped countdown 'tea' of 25m 00s after ")
            && stopped[1].ends_with(" left."),
        "{}",
        stopped[1]
    );
    // Only pasta is left, so it needs no name.
    assert!(last[0].starts_with("Stopped countdown 'pasta' of 1h 30m 00s after "));
    assert_eq!(none[0], "No timer is running in this session.");
}

/// Keeps what the turn showed: the tool results.
#[derive(Default)]
struct Shown(Vec<String>);

impl TurnUi for Shown {
    fn event(&mut self, event: &Event) {
        if let Event::ToolResult { output, .. } = event {
            self.0.push(output.clone());
        }
    }
    fn ask(&mut self, _: Interaction) {}
    fn interrupted(&mut self) -> bool {
        false
    }
}

fn session(server: &ReplayServer, dir: &Path) -> Session {
    let home = dir.join("marvin-home");
    let env = Env::from_pairs([
        ("OPENAI_COMPAT_URL", server.url().as_str()),
        ("MARVIN_HOME", home.to_str().unwrap()),
    ]);
    let config = Config::build(&Args::default(), &env, dir).unwrap();
    let providers = ProviderChain::new(vec![Arc::new(OpenAiCompat::new(config.provider.clone()))]);
    Session::new(&config, Arc::new(providers), Arc::new(Registry::builtin()))
}

/// One turn whose model makes one call and then answers; what the call returned.
fn turn(session: &mut Session) -> String {
    let mut shown = Shown::default();
    let report = session.submit("time it", &mut shown);
    assert!(
        matches!(report.end, TurnEnd::Answered(_)),
        "{:?}",
        report.end
    );
    assert_eq!(shown.0.len(), 1, "{:?}", shown.0);
    shown.0.remove(0)
}

#[test]
fn two_sessions_in_one_process_never_see_each_others_timers() {
    let dir = TempDir::new("timers-sessions");
    let replies = |calls: &[(&str, &str)]| -> Vec<Reply> {
        calls
            .iter()
            .flat_map(|(tool, args)| {
                [
                    Reply::tool_calls(&[("1", tool, args)]),
                    Reply::text(&["ok"]),
                ]
            })
            .collect()
    };
    let server_one = ReplayServer::start(replies(&[
        ("timer_start", r#"{"name": "tea", "duration": "4m"}"#),
        ("timer_check", "{}"),
    ]));
    let server_two = ReplayServer::start(replies(&[
        ("timer_check", "{}"),
        ("timer_start", r#"{"name": "tea"}"#),
        ("timer_stop", r#"{"name": "tea"}"#),
    ]));
    let mut one = session(&server_one, dir.path());
    let mut two = session(&server_two, dir.path());
    assert_eq!(turn(&mut one), "Countdown 'tea' started: 4m 00s.");
    assert_eq!(turn(&mut two), "No timer is running in this session.");
    // The same name is free in the other session: its tea is a stopwatch of its own.
    assert_eq!(turn(&mut two), "Stopwatch 'tea' started.");
    assert!(turn(&mut two).starts_with("Stopped stopwatch 'tea' at "));
    let left = turn(&mut one);
    assert!(
        left.starts_with("- 'tea': countdown of 4m 00s — "),
        "{left}"
    );
}
