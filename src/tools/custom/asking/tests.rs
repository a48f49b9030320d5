//! The conversation with a tool whose stdout is written out beforehand, and a person whose
//! answers are scripted.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::*;
use crate::interact::{Interactor, Prompt, Unavailable};
use crate::tools::custom::watchdog::Watched;

/// Answers from a script; remembers the prompts; a deferred question is answered at once
/// with `late`, its follow-up kept.
struct Person {
    answers: Mutex<Vec<Result<Response, Unavailable>>>,
    seen: Mutex<Vec<Prompt>>,
    late: Option<Response>,
    follow_ups: Mutex<Vec<String>>,
}

impl Person {
    fn new(mut answers: Vec<Result<Response, Unavailable>>, late: Option<Response>) -> Arc<Self> {
        answers.reverse();
        Arc::new(Self {
            answers: Mutex::new(answers),
            seen: Mutex::default(),
            late,
            follow_ups: Mutex::default(),
        })
    }
}

impl Interactor for Person {
    fn ask(&self, prompt: &Prompt) -> Result<Response, Unavailable> {
        self.seen.lock().unwrap().push(prompt.clone());
        self.answers
            .lock()
            .unwrap()
            .pop()
            .expect("an answer scripted")
    }

    fn defer(&self, _: Prompt, render: FollowUp) {
        if let Some(late) = &self.late {
            self.follow_ups.lock().unwrap().push(render(late));
        }
    }
}

fn definition() -> Definition {
    Definition {
        name: "deploy".into(),
        command: vec!["true".into()],
        dir: std::env::temp_dir(),
        timeout: Duration::from_secs(60),
        approval: None,
        origin: Origin::User,
        interactive: true,
    }
}

fn context(person: Option<Arc<Person>>) -> ToolContext {
    let mut ctx = ToolContext::new(std::env::temp_dir());
    ctx.call_id = "c1".into();
    ctx.interactor = person.map(|p| p as Arc<dyn Interactor>);
    ctx
}

/// Runs the conversation with a tool that prints `lines`; returns the replies it got, and
/// what the conversation ended with.
fn talk(ctx: &ToolContext, lines: &[Value]) -> (Vec<Value>, Talked) {
    let stdout: String = lines
        .iter()
        .map(|line| match line {
            Value::String(text) => format!("{text}\n"),
            request => format!("@@marvin-interact {request}\n"),
        })
        .collect();
    let mut replies = Vec::new();
    let watched = Watched::new(Duration::from_secs(60));
    let pipe = Pipe::new(stdout.as_bytes(), Some(&mut replies), watched, &ctx.call_id);
    let talked = converse(&definition(), ctx, pipe);
    let replies = String::from_utf8(replies)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (replies, talked)
}

fn approval(scopes: Value) -> Value {
    json!({"type": "approval", "prompt": "Deploy to prod?", "scopes": scopes, "key": "prod"})
}

#[test]
fn a_session_grant_answers_the_next_approval_and_scopes_not_offered_are_once() {
    let person = Person::new(
        vec![
            Ok(Response::Approved(Scope::Always)),
            Ok(Response::Approved(Scope::Session)),
            Ok(Response::Denied("not on Fridays".into())),
        ],
        None,
    );
    let ctx = context(Some(person.clone()));
    let offered = approval(json!(["once", "session"]));
    let other = json!({"type": "approval", "prompt": "Deploy to staging?", "key": "staging"});
    let (replies, talked) = talk(
        &ctx,
        &[
            offered.clone(),
            offered.clone(),
            offered,
            other,
            json!("done"),
        ],
    );
    assert_eq!(
        replies,
        [
            json!({"action": "approve", "approvalScope": "once", "requestId": "c1/1"}),
            json!({"action": "approve", "approvalScope": "session", "requestId": "c1/2"}),
            json!({"action": "approve", "approvalScope": "session", "remembered": true, "requestId": "c1/3"}),
            json!({"action": "deny", "reason": "not on Fridays", "requestId": "c1/4"}),
        ]
    );
    assert_eq!(talked.output, "done\n");
    let seen = person.seen.lock().unwrap();
    assert_eq!(seen.len(), 3, "the remembered one was not asked");
    let Request::Approval(asked) = &seen[0].request else {
        panic!("{:?}", seen[0].request)
    };
    assert_eq!(asked.scopes, [Scope::Once, Scope::Session]);
    assert_eq!(asked.covers, "deploy approvals of prod");
}

