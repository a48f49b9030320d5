//! The built-in example of doc/interactive-tools.md ("A built-in tool"): the function between
//! the `guide:` marks is printed in the guide as it is here, compiled and run by these tests,
//! so the guide cannot go stale.

use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use crate::interact::{
    self, Ask, CompletedView, FollowUp, Hooks, InputForm, Interactor, Outcome, Prompt, Request,
    Response, Unavailable,
};
use crate::tools::ToolContext;

// guide: begin
/// Asks where a preview server should listen; a port in `taken` is asked again with why.
fn ask_port(ctx: &ToolContext, taken: &[u64]) -> Result<String, String> {
    let form = InputForm::from_fields(
        "Where should the preview server listen?",
        &json!([
            {"id": "port", "type": "integer", "label": "Port", "required": true,
             "minimum": 1024, "maximum": 65535, "defaultValue": 8080},
            {"id": "open", "type": "boolean", "label": "Open it in the browser"}
        ]),
    )?;
    let asked = form.clone();
    let mut on_response = |response: Response| match response {
        Response::Submitted(input) => match input["port"].as_u64() {
            Some(port) if taken.contains(&port) => Outcome::Reprompt(
                Request::Input(asked.clone().with_initial(&input)), // what was typed stays
                format!("Port {port} is taken; choose another."),
            ),
            Some(port) => Outcome::Complete(Ok(format!("Listening on {port}."))),
            None => Outcome::Complete(Err("No port was given.".into())),
        },
        Response::Dismissed => Outcome::Complete(Err("The person closed the form.".into())),
        _ => Outcome::Complete(Err("No port was chosen.".into())),
    };
    let wait = Duration::from_secs(300);
    let ask = Ask {
        completed: CompletedView {
            show_inputs: false,
            summary_template: Some("Listening on {{port}}".into()),
        },
        ..Ask::new(Request::Input(form), wait)
    };
    ctx.request_interaction(
        ask,
        Hooks {
            on_response: &mut on_response,
            on_timeout: &mut || interact::not_answered(wait),
            on_cancel: &mut || {}, // nothing was started yet: nothing to stop
            follow_up: None,
        },
    )
}
// guide: end

/// A person who answers from a script and remembers what they were shown.
struct Scripted {
    answers: Mutex<Vec<Response>>,
    shown: Mutex<Vec<Prompt>>,
}

impl Interactor for Scripted {
    fn ask(&self, prompt: &Prompt) -> Result<Response, Unavailable> {
        self.shown.lock().unwrap().push(prompt.clone());
        Ok(self.answers.lock().unwrap().remove(0))
    }

    fn defer(&self, _: Prompt, _: FollowUp) {}
}

fn input(value: Value) -> Response {
    Response::Submitted(value.as_object().unwrap().clone())
}

#[test]
fn a_taken_port_is_asked_again_with_why_and_what_was_typed() {
    let person = std::sync::Arc::new(Scripted {
        answers: Mutex::new(vec![
            input(json!({"port": 8080, "open": true})),
            input(json!({"port": 9000, "open": true})),
        ]),
        shown: Mutex::new(Vec::new()),
    });
    let ctx = ToolContext {
        interactor: Some(person.clone()),
        ..ToolContext::new(std::env::temp_dir())
    };
    assert_eq!(ask_port(&ctx, &[8080]), Ok("Listening on 9000.".into()));
    let shown = person.shown.lock().unwrap();
    assert_eq!(shown.len(), 2);
    assert_eq!(
        shown[1].error.as_deref(),
        Some("Port 8080 is taken; choose another.")
    );
    let Request::Input(again) = &shown[1].request else {
        panic!("{:?}", shown[1].request)
    };
    assert_eq!(again.initial["port"], 8080);
    assert_eq!(
        shown[0]
            .completed
            .render(&shown[0].request, &input(json!({"port": 9000}))),
        ["Listening on 9000"]
    );
    // Nobody to ask: told at once, never hangs.
    let alone = ToolContext::new(std::env::temp_dir());
    assert_eq!(ask_port(&alone, &[]), Err(interact::NO_UI.into()));
}

#[test]
fn the_guide_prints_this_function_as_it_is() {
    let source = include_str!("guide_example.rs");
    let start = source.find("// guide: begin\n").unwrap() + "// guide: begin\n".len();
    let end = source.find("// guide: end").unwrap();
    let guide = include_str!("../../doc/interactive-tools.md");
    assert!(
        guide.contains(&format!("```rust\n{}```", &source[start..end])),
        "doc/interactive-tools.md must show ask_port exactly as src/tools/guide_example.rs has it"
    );
}
