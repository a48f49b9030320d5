//! A server's `elicitation/create` (it asks the person for input in the middle of a call)
//! answered through Marvin's own form: the browser when one opens here, the same questions in
//! the terminal otherwise (over SSH too). The requested schema maps onto the form's questions:
//! an enum is a single choice, an array of enums a multiple choice, a boolean yes or no, a
//! string or number a text field whose answer is checked against its format and bounds. A
//! field that looks like a password or key is not asked for: the request is declined and the
//! model told why; since no list of words can recognise every such question, every form also
//! says which server receives the answers. Nobody to ask (a script, cron) declines at once;
//! nothing ever hangs.

use serde_json::{Map, Value, json};

use super::rpc::{INVALID_PARAMS, RpcError};
use crate::interact::form::questions::{self, Interview, Reply, ReplyValue, Rule, Status};
use crate::tools::ToolContext;

/// How long the person has to answer a server's question.
const ANSWER_SECONDS: u64 = 600;
/// A form of at most this many questions is asked in the terminal.
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

/// One field of the requested schema, as asked and as answered.
struct Field {
    key: String,
    label: String,
    schema: Value,
    required: bool,
    /// For choices: (label shown, value sent).
    choices: Vec<(String, String)>,
    multi: bool,
    boolean: bool,
}

