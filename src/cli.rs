//! Command-line parsing with lexopt, and the --help text: written by hand, but for the
//! services' variables, which come from the table in `services`.

use std::ffi::OsString;
use std::path::PathBuf;

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Command {
    Help,
    Version,
    /// `--completions SHELL`: the shell's completion script.
    Completions(String),
    ListProviders,
    Run(Box<Args>),
}

/// The flags and the question, exactly as given. No I/O happens while parsing.
#[derive(Debug, Default, PartialEq)]
pub struct Args {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub plain: bool,
    pub non_interactive: bool,
    pub prompt: Option<String>,
    pub working_dir: Option<PathBuf>,
    pub ntfy: Option<String>,
    pub once: bool,
    pub json: bool,
    pub permission_mode: Option<String>,
    pub profile: Option<String>,
    pub no_browser: bool,
    /// `--mcp-config FILE`: MCP servers for this run, besides mcp.json and .mcp.json.
    pub mcp_config: Option<PathBuf>,
    /// `--no-mcp`: start no MCP server.
    pub no_mcp: bool,
    /// `--new`: start a fresh conversation instead of resuming the chat log's.
    pub new: bool,
    /// `--raw`: the answer as the model wrote it (no Markdown rendering on a terminal).
    pub raw: bool,
    /// `--on-ask MODE`: what a --non-interactive run does when a tool asks.
    pub on_ask: Option<String>,
    /// `--tools auto|all`: the tools a request offers (MARVIN_TOOLS otherwise).
    pub tools: Option<String>,
    /// `--sandbox MODE`: how programs run for the model are confined (MARVIN_SANDBOX otherwise).
    pub sandbox: Option<String>,
    /// `--no-network`: programs run for the model get no network (TCP).
    pub no_network: bool,
    /// `--verbose`: say on stderr which tool families each request offers, and why.
    pub verbose: bool,
    /// `--code`: coding mode for a one-shot or REPL run (files change, commands run).
    pub code: bool,
    /// `-c`, `--continue`: take up the last session here (one-shot runs start fresh otherwise).
    pub continue_last: bool,
    /// `--resume [NAME]`: take up a stored session; without a name, pick one from a list.
    pub resume: Option<Option<String>>,
    /// `--answer TEXT`: the answer to the question a parked session (`--resume`) waits for.
    pub answer: Option<String>,
    /// `--pending`: list the runs parked on a question.
    pub pending: bool,
    /// `--drop ID`: delete a stored session (a parked run nobody will answer).
    pub drop: Option<String>,
    /// `marvin serve`: the gateway.
    pub serve: bool,
    /// `--port N`: where `marvin serve` listens (default: a free port).
    pub port: Option<u16>,
    /// `--listen ADDR`: the address `marvin serve` listens on instead of 127.0.0.1.
    pub listen: Option<std::net::IpAddr>,
    /// `--attach URL`: the terminal as a client of a session `marvin serve` serves.
    pub attach: Option<String>,
    /// `marvin mcp login NAME` (true) or `marvin mcp logout NAME` (false).
    pub mcp_sign_in: Option<(bool, String)>,
    /// The words after the flags, joined: `marvin what is a monad`.
    pub question: Option<String>,
}

/// The whole --help text.
pub fn help() -> String {
    format!("{HELP}\n{}\n{EXIT_STATUS}", crate::services::help())
}

/// --help up to the services.
const HELP: &str = "\
Marvin: a terminal AI assistant.

Usage:
  marvin                       open the prompt (Ctrl+D or `quit` leaves)
  marvin QUESTION...           answer, then stay at the prompt
  marvin --once QUESTION...    answer and exit
  CMD | marvin QUESTION...     answer about the piped text and exit
  marvin --non-interactive QUESTION...     for scripts, cron and sub-agents
  marvin serve [--port N]      serve sessions over HTTP on 127.0.0.1
  marvin mcp login NAME        sign in to the MCP server NAME (OAuth, in a
                               browser); `marvin mcp logout NAME` forgets it

