//! Tool parameters, declared once: the JSON schema the model sees and the validation of what
//! it sends both come from the same [`Param`] list.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value, json};

/// Text of a tool's declaration: borrowed for a built-in tool, owned for a user's tool read at
/// run time, so loading tools again in a long-running process leaks nothing.
pub type Text = Cow<'static, str>;

/// The type of one parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    String,
    Integer,
    Number,
    Boolean,
    StringList,
    /// One of the listed strings.
    Choice(Choices),
    /// An array of objects shaped by this JSON schema (checked in detail by the tool).
    ObjectList(&'static str),
    /// Any JSON value, described by this JSON schema (a user's tool checks it itself).
    Any(Text),
}

/// The strings a [`Kind::Choice`] allows.
#[derive(Debug, Clone, PartialEq)]
pub enum Choices {
    /// Listed in the code of a built-in tool.
    Fixed(&'static [&'static str]),
    /// Read from a user's tool definition.
    Loaded(Vec<String>),
}

impl Choices {
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let (fixed, loaded): (&[&str], &[String]) = match self {
            Choices::Fixed(options) => (options, &[]),
            Choices::Loaded(options) => (&[], options),
        };
        fixed
            .iter()
            .copied()
            .chain(loaded.iter().map(String::as_str))
    }

    fn contains(&self, option: &str) -> bool {
        self.iter().any(|o| o == option)
    }
}

impl Kind {
    fn name(&self) -> String {
        match self {
            Kind::String => "string".into(),
            Kind::Integer => "integer".into(),
            Kind::Number => "number".into(),
            Kind::Boolean => "boolean".into(),
            Kind::StringList => "array of strings".into(),
            Kind::Choice(options) => {
                format!("one of {}", options.iter().collect::<Vec<_>>().join("|"))
            }
            Kind::ObjectList(_) => "array of objects".into(),
            Kind::Any(schema) => serde_json::from_str::<Value>(schema)
                .ok()
                .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_else(|| "JSON value".into()),
        }
    }

    fn schema(&self) -> Value {
        match self {
            Kind::String => json!({"type": "string"}),
            Kind::Integer => json!({"type": "integer"}),
            Kind::Number => json!({"type": "number"}),
            Kind::Boolean => json!({"type": "boolean"}),
            Kind::StringList => json!({"type": "array", "items": {"type": "string"}}),
            Kind::Choice(options) => {
                json!({"type": "string", "enum": options.iter().collect::<Vec<_>>()})
            }
            Kind::ObjectList(items) => {
                json!({"type": "array", "items": serde_json::from_str::<Value>(items).unwrap_or(json!({"type": "object"}))})
            }
            Kind::Any(schema) => serde_json::from_str::<Value>(schema).unwrap_or(json!({})),
        }
    }
}

/// The names a JSON object schema lists as `required` (none when it lists none): for the
/// schemas of users' tools, MCP servers' tools and their questions.
pub fn required_names(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// One parameter of a tool.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: Text,
    pub kind: Kind,
    pub required: bool,
    pub description: Text,
}

impl Param {
    pub const fn required(name: &'static str, kind: Kind, description: &'static str) -> Self {
        Self {
            name: Cow::Borrowed(name),
            kind,
            required: true,
            description: Cow::Borrowed(description),
        }
    }

    pub const fn optional(name: &'static str, kind: Kind, description: &'static str) -> Self {
        Self {
            name: Cow::Borrowed(name),
            kind,
            required: false,
            description: Cow::Borrowed(description),
        }
    }

    /// A parameter read at run time (a user's tool).
    pub fn loaded(name: String, kind: Kind, required: bool, description: String) -> Self {
        Self {
            name: Cow::Owned(name),
            kind,
            required,
            description: Cow::Owned(description),
        }
    }
}

