//! What servers said of their models, kept a day in MARVIN_HOME/models.json (a cache, not the
//! user's data: a missing or unreadable file is simply asked for again), so a quick question
//! to a remote server does not first ask it about its model at every start.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::lock;

/// How long what a server said is taken as still true.
pub(crate) const KEPT: Duration = Duration::from_secs(24 * 60 * 60);

/// One model's facts as a server gave them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Known {
    pub window: usize,
    pub tools: bool,
    /// Seconds since 1970 when the server said so.
    pub at: u64,
}

/// Where the cache is.
pub(crate) fn file(home: &Path) -> PathBuf {
    home.join("models.json")
}

/// What is known of `key` (the server's address and the model) and still fresh at `now`.
pub(crate) fn recall(path: &Path, key: &str, now: u64) -> Option<Known> {
    let all: BTreeMap<String, Known> =
        serde_json::from_slice(&std::fs::read(path).ok()?).unwrap_or_default();
    all.get(key)
        .filter(|known| now.saturating_sub(known.at) < KEPT.as_secs())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn facts_are_kept_a_day_and_a_broken_file_is_asked_for_again() {
        let dir = TempDir::new("store-models");
        let path = file(dir.path());
        assert_eq!(recall(&path, "http://a|m", 100), None);
        let known = Known {
            window: 8192,
            tools: true,
            at: 100,
        };
        keep(&path, "http://a|m", known.clone());
        assert_eq!(recall(&path, "http://a|m", 100 + 3600), Some(known));
        assert_eq!(recall(&path, "http://a|other", 200), None);
        assert_eq!(recall(&path, "http://a|m", 100 + KEPT.as_secs()), None);
        // A later entry drops the stale ones.
        let later = 100 + KEPT.as_secs() + 1;
        keep(
            &path,
            "http://b|m",
            Known {
                window: 4096,
                tools: false,
                at: later,
            },
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("http://a|m"), "{text}");
        std::fs::write(&path, "{broken").unwrap();
        assert_eq!(recall(&path, "http://b|m", later), None);
    }
}
