//! Input forms (seed 003's `interactionType: 'input'`): the one field model behind every form
//! a tool asks for, whoever asks (a built-in tool, a user's tool over `@@marvin-interact`, an
//! MCP server's `elicitation/create`) and wherever it is answered (the terminal, the gateway's
//! page, `--attach`, `--on-ask stdin`, the phone).
//!
//! A field is a JSON-schema property, as MCP's elicitation writes it (`string` with a length or
//! a format, `number`/`integer` with bounds, `boolean`, an `enum` or `oneOf` of choices, an
//! `array` of them), with a key, a label, whether it is required and a default. Seed 003's
//! `fields` list (`text`, `textarea`, `select`, `radio`, `checkbox`) reads into the same model,
//! and [`InputForm::to_json`] writes it back in that list's shape, extended with the bounds, so
//! every surface reads one format. Answers are checked where they are given
//! ([`InputForm::check`], [`InputForm::from_replies`]) and sent typed: numbers as numbers, a
//! yes-or-no as a boolean, a choice as its value.

use serde_json::{Map, Value, json};

use super::form::questions::{self, FieldError, FormQuestion, Interview, Reply, ReplyValue, Rule};

/// At most this many fields in one form.
pub const MAX_FIELDS: usize = 40;

/// A form of fields to fill in.
#[derive(Debug, Clone, PartialEq)]
pub struct InputForm {
    /// What the person is asked, above the fields.
    pub prompt: String,
    pub fields: Vec<Field>,
    /// What was entered before, by field key, as it was sent (seed 003's `initialValues`): a
    /// reprompt shows it filled in, so nothing typed is lost.
    pub initial: Map<String, Value>,
}

/// One field: a JSON-schema property and how it is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub key: String,
    pub label: String,
    pub description: Option<String>,
    /// The property's schema: its type, bounds, format and default.
    pub schema: Value,
    pub required: bool,
    /// For a choice: (label shown, value sent).
    pub choices: Vec<(String, String)>,
    /// Several choices may be chosen.
    pub multi: bool,
    pub boolean: bool,
    /// Text over several lines (seed 003's `textarea`).
    pub long: bool,
}

impl Field {
    fn kind(&self) -> &str {
        self.schema
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// The field's type in the wire format (see [`InputForm::to_json`]).
    pub fn type_name(&self) -> &'static str {
        match () {
            _ if self.boolean => "boolean",
            _ if self.multi => "multiselect",
            _ if !self.choices.is_empty() => "select",
            _ if self.kind() == "integer" => "integer",
            _ if self.kind() == "number" => "number",
            _ if self.long => "textarea",
            _ => "text",
        }
    }

    /// What an answer must look like, in words (`A whole number from 1 to 100.`).
    pub fn hint(&self) -> Option<String> {
        Rule::new(self.schema.clone()).hint()
    }

    pub fn default(&self) -> Option<&Value> {
        self.schema.get("default").filter(|v| !v.is_null())
    }
}

impl InputForm {
    /// A form from a JSON-schema object (`properties`, `required`), as MCP's elicitation sends
    /// it. `order` is the order its properties were written in, when known (a JSON object has
    /// none); fields not in it come after, by name.
    pub fn from_schema(prompt: &str, schema: &Value, order: &[&str]) -> Result<Self, String> {
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .ok_or("its schema has no properties")?;
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut keys: Vec<&String> = properties.keys().collect();
        keys.sort_by_key(|key| order.iter().position(|name| name == key));
        let mut fields = Vec::new();
        for key in keys {
            fields.push(field(
                key,
                &properties[key],
                required.contains(&key.as_str()),
            )?);
        }
        Self::new(prompt, fields)
    }

