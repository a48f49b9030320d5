//! A server's tools as Marvin's: the name the model sees (`server__tool`, within the 64
//! characters function names may have), the description with the server named, the input
//! schema as parameters validated like a built-in tool's, and a result turned into text (with
//! pictures and binary resources saved to files whose paths the model gets).

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::tools::kit::scratch::write_new;
use crate::tools::schema::{Choices, Kind, Param};

/// The longest function name the providers take.
const MAX_NAME: usize = 64;
/// A description longer than this is cut: every tool's description goes into every request.
const MAX_DESCRIPTION: usize = 1024;

/// One tool as the server listed it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTool {
    /// The server's name for it, used in `tools/call`.
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// The server says it only reads (annotations.readOnlyHint).
    pub read_only: bool,
}

impl RemoteTool {
    /// The tools of a `tools/list` result; a tool that needs MCP's tasks (which Marvin does
    /// not speak) is left out.
    pub fn list(result: &Value) -> Vec<RemoteTool> {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return Vec::new();
        };
        tools
            .iter()
            .filter(|tool| {
                tool.pointer("/execution/taskSupport")
                    .and_then(Value::as_str)
                    != Some("required")
            })
            .filter_map(|tool| {
                Some(RemoteTool {
                    name: tool.get("name")?.as_str()?.to_string(),
                    description: tool
                        .get("description")
                        .or_else(|| tool.get("title"))
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    input_schema: tool.get("inputSchema").cloned().unwrap_or(Value::Null),
                    read_only: tool.pointer("/annotations/readOnlyHint")
                        == Some(&Value::Bool(true)),
                })
            })
            .collect()
    }
}

/// The name the model sees for `tool` of `server`: `server__tool`, with anything but letters,
/// digits, `_` and `-` made `_`; a longer name is cut and ends in a short hash of the whole,
/// so two long names stay apart.
pub fn exposed_name(server: &str, tool: &str) -> String {
    let full: String = format!("{server}__{tool}")
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                true => c,
                false => '_',
            },
        )
        .collect();
    if full.len() <= MAX_NAME {
        return full;
    }
    let hash = fnv1a(full.as_bytes());
    format!("{}_{:08x}", &full[..MAX_NAME - 9], hash as u32)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x100000001b3)
    })
}

