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
use crate::interact::form::answers::{Reply, ReplyValue};
use crate::interact::form::draft::Entry;
use crate::interact::form::questions::FormQuestion;
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

/// A person who answers a form as it is shown: each question with what is filled in.
struct TakesTheDefaults;

impl Interactor for TakesTheDefaults {
    fn ask(&self, prompt: &Prompt) -> Result<Response, Unavailable> {
        let Request::Form(notice) = &prompt.request else {
            return Err(Unavailable::NoUi);
        };
        let Some(form) = &notice.terminal else {
            return Err(Unavailable::NoUi);
        };
        let replies = form.questions.iter().filter_map(|question| {
            let value = shown(question, form.draft.entry(&question.id))?;
            Some(Reply {
                id: question.id.clone(),
                value,
                attachments: Vec::new(),
            })
        });
        Ok(Response::FormAnswers(replies.collect()))
    }

    fn defer(&self, _prompt: Prompt, _render: FollowUp) {}
}

/// What the terminal shows `question` answered with, as Enter takes it: the draft's entry
/// (a text field's default), else the recommended options it starts with chosen.
fn shown(question: &FormQuestion, kept: Option<Entry>) -> Option<ReplyValue> {
    match kept {
        Some(Entry::Text(text)) => Some(ReplyValue::One(text)),
        Some(Entry::Choice { picks, .. }) => Some(ReplyValue::Many(picks)),
        Some(Entry::Paths(_)) => None,
        None if question.preselect() && !question.recommended.is_empty() => {
            Some(ReplyValue::Many(question.recommended.clone()))
        }
        None => None,
    }
}