Options:
      --provider NAME      copilot, openai, gemini, groq, ollama or
                           openai-compat
      --model NAME         model to use (overrides MARVIN_MODEL)
      --once               exit after answering QUESTION
      --non-interactive    one prompt in, raw answer on stdout, exit; coding
                           tools on; MARVIN_COST:{json} last on stderr
      --prompt TEXT        the prompt for --non-interactive (else QUESTION,
                           else stdin)
      --json               with --non-interactive: one JSON event per line
      --on-ask MODE        with --non-interactive, when a tool asks: deny
                           (default), fail (exit 3), stdin (with --json:
                           questions as events, answers as JSON lines),
                           notify (to the --ntfy topic, answered from the
                           phone: whoever reads the topic can answer, so it
                           must be unguessable), wait:SECONDS (both, then
                           deny) or park (save the run and exit 4; see
                           --resume --answer)
  -c, --continue           take up the last session here (this directory and
                           profile); the prompt does so unless --new
      --resume [NAME]      take up a stored session by name or id (a list to
                           pick from when no name follows; quote a name of
                           several words)
      --answer TEXT        with --resume: answer the question a parked run
                           waits for (a label, a number, once, session, no:
                           REASON, or the JSON of --on-ask stdin) and go on
      --pending            list the runs parked on a question
      --drop ID            delete a stored session (a parked run too)
      --port N             with serve: the port to listen on (default: any
                           free one)
      --listen ADDR        with serve: listen on this address of the machine
                           instead of 127.0.0.1 (reachable from the network)
      --attach URL         follow and answer a session marvin serve serves, from
                           this terminal (URL as it printed, #SESSION added)
      --new                start a fresh conversation (the prompt otherwise
                           takes up the last session here)
      --raw                print the answer as the model wrote it, without
                           rendering its Markdown (always so when piped)
      --code               coding mode: the tools that change files, run
                           commands and commit are offered too (always so
                           with --non-interactive; !code in the REPL). In a
                           project, a question about the code can read it
                           without this
      --working-dir DIR    directory the file tools work in (default: cwd)
      --permission-mode M  default (ask before commands, git writes and file
                           changes), accept-edits (ask only before
                           commands), plan (read-only) or bypass (never
                           ask); default: default, bypass with
                           --non-interactive
      --sandbox MODE       how programs run for the model are confined (Linux
                           5.19+): workspace (default: write only in the
                           working and temp dirs, never read ~/.ssh and
                           other secret stores), read-only (write nowhere)
                           or off
      --no-network         programs run for the model get no network (TCP)
      --profile NAME       use (or create) this profile; remembered for next
                           time (default: the last one, else default)
      --ntfy TOPIC         with --non-interactive: notify this ntfy topic
                           when the run starts, finishes or fails
      --no-browser         show the interview form's address instead of
                           opening a browser
      --mcp-config FILE    MCP servers for this run, in mcp.json's format
      --no-mcp             start no MCP server (mcp.json and .mcp.json
                           are not read)
      --tools WHICH        auto (default): each request offers a few core
                           tools and the families the conversation needs,
                           and find_tools loads any other; all: every tool
      --verbose            say on stderr which tool families each request
                           offers, and why
      --list-providers     show each provider, its model and where its
                           credentials were found (never the key)
      --plain              accepted for compatibility; the UI is always plain
      --completions SHELL  print the completion script for bash, zsh or fish
  -h, --help               show this help
  -V, --version            show the version

Environment:
  LLM_PROVIDER             provider when --provider is not given; default:
                           the first set up of copilot, openai, gemini,
                           groq, openai-compat, ollama
  MARVIN_FALLBACK          providers to fall back to, e.g. groq,gemini
                           (default: copilot when logged in; none: off)
  MARVIN_TIMEOUT           seconds to wait with nothing arriving from the
                           model (default 180, 900 in coding mode)
  MARVIN_MODEL             model for any provider
  GEMINI_MODEL             per-provider models (defaults: gemini-3-pro-preview,
  GROQ_MODEL                 llama-3.3-70b-versatile, qwen/qwen3-32b; openai
  OPENAI_COMPAT_MODEL        uses gpt-5.1)
  MARVIN_CHAT_MODEL        copilot model (default claude-haiku-4.5)
  OLLAMA_MODEL             Ollama model (default qwen3-coder:30b)
  MARVIN_HOME              Marvin's files (default: $XDG_CONFIG_HOME/marvin,
                           else ~/.config/marvin)
  MARVIN_DEPTH             sub-agent nesting depth (set for sub-agents)
  MARVIN_READONLY          1: offer no tools that write
  MARVIN_TICKET            parent ticket of a sub-agent
  MARVIN_SUBAGENT_LOG      file that every tool call is logged to (JSONL)
  MARVIN_CODE_MODEL_HIGH   sub-agent models: opus (claude-opus-4.6) and
  MARVIN_CODE_MODEL_LOW      codex (gpt-5.3-codex)
  HTTPS_PROXY, NO_PROXY    proxy for the services below (never for loopback)
  MARVIN_PARK_DAYS         days a parked run waits for its answer (default 7)
  MARVIN_TOOLS             auto or all, as --tools (default auto)
  MARVIN_SANDBOX           workspace, read-only or off, as --sandbox
  MARVIN_SANDBOX_WRITE     more directories programs may write in, `:`
                           between them (e.g. ~/.cargo:~/.npm)
  MARVIN_SANDBOX_NETWORK   off: as --no-network
  MARVIN_PHONE_TOPIC       ntfy topic where a question left unanswered at the
                           prompt goes, with buttons that answer it
  MARVIN_PHONE_AFTER       minutes a question waits at the prompt before it
                           goes to the phone (default 10)
  MARVIN_NTFY_ANY_TOPIC    1: let questions go to an ntfy topic that does not
                           look generated (only if you alone can read it)
  MARVIN_QUESTION_TIMEOUT  seconds a question of marvin serve waits for a
                           client (default: the tool's own, 10 minutes)
  MARVIN_LOAD_WAIT         seconds to wait for a model server still loading
                           its model (default 60)
  MARVIN_DIGEST            off: a new conversation's prompt carries no digest
                           of the chat log's last exchanges (default on)
  MARVIN_CONTEXT_BUDGET    context limit in tokens (default: the model's
                           window less room for the answer and the tools, at
                           most 226000; results are cut near it, older
                           messages summarised)
  MARVIN_TOOL_TIMEOUT      seconds one web call of a tool may take (default 30)
  MARVIN_DOWNLOADS_DIR     where download_file saves (default ~/Downloads)
  MARVIN_WEB_ALLOW         addresses of this machine or your network the web
                           tools may read unasked (localhost:3000, 10.0.0.0/8,
                           *; default none: you are asked, or it is refused)
  MARVIN_CLONES_DIR        where github_clone clones (default ~/github-clones)
  MARVIN_CRONTAB           program that edits the crontab (default crontab)
  MARVIN_CRON_TZ           the zone the cron daemon runs in, when not the
                           system's (alarms are written in its time)
  BLENDER_MCP_HOST         the Blender add-on's socket (default 127.0.0.1
  BLENDER_MCP_PORT           and port 9876)
  SPOTIFY_CLIENT_ID        your Spotify app's client id, for spotify_auth
  SPOTIFY_REDIRECT_PORT    port of spotify_auth's redirect URI (default 8888:
                           http://127.0.0.1:8888/callback)
  MARVIN_LOCAL_PORTS       ports where a local model server is looked for when
                           nothing is set up (default 11434,8080,1234; none)
  MARVIN_RECORDER          program !v and !voice record with, run as
                           PROGRAM OUTPUT SECONDS (default arecord on
                           Linux, else sox)
  WHISPER_MODEL            Groq's transcription model (whisper-large-v3)
  VISUAL, EDITOR           editor for the REPL's `preferences`, the first one
                           set (default vi)
  MARVIN_NO_BROWSER        1: like --no-browser
  MARVIN_MCP_TIMEOUT       seconds an MCP server may take to answer (60)
  SSH_CONNECTION, SSH_TTY  set over SSH: the interview form is not opened
                           here; its address comes with an ssh -L line
  DISPLAY, WAYLAND_DISPLAY without either (on Linux), no browser is opened
  BROWSER                  the browser command(s) to open forms with, tried
                           before xdg-open (a:b tries a then b; %s: the address)
  NO_COLOR                 set to turn colours off
  LC_ALL, LC_CTYPE, LANG   the locale: one that is not UTF-8 (LANG=C) gets
                           ASCII instead of emoji and symbols
