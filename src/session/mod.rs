//! One conversation: its messages and state, what the front-ends may ask of it between
//! turns, and the types of the seam with them (events, questions, how a turn ended). A turn
//! itself is in `turn`, its event pump in `pump`.

mod event;
mod pump;
mod relay;
mod saved;
mod turn;

pub use event::{Answered, CallShown, Correlation, Event, FamilyOffered, Level, tools_line};
pub use relay::{Deferred, Interaction, Reply, describe_request, describe_response};

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::budget::Budget;
use crate::config::Config;
use crate::interact::Response;
use crate::interact::approvals::{Grants, PermissionMode};
use crate::llm::LlmError;
use crate::llm::chain::ProviderChain;
use crate::message::{Message, Role};
use crate::prompt::{PromptFacts, project_docs, system_prompt};
use crate::store::{self, Warnings};
use crate::tools::everyday::ntfy::Ntfy;
use crate::tools::{Registry, SessionTools, ToolSettings, Workspace};
use crate::usage::Tally;

/// How a turn ended.
#[derive(Debug)]
pub enum TurnEnd {
    Answered(Message),
    Cancelled,
    Failed(LlmError),
    /// A question parked the run (`--on-ask park`): the conversation is saved, and
    /// `Session::park` keeps what was asked until the answer comes.
    Parked,
}

/// The end of a turn and what it cost.
#[derive(Debug)]
pub struct TurnReport {
    pub end: TurnEnd,
    pub tally: Tally,
    pub elapsed: Duration,
    /// A tool (exit_app) asked to end the session once this turn's answer is shown.
    pub exit_requested: bool,
    /// The context after the turn: the model's window, the limit, what is in use.
    pub context: crate::budget::ContextReport,
}

/// A front-end during a turn: what it shows and answers. Called on the thread that called
/// `submit`, which keeps pumping events while questions are open.
pub trait TurnUi {
    /// Something happened in the turn: show it (or stream it on).
    fn event(&mut self, event: &Event);
    /// A tool asks the person something. Show it and answer through `interaction.reply`,
    /// now or later, from any thread; until then events keep coming. Any surface may answer:
    /// the first answer counts, and `Event::QuestionClosed` tells every surface it is over.
    fn ask(&mut self, interaction: Interaction);
    /// Polled at least every 50 ms while the turn runs: true cancels it (Ctrl+C, or nobody
    /// reads the output). A front-end may also catch up on its own work here.
    fn interrupted(&mut self) -> bool;
    /// The turn has nothing more to show for now (its next event has not come yet): output
    /// held back to be written in one go goes out now, before the pump waits.
    fn idle(&mut self) {}
    /// Who stopped the turn once `interrupted` said so, as its tools tell the model.
    fn stopped_by(&self) -> crate::cancel::StoppedBy {
        crate::cancel::StoppedBy::CtrlC
    }
}

/// The stored session a conversation took up.
#[derive(Debug, Clone, PartialEq)]
pub struct Resumed {
    /// Messages taken (the person's and the model's).
    pub messages: usize,
    /// When the session was last saved (ISO 8601, UTC).
    pub last: String,
    /// The session's name.
    pub name: String,
}

