//! Every file under MARVIN_HOME is read and written here, each kind in its module (places,
//! bookmarks, preferences, chat log, ntfy subscriptions, approvals, tokens, the usage ledger,
//! saved Wikipedia articles, personal tickets).
//! This file keeps the profiles in MARVIN_HOME/profiles/<name>/: which one is in use
//! (remembered across runs), the list of them, and a new one's defaults. Directories are
//! private (0700).

pub(crate) mod approvals;
pub(crate) mod bookmarks;
pub(crate) mod calendar;
pub(crate) mod chatlog;
pub(crate) mod json;
pub(crate) mod ledger;
pub(crate) mod lock;
pub(crate) mod models;
pub(crate) mod ntfy;
pub(crate) mod places;
pub(crate) mod preferences;
pub(crate) mod sessions;
pub(crate) mod tickets;
pub(crate) mod tokens;
mod warnings;
pub(crate) mod wiki;

pub(crate) use warnings::Warnings;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The file that remembers the last profile used.
const LAST: &str = "last_profile";
pub(crate) const DEFAULT: &str = "default";

/// 1 to `max` ASCII letters, digits, `-` and `_`: safe as a file name and in a URL path.
pub(crate) fn is_plain_name(name: &str, max: usize) -> bool {
    (1..=max).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A profile name: letters, digits, `-` and `_`, at most 40 characters.
pub(crate) fn valid_name(name: &str) -> Result<(), String> {
    if is_plain_name(name, 40) {
        Ok(())
    } else {
        Err(format!(
            "profile name {name:?} must be 1-40 letters, digits, - or _"
        ))
    }
}

/// The profile to use: the one asked for, else the last one used, else `default`.
pub(crate) fn choose(home: Option<&Path>, requested: Option<&str>) -> Result<String, String> {
    if let Some(name) = requested {
        valid_name(name)?;
        return Ok(name.to_string());
    }
    let remembered = home
        .and_then(|h| fs::read_to_string(h.join(LAST)).ok())
        .map(|s| s.trim().to_string());
    Ok(remembered
        .filter(|n| valid_name(n).is_ok())
        .unwrap_or_else(|| DEFAULT.to_string()))
}

pub(crate) fn dir(home: &Path, name: &str) -> PathBuf {
    home.join("profiles").join(name)
}

/// Makes sure the profile exists (with empty preferences and places) and remembers it as
/// the last one used.
pub(crate) fn open(home: &Path, name: &str) -> io::Result<PathBuf> {
    let dir = dir(home, name);
    fs::create_dir_all(&dir)?;
    private(home);
    private(&home.join("profiles"));
    private(&dir);
    // Whole or not at all, and never over a file another marvin has just made or the user
    // edited. Tokens of services the user signed in to: readable by the user alone.
    for (file, empty, secret) in [
        (preferences::FILE, "{}\n", false),
        (places::FILE, "[]\n", false),
        ("tokens.json", "{}\n", true),
    ] {
        json::create_if_absent(&dir.join(file), empty.as_bytes(), secret)?;
    }
    set_mode(&dir.join("tokens.json"), 0o600)?;
    // Every run opens the profile: write the marker only when it changes.
    let last = format!("{name}\n");
    if fs::read_to_string(home.join(LAST)).ok().as_deref() != Some(last.as_str()) {
        json::replace(&home.join(LAST), last.as_bytes())?;
    }
    Ok(dir)
}

fn private(dir: &Path) {
    let _ = set_mode(dir, 0o700);
}

/// Gives the file or directory `mode` unless it has it already: every run opens the profile,
/// and a chmod that changes nothing still writes the inode (its ctime) to the journal.
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match fs::metadata(path) {
        Ok(meta) if meta.permissions().mode() & 0o7777 == mode => Ok(()),
        _ => fs::set_permissions(path, fs::Permissions::from_mode(mode)),
    }
}

/// The profile's input history, which the line editor reads and appends to itself; the
/// profile directory is made first.
pub(crate) fn history_file(profile_dir: &Path) -> io::Result<PathBuf> {
    fs::create_dir_all(profile_dir)?;
    Ok(profile_dir.join("history"))
}

/// The profiles that exist, sorted.
pub(crate) fn list(home: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(home.join("profiles"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| valid_name(n).is_ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn choice_is_requested_then_last_then_default() {
        let home = TempDir::new("profiles-choose");
        assert_eq!(choose(Some(home.path()), None).unwrap(), "default");
        open(home.path(), "work").unwrap();
        assert_eq!(choose(Some(home.path()), None).unwrap(), "work");
        assert_eq!(choose(Some(home.path()), Some("play")).unwrap(), "play");
        assert!(
            choose(Some(home.path()), Some("../evil"))
                .unwrap_err()
                .contains("must be 1-40 letters")
        );
        assert_eq!(choose(None, None).unwrap(), "default");
    }

    #[test]
    fn opening_creates_private_defaults_and_listing_finds_them() {
        use std::os::unix::fs::PermissionsExt;
        let home = TempDir::new("profiles-open");
        let dir = open(home.path(), "work").unwrap();
        open(home.path(), "home").unwrap();
        assert_eq!(
            fs::read_to_string(dir.join("preferences.json")).unwrap(),
            "{}\n"
        );
        assert_eq!(
            fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
        assert_eq!(list(home.path()), ["home", "work"]);
        let warnings = Warnings::default();
        assert_eq!(preferences::prompt_text(&dir, &warnings), None);
        fs::write(dir.join("preferences.json"), r#"{"units": "metric"}"#).unwrap();
        assert_eq!(
            preferences::prompt_text(&dir, &warnings).as_deref(),
            Some(r#"{"units":"metric"}"#)
        );
        assert!(warnings.take().is_empty());
    }
}
