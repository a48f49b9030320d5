//! A profile's ntfy subscriptions (ntfy_subscriptions.json): the topics it follows, and where
//! polling each one resumes; and the last messages heard on them (ntfy_heard.json), kept whole
//! for `/notifications` while the prompt shows one line of each.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Warnings;
use super::json::{self, SaveError};

const FILE: &str = "ntfy_subscriptions.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subscription {
    pub topic: String,
    /// Where polling resumes: the last message id seen, or a unix time.
    pub since: String,
}

fn file(profile_dir: &Path) -> PathBuf {
    profile_dir.join(FILE)
}

const HEARD: &str = "ntfy_heard.json";
/// The messages kept: the last ones heard, at most this many and this many bytes in all (a
/// message may be a megabyte).
const HEARD_MOST: usize = 20;
const HEARD_BYTES: usize = 2 * 1024 * 1024;

/// A message heard on a subscription, whole, as shown (`topic · title: text`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heard {
    /// When it was heard (ISO 8601, UTC).
    pub at: String,
    pub message: String,
}

/// The profile's subscriptions; a corrupt file is moved aside with a warning in `warnings`.
pub(crate) fn load(profile_dir: &Path, warnings: &Warnings) -> Vec<Subscription> {
    json::read(&file(profile_dir), warnings)
}

pub(crate) fn save(profile_dir: &Path, subscriptions: &[Subscription]) -> Result<(), SaveError> {
    let path = file(profile_dir);
    json::save(&path, &subscriptions).map_err(SaveError::at(&path))
}

/// The messages heard last, the oldest first; a corrupt file is moved aside with a warning.
pub(crate) fn heard(profile_dir: &Path, warnings: &Warnings) -> Vec<Heard> {
    json::read(&profile_dir.join(HEARD), warnings)
}

/// Keeps `messages` (heard `at`) after those kept, dropping the oldest past [`HEARD_MOST`] or
/// [`HEARD_BYTES`]. Readable by the user alone: a notification may say private things.
pub(crate) fn keep_heard(
    profile_dir: &Path,
    messages: &[String],
    at: &str,
    warnings: &Warnings,
) -> Result<(), SaveError> {
    if messages.is_empty() {
        return Ok(());
    }
    let path = profile_dir.join(HEARD);
    let _held = super::lock::hold(&path).map_err(SaveError::at(&path))?;
    let mut kept = heard(profile_dir, warnings);
    kept.extend(messages.iter().map(|message| Heard {
        at: at.to_string(),
        message: message.clone(),
    }));
    let mut bytes: usize = kept.iter().map(|h| h.message.len()).sum();
    let mut drop = kept.len().saturating_sub(HEARD_MOST);
    bytes -= kept[..drop].iter().map(|h| h.message.len()).sum::<usize>();
    while bytes > HEARD_BYTES && drop + 1 < kept.len() {
        bytes -= kept[drop].message.len();
        drop += 1;
    }
    kept.drain(..drop);
    json::save_private(&path, &kept).map_err(SaveError::at(&path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn the_last_messages_are_kept_whole_within_a_count_and_a_size() {
        let dir = TempDir::new("store-ntfy-heard");
        let warnings = Warnings::default();
        let numbered: Vec<String> = (1..=25).map(|n| format!("alerts: {n}")).collect();
        keep_heard(dir.path(), &numbered[..5], "t1", &warnings).unwrap();
        keep_heard(dir.path(), &numbered[5..], "t2", &warnings).unwrap();
        let kept = heard(dir.path(), &warnings);
        assert_eq!(kept.len(), HEARD_MOST);
        assert_eq!(kept[0].message, "alerts: 6");
        assert_eq!(
            (kept[19].message.as_str(), kept[19].at.as_str()),
            ("alerts: 25", "t2")
        );
        let big = "x".repeat(HEARD_BYTES / 2 + 1);
        keep_heard(dir.path(), &[big.clone(), big.clone()], "t3", &warnings).unwrap();
        let kept = heard(dir.path(), &warnings);
        assert_eq!(
            kept.len(),
            1,
            "the newest is kept whole even alone past the size"
        );
        assert_eq!(kept[0].message, big);
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(dir.path().join(HEARD))
                .unwrap()
                .permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        assert!(warnings.take().is_empty());
    }
}