";

const EXIT_STATUS: &str = "Exit status: 0 answered, 1 error, 2 a wrong command line (1 with
--non-interactive), 3 a question ended it (--on-ask fail), 4 parked on a
question (--on-ask park), 130 interrupted (Ctrl+C).\n";

/// One option of --help: its long name, its short letter, the value it takes (`NAME`), what it
/// does (its description's lines joined).
#[derive(Debug, PartialEq)]
pub(crate) struct OptionHelp {
    pub long: &'static str,
    pub short: Option<char>,
    pub value: Option<&'static str>,
    pub about: String,
}

/// The options as --help lists them (the completion scripts are made from these, so a flag
/// in --help is a flag the shells complete).
pub(crate) fn options() -> Vec<OptionHelp> {
    let section = HELP
        .split_once("\nOptions:\n")
        .and_then(|(_, rest)| rest.split_once("\n\n"))
        .map_or("", |(options, _)| options);
    let mut found: Vec<OptionHelp> = Vec::new();
    for line in section.lines() {
        let indent = line.len() - line.trim_start().len();
        let line = line.trim_start();
        // An option starts near the margin; a description's next line is indented to its column.
        if indent > 8 || !line.starts_with('-') {
            if let Some(option) = found.last_mut() {
                option.about = format!("{} {line}", option.about);
            }
            continue;
        }
        let (short, rest) = match line.strip_prefix('-').and_then(|l| l.split_once(", ")) {
            Some((letter, rest)) if letter.len() == 1 => (letter.chars().next(), rest),
            _ => (None, line),
        };
        let Some((flag, about)) = rest.strip_prefix("--").and_then(|r| r.split_once("  ")) else {
            continue;
        };
        let (long, value) = match flag.split_once(' ') {
            Some((long, value)) => (long, Some(value)),
            None => (flag, None),
        };
        found.push(OptionHelp {
            long,
            short,
            value,
            about: about.trim().to_string(),
        });
    }
    found
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let args: Vec<OsString> = args.into_iter().collect();
    let mut parser = lexopt::Parser::from_args(args.clone());
    let mut parsed = Args::default();
    let mut words: Vec<String> = Vec::new();
    while let Some(arg) = parser.next().map_err(describe)? {
        match arg {
            Short('h') | Long("help") => return Ok(Command::Help),
            Short('V') | Long("version") => return Ok(Command::Version),
            Long("list-providers") => return Ok(Command::ListProviders),
            Long("completions") => {
                return Ok(Command::Completions(text(&mut parser, "--completions")?));
            }
            Long("provider") => parsed.provider = Some(text(&mut parser, "--provider")?),
            Long("model") => parsed.model = Some(text(&mut parser, "--model")?),
            Long("prompt") => parsed.prompt = Some(text(&mut parser, "--prompt")?),
            Long("working-dir") => {
                parsed.working_dir = Some(text(&mut parser, "--working-dir")?.into())
            }
            Long("ntfy") => parsed.ntfy = Some(text(&mut parser, "--ntfy")?),
            Long("profile") => parsed.profile = Some(text(&mut parser, "--profile")?),
            Long("permission-mode") => {
                parsed.permission_mode = Some(text(&mut parser, "--permission-mode")?)
            }
            Long("tools") => parsed.tools = Some(text(&mut parser, "--tools")?),
            Long("sandbox") => parsed.sandbox = Some(text(&mut parser, "--sandbox")?),
            Long("no-network") => parsed.no_network = true,
            Long("verbose") => parsed.verbose = true,
            Long("code") => parsed.code = true,
            Long("plain") => parsed.plain = true,
            Long("no-browser") => parsed.no_browser = true,
            Long("mcp-config") => {
                parsed.mcp_config = Some(text(&mut parser, "--mcp-config")?.into())
            }
            Long("no-mcp") => parsed.no_mcp = true,
            Long("new") => parsed.new = true,
            Short('c') | Long("continue") => parsed.continue_last = true,
            Long("resume") => parsed.resume = Some(optional_word(&mut parser, "--resume")?),
            Long("answer") => parsed.answer = Some(text(&mut parser, "--answer")?),
            Long("pending") => parsed.pending = true,
            Long("drop") => parsed.drop = Some(text(&mut parser, "--drop")?),
            Long("attach") => parsed.attach = Some(text(&mut parser, "--attach")?),
            Long("listen") => {
                let address = text(&mut parser, "--listen")?;
                parsed.listen = Some(listen_address(&address)?);
            }
            Long("port") => {
                let port = text(&mut parser, "--port")?;
                parsed.port = Some(port.parse().map_err(|_| {
                    format!("--port takes a port number from 1 to 65535, not {port:?}")
                })?);
            }
            Long("raw") => parsed.raw = true,
            Long("on-ask") => parsed.on_ask = Some(text(&mut parser, "--on-ask")?),
            Long("non-interactive") => parsed.non_interactive = true,
            Long("once") => parsed.once = true,
            Long("json") => parsed.json = true,
            Value(word) => words.push(
                word.into_string()
                    .map_err(|_| "the question is not valid UTF-8".to_string())?,
            ),
            Long(flag) => return Err(unknown_flag(flag)),
            Short(letter) => return Err(unknown_short(letter, &args)),
        }
    }
    let sign_in = match words.as_slice() {
        [mcp, verb, name] if mcp == "mcp" && matches!(verb.as_str(), "login" | "logout") => {
            Some((verb == "login", name.clone()))
        }
        _ => None,
    };
    if words == ["serve"] {
        parsed.serve = true;
    } else if sign_in.is_some() {
        parsed.mcp_sign_in = sign_in;
    } else if !words.is_empty() {
        parsed.question = Some(words.join(" "));
    }
    check(&parsed)?;
    Ok(Command::Run(Box::new(parsed)))
}

