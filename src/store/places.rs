//! A profile's saved places (saved_places.json): the list the places tools keep, and its text
//! for the system prompt.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Warnings;
use super::json::{self, SaveError};

/// The file, in the profile directory.
pub(super) const FILE: &str = "saved_places.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Place {
    pub label: String,
    pub name: String,
    pub address: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lng: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

fn file(profile_dir: &Path) -> PathBuf {
    profile_dir.join(FILE)
}

/// The saved places; a corrupt file is moved aside with a warning in `warnings`.
pub(crate) fn load(profile_dir: &Path, warnings: &Warnings) -> Vec<Place> {
    json::read(&file(profile_dir), warnings)
}

/// Holds the list for a change: load, change and save while holding it, so parallel calls
/// (and other Marvins) do not lose each other's changes.
pub(crate) fn hold(profile_dir: &Path) -> std::io::Result<super::lock::Held> {
    super::lock::hold(&profile_dir.join(FILE))
}

pub(crate) fn save(profile_dir: &Path, places: &[Place]) -> Result<(), SaveError> {
    let path = file(profile_dir);
    json::save(&path, &places).map_err(SaveError::at(&path))
}

/// The saved places as JSON text for the system prompt, fields the tools do not know
/// included; `None` when there are none.
pub(crate) fn prompt_text(profile_dir: &Path, warnings: &Warnings) -> Option<String> {
    let value: serde_json::Value = json::read(&file(profile_dir), warnings);
    (value.as_array().is_some_and(|a| !a.is_empty())).then(|| value.to_string())
}
