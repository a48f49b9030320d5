//! A profile's bookmarks (bookmarks.json): the list the bookmark tools keep, oldest first.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Warnings;
use super::json::{self, SaveError};

/// The file, in the profile directory.
const FILE: &str = "bookmarks.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Bookmark {
    pub url: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// When it was saved (ISO 8601, UTC).
    #[serde(default)]
    pub saved: String,
}

fn file(profile_dir: &Path) -> PathBuf {
    profile_dir.join(FILE)
}

/// The bookmarks; a corrupt file is moved aside with a warning in `warnings`.
pub(crate) fn load(profile_dir: &Path, warnings: &Warnings) -> Vec<Bookmark> {
    json::read(&file(profile_dir), warnings)
}

/// Holds the list for a change: load, change and save while holding it, so parallel calls
/// (and other Marvins) do not lose each other's changes.
pub(crate) fn hold(profile_dir: &Path) -> std::io::Result<super::lock::Held> {
    super::lock::hold(&profile_dir.join(FILE))
}

/// Replaces the list in one step (a temporary file renamed into place).
pub(crate) fn save(profile_dir: &Path, bookmarks: &[Bookmark]) -> Result<(), SaveError> {
    let path = file(profile_dir);
    json::save(&path, &bookmarks).map_err(SaveError::at(&path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bookmarks_round_trip_and_a_corrupt_file_is_moved_aside() {
        let dir = crate::test_support::TempDir::new("store-bookmarks");
        let warnings = Warnings::default();
        assert!(load(dir.path(), &warnings).is_empty());
        let mark = Bookmark {
            url: "https://example.org/".into(),
            title: "Example".into(),
            tags: vec!["docs".into()],
            notes: None,
            saved: "2026-01-02T03:04:05Z".into(),
        };
        save(dir.path(), std::slice::from_ref(&mark)).unwrap();
        assert_eq!(load(dir.path(), &warnings), [mark]);
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        assert!(!text.contains("notes"), "{text}");
        std::fs::write(dir.path().join(FILE), "[{\"url\": ").unwrap();
        assert!(load(dir.path(), &warnings).is_empty());
        let said = warnings.take();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("bookmarks.json was not valid JSON"),
            "{said:?}"
        );
        assert!(!dir.path().join(FILE).exists());
    }
}
