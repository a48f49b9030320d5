//! The conversation as a stored session (see `store::sessions`): saved when a turn ends, taken
//! up again, renamed, forked and listed; and a run parked on a question, kept until its
//! answer comes or it expires.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::{Resumed, Session};
use crate::clock::iso8601;
use crate::message::{Message, Role};
use crate::store::sessions::{self, Meta, Parked, ParkedPhone};
use crate::usage::Tally;

impl Session {
    /// Where sessions are kept: MARVIN_HOME, unless this is a sub-agent (whose work its parent's
    /// session holds) or there is no home.
    fn sessions_home(&self) -> Option<PathBuf> {
        self.settings
            .marvin_home
            .clone()
            .filter(|_| self.settings.depth == 0)
    }

    /// The stored session this conversation is, once its first turn was saved.
    pub(crate) fn stored(&self) -> Option<&Meta> {
        self.stored.as_ref()
    }

    /// Every stored session, the last updated first.
    pub(crate) fn sessions(&self) -> Vec<Meta> {
        self.sessions_home()
            .map(|home| sessions::list(&home, &self.warnings))
            .unwrap_or_default()
    }

    /// The stored session `key` names (id, the start of one, or its name).
    pub(crate) fn find_session(&self, key: &str) -> Result<Meta, String> {
        let home = self.sessions_home().ok_or(NO_HOME)?;
        sessions::find(&home, key, &self.warnings)
    }

    /// How many runs parked on a question wait for an answer, this conversation's own left out:
    /// as counted when the last session here was taken up, else from the store now.
    pub(crate) fn parked_waiting(&self) -> usize {
        if let Some(seen) = self.parked_seen {
            return seen;
        }
        let current = self.stored.as_ref().map(|m| m.id.as_str());
        self.sessions()
            .iter()
            .filter(|m| m.parked.is_some() && Some(m.id.as_str()) != current)
            .count()
    }

    /// Takes up a stored session: its messages replace the conversation, and its turns are
    /// saved to it from now on.
    pub(crate) fn open_session(&mut self, meta: Meta) -> Result<(), String> {
        let home = self.sessions_home().ok_or(NO_HOME)?;
        let claim = match sessions::claim(&home, &meta.id) {
            Ok(Some(claim)) => Some(claim),
            Ok(None) => {
                return Err(format!(
                    "session {} (\"{}\") is open in another marvin right now",
                    meta.id, meta.name
                ));
            }
            // A store that cannot lock (a read-only disk) still lets the session be read.
            Err(_) => None,
        };
        // What was read before the claim may be out of date: another marvin may have taken
        // the session up meanwhile (and answered its parked question).
        let fresh = sessions::meta(&home, &meta.id, &self.warnings)
            .ok_or_else(|| format!("session {} is gone", meta.id))?;
        still_waiting(&meta, &fresh)?;
        let meta = fresh;
        let mut messages = vec![Message::system(String::new())];
        messages.extend(sessions::messages(&home, &meta.id)?);
        self.resumed = Some(Resumed {
            messages: spoken(&messages),
            last: meta.updated.clone(),
            name: meta.name.clone(),
        });
        self.shared.tickets.open_if_created_in(&messages);
        for family in &meta.families {
            self.shared
                .offer
                .load(family, "offered before in this session");
        }
        self.messages = messages;
        self.recent = Some(meta.recent.clone());
        match &meta.parked {
            // The calls to make again may be coding tools.
            Some(parked) if parked.coding_mode => self.set_coding_mode(true),
            Some(_) => {}
            None => self.cap_messages(),
        }
        self.stored = Some(meta);
        self.claim = claim;
        Ok(())
    }

    /// Gives the conversation its stored session's id now, before its first turn is saved (the
    /// gateway names a session as it creates it); `None` without MARVIN_HOME.
    pub(crate) fn begin_session(&mut self) -> Option<String> {
        if let Some(meta) = &self.stored {
            return Some(meta.id.clone());
        }
        let home = self.sessions_home()?;
        let meta = Meta::new(sessions::new_id(), &self.working_dir(), &self.profile);
        self.claim = sessions::claim(&home, &meta.id).ok().flatten();
        let id = meta.id.clone();
        self.stored = Some(meta);
        Some(id)
    }