/// The `parameters` object of an OpenAI function definition, as values: what [`Schema`] writes
/// out directly (kept to prove the two agree).
#[cfg(test)]
pub fn json_schema(params: &[Param]) -> Value {
    let mut properties = Map::new();
    for param in params {
        let mut schema = param.kind.schema();
        schema["description"] = Value::from(param.description.as_ref());
        properties.insert(param.name.to_string(), schema);
    }
    let required: Vec<&str> = params
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name.as_ref())
        .collect();
    json!({"type": "object", "properties": properties, "required": required})
}

/// [`json_schema`] written straight out, without building the values: the same JSON, keys in
/// the same (sorted) order.
pub struct Schema<'a>(pub &'a [Param]);

impl Serialize for Schema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Properties<'a>(&'a [Param]);
        impl Serialize for Properties<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut sorted: Vec<&Param> = self.0.iter().collect();
                sorted.sort_by(|a, b| a.name.cmp(&b.name));
                sorted.dedup_by(|a, b| a.name == b.name);
                let mut map = serializer.serialize_map(Some(sorted.len()))?;
                for param in sorted {
                    map.serialize_entry(param.name.as_ref(), &ParamSchema(param))?;
                }
                map.end()
            }
        }
        let required: Vec<&str> = self
            .0
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name.as_ref())
            .collect();
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("properties", &Properties(self.0))?;
        map.serialize_entry("required", &required)?;
        map.serialize_entry("type", "object")?;
        map.end()
    }
}

/// One parameter's schema, its description included.
struct ParamSchema<'a>(&'a Param);

impl Serialize for ParamSchema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let param = self.0;
        let simple = match &param.kind {
            Kind::String | Kind::Choice(_) => "string",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::StringList => "array",
            // Schemas given as JSON text (a few tools): read, then written with the rest.
            Kind::ObjectList(_) | Kind::Any(_) => {
                let mut schema = param.kind.schema();
                schema["description"] = Value::from(param.description.as_ref());
                return schema.serialize(serializer);
            }
        };
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("description", param.description.as_ref())?;
        if let Kind::Choice(options) = &param.kind {
            map.serialize_entry("enum", &options.iter().collect::<Vec<_>>())?;
        }
        if param.kind == Kind::StringList {
            map.serialize_entry("items", &json!({"type": "string"}))?;
        }
        map.serialize_entry("type", simple)?;
        map.end()
    }
}

