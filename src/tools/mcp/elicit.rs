//! A server's `elicitation/create` (it asks the person for input in the middle of a call)
//! answered as an input form (seed 003), on the one field model of `interact::input`: wherever
//! the person is (the terminal, the gateway's page, `--attach`, `--on-ask stdin`, the phone),
//! checked against the requested schema's bounds and formats, and sent typed. A long form is
//! shown in the interview's page when a browser opens here, with the same questions in the
//! terminal beside it. A field that looks like a password or key is not asked for: the request
//! is declined and the model told why; since no list of words can recognise every such
//! question, every form also says which server receives the answers. Nobody to ask (a script,
//! cron) declines at once; nothing ever hangs. One call puts at most [`MAX_QUESTIONS`] to the
//! person: a server that asks more is declined at once.

use serde_json::{Value, json};

use super::rpc::{INVALID_PARAMS, RpcError};
use crate::interact::form::questions::Status;
use crate::interact::input::Field;
use crate::interact::{Ask, Hooks, InputForm, MAX_QUESTIONS, Outcome, Request, Response};
use crate::tools::ToolContext;

/// How long the person has to answer a server's question.
const ANSWER_SECONDS: u64 = 600;
/// A form of more fields than this opens the interview's page when a browser opens here.
const SHORT_FORM: usize = 3;

/// Words that mark a field asking for a secret.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passphrase",
    "passwd",
    "secret",
    "token",
    "api key",
    "api_key",
    "apikey",
    "api-key",
    "private key",
    "credential",
    "pin code",
];

/// The answer to `elicitation/create` from `server` (reached as `reached`: its command line or
/// address as declared): accept with the content, decline, or cancel, as MCP's ElicitResult.
/// What the model should know (a refusal) goes into the call's notes. `asked` counts the
/// questions this call put to the person.
pub fn answer(
    server: &str,
    reached: &str,
    params: &Value,
    ctx: &ToolContext,
    asked: &mut usize,
) -> Result<Value, RpcError> {
    let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
    if mode != "form" {
        return Err(RpcError {
            code: INVALID_PARAMS,
            message: format!("Marvin answers elicitation in form mode only, not {mode:?}"),
        });
    }
    let message = params
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    let schema = params.get("requestedSchema").unwrap_or(&Value::Null);
    let order: Vec<&str> = schema
        .get(super::order::KEY)
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let prompt = format!(
        "{message}\n\nYour answers go to the MCP server {server} ({reached}). Give a password or key only to a server you trust with it."
    );
    let form = match InputForm::from_schema(&prompt, schema, &order) {
        Ok(form) => form,
        Err(why) => {
            note(
                ctx,
                format!("Marvin declined a request of the MCP server {server} for input: {why}."),
            );
            return Ok(json!({"action": "decline"}));
        }
    };
    if let Some(secret) = form.fields.iter().find(|field| looks_secret(field)) {
        note(
            ctx,
            format!(
                "Marvin declined the MCP server {server}'s request for \"{}\": it looks like a password or key, and Marvin never collects secrets through a form. Tell the person to give it to the server in its configuration (the \"env\" of its entry in mcp.json) instead.",
                secret.label
            ),
        );
        return Ok(json!({"action": "decline"}));
    }
    let Some(interactor) = ctx.interactor.clone() else {
        note(
            ctx,
            format!(
                "The MCP server {server} asked the person for input (\"{message}\"), and nobody can answer here (non-interactive mode): it was declined."
            ),
        );
        return Ok(json!({"action": "decline"}));
    };
    if too_many(server, ctx, asked) {
        return Ok(json!({"action": "decline"}));
    }
    let long = form.fields.len() > SHORT_FORM && ctx.settings.form_surface.open_browser;
    if long {
        return in_the_page(server, &form, &*interactor, ctx);
    }
    let mut content = None;
    let mut on_response = |response: Response| match response {
        Response::Submitted(input) => {
            content = Some(json!({"action": "accept", "content": input}));
            Outcome::Complete(Ok(String::new()))
        }
        _ => Outcome::Complete(Ok(String::new())),
    };
    let asked = ctx.request_interaction(
        Ask::new(
            Request::Input(form),
            std::time::Duration::from_secs(ANSWER_SECONDS),
        ),
        Hooks {
            on_response: &mut on_response,
            on_timeout: &mut || Outcome::Complete(Err("timeout".into())),
            on_cancel: &mut || {},
            follow_up: None,
        },
    );
    Ok(match (content, asked) {
        (Some(accepted), _) => accepted,
        // Closed without an answer: the person declined.
        (None, Ok(_)) => json!({"action": "decline"}),
        // Timed out, cancelled with the turn, or nobody there after all.
        (None, Err(_)) => json!({"action": "cancel"}),
    })
}