/// What the model reads about the tool: the server's description, cut to a reasonable size,
/// after the server's name.
pub fn description(server: &str, tool: &RemoteTool) -> String {
    let mut text = format!("[MCP server {server}] {}", tool.description.trim());
    if text.len() > MAX_DESCRIPTION {
        let mut end = MAX_DESCRIPTION - 1;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// The parameters of an input schema `{"type": "object", "properties": …, "required": […]}`:
/// simple types become Marvin's own kinds (checked before the call); anything richer (nested
/// objects, anyOf) passes through with its schema, for the server to check. A required name
/// without a property is a required parameter of any value.
pub fn params(schema: &Value) -> Vec<Param> {
    let empty = serde_json::Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required = crate::tools::schema::required_names(schema);
    let unlisted = required
        .iter()
        .filter(|name| !properties.contains_key(**name))
        .map(|name| {
            Param::loaded(
                name.to_string(),
                Kind::Any("{}".into()),
                true,
                String::new(),
            )
        });
    properties
        .iter()
        .map(|(name, property)| {
            let description = property
                .get("description")
                .or_else(|| property.get("title"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            Param::loaded(
                name.clone(),
                kind_of(property),
                required.contains(&name.as_str()),
                description,
            )
        })
        .chain(unlisted)
        .collect()
}

/// Whether the schema lets a call carry fields its `properties` do not list: it has no
/// `properties`, has `patternProperties`, or has `additionalProperties` other than `false`.
/// Those fields go to the server as the model sent them.
pub fn allows_others(schema: &Value) -> bool {
    schema.get("properties").is_none()
        || schema.get("patternProperties").is_some()
        || schema
            .get("additionalProperties")
            .is_some_and(|allowed| allowed != &Value::Bool(false))
}

fn kind_of(property: &Value) -> Kind {
    let strings = |values: &Value| -> Option<Vec<String>> {
        values
            .as_array()?
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    if let Some(options) = property.get("enum").and_then(strings) {
        return Kind::Choice(Choices::Loaded(options));
    }
    match property.get("type").and_then(Value::as_str) {
        Some("string") if property.get("format").is_none() => Kind::String,
        Some("integer") if !has_bounds(property) => Kind::Integer,
        Some("number") if !has_bounds(property) => Kind::Number,
        Some("boolean") => Kind::Boolean,
        Some("array") if property.get("items") == Some(&serde_json::json!({"type": "string"})) => {
            Kind::StringList
        }
        _ => Kind::Any(property.to_string().into()),
    }
}

/// Bounds and defaults are the server's to check; the schema goes to the model as written.
fn has_bounds(property: &Value) -> bool {
    [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "default",
    ]
    .iter()
    .any(|key| property.get(key).is_some())
}

/// Example arguments for error messages, from the required parameters.
pub fn example(params: &[Param]) -> String {
    crate::tools::custom::example(params).to_string()
}

/// A `tools/call` result as the model reads it: text as it is; pictures, sound and binary
/// resources saved under `files` (their paths given); links and structured content described.
/// `Err` when the server says the call failed (`isError`).
pub fn result_text(result: &Value, files: &CallFiles) -> Result<String, String> {
    let mut parts = Vec::new();
    for (n, block) in result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        parts.push(block_text(block, n + 1, files));
    }
    if parts.is_empty() {
        if let Some(structured) = result.get("structuredContent") {
            parts.push(structured.to_string());
        }
    }
    let text = match parts.is_empty() {
        true => "(the tool returned nothing)".to_string(),
        false => parts.join("\n"),
    };
    match result.get("isError") == Some(&Value::Bool(true)) {
        true => Err(text),
        false => Ok(text),
    }
}

fn block_text(block: &Value, n: usize, files: &CallFiles) -> String {
    let field = |name: &str| block.get(name).and_then(Value::as_str).unwrap_or("");
    match field("type") {
        "text" => field("text").to_string(),
        kind @ ("image" | "audio") => {
            let mime = field("mimeType");
            match save(field("data"), mime, &format!("{kind}-{n}"), files) {
                Ok((path, bytes)) => format!("[{kind}: {mime}, {bytes} bytes, saved to {path}]"),
                Err(why) => format!("[{kind}: {mime}, not saved: {why}]"),
            }
        }
        "resource_link" => {
            let mut text = format!("[resource link: {} <{}>", field("name"), field("uri"));
            for extra in ["description", "mimeType"] {
                if !field(extra).is_empty() {
                    text.push_str(&format!("; {}", field(extra)));
                }
            }
            text + "]"
        }
        "resource" => {
            let resource = block.get("resource").cloned().unwrap_or(Value::Null);
            let get = |name: &str| resource.get(name).and_then(Value::as_str).unwrap_or("");
            if let Some(text) = resource.get("text").and_then(Value::as_str) {
                format!("[resource <{}>]\n{text}", get("uri"))
            } else {
                match save(
                    get("blob"),
                    get("mimeType"),
                    &format!("resource-{n}"),
                    files,
                ) {
                    Ok((path, bytes)) => format!(
                        "[resource <{}>: {}, {bytes} bytes, saved to {path}]",
                        get("uri"),
                        get("mimeType")
                    ),
                    Err(why) => format!("[resource <{}>: not saved: {why}]", get("uri")),
                }
            }
        }
        other => format!("[{other} content, which Marvin does not show]"),
    }
}

/// Where a call's files go: a directory made when the first file is saved.
pub struct CallFiles<'a> {
    make: Box<dyn Fn() -> Result<PathBuf, String> + 'a>,
    dir: OnceCell<Result<PathBuf, String>>,
}

impl<'a> CallFiles<'a> {
    pub fn new(make: impl Fn() -> Result<PathBuf, String> + 'a) -> Self {
        Self {
            make: Box::new(make),
            dir: OnceCell::new(),
        }
    }

    fn dir(&self) -> Result<&Path, String> {
        match self.dir.get_or_init(|| (self.make)()) {
            Ok(dir) => Ok(dir),
            Err(why) => Err(why.clone()),
        }
    }
}

/// Decodes base64 `data` into a new file `NAME.EXT` of the call's directory; the path and the
/// size.
fn save(data: &str, mime: &str, name: &str, files: &CallFiles) -> Result<(String, usize), String> {
    let bytes = crate::interact::form::uploads::decode_base64(data.trim())
        .ok_or_else(|| "it is not valid base64".to_string())?;
    let ext = match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "audio/wav" | "audio/x-wav" => "wav",
        "audio/mpeg" => "mp3",
        "text/plain" => "txt",
        "application/json" => "json",
        "application/pdf" => "pdf",
        _ => "bin",
    };
    let path = files.dir()?.join(format!("{name}.{ext}"));
    write_new(&path, &bytes)?;
    Ok((path.display().to_string(), bytes.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_fit_the_limit_and_stay_apart() {
        assert_eq!(exposed_name("everything", "echo"), "everything__echo");
        assert_eq!(exposed_name("fs", "read.file v2"), "fs__read_file_v2");
        let long_a = exposed_name(
            "a-very-long-server-name-for-testing",
            "and-a-very-long-tool-name-one",
        );
        let long_b = exposed_name(
            "a-very-long-server-name-for-testing",
            "and-a-very-long-tool-name-two",
        );
        assert_eq!(long_a.len(), 64);
        assert_ne!(long_a, long_b);
    }

    #[test]
    fn schemas_become_parameters_and_tasks_only_tools_are_left_out() {
        let listed = json!({"tools": [
            {"name": "add", "description": "Adds", "inputSchema": {"type": "object",
                "properties": {"a": {"type": "number", "description": "first"}, "b": {"type": "number"},
                    "mode": {"type": "string", "enum": ["fast", "exact"]},
                    "opts": {"type": "object", "properties": {"x": {"type": "integer"}}}},
                "required": ["a", "b"]},
             "annotations": {"readOnlyHint": true}},
            {"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}
        ]});
        let tools = RemoteTool::list(&listed);
        assert_eq!(tools.len(), 1);
        assert!(tools[0].read_only);
        let params = params(&tools[0].input_schema);
        let kinds: Vec<(&str, bool)> = params
            .iter()
            .map(|p| (p.name.as_ref(), p.required))
            .collect();
        assert_eq!(
            kinds,
            [("a", true), ("b", true), ("mode", false), ("opts", false)]
        );
        assert_eq!(params[0].kind, Kind::Number);
        assert!(matches!(params[2].kind, Kind::Choice(_)));
        assert!(matches!(params[3].kind, Kind::Any(_)));
        assert_eq!(example(&params), r#"{"a":1,"b":1}"#);
        assert_eq!(
            description("everything", &tools[0]),
            "[MCP server everything] Adds"
        );
    }

    #[test]
    fn a_required_name_without_a_property_is_a_parameter_and_other_fields_are_told() {
        let schema = json!({"type": "object", "required": ["id"]});
        let params = params(&schema);
        assert_eq!(params.len(), 1);
        assert_eq!((params[0].name.as_ref(), params[0].required), ("id", true));
        assert!(matches!(params[0].kind, Kind::Any(_)));
        let cases = [
            (json!({"type": "object"}), true),
            (
                json!({"properties": {}, "patternProperties": {"^x": {}}}),
                true,
            ),
            (
                json!({"properties": {}, "additionalProperties": {"type": "string"}}),
                true,
            ),
            (
                json!({"properties": {}, "additionalProperties": false}),
                false,
            ),
            (json!({"properties": {"a": {}}}), false),
        ];
        for (schema, allows) in cases {
            assert_eq!(allows_others(&schema), allows, "{schema}");
        }
    }

    /// Content blocks as server-everything 2026.8.31 returns them (tests/fixtures/mcp/).
    #[test]
    fn results_are_text_with_files_for_pictures() {
        let dir = crate::test_support::TempDir::new("mcp-results");
        let scratch = crate::tools::kit::scratch::Scratch::default();
        let made = scratch.dir_for(dir.path(), "files").unwrap();
        let files = CallFiles::new(|| Ok(made.clone()));
        let result = json!({"content": [
            {"type": "text", "text": "This is a tiny image:"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "demo://resource/dynamic/text/2", "name": "Text Resource 2", "mimeType": "text/plain"},
            {"type": "resource", "resource": {"uri": "demo://r/1", "mimeType": "text/plain", "text": "Resource 1"}}
        ]});
        let text = result_text(&result, &files).unwrap();
        let image = made.join("image-2.png");
        assert_eq!(
            text,
            format!(
                "This is a tiny image:\n[image: image/png, 8 bytes, saved to {}]\n[resource link: Text Resource 2 <demo://resource/dynamic/text/2>; text/plain]\n[resource <demo://r/1>]\nResource 1",
                image.display()
            )
        );
        assert_eq!(std::fs::read(&image).unwrap(), b"\x89PNG\r\n\x1a\n");
        let failed = json!({"content": [{"type": "text", "text": "MCP error -32602: Tool no-such-tool not found"}], "isError": true});
        assert_eq!(
            result_text(&failed, &files).unwrap_err(),
            "MCP error -32602: Tool no-such-tool not found"
        );
        let structured = json!({"content": [], "structuredContent": {"temperature": 33}});
        assert_eq!(
            result_text(&structured, &files).unwrap(),
            r#"{"temperature":33}"#
        );
    }
}