/// One line per parameter, for error messages: `  path (string, required): what it is`.
pub fn describe(params: &[Param]) -> String {
    if params.is_empty() {
        return "  (no parameters: send {})".to_string();
    }
    params
        .iter()
        .map(|p| {
            let need = if p.required { "required" } else { "optional" };
            format!(
                "  {} ({}, {need}): {}",
                p.name,
                p.kind.name(),
                p.description
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks `args` against `params`, returning the arguments with forgiving coercions applied
/// (`"10"` for an integer, `"true"` for a boolean, a lone string for a list), or one problem
/// per field. Unknown fields are dropped: models add them and they harm nothing. A `null` is
/// left out where the parameter's type has no null, and kept for a parameter whose schema is
/// passed on whole ([`Kind::Any`]), whose reader decides.
pub fn validate(
    params: &[Param],
    args: &Map<String, Value>,
) -> Result<Map<String, Value>, Vec<String>> {
    let mut clean = Map::new();
    let mut problems = Vec::new();
    for param in params {
        match args.get(param.name.as_ref()) {
            Some(Value::Null) if matches!(param.kind, Kind::Any(_)) => {
                clean.insert(param.name.to_string(), Value::Null);
            }
            None | Some(Value::Null) if param.required => {
                problems.push(format!(
                    "{}: missing required field (expected {})",
                    param.name,
                    param.kind.name()
                ));
            }
            None | Some(Value::Null) => {}
            Some(value) => match coerce(&param.kind, value) {
                Some(value) => {
                    clean.insert(param.name.to_string(), value);
                }
                None => problems.push(format!(
                    "{}: expected {}, got {}",
                    param.name,
                    param.kind.name(),
                    shown(value)
                )),
            },
        }
    }
    if problems.is_empty() {
        Ok(clean)
    } else {
        Err(problems)
    }
}

/// [`validate`], keeping the fields no parameter names as they were sent: for a tool whose
/// schema allows other fields (an MCP server's, which checks them itself).
pub fn validate_keeping_others(
    params: &[Param],
    args: &Map<String, Value>,
) -> Result<Map<String, Value>, Vec<String>> {
    let mut clean = validate(params, args)?;
    for (key, value) in args {
        if !params.iter().any(|p| p.name == key.as_str()) {
            clean.insert(key.clone(), value.clone());
        }
    }
    Ok(clean)
}

fn coerce(kind: &Kind, value: &Value) -> Option<Value> {
    match (kind, value) {
        (Kind::String, Value::String(_)) => Some(value.clone()),
        // Models send an id or a code as a number as often as as text: forgiven, as "10" is
        // for an integer.
        (Kind::String, Value::Number(n)) => Some(Value::from(n.to_string())),
        (Kind::Integer, Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| is_whole_i64(*f)).map(|f| f as i64))
            .map(Value::from),
        (Kind::Integer, Value::String(s)) => s.trim().parse::<i64>().ok().map(Value::from),
        (Kind::Number, Value::Number(_)) => Some(value.clone()),
        // "NaN" and "inf" parse, but JSON has no such number: they would become null.
        (Kind::Number, Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Value::from),
        (Kind::Boolean, Value::Bool(_)) => Some(value.clone()),
        (Kind::Boolean, Value::String(s)) => match s.trim() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        (Kind::StringList, Value::Array(items)) if items.iter().all(Value::is_string) => {
            Some(value.clone())
        }
        (Kind::StringList, Value::String(_)) => Some(Value::Array(vec![value.clone()])),
        (Kind::Choice(options), Value::String(s)) if options.contains(s) => Some(value.clone()),
        (Kind::ObjectList(_), Value::Array(items)) if items.iter().all(Value::is_object) => {
            Some(value.clone())
        }
        (Kind::Any(_), _) => Some(value.clone()),
        _ => None,
    }
}

/// A whole number an `i64` holds as it is (`3.0`, not `1e300`, which `as` would saturate).
fn is_whole_i64(f: f64) -> bool {
    // -2^63 and 2^63 are exact as f64: the range is [-2^63, 2^63).
    f.fract() == 0.0 && f >= i64::MIN as f64 && f < -(i64::MIN as f64)
}

fn shown(value: &Value) -> String {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let text: String = value.to_string().chars().take(60).collect();
    format!("{kind} {text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARAMS: &[Param] = &[
        Param::required("path", Kind::String, "file"),
        Param::optional("start_line", Kind::Integer, "first line"),
        Param::optional("all", Kind::Boolean, "everything"),
        Param::optional("names", Kind::StringList, "names"),
        Param::optional("mode", Kind::Choice(Choices::Fixed(&["a", "b"])), "mode"),
        Param::optional("ratio", Kind::Number, "ratio"),
    ];

    fn check(args: Value) -> Result<Value, Vec<String>> {
        validate(PARAMS, args.as_object().unwrap()).map(Value::Object)
    }

    #[test]
    fn validation_cases() {
        let cases: Vec<(Value, Result<Value, Vec<&str>>)> = vec![
            (json!({"path": "a"}), Ok(json!({"path": "a"}))),
            (
                json!({"path": "a", "start_line": "10"}),
                Ok(json!({"path": "a", "start_line": 10})),
            ),
            (
                json!({"path": "a", "start_line": 3.0}),
                Ok(json!({"path": "a", "start_line": 3})),
            ),
            (
                json!({"path": "a", "all": "true"}),
                Ok(json!({"path": "a", "all": true})),
            ),
            (
                json!({"path": "a", "names": "x"}),
                Ok(json!({"path": "a", "names": ["x"]})),
            ),
            (
                json!({"path": "a", "ratio": "0.5"}),
                Ok(json!({"path": "a", "ratio": 0.5})),
            ),
            (json!({"path": "a", "extra": 1}), Ok(json!({"path": "a"}))),
            (
                json!({"path": "a", "start_line": null}),
                Ok(json!({"path": "a"})),
            ),
            (
                json!({}),
                Err(vec!["path: missing required field (expected string)"]),
            ),
            (
                json!({"path": "a", "start_line": "ten"}),
                Err(vec!["start_line: expected integer, got string \"ten\""]),
            ),
            (
                json!({"path": "a", "start_line": 1.5}),
                Err(vec!["start_line: expected integer, got number 1.5"]),
            ),
            (
                json!({"path": "a", "start_line": 1e300}),
                Err(vec!["start_line: expected integer, got number 1e+300"]),
            ),
            (
                json!({"path": "a", "start_line": u64::MAX}),
                Err(vec![
                    "start_line: expected integer, got number 18446744073709551615",
                ]),
            ),
            (
                json!({"path": "a", "start_line": -9.223372036854776e18}),
                Ok(json!({"path": "a", "start_line": i64::MIN})),
            ),
            (
                json!({"path": "a", "ratio": "NaN"}),
                Err(vec!["ratio: expected number, got string \"NaN\""]),
            ),
            (
                json!({"path": "a", "ratio": " inf"}),
                Err(vec!["ratio: expected number, got string \" inf\""]),
            ),
            (
                json!({"path": "a", "mode": "c"}),
                Err(vec!["mode: expected one of a|b, got string \"c\""]),
            ),
            (
                json!({"path": ["x"], "all": 2}),
                Err(vec![
                    "path: expected string, got array [\"x\"]",
                    "all: expected boolean, got number 2",
                ]),
            ),
        ];
        for (input, expected) in cases {
            let expected =
                expected.map_err(|v| v.into_iter().map(String::from).collect::<Vec<_>>());
            assert_eq!(check(input.clone()), expected, "input {input}");
        }
    }

    #[test]
    fn a_null_is_kept_where_the_schema_is_passed_on_and_others_where_allowed() {
        let params = [
            Param::loaded(
                "note".into(),
                Kind::Any(r#"{"type": "null"}"#.into()),
                true,
                String::new(),
            ),
            Param::loaded("count".into(), Kind::Integer, false, String::new()),
        ];
        let args = json!({"note": null, "count": null, "extra": [1]});
        let args = args.as_object().unwrap();
        assert_eq!(
            validate(&params, args).map(Value::Object),
            Ok(json!({"note": null}))
        );
        assert_eq!(
            validate_keeping_others(&params, args).map(Value::Object),
            Ok(json!({"note": null, "extra": [1]}))
        );
        let missing = json!({"extra": 1});
        assert_eq!(
            validate_keeping_others(&params, missing.as_object().unwrap()),
            Err(vec![
                "note: missing required field (expected null)".to_string()
            ])
        );
    }

    #[test]
    fn schema_lists_properties_and_required() {
        let schema = json_schema(PARAMS);
        assert_eq!(schema["required"], json!(["path"]));
        assert_eq!(schema["properties"]["start_line"]["type"], "integer");
        assert_eq!(schema["properties"]["names"]["items"]["type"], "string");
        assert_eq!(schema["properties"]["mode"]["enum"], json!(["a", "b"]));
        assert_eq!(schema["properties"]["path"]["description"], "file");
    }

    #[test]
    fn describe_shows_type_and_need() {
        let text = describe(&PARAMS[..2]);
        assert_eq!(
            text,
            "  path (string, required): file\n  start_line (integer, optional): first line"
        );
        assert!(describe(&[]).contains("send {}"));
    }
}
