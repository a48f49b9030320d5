use super::*;
use crate::interact::wire::{answer_json, approval_response, input_response, questions_response};
use crate::interact::{
    Answer, Approval, Choice, CompletedView, InputForm, Presentation, Question, Scope,
};
use std::time::Duration;

fn question(multi: bool) -> Question {
    Question {
        header: "Database".into(),
        question: "Which database?".into(),
        options: ["SQLite", "MySQL"]
            .map(|label| Choice {
                label: label.into(),
                description: String::new(),
            })
            .to_vec(),
        multi_select: multi,
        initial: None,
    }
}

fn approval(scopes: Vec<Scope>) -> Approval {
    Approval {
        tool: "run_command".into(),
        summary: "run_command wants to run:".into(),
        detail: "make".into(),
        covers: "`make`".into(),
        all_edits: false,
        scopes,
    }
}

fn port_form() -> InputForm {
    InputForm::from_fields(
        "Where should it listen?",
        &json!([
            {"id": "port", "type": "integer", "label": "Port", "required": true,
             "minimum": 1024, "maximum": 65535},
            {"id": "tls", "type": "boolean", "label": "TLS"}
        ]),
    )
    .unwrap()
}

/// Questions, the answers given, and what they become (or a part of why not).
type Case<'a> = (&'a [Question], Value, Result<Vec<Answer>, &'a str>);

#[test]
fn answers_are_labels_lists_or_own_words() {
    let single = [question(false)];
    let multi = [question(true)];
    let cases: &[Case] = &[
        (
            &single,
            json!(["SQLite"]),
            Ok(vec![Answer::One("SQLite".into())]),
        ),
        (
            &single,
            json!(["Postgres"]),
            Ok(vec![Answer::Other("Postgres".into())]),
        ),
        (
            &multi,
            json!([["SQLite", "MySQL"]]),
            Ok(vec![Answer::Many(vec!["SQLite".into(), "MySQL".into()])]),
        ),
        (
            &multi,
            json!(["MySQL"]),
            Ok(vec![Answer::Many(vec!["MySQL".into()])]),
        ),
        (&single, json!([""]), Err("is empty")),
        (
            &single,
            json!([]),
            Err("1 questions were asked and 0 answers given"),
        ),
        (
            &single,
            json!([["SQLite"]]),
            Err("one of its labels (SQLite, MySQL)"),
        ),
        (&multi, json!([["Oracle"]]), Err("a list of its labels")),
    ];
    for (questions, answers, expected) in cases {
        let got = questions_response(questions, &json!({"id": 1, "answers": answers}));
        match (got, expected) {
            (Ok(Response::Answers(got)), Ok(expected)) => {
                assert_eq!(&got, expected, "{answers}")
            }
            (Err(why), Err(expected)) => assert!(why.contains(expected), "{answers}: {why}"),
            (got, expected) => panic!("{answers}: {got:?} vs {expected:?}"),
        }
    }
}

#[test]
fn approvals_take_an_offered_scope_or_a_no_with_its_reason() {
    let every = approval(Vec::new());
    let answer = |approval: &Approval, value: Value| approval_response(approval, &value);
    assert_eq!(
        answer(&every, json!({"approve": "once"})),
        Ok(Response::Approved(Scope::Once))
    );
    assert_eq!(
        answer(&every, json!({"approve": "always"})),
        Ok(Response::Approved(Scope::Always))
    );
    assert_eq!(
        answer(&every, json!({"approve": "no", "reason": "use make test"})),
        Ok(Response::Denied("use make test".into()))
    );
    assert_eq!(
        answer(&every, json!({"approve": false})),
        Ok(Response::Denied(String::new()))
    );
    // Seed 003's words for the same.
    assert_eq!(
        answer(
            &every,
            json!({"action": "approve", "approvalScope": "session"})
        ),
        Ok(Response::Approved(Scope::Session))
    );
    assert_eq!(
        answer(&every, json!({"action": "deny", "reason": "later"})),
        Ok(Response::Denied("later".into()))
    );
    assert!(
        answer(&every, json!({"approve": "all_edits"})).is_err(),
        "only for file edits"
    );
    // A tool's own scopes: always where it offers it, and nothing it does not offer.
    let own = approval(vec![Scope::Once, Scope::Always]);
    assert_eq!(
        answer(&own, json!({"approve": "always"})),
        Ok(Response::Approved(Scope::Always))
    );
    let refused = answer(&own, json!({"approve": "session"})).unwrap_err();
    assert!(
        refused.message.contains("\"once\", \"always\" or \"no\""),
        "{refused}"
    );
    // A tool that offers once and session only: always is refused, naming what is offered.
    let some = approval(vec![Scope::Once, Scope::Session]);
    let refused = answer(&some, json!({"approve": "always"})).unwrap_err();
    assert_eq!(
        refused.message,
        "\"approve\" is one of \"once\", \"session\" or \"no\" (with a \"reason\")"
    );
}