/// A long form in the interview's page (a browser opened here), the same questions in the
/// terminal beside it.
fn in_the_page(
    server: &str,
    form: &InputForm,
    interactor: &dyn crate::interact::Interactor,
    ctx: &ToolContext,
) -> Result<Value, RpcError> {
    let title = format!("The MCP server {server} asks");
    let interview = form.interview(&title);
    let asked =
        crate::tools::ask::interview::ask_form(interview, ANSWER_SECONDS, false, interactor, ctx);
    let (status, replies) = match asked {
        Ok(outcome) => outcome,
        Err(why) => {
            note(
                ctx,
                format!("The MCP server {server}'s question could not be shown: {why}"),
            );
            return Ok(json!({"action": "cancel"}));
        }
    };
    match status {
        Status::Completed => match form.from_replies(&replies) {
            Ok(content) => Ok(json!({"action": "accept", "content": content})),
            Err(why) => {
                note(
                    ctx,
                    format!(
                        "The person's answers to the MCP server {server} did not fit what it asked for ({why}), so it was declined."
                    ),
                );
                Ok(json!({"action": "decline"}))
            }
        },
        Status::Cancelled => Ok(json!({"action": "decline"})),
        Status::Timeout | Status::Aborted => Ok(json!({"action": "cancel"})),
    }
}

/// One more question would pass [`MAX_QUESTIONS`] for this call: it is not asked, and the
/// model is told once.
fn too_many(server: &str, ctx: &ToolContext, asked: &mut usize) -> bool {
    *asked += 1;
    if *asked == MAX_QUESTIONS + 1 {
        note(
            ctx,
            format!(
                "The MCP server {server} asked the person more than {MAX_QUESTIONS} questions in one call: Marvin declined the rest, so its result may lack answers it wanted. If you need more from the person, ask them in plain text."
            ),
        );
    }
    *asked > MAX_QUESTIONS
}

fn note(ctx: &ToolContext, line: String) {
    ctx.shared.notes.add(&ctx.call_id, line);
}

