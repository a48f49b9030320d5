//! Picks the mode from the arguments and the terminal, and maps how it ended to an exit code.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use crate::cli::Args;
use crate::config;
use crate::config::{Config, ConfigError, Env, ProviderSettings, SETUP_HELP};
use crate::interact::approvals::PermissionMode;
use crate::llm::{self, chain::ProviderChain};
use crate::local;
use crate::session::{Session, TurnEnd};
use crate::store::sessions::Meta;
use crate::tools::custom::{self, Origin};
use crate::tools::{self, Registry};
use crate::ui::batch::BatchView;
use crate::ui::output::warn;
use crate::ui::signal;
use crate::ui::terminal::TerminalView;
use crate::ui::{repl, resume, stdin};
use crate::usage::Tally;

/// Runs Marvin with parsed arguments.
pub fn run(args: Args) -> ExitCode {
    tools::install_panic_hook();
    crate::sandbox::keep_to_myself();
    // A run that answers once ends on SIGTERM/SIGHUP like on Ctrl+C from its very start; the
    // REPL only during a turn (at its prompt they end Marvin once its temporary files are
    // removed).
    let repl = !args.non_interactive
        && args.answer.is_none()
        && !args.once
        && std::io::stdin().is_terminal();
    if !repl {
        signal::arm();
    } else {
        signal::tidy_before_stop(crate::tools::kit::scratch::remove_all);
    }
    signal::install();
    let env = Env::from_process();
    if args.serve {
        return serve(&args, &env);
    }
    if let Some((login, name)) = &args.mcp_sign_in {
        return match crate::tools::mcp::oauth::command::run(&args, &env, *login, name) {
            Ok(done) => {
                println!("{done}");
                ExitCode::SUCCESS
            }
            Err(message) => fail(&message),
        };
    }
    if let Some(url) = &args.attach {
        let style = crate::ui::style::Style {
            colour: crate::config::colour_allowed(&env) && std::io::stdout().is_terminal(),
            unicode: crate::config::unicode_locale(&env),
        };
        return match crate::ui::attach::run(url, style, args.raw) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => fail(&message),
        };
    }
    if args.pending || args.drop.is_some() {
        return resume::store_command(&args, &env);
    }
    // An answer to a parked run goes on as the run did: a --non-interactive run.
    if args.non_interactive || args.answer.is_some() {
        let args = Args {
            non_interactive: true,
            ..args
        };
        return non_interactive(&args, &env);
    }
    with_terminal_or_pipe(args, &env)
}

/// A run that is not --non-interactive: the REPL, `--once`, or a question about piped text.
fn with_terminal_or_pipe(args: Args, env: &Env) -> ExitCode {
    let (mut config, resumed) = match config_and_session(&args, env) {
        Ok(found) => found,
        Err(message) => return fail(&message),
    };
    config.has_ui = std::io::stdin().is_terminal();
    config.answers_once |= !config.has_ui;
    // A parked run taken up without a prompt to ask its question on goes on as it ran: as a
    // --non-interactive run (with the phone's answer, or saying how to give one).
    let parked = resumed.as_ref().is_some_and(|m| m.parked.is_some());
    if parked && (!config.has_ui || args.once) {
        let args = Args {
            non_interactive: true,
            ..args
        };
        return non_interactive(&args, env);
    }
    // Only the REPL carries on the last session here: a one-shot answer starts fresh unless -c.
    config.resume &= config.has_ui || args.continue_last;
    let mut session = new_session(&config);
    if let Some(meta) = resumed {
        if let Err(message) = session.open_session(meta) {
            return fail(&message);
        }
    }
    if std::io::stdin().is_terminal() {
        let first = args.question.as_deref();
        if args.once {
            let Some(question) = first else {
                return fail(
                    "--once needs a question, e.g. marvin --once \"what time is it in Tokyo?\"",
                );
            };
            let mut view = TerminalView::new(&config);
            let report = repl::ask(&mut session, &mut view, question);
            return exit_code(&report.end, &view);
        }
        let providers = Desk {
            env,
            config: &config,
        };
        return match repl::run(&config, &mut session, first, &providers) {
            Ok(()) if signal::stop_signal().is_some() => ExitCode::from(signal::stopped_status()),
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => fail(&message),
        };
    }
    single_shot(&config, &mut session, args.question.as_deref(), args.once)
}