/// One conversation. Each piece of state has one home: the working directory in `workspace`
/// (which `set_working_dir` moves and `!cmd` follows), the profile directory, the grants and
/// the session's usage in `shared` (which the tools read too), the audit log and MARVIN_HOME
/// in `settings`, and the rest here.
pub struct Session {
    providers: Arc<ProviderChain>,
    registry: Arc<Registry>,
    messages: Vec<Message>,
    /// The stored session this conversation took up, if it did.
    resumed: Option<Resumed>,
    /// The stored session the conversation is saved to (none before its first turn).
    stored: Option<crate::store::sessions::Meta>,
    /// The calls whose question parked the last turn, for `park`.
    parked_calls: Vec<String>,
    /// This process's claim on the stored session: no other marvin writes it meanwhile.
    claim: Option<crate::store::lock::Held>,
    /// How many runs waited for an answer when the store was last looked at (at start).
    parked_seen: Option<usize>,
    /// A conversation apart from the last one (not resumed): its first chat-log line is
    /// preceded by the new-conversation mark, so a later REPL resumes from there on. Written
    /// with that line, not at start, so a run that logs nothing writes nothing.
    mark_pending: std::sync::atomic::AtomicBool,
    workspace: Arc<Workspace>,
    settings: Arc<ToolSettings>,
    shared: Arc<SessionTools>,
    coding_mode: bool,
    readonly: bool,
    non_interactive: bool,
    /// Someone can answer questions (interactive, stdin a terminal).
    has_ui: bool,
    max_rounds: usize,
    profile: String,
    /// The user's home directory, for ~/.marvin/instructions.
    user_home: Option<PathBuf>,
    /// Questions left open by tools that finished "pending".
    deferred: Vec<Deferred>,
    /// The last question's id: ids are unique in the session, across turns.
    last_question: u64,
    /// The turn under way (or the last one): named in the questions its tools ask.
    turn_id: String,
    /// Late answers, sent to the model at the start of the next turn.
    follow_ups: Vec<String>,
    /// The compact history of earlier conversations that this one's system prompt carries,
    /// fixed at its first request (none when it took up messages of its own): `None` until
    /// then. It stays the same for the whole conversation, so the prompt's start does.
    recent: Option<Option<String>>,
    /// Whether a new conversation's prompt carries that digest at all (MARVIN_DIGEST).
    digest: bool,
    /// The user's own tools, for `/tools`.
    custom_tools: Vec<crate::tools::custom::Loaded>,
    budget: Arc<Mutex<Budget>>,
    /// MARVIN_TIMEOUT, which overrides the modes' idle timeouts.
    timeout_override: Option<Duration>,
    /// Warnings from below the front-ends, until one shows them: during a turn as notices,
    /// between turns through [`Session::take_warnings`].
    warnings: Warnings,
}

impl Drop for Session {
    /// The files the session's tools kept for the model (an MCP server's pictures) go with it.
    fn drop(&mut self) {
        self.shared.scratch.remove();
    }
}

impl Session {
    pub fn new(config: &Config, providers: Arc<ProviderChain>, registry: Arc<Registry>) -> Self {
        let active = providers.active();
        let (provider_name, model) = (active.name().to_string(), active.model().to_string());
        let warnings = Warnings::default();
        let mut session = Self {
            providers,
            registry,
            messages: vec![Message::system(String::new())],
            resumed: None,
            stored: None,
            parked_calls: Vec::new(),
            claim: None,
            parked_seen: None,
            workspace: Arc::new(Workspace::new(config.working_dir.clone())),
            settings: Arc::new(tool_settings(config, provider_name, model)),
            shared: Arc::new(SessionTools {
                profile_dir: std::sync::RwLock::new(config.profile_dir()),
                grants: Grants::new(
                    config.home.as_deref().map(store::approvals::file),
                    &config.working_dir,
                    warnings.clone(),
                ),
                warnings: warnings.clone(),
                ..SessionTools::default()
            }),
            coding_mode: config.coding_mode,
            readonly: config.readonly,
            non_interactive: config.non_interactive,
            has_ui: config.has_ui,
            max_rounds: config.max_rounds,
            profile: config.profile.clone(),
            user_home: config.user_home.clone(),
            deferred: Vec::new(),
            last_question: 0,
            turn_id: String::new(),
            follow_ups: Vec::new(),
            recent: None,
            digest: config.digest,
            custom_tools: Vec::new(),
            budget: Arc::new(Mutex::new(Budget::from_setting(config.context_budget))),
            timeout_override: config.timeout_override,
            warnings,
            mark_pending: std::sync::atomic::AtomicBool::new(!config.resume),
        };
        if config.resume {
            session.resume_latest_here();
        }
        session
    }

