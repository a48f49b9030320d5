//! What tool handlers may use: the workspace, settings from Config, the cancel token and a way
//! to ask the user. No globals: two sessions in one process never see each other's state.

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use crate::cancel::CancelToken;

/// Settings from Config that tools need.
#[derive(Debug, Clone, Default)]
pub struct ToolSettings {
    /// PATH, to find external programs (git, rg, tk, uv).
    pub search_path: Option<String>,
    /// Where notes live outside coding mode (`~/Notes`).
    pub notes_home: Option<PathBuf>,
    /// How deep this process is in a chain of sub-agents (MARVIN_DEPTH).
    pub depth: u32,
    /// The parent's ticket, when this process is a sub-agent (MARVIN_TICKET).
    pub ticket: Option<String>,
    /// The JSONL audit log of tool calls that sub-agents inherit (MARVIN_SUBAGENT_LOG).
    pub subagent_log: Option<PathBuf>,
    /// This very program, to start sub-agents with.
    pub executable: Option<PathBuf>,
    /// The provider and model in use, handed down to sub-agents.
    pub provider: String,
    pub model: String,
    /// Sub-agent models: `opus` and `codex`.
    pub code_model_high: String,
    pub code_model_low: String,
}

/// State of the session's tools that outlives a turn: the ticket gate and background jobs.
#[derive(Default)]
pub struct SessionTools {
    pub tickets: super::tickets::TicketGate,
    pub jobs: super::agents::Jobs,
}

/// The working directory of a session: where it started, and where it is now. It outlives a
/// turn, so `set_working_dir` in one turn is still in effect in the next.
#[derive(Debug)]
pub struct Workspace {
    root: PathBuf,
    current: RwLock<PathBuf>,
}

impl Workspace {
    pub fn new(root: PathBuf) -> Self {
        Self {
            current: RwLock::new(root.clone()),
            root,
        }
    }

    /// The directory Marvin was started in (or given with --working-dir).
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn current(&self) -> PathBuf {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn set_current(&self, dir: PathBuf) {
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = dir;
    }
}

/// Asks the user a yes/no question; false when declined or nobody can answer.
pub type Confirm = Arc<dyn Fn(&str) -> bool + Send + Sync>;

#[derive(Clone)]
pub struct ToolContext {
    pub workspace: Arc<Workspace>,
    pub settings: Arc<ToolSettings>,
    pub shared: Arc<SessionTools>,
    pub coding_mode: bool,
    pub readonly: bool,
    pub non_interactive: bool,
    pub cancel: CancelToken,
    /// `None` when nobody is there to ask (non-interactive mode): tools then go ahead.
    pub confirm: Option<Confirm>,
}

impl ToolContext {
    /// A context for `working_dir` with nothing else set: not coding mode, non-interactive.
    pub fn new(working_dir: PathBuf) -> Self {
        Self {
            workspace: Arc::new(Workspace::new(working_dir)),
            settings: Arc::new(ToolSettings::default()),
            shared: Arc::new(SessionTools::default()),
            coding_mode: false,
            readonly: false,
            non_interactive: true,
            cancel: CancelToken::new(),
            confirm: None,
        }
    }

    pub fn working_dir(&self) -> PathBuf {
        self.workspace.current()
    }

    /// The notes directory: `.marvin/notes` of the working dir in coding mode, else `~/Notes`.
    pub fn notes_root(&self) -> Option<PathBuf> {
        if self.coding_mode {
            Some(self.working_dir().join(".marvin").join("notes"))
        } else {
            self.settings.notes_home.clone()
        }
    }

    /// Where `program` is installed, if it is.
    pub fn find_program(&self, program: &str) -> Option<PathBuf> {
        super::process::find_program(
            program,
            self.settings
                .search_path
                .as_deref()
                .map(std::ffi::OsStr::new),
        )
    }
}