    /// Saves the conversation after a turn: a new session on its first turn (named after its
    /// first message), with this turn's usage added to its totals.
    pub(super) fn save_session(&mut self, tally: &Tally) {
        let Some(home) = self.sessions_home() else {
            return;
        };
        let is_new = self.stored.is_none();
        let mut meta = self
            .stored
            .take()
            .unwrap_or_else(|| Meta::new(sessions::new_id(), &self.working_dir(), &self.profile));
        if !meta.named {
            if let Some(first) = self.messages.iter().find(|m| m.role == Role::User) {
                meta.name = sessions::derive_name(crate::prompt::unstamped(first.text()));
            }
        }
        meta.touch();
        meta.messages = spoken(&self.messages);
        meta.families = self
            .shared
            .offer
            .families()
            .into_iter()
            .map(|loaded| loaded.family)
            .collect();
        meta.recent = self.recent.clone().flatten();
        meta.input_tokens += tally.input_tokens;
        meta.output_tokens += tally.output_tokens;
        meta.cost += tally.cost;
        if let Err(error) = sessions::save(&home, &meta, &self.messages) {
            self.warnings.push(format!(
                "cannot save this conversation in {}: {error}",
                home.display()
            ));
        } else if is_new {
            self.claim = sessions::claim(&home, &meta.id).ok().flatten();
            sessions::prune(&home, &self.warnings);
        }
        self.stored = Some(meta);
    }

    /// `/rename NAME`: the session's name from now on.
    pub(crate) fn rename_session(&mut self, name: &str) -> Result<String, String> {
        let name = sessions::valid_session_name(name)?;
        let home = self.sessions_home().ok_or(NO_HOME)?;
        let Some(meta) = self.stored.as_mut() else {
            return Err("nothing to name yet: the session is saved after its first answer".into());
        };
        meta.name = name.clone();
        meta.named = true;
        sessions::save_meta(&home, meta).map_err(|e| format!("cannot rename the session: {e}"))?;
        Ok(name)
    }

    /// How many messages the person and the model said: the one count the status line, the
    /// resume banner, `/sessions` and `--pending` all show.
    pub fn spoken_messages(&self) -> usize {
        spoken(&self.messages)
    }

    /// `/fork`: the conversation so far goes on as a new session; the old one stays as it was.
    pub(crate) fn fork_session(&mut self) -> Result<Meta, String> {
        let home = self.sessions_home().ok_or(NO_HOME)?;
        let Some(old) = self.stored.clone() else {
            return Err("nothing to fork yet: the session is saved after its first answer".into());
        };
        let mut meta = Meta::new(sessions::new_id(), &self.working_dir(), &self.profile);
        meta.name = fork_name(&old.name);
        meta.named = true;
        meta.messages = old.messages;
        meta.forked_from = Some(old.id.clone());
        sessions::save(&home, &meta, &self.messages)
            .map_err(|e| format!("cannot save the fork in {}: {e}", home.display()))?;
        self.claim = sessions::claim(&home, &meta.id).ok().flatten();
        self.stored = Some(meta.clone());
        Ok(meta)
    }

    /// Forgets which stored session this is: the next turn starts a new one.
    pub(super) fn leave_session(&mut self) {
        self.recent = None;
        self.stored = None;
        self.resumed = None;
        self.claim = None;
    }

    /// Keeps the run parked on `questions` (as the `--json` events showed them) until
    /// `expires`: the turn that just ended saved the conversation; this adds what to ask.
    pub(crate) fn park(
        &mut self,
        questions: Vec<Value>,
        expires: Duration,
    ) -> Result<Meta, String> {
        let home = self.sessions_home().ok_or(NO_HOME)?;
        let calls = std::mem::take(&mut self.parked_calls);
        let Some(meta) = self.stored.as_mut() else {
            return Err("the conversation could not be saved, so the run cannot be parked".into());
        };
        let now = SystemTime::now();
        meta.parked = Some(Parked {
            calls,
            questions,
            parked_at: iso8601(now),
            expires_at: iso8601(now + expires),
            permission_mode: self.settings.permission_mode.name().to_string(),
            coding_mode: self.coding_mode,
            phone: None,
        });
        sessions::save_meta(&home, meta)
            .map_err(|e| format!("cannot park the run in {}: {e}", home.display()))?;
        Ok(meta.clone())
    }