    /// Takes up the last session here (this working dir and profile), if there is one; the
    /// same look at the store counts the runs parked on a question.
    fn resume_latest_here(&mut self) {
        let all = self.sessions();
        self.parked_seen = Some(all.iter().filter(|m| m.parked.is_some()).count());
        let here = store::sessions::latest_here(&all, &self.profile, &self.working_dir());
        if let Some(meta) = here.cloned() {
            if let Err(error) = self.open_session(meta) {
                self.warnings
                    .push(format!("{error}; this one starts a new session"));
            }
        }
    }

    /// The profile's saved places as `/saved` lists them.
    pub fn saved_places(&self) -> String {
        match self.profile_dir() {
            Some(dir) => {
                crate::tools::everyday::places::describe(&store::places::load(&dir, &self.warnings))
            }
            None => "There is no profile directory (no MARVIN_HOME).".into(),
        }
    }

    /// What `!blender` says: whether Blender's add-on answers at BLENDER_MCP_HOST:PORT, and
    /// the scene it has open.
    /// The look runs on another thread, so it is given as a job: the caller runs it and may
    /// cancel it (Ctrl+C).
    pub fn blender_status(&self) -> impl FnOnce(&crate::cancel::CancelToken) -> String + Send {
        let settings = self.settings.web.settings().clone();
        move |cancel| crate::tools::everyday::blender::status(&settings, cancel)
    }

    /// Warnings raised outside a turn (at start-up, by a command), for the front-end to show.
    pub fn take_warnings(&self) -> Vec<String> {
        self.warnings.take()
    }

    /// Where compaction saves the whole conversation first: the project's .marvin/logs in
    /// coding mode, else the profile directory.
    fn backup_dir(&self, working_dir: &Path) -> PathBuf {
        match (self.profile_dir(), self.coding_mode) {
            (Some(dir), false) => dir,
            _ => working_dir.join(".marvin").join("logs"),
        }
    }

    pub fn set_custom_tools(&mut self, tools: Vec<crate::tools::custom::Loaded>) {
        self.custom_tools = tools;
    }

    pub fn custom_tools(&self) -> &[crate::tools::custom::Loaded] {
        &self.custom_tools
    }

    /// `/mcp`: the MCP servers, their state and tools.
    pub fn mcp_report(&self) -> String {
        match self.registry.mcp() {
            Some(hub) => hub.report(),
            None => "No MCP servers are declared. Put them in $MARVIN_HOME/mcp.json or the project's .mcp.json (see the README), or pass --mcp-config FILE.".into(),
        }
    }

    /// `/mcp restart NAME`: starts that server again and says how it went.
    pub fn mcp_restart(&self, name: &str) -> Result<String, String> {
        match self.registry.mcp() {
            Some(hub) => hub.restart(name),
            None => Err("No MCP servers are declared.".into()),
        }
    }

    pub fn coding_mode(&self) -> bool {
        self.coding_mode
    }

    /// `!code`: the coding tools and the coding mode's longer idle timeout, or neither.
    pub fn set_coding_mode(&mut self, on: bool) {
        self.coding_mode = on;
        self.providers
            .set_idle_timeout(crate::config::idle_timeout(self.timeout_override, on));
    }

    /// The mode in effect: `accept-edits` once all file edits were allowed in `default`.
    pub fn permission_mode(&self) -> PermissionMode {
        self.shared.grants.mode(self.settings.permission_mode)
    }

    /// The approvals given in this session and project.
    pub fn grants(&self) -> &Grants {
        &self.shared.grants
    }

    /// A new question's id, unique in this session.
    pub fn next_question_id(&mut self) -> u64 {
        self.last_question += 1;
        self.last_question
    }

    /// Goes on numbering questions after `id`: a session served again, whose clients may still
    /// show the questions of its earlier life, never reuses their ids.
    pub fn number_questions_after(&mut self, id: u64) {
        self.last_question = self.last_question.max(id);
    }

