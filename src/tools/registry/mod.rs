//! The tool registry: one definition per tool, which tools a mode offers, and `execute`, which
//! turns every failure (unknown tool, bad JSON, wrong types, handler errors, panics) into a
//! sentence the model can act on. It never panics and never fails the loop.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use std::sync::Arc;

use super::ToolContext;
use super::coding::tickets;
use super::declare::ToolDef;
use super::mcp::Hub;
use super::schema;
use crate::edit_distance::edit_distance;
use crate::message::ToolCall;

mod offered;

#[cfg(test)]
pub(crate) use offered::find_tools as find_tools_declaration;

/// One tool as an OpenAI function definition; keys in the order a `json!` map would have them,
/// so the requests are the same bytes as before.
struct Definition<'a> {
    tool: &'a ToolDef,
    /// What the model reads of it, when not the declaration's own description (`find_tools`
    /// lists the families of the request's mode).
    description: Option<&'a str>,
}

impl Serialize for Definition<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Function<'a>(&'a Definition<'a>);
        impl Serialize for Function<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let tool = self.0.tool;
                let description = self.0.description.unwrap_or(&tool.description);
                let mut map = serializer.serialize_map(Some(3))?;
                map.serialize_entry("description", description)?;
                map.serialize_entry("name", &tool.name)?;
                map.serialize_entry("parameters", &schema::Schema(&tool.params))?;
                map.end()
            }
        }
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("function", &Function(self))?;
        map.serialize_entry("type", "function")?;
        map.end()
    }
}

/// What a call produced: the text for the model, and whether it is an error.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    pub content: String,
    pub is_error: bool,
    /// The ticket gate turned the call back (seed 002 invariant 21): a step the work goes
    /// through, which a front-end shows quietly rather than as a failure.
    pub turned_back: bool,
}

impl ToolOutcome {
    fn error(content: String) -> Self {
        Self {
            content,
            is_error: true,
            turned_back: false,
        }
    }
}

#[derive(Default)]
pub struct Registry {
    tools: Vec<ToolDef>,
    /// The MCP servers of the run, whose tools join as the servers become ready.
    mcp: Option<Arc<Hub>>,
    /// The families of `tools`, in their order: the built-in ones and the user's own tools.
    families: Vec<FamilyInfo>,
}

/// A family as the router and the catalogue see it.
#[derive(Debug, Clone)]
struct FamilyInfo {
    id: String,
    about: String,
    words: Vec<String>,
    /// Requests that ask for it (see `Family::asks`).
    asks: Vec<String>,
}

impl Registry {
    /// All built-in tools (see `tools::builtin`), each in its family, and `find_tools`, which
    /// loads the others into a session's requests.
    pub fn builtin() -> Self {
        let mut registry = Self::default();
        for (family, tools) in super::families() {
            registry.families.push(FamilyInfo {
                id: family.id.to_string(),
                about: family.about.to_string(),
                words: family.words.iter().map(|w| w.to_string()).collect(),
                asks: family.asks.iter().map(|a| a.to_string()).collect(),
            });
            for tool in tools {
                registry.add(tool.in_family(family.id));
            }
        }
        let find = offered::find_tools(&registry.catalogue());
        registry.add(find);
        registry
    }