/// `marvin serve`: sessions served over HTTP until Ctrl+C, SIGTERM or SIGHUP. The address, with
/// its token, is the first line on stdout.
fn serve(args: &Args, env: &Env) -> ExitCode {
    signal::arm();
    let mut config = match build_config(args, env) {
        Ok(config) => config,
        Err(message) => return fail(&message),
    };
    // The clients answer questions; a session is made or taken up through the API.
    config.has_ui = true;
    config.resume = false;
    let (registry, loaded) = tool_registry(&config);
    let (home, question_timeout) = (config.home.clone(), config.question_timeout);
    let temp = config.temp_dir.clone();
    let surface = config.form_surface.clone();
    let new_session: crate::gateway::NewSession =
        Box::new(move || session_with(&config, Arc::clone(&registry), loaded.clone()));
    let listen = args.listen;
    let started = move |address: &str, port: u16| {
        println!("{address}");
        let _ = std::io::Write::flush(&mut std::io::stdout());
        warn(
            "serving sessions at that address (its token is needed for every request); Ctrl+C stops",
        );
        // Said once it listens (an address it cannot take gets its error alone); a loopback
        // address other than 127.0.0.1 is still this machine only.
        if let Some(ip) = listen.filter(|ip| !ip.is_loopback()) {
            warn(&format!(
                "--listen {ip}: the gateway is reachable from the network; whoever gets its address with the token uses Marvin with your keys and files (prefer 127.0.0.1 and ssh -L)"
            ));
        }
        if let Some(why) = surface.show(address, port) {
            warn(&why);
        }
    };
    let mut watch = signal::Watch::new();
    let stop = move || watch.fired() || signal::stop_signal().is_some();
    let place = crate::gateway::Place {
        listen: args.listen,
        port: args.port.unwrap_or(0),
        temp: temp.unwrap_or_else(|| "/tmp".into()),
    };
    match crate::gateway::serve(place, home, question_timeout, new_session, started, stop) {
        Ok(()) => ExitCode::from(signal::stopped_status()),
        Err(message) => fail(&message),
    }
}

/// The configuration, and the stored session `--resume` names (the configuration is built in
/// that session's directory, so a project's tools and MCP servers are that project's).
fn config_and_session(args: &Args, env: &Env) -> Result<(Config, Option<Meta>), String> {
    let config = build_config(args, env)?;
    let Some(meta) = resume::chosen(args, &config)? else {
        return Ok((config, None));
    };
    let mut config = match resume::working_dir(args, &meta, &config) {
        Some(dir) => build_config_in(args, env, &dir)?,
        None => config,
    };
    config.resume = false;
    // A parked run goes on with the permissions it had (one that cannot be read: asking before
    // anything is done); the answer to one question widens none, and MARVIN_READONLY stays.
    let parked_mode = meta
        .parked
        .as_ref()
        .map(|p| PermissionMode::parse(&p.permission_mode).unwrap_or(PermissionMode::Default));
    if let (None, Some(mode)) = (&args.permission_mode, parked_mode) {
        if config.permission_mode != PermissionMode::Plan {
            config.permission_mode = mode;
        }
    }
    Ok((config, Some(meta)))
}

/// How long `--once QUESTION` (and `--non-interactive QUESTION`) waits for piped text to begin.
const ONCE_GRACE: std::time::Duration = std::time::Duration::from_millis(300);
/// After this long with a question and a silent stdin, say what Marvin waits for.
const QUIET_STDIN: std::time::Duration = std::time::Duration::from_secs(3);

/// Stdin is not a terminal: answer once, about the piped text if there is any. With `--once`
/// and a question, text that has not begun to arrive within a moment is not waited for.
fn single_shot(
    config: &Config,
    session: &mut Session,
    question: Option<&str>,
    once: bool,
) -> ExitCode {
    let piped = stdin::is_piped();
    if piped
        && question.is_some()
        && !once
        && !stdin::ready_within(QUIET_STDIN)
        && signal::stop_signal().is_none()
    {
        warn(
            "waiting for the text piped into stdin to end (to ask without it: </dev/null or --once)",
        );
    }
    let wait_for_stdin = question.is_none() || !once || stdin::ready_within(ONCE_GRACE);
    if piped && !wait_for_stdin {
        warn("stdin is not read: nothing arrived on it within 0.3 s, and --once does not wait");
    }
    let piped = if piped && wait_for_stdin {
        match read_stdin() {
            Ok(text) => Some(text),
            Err(message) => return ExitCode::from(failed_reading(&message)),
        }
    } else {
        None
    };
    let prompt = match (question, piped.as_deref().filter(|t| !t.trim().is_empty())) {
        (Some(question), Some(text)) => stdin::with_piped_text(question, text),
        (Some(question), None) => question.to_string(),
        (None, Some(text)) => text.trim().to_string(),
        (None, None) => {
            return fail(
                "no question: stdin is not a terminal, so give the question as an argument (marvin \"...\") or pipe it in",
            );
        }
    };
    let mut view = TerminalView::new(config);
    let report = repl::ask(session, &mut view, &prompt);
    exit_code(&report.end, &view)
}