    /// A form from seed 003's `fields` list: `{"id", "type", "label", "description",
    /// "required", "defaultValue" (or "default"), "options": [{"value", "label"}] or labels}`,
    /// types `text`, `textarea`, `number`, `integer`, `boolean`, `select` (or `radio`),
    /// `multiselect`, `checkbox` (a yes-or-no, or several choices when it has options), and the
    /// bounds of JSON schema beside them (`minimum`, `maximum`, `minLength`, `maxLength`,
    /// `format`, `minItems`, `maxItems`). Errors name the field.
    pub fn from_fields(prompt: &str, list: &Value) -> Result<Self, String> {
        let Some(list) = list.as_array().filter(|l| !l.is_empty()) else {
            return Err("\"fields\" must be a non-empty list of fields".into());
        };
        let mut fields = Vec::new();
        for (index, item) in list.iter().enumerate() {
            let Some(object) = item.as_object() else {
                return Err(format!("fields[{index}]: expected an object, got {item}"));
            };
            let key = match object.get("id").or_else(|| object.get("key")) {
                Some(Value::String(id)) if !id.trim().is_empty() => id.trim().to_string(),
                _ => {
                    return Err(format!(
                        "fields[{index}].id: missing; give each field an id"
                    ));
                }
            };
            let at = |what: &str| format!("field \"{key}\": {what}");
            let (property, long) = seed_property(object).map_err(|why| at(&why))?;
            let required = object.get("required").and_then(Value::as_bool) == Some(true);
            let mut field = field(&key, &Value::Object(property), required).map_err(|w| at(&w))?;
            field.long = long;
            if fields.iter().any(|f: &Field| f.key == field.key) {
                return Err(format!("field \"{key}\" is given twice"));
            }
            fields.push(field);
        }
        Self::new(prompt, fields)
    }

    fn new(prompt: &str, fields: Vec<Field>) -> Result<Self, String> {
        if fields.is_empty() {
            return Err("a form needs at least one field".into());
        }
        if fields.len() > MAX_FIELDS {
            return Err(format!(
                "a form has at most {MAX_FIELDS} fields, not {}",
                fields.len()
            ));
        }
        Ok(Self {
            prompt: prompt.trim().to_string(),
            fields,
            initial: Map::new(),
        })
    }

    /// The same form, with `input` filled in (a reprompt keeps what was entered).
    pub fn with_initial(mut self, input: &Map<String, Value>) -> Self {
        self.initial = input
            .iter()
            .filter(|(key, _)| self.fields.iter().any(|f| &f.key == *key))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self
    }

    /// The form in the wire format every surface reads: seed 003's `inputSchema`,
    /// `{"type": "form", "fields": [...]}`, each field with its `id`, `type` (`text`,
    /// `textarea`, `number`, `integer`, `boolean`, `select`, `multiselect`), `label`,
    /// `required`, and where given `description`, `default`, `options` (`{value, label}`),
    /// the bounds, a `hint` in words and the `initial` value.
    pub fn to_json(&self) -> Value {
        let fields: Vec<Value> = self
            .fields
            .iter()
            .map(|field| {
                let mut out = json!({"id": field.key, "type": field.type_name(),
                                     "label": field.label, "required": field.required});
                if let Some(description) = &field.description {
                    out["description"] = json!(description);
                }
                if let Some(default) = field.default() {
                    out["default"] = default.clone();
                }
                if !field.choices.is_empty() {
                    out["options"] = field
                        .choices
                        .iter()
                        .map(|(label, value)| json!({"value": value, "label": label}))
                        .collect();
                }
                let bounds = ["minimum", "maximum", "minLength", "maxLength", "format"];
                let items = ["minItems", "maxItems"];
                for name in bounds.iter().chain(&items) {
                    if let Some(bound) = field.schema.get(*name) {
                        out[*name] = bound.clone();
                    }
                }
                if let Some(hint) = field.hint() {
                    out["hint"] = json!(hint);
                }
                if let Some(initial) = self.initial.get(&field.key) {
                    out["initial"] = initial.clone();
                }
                out
            })
            .collect();
        json!({"type": "form", "fields": fields})
    }

    /// The fields as the interview's questions, for the surfaces that ask questions one by one
    /// (the terminal): a yes-or-no or a list of choices takes only its options, every answer
    /// is checked against its field, and what was entered before (or the default) starts
    /// filled in. An info block with the prompt comes first when there is one.
    pub fn questions(&self) -> Vec<FormQuestion> {
        let mut list = Vec::new();
        if !self.prompt.is_empty() {
            list.push(json!({"id": "_prompt", "type": "info", "question": self.prompt}));
        }
        for field in &self.fields {
            list.push(question_json(field, self.initial.get(&field.key)));
        }
        let Ok(mut interview) = questions::parse(&json!({"questions": list})) else {
            return Vec::new(); // every field was checked when the form was made
        };
        for question in &mut interview.questions {
            let Some(field) = self.fields.iter().find(|f| f.key == question.id) else {
                continue;
            };
            question.closed = field.boolean || !field.choices.is_empty();
            question.rule = Some(Rule::new(field.schema.clone()));
            if question.kind == questions::Kind::Text {
                question.default = self.initial.get(&field.key).or(field.default()).and_then(
                    |value| match value {
                        Value::String(text) => Some(text.clone()),
                        Value::Number(number) => Some(number.to_string()),
                        _ => None,
                    },
                );
            }
        }
        interview.questions
    }

