//! A profile's personal tickets (the everyday ticket tools, not the coding `tk`): one JSON file
//! a ticket in `tickets/` of the profile directory, named by its short id (`t1.json`, `t2.json`
//! …). A change takes an exclusive lock on `tickets/.lock` (the calls of a round run at once,
//! and so may two Marvins), reads every ticket, and writes back the ones it changed, each in
//! one rename. A corrupt file is moved aside with a warning.

use std::fs::{self, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Warnings;
use super::json::{self, SaveError};

/// The directory, in the profile directory.
const DIR: &str = "tickets";
const LOCK: &str = ".lock";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Open,
    InProgress,
    Closed,
}

impl Status {
    pub(crate) fn word(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::InProgress => "in_progress",
            Status::Closed => "closed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Note {
    /// When it was written (ISO 8601, UTC).
    pub at: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Ticket {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub status: Status,
    /// The ids of the tickets this one waits for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deps: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Note>,
    /// When it was created, started and closed (ISO 8601, UTC).
    #[serde(default)]
    pub created: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<String>,
}

/// The number in an id `t<n>`; `None` for anything else (so no id can name another path).
pub(crate) fn number(id: &str) -> Option<u64> {
    let digits = id.strip_prefix('t')?;
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The id after the highest one in `tickets` and among the files of the directory (a corrupt
/// ticket moved aside keeps its id: a new ticket never takes it).
pub(crate) fn next_id(profile_dir: &Path, tickets: &[Ticket]) -> String {
    let on_disk = fs::read_dir(dir(profile_dir))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            number(name.split('.').next().unwrap_or_default())
        });
    let highest = tickets
        .iter()
        .filter_map(|t| number(&t.id))
        .chain(on_disk)
        .max();
    format!("t{}", highest.map_or(1, |n| n + 1))
}

pub(crate) fn dir(profile_dir: &Path) -> PathBuf {
    profile_dir.join(DIR)
}

fn file(profile_dir: &Path, id: &str) -> PathBuf {
    dir(profile_dir).join(format!("{id}.json"))
}

/// Every ticket, by number. A file whose content names another id is taken by its file name.
pub(crate) fn all(profile_dir: &Path, warnings: &Warnings) -> Vec<Ticket> {
    let Ok(entries) = fs::read_dir(dir(profile_dir)) else {
        return Vec::new();
    };
    let mut tickets: Vec<Ticket> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let id = name
                .strip_suffix(".json")
                .filter(|id| number(id).is_some())?;
            let ticket: Option<Ticket> = json::read(&entry.path(), warnings);
            ticket.map(|t| Ticket {
                id: id.to_string(),
                ..t
            })
        })
        .collect();
    tickets.sort_by_key(|t| number(&t.id));
    tickets
}

/// Changes the tickets under the lock: `change` gets them all (by number) and the id a new one
/// takes, may edit them and push new ones; those that differ afterwards are written. When
/// `change` refuses (`Err`), nothing is written.
pub(crate) fn update<R, E>(
    profile_dir: &Path,
    warnings: &Warnings,
    change: impl FnOnce(&mut Vec<Ticket>, String) -> Result<R, E>,
) -> Result<Result<R, E>, SaveError> {
    let lock_path = dir(profile_dir).join(LOCK);
    let _lock = lock(&lock_path).map_err(SaveError::at(&lock_path))?;
    let before = all(profile_dir, warnings);
    let mut after = before.clone();
    let result = change(&mut after, next_id(profile_dir, &before));
    if result.is_ok() {
        for ticket in &after {
            if before.iter().all(|old| old != ticket) {
                let path = file(profile_dir, &ticket.id);
                json::save(&path, ticket).map_err(SaveError::at(&path))?;
            }
        }
    }
    Ok(result)
}

/// An exclusive lock on `path`, held until the file returned is closed.
fn lock(path: &Path) -> io::Result<fs::File> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    // SAFETY: flock on a file descriptor we own; the lock is released when `lock` is closed.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticket(id: &str) -> Ticket {
        Ticket {
            id: id.into(),
            title: format!("ticket {id}"),
            description: String::new(),
            status: Status::Open,
            deps: Vec::new(),
            notes: Vec::new(),
            created: "2026-01-02T03:04:05Z".into(),
            started: None,
            closed: None,
        }
    }

    #[test]
    fn ids_are_t_and_a_number_and_nothing_else() {
        assert_eq!(number("t1"), Some(1));
        assert_eq!(number("t042"), Some(42));
        for id in ["", "t", "1", "T1", "t1.json", "t-1", "../t1", "t1234567890"] {
            assert_eq!(number(id), None, "{id}");
        }
        let profile = crate::test_support::TempDir::new("store-tickets-ids");
        assert_eq!(next_id(profile.path(), &[]), "t1");
        assert_eq!(
            next_id(profile.path(), &[ticket("t2"), ticket("t10")]),
            "t11"
        );
        fs::create_dir_all(dir(profile.path())).unwrap();
        fs::write(dir(profile.path()).join("t12.json.corrupt-x"), "").unwrap();
        assert_eq!(next_id(profile.path(), &[ticket("t2")]), "t13");
    }

    #[test]
    fn changes_are_written_one_file_a_ticket_and_a_refusal_writes_nothing() {
        let profile = crate::test_support::TempDir::new("store-tickets");
        let warnings = Warnings::default();
        assert!(all(profile.path(), &warnings).is_empty());
        let made = update(profile.path(), &warnings, |tickets, _| {
            for id in ["t1", "t2", "t10"] {
                tickets.push(ticket(id));
            }
            Ok::<_, String>(tickets.len())
        });
        assert_eq!(made.unwrap(), Ok(3));
        let ids: Vec<String> = all(profile.path(), &warnings)
            .into_iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(ids, ["t1", "t2", "t10"]);
        let text = fs::read_to_string(dir(profile.path()).join("t2.json")).unwrap();
        assert!(
            text.contains("\"status\": \"open\"") && !text.contains("deps"),
            "{text}"
        );
        let refused = update(profile.path(), &warnings, |tickets, _| {
            tickets[0].title = "changed".into();
            Err::<(), _>("no")
        });
        assert_eq!(refused.unwrap(), Err("no"));
        assert_eq!(all(profile.path(), &warnings)[0].title, "ticket t1");
        fs::write(dir(profile.path()).join("t2.json"), "{\"id\": ").unwrap();
        assert_eq!(all(profile.path(), &warnings).len(), 2);
        let said = warnings.take();
        assert!(said[0].contains("t2.json was not valid JSON"), "{said:?}");
    }
}