/// Reports a failed read of stdin; its exit status is 128 + the signal when SIGTERM or SIGHUP
/// stopped it.
fn failed_reading(message: &str) -> u8 {
    let code = report(message);
    signal::stop_signal().map_or(code, |_| signal::stopped_status())
}

fn read_stdin() -> Result<String, String> {
    let (text, dropped) = stdin::read_piped().map_err(|e| format!("reading stdin: {e}"))?;
    if dropped > 0 {
        warn(&format!(
            "piped input is {} bytes; sending the first {} (the rest is left out)",
            text.len() as u64 + dropped,
            stdin::MAX_PIPED
        ));
    }
    Ok(text)
}

/// `--non-interactive`: one prompt, the raw answer, `MARVIN_COST` last on stderr whatever happens.
fn non_interactive(args: &Args, env: &Env) -> ExitCode {
    // Even a bug must not cost the caller its cost line.
    let answered =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| answer_once(args, env)));
    let (code, totals) = answered.unwrap_or_else(|_| {
        (
            report("internal error (a bug in Marvin); please report it"),
            Tally::default(),
        )
    });
    eprintln!("{}", totals.cost_line());
    ExitCode::from(code)
}

fn answer_once(args: &Args, env: &Env) -> (u8, Tally) {
    let (mut config, resumed) = match config_and_session(args, env) {
        Ok(found) => found,
        Err(message) => return (report(&message), Tally::default()),
    };
    let answer = match resume::answer(args, resumed.as_ref(), &config) {
        Ok(answer) => answer,
        Err(message) => return (report(&message), Tally::default()),
    };
    // A parked run taken up parks again on its next question, unless --on-ask says otherwise.
    if answer.is_some() && args.on_ask.is_none() {
        config.on_ask = config::OnAsk::Park;
    }
    // Questions reach the view (which fails the run or asks on stdin) unless they are denied.
    config.has_ui = config.on_ask != config::OnAsk::Deny;
    let prompt = match answer {
        Some(_) => None,
        None => match batch_prompt(args) {
            Ok(prompt) => Some(prompt),
            Err(code) => return (code, Tally::default()),
        },
    };
    // The question the answer was checked against, as the run showed it.
    let answered = resumed
        .as_ref()
        .and_then(|m| m.parked.as_ref())
        .and_then(|p| p.questions.first().cloned())
        .unwrap_or_default();
    let mut session = new_session(&config);
    if let Some(meta) = resumed {
        if let Err(message) = session.open_session(meta) {
            return (report(&message), Tally::default());
        }
    }
    let mut view = BatchView::new(args.json, config.verbose, config.on_ask);
    if let (config::OnAsk::Notify | config::OnAsk::Wait(_), Some(topic)) =
        (config.on_ask, &config.ntfy)
    {
        view = view.with_phone(session.ntfy().clone(), topic.clone());
    }
    let report = match (prompt, answer) {
        (Some(prompt), _) => {
            notify(&config, &session, "started", &prompt);
            session.submit(&prompt, &mut view)
        }
        (None, answer) => {
            notify(
                &config,
                &session,
                "resumed",
                args.answer.as_deref().unwrap_or(""),
            );
            view = view.with_answer(answer.unwrap_or_default(), answered);
            session.resume_parked(&mut view)
        }
    };
    // Questions its tools left open are asked now; their answers make turns of their own.
    let report = view.late_answers(&mut session, report);
    let code = end_batch_run(&config, &mut session, &mut view, &report);
    (code, session.totals())
}