#[test]
fn a_refused_form_is_asked_again_with_the_error_and_the_values_given() {
    let submitted = |port: u64| {
        Ok(Response::Submitted(
            json!({"port": port}).as_object().unwrap().clone(),
        ))
    };
    let person = Person::new(
        vec![submitted(8080), submitted(9090), Ok(Response::Dismissed)],
        None,
    );
    let ctx = context(Some(person.clone()));
    let form = json!({"type": "input", "prompt": "Port?", "fields": [{"id": "port", "type": "integer", "label": "Port"}]});
    let mut again = form.clone();
    again["error"] = json!("Port 8080 is taken");
    let (replies, _) = talk(&ctx, &[form.clone(), again, form]);
    assert_eq!(
        replies,
        [
            json!({"action": "submit", "input": {"port": 8080}, "requestId": "c1/1"}),
            json!({"action": "submit", "input": {"port": 9090}, "requestId": "c1/2"}),
            json!({"action": "cancel", "requestId": "c1/3"}),
        ]
    );
    let seen = person.seen.lock().unwrap();
    assert_eq!(seen[1].error.as_deref(), Some("Port 8080 is taken"));
    let Request::Input(shown) = &seen[1].request else {
        panic!("{:?}", seen[1].request)
    };
    assert_eq!(
        shown.initial,
        json!({"port": 8080}).as_object().unwrap().clone()
    );
    assert_eq!(seen[2].error, None, "a new question, not a reprompt");
}

#[test]
fn a_late_approval_grants_and_tells_the_model() {
    let person = Person::new(
        vec![Ok(Response::TimedOut)],
        Some(Response::Approved(Scope::Session)),
    );
    let ctx = context(Some(person.clone()));
    let mut pending = approval(json!(["once", "session"]));
    pending["pending"] = json!({"after_seconds": 1});
    let (replies, _) = talk(&ctx, &[pending, approval(json!(["once", "session"]))]);
    assert_eq!(
        replies,
        [
            json!({"action": "pending", "requestId": "c1/1"}),
            json!({"action": "approve", "approvalScope": "session", "remembered": true, "requestId": "c1/2"}),
        ]
    );
    assert_eq!(
        person.follow_ups.lock().unwrap().as_slice(),
        [
            "The person answered the earlier question of deploy (\"Deploy to prod?\"): approved for this session"
        ]
    );
    assert_eq!(
        person.seen.lock().unwrap()[0].timeout,
        Duration::from_secs(1)
    );
    assert_eq!(
        ctx.shared.notes.take("c1"),
        [
            "(The question \"Deploy to prod?\" is still open: the person's answer will come as a message later.)"
        ]
    );
}

#[test]
fn nobody_there_a_cancelled_turn_a_parked_run_and_a_timeout_each_have_their_reply() {
    let form = json!({"type": "input", "fields": [{"id": "n", "type": "integer"}]});
    let old = json!({"questions": [{"header": "Env", "question": "Where?", "options": [
        {"label": "a", "description": ""}, {"label": "b", "description": ""}]}]});
    let (replies, _) = talk(&context(None), &[form.clone(), old.clone()]);
    assert_eq!(
        replies,
        [
            json!({"action": "unavailable", "requestId": "c1/1"}),
            json!({"status": "unavailable"}),
        ]
    );
    let person = Person::new(
        vec![
            Ok(Response::TimedOut),
            Err(Unavailable::Cancelled),
            Ok(Response::Cancelled),
            Ok(Response::Parked),
        ],
        None,
    );
    let ctx = context(Some(person));
    let (replies, talked) = talk(&ctx, &[form.clone(), form.clone(), old, form]);
    assert_eq!(
        replies,
        [
            json!({"action": "timeout", "requestId": "c1/1"}),
            json!({"action": "cancelled", "requestId": "c1/2"}),
            json!({"status": "cancelled"}),
            json!({"action": "cancelled", "requestId": "c1/4"}),
        ]
    );
    assert!(talked.parked);
}
