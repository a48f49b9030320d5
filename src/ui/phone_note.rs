//! What a question looks like on the phone: the notification's text, its buttons (each
//! publishes an answer carrying the question's secret), and how to answer by hand where
//! buttons cannot: in words a phone keyboard types (`7 48213377 port=8080, tls=yes`: the
//! question's number, its code, the answer) or as the JSON `--on-ask stdin` reads.

use serde_json::{Value, json};

use crate::interact::input::Field;
use crate::interact::{Approval, InputForm, Request, Scope, view};

/// ntfy shows at most three buttons.
const MAX_BUTTONS: usize = 3;
/// Lines of a command or diff shown.
const DETAIL_LINES: usize = 8;

/// Where a question's answer goes and what vouches for it.
pub(crate) struct Reply<'a> {
    /// The reply topic's address.
    pub url: &'a str,
    pub id: u64,
    /// What a JSON answer (and so each button) carries.
    pub secret: &'a str,
    /// What an answer in words carries after the number (see [`code`]).
    pub code: &'a str,
}

/// The code an answer in words carries: eight digits made from the question's secret (digits,
/// because a phone keyboard's corrections leave them alone).
pub(crate) fn code(secret: &str) -> String {
    let head = secret.get(..16).unwrap_or(secret);
    let number = u64::from_str_radix(head, 16).unwrap_or(0);
    format!("{:08}", number % 100_000_000)
}

/// The notification for a question: what is asked (with the error of a reprompt above it),
/// buttons where they can hold every answer, and how to answer by hand.
pub(crate) fn notification(
    topic: &str,
    reply: &Reply,
    request: &Request,
    error: Option<&str>,
) -> Value {
    let button = |label: &str, answer: Value| {
        let mut body = answer;
        body["id"] = json!(reply.id);
        body["secret"] = json!(reply.secret);
        json!({"action": "http", "label": label, "url": reply.url, "method": "POST",
               "body": body.to_string(), "clear": true})
    };
    let mut text = Vec::new();
    if let Some(error) = error.filter(|e| !e.trim().is_empty()) {
        text.push(format!("⚠ {}", error.trim()));
    }
    let (title, actions, words) = match request {
        Request::Approval(a) => {
            text.push(a.summary.clone());
            text.extend(a.detail.lines().take(DETAIL_LINES).map(str::to_string));
            let actions = approval_buttons(a, &button);
            let words = approval_words(a);
            (format!("Marvin asks: {}", a.tool), actions, Some(words))
        }
        Request::Questions(questions) => {
            for q in questions {
                text.push(q.question.clone());
                for (n, o) in q.options.iter().enumerate() {
                    let line = format!("{}. {} {}", n + 1, o.label, o.description);
                    text.push(line.trim_end().to_string());
                }
            }
            let single = questions.len() == 1 && !questions[0].multi_select;
            let actions: Vec<Value> = match single {
                true if questions[0].options.len() <= MAX_BUTTONS => questions[0]
                    .options
                    .iter()
                    .map(|o| button(&o.label, json!({"answers": [o.label]})))
                    .collect(),
                _ => Vec::new(),
            };
            let words = match questions.len() {
                1 => Some("a label, an option's number or your own words".to_string()),
                _ => None,
            };
            ("Marvin asks".to_string(), actions, words)
        }
        Request::Input(form) => {
            if !form.prompt.is_empty() {
                text.push(form.prompt.clone());
            }
            text.extend(form.fields.iter().map(field_line));
            let actions = form_buttons(form, &button);
            ("Marvin asks".to_string(), actions, Some(form_words(form)))
        }
        Request::Form(form) => {
            let title = format!("Marvin asks: {}", form.title);
            let text = "A form waits in the browser on the machine Marvin runs on.";
            return json!({"topic": topic, "title": title, "message": text, "actions": [],
                          "priority": 4});
        }
    };
    let mut actions = actions;
    if actions.is_empty() || words.is_some() {
        text.extend(by_hand(reply, request, words.as_deref()));
    }
    if actions.is_empty() {
        // The reply topic's page, where the answer is typed.
        actions.push(json!({"action": "view", "label": "Reply", "url": reply.url}));
    }
    json!({"topic": topic, "title": title, "message": text.join("\n"), "actions": actions,
           "priority": 4})
}

