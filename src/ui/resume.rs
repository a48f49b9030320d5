//! Which stored session a run takes up (`--resume NAME`, or one picked from a list), the
//! answer a parked run is given (`--answer`), and the flags that only look at the store
//! (`--pending`, `--drop ID`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value;

use super::output::warn;
use super::style::Style;
use super::{park, sessions as listing};
use crate::cli::Args;
use crate::config::{Config, Env};
use crate::store::Warnings;
use crate::store::sessions::{self, Meta};
use crate::tools::everyday::ntfy::Ntfy;
use crate::when;

/// The session `--resume` names, or the one picked from the list when no name follows (on a
/// terminal; elsewhere the list is shown and the run ends). `None`: no `--resume`, or none
/// was picked. A parked run past its time is dropped and said so.
pub(crate) fn chosen(args: &Args, config: &Config) -> Result<Option<Meta>, String> {
    let Some(key) = &args.resume else {
        return Ok(None);
    };
    let home = config
        .home
        .as_deref()
        .ok_or("sessions are kept in MARVIN_HOME, and there is none (set MARVIN_HOME or HOME)")?;
    let warnings = Warnings::default();
    let found = match key {
        Some(key) => sessions::find(home, key, &warnings).map(Some),
        None => pick(&sessions::list(home, &warnings), config),
    };
    for warning in warnings.take() {
        warn(&warning);
    }
    let Some(meta) = found? else {
        return Ok(None);
    };
    if let Some(said) = sessions::expire(home, &meta, crate::clock::unix_now()) {
        return Err(said);
    }
    Ok(Some(meta))
}

fn pick(all: &[Meta], config: &Config) -> Result<Option<Meta>, String> {
    if all.is_empty() {
        return Err(
            "no session is stored yet: each conversation is, after its first answer".into(),
        );
    }
    let style = Style {
        colour: false,
        unicode: config.unicode,
    };
    if std::io::stdin().is_terminal() && !config.non_interactive {
        return listing::pick(all, style);
    }
    let shown = listing::lines(all, None, style, super::width::line_width());
    Err(format!(
        "--resume needs a session's name or id here (nothing can be picked without a terminal); the sessions:\n{}",
        shown.join("\n")
    ))
}

/// Where a run that takes up `meta` works: the session's directory, unless --working-dir says
/// otherwise or the directory is gone (then here, said so).
pub(crate) fn working_dir(args: &Args, meta: &Meta, config: &Config) -> Option<PathBuf> {
    if args.working_dir.is_some() || meta.working_dir == config.working_dir {
        return None;
    }
    if !meta.working_dir.is_dir() {
        warn(&format!(
            "session {} ran in {}, which is gone; the tools work in {}",
            meta.id,
            meta.working_dir.display(),
            config.working_dir.display()
        ));
        return None;
    }
    Some(meta.working_dir.clone())
}

/// The answer `--answer` gives the parked run `meta`, checked against its question; `None`
/// when the session does not wait for one. A run that waits and got no answer is an error that
/// says how to give one.
pub(crate) fn answer(
    args: &Args,
    meta: Option<&Meta>,
    config: &Config,
) -> Result<Option<Value>, String> {
    let waiting = meta.filter(|m| m.parked.is_some());
    let from_phone = match (waiting, &args.answer) {
        (Some(meta), None) => phone_answer(meta, config)?,
        _ => None,
    };
    match (waiting, args.answer.as_ref().or(from_phone.as_ref())) {
        (None, None) => Ok(None),
        (None, Some(_)) => Err(format!(
            "session {} does not wait for an answer: give it a prompt instead of --answer",
            meta.map_or("", |m| m.id.as_str())
        )),
        (Some(meta), None) => Err(format!(
            "session {} waits for {}{}; answer it: {}",
            meta.id,
            park::waits_for(meta),
            match meta.parked.as_ref().and_then(|p| p.phone.as_ref()) {
                Some(_) => " (the phone has not answered yet)",
                None => "",
            },
            park::how_to_answer(meta)
        )),
        (Some(meta), Some(text)) => {
            let request = park::parked_request(meta).ok_or_else(|| {
                format!(
                    "session {}'s question cannot be read back; drop it with marvin --drop {}",
                    meta.id, meta.id
                )
            })?;
            park::answer_for(&request, text)
                .map(Some)
                .map_err(|why| format!("--answer {text:?}: {why}"))
        }
    }
}

/// The answer the phone published for parked run `meta` (as JSON text), if its question went
/// to the phone and was answered there.
fn phone_answer(meta: &Meta, config: &Config) -> Result<Option<String>, String> {
    let Some(parked) = &meta.parked else {
        return Ok(None);
    };
    let Some(phone) = &parked.phone else {
        return Ok(None);
    };
    // The token is for the server NTFY_URL names now: never sent to another.
    let token = match phone.ntfy_url == config.ntfy_url {
        true => config.web.key("NTFY_TOKEN"),
        false => None,
    };
    let ntfy = Ntfy::new(
        &phone.ntfy_url,
        config.proxy.for_url(&phone.ntfy_url),
        token,
    );
    let since = when::parse(&parked.parked_at, crate::clock::unix_now()).unwrap_or(0);
    let answer = super::phone::parked_answer(&ntfy, &phone.reply_topic, &phone.secret, since)
        .map_err(|why| format!("the phone's answer could not be fetched: {why}"))?;
    Ok(answer.map(|a| a.to_string()))
}

/// `--pending` (the parked runs, expired ones dropped) and `--drop ID`: they look at the
/// store alone, so they work with no provider set up.
pub(crate) fn store_command(args: &Args, env: &Env) -> ExitCode {
    let unicode = crate::config::unicode_locale(env);
    let Some(home) = crate::config::marvin_home(env) else {
        warn("sessions are kept in MARVIN_HOME, and there is none (set MARVIN_HOME or HOME)");
        return ExitCode::FAILURE;
    };
    let warnings = Warnings::default();
    let code = match &args.drop {
        Some(key) => match sessions::find(&home, key, &warnings) {
            Ok(meta) => match sessions::remove(&home, &meta.id) {
                Ok(()) => {
                    println!("Dropped session {} ({}).", meta.id, meta.name);
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    warn(&format!("cannot drop session {}: {error}", meta.id));
                    ExitCode::FAILURE
                }
            },
            Err(why) => {
                warn(&why);
                ExitCode::FAILURE
            }
        },
        None => {
            let style = Style {
                colour: false,
                unicode,
            };
            let all = sessions::list(&home, &warnings);
            let report = listing::pending_report(&all, style, super::width::line_width());
            for meta in &report.expired {
                sessions::expire(&home, meta, crate::clock::unix_now());
            }
            println!("{}", report.text);
            ExitCode::SUCCESS
        }
    };
    for warning in warnings.take() {
        warn(&warning);
    }
    code
}