    /// The form as an interview (title and questions), for a surface that shows the
    /// interview's page.
    pub fn interview(&self, title: &str) -> Interview {
        Interview {
            title: Some(title.to_string()),
            description: None,
            questions: self.questions(),
            notes: Vec::new(),
        }
    }

    /// The input of a submission from the terminal's replies, typed; `Err` names the field
    /// and what is wrong.
    pub fn from_replies(&self, replies: &[Reply]) -> Result<Map<String, Value>, String> {
        let mut input = Map::new();
        for field in &self.fields {
            let given = replies
                .iter()
                .find(|reply| reply.id == field.key)
                .map(|r| &r.value)
                .filter(|value| !value.is_empty());
            let Some(given) = given else {
                if field.required {
                    return Err(format!("{} needs an answer", field.label));
                }
                continue;
            };
            input.insert(field.key.clone(), value_of(field, given)?);
        }
        Ok(input)
    }

    /// Checks a submitted `input` object (from the page, stdin, the phone, a client of the
    /// gateway): every key a field, every required field given, every value fitting its field.
    /// Values may be typed (`8080`, `true`, `["a"]`) or text as a person types it (`"8080"`,
    /// `"yes"`, `"a, b"`); a choice by its value or its label. Returns the input typed, or
    /// every field that is wrong, in the form's order.
    pub fn check(&self, input: &Value) -> Result<Map<String, Value>, Vec<FieldError>> {
        let Some(object) = input.as_object() else {
            let why = "\"input\" is an object of field ids and values".to_string();
            return Err(vec![FieldError::new("input", why)]);
        };
        let mut errors: Vec<FieldError> = object
            .keys()
            .filter(|key| !self.fields.iter().any(|f| &f.key == *key))
            .map(|key| {
                let known: Vec<&str> = self.fields.iter().map(|f| f.key.as_str()).collect();
                FieldError::new(
                    key,
                    format!(
                        "There is no field \"{key}\"; the fields are {}.",
                        known.join(", ")
                    ),
                )
            })
            .collect();
        let mut typed = Map::new();
        for field in &self.fields {
            let given = object
                .get(&field.key)
                .and_then(|value| as_reply(field, value));
            let Some(given) = given.filter(|g| !g.is_empty()) else {
                if field.required {
                    let why = format!("\"{}\" needs an answer.", field.label);
                    errors.push(FieldError::new(&field.key, why));
                }
                continue;
            };
            match value_of(field, &given) {
                Ok(value) => {
                    typed.insert(field.key.clone(), value);
                }
                Err(why) => errors.push(FieldError::new(&field.key, why)),
            }
        }
        match errors.is_empty() {
            true => Ok(typed),
            false => Err(errors),
        }
    }

