//! What servers said of their models, kept in MARVIN_HOME/models.json (a cache, not the user's
//! data: a missing or unreadable file is simply asked for again), so a quick question does not
//! first ask the server about its model at every start: a day for a server elsewhere, ten
//! minutes for one on this machine (it may be started again with another window).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::lock;

/// How long what a server elsewhere said is taken as still true.
pub(crate) const KEPT: Duration = Duration::from_secs(24 * 60 * 60);
/// The same for a server on this machine.
pub(crate) const KEPT_LOCAL: Duration = Duration::from_secs(10 * 60);

/// One model's facts as a server gave them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Known {
    pub window: usize,
    pub tools: bool,
    /// Where it came from: the server's answer, or a guess where the server said nothing
    /// (that it says nothing is worth remembering too).
    #[serde(default)]
    pub told: bool,
    /// Seconds since 1970 when the server said so.
    pub at: u64,
}

/// Where the cache is.
pub(crate) fn file(home: &Path) -> PathBuf {
    home.join("models.json")
}

/// What is known of `key` (the server's address and the model), said less than `kept` before
/// `now`.
pub(crate) fn recall(path: &Path, key: &str, now: u64, kept: Duration) -> Option<Known> {
    let all: BTreeMap<String, Known> =
        serde_json::from_slice(&std::fs::read(path).ok()?).unwrap_or_default();
    all.get(key)
        .filter(|known| now.saturating_sub(known.at) < kept.as_secs())
        .cloned()
}

/// Keeps `known` for `key`, dropping entries gone stale; a cache that cannot be written is
/// asked for again next time, so failures are not reported.
pub(crate) fn keep(path: &Path, key: &str, known: Known) {
    let Ok(_held) = lock::hold(path) else {
        return;
    };
    let mut all: BTreeMap<String, Known> = std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let now = known.at;
    all.retain(|_, k| now.saturating_sub(k.at) < KEPT.as_secs());
    all.insert(key.to_string(), known);
    let _ = super::json::save(path, &all);
}

/// Drops what is known of `key` (it cannot be right); as [`keep`], failures are not reported.
pub(crate) fn forget(path: &Path, key: &str) {
    let Ok(_held) = lock::hold(path) else {
        return;
    };
    let Some(mut all) = std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<BTreeMap<String, Known>>(&bytes).ok())
    else {
        return;
    };
    if all.remove(key).is_some() {
        let _ = super::json::save(path, &all);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn facts_are_kept_a_day_and_a_broken_file_is_asked_for_again() {
        let dir = TempDir::new("store-models");
        let path = file(dir.path());
        assert_eq!(recall(&path, "http://a|m", 100, KEPT), None);
        let known = Known {
            window: 8192,
            tools: true,
            told: true,
            at: 100,
        };
        keep(&path, "http://a|m", known.clone());
        assert_eq!(recall(&path, "http://a|m", 100 + 3600, KEPT), Some(known));
        assert_eq!(recall(&path, "http://a|m", 100 + 3600, KEPT_LOCAL), None);
        assert_eq!(recall(&path, "http://a|other", 200, KEPT), None);
        assert_eq!(
            recall(&path, "http://a|m", 100 + KEPT.as_secs(), KEPT),
            None
        );
        // A later entry drops the stale ones.
        let later = 100 + KEPT.as_secs() + 1;
        keep(
            &path,
            "http://b|m",
            Known {
                window: 4096,
                tools: false,
                told: false,
                at: later,
            },
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("http://a|m"), "{text}");
        forget(&path, "http://b|m");
        assert_eq!(recall(&path, "http://b|m", later, KEPT), None);
        std::fs::write(&path, "{broken").unwrap();
        assert_eq!(recall(&path, "http://b|m", later, KEPT), None);
    }
}