fn text(parser: &mut lexopt::Parser, flag: &str) -> Result<String, String> {
    let value = parser
        .value()
        .map_err(|_| format!("{flag} needs a value"))?;
    let value = value
        .into_string()
        .map_err(|_| format!("{flag}: value is not valid UTF-8"))?;
    if value.trim().is_empty() {
        return Err(format!("{flag} needs a non-empty value"));
    }
    Ok(value)
}

/// The value of a flag whose value may be left out: `--flag=VALUE`, or the next argument
/// when it is not an option.
fn optional_word(parser: &mut lexopt::Parser, flag: &str) -> Result<Option<String>, String> {
    let utf8 = |value: OsString| {
        value
            .into_string()
            .map_err(|_| format!("{flag}: value is not valid UTF-8"))
    };
    if let Some(value) = parser.optional_value() {
        return utf8(value).map(Some);
    }
    let mut raw = parser.raw_args().map_err(describe)?;
    match raw.peek().and_then(|next| next.to_str()) {
        Some(next) if !next.starts_with('-') && !next.trim().is_empty() => {
            let next = next.to_string();
            raw.next();
            Ok(Some(next))
        }
        _ => Ok(None),
    }
}

/// `--flag` is not one of ours: the closest one, or the pointer to --help.
fn unknown_flag(flag: &str) -> String {
    let flag = flag.split_once('=').map_or(flag, |(name, _)| name);
    let closest = options()
        .into_iter()
        .map(|option| {
            let distance = crate::edit_distance::edit_distance(flag, option.long);
            (distance, option.long)
        })
        .filter(|(distance, long)| *distance <= (long.len() / 3).clamp(2, 3))
        .min();
    match closest {
        Some((_, long)) => format!("unknown option --{flag}; did you mean --{long}?"),
        None => format!("unknown option --{flag}; run `marvin --help` for the options"),
    }
}

