use super::*;
use std::sync::Mutex;

/// Replies from a script and remembers the prompts.
struct Scripted {
    replies: Mutex<Vec<Result<Response, Unavailable>>>,
    seen: Mutex<Vec<Prompt>>,
    deferred: Mutex<Vec<String>>,
}

impl Scripted {
    fn new(mut replies: Vec<Result<Response, Unavailable>>) -> Self {
        replies.reverse();
        Self {
            replies: Mutex::new(replies),
            seen: Mutex::new(Vec::new()),
            deferred: Mutex::new(Vec::new()),
        }
    }
}

impl Interactor for Scripted {
    fn ask(&self, prompt: &Prompt) -> Result<Response, Unavailable> {
        self.seen.lock().unwrap().push(prompt.clone());
        self.replies
            .lock()
            .unwrap()
            .pop()
            .unwrap_or(Ok(Response::Cancelled))
    }
    fn defer(&self, _: Prompt, render: FollowUp) {
        self.deferred
            .lock()
            .unwrap()
            .push(render(&Response::Denied("late".into())));
    }
}

fn question() -> Request {
    Request::Questions(vec![Question {
        header: "Port".into(),
        question: "Which port?".into(),
        options: vec![
            Choice {
                label: "80".into(),
                description: String::new(),
            },
            Choice {
                label: "443".into(),
                description: String::new(),
            },
        ],
        multi_select: false,
        initial: None,
    }])
}

fn run(
    script: &Scripted,
    on_response: &mut dyn FnMut(Response) -> Outcome,
) -> Result<String, String> {
    let render: FollowUp = Box::new(|r: &Response| format!("ctx {r:?}"));
    interact(
        Some(script),
        question(),
        Duration::from_secs(60),
        on_response,
        &mut || not_answered(Duration::from_secs(60)),
        Some(render),
    )
    .result()
}

#[test]
fn reprompts_show_the_error_and_stop_after_five() {
    let script = Scripted::new(vec![
        Ok(Response::Answers(vec![Answer::Other("8080x".into())])),
        Ok(Response::Answers(vec![Answer::One("443".into())])),
    ]);
    let mut tries = 0;
    let result = run(&script, &mut |response| {
        tries += 1;
        match response {
            Response::Answers(a) if a == [Answer::One("443".into())] => {
                Outcome::Complete(Ok("443".into()))
            }
            _ => Outcome::Reprompt(question(), "not a port number".into()),
        }
    });
    assert_eq!(result, Ok("443".into()));
    let seen = script.seen.lock().unwrap();
    assert_eq!(
        (seen[0].error.clone(), seen[1].error.clone()),
        (None, Some("not a port number".into()))
    );
    let stubborn = Scripted::new(vec![Ok(Response::Denied(String::new())); 10]);
    let result = run(&stubborn, &mut |_| {
        Outcome::Reprompt(question(), "again".into())
    });
    assert!(result.unwrap_err().contains("after 5 tries"));
    assert_eq!(stubborn.seen.lock().unwrap().len(), 6);
}

#[test]
fn a_cancelled_turn_reaches_the_tool_apart_from_a_dismissed_form() {
    let ask = |replies: Vec<Result<Response, Unavailable>>| {
        let script = Scripted::new(replies);
        let (mut cancelled, mut heard) = (0, Vec::new());
        let result = super::run(
            Some(&script),
            Ask::new(question(), Duration::from_secs(60)),
            Hooks {
                on_response: &mut |response| {
                    heard.push(response);
                    Outcome::Complete(Ok("answered".into()))
                },
                on_timeout: &mut || Outcome::Complete(Ok("timed out".into())),
                on_cancel: &mut || cancelled += 1,
                follow_up: None,
            },
        )
        .result();
        (result, cancelled, heard)
    };
    // Ctrl+C at the question, and the turn cancelled while it waited: the tool hears both.
    for reply in [Ok(Response::Cancelled), Err(Unavailable::Cancelled)] {
        assert_eq!(ask(vec![reply]), (Err(CANCELLED.into()), 1, vec![]));
    }
    // The person closing a form is an answer, not a cancelled turn; a timeout is neither.
    assert_eq!(
        ask(vec![Ok(Response::Dismissed)]),
        (Ok("answered".into()), 0, vec![Response::Dismissed])
    );
    assert_eq!(
        ask(vec![Ok(Response::TimedOut)]),
        (Ok("timed out".into()), 0, vec![])
    );
}

#[test]
fn timeouts_pending_cancel_and_no_ui() {
    let script = Scripted::new(vec![Ok(Response::TimedOut)]);
    assert_eq!(
        run(&script, &mut |_| unreachable!()),
        Err("The user did not respond within 1 minutes.".into())
    );
    let script = Scripted::new(vec![Ok(Response::Answers(vec![]))]);
    assert_eq!(
        run(&script, &mut |_| Outcome::Pending("queued".into())),
        Ok("queued".into())
    );
    assert_eq!(
        script.deferred.lock().unwrap().as_slice(),
        ["ctx Denied(\"late\")"]
    );
    let script = Scripted::new(vec![Ok(Response::Cancelled)]);
    assert!(
        run(&script, &mut |_| unreachable!())
            .unwrap_err()
            .contains("cancelled")
    );
    let none = interact(
        None,
        question(),
        Duration::from_secs(1),
        &mut |_| unreachable!(),
        &mut || unreachable!(),
        None,
    )
    .result();
    assert_eq!(none, Err(NO_UI.to_string()));
}

#[test]
fn nobody_to_answer_says_why_on_the_surface_that_asked() {
    assert_eq!(NO_UI, nobody_answers(NO_TERMINAL));
    let why = "no client is connected to the gateway";
    let gateway = Scripted::new(vec![Ok(Response::Unavailable(why.into()))]);
    let result = interact(
        Some(&gateway),
        question(),
        Duration::from_secs(1),
        &mut |_| unreachable!(),
        &mut || unreachable!(),
        None,
    )
    .result();
    assert_eq!(
        result,
        Err("Nobody can answer questions here (no client is connected to the gateway). Ask in plain text in your reply instead, or carry on with clearly stated assumptions.".to_string())
    );
    assert!(is_nobody_answers(&result.unwrap_err()));
    assert!(is_nobody_answers(NO_UI));
    assert!(!is_nobody_answers(
        "Nobody can answer questions here, says the tool."
    ));
}
