//! Tools offered on demand, through the real binary: a quick question's request carries a few
//! tools and says why, a family not offered is found and then called, a tool called by name
//! runs and brings its family, the list keeps its start from turn to turn, and `--tools all`
//! offers everything as before.

use serde_json::Value;

use crate::common::pty::Pty;
use crate::common::{Recorded, ReplayServer, Reply, TempDir, marvin, non_interactive, stderr};
use crate::mcp::tool_names;

/// `marvin` against `model` as the openai-compat provider.
fn against(home: &TempDir, model: &ReplayServer) -> std::process::Command {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("MARVIN_MODEL", "gpt-4o");
    command
}

fn bytes(request: &Recorded) -> usize {
    serde_json::to_vec(&request.body).unwrap().len()
}

#[test]
fn a_quick_question_is_sent_with_a_few_tools_and_verbose_says_which_and_why() {
    let home = TempDir::new("on-demand-quick");
    let model = ReplayServer::start(vec![Reply::text(&["Bring an umbrella."])]);
    let output = against(&home, &model)
        .args(["--verbose", "will it rain in Lyon tomorrow?"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let request = &model.requests()[0];
    let names = tool_names(request);
    // Nobody at a terminal answers this run's questions: ask_user is not offered.
    assert_eq!(&names[..2], ["web_search", "find_tools"]);
    assert!(names.contains(&"weather_forecast".to_string()), "{names:?}");
    assert!(names.len() <= 12, "{names:?}");
    assert!(bytes(request) < 10 * 1024, "{} bytes", bytes(request));
    assert!(
        stderr(&output).contains("tools: core, weather (rain"),
        "{}",
        stderr(&output)
    );

    // --tools all: every tool, as before (the everyday group is about a hundred; the two that
    // ask the person are left out, as nobody answers this run).
    let all = ReplayServer::start(vec![Reply::text(&["Yes."])]);
    let output = against(&home, &all)
        .args(["--tools", "all", "will it rain?"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let everything = tool_names(&all.requests()[0]);
    assert!(everything.len() > 95, "{everything:?}");
    assert!(
        !everything.contains(&"ask_user".to_string()),
        "{everything:?}"
    );
    let wrong = against(&home, &ReplayServer::unused())
        .env("MARVIN_TOOLS", "some")
        .arg("hi")
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        stderr(&wrong).starts_with("marvin: MARVIN_TOOLS \"some\": choose auto"),
        "{}",
        stderr(&wrong)
    );
}

#[test]
fn a_family_not_offered_is_found_then_called_and_the_list_keeps_its_start() {
    let home = TempDir::new("on-demand-find");
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("f1", "find_tools", r#"{"query": "my saved places"}"#)]),
        Reply::tool_calls(&[("p1", "list_places", "{}")]),
        Reply::text(&["You have none yet."]),
    ]);
    let output = against(&home, &model)
        .args(["--json", "--non-interactive", "--prompt", "hello"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let requests = model.requests();
    let (first, second) = (tool_names(&requests[0]), tool_names(&requests[1]));
    assert!(!first.contains(&"list_places".to_string()), "{first:?}");
    assert!(second.starts_with(&first), "{first:?}\nthen {second:?}");
    assert!(second.contains(&"list_places".to_string()), "{second:?}");
    let found = requests[1].result_of("f1");
    assert!(
        found
            .contains("- places (saved places: home, work): save_place, remove_place, list_places"),
        "{found}"
    );
    assert!(!requests[2].result_of("p1").contains("Unknown tool"));
    // --json said what each request offered, and why the new family came.
    let events: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|event: &Value| event["type"] == "tools")
        .collect();
    assert_eq!(events.len(), 2, "{events:?}");
    let places = events[1]["families"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["family"] == "places")
        .cloned()
        .unwrap_or_else(|| panic!("{events:?}"));
    assert_eq!(places["why"], "find_tools: my saved places");
}

#[test]
fn a_tool_called_by_name_runs_though_not_offered_and_a_made_up_one_is_told() {
    let home = TempDir::new("on-demand-called");
    let model = ReplayServer::start(vec![
        // Neither name was offered: a model may still call a real tool it knows of (from a
        // session before, or the catalogue) and get a name wrong.
        Reply::tool_calls(&[("p1", "list_places", "{}"), ("x1", "list_placez", "{}")]).made_up(),
        Reply::text(&["Done."]),
    ]);
    let output = non_interactive(&mut against(&home, &model), "hello");
    assert!(output.status.success(), "{}", stderr(&output));
    let requests = model.requests();
    assert!(!tool_names(&requests[0]).contains(&"list_places".to_string()));
    assert!(!requests[1].result_of("p1").starts_with("Error"));
    let made_up = requests[1].result_of("x1");
    assert!(
        made_up.starts_with("Error: Unknown tool 'list_placez'. Did you mean 'list_places'?"),
        "{made_up}"
    );
    assert!(
        made_up.ends_with("(find_tools finds and loads the others)"),
        "{made_up}"
    );
    assert!(tool_names(&requests[1]).contains(&"save_place".to_string()));
}

#[test]
fn at_the_prompt_the_second_turn_starts_with_the_first_turns_tools() {
    let home = TempDir::new("on-demand-prefix");
    let model = ReplayServer::start(vec![Reply::text(&["Sunny."]), Reply::text(&["Set."])]);
    let mut command = against(&home, &model);
    command.env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("what's the weather in Oslo?\r");
    pty.wait_for("Sunny.");
    pty.send("wake me up at seven tomorrow\r");
    pty.wait_for("Set.");
    assert!(pty.leave().success());
    let requests = model.requests();
    let (first, second) = (tool_names(&requests[0]), tool_names(&requests[1]));
    assert!(first.contains(&"weather_forecast".to_string()), "{first:?}");
    assert!(second.starts_with(&first), "{first:?}\nthen {second:?}");
    assert!(second.contains(&"set_alarm".to_string()), "{second:?}");
    // The system prompt names no tool, so a family that comes does not change it.
    let prompt = requests[1].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!prompt.contains("weather_forecast"), "{prompt}");
}

#[test]
fn a_session_taken_up_again_offers_its_families_in_the_same_order() {
    let home = TempDir::new("on-demand-continue");
    let model = ReplayServer::start(vec![Reply::text(&["Sunny."]), Reply::text(&["Set."])]);
    let first = against(&home, &model)
        .arg("what's the weather in Oslo?")
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    let again = against(&home, &model)
        .args(["-c", "and wake me up at seven"])
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    let requests = model.requests();
    let (first, second) = (tool_names(&requests[0]), tool_names(&requests[1]));
    assert!(second.starts_with(&first), "{first:?}\nthen {second:?}");
    assert!(second.contains(&"set_alarm".to_string()), "{second:?}");
}