/// `-x` is not one of ours. A question that starts with a dash (`marvin "-1 times -1?"`) is
/// read as options: say how to ask it.
fn unknown_short(letter: char, args: &[OsString]) -> String {
    let word = args.iter().filter_map(|arg| arg.to_str()).find(|arg| {
        !arg.starts_with("--")
            && arg
                .strip_prefix('-')
                .is_some_and(|rest| rest.contains(letter))
    });
    match word {
        Some(question) if question.contains(char::is_whitespace) => format!(
            "unknown option -{letter}; to ask a question that starts with \"-\", put -- before it: marvin -- {question:?}"
        ),
        _ => format!(
            "unknown option -{letter}; run `marvin --help` for the options (a question that starts with \"-\" goes after --)"
        ),
    }
}

fn describe(error: lexopt::Error) -> String {
    format!("{error}; run `marvin --help` for the options")
}

/// Combinations that cannot mean anything.
fn check(args: &Args) -> Result<(), String> {
    check_sessions(args)?;
    if args.json && !args.non_interactive {
        return Err("--json only applies with --non-interactive".into());
    }
    if args.prompt.is_some() && !args.non_interactive {
        return Err("--prompt only applies with --non-interactive; for a quick question use `marvin \"QUESTION\"`".into());
    }
    if args.non_interactive && args.question.is_some() && args.prompt.is_some() {
        return Err(
            "--non-interactive takes one prompt: give it with --prompt or as words, not both"
                .into(),
        );
    }
    if args.on_ask.is_some() && !args.non_interactive {
        return Err(
            "--on-ask only applies with --non-interactive; the REPL asks you itself".into(),
        );
    }
    if args.on_ask.as_deref() == Some("notify") && args.ntfy.is_none() {
        return Err("--on-ask notify sends questions to the --ntfy TOPIC: give one".into());
    }
    let waits = args
        .on_ask
        .as_deref()
        .is_some_and(|m| m.starts_with("wait:"));
    if waits && !args.json && args.ntfy.is_none() {
        return Err("--on-ask wait:SECONDS asks on the --json stream (answered on stdin) or on the --ntfy topic: give one of them".into());
    }
    if args.on_ask.as_deref() == Some("stdin") && !args.json {
        return Err("--on-ask stdin needs --json: questions go out as JSON events".into());
    }
    let on_stdin = args.on_ask.as_deref() == Some("stdin") || (waits && args.json);
    if on_stdin && args.prompt.is_none() && args.question.is_none() {
        return Err(
            "--on-ask reads answers on stdin here: give the prompt with --prompt or as words"
                .into(),
        );
    }
    if args.raw && args.non_interactive {
        return Err(
            "--raw only applies on a terminal: --non-interactive output is always raw".into(),
        );
    }
    if args.once && args.non_interactive {
        return Err("--once and --non-interactive both answer once: use one of them".into());
    }
    Ok(())
}

