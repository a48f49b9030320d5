//! Declaring a tool in named steps that read top-down and cannot be swapped or skipped:
//!
//! ```text
//! ToolDef::build("create_file")
//!     .describe("Create a new file ...")
//!     .offered(Offered::Coding)
//!     .writes()
//!     .ticket_gated()
//!     .params(CREATE_PARAMS)
//!     .example(r#"{"path": "src/util.rs", "content": "..."}"#)
//!     .handler(create_file)
//! ```
//!
//! Each step returns the next stage, so a tool without a description, a place where it is
//! offered, an example or a handler does not compile. The handler's typed arguments are kept
//! beside it, so a test can prove that every example deserialises into them.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::ToolContext;
use super::schema::{self, Param, Text};

/// A tool's parameters: a constant list for a built-in tool, read at run time for a user's.
pub(super) type Params = Cow<'static, [Param]>;

/// Where a tool is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// In every mode.
    Everywhere,
    /// In coding mode only.
    Coding,
    /// In coding mode, and outside it when the working directory is a project: the tools
    /// that only read the project (its files, its code, its git history).
    Project,
}

impl Offered {
    /// The word for it in the golden list of tools.
    pub fn label(self) -> &'static str {
        match self {
            Offered::Everywhere => "everywhere",
            Offered::Coding => "coding",
            Offered::Project => "project",
        }
    }
}

pub type Handler = Box<dyn Fn(Value, &ToolContext) -> Result<String, String> + Send + Sync>;

/// Looks at the raw argument text before it is parsed as JSON; `Some` handles the call (the
/// Codex patch format arrives as plain text, not JSON).
pub type RawHandler = fn(&str, &ToolContext) -> Option<Result<String, String>>;

/// Whether validated arguments deserialise into a handler's typed arguments.
pub(super) type Fits = fn(Value) -> Result<(), String>;

/// One tool: what the model sees, where it is offered, and the code that runs.
pub struct ToolDef {
    pub name: Text,
    pub description: Text,
    pub offered: Offered,
    /// It changes files or the world, so a read-only agent is never offered it.
    pub writes: bool,
    /// Blocked until a ticket exists, where tickets are in use (see `coding::tickets`).
    pub ticket_gated: bool,
    pub params: Params,
    /// Fields no parameter names go to the handler as sent (an MCP tool whose schema allows
    /// them), not dropped.
    pub keeps_others: bool,
    /// Arguments of a typical call, shown in error messages as a usage example.
    pub example: Text,
    pub(super) handler: Handler,
    pub(super) raw: Option<RawHandler>,
    /// `None` for a user's own tool, whose handler takes the arguments as JSON.
    pub(super) fits: Option<Fits>,
    /// The family it belongs to (`weather`, `mcp:github`): what a request offers or leaves
    /// out together. Set when the registry takes it in (see [`ToolDef::in_family`]).
    pub family: Text,
}

impl ToolDef {
    /// Starts the declaration of the tool `name`.
    pub fn build(name: impl Into<Text>) -> Named {
        Named { name: name.into() }
    }

    /// The same tool, as a member of the family `family`.
    pub fn in_family(mut self, family: impl Into<Text>) -> Self {
        self.family = family.into();
        self
    }

    /// Whether `ctx` offers this tool: in its modes, and never to a read-only agent if it
    /// writes.
    pub(super) fn offered_in(&self, ctx: &ToolContext) -> bool {
        let mode = match self.offered {
            Offered::Everywhere => true,
            Offered::Coding => ctx.coding_mode,
            Offered::Project => ctx.coding_mode || ctx.in_project(),
        };
        mode && !(self.writes && ctx.readonly)
    }

    /// Checks the example: a JSON object that validates against the parameters, with no field
    /// they lack, and that deserialises into the handler's typed arguments.
    pub fn check_example(&self) -> Result<(), String> {
        let args: Map<String, Value> =
            serde_json::from_str(&self.example).map_err(|e| format!("not a JSON object: {e}"))?;
        let clean = schema::validate(&self.params, &args)
            .map_err(|problems| format!("does not validate: {}", problems.join("; ")))?;
        if clean.len() != args.len() {
            return Err("has fields the parameters lack".into());
        }
        match self.fits {
            Some(fits) => fits(Value::Object(clean))
                .map_err(|e| format!("does not fit the handler's arguments: {e}")),
            None => Ok(()),
        }
    }
}

