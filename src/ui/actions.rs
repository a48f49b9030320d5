//! What the REPL commands do: mode toggles, preferences in $EDITOR, profiles, saved places,
//! approvals, the user's tools, what a mistyped command is told, and questions left open by
//! tools. The shell escape is in `shell`, the help text in `help`.

use std::process::{Command as Process, ExitStatus};

use super::repl::Repl;
use super::sanitize::sanitize;
use super::style::Style;
use super::terminal::TerminalView;
use super::width::wrap;
use crate::session::Session;
use crate::store;

/// A command given what it does not take: how it is used.
pub(crate) fn misused(usage: &str) -> String {
    match usage.split_once(' ') {
        None => format!("{usage} takes nothing after it; /help lists the commands."),
        Some(_) => format!("Usage: {usage}; /help lists the commands."),
    }
}

/// A `/word` Marvin does not know: the command it was probably meant to be, or where to look.
pub(crate) fn unknown(style: Style, word: &str, closest: Option<&str>) -> String {
    let dash = style.glyph("—", "-");
    match closest {
        Some(name) => format!("Unknown command {word} {dash} did you mean /{name}?"),
        None => format!("Unknown command {word} {dash} /help lists the commands."),
    }
}

/// `/provider NAME` and `/model NAME`: later messages go to `name` with `model`; the
/// conversation carries on and the other providers stay as fallbacks.
pub(crate) fn switch_provider(repl: &mut Repl<'_>, name: &str, model: Option<&str>) {
    let style = repl.view.style();
    let switched = repl.providers.switch(repl.session, name, model);
    let now = format!(
        "{} {} {}",
        repl.session.provider_name(),
        style.glyph("·", "|"),
        repl.session.model()
    );
    let line = match switched {
        Ok(()) => style.dim(&fitted(&format!(
            "Now using {now} from the next message; the conversation carries on."
        ))),
        Err(why) => fitted(&format!("Cannot switch: {why}. Still using {now}.")),
    };
    repl.view.side_line(&line);
}

/// `/model`: what answers now, and how to change it.
pub(crate) fn show_model(repl: &mut Repl<'_>) {
    let style = repl.view.style();
    let line = format!(
        "{} {} {} {} /model NAME switches the model, /provider NAME the provider.",
        repl.session.provider_name(),
        style.glyph("·", "|"),
        repl.session.model(),
        style.glyph("—", "-")
    );
    repl.view.side_line(&fitted(&line));
}

/// `text` word-wrapped to the terminal, 80 columns at most.
fn fitted(text: &str) -> String {
    wrap("", text, 0, super::width::terminal_width().min(80))
}

pub(crate) fn toggle_code(repl: &mut Repl<'_>) {
    let on = !repl.session.coding_mode();
    repl.session.set_coding_mode(on);
    let state = if on {
        "on: file, shell and git tools are offered"
    } else {
        "off"
    };
    let style = repl.view.style();
    repl.view
        .side_line(&style.dim(&format!("Coding mode {state}.")));
}

pub(crate) fn toggle_shell(repl: &mut Repl<'_>) {
    repl.shell_mode = !repl.shell_mode;
    let state = if repl.shell_mode {
        "on: lines run as bash commands; !sh to leave"
    } else {
        "off"
    };
    let style = repl.view.style();
    repl.view
        .side_line(&style.dim(&format!("Shell mode {state}.")));
}

/// `/last`: the last command run_command ran, and all it printed.
pub(crate) fn last_output(repl: &mut Repl<'_>) {
    let style = repl.view.style();
    let shown = match repl.view.last_output() {
        Some((command, output)) => format!(
            "{}\n{}",
            style.dim(&format!("$ {}", super::sanitize::sanitize(command))),
            super::sanitize::sanitize(output)
        ),
        None => style.dim("No command has run in this session yet."),
    };
    repl.view.side_text(&shown);
}

/// Opens preferences.json in the editor (VISUAL, EDITOR, vi) on a copy; the copy replaces the file only when the
/// editor exited 0 and left a JSON object, so a failed editor or a broken edit never loses the
/// old preferences.
pub(crate) fn preferences(repl: &mut Repl<'_>) {
    let style = repl.view.style();
    let Some(dir) = repl.session.profile_dir() else {
        repl.view
            .side_line("There is no profile directory (no MARVIN_HOME).");
        return;
    };
    let draft = match store::preferences::draft(&dir) {
        Ok(draft) => draft,
        Err(error) => {
            repl.view.side_line(&style.red(&error));
            return;
        }
    };
    // The person's own editor, on the person's own preferences.
    #[allow(clippy::disallowed_methods)]
    let edited = Process::new("sh")
        .arg("-c")
        .arg(format!("{} \"$1\"", repl.config.editor))
        .arg("editor")
        .arg(&draft)
        .status();
    let (said, fine) = match edited {
        Ok(status) if status.success() => match store::preferences::accept(&dir, &draft) {
            Ok(true) => ("Preferences saved.".to_string(), true),
            Ok(false) => ("Preferences unchanged.".to_string(), true),
            Err(why) => (
                format!("Preferences not changed: {why}. The old ones are kept."),
                false,
            ),
        },
        failed => {
            store::preferences::discard(&draft);
            (editor_failed(&repl.config.editor, failed), false)
        }
    };
    let said = fitted(&said);
    repl.view.side_line(&if fine {
        style.dim(&said)
    } else {
        style.red(&said)
    });
}