    /// The input a person wrote in words (`port=8080, tls=yes` or one `port: 8080` per
    /// line; a field by its id or its label), as an `input` object for [`InputForm::check`].
    /// A form of one field takes the bare answer (`8080`).
    pub fn from_words(&self, text: &str) -> Result<Value, String> {
        let text = text.trim();
        let known = |name: &str| {
            let name = name.trim();
            self.fields
                .iter()
                .find(|f| f.key == name || f.label.eq_ignore_ascii_case(name))
        };
        let parts: Vec<&str> = match text.contains('\n') {
            true => text.lines().collect(),
            false => text.split([',', ';']).collect(),
        };
        let mut input = Map::new();
        for part in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
            let split = part
                .split_once('=')
                .or_else(|| part.split_once(':'))
                .and_then(|(name, value)| Some((known(name)?, value.trim())));
            match split {
                Some((field, value)) => {
                    let value = match input.remove(&field.key) {
                        // A list's items may be written apart: `tags=a, b`.
                        Some(Value::String(before)) => format!("{before}, {value}"),
                        _ => value.to_string(),
                    };
                    input.insert(field.key.clone(), Value::String(value));
                }
                None if self.fields.len() == 1 => {
                    input.insert(self.fields[0].key.clone(), Value::String(text.to_string()));
                    break;
                }
                // A bare word after a list's `name=` is one more of its items.
                None => match input.iter_mut().next_back() {
                    Some((key, Value::String(before)))
                        if self.fields.iter().any(|f| &f.key == key && f.multi) =>
                    {
                        *before = format!("{before}, {part}");
                    }
                    _ => {
                        let names: Vec<&str> = self.fields.iter().map(|f| f.key.as_str()).collect();
                        return Err(format!(
                            "{part:?} names no field: write FIELD=VALUE, with the fields {}",
                            names.join(", ")
                        ));
                    }
                },
            }
        }
        Ok(Value::Object(input))
    }

    /// The input as one line per field, for a chat log or a completed view: `Port: 8080`.
    pub fn summary(&self, input: &Map<String, Value>) -> String {
        self.fields
            .iter()
            .filter_map(|field| {
                let value = input.get(&field.key)?;
                Some(format!("{}: {}", field.label, shown(field, value)))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// A value as a person reads it: a choice by its label, a boolean as yes or no.
pub fn shown(field: &Field, value: &Value) -> String {
    let label = |v: &str| {
        field
            .choices
            .iter()
            .find(|(_, value)| value == v)
            .map_or(v.to_string(), |(label, _)| label.clone())
    };
    match value {
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::String(text) => label(text),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map_or(item.to_string(), label))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// One field from its property.
fn field(key: &str, property: &Value, required: bool) -> Result<Field, String> {
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
    Ok(Field {
        key: key.to_string(),
        label: text("title").unwrap_or_else(|| key.to_string()),
        description: text("description").filter(|d| !d.trim().is_empty()),
        schema: property.clone(),
        required,
        choices,
        multi,
        boolean: kind == "boolean",
        long: false,
    })
}

/// A seed-003 field as a JSON-schema property, and whether its text is long.
fn seed_property(object: &Map<String, Value>) -> Result<(Map<String, Value>, bool), String> {
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("text");
    let options: Vec<(String, String)> = match object.get("options") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(label) => Ok((label.clone(), label.clone())),
                Value::Object(option) => {
                    let value = option.get("value").and_then(Value::as_str);
                    let label = option.get("label").and_then(Value::as_str);
                    match (value, label) {
                        (Some(v), l) => Ok((l.unwrap_or(v).to_string(), v.to_string())),
                        (None, Some(l)) => Ok((l.to_string(), l.to_string())),
                        (None, None) => Err(format!("an option without a value: {item}")),
                    }
                }
                other => Err(format!(
                    "an option is a label or {{value, label}}, not {other}"
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(format!("\"options\" is a list, not {other}")),
    };
    let mut property = Map::new();
    let choice = |options: &[(String, String)]| -> Value {
        options
            .iter()
            .map(|(label, value)| json!({"const": value, "title": label}))
            .collect()
    };
    let mut long = false;
    match kind {
        "text" | "string" | "email" | "url" | "date" => {
            property.insert("type".into(), json!("string"));
            let format = match kind {
                "email" => Some("email"),
                "url" => Some("uri"),
                "date" => Some("date"),
                _ => None,
            };
            if let Some(format) = format {
                property.insert("format".into(), json!(format));
            }
        }
        "textarea" => {
            property.insert("type".into(), json!("string"));
            long = true;
        }
        "number" | "integer" => {
            property.insert("type".into(), json!(kind));
        }
        "boolean" => {
            property.insert("type".into(), json!("boolean"));
        }
        "checkbox" if options.is_empty() => {
            property.insert("type".into(), json!("boolean"));
        }
        "select" | "radio" | "choice" => {
            if options.is_empty() {
                return Err(format!("a {kind} needs \"options\""));
            }
            property.insert("type".into(), json!("string"));
            property.insert("oneOf".into(), choice(&options));
        }
        "multiselect" | "checkbox" => {
            if options.is_empty() {
                return Err("a multiselect needs \"options\"".into());
            }
            property.insert("type".into(), json!("array"));
            property.insert(
                "items".into(),
                json!({"type": "string", "anyOf": choice(&options)}),
            );
        }
        other => {
            return Err(format!(
                "the type {other:?} is not one of text, textarea, number, integer, boolean, select, radio, multiselect, checkbox"
            ));
        }
    }
    if let Some(label) = object.get("label").or_else(|| object.get("title")) {
        let Some(label) = label.as_str() else {
            return Err(format!("\"label\" is text, not {label}"));
        };
        property.insert("title".into(), json!(label));
    }
    if let Some(description) = object.get("description").and_then(Value::as_str) {
        property.insert("description".into(), json!(description));
    }
    if let Some(default) = object.get("defaultValue").or_else(|| object.get("default")) {
        property.insert("default".into(), default.clone());
    }
    let numbers = ["minimum", "maximum"];
    let counts = ["minLength", "maxLength", "minItems", "maxItems"];
    for name in numbers.iter().chain(&counts) {
        match object.get(*name) {
            None | Some(Value::Null) => {}
            Some(bound) if bound.is_number() => {
                property.insert((*name).into(), bound.clone());
            }
            Some(other) => return Err(format!("\"{name}\" is a number, not {other}")),
        }
    }
    if let Some(format) = object.get("format").and_then(Value::as_str) {
        property.insert("format".into(), json!(format));
    }
    Ok((property, long))
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

/// The interview question that asks `field`, with what was entered before chosen again.
fn question_json(field: &Field, initial: Option<&Value>) -> Value {
    let mut question = Map::new();
    question.insert("id".into(), json!(field.key));
    if !field.required {
        question.insert("optional".into(), json!(true));
    }
    question.insert("question".into(), json!(field.label));
    let start = initial.or(field.default());
    if field.boolean {
        question.insert("type".into(), json!("single"));
        question.insert("options".into(), json!(["Yes", "No"]));
        if let Some(Value::Bool(yes)) = start {
            question.insert("recommended".into(), json!(if *yes { "Yes" } else { "No" }));
        }
    } else if !field.choices.is_empty() {
        let labels: Vec<&str> = field.choices.iter().map(|(l, _)| l.as_str()).collect();
        question.insert(
            "type".into(),
            json!(if field.multi { "multi" } else { "single" }),
        );
        question.insert("options".into(), json!(labels));
        let chosen: Vec<&str> = match start {
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
    if let Some(description) = &field.description {
        context.push(description.clone());
    }
    if let Some(hint) = field.hint() {
        context.push(hint);
    }
    if !context.is_empty() {
        question.insert("context".into(), json!(context.join(" ")));
    }
    Value::Object(question)
}

/// A submitted value as the answer a person would have typed or chosen.
fn as_reply(field: &Field, value: &Value) -> Option<ReplyValue> {
    match value {
        Value::Null => None,
        Value::String(text) if field.multi => Some(ReplyValue::Many(
            text.split(',')
                .map(|part| part.trim().to_string())
                .filter(|part| !part.is_empty())
                .collect(),
        )),
        Value::String(text) => Some(ReplyValue::One(text.clone())),
        Value::Bool(yes) => Some(ReplyValue::One(if *yes { "yes" } else { "no" }.into())),
        Value::Number(number) => Some(ReplyValue::One(number.to_string())),
        Value::Array(items) => Some(ReplyValue::Many(
            items
                .iter()
                .map(|item| item.as_str().map_or(item.to_string(), str::to_string))
                .collect(),
        )),
        Value::Object(_) => Some(ReplyValue::One(value.to_string())),
    }
}

/// The value sent for one answer, checked against its field: `Err` says what to change.
fn value_of(field: &Field, given: &ReplyValue) -> Result<Value, String> {
    let label = &field.label;
    let pick = |text: &str| -> Result<String, String> {
        let text = text.trim();
        field
            .choices
            .iter()
            .find(|(shown, value)| shown == text || value == text)
            .map(|(_, value)| value.clone())
            .ok_or_else(|| {
                let shown: Vec<&str> = field.choices.iter().map(|(l, _)| l.as_str()).collect();
                format!("{label}: choose from {}.", shown.join(", "))
            })
    };
    if field.boolean {
        return match given.joined().trim().to_lowercase().as_str() {
            "yes" | "y" | "true" | "on" => Ok(Value::Bool(true)),
            "no" | "n" | "false" | "off" => Ok(Value::Bool(false)),
            _ => Err(format!("{label}: answer yes or no.")),
        };
    }
    let rule = Rule::new(field.schema.clone());
    if field.multi {
        let items: Vec<String> = match given {
            ReplyValue::Many(items) => items.clone(),
            ReplyValue::One(text) => vec![text.clone()],
        };
        let values = items
            .iter()
            .map(|item| pick(item))
            .collect::<Result<Vec<_>, _>>()?;
        rule.check(&ReplyValue::Many(values.clone()))
            .map_err(|why| format!("{label}: {why}"))?;
        return Ok(json!(values));
    }
    let text = given.joined().trim().to_string();
    if !field.choices.is_empty() {
        return pick(&text).map(Value::String);
    }
    rule.check(&ReplyValue::One(text.clone()))
        .map_err(|why| format!("{label}: {why}"))?;
    match field.kind() {
        "number" | "integer" => rule
            .number_value(&text)
            .ok_or_else(|| format!("{label}: {text:?} is not a number.")),
        _ => Ok(Value::String(text)),
    }
}

#[cfg(test)]
mod tests;