/// How to answer by hand: the words (when the kind has them), then the JSON.
fn by_hand(reply: &Reply, request: &Request, words: Option<&str>) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(words) = words {
        lines.push(format!(
            "Reply on {} with: {} {} {words}",
            reply.url, reply.id, reply.code
        ));
    }
    let body = match request {
        Request::Approval(_) => "\"approve\": \"once\"",
        Request::Questions(_) => "\"answers\": [one per question]",
        Request::Input(_) => "\"input\": {\"FIELD\": VALUE, ...}",
        Request::Form(_) => "",
    };
    let json = format!(
        "{{\"id\": {}, \"secret\": \"{}\", {body}}}",
        reply.id, reply.secret
    );
    match words {
        Some(_) => lines.push(format!("or the JSON {json}")),
        None => lines.push(format!("Answer by publishing to {}: {json}", reply.url)),
    }
    lines
}

/// Allow once and allow for the session, each where offered; deny.
fn approval_buttons(approval: &Approval, button: &dyn Fn(&str, Value) -> Value) -> Vec<Value> {
    let mut actions = Vec::new();
    if approval.offers(Scope::Once) {
        actions.push(button("Allow once", json!({"approve": "once"})));
    }
    if approval.offers(Scope::Session) {
        actions.push(button("Allow this session", json!({"approve": "session"})));
    }
    actions.push(button(
        "Deny",
        json!({"approve": "no", "reason": "denied from the phone"}),
    ));
    actions
}

/// The words that answer an approval: each scope it offers, or no with what to do instead.
fn approval_words(approval: &Approval) -> String {
    let scopes: Vec<&str> = approval
        .offered()
        .into_iter()
        .map(view::scope_name)
        .collect();
    format!("{}, or no: WHAT TO DO INSTEAD", scopes.join(", "))
}

/// A form of one yes-or-no field, or one choice of at most three options, gets a button per
/// answer; any other form none.
fn form_buttons(form: &InputForm, button: &dyn Fn(&str, Value) -> Value) -> Vec<Value> {
    let [field] = form.fields.as_slice() else {
        return Vec::new();
    };
    let key = &field.key;
    if field.boolean {
        return vec![
            button("Yes", json!({"input": {key: true}})),
            button("No", json!({"input": {key: false}})),
            button("Dismiss", json!({"cancel": true})),
        ];
    }
    if field.multi || field.choices.is_empty() || field.choices.len() > MAX_BUTTONS {
        return Vec::new();
    }
    field
        .choices
        .iter()
        .map(|(label, value)| button(label, json!({"input": {key: value}})))
        .collect()
}

/// The words that answer a form: `FIELD=…` for each field, joined by commas (a form of one
/// field takes the bare answer too).
fn form_words(form: &InputForm) -> String {
    let fields: Vec<String> = form
        .fields
        .iter()
        .map(|field| format!("{}=…", field.key))
        .collect();
    fields.join(", ")
}

/// One field as the notification lists it: `port: Port (required). A whole number from 1024
/// to 65535. Default 8080.`
fn field_line(field: &Field) -> String {
    let mut line = match field.label == field.key {
        true => field.key.clone(),
        false => format!("{}: {}", field.key, field.label),
    };
    if field.required {
        line.push_str(" (required)");
    }
    line.push('.');
    let mut said = Vec::new();
    if let Some(description) = &field.description {
        said.push(description.trim().trim_end_matches('.').to_string() + ".");
    }
    said.extend(field_hint(field));
    if let Some(default) = field.default() {
        said.push(format!(
            "Default {}.",
            crate::interact::input::shown(field, default)
        ));
    }
    for part in said {
        line.push(' ');
        line.push_str(&part);
    }
    line
}