/// The answer to `elicitation/create` from `server` (reached as `reached`: its command line or
/// address as declared): accept with the content, decline, or cancel, as MCP's ElicitResult.
/// What the model should know (a refusal) goes into the call's notes.
pub fn answer(
    server: &str,
    reached: &str,
    params: &Value,
    ctx: &ToolContext,
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
    let fields = match fields(params.get("requestedSchema").unwrap_or(&Value::Null)) {
        Ok(fields) => fields,
        Err(why) => {
            note(
                ctx,
                format!("Marvin declined a request of the MCP server {server} for input: {why}."),
            );
            return Ok(json!({"action": "decline"}));
        }
    };
    if let Some(secret) = fields.iter().find(|field| looks_secret(field)) {
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
    // A few questions are asked in the terminal; more open the form in a browser (where one
    // can be opened), with the same questions in the terminal beside it. Each answer is
    // checked where it is given (the terminal asks that one again, the page shows what to
    // change at its field), so the answers that come back fit.
    let asking = Asking {
        server,
        reached,
        message: &message,
    };
    let mut interview = questions::parse(&form(&asking, &fields)).map_err(|why| RpcError {
        code: INVALID_PARAMS,
        message: format!("the requested schema cannot be asked: {why}"),
    })?;
    fit(&mut interview, &fields);
    let short = fields.len() <= SHORT_FORM;
    let asked =
        crate::tools::ask::interview::ask_form(interview, ANSWER_SECONDS, short, &*interactor, ctx);
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
        Status::Completed => match content(&fields, &replies) {
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

fn note(ctx: &ToolContext, line: String) {
    ctx.shared.notes.add(&ctx.call_id, line);
}

/// The fields of a requested schema, in the order the server wrote them (kept by
/// [`super::order`]; by name when it could not be read).
fn fields(schema: &Value) -> Result<Vec<Field>, String> {
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .ok_or("its schema has no properties")?;
    let required = crate::tools::schema::required_names(schema);
    let written: Vec<&str> = schema
        .get(super::order::KEY)
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut keys: Vec<&String> = properties.keys().collect();
    keys.sort_by_key(|key| written.iter().position(|name| name == key));
    let mut fields = Vec::new();
    for key in keys {
        let property = &properties[key];
        let text = |name: &str| {
            property
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let kind = property.get("type").and_then(Value::as_str).unwrap_or("");
        let (choices, multi) = match kind {
            "array" => (choices(property.get("items").unwrap_or(&Value::Null)), true),
            _ => (choices(property), false),
        };
        if multi && choices.is_empty() {
            return Err(format!("its field {key:?} is a list without choices"));
        }
        if !matches!(kind, "string" | "number" | "integer" | "boolean" | "array") {
            return Err(format!(
                "its field {key:?} has the type {kind:?}, which a form cannot ask for"
            ));
        }
        fields.push(Field {
            key: key.clone(),
            label: text("title").unwrap_or_else(|| key.clone()),
            schema: property.clone(),
            required: required.contains(&key.as_str()),
            choices,
            multi,
            boolean: kind == "boolean",
        });
    }
    Ok(fields)
}

/// The choices of an enum: `enum` (with `enumNames` for labels), or `oneOf`/`anyOf` of
/// `{const, title}`; as (label, value).
fn choices(schema: &Value) -> Vec<(String, String)> {
    let strings = |name: &str| -> Vec<String> {
        schema
            .get(name)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let values = strings("enum");
    if !values.is_empty() {
        let names = strings("enumNames");
        return values
            .iter()
            .enumerate()
            .map(|(i, value)| {
                (
                    names.get(i).cloned().unwrap_or_else(|| value.clone()),
                    value.clone(),
                )
            })
            .collect();
    }
    ["oneOf", "anyOf"]
        .iter()
        .filter_map(|name| schema.get(*name).and_then(Value::as_array))
        .flatten()
        .filter_map(|option| {
            let value = option.get("const")?.as_str()?.to_string();
            let label = option
                .get("title")
                .and_then(Value::as_str)
                .map(str::to_string);
            Some((label.unwrap_or_else(|| value.clone()), value))
        })
        .collect()
}

fn looks_secret(field: &Field) -> bool {
    if field.schema.get("format").and_then(Value::as_str) == Some("password") {
        return true;
    }
    let text = format!(
        "{} {} {}",
        field.key,
        field.label,
        field
            .schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
    )
    .to_lowercase()
    .replace(['_', '-'], " ");
    SECRET_WORDS
        .iter()
        .any(|word| text.contains(&word.replace(['_', '-'], " ")))
}

/// Who asks, and their message.
struct Asking<'a> {
    server: &'a str,
    reached: &'a str,
    message: &'a str,
}

/// The form for `fields`: the server's message first, with whom the answers go to (no list of
/// words can tell every question for a secret, so the person must know who receives it), then
/// a question per field.
fn form(asking: &Asking, fields: &[Field]) -> Value {
    let Asking {
        server,
        reached,
        message,
    } = asking;
    let text = format!(
        "{message}\n\nYour answers go to the MCP server {server} ({reached}). Give a password or key only to a server you trust with it."
    );
    let mut questions = vec![json!({"id": "_message", "type": "info", "question": text})];
    for field in fields {
        let mut question = Map::new();
        question.insert("id".into(), json!(field.key));
        // "optional" is the form's own mark, shown once by each surface.
        if !field.required {
            question.insert("optional".into(), json!(true));
        }
        question.insert("question".into(), json!(field.label));
        let default = field.schema.get("default");
        if field.boolean {
            question.insert("type".into(), json!("single"));
            question.insert("options".into(), json!(["Yes", "No"]));
            if let Some(Value::Bool(yes)) = default {
                question.insert("recommended".into(), json!(if *yes { "Yes" } else { "No" }));
            }
        } else if !field.choices.is_empty() {
            let labels: Vec<&str> = field
                .choices
                .iter()
                .map(|(label, _)| label.as_str())
                .collect();
            question.insert(
                "type".into(),
                json!(if field.multi { "multi" } else { "single" }),
            );
            question.insert("options".into(), json!(labels));
            let chosen: Vec<&str> = match default {
                Some(Value::String(value)) => vec![value.as_str()],
                Some(Value::Array(values)) => values.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let recommended: Vec<&str> = field
                .choices
                .iter()
                .filter(|(_, value)| chosen.contains(&value.as_str()))
                .map(|(label, _)| label.as_str())
                .collect();
            if !recommended.is_empty() && (field.multi || recommended.len() == 1) {
                question.insert(
                    "recommended".into(),
                    match field.multi {
                        true => json!(recommended),
                        false => json!(recommended[0]),
                    },
                );
            }
        } else {
            question.insert("type".into(), json!("text"));
        }
        let mut context: Vec<String> = Vec::new();
        if let Some(description) = field.schema.get("description").and_then(Value::as_str) {
            context.push(description.to_string());
        }
        if let Some(hint) = Rule::new(field.schema.clone()).hint() {
            context.push(hint);
        }
        if !context.is_empty() {
            question.insert("context".into(), json!(context.join(" ")));
        }
        questions.push(Value::Object(question));
    }
    json!({"title": format!("The MCP server {server} asks"), "questions": questions})
}

/// What the form cannot say in JSON: a yes-or-no or a server's list takes only its options,
/// each field's answer is checked against its schema, and a text field starts from the
/// server's default.
fn fit(interview: &mut Interview, fields: &[Field]) {
    for question in &mut interview.questions {
        let Some(field) = fields.iter().find(|field| field.key == question.id) else {
            continue;
        };
        question.closed = field.boolean || !field.choices.is_empty();
        question.rule = Some(Rule::new(field.schema.clone()));
        if question.kind == questions::Kind::Text {
            question.default = match field.schema.get("default") {
                Some(Value::String(text)) => Some(text.clone()),
                Some(number @ Value::Number(_)) => Some(number.to_string()),
                _ => None,
            };
        }
    }
}

/// The content of an `accept`, from the form's replies, checked against the schema; `Err`
/// names the field and what is wrong, for the person to correct.
fn content(fields: &[Field], replies: &[Reply]) -> Result<Map<String, Value>, String> {
    let mut content = Map::new();
    for field in fields {
        let reply = replies.iter().find(|reply| reply.id == field.key);
        let given = match reply.map(|r| &r.value) {
            None => None,
            Some(ReplyValue::One(text)) if text.trim().is_empty() => None,
            Some(ReplyValue::Many(items)) if items.is_empty() => None,
            Some(value) => Some(value),
        };
        let Some(given) = given else {
            if field.required {
                return Err(format!("{} needs an answer", field.label));
            }
            continue;
        };
        content.insert(field.key.clone(), value_of(field, given)?);
    }
    Ok(content)
}

/// The value sent for one answer; the form checked it against the field's schema already, so
/// this only checks again (an answer that does not fit is named, never sent).
fn value_of(field: &Field, given: &ReplyValue) -> Result<Value, String> {
    let label = &field.label;
    let rule = Rule::new(field.schema.clone());
    rule.check(given).map_err(|why| format!("{label}: {why}"))?;
    let pick = |text: &str| -> Result<String, String> {
        field
            .choices
            .iter()
            .find(|(shown, value)| shown == text || value == text)
            .map(|(_, value)| value.clone())
            .ok_or_else(|| {
                let shown: Vec<&str> = field.choices.iter().map(|(l, _)| l.as_str()).collect();
                format!("{label} must be one of {}", shown.join(", "))
            })
    };
    if field.boolean {
        return match given.joined().trim().to_lowercase().as_str() {
            "yes" | "true" => Ok(Value::Bool(true)),
            "no" | "false" => Ok(Value::Bool(false)),
            _ => Err(format!("{label} must be yes or no")),
        };
    }
    if field.multi {
        let items: Vec<String> = match given {
            ReplyValue::Many(items) => items.clone(),
            ReplyValue::One(text) => vec![text.clone()],
        };
        let values = items
            .iter()
            .map(|item| pick(item))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(json!(values));
    }
    let text = given.joined().trim().to_string();
    if !field.choices.is_empty() {
        return pick(&text).map(Value::String);
    }
    match field.schema.get("type").and_then(Value::as_str) {
        Some("number" | "integer") => rule
            .number_value(&text)
            .ok_or_else(|| format!("{label} must be a number, not {text:?}")),
        _ => Ok(Value::String(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn reply(id: &str, value: &str) -> Reply {
        Reply {
            id: id.into(),
            value: ReplyValue::One(value.into()),
            attachments: vec![],
        }
    }

    #[test]
    fn every_kind_of_field_becomes_a_question_the_form_accepts() {
        let fields = fields(&schema()).unwrap();
        let asking = Asking {
            server: "everything",
            reached: "npx -y @modelcontextprotocol/server-everything",
            message: "Please provide inputs",
        };
        let mut interview = questions::parse(&form(&asking, &fields)).unwrap();
        fit(&mut interview, &fields);
        assert_eq!(
            interview.questions[0].question,
            "Please provide inputs\n\nYour answers go to the MCP server everything (npx -y @modelcontextprotocol/server-everything). Give a password or key only to a server you trust with it."
        );
        // In the server's order, closed where only the options fit, optional said once.
        let kinds: Vec<(&str, &str, bool)> = interview
            .questions
            .iter()
            .map(|q| (q.id.as_str(), q.kind.name(), q.closed))
            .collect();
        assert_eq!(
            kinds,
            [
                ("_message", "info", false),
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
        let fields = fields(&schema()).unwrap();
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
            Value::Object(content(&fields, &replies).unwrap()),
            json!({"name": "Marvin Paranoid", "check": true, "integer": 42, "legacyEnum": "opt2",
                   "titledSingleSelectEnum": "value1", "untitledMultipleSelectEnum": ["Piano", "Drums"]})
        );
        // What the form let through is checked once more, never sent wrong.
        let wrong = |id: &str, value: &str| {
            let mut replies = vec![reply("name", "M")];
            replies.retain(|r| r.id != id);
            replies.push(reply(id, value));
            content(&fields, &replies).unwrap_err()
        };
        assert_eq!(
            wrong("integer", "1000"),
            "integer: \"1000\" is not a whole number from 1 to 100."
        );
        assert_eq!(wrong("name", ""), "Full name needs an answer");
        assert_eq!(
            wrong("legacyEnum", "Option Three"),
            "legacyEnum must be one of Option One, Option Two"
        );
    }

    #[test]
    fn secrets_are_recognised() {
        let secret = |property: Value| {
            let schema = json!({"type": "object", "properties": {"x": property}});
            looks_secret(&fields(&schema).unwrap()[0])
        };
        assert!(secret(json!({"type": "string", "title": "GitHub token"})));
        assert!(secret(
            json!({"type": "string", "description": "Your API key"})
        ));
        assert!(secret(json!({"type": "string", "format": "password"})));
        assert!(!secret(json!({"type": "string", "title": "Full name"})));
        let schema = json!({"type": "object", "properties": {"db_password": {"type": "string"}}});
        assert!(looks_secret(&fields(&schema).unwrap()[0]));
    }
}