    /// Questions left open by tools, to be asked now that the turn is over.
    pub fn take_deferred(&mut self) -> Vec<Deferred> {
        std::mem::take(&mut self.deferred)
    }

    /// A late answer: logged, and sent to the model at the start of the next turn.
    pub fn answer_later(&mut self, deferred: Deferred, response: &Response) {
        self.log(&format!(
            "late answer to {}: {}",
            describe_request(&deferred.prompt.request),
            describe_response(response)
        ));
        if !matches!(response, Response::Cancelled | Response::TimedOut) {
            self.follow_ups.push((deferred.render)(response));
        }
    }

    /// Appends a system line to the chat log; logging must never stop the conversation.
    fn log(&self, text: &str) {
        self.append_log("system", text);
    }

    /// A line of the conversation for the chat log, in interactive sessions (sub-agents and
    /// scripts do not write into the user's log).
    fn record(&self, role: &str, text: &str) {
        if self.non_interactive {
            return;
        }
        if self
            .mark_pending
            .swap(false, std::sync::atomic::Ordering::Relaxed)
            && text != store::chatlog::NEW_CONVERSATION
        {
            self.append_log("system", store::chatlog::NEW_CONVERSATION);
        }
        self.append_log(role, text);
    }

    fn append_log(&self, role: &str, text: &str) {
        if let Some(dir) = self.profile_dir() {
            if let Err(error) = store::chatlog::append(&dir, role, text) {
                self.warnings.push(format!(
                    "cannot write the chat log in {}: {error}",
                    dir.display()
                ));
            }
        }
    }

    /// The compact history this conversation's system prompt carries: fixed at its first
    /// request from the chat log (the conversations before it), none for one that took up
    /// messages of its own (they are in the conversation already).
    fn recent(&mut self) -> Option<String> {
        if self.recent.is_none() {
            let fresh = self.messages.len() <= 1;
            let history = self
                .profile_dir()
                .filter(|_| fresh && self.digest)
                .map(|d| store::chatlog::recent(&d, 20))
                .unwrap_or_default();
            self.recent = Some(crate::prompt::compact_history(&history));
        }
        self.recent.clone().flatten()
    }

    fn system_prompt(&mut self, working_dir: &Path, ctx: &crate::tools::ToolContext) -> String {
        let recent = self.recent();
        let tools_line = self.registry.prompt_line(ctx);
        let dir = self.profile_dir();
        let dir = dir.as_deref();
        let preferences = dir.and_then(|d| store::preferences::prompt_text(d, &self.warnings));
        let places = dir.and_then(|d| store::places::prompt_text(d, &self.warnings));
        let docs = project_docs(working_dir, self.user_home.as_deref());
        system_prompt(&PromptFacts {
            coding_mode: self.coding_mode,
            nobody_answers: !self.has_ui,
            readonly: self.readonly,
            working_dir,
            tools_line: &tools_line,
            append_file: self.registry.allows(ctx, "append_file"),
            jobs: &self.shared.jobs.running(),
            profile: &self.profile,
            preferences: preferences.as_deref(),
            places: places.as_deref(),
            recent: recent.as_deref(),
            project_docs: &docs,
        })
    }

    /// Keeps at most 40 messages (100 in coding mode) besides the system prompt: past that, the
    /// oldest go, a quarter of them at once.
    fn cap_messages(&mut self) {
        cap_messages(&mut self.messages, if self.coding_mode { 100 } else { 40 });
    }

    /// The stored session the conversation took up, if it did.
    pub fn resumed(&self) -> Option<&Resumed> {
        self.resumed.as_ref()
    }

    pub fn profile(&self) -> &str {
        &self.profile
    }

    /// The `usage` report: this session and all time.
    pub fn usage_report(&self) -> String {
        let lifetime = self
            .settings
            .marvin_home
            .as_deref()
            .map(|home| store::ledger::lifetime(home, &self.warnings))
            .unwrap_or_default();
        store::ledger::report(&self.totals(), &lifetime)
    }

