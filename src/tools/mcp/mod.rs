//! Tools from Model Context Protocol servers: the servers of `mcp.json` (config::mcp) started
//! in parallel, each on its own threads, their tools offered to the model as
//! `server__tool` beside the built-in ones once the server is ready (a slow server never
//! delays the prompt; a non-interactive run waits for it so its first request offers them),
//! and a project's servers started only once the person approved their command.

#[cfg(feature = "test-support")]
pub mod conformance;
mod connection;
mod elicit;
mod era;
mod http;
pub mod oauth;
mod order;
#[cfg(test)]
mod props;
mod rpc;
mod server;
mod stdio;
pub(crate) mod tools;

use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use server::Server;
pub use server::State;

use crate::config::{Declared, McpOrigin, McpServer, McpSettings};
use crate::interact::approvals::{Action, ActionKind, visible};
use crate::tools::{Offered, ToolContext, ToolDef};

/// The servers of a run and the tools they offer now.
pub struct Hub {
    servers: Vec<Arc<Server>>,
    offered: RwLock<Arc<Vec<ToolDef>>>,
}

impl Hub {
    /// Starts every declared server that needs no approval, each on a thread of its own; a
    /// project's servers wait for [`Hub::prepare`].
    pub fn start(
        settings: &McpSettings,
        working_dir: &Path,
        sandbox: &crate::sandbox::Policy,
    ) -> Arc<Hub> {
        let hub = Arc::new(Hub {
            servers: settings
                .servers
                .iter()
                .map(|config| {
                    let state = match config.origin {
                        McpOrigin::Project => State::NeedsApproval,
                        _ => State::Starting,
                    };
                    let sign_in = settings.sign_ins.clone().map(|profile| oauth::SignIn {
                        name: config.name.clone(),
                        profile,
                        client: config.oauth_client.clone(),
                        visit: None,
                    });
                    Arc::new(Server::new(
                        config.clone(),
                        working_dir.to_path_buf(),
                        sandbox.clone(),
                        settings.timeout,
                        state,
                        sign_in,
                    ))
                })
                .collect(),
            offered: RwLock::new(Arc::new(Vec::new())),
        });
        for server in &hub.servers {
            if server.state() == State::Starting {
                hub.start_in_background(server.clone());
            }
        }
        hub
    }

    fn start_in_background(self: &Arc<Self>, server: Arc<Server>) {
        server.set_state(State::Starting);
        let (hub, target) = (self.clone(), server.clone());
        let started = std::thread::Builder::new()
            .name(format!("mcp-{}", server.config.name))
            .spawn(move || {
                target.start();
                hub.rebuild();
            });
        if let Err(error) = started {
            server.set_state(State::Failed(format!("no thread to start it on ({error})")));
        }
    }