/// A tool with a name; next, what it is for.
pub struct Named {
    name: Text,
}

impl Named {
    /// What the tool is for, in one or two sentences the model acts on.
    pub fn describe(self, description: impl Into<Text>) -> Described {
        Described {
            name: self.name,
            description: description.into(),
        }
    }
}

/// A tool with a description; next, where it is offered.
pub struct Described {
    name: Text,
    description: Text,
}

impl Described {
    pub fn offered(self, offered: Offered) -> Draft {
        Draft {
            name: self.name,
            description: self.description,
            offered,
            writes: false,
            ticket_gated: false,
            params: Cow::Borrowed(&[]),
            keeps_others: false,
            raw: None,
        }
    }
}

/// A tool being declared: optional steps, then its example.
pub struct Draft {
    name: Text,
    description: Text,
    offered: Offered,
    writes: bool,
    ticket_gated: bool,
    params: Params,
    keeps_others: bool,
    raw: Option<RawHandler>,
}

impl Draft {
    /// The tool changes files or the world: a read-only agent is never offered it.
    pub fn writes(mut self) -> Self {
        self.writes = true;
        self
    }

    /// The tool needs a ticket first, where tickets are in use.
    pub fn ticket_gated(mut self) -> Self {
        self.ticket_gated = true;
        self
    }

    /// Its parameters (none when this step is left out).
    pub fn params(mut self, params: impl Into<Params>) -> Self {
        self.params = params.into();
        self
    }

    /// Fields its parameters do not name reach the handler as sent (the schema allows them).
    pub fn keeps_others(mut self, keeps: bool) -> Self {
        self.keeps_others = keeps;
        self
    }

    /// A hook that sees the raw arguments first.
    pub fn raw(mut self, raw: RawHandler) -> Self {
        self.raw = Some(raw);
        self
    }

    /// The arguments of a typical call; last comes the handler.
    pub fn example(self, example: impl Into<Text>) -> Exemplified {
        Exemplified {
            draft: self,
            example: example.into(),
        }
    }
}

/// A tool declared but for its handler.
pub struct Exemplified {
    draft: Draft,
    example: Text,
}

impl Exemplified {
    /// The handler, which takes typed arguments `A`, deserialised after validation.
    pub fn handler<A: DeserializeOwned + 'static>(
        self,
        handler: fn(A, &ToolContext) -> Result<String, String>,
    ) -> ToolDef {
        let wrapped = move |args: Value, ctx: &ToolContext| {
            let typed: A = typed(args).map_err(not_fitting)?;
            handler(typed, ctx)
        };
        self.finish(Box::new(wrapped), Some(fits::<A>))
    }

    /// The handler of a tool defined at run time (a user's own tool), which takes the
    /// validated arguments as JSON.
    pub fn json_handler(self, handler: Handler) -> ToolDef {
        self.finish(handler, None)
    }

    fn finish(self, handler: Handler, fits: Option<Fits>) -> ToolDef {
        let draft = self.draft;
        ToolDef {
            name: draft.name,
            description: draft.description,
            offered: draft.offered,
            writes: draft.writes,
            ticket_gated: draft.ticket_gated,
            params: draft.params,
            keeps_others: draft.keeps_others,
            example: self.example,
            handler,
            raw: draft.raw,
            fits,
            family: Text::Borrowed(""),
        }
    }
}

fn fits<A: DeserializeOwned>(args: Value) -> Result<(), String> {
    typed::<A>(args).map(drop).map_err(|e| e.to_string())
}

/// The arguments as the handler's type. They are always a JSON object (the registry validates
/// them against the parameters first), so they are read as one: `serde_json::from_value` would
/// also compile, for every tool's type, the reading of an array into it (its fields in order),
/// which no call uses. That, and the error's wording made once instead of once a type, took
/// 147 KB off the release binary (107 built-in tools).
fn typed<A: DeserializeOwned>(args: Value) -> Result<A, serde_json::Error> {
    A::deserialize(object(args)?)
}