    /// What the context holds and may hold (`--json`'s usage event); the window once a
    /// request has learned it.
    pub fn context(&self) -> crate::budget::ContextReport {
        let budget = self.budget.lock().unwrap_or_else(PoisonError::into_inner);
        budget.report(&self.messages)
    }

    /// `/context`: the same, the window learned now if no request has yet (the provider asks
    /// its server, briefly).
    pub fn learn_context(&self) -> crate::budget::ContextReport {
        let mut budget = self
            .budget
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if budget.model().is_none() {
            let cancel = crate::cancel::CancelToken::new();
            budget.follow(&self.providers.active().facts(&cancel));
        }
        budget.report(&self.messages)
    }

    /// New messages on the profile's ntfy subscriptions, fetched within two seconds at most.
    pub fn notifications(&self) -> Vec<String> {
        match self.profile_dir() {
            Some(dir) => self
                .settings
                .ntfy
                .poll_all(&dir, Duration::from_secs(2), &self.warnings),
            None => Vec::new(),
        }
    }

    /// The last ntfy messages heard on the profile's subscriptions, whole, the oldest first.
    pub fn heard_notifications(&self) -> Vec<crate::store::ntfy::Heard> {
        match self.profile_dir() {
            Some(dir) => crate::store::ntfy::heard(&dir, &self.warnings),
            None => Vec::new(),
        }
    }

    /// The session's ntfy server, for `--ntfy` notifications of a run.
    pub fn ntfy(&self) -> &Ntfy {
        &self.settings.ntfy
    }

    /// Forgets the conversation: the next turn starts a new session (the old one stays stored,
    /// and the chat log is marked where the new conversation starts).
    pub fn clear(&mut self) {
        self.messages.truncate(1);
        self.leave_session();
        self.record("system", store::chatlog::NEW_CONVERSATION);
    }

    /// Switches to another profile (creating it): its history replaces the conversation.
    pub fn switch_profile(&mut self, name: &str) -> Result<(), String> {
        store::valid_name(name)?;
        let home = self
            .settings
            .marvin_home
            .clone()
            .ok_or("there is no MARVIN_HOME to keep profiles in")?;
        let dir =
            store::open(&home, name).map_err(|e| format!("cannot open profile {name}: {e}"))?;
        self.profile = name.to_string();
        *self
            .shared
            .profile_dir
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(dir);
        self.messages.truncate(1);
        self.leave_session();
        if !self.non_interactive {
            self.resume_latest_here();
        }
        Ok(())
    }

    /// The active profile's directory (none without MARVIN_HOME); the tools read the same.
    pub fn profile_dir(&self) -> Option<PathBuf> {
        self.shared.profile_dir()
    }

    /// Where file paths, commands and git work now: where Marvin started, or where
    /// `set_working_dir` moved since. `!cmd` runs here too.
    pub fn working_dir(&self) -> PathBuf {
        self.workspace.current()
    }

    /// Where the tools may work and work now; the REPL's `!cd` moves it.
    pub(crate) fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    pub fn provider_name(&self) -> &str {
        self.providers.active().name()
    }

    pub fn model(&self) -> &str {
        self.providers.active().model()
    }

    /// The providers answering now, to be put back with [`Self::restore_providers`] after
    /// a turn answered by others (`!pro`).
    pub(crate) fn providers(&self) -> Arc<ProviderChain> {
        Arc::clone(&self.providers)
    }

    pub(crate) fn restore_providers(&mut self, providers: Arc<ProviderChain>) {
        self.providers = providers;
    }

    /// Answers with `provider` from the next message on, keeping the conversation and the
    /// other providers as fallbacks.
    pub fn switch_provider(&mut self, provider: Arc<dyn crate::llm::Provider>) {
        provider.set_idle_timeout(crate::config::idle_timeout(
            self.timeout_override,
            self.coding_mode,
        ));
        self.providers = Arc::new(self.providers.with_primary(provider));
    }

