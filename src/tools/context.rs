//! What tool handlers may use: the workspace, settings from Config, the cancel token and a way
//! to ask the user. No globals: two sessions in one process never see each other's state.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use crate::cancel::CancelToken;
use crate::interact::approvals::{Action, ActionKind, Grants, PermissionMode};
use crate::interact::{self, Interactor, Outcome, Request, Response, Scope};

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
    pub permission_mode: PermissionMode,
    /// MARVIN_HOME, for the usage ledger.
    pub marvin_home: Option<PathBuf>,
    /// The ntfy server (NTFY_URL), with the session's client for it.
    pub ntfy: super::everyday::ntfy::Ntfy,
    /// Where the interview form shows up.
    pub form_surface: crate::config::FormSurface,
    /// TMPDIR, when set.
    pub temp_dir: Option<PathBuf>,
    /// How the programs the tools start are confined (`--sandbox`).
    pub sandbox: crate::sandbox::Policy,
    /// The web services of the everyday tools, with the session's clients for them.
    pub(crate) web: super::kit::web::Web,
    /// Each request offers the core tools and the families the conversation needs
    /// (`--tools auto`), not every tool (`--tools all`, and a bare `ToolSettings`).
    pub on_demand: bool,
}

impl ToolSettings {
    /// Where temporary files go: TMPDIR, else /tmp.
    pub fn temp_dir(&self) -> PathBuf {
        self.temp_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("/tmp"))
    }
}

/// State of the session's tools that outlives a turn: the ticket gate and background jobs.
#[derive(Default)]
pub struct SessionTools {
    pub tickets: super::coding::tickets::TicketGate,
    pub jobs: super::coding::agents::Jobs,
    pub grants: Grants,
    /// Usage of the finished turns of this session, for get_usage.
    pub usage: std::sync::Mutex<crate::usage::Tally>,
    /// Usage of the turn under way, call by call, so that get_usage counts it too.
    pub turn_usage: std::sync::Mutex<crate::usage::Tally>,
    /// The active profile's directory, for the saved-places tools (it changes on a switch).
    pub profile_dir: RwLock<Option<PathBuf>>,
    /// compact_history asks the loop to compact before its next model call.
    pub compact_requested: std::sync::atomic::AtomicBool,
    /// Lines for the results of calls under way, besides what their handlers return.
    pub notes: CallNotes,
    /// Warnings for the person (a store file moved aside), shown by the front-end.
    pub warnings: crate::store::Warnings,
    /// The session's timers (timer_start), which no other session sees.
    pub(crate) timers: super::everyday::timers::Timers,
    /// exit_app asks the front-end to end the session once this turn's answer is shown.
    pub(crate) exit_requested: std::sync::atomic::AtomicBool,
    /// The calls whose question parked the run (`--on-ask park`): the loop stops after their
    /// round.
    pub(crate) parked: ParkedCalls,
    /// The session's private temporary directory (an MCP server's pictures), removed with it.
    pub(crate) scratch: super::kit::scratch::Scratch,
    /// The tool families its requests offer beyond the core (see `route::Offer`).
    pub offer: super::route::Offer,
    /// Whether the working directory is a project (read-only coding tools outside coding mode).
    pub(crate) project: super::kit::project::ProjectCache,
    /// The person and the model were told that programs run unconfined here.
    pub(crate) sandbox_told: std::sync::atomic::AtomicBool,
}

/// The ids of the calls of this round whose question parked the run.
#[derive(Default)]
pub(crate) struct ParkedCalls(Mutex<Vec<String>>);