    /// Notes where the phone publishes the answer to the parked question.
    pub(crate) fn park_phone(&mut self, phone: ParkedPhone) -> Result<(), String> {
        let home = self.sessions_home().ok_or(NO_HOME)?;
        let Some(meta) = self.stored.as_mut() else {
            return Ok(());
        };
        if let Some(parked) = meta.parked.as_mut() {
            parked.phone = Some(phone);
        }
        sessions::save_meta(&home, meta).map_err(|e| format!("cannot save the session: {e}"))
    }

    /// The calls to make again when a parked session is taken up (none when it is not parked).
    pub(super) fn take_parked(&mut self) -> Vec<String> {
        let Some(meta) = self.stored.as_mut() else {
            return Vec::new();
        };
        meta.parked.take().map(|p| p.calls).unwrap_or_default()
    }

    /// Drops the question of parked run `meta`, whose time ran out (the conversation stays).
    pub(crate) fn expire_parked(&self, meta: &Meta) {
        if let Some(home) = self.sessions_home() {
            sessions::expire(&home, meta, crate::clock::unix_now());
        }
    }

    /// Drops stored session `id` (a parked run nobody will answer).
    pub(crate) fn drop_session(&self, id: &str) -> Result<(), String> {
        let home = self.sessions_home().ok_or(NO_HOME)?;
        sessions::remove(&home, id).map_err(|e| format!("cannot drop session {id}: {e}"))
    }
}

const NO_HOME: &str =
    "sessions are kept in MARVIN_HOME, and there is none (set MARVIN_HOME or HOME)";

/// A parked run read as `seen` still waits for the same answer now that it is `fresh`: another
/// marvin may have taken it up meanwhile, and its calls must not be made twice.
fn still_waiting(seen: &Meta, fresh: &Meta) -> Result<(), String> {
    if seen.parked.is_some() && fresh.parked != seen.parked {
        return Err(format!(
            "session {} was taken up by another marvin meanwhile: it no longer waits for this answer",
            seen.id
        ));
    }
    Ok(())
}

/// How many messages the person and the model said (tool rounds not counted).
fn spoken(messages: &[Message]) -> usize {
    messages
        .iter()
        .filter(|m| m.role == Role::User || (m.role == Role::Assistant && m.tool_calls.is_empty()))
        .count()
}

/// "parser fix" → "parser fix (fork)", "parser fix (fork 2)", ...
fn fork_name(name: &str) -> String {
    let base = name.trim();
    if let Some(stem) = base.strip_suffix(" (fork)") {
        return format!("{stem} (fork 2)");
    }
    let numbered = base
        .strip_suffix(')')
        .and_then(|b| b.rsplit_once(" (fork "))
        .and_then(|(stem, n)| n.parse::<u32>().ok().map(|n| (stem, n)));
    let name = match numbered {
        Some((stem, n)) => format!("{stem} (fork {})", n + 1),
        None => format!("{base} (fork)"),
    };
    name.chars().take(sessions::NAME_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parked_run_taken_up_meanwhile_is_not_taken_up_again() {
        let parked = Meta {
            id: "0000000a".into(),
            parked: Some(Parked {
                calls: vec!["c1".into()],
                questions: Vec::new(),
                parked_at: "2026-11-24T03:00:00Z".into(),
                expires_at: "2026-12-01T03:00:00Z".into(),
                permission_mode: "default".into(),
                coding_mode: true,
                phone: None,
            }),
            ..Meta::default()
        };
        assert_eq!(still_waiting(&parked, &parked), Ok(()));
        let answered = Meta {
            parked: None,
            ..parked.clone()
        };
        let error = still_waiting(&parked, &answered).unwrap_err();
        assert!(error.contains("no longer waits"), "{error}");
        let mut parked_again = parked.clone();
        if let Some(p) = parked_again.parked.as_mut() {
            p.parked_at = "2026-11-24T04:00:00Z".into();
        }
        assert!(still_waiting(&parked, &parked_again).is_err());
        // A session that was not parked is taken up as it is now.
        assert_eq!(still_waiting(&answered, &parked), Ok(()));
    }

    #[test]
    fn forks_are_numbered() {
        assert_eq!(fork_name("parser fix"), "parser fix (fork)");
        assert_eq!(fork_name("parser fix (fork)"), "parser fix (fork 2)");
        assert_eq!(fork_name("parser fix (fork 2)"), "parser fix (fork 3)");
    }
}