fn looks_secret(field: &Field) -> bool {
    if field.schema.get("format").and_then(Value::as_str) == Some("password") {
        return true;
    }
    let text = format!(
        "{} {} {}",
        field.key,
        field.label,
        field.description.as_deref().unwrap_or("")
    )
    .to_lowercase()
    .replace(['_', '-'], " ");
    SECRET_WORDS
        .iter()
        .any(|word| text.contains(&word.replace(['_', '-'], " ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::form::questions::{Reply, ReplyValue};
    use serde_json::Map;

    /// The schema server-everything 2026.8.31 sends from `trigger-elicitation-request`
    /// (tests/fixtures/mcp/), cut to one field of each kind, read as a message is: with the
    /// order its fields were written in.
    fn schema() -> Value {
        let text = r#"{"requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "title": "Full name", "minLength": 1, "maxLength": 50},
            "check": {"type": "boolean", "title": "Agree?", "default": false},
            "email": {"type": "string", "format": "email"},
            "integer": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
            "untitledSingleSelectEnum": {"type": "string", "enum": ["option1", "option2"]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2"], "enumNames": ["Option One", "Option Two"]},
            "titledSingleSelectEnum": {"type": "string", "oneOf": [{"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}], "default": "value2"},
            "untitledMultipleSelectEnum": {"type": "array", "items": {"type": "string", "enum": ["Piano", "Drums", "Guitar"]}, "maxItems": 2}
        }, "required": ["name"]}}"#;
        let mut message: Value = serde_json::from_str(text).unwrap();
        super::super::order::mark(&mut message, text);
        message["requestedSchema"].take()
    }

    fn form() -> InputForm {
        let schema = schema();
        let order: Vec<&str> = schema[super::super::order::KEY]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        InputForm::from_schema("Please provide inputs", &schema, &order).unwrap()
    }

    /// The typed content of a form's input, as a surface's submission is checked.
    fn content_of(form: &InputForm, input: &Value) -> Result<Map<String, Value>, String> {
        form.check(input).map_err(|errors| {
            errors
                .into_iter()
                .map(|e| e.message)
                .collect::<Vec<_>>()
                .join(" ")
        })
    }

    fn reply(id: &str, value: &str) -> Reply {
        Reply {
            id: id.into(),
            value: ReplyValue::One(value.into()),
            attachments: vec![],
        }
    }

    #[test]
    fn every_kind_of_field_becomes_a_question_the_form_accepts() {
        let interview = form().interview("The MCP server everything asks");
        assert_eq!(interview.questions[0].question, "Please provide inputs");
        // In the server's order, closed where only the options fit, optional said once.
        let kinds: Vec<(&str, &str, bool)> = interview
            .questions
            .iter()
            .map(|q| (q.id.as_str(), q.kind.name(), q.closed))
            .collect();
        assert_eq!(
            kinds,
            [
                ("_prompt", "info", false),
                ("name", "text", false),
                ("check", "single", true),
                ("email", "text", false),
                ("integer", "text", false),
                ("untitledSingleSelectEnum", "single", true),
                ("legacyEnum", "single", true),
                ("titledSingleSelectEnum", "single", true),
                ("untitledMultipleSelectEnum", "multi", true),
            ]
        );
        let email = &interview.questions[3];
        assert_eq!((email.question.as_str(), email.optional), ("email", true));
        assert_eq!(interview.questions[7].recommended, ["Second Option"]);
        let integer = &interview.questions[4];
        assert_eq!(
            integer.context.as_deref(),
            Some("A whole number from 1 to 100.")
        );
        assert_eq!(integer.default.as_deref(), Some("42"));
        assert_eq!(
            integer.misfit(&ReplyValue::One("1000".into())).as_deref(),
            Some("\"1000\" is not a whole number from 1 to 100.")
        );
        assert_eq!(
            interview.questions[2]
                .misfit(&ReplyValue::One("Maybe".into()))
                .as_deref(),
            Some("Choose from Yes, No.")
        );
        assert_eq!(
            interview.title.as_deref(),
            Some("The MCP server everything asks")
        );
    }

    #[test]
    fn answers_are_sent_as_the_schema_types_them() {
        let form = form();
        let replies = vec![
            reply("name", "Marvin Paranoid"),
            reply("check", "Yes"),
            reply("integer", "42"),
            reply("legacyEnum", "Option Two"),
            reply("titledSingleSelectEnum", "First Option"),
            Reply {
                id: "untitledMultipleSelectEnum".into(),
                value: ReplyValue::Many(vec!["Piano".into(), "Drums".into()]),
                attachments: vec![],
            },
            reply("email", ""),
        ];
        assert_eq!(
            Value::Object(form.from_replies(&replies).unwrap()),
            json!({"name": "Marvin Paranoid", "check": true, "integer": 42, "legacyEnum": "opt2",
                   "titledSingleSelectEnum": "value1", "untitledMultipleSelectEnum": ["Piano", "Drums"]})
        );
        // What a surface sends is checked once more, never sent wrong.
        let wrong = |id: &str, value: &str| {
            let mut replies = vec![reply("name", "M")];
            replies.retain(|r| r.id != id);
            replies.push(reply(id, value));
            form.from_replies(&replies).unwrap_err()
        };
        assert_eq!(
            wrong("integer", "1000"),
            "integer: \"1000\" is not a whole number from 1 to 100."
        );
        assert_eq!(wrong("name", ""), "Full name needs an answer");
        assert_eq!(
            wrong("legacyEnum", "Option Three"),
            "legacyEnum: choose from Option One, Option Two."
        );
        assert_eq!(
            content_of(&form, &json!({"name": "M", "integer": "7"})).unwrap(),
            // The fields left out with a default get it.
            *json!({"name": "M", "integer": 7, "check": false, "titledSingleSelectEnum": "value2"})
                .as_object()
                .unwrap()
        );
    }

    #[test]
    fn secrets_are_recognised() {
        let secret = |property: Value| {
            let schema = json!({"type": "object", "properties": {"x": property}});
            looks_secret(&InputForm::from_schema("", &schema, &[]).unwrap().fields[0])
        };
        assert!(secret(json!({"type": "string", "title": "GitHub token"})));
        assert!(secret(
            json!({"type": "string", "description": "Your API key"})
        ));
        assert!(secret(json!({"type": "string", "format": "password"})));
        assert!(!secret(json!({"type": "string", "title": "Full name"})));
        let schema = json!({"type": "object", "properties": {"db_password": {"type": "string"}}});
        assert!(looks_secret(
            &InputForm::from_schema("", &schema, &[]).unwrap().fields[0]
        ));
    }
}
