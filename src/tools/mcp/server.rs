//! One MCP server over its life: connecting (in the era it speaks, see `era`; then the tools,
//! page by page), its state for `/mcp`, calls with a deadline and Ctrl+C, and one restart when
//! it has died since the last call.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use serde_json::{Value, json};

use super::connection::{Connection, Failure, Transport};
use super::era::{self, Era};
use super::tools::RemoteTool;
use super::{elicit, stdio};
use crate::cancel::CancelToken;
use crate::config::{McpOrigin, McpServer, McpTransport};
use crate::tools::ToolContext;

/// Where a server is, for `/mcp`.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// A project's server waiting for the person's approval.
    NeedsApproval,
    /// Not approved (declined, or nobody to ask): not started in this run.
    Skipped(String),
    Starting,
    Ready,
    Failed(String),
}

pub struct Server {
    pub config: McpServer,
    state: Mutex<State>,
    connection: Mutex<Option<Arc<Connection>>>,
    tools: RwLock<Vec<RemoteTool>>,
    /// What the server calls itself (serverInfo), once connected.
    info: Mutex<String>,
    restarted: AtomicBool,
    /// The era the connection speaks (see `era`).
    era: Mutex<Era>,
    /// Its failure to start was told to the person.
    pub reported: AtomicBool,
    working_dir: PathBuf,
    /// How a project's server is confined.
    sandbox: crate::sandbox::Policy,
    pub timeout: Duration,
    /// Where an HTTP server's OAuth sign-in is kept and how one is made.
    sign_in: Option<super::oauth::SignIn>,
}

impl Server {
    pub fn new(
        config: McpServer,
        working_dir: PathBuf,
        sandbox: crate::sandbox::Policy,
        timeout: Duration,
        state: State,
        sign_in: Option<super::oauth::SignIn>,
    ) -> Self {
        Self {
            config,
            state: Mutex::new(state),
            connection: Mutex::new(None),
            tools: RwLock::new(Vec::new()),
            info: Mutex::new(String::new()),
            restarted: AtomicBool::new(false),
            era: Mutex::new(Era::Legacy),
            reported: AtomicBool::new(false),
            working_dir,
            sandbox,
            timeout,
            sign_in,
        }
    }