    /// Whether a tool of this name exists.
    pub fn has(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// Adds a tool. A second tool of the same name is a programming error. A tool of no
    /// family (a user's own) is a family of its own, asked for by the words of its name.
    pub fn add(&mut self, mut tool: ToolDef) {
        assert!(
            self.find(&tool.name).is_none(),
            "tool {} registered twice",
            tool.name
        );
        if tool.family.is_empty() {
            let info = offered::own_family(&tool);
            tool.family = info.id.clone().into();
            self.families.push(info);
        }
        self.tools.push(tool);
    }

    fn find(&self, name: &str) -> Option<&ToolDef> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Offers the tools of the run's MCP servers too.
    pub fn set_mcp(&mut self, hub: Arc<Hub>) {
        self.mcp = Some(hub);
    }

    /// The run's MCP servers, for `/mcp` and the start of a turn.
    pub fn mcp(&self) -> Option<&Arc<Hub>> {
        self.mcp.as_ref()
    }

    /// The tool `name`: a built-in (or a user's) one first, else one of `remote`, the MCP
    /// servers' tools of this moment.
    fn lookup<'a>(&'a self, name: &str, remote: &'a [ToolDef]) -> Option<&'a ToolDef> {
        self.find(name)
            .or_else(|| remote.iter().find(|t| t.name == name))
    }

    /// The tools the MCP servers offer now (none without servers).
    fn mcp_tools(&self) -> Arc<Vec<ToolDef>> {
        self.mcp.as_ref().map(|hub| hub.tools()).unwrap_or_default()
    }

    /// The names of the tools `ctx`'s next request offers.
    pub fn names(&self, ctx: &ToolContext) -> Vec<String> {
        let remote = self.mcp_tools();
        self.offered(ctx, &remote)
            .iter()
            .map(|t| t.name.to_string())
            .collect()
    }

    /// The OpenAI function definitions of the tools `ctx`'s next request offers, as one JSON
    /// array written straight from the declarations (no tree of values: with a hundred and
    /// more tools that tree was the biggest thing a short run held); `None` when no tool is
    /// offered.
    pub fn definitions(&self, ctx: &ToolContext) -> Option<Box<RawValue>> {
        let remote = self.mcp_tools();
        let find_tools = ctx
            .settings
            .on_demand
            .then(|| offered::find_tools_description(&self.catalogue_for(ctx, &remote)));
        let offered: Vec<Definition<'_>> = self
            .offered(ctx, &remote)
            .into_iter()
            .map(|tool| Definition {
                tool,
                description: find_tools
                    .as_deref()
                    .filter(|_| tool.name == offered::FIND_TOOLS),
            })
            .collect();
        if offered.is_empty() {
            return None;
        }
        // Declarations are strings and numbers: writing them out cannot fail.
        serde_json::value::to_raw_value(&offered).ok()
    }

    /// Every tool `ctx`'s mode allows, offered in this request or not: a built-in (or a
    /// user's) one, then the MCP servers' of this moment.
    fn allowed<'a>(&'a self, ctx: &ToolContext, remote: &'a [ToolDef]) -> Vec<&'a ToolDef> {
        self.tools
            .iter()
            .chain(remote.iter().filter(|t| self.find(&t.name).is_none()))
            .filter(|t| t.offered_in(ctx))
            .collect()
    }

    /// Runs one call. Always returns a result for the model, with any notes the call left
    /// (see `CallNotes`) on lines of their own at the end.
    pub fn execute(&self, call: &ToolCall, ctx: &ToolContext) -> ToolOutcome {
        let ctx = &ctx.for_call(&call.id, &call.function.name);
        let mut outcome = self.run(call, ctx);
        outcome.turned_back |= tickets::turned_back(ctx);
        if outcome.is_error {
            self.offer_named(&outcome.content, ctx);
        }
        for note in ctx.shared.notes.take(&ctx.call_id) {
            self.offer_named(&note, ctx);
            outcome.content.push('\n');
            outcome.content.push_str(&note);
        }
        outcome
    }

    fn run(&self, call: &ToolCall, ctx: &ToolContext) -> ToolOutcome {
        let name = call.function.name.as_str();
        let remote = self.mcp_tools();
        let Some(tool) = self.lookup(name, &remote).filter(|t| t.offered_in(ctx)) else {
            return ToolOutcome::error(self.unavailable(name, ctx));
        };
        if name == offered::FIND_TOOLS {
            return self.find_tools_call(&call.function.arguments, ctx);
        }
        // A tool the model knew of without this request offering it runs all the same, and
        // its family is offered from now on.
        if ctx.settings.on_demand && tool.family != "core" {
            ctx.shared
                .offer
                .load(offered::family_of(tool, ctx), &format!("{name} was called"));
        }
        if tool.ticket_gated {
            if let Err(message) = tickets::check_gate(ctx) {
                return ToolOutcome {
                    turned_back: true,
                    ..ToolOutcome::error(format!("Error: {message}"))
                };
            }
        }
        if let Some(raw) = tool.raw {
            match run_guarded(|| raw(&call.function.arguments, ctx)) {
                Ok(None) => {}
                Ok(Some(result)) => return outcome(result),
                Err(panic) => {
                    return ToolOutcome::error(format!("Error executing '{name}': {panic}"));
                }
            }
        }
        let args = match parse_arguments(tool, &call.function.arguments) {
            Ok(args) => args,
            Err(message) => return ToolOutcome::error(message),
        };
        let checked = match tool.keeps_others {
            true => schema::validate_keeping_others(&tool.params, &args),
            false => schema::validate(&tool.params, &args),
        };
        let args = match checked {
            Ok(args) => Value::Object(args),
            Err(problems) => return ToolOutcome::error(invalid(tool, &problems)),
        };
        match run_guarded(|| (tool.handler)(args, ctx)) {
            Ok(result) => outcome(result),
            Err(panic) => ToolOutcome::error(format!("Error executing '{name}': {panic}")),
        }
    }

    fn unavailable(&self, name: &str, ctx: &ToolContext) -> String {
        let names = self.names(ctx);
        let offered: Vec<&str> = names.iter().map(String::as_str).collect();
        let remote = self.mcp_tools();
        if let Some(tool) = self.lookup(name, &remote) {
            let why = if tool.writes && ctx.readonly {
                "it writes, and this agent is read-only"
            } else if tool.offered == crate::tools::Offered::Project {
                "it reads a project, and the working directory is not one (no git work tree or build file); the person can change to the project's directory or turn coding mode on (--code, or !code in the REPL)"
            } else {
                "it changes files or runs commands, which only coding mode does; the person can turn it on (--code, or !code in the REPL)"
            };
            return format!(
                "Error: Tool '{name}' is not available here: {why}. Available: {}",
                offered.join(", ")
            );
        }
        let allowed: Vec<String> = self
            .allowed(ctx, &remote)
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
        let hint = did_you_mean(name, &allowed)
            .map(|best| format!(" Did you mean '{best}'?"))
            .unwrap_or_default();
        let more = match ctx.settings.on_demand {
            true => format!(" ({} finds and loads the others)", offered::FIND_TOOLS),
            false => String::new(),
        };
        format!(
            "Error: Unknown tool '{name}'.{hint} Available: {}{more}",
            offered.join(", ")
        )
    }
}

thread_local! {
    /// Set while a handler runs, so the panic hook stays quiet for panics that become tool
    /// errors. Safe for several sessions in one process: a handler runs on one thread from
    /// start to end (the turn's worker, or a scoped thread of its own for a parallel call),
    /// and the flag is that thread's alone, so a tool of one session never silences a real
    /// crash of another, nor the reverse.
    static IN_TOOL: Cell<bool> = const { Cell::new(false) };
}

/// Keeps the default panic message for real crashes but not for tool panics, which are
/// reported to the model instead of scribbled over the user's terminal. The hook belongs to
/// the process: installing it again (another session, another test) changes nothing.
pub fn install_panic_hook() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !IN_TOOL.with(Cell::get) {
                default(info);
            }
        }));
    });
}