fn object(args: Value) -> Result<Map<String, Value>, serde_json::Error> {
    match args {
        Value::Object(map) => Ok(map),
        _ => Err(serde::de::Error::custom(
            "the arguments are not a JSON object",
        )),
    }
}

fn not_fitting(error: serde_json::Error) -> String {
    format!("arguments do not fit: {error}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::schema::Kind;
    use serde::Deserialize;

    const PARAMS: &[Param] = &[
        Param::required("text", Kind::String, "what to say"),
        Param::optional("times", Kind::Integer, "how often"),
    ];

    #[derive(Deserialize)]
    struct Args {
        text: String,
    }

    /// Arguments that disagree with PARAMS: the schema says text is a string.
    #[derive(Deserialize)]
    struct Drifted {
        text: u32,
    }

    fn ok(args: Args, _: &ToolContext) -> Result<String, String> {
        Ok(args.text)
    }

    fn drifted(args: Drifted, _: &ToolContext) -> Result<String, String> {
        Ok(args.text.to_string())
    }

    fn declared(example: &'static str) -> Exemplified {
        ToolDef::build("say")
            .describe("Say it.")
            .offered(Offered::Everywhere)
            .params(PARAMS)
            .example(example)
    }

    #[test]
    fn examples_are_checked_against_the_schema_and_the_typed_arguments() {
        let cases: &[(&str, bool, Result<(), &str>)] = &[
            (r#"{"text": "hi", "times": 2}"#, true, Ok(())),
            (
                r#"{"times": 2}"#,
                true,
                Err("does not validate: text: missing"),
            ),
            (
                r#"{"text": "hi", "loud": true}"#,
                true,
                Err("has fields the parameters lack"),
            ),
            (r#"["hi"]"#, true, Err("not a JSON object")),
            (
                r#"{"text": "hi"}"#,
                false,
                Err("does not fit the handler's arguments: invalid type"),
            ),
        ];
        for (example, typed_ok, expected) in cases {
            let tool = if *typed_ok {
                declared(example).handler(ok)
            } else {
                declared(example).handler(drifted)
            };
            match (tool.check_example(), expected) {
                (Ok(()), Ok(())) => {}
                (Err(error), Err(start)) => assert!(error.starts_with(start), "{example}: {error}"),
                (got, _) => panic!("{example}: {got:?}"),
            }
        }
    }

    #[test]
    fn handlers_read_their_arguments_from_an_object_and_nothing_else() {
        let ctx = ToolContext::new("/".into());
        let tool = declared(r#"{"text": "hi"}"#).handler(ok);
        let call = |args: Value| (tool.handler)(args, &ctx);
        assert_eq!(
            call(serde_json::json!({"text": "hi", "times": 2})),
            Ok("hi".into())
        );
        let missing = call(serde_json::json!({"times": 2})).unwrap_err();
        assert_eq!(missing, "arguments do not fit: missing field `text`");
        // from_value would have read an array as the fields in order; no call sends one.
        let array = call(serde_json::json!(["hi"])).unwrap_err();
        assert_eq!(
            array,
            "arguments do not fit: the arguments are not a JSON object"
        );
    }

    #[test]
    fn the_two_axes_decide_where_a_tool_is_offered() {
        let ctx = |coding_mode, readonly| ToolContext {
            coding_mode,
            readonly,
            ..ToolContext::new("/".into())
        };
        let modes = [
            ctx(false, false),
            ctx(true, false),
            ctx(false, true),
            ctx(true, true),
        ];
        // Today's four kinds: always, coding, write (coding), write anywhere (notes).
        let cases = [
            (Offered::Everywhere, false, [true, true, true, true]),
            (Offered::Coding, false, [false, true, false, true]),
            (Offered::Coding, true, [false, true, false, false]),
            (Offered::Everywhere, true, [true, true, false, false]),
        ];
        for (offered, writes, expected) in cases {
            let mut draft = ToolDef::build("t").describe("T.").offered(offered);
            if writes {
                draft = draft.writes();
            }
            let tool = draft.example("{}").handler(ok);
            let got: Vec<bool> = modes.iter().map(|m| tool.offered_in(m)).collect();
            assert_eq!(got, expected, "{offered:?} writes={writes}");
        }
    }
}