/// Tells --ntfy how the run ended, parks it when a question stopped it, and writes its end.
fn end_batch_run(
    config: &Config,
    session: &mut Session,
    view: &mut BatchView,
    report: &crate::session::TurnReport,
) -> u8 {
    match &report.end {
        TurnEnd::Answered(answer) => notify(config, session, "finished", answer.text()),
        TurnEnd::Failed(error) => notify(config, session, "failed", &error.message),
        TurnEnd::Cancelled => notify(config, session, "cancelled", signal::stopped_by()),
        TurnEnd::Parked => {
            let parked = session.park(view.take_parked(), config.park_for);
            if let (Ok(meta), Some(topic)) = (&parked, &config.ntfy) {
                ask_the_phone(config, session, meta, topic);
            }
            return view.finish_parked(report, parked);
        }
    }
    if view.is_broken() {
        0
    } else {
        view.finish(report)
    }
}

/// The prompt of a --non-interactive run: --prompt, else the words (with the text piped in, as
/// `CMD | marvin --once QUESTION` has it: text that has not begun to arrive within a moment is
/// not waited for), else stdin; or the exit code of why there is none.
fn batch_prompt(args: &Args) -> Result<String, u8> {
    if let Some(prompt) = &args.prompt {
        return Ok(prompt.clone());
    }
    let piped = match &args.question {
        Some(_) if !stdin::is_piped() => None,
        // As with --once: a pipe that stays open and silent (ssh, a harness) is not waited for.
        Some(_) if !stdin::ready_within(ONCE_GRACE) => {
            warn(
                "stdin is not read: nothing arrived on it within 0.3 s, and a prompt given as words does not wait",
            );
            None
        }
        None if std::io::stdin().is_terminal() => {
            return Err(report(
                "--non-interactive needs a prompt: as words, with --prompt TEXT or on stdin",
            ));
        }
        _ => Some(read_stdin().map_err(|message| failed_reading(&message))?),
    };
    let piped = piped.as_deref().filter(|text| !text.trim().is_empty());
    match (&args.question, piped) {
        (Some(question), Some(text)) => Ok(stdin::with_piped_text(question, text)),
        (Some(question), None) => Ok(question.clone()),
        (None, Some(text)) => Ok(text.trim().to_string()),
        (None, None) => Err(report("the prompt on stdin is empty")),
    }
}

/// `--on-ask park --ntfy TOPIC`: the question the run waits for goes to the phone, whose
/// answer `marvin --resume ID` picks up; a phone that cannot be reached is a warning.
fn ask_the_phone(config: &Config, session: &mut Session, meta: &Meta, topic: &str) {
    let Some(request) = crate::ui::park::parked_request(meta) else {
        return;
    };
    let resume = format!("marvin --resume {}", meta.id);
    let sent = crate::ui::phone::send_parked(session.ntfy(), topic, &request, &resume);
    let noted = sent.and_then(|(reply_topic, secret)| {
        session.park_phone(crate::store::sessions::ParkedPhone {
            ntfy_url: config.ntfy_url.clone(),
            reply_topic,
            secret,
        })
    });
    if let Err(why) = noted {
        warn(&format!(
            "--ntfy: the question could not be sent to the phone: {why}"
        ));
    }
}

/// Tells the --ntfy topic how the run goes; a notification that cannot be sent is a warning.
fn notify(config: &Config, session: &Session, state: &str, text: &str) {
    let Some(topic) = &config.ntfy else { return };
    let mut body: String = text.chars().take(300).collect();
    if body.len() < text.len() {
        body.push('…');
    }
    let title = format!("Marvin {state}");
    // Sent whatever ended the run, a stop signal included: nothing cancels it but its timeout.
    let sent = session.ntfy().publish(
        topic,
        Some(&title),
        &body,
        std::time::Duration::from_secs(5),
        &crate::cancel::CancelToken::new(),
    );
    if let Err(error) = sent {
        warn(&format!("--ntfy: {error}"));
    }
}

fn build_config(args: &Args, env: &Env) -> Result<Config, String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    build_config_in(args, env, &cwd)
}

/// The configuration of a run started in `cwd`.
fn build_config_in(args: &Args, env: &Env, cwd: &std::path::Path) -> Result<Config, String> {
    let cwd = cwd.to_path_buf();
    match Config::build(args, env, &cwd) {
        Ok(config) => Ok(config),
        Err(ConfigError::Invalid(message)) => Err(message),
        // Nothing set up: a model server on this machine will do, said on one line.
        Err(ConfigError::NoProvider) => {
            let Some(found) = local::find(&env.local_ports()?) else {
                return Err(SETUP_HELP.to_string());
            };
            let variables = found.variables();
            let env = env.with(variables.iter().map(|(k, v)| (*k, v.as_str())));
            let config = Config::build(args, &env, &cwd).map_err(|error| match error {
                ConfigError::NoProvider => SETUP_HELP.to_string(),
                ConfigError::Invalid(message) => message,
            })?;
            warn(&format!(
                "no provider is set up; using {} (see `marvin --list-providers`)",
                found.describe()
            ));
            Ok(config)
        }
    }
}