    /// Usage over the whole session (the same the get_usage tool reports).
    pub fn totals(&self) -> Tally {
        self.shared
            .usage
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }
}

fn tool_settings(config: &Config, provider: String, model: String) -> ToolSettings {
    ToolSettings {
        search_path: config.search_path.clone(),
        notes_home: config.notes_home.clone(),
        depth: config.depth,
        ticket: config.ticket.clone(),
        subagent_log: config.subagent_log.clone(),
        executable: std::env::current_exe().ok(),
        provider,
        model,
        code_model_high: config.code_model_high.clone(),
        code_model_low: config.code_model_low.clone(),
        permission_mode: config.permission_mode,
        marvin_home: config.home.clone(),
        ntfy: Ntfy::new(
            &config.ntfy_url,
            config.proxy.for_url(&config.ntfy_url),
            config.web.key("NTFY_TOKEN"),
        ),
        form_surface: config.form_surface.clone(),
        temp_dir: config.temp_dir.clone(),
        sandbox: config.sandbox.clone(),
        on_demand: config.tools_on_demand,
        web: crate::tools::kit::web::Web::new(
            config.web.clone(),
            config.endpoints.clone(),
            config.proxy.clone(),
        ),
    }
}

/// Drops the oldest messages after the system prompt so that `cap - 1` remain and the next
/// one fits; a tool round is dropped whole, never leaving results without their call, nor a
/// call without the person's message before it (providers refuse either).
fn cap_messages(messages: &mut Vec<Message>, cap: usize) {
    let held = messages.len().saturating_sub(1);
    if held < cap {
        return;
    }
    // Down to three quarters of the cap at once (with room for the message that follows), so
    // the conversation's start changes once in a while, not with every message: a provider's
    // cache of the prompt's start holds in between.
    let keep = (cap * 3 / 4).max(1);
    let excess = held - (keep - 1);
    let mut end = 1 + excess;
    while end < messages.len()
        && (messages[end].role == Role::Tool || !messages[end].tool_calls.is_empty())
    {
        end += 1;
    }
    messages.drain(1..end);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;

    #[test]
    fn the_cap_drops_the_oldest_and_never_splits_a_tool_round() {
        let mut messages = vec![Message::system("s")];
        for i in 0..5 {
            messages.push(Message::user(format!("u{i}")));
            messages.push(Message::assistant(format!("a{i}")));
        }
        cap_messages(&mut messages, 4);
        let texts: Vec<&str> = messages.iter().map(Message::text).collect();
        assert_eq!(texts, ["s", "u4", "a4"]);
        // Under the cap nothing goes: the start stays as it was until the cap is reached.
        messages.push(Message::user("u5"));
        cap_messages(&mut messages, 4);
        assert_eq!(messages.len(), 4);

        let call = ToolCall::new("c", "t", "{}");
        let mut call_message = Message::assistant("");
        call_message.tool_calls.push(call.clone());
        let mut messages = vec![
            Message::system("s"),
            Message::user("u"),
            call_message,
            Message::tool_result(&call, "r".into()),
            Message::assistant("done"),
        ];
        cap_messages(&mut messages, 3);
        // Dropping u and the call would orphan the result: it goes too.
        let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::System, Role::Assistant]);

        // Dropping u alone would leave a call first, before any question: the round goes too.
        let mut messages = vec![
            Message::system("s"),
            Message::user("u"),
            call_message_with("c1"),
            Message::tool_result(&ToolCall::new("c1", "t", "{}"), "r".into()),
            call_message_with("c2"),
            Message::tool_result(&ToolCall::new("c2", "t", "{}"), "r".into()),
            Message::assistant("done"),
        ];
        cap_messages(&mut messages, 6);
        let texts: Vec<&str> = messages.iter().map(Message::text).collect();
        assert_eq!(texts, ["s", "done"]);
    }

    fn call_message_with(id: &str) -> Message {
        let mut message = Message::assistant("");
        message.tool_calls.push(ToolCall::new(id, "t", "{}"));
        message
    }
}