impl ParkedCalls {
    fn add(&self, call_id: &str) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(call_id.to_string());
    }

    /// Whether a call of this round parked the run.
    pub(crate) fn any(&self) -> bool {
        !self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    /// The parked calls, in the order they asked; none are left.
    pub(crate) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Lines a call adds to its own result besides what its handler returns (an approval that
/// could not be saved), kept by call id until the registry appends them when the call ends.
/// Nothing below the front-ends prints: this is how such a problem reaches the model, which
/// tells the person.
#[derive(Default)]
pub struct CallNotes(Mutex<Vec<(String, String)>>);

impl CallNotes {
    pub(crate) fn add(&self, call_id: &str, line: String) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((call_id.to_string(), line));
    }

    /// Takes the lines of call `call_id`, in the order they came.
    pub(crate) fn take(&self, call_id: &str) -> Vec<String> {
        let mut notes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (theirs, others) = std::mem::take(&mut *notes)
            .into_iter()
            .partition(|(id, _)| id == call_id);
        *notes = others;
        theirs.into_iter().map(|(_, line)| line).collect()
    }
}

impl SessionTools {
    /// Tells the person (a warning) and the model (a line of call `call_id`'s result), once a
    /// session, that the programs the tools start cannot be confined here, and why.
    pub(crate) fn sandbox_unavailable(&self, why: &str, call_id: &str) {
        if self
            .sandbox_told
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        self.warnings.push(format!(
            "programs run for the model are not confined: {why}; only Marvin's own checks and questions guard what they reach (--sandbox off hides this)"
        ));
        self.notes.add(
            call_id,
            format!("[Not confined: {why}. Programs can reach anything the person can.]"),
        );
    }

    pub fn profile_dir(&self) -> Option<PathBuf> {
        self.profile_dir
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
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

#[derive(Clone)]
pub struct ToolContext {
    pub workspace: Arc<Workspace>,
    pub settings: Arc<ToolSettings>,
    pub shared: Arc<SessionTools>,
    pub coding_mode: bool,
    pub readonly: bool,
    pub non_interactive: bool,
    pub cancel: CancelToken,
    /// `None` when nobody is there to ask (non-interactive mode, stdin not a terminal).
    pub interactor: Option<Arc<dyn Interactor>>,
    /// The id of the call being executed (set by the registry for each call).
    pub call_id: String,
    /// Where a long call says how far it is.
    pub progress: Progress,
}

/// Asks for one call: each prompt names the call, so a front-end can show a reprompt where the
/// first prompt was and a client can answer "the question of call X".
struct CallInteractor {
    inner: Arc<dyn Interactor>,
    call_id: String,
    tool: String,
}

impl Interactor for CallInteractor {
    fn ask(&self, prompt: &interact::Prompt) -> Result<Response, interact::Unavailable> {
        let mut prompt = prompt.clone();
        prompt.call_id.clone_from(&self.call_id);
        if prompt.tool.is_empty() {
            prompt.tool.clone_from(&self.tool);
        }
        self.inner.ask(&prompt)
    }

    fn defer(&self, mut prompt: interact::Prompt, render: interact::FollowUp) {
        prompt.call_id.clone_from(&self.call_id);
        if prompt.tool.is_empty() {
            prompt.tool.clone_from(&self.tool);
        }
        self.inner.defer(prompt, render);
    }
}

/// Someone at a terminal who could answer but is never asked anything: for tests of what a
/// request offers when a person is there (see `ToolContext::with_someone_there`).
#[cfg(test)]
struct SomeoneThere;

#[cfg(test)]
impl Interactor for SomeoneThere {
    fn ask(&self, _: &interact::Prompt) -> Result<Response, interact::Unavailable> {
        Err(interact::Unavailable::Cancelled)
    }

    fn defer(&self, _: interact::Prompt, _: interact::FollowUp) {}
}

/// Where a long call says how far it is (a download's bytes so far): the session passes it to
/// the front-end, which shows it in place; nothing happens when nobody watches.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<ReportProgress>>);

/// Reports how far call (its id) is.
type ReportProgress = dyn Fn(&str, String) + Send + Sync;

impl Progress {
    /// Progress handed to `report` with the id of the call it is about.
    pub fn new(report: impl Fn(&str, String) + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(report)))
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(watched)"
        } else {
            "Progress(none)"
        })
    }
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
            interactor: None,
            call_id: String::new(),
            progress: Progress::default(),
        }
    }

    /// This context with a person there to answer (who is never asked: for tests).
    #[cfg(test)]
    pub(crate) fn with_someone_there(self) -> Self {
        Self {
            interactor: Some(Arc::new(SomeoneThere)),
            ..self
        }
    }

    /// This context for call `call_id` of `tool`: the questions it asks name the call and the
    /// tool (the outermost call's stay when a call runs others).
    pub fn for_call(&self, call_id: &str, tool: &str) -> Self {
        let interactor = self.interactor.clone().map(|inner| {
            Arc::new(CallInteractor {
                inner,
                call_id: call_id.to_string(),
                tool: tool.to_string(),
            }) as Arc<dyn Interactor>
        });
        Self {
            call_id: call_id.to_string(),
            interactor,
            ..self.clone()
        }
    }

    /// Tells whoever watches how far this call is (a short phrase: "12.3 MB of 80.0 MB").
    pub fn report_progress(&self, text: String) {
        if let Some(report) = &self.progress.0 {
            report(&self.call_id, text);
        }
    }

    /// Asks the person (seed 003) with every hook: `on_response` decides to complete,
    /// reprompt or go pending, `on_timeout` what a question nobody answered gives, `on_cancel`
    /// hears that the turn was cancelled while it waited.
    pub fn request_interaction(
        &self,
        ask: interact::Ask,
        hooks: interact::Hooks,
    ) -> Result<String, String> {
        let asked = interact::run(self.interactor.as_deref(), ask, hooks);
        if asked == interact::Asked::Parked {
            self.shared.parked.add(&self.call_id);
        }
        asked.result()
    }

    /// Asks the person (seed 003): `on_response` decides to complete, reprompt or go pending.
    pub fn interact(
        &self,
        request: Request,
        timeout: Duration,
        on_response: &mut dyn FnMut(Response) -> Outcome,
        on_timeout: &mut dyn FnMut() -> Outcome,
        follow_up: Option<interact::FollowUp>,
    ) -> Result<String, String> {
        let asked = interact::interact(
            self.interactor.as_deref(),
            request,
            timeout,
            on_response,
            on_timeout,
            follow_up,
        );
        if asked == interact::Asked::Parked {
            self.shared.parked.add(&self.call_id);
        }
        asked.result()
    }

    /// The permission mode in effect: the session's, or `accept-edits` once the person
    /// allowed all file edits in a `default` session.
    pub fn permission_mode(&self) -> PermissionMode {
        self.shared.grants.mode(self.settings.permission_mode)
    }

    /// Whether `action` may go ahead: by the permission mode, an earlier grant, or the
    /// person's answer now. Without anyone to ask, what would ask is denied.
    pub fn approve(&self, action: Action) -> Result<(), String> {
        self.ask_approval(action, false)
    }

    /// Like [`ToolContext::approve`], but asks in every permission mode, bypass included:
    /// for what a cloned repository declares (its MCP servers), which no mode lets run
    /// unseen.
    pub fn approve_in_every_mode(&self, action: Action) -> Result<(), String> {
        self.ask_approval(action, true)
    }

    /// Whether `action` must be asked about now (an error in plan mode).
    fn must_ask(&self, action: &Action, every_mode: bool) -> Result<bool, String> {
        if self.shared.grants.granted(action) {
            return Ok(false);
        }
        Ok(match self.permission_mode() {
            _ if every_mode => true,
            PermissionMode::Bypass => false,
            PermissionMode::Plan => {
                return Err(format!(
                    "{} is not allowed in plan mode, which is read-only.",
                    action.tool
                ));
            }
            PermissionMode::AcceptEdits => action.kind != ActionKind::Edit,
            PermissionMode::Default => true,
        })
    }

    fn ask_approval(&self, action: Action, every_mode: bool) -> Result<(), String> {
        if !self.must_ask(&action, every_mode)? {
            return Ok(());
        }
        if self.interactor.is_none() {
            return Err(format!(
                "no one to ask: denied. {} needs approval in permission mode {}, and nobody can answer here; say what you would have done instead.",
                action.tool,
                self.permission_mode().name()
            ));
        }
        // The calls of a round ask one at a time; what an earlier answer granted (this
        // command for the session, all file edits) spares the later ones the question.
        let _turn = self.shared.grants.one_at_a_time();
        if self.cancel.is_cancelled() {
            return Err(format!(
                "The turn was cancelled by the user ({}) before the {} call was approved; it was not made.",
                self.cancel.how(),
                action.tool
            ));
        }
        if !self.must_ask(&action, every_mode)? {
            return Ok(());
        }
        let request = Request::Approval(interact::Approval {
            tool: action.tool.clone(),
            summary: action.summary.clone(),
            detail: action.detail.clone(),
            covers: action.covers(),
            all_edits: self.permission_mode() == PermissionMode::Default
                && action.kind == ActionKind::Edit,
            scopes: Vec::new(),
        });
        let tool = action.tool.clone();
        let mut on_response = |response: Response| match response {
            Response::Approved(scope) => Outcome::Complete(self.remember(&action, scope)),
            Response::Denied(instead) if instead.trim().is_empty() => {
                Outcome::Complete(Err(format!(
                    "The user declined this {tool} call. Ask them what they would like instead."
                )))
            }
            Response::Denied(instead) => Outcome::Complete(Err(format!(
                "The user declined this {tool} call and said: {}",
                instead.trim()
            ))),
            _ => Outcome::Complete(Err("The approval was not given.".into())),
        };
        let timeout = interact::DEFAULT_TIMEOUT;
        let mut on_timeout = || {
            Outcome::Complete(Err(format!(
                "The user did not respond within {} minutes; the {tool} call was not made.",
                timeout.as_secs() / 60
            )))
        };
        self.interact(request, timeout, &mut on_response, &mut on_timeout, None)
            .map(|_| ())
    }

    /// Keeps the grant. One that cannot be saved still lets this call go ahead, and its
    /// result says so.
    fn remember(&self, action: &Action, scope: Scope) -> Result<String, String> {
        if let Err(error) = self.shared.grants.grant(action, scope) {
            self.shared.notes.add(
                &self.call_id,
                format!("(The approval could not be saved for later: {error}.)"),
            );
        }
        Ok(String::new())
    }

    pub fn working_dir(&self) -> PathBuf {
        self.workspace.current()
    }

    /// Whether the working directory is a project, where the tools that only read it are
    /// offered outside coding mode too.
    pub fn in_project(&self) -> bool {
        self.shared.project.is_project(&self.working_dir())
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
        crate::programs::find_program(
            program,
            self.settings
                .search_path
                .as_deref()
                .map(std::ffi::OsStr::new),
        )
    }

    /// `program`, confined by the session's sandbox: it writes in the directory Marvin was
    /// started in (and the places of `paths`), never reads a secret store, and has none of
    /// Marvin's keys. The first program of a session that cannot be confined says so, to the
    /// person and to the model, once.
    pub(crate) fn program(
        &self,
        program: impl AsRef<std::ffi::OsStr>,
        mut paths: crate::sandbox::Paths,
    ) -> Result<std::process::Command, String> {
        paths.writes.insert(0, self.workspace.root().to_path_buf());
        self.program_apart(program, paths)
    }

    /// Like [`ToolContext::program`], for a program that has no business in the project (a
    /// web page's renderer, a downloader): it writes only in the temp dir and `paths`.
    pub(crate) fn program_apart(
        &self,
        program: impl AsRef<std::ffi::OsStr>,
        paths: crate::sandbox::Paths,
    ) -> Result<std::process::Command, String> {
        let (command, confined) = self.settings.sandbox.command(program, &paths)?;
        if let crate::sandbox::Confined::Unavailable(why) = confined {
            self.shared.sandbox_unavailable(&why, &self.call_id);
        }
        Ok(command)
    }

    /// Sentences for what the sandbox refused in `output` of a program started by
    /// [`ToolContext::program`] with `paths`, in `cwd`.
    pub(crate) fn sandbox_refusals(
        &self,
        output: &str,
        cwd: &Path,
        mut paths: crate::sandbox::Paths,
    ) -> Option<String> {
        paths.writes.insert(0, self.workspace.root().to_path_buf());
        crate::sandbox::explain(output, cwd, &self.settings.sandbox, &paths)
    }
}

#[cfg(test)]
mod sandbox_notice_tests {
    use super::*;

    #[test]
    fn a_session_hears_once_that_programs_are_not_confined() {
        let shared = SessionTools::default();
        shared.sandbox_unavailable("this kernel has no Landlock", "c1");
        shared.sandbox_unavailable("this kernel has no Landlock", "c2");
        assert_eq!(
            shared.warnings.take(),
            [
                "programs run for the model are not confined: this kernel has no Landlock; only Marvin's own checks and questions guard what they reach (--sandbox off hides this)"
            ]
        );
        assert_eq!(
            shared.notes.take("c1"),
            [
                "[Not confined: this kernel has no Landlock. Programs can reach anything the person can.]"
            ]
        );
        assert!(shared.notes.take("c2").is_empty());
    }
}
