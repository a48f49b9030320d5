//! Users' own tools: `<name>.json` files and `<name>/tool.json` directories in
//! MARVIN_HOME/tools/ (and, offered in coding mode only, .marvin/tools/ of the project),
//! turned into ordinary tool definitions at start-up. A broken definition is reported once and
//! skipped; it never stops Marvin.

mod asking;
mod pipe;
mod protocol;
mod run;
mod watchdog;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::schema::{Choices, Kind, Param};
use super::{Offered, Registry, ToolDef};

/// Where a tool directory is and whose it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// MARVIN_HOME/tools: the user's own.
    User,
    /// .marvin/tools of the project: offered in coding mode, and always asks first.
    Project,
}

/// A loaded tool, for `/tools`.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub name: String,
    pub definition: PathBuf,
}

/// The file format of a tool definition.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    name: String,
    description: String,
    #[serde(default)]
    parameters: Option<Value>,
    command: Vec<String>,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    approval: Option<String>,
    /// The tool asks questions with `@@marvin-interact`: keep its stdin open for the answers.
    #[serde(default)]
    interactive: bool,
}

/// How to run one tool.
pub(crate) struct Definition {
    pub name: String,
    pub command: Vec<String>,
    pub dir: PathBuf,
    pub timeout: Duration,
    /// Approval key template, e.g. `deploy:{env}`; project tools ask even without one.
    pub approval: Option<String>,
    pub origin: Origin,
    pub interactive: bool,
}

/// Adds the tools found in `dirs` to `registry`; returns what was loaded and the warnings.
pub(crate) fn load(
    registry: &mut Registry,
    dirs: &[(PathBuf, Origin)],
) -> (Vec<Loaded>, Vec<String>) {
    let (mut loaded, mut warnings) = (Vec::new(), Vec::new());
    for (dir, origin) in dirs {
        for path in candidates(dir) {
            match parse(&path, *origin) {
                Ok(tool) if registry.has(&tool.name) => {
                    warnings.push(format!(
                        "skipping the tool in {}: the name {} is already taken",
                        path.display(),
                        tool.name
                    ));
                }
                Ok(tool) => {
                    loaded.push(Loaded {
                        name: tool.name.to_string(),
                        definition: path.clone(),
                    });
                    registry.add(tool);
                }
                Err(problem) => warnings.push(format!(
                    "skipping the tool in {}: {problem}",
                    path.display()
                )),
            }
        }
    }
    (loaded, warnings)
}

/// The definition files in `dir`, sorted: `<name>.json`, and `tool.json` of subdirectories
/// (symlinks followed; a directory without tool.json is not a tool).
fn candidates(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter_map(|path| {
            if path.is_dir() {
                Some(path.join("tool.json")).filter(|file| file.is_file())
            } else {
                (path.extension().is_some_and(|ext| ext == "json")).then_some(path)
            }
        })
        .collect();
    found.sort();
    found
}

