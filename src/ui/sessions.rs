//! Stored sessions as the person sees them: the list (`/sessions`, and the one `--resume` picks
//! from), `/resume`, `/rename`, `/fork`, and the runs parked on a question (`/pending`,
//! `--pending`, `--drop`).

use std::io::{BufRead, Write};

use super::banner::when_said;
use super::park;
use super::repl::Repl;
use super::sanitize::sanitize;
use super::style::Style;
use super::width::truncate;
use crate::clock::unix_now;
use crate::commands::PendingAction;
use crate::store::sessions::Meta;
use crate::when;

/// Sessions listed at most.
const SHOWN: usize = 20;

/// One line per session, within `width` columns: a mark for the current one, its id, when it
/// was last used, its name, and how long it is; a parked one says what it waits for.
pub(crate) fn lines(
    sessions: &[Meta],
    current: Option<&str>,
    style: Style,
    width: usize,
) -> Vec<String> {
    let now = unix_now();
    let mut lines = Vec::new();
    for (n, meta) in sessions.iter().take(SHOWN).enumerate() {
        let mark = if current == Some(meta.id.as_str()) {
            "*"
        } else {
            " "
        };
        let dot = style.glyph("·", "|");
        let cost = match meta.cost {
            cost if cost > 0.0 => format!(" {dot} {}", crate::usage::dollars(cost)),
            _ => String::new(),
        };
        let line = format!(
            "{mark}{:>3}  {}  {:<16} {} {dot} {}{cost} {dot} {}",
            n + 1,
            meta.id,
            when_short(&meta.updated, now),
            sanitize(&meta.name),
            messages(meta.messages),
            home_relative(&meta.working_dir),
        );
        lines.push(truncate(&line, width, style.unicode));
        if meta.parked.is_some() {
            let waits = format!("        waits for: {}", sanitize(&park::waits_for(meta)));
            lines.push(style.yellow(&truncate(&waits, width, style.unicode)));
        }
    }
    if sessions.len() > SHOWN {
        lines.push(style.dim(&format!("  … and {} older", sessions.len() - SHOWN)));
    }
    lines
}

/// `today 18:02`, `yesterday 18:02`, `2 Jan 18:02` this year, `2 Jan 2025` before: within 16
/// columns, for the list.
fn when_short(updated: &str, now: i64) -> String {
    let Ok(at) = when::parse(updated, now) else {
        return when_said(updated, now);
    };
    let (then, today) = (when::local(at), when::local(now));
    if today.days() - then.days() <= 1 {
        return when_said(updated, now);
    }
    let (_, month, day) = crate::clock::civil_from_days(then.days());
    let month = when::MONTHS[month as usize - 1];
    if then.year == today.year {
        format!("{day} {month} {:02}:{:02}", then.hour, then.minute)
    } else {
        format!("{day} {month} {}", then.year)
    }
}

fn messages(count: usize) -> String {
    match count {
        1 => "1 message".into(),
        n => format!("{n} messages"),
    }
}

/// `~/src/x` for a directory under the home directory.
fn home_relative(dir: &std::path::Path) -> String {
    let shown = dir.display().to_string();
    match std::env::var_os("HOME").map(std::path::PathBuf::from) {
        Some(home) if !home.as_os_str().is_empty() => match dir.strip_prefix(&home) {
            Ok(rest) if rest.as_os_str().is_empty() => "~".into(),
            Ok(rest) => format!("~/{}", rest.display()),
            Err(_) => shown,
        },
        _ => shown,
    }
}

/// `/sessions`.
pub(crate) fn list(repl: &mut Repl<'_>) {
    let all = repl.session.sessions();
    if all.is_empty() {
        return repl
            .view
            .side_line("No session is stored yet: each conversation is, after its first answer.");
    }
    let current = repl.session.stored().map(|m| m.id.clone());
    let style = repl.view.style();
    let mut shown = vec![style.dim("Sessions (/resume NAME or ID takes one up, * is this one):")];
    shown.extend(lines(
        &all,
        current.as_deref(),
        style,
        super::width::line_width(),
    ));
    repl.view.side_line(&shown.join("\n"));
}

/// At the start of the REPL: how many runs wait for an answer, if any.
pub(crate) fn say_parked(repl: &mut Repl<'_>) {
    let said = match repl.session.parked_waiting() {
        0 => return,
        1 => "1 run parked on a question waits for your answer: /pending shows it".to_string(),
        n => format!("{n} runs parked on a question wait for your answer: /pending shows them"),
    };
    let style = repl.view.style();
    let line = format!("{} {said}", style.glyph("⏸", "||"));
    repl.view.side_line(&style.yellow(&line));
}

