//! The client side of the MCP conformance suite's client scenarios (tests only, through
//! `examples/mcp_conformance_client.rs`): Marvin's own MCP client (`Server`: the handshake in
//! its era, the tools, a call and its elicitation) reaches the scenario's server and does what
//! the scenario asks. An elicitation is answered by a person who takes the form as Marvin
//! shows it, the server's defaults filled in.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::server::{Server, State};
use crate::config::{Declared, FormSurface, McpOrigin, McpServer, McpTransport};
use crate::interact::{FollowUp, Interactor, Prompt, Request, Response, Unavailable};
use crate::tools::ToolContext;

/// Each scenario of the suite that needs no OAuth: the tool it has the client call, with its
/// arguments (`None`: connecting is the whole scenario).
const SCENARIOS: &[(&str, Option<(&str, &str)>)] = &[
    ("initialize", None),
    ("tools_call", Some(("add_numbers", r#"{"a": 5, "b": 3}"#))),
    (
        "elicitation-sep1034-client-defaults",
        Some(("test_client_elicitation_defaults", "{}")),
    ),
    ("sse-retry", Some(("test_reconnection", "{}"))),
];

/// Connects to `url` and plays `scenario`: what the server said (its name, or the call's
/// result), or why it failed.
pub fn run(url: &str, scenario: &str) -> Result<String, String> {
    let Some((_, call)) = SCENARIOS.iter().find(|(name, _)| *name == scenario) else {
        return Err(format!("no client steps for the scenario {scenario:?}"));
    };
    let server = Server::new(
        declared(url),
        std::env::temp_dir(),
        crate::sandbox::Policy::default(),
        Duration::from_secs(20),
        State::Starting,
    );
    server.start();
    if let State::Failed(why) = server.state() {
        return Err(why);
    }
    let outcome = match call {
        None => Ok(server.info()),
        Some((tool, arguments)) => {
            let arguments: Value = serde_json::from_str(arguments).unwrap_or(json!({}));
            server.call(tool, arguments, &context())
        }
    };
    server.stop();
    outcome
}

/// `url` as a user's mcp.json would declare it, without headers.
fn declared(url: &str) -> McpServer {
    McpServer {
        name: "conformance".into(),
        transport: McpTransport::Http {
            url: url.to_string(),
            headers: BTreeMap::new(),
            proxy: None,
        },
        declared: Declared::Http {
            url: url.to_string(),
            headers: BTreeMap::new(),
        },
        origin: McpOrigin::User,
        source: PathBuf::from("mcp.json"),
    }
}

/// A context with a person to ask, and no browser: the form is asked in the terminal.
fn context() -> ToolContext {
    let mut ctx = ToolContext::new(std::env::temp_dir());
    let mut settings = (*ctx.settings).clone();
    settings.form_surface = FormSurface {
        why_not: Some("the conformance client opens no browser".into()),
        ..FormSurface::default()
    };
    ctx.settings = Arc::new(settings);
    ctx.non_interactive = false;
    ctx.interactor = Some(Arc::new(TakesTheDefaults));
    ctx
}

/// A person who answers a form as it is shown: each field with what is filled in (the
/// server's default), submitted as every surface submits it.
struct TakesTheDefaults;

impl Interactor for TakesTheDefaults {
    fn ask(&self, prompt: &Prompt) -> Result<Response, Unavailable> {
        let Request::Input(form) = &prompt.request else {
            return Err(Unavailable::NoUi);
        };
        let shown: serde_json::Map<String, Value> = form
            .fields
            .iter()
            .filter_map(|field| Some((field.key.clone(), field.default()?.clone())))
            .collect();
        match form.check(&Value::Object(shown)) {
            Ok(input) => Ok(Response::Submitted(input)),
            Err(_) => Ok(Response::Dismissed),
        }
    }

    fn defer(&self, _prompt: Prompt, _render: FollowUp) {}
}