fn parse(path: &Path, origin: Origin) -> Result<ToolDef, String> {
    // A project's .marvin/tools is confined like every file Marvin reads there.
    let (bytes, _) = crate::tools::kit::confined::read_own(path, 1 << 20)
        .map_err(|e| format!("cannot read it: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "cannot read it: not UTF-8".to_string())?;
    let spec: Spec =
        serde_json::from_str(&text).map_err(|e| format!("not a valid tool definition: {e}"))?;
    let name_ok = !spec.name.is_empty()
        && spec.name.len() <= 64
        && spec
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !name_ok {
        return Err(format!(
            "the name {:?} must be 1-64 letters, digits, _ or -",
            spec.name
        ));
    }
    if spec.description.trim().is_empty() {
        return Err("the description is empty: say what the tool does, for the model".into());
    }
    if spec.command.is_empty() || spec.command[0].trim().is_empty() {
        return Err("the command is empty: give the program and its arguments as a list".into());
    }
    let offered = match spec.category.as_deref() {
        None | Some("always") if origin == Origin::User => Offered::Everywhere,
        None | Some("always") | Some("coding") => Offered::Coding,
        Some(other) => return Err(format!("category {other:?} must be always or coding")),
    };
    let params = params(spec.parameters.as_ref())?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let example = example(&params).to_string();
    let name = spec.name.clone();
    let definition = Definition {
        name: spec.name,
        command: spec.command,
        dir,
        timeout: Duration::from_secs(spec.timeout.unwrap_or(60).clamp(1, 3600)),
        approval: spec.approval,
        origin,
        interactive: spec.interactive,
    };
    let handler =
        Box::new(move |args: Value, ctx: &super::ToolContext| run::call(&definition, args, ctx));
    Ok(ToolDef::build(name)
        .describe(spec.description)
        .offered(offered)
        .params(params)
        .example(example)
        .json_handler(handler))
}

/// The parameters of a JSON schema `{"type": "object", "properties": ..., "required": [...]}`.
fn params(schema: Option<&Value>) -> Result<Vec<Param>, String> {
    let Some(schema) = schema else {
        return Ok(Vec::new());
    };
    let properties = match schema.get("properties") {
        None => return Ok(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(_) => return Err("parameters.properties must be an object".into()),
    };
    let required = crate::tools::schema::required_names(schema);
    let mut list = Vec::new();
    for (name, property) in properties {
        let kind = kind_of(property).map_err(|e| format!("parameters.properties.{name}: {e}"))?;
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let required = required.contains(&name.as_str());
        list.push(Param::loaded(name.clone(), kind, required, description));
    }
    Ok(list)
}

fn kind_of(property: &Value) -> Result<Kind, String> {
    if let Some(options) = property.get("enum").and_then(Value::as_array) {
        let options = options
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        return Ok(Kind::Choice(Choices::Loaded(options)));
    }
    Ok(match property.get("type").and_then(Value::as_str) {
        Some("string") => Kind::String,
        Some("integer") => Kind::Integer,
        Some("number") => Kind::Number,
        Some("boolean") => Kind::Boolean,
        Some("array")
            if property.pointer("/items/type").and_then(Value::as_str) == Some("string") =>
        {
            Kind::StringList
        }
        Some("array" | "object") => Kind::Any(property.to_string().into()),
        Some(other) => return Err(format!("unknown type {other:?}")),
        None => return Err("missing \"type\"".into()),
    })
}

/// Example arguments for error messages, built from the parameters (a user's tool, an MCP
/// server's).
pub(crate) fn example(params: &[Param]) -> Value {
    let mut map = Map::new();
    for param in params.iter().filter(|p| p.required) {
        let value = match &param.kind {
            Kind::Integer | Kind::Number => Value::from(1),
            Kind::Boolean => Value::Bool(true),
            Kind::StringList => Value::from(vec!["..."]),
            Kind::Choice(options) => Value::from(options.iter().next().unwrap_or("")),
            Kind::ObjectList(_) | Kind::Any(_) => Value::Null,
            Kind::String => Value::from("..."),
        };
        map.insert(param.name.to_string(), value);
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    fn write(dir: &Path, path: &str, text: &str) {
        let full = dir.join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, text).unwrap();
    }

    #[test]
    fn discovery_loads_files_and_directories_and_reports_problems() {
        let home = TempDir::new("custom-discovery");
        let dir = home.path();
        write(
            dir,
            "weather.json",
            r#"{"name": "weather", "description": "Forecast", "command": ["./weather.sh"], "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "where"}, "days": {"type": "integer"}}, "required": ["city"]}}"#,
        );
        write(
            dir,
            "deploy/tool.json",
            r#"{"name": "deploy", "description": "Deploy", "command": ["python3", "deploy.py"], "category": "coding", "timeout": 5, "approval": "deploy:{env}", "parameters": {"type": "object", "properties": {"env": {"type": "string", "enum": ["staging", "prod"]}}}}"#,
        );
        write(dir, "notes-only/README.md", "not a tool");
        write(dir, "broken.json", r#"{"name": "broken", "command": []}"#);
        write(
            dir,
            "clash.json",
            r#"{"name": "read_file", "description": "x", "command": ["true"]}"#,
        );
        write(
            dir,
            "typo.json",
            r#"{"name": "typo", "description": "x", "command": ["true"], "colour": "red"}"#,
        );
        let mut registry = Registry::builtin();
        let (loaded, warnings) = load(&mut registry, &[(dir.to_path_buf(), Origin::User)]);
        let names: Vec<&str> = loaded.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["deploy", "weather"]);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(
            warnings[0]
                .contains("broken.json: not a valid tool definition: missing field `description`"),
            "{}",
            warnings[0]
        );
        assert!(
            warnings[1].contains("clash.json: the name read_file is already taken"),
            "{}",
            warnings[1]
        );
        assert!(
            warnings[2].contains("typo.json: not a valid tool definition: unknown field `colour`"),
            "{}",
            warnings[2]
        );
        let ctx = crate::tools::ToolContext::new(dir.to_path_buf());
        let defs = registry.definitions(&ctx).unwrap();
        let defs: Vec<serde_json::Value> = serde_json::from_str(defs.get()).unwrap();
        let weather = defs
            .iter()
            .find(|d| d["function"]["name"] == "weather")
            .unwrap();
        assert_eq!(
            weather["function"]["parameters"]["required"],
            serde_json::json!(["city"])
        );
        assert!(
            !defs.iter().any(|d| d["function"]["name"] == "deploy"),
            "coding tools are not offered outside coding mode"
        );
    }

    #[test]
    fn project_tools_are_coding_tools_and_bad_schemas_are_explained() {
        let home = TempDir::new("custom-project");
        write(
            home.path(),
            "lint.json",
            r#"{"name": "lint", "description": "Lint", "command": ["true"]}"#,
        );
        write(
            home.path(),
            "odd.json",
            r#"{"name": "odd", "description": "x", "command": ["true"], "parameters": {"properties": {"n": {"type": "decimal"}}}}"#,
        );
        let mut registry = Registry::default();
        let (loaded, warnings) = load(
            &mut registry,
            &[(home.path().to_path_buf(), Origin::Project)],
        );
        assert_eq!(loaded.len(), 1);
        assert!(
            warnings[0].contains("parameters.properties.n: unknown type \"decimal\""),
            "{warnings:?}"
        );
        let ctx = crate::tools::ToolContext::new(home.path().to_path_buf());
        assert!(registry.names(&ctx).is_empty());
        let coding = crate::tools::ToolContext {
            coding_mode: true,
            ..ctx
        };
        assert_eq!(registry.names(&coding), ["lint"]);
    }

    #[test]
    fn a_users_tool_owns_its_text_and_a_builtin_borrows_it() {
        use std::borrow::Cow;
        let home = TempDir::new("custom-owned");
        write(
            home.path(),
            "weather.json",
            r#"{"name": "weather", "description": "Forecast", "command": ["true"], "parameters": {"type": "object", "properties": {"unit": {"type": "string", "enum": ["c", "f"], "description": "which"}}, "required": ["unit"]}}"#,
        );
        let tool = parse(&home.path().join("weather.json"), Origin::User).unwrap();
        // Owned: dropping a registry of users' tools (reloading them) gives the text back.
        assert!(matches!(
            (&tool.name, &tool.description, &tool.example, &tool.params),
            (Cow::Owned(_), Cow::Owned(_), Cow::Owned(_), Cow::Owned(_))
        ));
        assert_eq!(tool.example, r#"{"unit":"c"}"#);
        let unit = &tool.params[0];
        assert!(matches!(
            (&unit.name, &unit.description),
            (Cow::Owned(_), Cow::Owned(_))
        ));
        assert_eq!(
            unit.kind,
            Kind::Choice(Choices::Loaded(vec!["c".into(), "f".into()]))
        );
        assert!(tool.check_example().is_ok());
        // find_tools's description carries the catalogue of families, made once per process.
        for builtin in crate::tools::builtin()
            .iter()
            .filter(|t| t.name != "find_tools")
        {
            assert!(
                matches!(
                    (&builtin.name, &builtin.description, &builtin.params),
                    (Cow::Borrowed(_), Cow::Borrowed(_), Cow::Borrowed(_))
                ),
                "{}",
                builtin.name
            );
        }
    }
}
