//! Reading a form: from MCP's requested schema, or from seed 003's list of fields, into the
//! one field model; every error names the field.

use serde_json::{Map, Value, json};

use super::{Field, InputForm};

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
    /// types [`FIELD_TYPES`] (`text` when none is given; `email`, `url` and `date` are text
    /// of that format; `checkbox` is a yes-or-no, or several choices when it has options), and
    /// the bounds of JSON schema beside them (`minimum`, `maximum`, `minLength`, `maxLength`,
    /// `format`, `minItems`, `maxItems`). Errors name the field. doc/interactive-tools.md
    /// ("Form fields") and the README list the same.
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
            if property.get("format").and_then(Value::as_str) == Some("password") {
                return Err(at(
                    "a form never asks for a password or key: its answers are kept in the chat log and the session's events; have the person put it in the tool's configuration or environment instead",
                ));
            }
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
}

/// Every `type` a seed-003 field may have.
pub(super) const FIELD_TYPES: [&str; 14] = [
    "text",
    "string",
    "textarea",
    "email",
    "url",
    "date",
    "number",
    "integer",
    "boolean",
    "checkbox",
    "select",
    "radio",
    "choice",
    "multiselect",
];

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
                "the type {other:?} is not one of {}",
                FIELD_TYPES.join(", ")
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