#[test]
fn an_input_form_is_checked_field_by_field_or_dismissed() {
    let form = port_form();
    let unfit = input_response(&form, &json!({"input": {"port": 80, "tls": "maybe"}})).unwrap_err();
    let fields: Vec<&str> = unfit.fields.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(fields, ["port", "tls"]);
    assert!(unfit.fields[0].1.starts_with("Port: "), "{unfit:?}");
    assert_eq!(unfit.fields[1].1, "TLS: answer yes or no.");
    let event = answer_error(Some(4), &unfit);
    assert_eq!(
        event["fields"][1],
        json!({"field": "tls", "message": "TLS: answer yes or no."})
    );
    assert_eq!(
        input_response(&form, &json!({"input": {"port": "8080", "tls": "yes"}})),
        Ok(Response::Submitted(
            json!({"port": 8080, "tls": true})
                .as_object()
                .unwrap()
                .clone()
        ))
    );
    assert_eq!(
        input_response(&form, &json!({"cancel": true})),
        Ok(Response::Dismissed)
    );
    assert_eq!(
        input_response(&form, &json!({"action": "cancel"})),
        Ok(Response::Dismissed)
    );
    assert!(input_response(&form, &json!({"port": 8080})).is_err());
}

#[test]
fn a_question_event_carries_its_correlation_and_reads_back() {
    let mut prompt = Prompt::new(Request::Input(port_form()), Duration::from_secs(60));
    prompt.tool = "listen".into();
    prompt.error = Some("Port 8080 is taken".into());
    prompt.presentation = Presentation::Questionnaire;
    prompt.completed = CompletedView {
        show_inputs: false,
        summary_template: Some("Listening on {{port}}".into()),
    };
    let correlation = Correlation {
        timestamp: "2026-11-28T09:30:00.125Z".into(),
        turn_id: "turn-1".into(),
        response_id: "turn-1/1".into(),
        tool_call_id: "call_1".into(),
        interaction_id: "3".into(),
        tool_name: "listen".into(),
    };
    let event = question_event(3, &prompt, &correlation);
    assert_eq!(event["type"], "input");
    assert_eq!(event["tool"], "listen");
    assert_eq!(event["error"], "Port 8080 is taken");
    assert_eq!(event["presentation"], "questionnaire");
    assert_eq!(
        event["completedView"],
        json!({"showInputs": false, "summaryTemplate": "Listening on {{port}}"})
    );
    for (key, value) in [
        ("turnId", "turn-1"),
        ("responseId", "turn-1/1"),
        ("toolCallId", "call_1"),
        ("interactionId", "3"),
        ("timestamp", "2026-11-28T09:30:00.125Z"),
    ] {
        assert_eq!(event[key], value, "{key}");
    }
    assert_eq!(
        event["inputSchema"]["fields"][0]["hint"],
        "A whole number from 1024 to 65535."
    );
    assert_eq!(request_from_event(&event), Some(prompt.request.clone()));

    let mut asked = Prompt::new(
        Request::Approval(approval(vec![Scope::Once, Scope::Session])),
        Duration::from_secs(60),
    );
    asked.tool = "deploy".into();
    let event = question_event(4, &asked, &correlation);
    assert_eq!(event["scopes"], json!(["once", "session"]));
    assert_eq!(event["choices"], json!(["once", "session", "no"]));
    assert_eq!(request_from_event(&event), Some(asked.request));
}

#[test]
fn a_response_given_elsewhere_is_written_as_the_answer_json() {
    let id = json!(7);
    let cases = [
        (
            Response::Approved(Scope::Always),
            Some(json!({"id": 7, "approve": "always"})),
        ),
        (
            Response::Denied("not now".into()),
            Some(json!({"id": 7, "approve": "no", "reason": "not now"})),
        ),
        (
            Response::Submitted(json!({"port": 8080}).as_object().unwrap().clone()),
            Some(json!({"id": 7, "input": {"port": 8080}})),
        ),
        (Response::Dismissed, Some(json!({"id": 7, "cancel": true}))),
        (Response::TimedOut, None),
    ];
    for (response, expected) in cases {
        assert_eq!(answer_json(&id, &response), expected, "{response:?}");
    }
}
