//! The interview's draft, kept on Marvin's side for the life of the form: what was chosen and
//! typed so far, question by question, by whichever surface it was (the page posts its draft
//! as it changes; the terminal writes each answer it takes). A page opened again, in another
//! browser or after the terminal answered some questions, and the terminal asking after the
//! page, both start from it: nothing typed on one surface is typed twice.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

/// The largest draft the page may post.
pub const MAX_DRAFT_BYTES: usize = 256 * 1024;

/// One question's answer in progress.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// The options chosen, and the text under "Other" when Other is chosen.
    Choice {
        picks: Vec<String>,
        other: Option<String>,
    },
    Text(String),
    /// Image paths typed (uploads stay in the page).
    Paths(Vec<String>),
}

impl Entry {
    fn from_json(value: &Value) -> Option<Self> {
        let strings = |v: &Value| -> Option<Vec<String>> {
            v.as_array()?
                .iter()
                .map(|s| s.as_str().map(str::to_string))
                .collect()
        };
        if let Some(picks) = value.get("picks") {
            let other = match value.get("other") {
                None | Some(Value::Null) => None,
                Some(other) => Some(other.as_str()?.to_string()),
            };
            return Some(Self::Choice {
                picks: strings(picks)?,
                other,
            });
        }
        if let Some(text) = value.get("text") {
            return Some(Self::Text(text.as_str()?.to_string()));
        }
        value.get("paths").and_then(strings).map(Self::Paths)
    }

    fn to_json(&self) -> Value {
        match self {
            Self::Choice { picks, other } => json!({"picks": picks, "other": other}),
            Self::Text(text) => json!({"text": text}),
            Self::Paths(paths) => json!({"paths": paths}),
        }
    }
}

#[derive(Debug, Default)]
struct State {
    entries: Map<String, Value>,
    /// When it last changed, in milliseconds since 1970 (as the page's clock says it).
    at: u64,
}

/// Shared by the form's server and the terminal.
#[derive(Debug, Clone, Default)]
pub struct Draft(Arc<Mutex<State>>);

impl PartialEq for Draft {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Draft {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the page's draft, `{at, answers: {id: entry}}`: entries for `ids` only, each a
    /// known shape; an older draft than the one kept is ignored.
    pub fn replace(&self, posted: &Value, ids: &[&str]) -> Result<(), String> {
        let Some(answers) = posted.get("answers").and_then(Value::as_object) else {
            return Err("draft: expected {at, answers}.".into());
        };
        let at = posted
            .get("at")
            .and_then(Value::as_u64)
            .unwrap_or_else(now_ms);
        let mut entries = Map::new();
        for (id, value) in answers {
            if !ids.contains(&id.as_str()) {
                return Err(format!("draft: unknown question id \"{id}\"."));
            }
            let entry = Entry::from_json(value)
                .ok_or_else(|| format!("draft: the entry for \"{id}\" has no known shape."))?;
            entries.insert(id.clone(), entry.to_json());
        }
        let mut state = self.state();
        if at >= state.at {
            *state = State { entries, at };
        }
        Ok(())
    }

    /// Keeps one answer taken in the terminal.
    pub fn set(&self, id: &str, entry: &Entry) {
        let mut state = self.state();
        state.entries.insert(id.to_string(), entry.to_json());
        state.at = now_ms().max(state.at + 1);
    }

    pub fn entry(&self, id: &str) -> Option<Entry> {
        self.state().entries.get(id).and_then(Entry::from_json)
    }

    /// `{at, answers}` for the page (`null` before anything was kept).
    pub fn snapshot(&self) -> Value {
        let state = self.state();
        match state.at {
            0 => Value::Null,
            at => json!({"at": at, "answers": state.entries}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_draft_from_either_surface_is_kept() {
        let draft = Draft::default();
        assert_eq!(draft.snapshot(), Value::Null);
        let ids = ["db", "name", "logo"];
        draft
            .replace(
                &json!({"at": 1000, "answers": {"db": {"picks": [], "other": "MariaDB"},
                    "name": {"text": "led"}, "logo": {"paths": ["a.png"]}}}),
                &ids,
            )
            .unwrap();
        assert_eq!(
            draft.entry("db"),
            Some(Entry::Choice {
                picks: vec![],
                other: Some("MariaDB".into())
            })
        );
        assert_eq!(
            draft.entry("logo"),
            Some(Entry::Paths(vec!["a.png".into()]))
        );
        // An older page's draft does not undo a newer one.
        draft
            .replace(&json!({"at": 999, "answers": {}}), &ids)
            .unwrap();
        assert_eq!(draft.entry("name"), Some(Entry::Text("led".into())));
        // The terminal's answer is newer than any page's so far.
        draft.set("name", &Entry::Text("ledger".into()));
        let snapshot = draft.snapshot();
        assert!(snapshot["at"].as_u64().unwrap() > 1000);
        assert_eq!(snapshot["answers"]["name"], json!({"text": "ledger"}));
        assert_eq!(snapshot["answers"]["db"]["other"], "MariaDB");
        let bad = |posted: Value| draft.replace(&posted, &ids).unwrap_err();
        assert!(
            bad(json!({"answers": {"nope": {"text": ""}}}))
                .contains("unknown question id \"nope\"")
        );
        assert!(bad(json!({"answers": {"db": {"picks": "x"}}})).contains("no known shape"));
        assert!(bad(json!([])).contains("expected {at, answers}"));
    }
}