/// `/resume NAME`: the conversation becomes that session's.
pub(crate) fn resume(repl: &mut Repl<'_>, key: &str) {
    let current = repl.session.stored().map(|m| m.id.clone());
    let said = match repl.session.find_session(key) {
        Ok(meta) if Some(&meta.id) == current.as_ref() => {
            format!("This is session {} already.", meta.id)
        }
        Ok(meta) if meta.parked.is_some() => {
            format!(
                "Session {} waits for an answer: /pending {} asks its question.",
                meta.id, meta.id
            )
        }
        Ok(meta) => {
            let (id, name, dir) = (meta.id.clone(), meta.name.clone(), meta.working_dir.clone());
            match repl.session.open_session(meta) {
                Ok(()) => {
                    let mut said = format!("Took up session {id}, \"{}\".", sanitize(&name));
                    if dir != repl.session.working_dir() {
                        said.push_str(&format!(
                            " It ran in {}; the tools work in {}.",
                            dir.display(),
                            repl.session.working_dir().display()
                        ));
                    }
                    said
                }
                Err(why) => format!("Cannot take it up: {why}"),
            }
        }
        Err(why) => format!("Cannot take it up: {why}"),
    };
    repl.view.side_line(&said);
}

/// `/rename NAME`.
pub(crate) fn rename(repl: &mut Repl<'_>, name: &str) {
    let said = match repl.session.rename_session(name) {
        Ok(name) => format!("This session is now called \"{}\".", sanitize(&name)),
        Err(why) => format!("Cannot rename: {why}"),
    };
    repl.view.side_line(&said);
}

/// `/fork`.
pub(crate) fn fork(repl: &mut Repl<'_>) {
    let said = match repl.session.fork_session() {
        Ok(meta) => format!(
            "Forked: this is now session {}, \"{}\"; the old one stays as it was.",
            meta.id,
            sanitize(&meta.name)
        ),
        Err(why) => format!("Cannot fork: {why}"),
    };
    repl.view.side_line(&said);
}

/// `/pending`, `/pending ID` (its question is asked here and the run goes on), `/pending drop
/// ID`.
pub(crate) fn pending(repl: &mut Repl<'_>, action: Option<PendingAction>) {
    let width = super::width::line_width();
    match action {
        None => {
            let report = pending_report(&repl.session.sessions(), repl.view.style(), width);
            for meta in &report.expired {
                repl.session.expire_parked(meta);
            }
            repl.view.side_line(&report.text);
        }
        Some(PendingAction::Drop(key)) => {
            let said = match parked(repl, &key) {
                Ok(meta) => match repl.session.drop_session(&meta.id) {
                    Ok(()) => format!("Dropped the parked run {}.", meta.id),
                    Err(why) => why,
                },
                Err(why) => why,
            };
            repl.view.side_line(&said);
        }
        Some(PendingAction::Answer(key)) => answer_here(repl, &key),
    }
}

/// The parked run `key` names, or why there is none.
fn parked(repl: &Repl<'_>, key: &str) -> Result<Meta, String> {
    let meta = repl.session.find_session(key)?;
    if meta.parked.is_none() {
        return Err(format!("Session {} does not wait for an answer.", meta.id));
    }
    Ok(meta)
}

/// Takes up parked run `key` in this REPL: its question is asked here, then the turn goes on.
fn answer_here(repl: &mut Repl<'_>, key: &str) {
    let meta = match parked(repl, key) {
        Ok(meta) => meta,
        Err(why) => return repl.view.side_line(&why),
    };
    if meta.working_dir != repl.session.working_dir() {
        let said = format!(
            "Run {} was parked in {}: take it up there (cd there, then marvin --resume {}), or answer it with {}.",
            meta.id,
            meta.working_dir.display(),
            meta.id,
            park::how_to_answer(&meta)
        );
        return repl.view.side_line(&said);
    }
    if let Err(why) = repl.session.open_session(meta) {
        return repl.view.side_line(&format!("Cannot take it up: {why}"));
    }
    super::repl::resume_parked(repl.session, &mut repl.view);
}

/// What `--pending` and `/pending` show, and the parked runs found expired (whose questions
/// are to be dropped).
pub(crate) struct PendingReport {
    pub text: String,
    pub expired: Vec<Meta>,
}