/// One session of this run, with the process's tools.
fn new_session(config: &Config) -> Session {
    let (registry, loaded) = tool_registry(config);
    session_with(config, registry, loaded)
}

/// The tools of the process, built once and shared by every session it runs: the built-in
/// ones and the user's own (MARVIN_HOME/tools, and the project's .marvin/tools). A tool that
/// cannot be loaded is a warning.
fn tool_registry(config: &Config) -> (Arc<Registry>, Vec<custom::Loaded>) {
    let mut registry = Registry::builtin();
    let mut dirs = Vec::new();
    if let Some(home) = &config.home {
        dirs.push((home.join("tools"), Origin::User));
    }
    dirs.push((
        config.working_dir.join(".marvin").join("tools"),
        Origin::Project,
    ));
    let (loaded, warnings) = custom::load(&mut registry, &dirs);
    for warning in warnings.iter().chain(&config.mcp.warnings) {
        warn(warning);
    }
    if !config.mcp.servers.is_empty() {
        registry.set_mcp(crate::tools::mcp::Hub::start(
            &config.mcp,
            &config.working_dir,
            &config.sandbox,
        ));
    }
    (Arc::new(registry), loaded)
}

/// A session on `registry`, with its own providers (and so its own network clients: a cancel
/// in one session must not cut another's connections) in the profile Config chose.
fn session_with(config: &Config, registry: Arc<Registry>, loaded: Vec<custom::Loaded>) -> Session {
    if let Some(home) = &config.home {
        if let Err(error) = crate::store::open(home, &config.profile) {
            warn(&format!(
                "cannot open profile {} in {}: {error}",
                config.profile,
                home.display()
            ));
        }
    }
    let providers = std::iter::once(&config.provider)
        .chain(&config.fallbacks)
        .map(|settings| llm::connect(settings, config.search_path.clone()))
        .collect();
    let chain = ProviderChain::new(providers)
        .answering_once(config.answers_once)
        .waiting_for_loads(config.load_wait);
    let mut session = Session::new(config, Arc::new(chain), registry);
    session.set_custom_tools(loaded);
    for warning in session.take_warnings() {
        warn(&warning);
    }
    session
}

/// The app's side of `/provider` and `/model`: the table, and providers built from the
/// environment as --provider would build them.
struct Desk<'a> {
    env: &'a Env,
    config: &'a Config,
}

impl repl::ProviderDesk for Desk<'_> {
    fn table(&self, name: &str, model: &str) -> String {
        crate::providers::table(self.env, Some(self.config), Some((name, model)))
    }

    fn switch(&self, session: &mut Session, name: &str, model: Option<&str>) -> Result<(), String> {
        // The provider the run started with is switched as it was set up (a server found on
        // this machine is in no variable).
        let settings = match (&self.config.provider, model) {
            (started, Some(model)) if started.kind.name() == name => ProviderSettings {
                model: model.to_string(),
                model_hint: "/model".into(),
                ..started.clone()
            },
            _ => self
                .config
                .provider_settings(self.env, name, model.map(str::to_string))?,
        };
        crate::providers::check_answering(&settings)?;
        session.switch_provider(llm::connect(&settings, self.config.search_path.clone()));
        Ok(())
    }
}

/// 0 answered (or nobody was reading any more), 1 failed, 128 + the signal when stopped.
fn exit_code(end: &TurnEnd, view: &TerminalView) -> ExitCode {
    if view.is_broken() {
        return ExitCode::SUCCESS;
    }
    match end {
        TurnEnd::Answered(_) => ExitCode::SUCCESS,
        TurnEnd::Failed(_) => ExitCode::FAILURE,
        TurnEnd::Cancelled => ExitCode::from(signal::stopped_status()),
        TurnEnd::Parked => ExitCode::from(crate::ui::batch::PARKED),
    }
}

/// Prints an error the house way and returns exit status 1.
pub fn report(message: &str) -> u8 {
    warn(message);
    1
}

fn fail(message: &str) -> ExitCode {
    ExitCode::from(report(message))
}