/// Why the editor's work is not used: it could not start, was not found, or failed.
fn editor_failed(editor: &str, outcome: std::io::Result<ExitStatus>) -> String {
    let editor = sanitize(editor);
    let why = match outcome.map(|status| status.code()) {
        Err(error) => {
            return format!(
                "Cannot start the editor `{editor}` ({error}); preferences not changed."
            );
        }
        Ok(Some(127)) => {
            "(exit 127): it was not found; set VISUAL or EDITOR to an editor you have".into()
        }
        Ok(Some(126)) => {
            "(exit 126): it cannot be run; set VISUAL or EDITOR to an editor you have".into()
        }
        Ok(Some(code)) => format!("(exit {code}): what it left is not used"),
        Ok(None) => "(stopped by a signal)".into(),
    };
    format!("The editor `{editor}` failed {why}; preferences not changed.")
}

pub(crate) fn list_profiles(repl: &mut Repl<'_>) {
    let Some(home) = repl.config.home.as_deref() else {
        repl.view
            .side_line("There is no MARVIN_HOME to keep profiles in.");
        return;
    };
    let current = repl.session.profile().to_string();
    let lines: Vec<String> = store::list(home)
        .iter()
        .map(|name| format!("{} {name}", if *name == current { "*" } else { " " }))
        .collect();
    repl.view.side_line(&format!(
        "Profiles (profiles NAME switches):\n{}",
        lines.join("\n")
    ));
}

pub(crate) fn switch_profile(repl: &mut Repl<'_>, name: &str) {
    match repl.session.switch_profile(name) {
        Ok(()) => {
            repl.load_history();
            let style = repl.view.style();
            repl.view
                .side_line(&style.dim(&format!("Now using profile {name}.")));
        }
        Err(error) => repl.view.side_line(&format!("Cannot switch: {error}")),
    }
}

/// `!blender`: whether Blender answers at BLENDER_MCP_HOST:PORT and what scene it has open.
pub(crate) fn blender(repl: &mut Repl<'_>) {
    let style = repl.view.style();
    repl.view.transient(&style.dim(&format!(
        "Asking Blender{} (Ctrl+C stops)",
        style.glyph("…", "...")
    )));
    let look = repl.session.blender_status();
    let text = super::signal::cancellable(&mut super::signal::Watch::new(), look)
        .unwrap_or_else(|_| "Asking Blender failed (an internal error).".to_string());
    repl.view.clear_transient();
    // The scene's name comes from Blender.
    repl.view.side_line(&crate::ui::sanitize::sanitize(&text));
}

pub(crate) fn saved(repl: &mut Repl<'_>) {
    let text = repl.session.saved_places();
    // Labels and addresses of saved places may have been written by the model.
    repl.view.side_line(&crate::ui::sanitize::sanitize(&text));
}

/// The last ntfy messages heard on the profile's subscriptions, whole (before a prompt each
/// showed as one line), the oldest first; sanitised, as whoever publishes to a topic wrote them.
pub(crate) fn notifications(repl: &mut Repl<'_>) {
    let style = repl.view.style();
    let heard = repl.session.heard_notifications();
    if heard.is_empty() {
        let none = "No ntfy message has come on this profile's subscriptions yet.";
        return repl.view.side_line(&style.dim(none));
    }
    let bell = style.glyph("🔔", "*");
    let shown: Vec<String> = heard
        .iter()
        .map(|heard| {
            let when = style.dim(&format!("({})", heard.at));
            format!(
                "{bell} {when}\n{}",
                super::sanitize::sanitize(&heard.message)
            )
        })
        .collect();
    repl.view.side_text(&shown.join("\n\n"));
}

/// Questions tools left open: asked now that the turn is over, as they were shown (an input
/// form with its keys, its presentation and its completed view; a reprompt with its error);
/// answers go to the next turn.
pub(crate) fn ask_deferred(session: &mut Session, view: &mut TerminalView) {
    for mut deferred in session.take_deferred() {
        let style = view.style();
        view.side_line(&style.yellow(&format!(
            "  {} {}",
            style.glyph("⚠", "!"),
            crate::interact::STILL_OPEN
        )));
        deferred.prompt.timeout = crate::interact::DEFAULT_TIMEOUT;
        let response = view.ask(&deferred.prompt);
        session.answer_later(deferred, &response);
    }
}

pub(crate) fn approvals_list(session: &Session) -> String {
    let grants = session.grants().always();
    if grants.is_empty() {
        return "No lasting approvals in this project.".to_string();
    }
    let mut lines =
        vec!["Always allowed in this project (revoke with /approvals revoke N):".to_string()];
    lines.extend(
        grants
            .iter()
            .enumerate()
            .map(|(i, g)| format!("  {}. {g}", i + 1)),
    );
    lines.join("\n")
}

pub(crate) fn revoke(session: &Session, which: &str) -> String {
    let grants = session.grants().always();
    let key = match which.trim().parse::<usize>() {
        Ok(n) if (1..=grants.len()).contains(&n) => grants[n - 1].clone(),
        Ok(_) => return format!("There is no approval {which}; /approvals lists them."),
        Err(_) => which.trim().to_string(),
    };
    match session.grants().revoke(&key) {
        Ok(true) => format!("Revoked: {key}"),
        Ok(false) => format!("There is no approval {key}; /approvals lists them."),
        Err(error) => format!("Could not revoke: {error}"),
    }
}

pub(crate) fn tools_list(session: &Session) -> String {
    let tools = session.custom_tools();
    if tools.is_empty() {
        return "No tools of your own (add them in $MARVIN_HOME/tools/ or .marvin/tools/)."
            .to_string();
    }
    let mut lines = vec!["Your tools:".to_string()];
    lines.extend(
        tools
            .iter()
            .map(|t| format!("  {:<20} {}", t.name, t.definition.display())),
    );
    lines.join("\n")
}