/// True when the raw arguments ask for non-interactive mode, even if they fail to parse:
/// the MARVIN_COST line is then still owed on stderr.
pub fn mentions_non_interactive(args: &[OsString]) -> bool {
    args.iter().any(|a| a == "--non-interactive")
}

/// `--listen ADDR`: one address of this machine; not "every address" (0.0.0.0, ::), which
/// would leave the gateway nothing to check a request's Host against.
fn listen_address(text: &str) -> Result<std::net::IpAddr, String> {
    match text.parse::<std::net::IpAddr>() {
        Ok(address) if address.is_unspecified() => Err(format!(
            "--listen {text}: give the one address of this machine to listen on (e.g. 192.168.1.5), so that requests naming another are refused"
        )),
        Ok(address) => Ok(address),
        Err(_) => Err(format!(
            "--listen takes an IP address of this machine, e.g. 192.168.1.5, not {text:?}"
        )),
    }
}

/// The session flags that cannot go together.
fn check_sessions(args: &Args) -> Result<(), String> {
    if (args.port.is_some() || args.listen.is_some()) && !args.serve {
        return Err(
            "--port and --listen are where `marvin serve` listens: marvin serve --port N".into(),
        );
    }
    let alone = !(args.non_interactive
        || args.once
        || args.json
        || args.prompt.is_some()
        || args.resume.is_some()
        || args.continue_last
        || args.answer.is_some()
        || args.pending
        || args.drop.is_some());
    if args.attach.is_some() && (args.serve || !alone || args.question.is_some()) {
        return Err(
            "--attach stands alone: marvin --attach URL (the address marvin serve printed)".into(),
        );
    }
    if args.serve && !alone {
        return Err("marvin serve takes --port, --profile and the provider's flags; sessions are made and taken up through its API".into());
    }
    let resumes = args.continue_last || args.resume.is_some();
    if args.new && resumes {
        return Err("--new starts a fresh conversation: leave out -c/--resume, or --new".into());
    }
    if args.continue_last && args.resume.is_some() {
        return Err(
            "-c takes up the last session here and --resume a named one: give one of them".into(),
        );
    }
    if args.answer.is_some() && !matches!(args.resume, Some(Some(_))) {
        return Err("--answer answers a parked run: give its id with --resume ID --answer TEXT (marvin --pending lists them)".into());
    }
    if args.answer.is_some() && (args.question.is_some() || args.prompt.is_some()) {
        return Err("--answer goes on from the parked question: leave out the prompt (send it once the run has finished, with --resume ID)".into());
    }
    if args.answer.is_some() && args.on_ask.as_deref() == Some("deny") {
        return Err(
            "--on-ask deny would deny the very question --answer answers: leave it out".into(),
        );
    }
    if args.pending && args.drop.is_some() {
        return Err("--pending lists and --drop deletes: give one of them".into());
    }
    let lists = args.pending || args.drop.is_some();
    if lists && (resumes || args.question.is_some() || args.prompt.is_some()) {
        return Err(
            "--pending and --drop stand alone: run them without a question or --resume".into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(OsString::from))
    }

    fn parsed(args: &[&str]) -> Args {
        match run(args) {
            Ok(Command::Run(args)) => *args,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn help_and_version_win_over_everything() {
        assert_eq!(run(&["--provider", "x", "--help"]), Ok(Command::Help));
        assert_eq!(run(&["-h"]), Ok(Command::Help));
        assert_eq!(run(&["--version"]), Ok(Command::Version));
        assert_eq!(run(&["-V", "--bogus"]), Ok(Command::Version));
    }

    #[test]
    fn each_flag_fills_its_field() {
        let args = parsed(&[
            "--provider",
            "groq",
            "--model",
            "m",
            "--plain",
            "--non-interactive",
            "--prompt",
            "p",
            "--working-dir",
            "/tmp",
            "--ntfy",
            "topic",
            "--json",
        ]);
        assert_eq!(args.provider.as_deref(), Some("groq"));
        assert_eq!(args.model.as_deref(), Some("m"));
        assert!(args.plain && args.non_interactive && args.json);
        assert_eq!(args.prompt.as_deref(), Some("p"));
        assert_eq!(args.working_dir, Some(PathBuf::from("/tmp")));
        assert_eq!(args.ntfy.as_deref(), Some("topic"));
        assert!(parsed(&["--once", "hi"]).once);
        assert_eq!(
            parsed(&["--provider=gemini"]).provider.as_deref(),
            Some("gemini")
        );
    }

    #[test]
    fn the_sandbox_flags_are_taken_as_given() {
        let args = parsed(&["--sandbox", "read-only", "--no-network", "hi"]);
        assert_eq!(args.sandbox.as_deref(), Some("read-only"));
        assert!(args.no_network);
        assert!(!parsed(&["hi"]).no_network);
        assert_eq!(
            run(&["--sandbox"]),
            Err("--sandbox needs a value".to_string())
        );
    }

    #[test]
    fn non_interactive_takes_its_prompt_as_words_too() {
        let args = parsed(&["--non-interactive", "what", "is", "rust?"]);
        assert!(args.non_interactive && args.prompt.is_none());
        assert_eq!(args.question.as_deref(), Some("what is rust?"));
        assert!(parsed(&["--new", "--raw"]).new);
        assert!(parsed(&["--raw"]).raw);
    }

    #[test]
    fn words_become_one_question() {
        assert_eq!(
            parsed(&["what", "is", "rust?"]).question.as_deref(),
            Some("what is rust?")
        );
        assert_eq!(parsed(&[]).question, None);
    }

    #[test]
    fn bad_arguments_say_what_to_do() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["--bogus"],
                "unknown option --bogus; run `marvin --help` for the options",
            ),
            (
                &["--provder", "groq"],
                "unknown option --provder; did you mean --provider?",
            ),
            (
                &["--non-interactiv"],
                "unknown option --non-interactiv; did you mean --non-interactive?",
            ),
            (
                &["--workdir=/tmp"],
                "unknown option --workdir; run `marvin --help`",
            ),
            (&["-x"], "unknown option -x"),
            (&["--raw", "--non-interactive"], "output is always raw"),
            (
                &["--on-ask", "fail", "hi"],
                "--on-ask only applies with --non-interactive",
            ),
            (
                &["--non-interactive", "--on-ask", "stdin", "hi"],
                "--on-ask stdin needs --json",
            ),
            (
                &["--non-interactive", "--json", "--on-ask", "stdin"],
                "give the prompt with --prompt or as words",
            ),
            (
                &["--non-interactive", "--on-ask", "wait:60", "hi"],
                "give one of them",
            ),
            (
                &["--non-interactive", "--on-ask", "notify", "hi"],
                "--on-ask notify sends questions to the --ntfy TOPIC",
            ),
            (&["--model"], "--model needs a value"),
            (&["--model", " "], "--model needs a non-empty value"),
            (&["--json"], "--json only applies with --non-interactive"),
            (
                &["--prompt", "x"],
                "--prompt only applies with --non-interactive",
            ),
            (
                &["--non-interactive", "--prompt", "a", "b"],
                "give it with --prompt or as words, not both",
            ),
            (&["--once", "--non-interactive"], "use one of them"),
        ];
        for (args, expected) in cases {
            let error = run(args).unwrap_err();
            assert!(error.contains(expected), "{args:?}: {error}");
        }
    }

    #[test]
    fn help_lists_every_flag_and_fits_80_columns() {
        let help = help();
        for flag in [
            "--provider",
            "--model",
            "--plain",
            "--non-interactive",
            "--prompt",
            "--working-dir",
            "--ntfy",
            "--once",
            "--json",
            "--new",
            "--raw",
            "--on-ask",
            "--version",
            "--help",
            "--list-providers",
            "--permission-mode",
            "--profile",
            "--no-browser",
            "--mcp-config",
            "--no-mcp",
            "--tools",
            "--verbose",
            "--code",
        ] {
            assert!(help.contains(flag), "help misses {flag}");
            let readme = include_str!("../README.md");
            assert!(
                readme.contains(&format!("`{flag}")),
                "README.md misses {flag}"
            );
        }
        for line in help.lines() {
            assert!(line.chars().count() <= 80, "too wide: {line}");
        }
    }

    #[test]
    fn session_flags_parse_and_clash_where_they_cannot_go_together() {
        assert!(parsed(&["-c", "and", "then?"]).continue_last);
        assert_eq!(parsed(&["--resume"]).resume, Some(None));
        assert_eq!(
            parsed(&["--resume", "parser-fix"]).resume,
            Some(Some("parser-fix".into()))
        );
        let both = parsed(&["--resume", "ab12cd34", "what", "now"]);
        assert_eq!(both.resume, Some(Some("ab12cd34".into())));
        assert_eq!(both.question.as_deref(), Some("what now"));
        assert_eq!(parsed(&["--resume=x y"]).resume, Some(Some("x y".into())));
        let then_flag = parsed(&["--resume", "--raw"]);
        assert_eq!((then_flag.resume, then_flag.raw), (Some(None), true));
        let answered = parsed(&["--resume", "ab12cd34", "--answer", "once"]);
        assert_eq!(answered.answer.as_deref(), Some("once"));
        assert!(parsed(&["--pending"]).pending);
        let serve = parsed(&["serve", "--port", "8765"]);
        assert_eq!(
            (serve.serve, serve.port, serve.question),
            (true, Some(8765), None)
        );
        let lan = parsed(&["serve", "--listen", "192.168.1.5"]);
        assert_eq!(lan.listen, Some("192.168.1.5".parse().unwrap()));
        let question = parsed(&["serve", "me", "coffee"]);
        assert_eq!(
            (question.serve, question.question.as_deref()),
            (false, Some("serve me coffee"))
        );
        assert_eq!(parsed(&["--drop", "ab12"]).drop.as_deref(), Some("ab12"));
        let login = parsed(&["mcp", "login", "linear", "--profile", "work"]);
        assert_eq!(login.mcp_sign_in, Some((true, "linear".to_string())));
        assert_eq!(
            (login.profile.as_deref(), login.question),
            (Some("work"), None)
        );
        let logout = parsed(&["mcp", "logout", "linear"]);
        assert_eq!(logout.mcp_sign_in, Some((false, "linear".to_string())));
        let question = parsed(&["mcp", "login", "is", "what"]);
        assert_eq!(
            (question.mcp_sign_in, question.question.as_deref()),
            (None, Some("mcp login is what"))
        );
        assert!(help().contains("marvin mcp login NAME"));
        for (args, says) in [
            (&["--new", "-c"][..], "--new starts a fresh conversation"),
            (&["-c", "--resume", "x"][..], "give one of them"),
            (&["--answer", "once"][..], "--resume ID --answer TEXT"),
            (&["--pending", "hello"][..], "stand alone"),
            (
                &["--resume", "x", "--answer", "once", "more"][..],
                "leave out the prompt",
            ),
            (
                &[
                    "--resume",
                    "x",
                    "--answer",
                    "once",
                    "--non-interactive",
                    "--on-ask",
                    "deny",
                ][..],
                "--on-ask deny",
            ),
            (&["--pending", "--drop", "x"][..], "give one of them"),
            (&["--port", "80"][..], "marvin serve --port N"),
            (&["serve", "--once"][..], "marvin serve takes --port"),
            (&["serve", "--port", "http"][..], "a port number"),
            (&["serve", "--listen", "0.0.0.0"][..], "the one address"),
            (
                &["serve", "--listen", "my-laptop"][..],
                "takes an IP address",
            ),
        ] {
            let error = parse(args.iter().map(OsString::from)).unwrap_err();
            assert!(error.contains(says), "{args:?}: {error}");
        }
    }

    #[test]
    fn a_question_that_starts_with_a_dash_is_told_about_double_dash() {
        assert_eq!(
            run(&["-1 times -1?"]).unwrap_err(),
            r#"unknown option -1; to ask a question that starts with "-", put -- before it: marvin -- "-1 times -1?""#
        );
        assert_eq!(
            run(&["-x"]).unwrap_err(),
            r#"unknown option -x; run `marvin --help` for the options (a question that starts with "-" goes after --)"#
        );
        assert_eq!(
            parsed(&["--", "-1 times -1?"]).question.as_deref(),
            Some("-1 times -1?")
        );
    }
}