/// What an answer to `field` looks like, in words.
fn field_hint(field: &Field) -> Option<String> {
    let labels = || {
        let labels: Vec<&str> = field.choices.iter().map(|(l, _)| l.as_str()).collect();
        labels.join(", ")
    };
    match () {
        _ if field.boolean => Some("yes or no.".into()),
        _ if field.multi => Some(format!("Any of: {}, separated by commas.", labels())),
        _ if !field.choices.is_empty() => Some(format!("One of: {}.", labels())),
        _ => field.hint(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::{Choice, Question};

    fn reply() -> Reply<'static> {
        Reply {
            url: "https://ntfy.sh/t-r",
            id: 4,
            secret: "s3cret",
            code: "12345678",
        }
    }

    fn body(button: &Value) -> Value {
        serde_json::from_str(button["body"].as_str().unwrap()).unwrap()
    }

    #[test]
    fn the_code_is_eight_digits_of_the_secret() {
        assert_eq!(code("0000000000000000ffff"), "00000000");
        assert_eq!(code("00000000075bcd15aaaa"), "23456789");
        assert_eq!(code("ffffffffffffffff").len(), 8);
    }

    #[test]
    fn an_approval_has_allow_and_deny_buttons_carrying_the_secret() {
        let request = Request::Approval(Approval {
            tool: "run_command".into(),
            summary: "run_command wants to run:".into(),
            detail: "make deploy".into(),
            covers: "`make deploy`".into(),
            all_edits: false,
            scopes: vec![Scope::Once],
        });
        let message = notification("t", &reply(), &request, None);
        assert_eq!(message["topic"], "t");
        assert_eq!(message["title"], "Marvin asks: run_command");
        let text = message["message"].as_str().unwrap();
        assert!(
            text.starts_with("run_command wants to run:\nmake deploy\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "Reply on https://ntfy.sh/t-r with: 4 12345678 once, or no: WHAT TO DO INSTEAD"
            ),
            "{text}"
        );
        let actions = message["actions"].as_array().unwrap();
        let labels: Vec<&str> = actions
            .iter()
            .map(|a| a["label"].as_str().unwrap())
            .collect();
        assert_eq!(labels, ["Allow once", "Deny"], "session is not offered");
        assert_eq!(actions[0]["url"], "https://ntfy.sh/t-r");
        assert_eq!(
            body(&actions[0]),
            json!({"approve": "once", "id": 4, "secret": "s3cret"})
        );
    }

    #[test]
    fn a_question_gets_a_button_per_option_or_how_to_reply() {
        let question = |n: usize, multi| Question {
            header: "Pick".into(),
            question: "Which?".into(),
            options: (0..n)
                .map(|i| Choice {
                    label: format!("o{i}"),
                    description: String::new(),
                })
                .collect(),
            multi_select: multi,
            initial: None,
        };
        let few = notification(
            "t",
            &reply(),
            &Request::Questions(vec![question(3, false)]),
            None,
        );
        assert_eq!(few["actions"].as_array().unwrap().len(), 3);
        assert_eq!(body(&few["actions"][2])["answers"], json!(["o2"]));
        let many = notification(
            "t",
            &reply(),
            &Request::Questions(vec![question(4, false)]),
            None,
        );
        assert_eq!(many["actions"][0]["action"], "view");
        let text = many["message"].as_str().unwrap();
        assert!(text.contains("\"secret\": \"s3cret\""), "{text}");
        assert!(text.contains("with: 4 12345678 a label"), "{text}");
    }

    #[test]
    fn a_form_lists_its_fields_with_hints_and_how_to_answer_in_words() {
        let form = InputForm::from_fields(
            "Where should it listen?",
            &json!([
                {"id": "port", "type": "integer", "label": "Port", "required": true,
                 "minimum": 1024, "maximum": 65535, "default": 8080},
                {"id": "tls", "type": "boolean", "label": "TLS"},
                {"id": "mode", "type": "select", "label": "Mode",
                 "options": [{"value": "dev", "label": "Development"}, "prod"]}
            ]),
        )
        .unwrap();
        let request = Request::Input(form);
        let message = notification("t", &reply(), &request, Some("Port 8080 is taken"));
        assert_eq!(
            message["message"],
            "⚠ Port 8080 is taken\nWhere should it listen?\n\
             port: Port (required). A whole number from 1024 to 65535. Default 8080.\n\
             tls: TLS. yes or no.\n\
             mode: Mode. One of: Development, prod.\n\
             Reply on https://ntfy.sh/t-r with: 4 12345678 port=…, tls=…, mode=…\n\
             or the JSON {\"id\": 4, \"secret\": \"s3cret\", \"input\": {\"FIELD\": VALUE, ...}}"
        );
        assert_eq!(message["actions"][0]["action"], "view");
    }

    #[test]
    fn a_form_of_one_yes_or_no_or_a_small_choice_gets_buttons() {
        let one = |field: Value| {
            let form = InputForm::from_fields("Go on?", &json!([field])).unwrap();
            notification("t", &reply(), &Request::Input(form), None)
        };
        let yes_no = one(json!({"id": "go", "type": "boolean", "label": "Go on"}));
        let actions = yes_no["actions"].as_array().unwrap();
        assert_eq!(actions.len(), 3);
        assert_eq!(
            body(&actions[0]),
            json!({"input": {"go": true}, "id": 4, "secret": "s3cret"})
        );
        assert_eq!(body(&actions[2])["cancel"], true);
        let choice = one(json!({"id": "env", "type": "select", "options": ["staging", "prod"]}));
        let actions = choice["actions"].as_array().unwrap();
        assert_eq!(actions.len(), 2);
        assert_eq!(body(&actions[1])["input"], json!({"env": "prod"}));
        let text = one(json!({"id": "name", "type": "text"}));
        assert_eq!(text["actions"][0]["action"], "view");
    }
}
