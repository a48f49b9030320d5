//! The client side of the MCP conformance suite's client scenarios (tests only, through
//! `examples/mcp_conformance_client.rs`): Marvin's own MCP client (`Server`: the handshake in
//! its era, the tools, a call and its elicitation) reaches the scenario's server and does what
//! the scenario asks. An elicitation is answered by a person who takes the form as Marvin
//! shows it, the server's defaults filled in. In the `auth/` scenarios the client signs in as
//! Marvin does, its "browser" a program that opens the authorization address and follows the
//! suite's automatic redirect back to the sign-in's callback; a client the scenario registered
//! beforehand (MCP_CONFORMANCE_CONTEXT) is the one mcp.json would declare.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::oauth::SignIn;
use super::server::{Server, State};
use crate::config::{Declared, FormSurface, McpOrigin, McpServer, McpTransport, OAuthClient};
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

/// The tool every `auth/` scenario's server offers.
const AUTH_CALL: (&str, &str) = ("test-tool", "{}");

/// Connects to `url` and plays `scenario`: what the server said (its name, or the call's
/// result), or why it failed.
pub fn run(url: &str, scenario: &str) -> Result<String, String> {
    let call = match SCENARIOS.iter().find(|(name, _)| *name == scenario) {
        Some((_, call)) => *call,
        None if scenario.starts_with("auth/") => Some(AUTH_CALL),
        None => return Err(format!("no client steps for the scenario {scenario:?}")),
    };
    let profile = std::env::temp_dir().join(format!(
        "marvin-conformance-{}",
        crate::secret::random_hex(8).map_err(|e| e.to_string())?
    ));
    let outcome = play(url, call, &profile);
    let _ = std::fs::remove_dir_all(&profile);
    outcome
}

fn play(
    url: &str,
    call: Option<(&str, &str)>,
    profile: &std::path::Path,
) -> Result<String, String> {
    let mut config = declared("conformance", url);
    config.oauth_client = context_client().or_else(|| {
        Some(OAuthClient {
            id: SUITE_CLIENT_METADATA.to_string(),
            secret: None,
            key: None,
            issuer: None,
        })
    });
    let sign_in = SignIn {
        name: config.name.clone(),
        profile: profile.to_path_buf(),
        client: config.oauth_client.clone(),
        visit: Some(Arc::new(follow_redirect)),
    };
    let server = Server::new(
        config,
        std::env::temp_dir(),
        crate::sandbox::Policy::default(),
        Duration::from_secs(20),
        State::Starting,
        Some(sign_in),
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

/// Server `name` at `url` as a user's mcp.json would declare it, without headers.
pub(crate) fn declared(name: &str, url: &str) -> McpServer {
    McpServer {
        name: name.into(),
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
        oauth_client: None,
    }
}

/// The address of the client metadata document the suite's scenarios take as the client's
/// (SEP-991): as a person who publishes one declares its address as the client id. A server
/// that takes no such documents never sees it (the client registers instead).
const SUITE_CLIENT_METADATA: &str = "https://conformance-test.local/client-metadata.json";

/// The client a scenario registered beforehand, from MCP_CONFORMANCE_CONTEXT's `client_id`,
/// `client_secret` and `private_key_pem`.
fn context_client() -> Option<OAuthClient> {
    let context: Value =
        serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT").ok()?).ok()?;
    let text = |name: &str| context[name].as_str().map(str::to_string);
    Some(OAuthClient {
        id: text("client_id")?,
        secret: text("client_secret"),
        key: text("private_key_pem"),
        issuer: None,
    })
}

/// The browser of the auth scenarios: it opens `address`, whose server signs the user in at
/// once and redirects, and follows that redirect to the sign-in's callback.
pub(crate) fn follow_redirect(address: &str, _port: u16) -> Result<(), String> {
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .new_agent();
    let answer = agent.get(address).call().map_err(|e| e.to_string())?;
    let location = crate::net::header(&answer, "location").ok_or_else(|| {
        format!(
            "the authorization server answered {} without a redirect",
            answer.status()
        )
    })?;
    let back = agent.get(&location).call().map_err(|e| e.to_string())?;
    match back.status().is_success() {
        true => Ok(()),
        false => Err(format!("the callback answered {}", back.status())),
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