    /// The tools the ready servers offer now. A server that said its tools changed is read
    /// again in the background (never on the caller's thread, which may be the prompt's);
    /// its new tools are offered from the next request on.
    pub fn tools(self: &Arc<Self>) -> Arc<Vec<ToolDef>> {
        let changed: Vec<Arc<Server>> = self
            .servers
            .iter()
            .filter(|s| s.tools_changed())
            .cloned()
            .collect();
        if !changed.is_empty() {
            let hub = self.clone();
            let _ = std::thread::Builder::new()
                .name("mcp-tools".into())
                .spawn(move || {
                    for server in changed {
                        server.refresh_tools();
                    }
                    hub.rebuild();
                });
        }
        self.offered
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Makes the tool definitions of every ready server again.
    fn rebuild(&self) {
        let mut defs = Vec::new();
        for server in self.servers.iter().filter(|s| s.state() == State::Ready) {
            for remote in server.tools() {
                let name = tools::exposed_name(&server.config.name, &remote.name);
                if defs.iter().any(|d: &ToolDef| d.name == name) {
                    continue;
                }
                let params = tools::params(&remote.input_schema);
                let example = tools::example(&params);
                let description = tools::description(&server.config.name, &remote);
                let (server, tool) = (server.clone(), remote.name.clone());
                let draft = ToolDef::build(name)
                    .describe(description)
                    .offered(Offered::Everywhere);
                let draft = match remote.read_only {
                    true => draft,
                    false => draft.writes(),
                };
                let family = format!("mcp:{}", server.config.name);
                let others = tools::allows_others(&remote.input_schema);
                let draft = draft.params(params).keeps_others(others);
                let def = draft.example(example).json_handler(Box::new(
                    move |args, ctx: &ToolContext| server.call(&tool, args, ctx),
                ));
                defs.push(def.in_family(family));
            }
        }
        *self.offered.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(defs);
    }

    /// Before a turn: asks about a project's servers not yet approved (their command, once;
    /// remembered per project like other approvals), and in a run nobody watches, waits for
    /// the servers still starting (at most the MCP timeout) so the first request offers their
    /// tools. Lines for the person go to the session's warnings.
    pub fn prepare(self: &Arc<Self>, ctx: &ToolContext, wait: bool) {
        let mut approved_now = Vec::new();
        for server in &self.servers {
            if server.state() != State::NeedsApproval {
                continue;
            }
            let config = &server.config;
            let shown = config.shown();
            let action = approval(config);
            if ctx.interactor.is_none() && !ctx.shared.grants.granted(&action) {
                server.set_state(State::Skipped(
                    "not approved yet, and nobody can approve it here".into(),
                ));
                ctx.shared.warnings.push(format!(
                    "the project's MCP server {} ({shown}) is not started: run marvin here in a terminal once to approve it",
                    config.name
                ));
                continue;
            }
            match ctx.approve_in_every_mode(action) {
                Ok(()) => {
                    if let Some(why) = ctx.settings.sandbox.unavailable() {
                        ctx.shared.sandbox_unavailable(&why, &ctx.call_id);
                    }
                    self.start_in_background(server.clone());
                    approved_now.push(server.clone());
                }
                Err(why) => server.set_state(State::Skipped(why)),
            }
        }
        // A run nobody watches waits for every server; at the prompt, only for those the
        // person has just approved, so their tools are there for this turn.
        let waited: Vec<&Arc<Server>> = match wait {
            true => self.servers.iter().collect(),
            false => approved_now.iter().collect(),
        };
        // The timeout bounds the server's answer to `initialize`; a second more lets the
        // one that did not answer be marked failed, and said, before the turn goes on.
        let longest = waited.iter().map(|s| s.timeout).max().unwrap_or_default();
        let deadline = Instant::now() + longest + Duration::from_secs(1);
        while waited.iter().any(|s| s.state() == State::Starting)
            && Instant::now() < deadline
            && !ctx.cancel.is_cancelled()
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        // A server turns ready a moment before its starting thread adds its tools: add them
        // now, so the request that follows offers them.
        if !waited.is_empty() {
            self.rebuild();
        }
        // A server that failed to start is said once, in one line.
        for server in &self.servers {
            if let State::Failed(why) = server.state() {
                if !server
                    .reported
                    .swap(true, std::sync::atomic::Ordering::SeqCst)
                {
                    let line = match oauth::sign_in_needed(&why) {
                        Some(needed) => needed.to_string(),
                        None => format!("the MCP server {} failed: {why}", server.config.name),
                    };
                    ctx.shared.warnings.push(line);
                }
            }
        }
    }

    /// `/mcp`: each server, its state and tools.
    pub fn report(&self) -> String {
        let mut out = String::new();
        for server in &self.servers {
            let config = &server.config;
            let current = server.state();
            let state = match &current {
                State::NeedsApproval => "waiting for your approval (asked at the next turn)".into(),
                State::Skipped(why) => format!("not started: {why}"),
                State::Starting => "starting".into(),
                State::Ready => {
                    let info = server.info();
                    match info.is_empty() {
                        true => "ready".into(),
                        false => format!("ready ({info})"),
                    }
                }
                State::Failed(why) => format!("failed: {why}"),
            };
            out.push_str(&format!(
                "{}  {}\n    {}\n",
                config.name,
                state,
                config.shown()
            ));
            if current == State::Ready {
                let names: Vec<String> = server
                    .tools()
                    .iter()
                    .map(|t| tools::exposed_name(&config.name, &t.name))
                    .collect();
                out.push_str(&format!(
                    "    tools ({}): {}\n",
                    names.len(),
                    names.join(", ")
                ));
            }
        }
        out.push_str("`/mcp restart NAME` starts a server again.");
        out
    }

    /// `/mcp restart NAME`: stops the server and starts it again, waiting for the outcome.
    pub fn restart(&self, name: &str) -> Result<String, String> {
        let server = self
            .servers
            .iter()
            .find(|s| s.config.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self
                    .servers
                    .iter()
                    .map(|s| s.config.name.as_str())
                    .collect();
                format!(
                    "no MCP server is called {name:?} (there are: {})",
                    names.join(", ")
                )
            })?;
        if matches!(server.state(), State::NeedsApproval | State::Skipped(_)) {
            return Err(format!(
                "{name} is a project's server that is not approved; it is asked about at the next turn"
            ));
        }
        server.restart();
        self.rebuild();
        match server.state() {
            State::Ready => Ok(format!(
                "{name} is ready with {} tools.",
                server.tools().len()
            )),
            State::Failed(why) => Err(format!("{name} failed: {why}")),
            other => Err(format!("{name}: {other:?}")),
        }
    }
}

/// The question before a project's server starts: everything that decides what runs, as the
/// file wrote it (never a key the environment fills in), and a grant kept under all of it, so
/// a later change to the command, its directory, a variable or a header is asked about again.
fn approval(config: &McpServer) -> Action {
    let key = format!("mcp-server:{}:{}", config.name, config.declared.identity());
    let (asked, what, parts) = match config.declared {
        Declared::Stdio { .. } => ("Start", "start", "command, directory and variables"),
        Declared::Http { .. } => ("Connect to", "connect to", "address and headers"),
    };
    Action {
        tool: "mcp".into(),
        kind: ActionKind::Act,
        scope: Some((
            key.clone(),
            format!(
                "{what} {} exactly as declared ({parts}) in this project",
                config.name
            ),
        )),
        key,
        summary: format!(
            "{asked} the MCP server {} declared in {}?",
            config.name,
            config.source.display()
        ),
        detail: visible(&config.declared.lines().join("\n")),
    }
}