fn outcome(result: Result<String, String>) -> ToolOutcome {
    match result {
        Ok(content) => ToolOutcome {
            content,
            is_error: false,
            turned_back: false,
        },
        Err(message) => ToolOutcome::error(format!("Error: {message}")),
    }
}

/// Runs tool code, turning a panic into its message.
fn run_guarded<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    // Restored rather than cleared, so tool code run inside tool code stays guarded.
    let outer = IN_TOOL.with(|flag| flag.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(work));
    IN_TOOL.with(|flag| flag.set(outer));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the tool crashed".to_string())
    })
}

/// The arguments as an object. Empty text means no arguments; a JSON string holding JSON (a
/// double-encoded object) is decoded twice.
/// A call's usage example, as error messages show it: `name({"arg": ...})`.
fn usage(tool: &ToolDef) -> String {
    format!("{}({})", tool.name, tool.example)
}

fn parse_arguments(tool: &ToolDef, raw: &str) -> Result<Map<String, Value>, String> {
    if raw.trim().is_empty() {
        return Ok(Map::new());
    }
    let mut value: Value = serde_json::from_str(raw).map_err(|e| {
        let received: String = raw.chars().take(200).collect();
        format!(
            "Error: Invalid JSON in the arguments for '{}' ({e}). Send one JSON object, e.g. {}\nParameters:\n{}\nReceived: {received}",
            tool.name,
            usage(tool),
            schema::describe(&tool.params)
        )
    })?;
    if let Value::String(inner) = &value {
        if let Ok(decoded) = serde_json::from_str(inner) {
            value = decoded;
        }
    }
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        _ => Err(format!(
            "Error: The arguments for '{}' must be a JSON object, e.g. {}\nParameters:\n{}",
            tool.name,
            usage(tool),
            schema::describe(&tool.params)
        )),
    }
}

fn invalid(tool: &ToolDef, problems: &[String]) -> String {
    let list: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
    format!(
        "Error: Invalid arguments for '{}':\n{}\nUsage: {}\nParameters:\n{}",
        tool.name,
        list.join("\n"),
        usage(tool),
        schema::describe(&tool.params)
    )
}

/// The closest offered name: same words in another order, or a small edit distance.
fn did_you_mean<'a>(name: &str, offered: &[&'a str]) -> Option<&'a str> {
    let words = |s: &str| {
        let mut w: Vec<String> = s.split(['_', '-']).map(str::to_lowercase).collect();
        w.sort();
        w
    };
    let name = name.to_lowercase();
    let name_words = words(&name);
    if let Some(same) = offered.iter().find(|o| words(o) == name_words) {
        return Some(same);
    }
    let most = |o: &str| (o.len() / 3).max(2);
    let length = name.chars().count();
    offered
        .iter()
        // No fewer edits than the lengths differ by: a name far longer than a tool's is not
        // near it, and its table of edits (minutes for a name of megabytes) is not worked out.
        .filter(|o| length.abs_diff(o.chars().count()) <= most(o))
        .map(|o| (edit_distance(&name, o), *o))
        .filter(|(distance, o)| *distance <= most(o))
        .min()
        .map(|(_, o)| o)
}

#[cfg(test)]
mod built_tests;
#[cfg(test)]
mod recall_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod way_out_tests;