pub(crate) fn pending_report(sessions: &[Meta], style: Style, width: usize) -> PendingReport {
    let now = unix_now();
    let mut waiting = Vec::new();
    let mut expired = Vec::new();
    for meta in sessions.iter().filter(|m| m.parked.is_some()) {
        let expires = meta.parked.as_ref().map_or("", |p| p.expires_at.as_str());
        match when::parse(expires, now) {
            Ok(at) if at <= now => expired.push(meta.clone()),
            _ => waiting.push(meta.clone()),
        }
    }
    let mut lines = Vec::new();
    for meta in &expired {
        let said = format!(
            "Nobody answered {} before it expired: its question is dropped (the conversation is kept).",
            meta.id
        );
        lines.push(style.dim(&said));
    }
    if waiting.is_empty() {
        lines.push("No run waits for an answer.".into());
    } else {
        lines.push(style.dim("Runs parked on a question (answer with the line under each):"));
        lines.extend(super::sessions::lines(&waiting, None, style, width));
        for meta in &waiting {
            lines.push(truncate(
                &format!("  {}", park::how_to_answer(meta)),
                width,
                style.unicode,
            ));
        }
    }
    PendingReport {
        text: lines.join("\n"),
        expired,
    }
}

/// `--resume` without a name: the sessions, numbered, on stderr; the number typed on the
/// terminal picks one (an empty line picks none).
pub(crate) fn pick(sessions: &[Meta], style: Style) -> Result<Option<Meta>, String> {
    if sessions.is_empty() {
        return Err(
            "no session is stored yet: each conversation is, after its first answer".into(),
        );
    }
    let mut err = std::io::stderr().lock();
    let shown = lines(sessions, None, style, super::width::line_width());
    let _ = writeln!(err, "{}", shown.join("\n"));
    let count = sessions.len().min(SHOWN);
    loop {
        let _ = write!(err, "Session to take up (1-{count}, Enter for none): ");
        let _ = err.flush();
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
            return Ok(None);
        }
        match line.trim() {
            "" => return Ok(None),
            typed => match typed.parse::<usize>() {
                Ok(n) if (1..=count).contains(&n) => return Ok(Some(sessions[n - 1].clone())),
                _ => {
                    let _ = writeln!(err, "Type a number from 1 to {count}.");
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sessions::Parked;
    use serde_json::json;

    const PLAIN: Style = Style::PLAIN;

    fn meta(id: &str, name: &str, cost: f64) -> Meta {
        Meta {
            id: id.into(),
            name: name.into(),
            working_dir: "/srv/project".into(),
            updated: "2026-01-02T03:04:05Z".into(),
            messages: 4,
            cost,
            ..Meta::default()
        }
    }

    #[test]
    fn a_line_a_session_the_current_marked_a_parked_one_saying_what_it_waits_for() {
        let mut parked = meta("0000000b", "nightly release", 0.0);
        parked.parked = Some(Parked {
            calls: vec!["c1".into()],
            questions: vec![json!({"type": "approval", "tool": "run_command",
                "detail": "cargo publish", "choices": ["once", "session", "no"]})],
            parked_at: String::new(),
            expires_at: String::new(),
            permission_mode: "default".into(),
            coding_mode: true,
            phone: None,
        });
        let all = [meta("0000000a", "fix the parser", 0.031), parked];
        let shown = lines(&all, Some("0000000a"), PLAIN, 100);
        assert_eq!(shown.len(), 3);
        assert!(shown[0].starts_with("*  1  0000000a  "), "{}", shown[0]);
        assert!(
            shown[0].contains("fix the parser · 4 messages · $0.03 · /srv/project"),
            "{}",
            shown[0]
        );
        assert!(shown[1].starts_with("   2  0000000b  "), "{}", shown[1]);
        assert!(!shown[1].contains('$'), "{}", shown[1]);
        assert_eq!(
            shown[2],
            "        waits for: approve run_command: cargo publish"
        );
        for line in lines(&all, None, PLAIN, 40) {
            assert!(super::super::width::width(&line) <= 40, "{line}");
        }
    }

    #[test]
    fn when_is_short_today_yesterday_this_year_and_before() {
        let days = crate::clock::days_from_civil(2026, 11, 24);
        let now = when::from_local(days, 9, 30);
        let at = |days_ago: i64, hour| {
            let at = when::from_local(days - days_ago, hour, 5);
            crate::clock::iso8601(std::time::UNIX_EPOCH + std::time::Duration::from_secs(at as u64))
        };
        assert_eq!(when_short(&at(0, 8), now), "today 08:05");
        assert_eq!(when_short(&at(1, 18), now), "yesterday 18:05");
        assert_eq!(when_short(&at(10, 7), now), "14 Nov 07:05");
        assert_eq!(when_short(&at(400, 7), now), "20 Oct 2025");
        assert_eq!(when_short("not a time", now), "not a time");
    }
}