    pub fn state(&self) -> State {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn set_state(&self, state: State) {
        *self.state.lock().unwrap_or_else(PoisonError::into_inner) = state;
    }

    pub fn tools(&self) -> Vec<RemoteTool> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn info(&self) -> String {
        self.info
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether the server said its tools changed since they were last read.
    pub fn tools_changed(&self) -> bool {
        self.live()
            .is_some_and(|c| c.tools_changed.swap(false, Ordering::SeqCst))
    }

    fn era(&self) -> Era {
        *self.era.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn live(&self) -> Option<Arc<Connection>> {
        self.connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Connects and reads the tools; the state says how it went.
    pub fn start(&self) {
        self.set_state(State::Starting);
        self.reported.store(false, Ordering::SeqCst);
        match self.connect() {
            Ok(()) => self.set_state(State::Ready),
            Err(why) => self.set_state(State::Failed(why)),
        }
    }

    /// Stops the server and starts it again (`/mcp restart NAME`).
    pub fn restart(&self) {
        self.stop();
        self.start();
    }

    pub fn stop(&self) {
        if let Some(connection) = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            connection.close();
        }
    }

    fn connect(&self) -> Result<(), String> {
        let connection = Connection::open(|sink| -> Result<Box<dyn Transport>, String> {
            match &self.config.transport {
                McpTransport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                } => {
                    let (program, cwd) = self.program(command, cwd.as_deref())?;
                    Ok(Box::new(stdio::start(
                        program, command, args, env, &cwd, sink,
                    )?))
                }
                McpTransport::Http {
                    url,
                    headers,
                    proxy,
                } => Ok(Box::new(super::http::start(
                    url,
                    &self.config.shown(),
                    headers,
                    proxy.as_deref(),
                    sink,
                    self.sign_in.clone(),
                )?)),
            }
        })?;
        let opened = era::open(&connection, self.timeout, &|failure| {
            self.failure_text(&connection, failure)
        });
        let opened = match opened {
            Ok(opened) => opened,
            Err(why) => {
                connection.close();
                return Err(why);
            }
        };
        *self.info.lock().unwrap_or_else(PoisonError::into_inner) = opened.info;
        *self.era.lock().unwrap_or_else(PoisonError::into_inner) = opened.era;
        let tools = self.list_tools(&connection)?;
        *self.tools.write().unwrap_or_else(PoisonError::into_inner) = tools;
        *self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(connection);
        Ok(())
    }

    /// The server's program and the directory it starts in. The person's own servers start in
    /// the working directory, as they are; a project's start confined (writing in the working
    /// directory, where they start and their private directory), where the entry says (shown
    /// in its approval and kept in its key), else in their private directory: never in the
    /// repository, where `npx` would run the repository's own `node_modules`, `uvx` read its
    /// `uv.toml` and `python3 -m` import its files first.
    fn program(&self, command: &str, cwd: Option<&Path>) -> Result<(Command, PathBuf), String> {
        if self.config.origin != McpOrigin::Project {
            let cwd = cwd.unwrap_or(&self.working_dir).to_path_buf();
            return Ok((crate::sandbox::unconfined(command), cwd));
        }
        let private = self.private_dir()?;
        let cwd = cwd.map_or_else(|| private.clone(), Path::to_path_buf);
        let paths = crate::sandbox::Paths {
            writes: vec![self.working_dir.clone(), cwd.clone(), private.clone()],
            reads: Vec::new(),
        };
        let (mut program, _) = self.sandbox.command(command, &paths)?;
        // Package managers fill caches of their own here, not the person's (which a server
        // could otherwise poison for later installs, and which the sandbox does not let it
        // write): npm's, and uv's and pip's under XDG_CACHE_HOME.
        program
            .env("npm_config_cache", private.join("cache/npm"))
            .env("XDG_CACHE_HOME", private.join("cache"));
        Ok((program, cwd))
    }

    /// A directory of this server's own, private (0700), in the person's cache
    /// (`~/.cache/marvin/mcp-servers/NAME-KEY`): not under the temp dir, where any user may
    /// make a `node_modules` in a directory above it, nor in Marvin's home, where no program
    /// may write. KEY digests the project and the declaration, so another project's server of
    /// the same name never starts where this one's packages were left.
    fn private_dir(&self) -> Result<PathBuf, String> {
        use std::os::unix::fs::DirBuilderExt;
        let Some(home) = &self.sandbox.user_home else {
            return Err("a project's server starts in a directory of its own under the home directory, and there is none (set HOME)".into());
        };
        let whose = format!(
            "{}\0{}",
            self.config.source.display(),
            self.config.declared.identity()
        );
        let digest = ring::digest::digest(&ring::digest::SHA256, whose.as_bytes());
        let key: String = digest.as_ref()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let dir = home
            .join(".cache/marvin/mcp-servers")
            .join(format!("{}-{key}", self.config.name));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| {
                format!(
                    "cannot make a directory for it to start in ({}: {e})",
                    dir.display()
                )
            })?;
        Ok(dir)
    }

    /// Every page of `tools/list`.
    fn list_tools(&self, connection: &Connection) -> Result<Vec<RemoteTool>, String> {
        let never = CancelToken::new();
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        // A server that keeps sending cursors is cut off rather than followed for ever.
        for _ in 0..100 {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let era = self.era();
            let page = connection
                .request(
                    "tools/list",
                    era.params(params),
                    self.timeout,
                    &never,
                    &mut |_, _| None,
                )
                .map_err(|failure| {
                    format!(
                        "its tools could not be listed: {}",
                        self.failure_text(connection, &failure)
                    )
                })?;
            tools.extend(RemoteTool::list(&page));
            cursor = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if cursor.is_none() {
                break;
            }
        }
        Ok(tools)
    }

    /// Reads the tools again after the server said they changed.
    pub fn refresh_tools(&self) {
        if let Some(connection) = self.live() {
            if let Ok(tools) = self.list_tools(&connection) {
                *self.tools.write().unwrap_or_else(PoisonError::into_inner) = tools;
            }
        }
    }

    /// Calls `tool` with `arguments`. A server that died since the last call is started again
    /// once; a second death is reported.
    pub fn call(&self, tool: &str, arguments: Value, ctx: &ToolContext) -> Result<String, String> {
        let name = &self.config.name;
        let connection = match self.live() {
            Some(connection) if connection.ended().is_none() => connection,
            dead => {
                let why = dead
                    .and_then(|c| c.ended())
                    .unwrap_or_else(|| "it is not running".into());
                if self.restarted.swap(true, Ordering::SeqCst) {
                    return Err(format!(
                        "The MCP server {name} stopped ({why}) and was already restarted once; see /mcp, fix it, then /mcp restart {name}."
                    ));
                }
                self.stop();
                self.start();
                match (self.state(), self.live()) {
                    (State::Ready, Some(connection)) => connection,
                    (State::Failed(again), _) => {
                        return Err(format!(
                            "The MCP server {name} stopped ({why}), and starting it again failed: {again}"
                        ));
                    }
                    _ => return Err(format!("The MCP server {name} is not running ({why}).")),
                }
            }
        };
        // Made only if the result has a file in it, private to this session and removed with it.
        let files = super::tools::CallFiles::new(|| {
            let temp = ctx.settings.temp_dir();
            ctx.shared
                .scratch
                .dir_for(&temp, &format!("mcp-{}", ctx.call_id))
        });
        let reached = self.config.shown();
        let mut asked = 0;
        // The person's answer may come as a request of the server's during the call (the old
        // era) or as an `input_required` answer to it (the new): the same form either way, and
        // the same count of questions for the whole call.
        let result = era::request_with_input(
            &connection,
            self.era(),
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
            self.timeout,
            &ctx.cancel,
            &mut |method, params| match method {
                "elicitation/create" => {
                    Some(elicit::answer(name, &reached, params, ctx, &mut asked))
                }
                _ => None,
            },
        );
        match result {
            Ok(result) => {
                // It works again: a later death may be restarted once more.
                self.restarted.store(false, Ordering::SeqCst);
                super::tools::result_text(&result, &files)
            }
            Err(Failure::Rpc(error)) => Err(format!(
                "The MCP server {name} refused the call: {} (error {}).",
                error.message, error.code
            )),
            Err(Failure::Cancelled) => Err(format!(
                "The call to {name} was cancelled by the user ({}).",
                ctx.cancel.how()
            )),
            Err(failure) => Err(format!(
                "The MCP server {name} failed during the call: {}.",
                self.failure_text(&connection, &failure)
            )),
        }
    }

    /// A failure with what the server last said on stderr, and anything it wrote on stdout
    /// that was not a message (why it never answered), when that helps.
    fn failure_text(&self, connection: &Connection, failure: &Failure) -> String {
        let mut text = failure.describe();
        let said = connection.diagnostics();
        if let Some(garbage) = said.lines().find(|line| line.starts_with("It wrote ")) {
            text.push_str(&format!(
                "; {}",
                garbage
                    .trim_end_matches('.')
                    .replacen("It wrote", "it wrote", 1)
            ));
        } else if matches!(failure, Failure::Closed(_)) && !text.contains("its last words") {
            if let Some(last) = said.lines().rev().find(|line| !line.trim().is_empty()) {
                text.push_str(&format!(" (its last words: {last})"));
            }
        }
        text
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}
