//! Tokens of services, kept readable by the user alone (0600): the Copilot session token
//! cached in MARVIN_HOME/copilot-token.json until it expires (a cache, not the user's data: one
//! that is missing or cannot be read is simply fetched again and overwritten), and a profile's
//! sign-ins in `<profile>/tokens.json`, one entry a service (`"spotify"`), changed under a lock
//! so that a refresh never loses another's.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Warnings;
use super::json::{self, SaveError};
use super::lock::{self, Held};

/// A profile's sign-ins, by service.
const PROFILE_FILE: &str = "tokens.json";

/// Where the Copilot session token is cached.
pub(crate) fn copilot_cache(home: &Path) -> PathBuf {
    home.join("copilot-token.json")
}

/// The cached token; `None` when there is none or it cannot be read as one.
pub(crate) fn load<T: DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Caches `token` private (0600) and in one step.
pub(crate) fn save<T: Serialize>(path: &Path, token: &T) -> Result<(), SaveError> {
    json::save_private(path, token).map_err(SaveError::at(path))
}

/// Forgets the cached token; one that is already gone is forgotten too.
pub(crate) fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// The profile's file of sign-ins.
pub(crate) fn profile_file(profile_dir: &Path) -> PathBuf {
    profile_dir.join(PROFILE_FILE)
}

/// Holds the profile's sign-ins for a read-change-write (a refresh, a new sign-in).
pub(crate) fn hold(profile_dir: &Path) -> std::io::Result<Held> {
    lock::hold(&profile_file(profile_dir))
}

/// `service`'s entry in the profile's sign-ins; `None` when there is none or it is not one. A
/// file that is not JSON is moved aside with a warning.
pub(crate) fn service_token<T: DeserializeOwned>(
    profile_dir: &Path,
    service: &str,
    warnings: &Warnings,
) -> Option<T> {
    let mut all: Map<String, Value> = json::read(&profile_file(profile_dir), warnings);
    serde_json::from_value(all.remove(service)?).ok()
}

/// Keeps `token` as `service`'s entry (0600, in one step), the other services' as they were.
/// The caller holds the lock ([`hold`]).
pub(crate) fn save_service_token<T: Serialize>(
    profile_dir: &Path,
    service: &str,
    token: &T,
    warnings: &Warnings,
) -> Result<(), SaveError> {
    let path = profile_file(profile_dir);
    let mut all: Map<String, Value> = json::read(&path, warnings);
    let value = serde_json::to_value(token).map_err(|e| SaveError {
        path: path.clone(),
        error: std::io::Error::other(e),
    })?;
    all.insert(service.to_string(), value);
    save(&path, &all)
}

/// Forgets `service`'s entry, the other services' kept; whether there was one. The caller
/// holds the lock ([`hold`]).
pub(crate) fn remove_service_token(
    profile_dir: &Path,
    service: &str,
    warnings: &Warnings,
) -> Result<bool, SaveError> {
    let path = profile_file(profile_dir);
    let mut all: Map<String, Value> = json::read(&path, warnings);
    if all.remove(service).is_none() {
        return Ok(false);
    }
    save(&path, &all).map(|()| true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn tokens_are_private_round_trip_and_leave_no_temporary_file() {
        let dir = crate::test_support::TempDir::new("store-tokens");
        let path = copilot_cache(&dir.path().join("home"));
        assert_eq!(load::<Vec<String>>(&path), None);
        save(&path, &vec!["tid=1".to_string()]).unwrap();
        assert_eq!(load::<Vec<String>>(&path).unwrap(), ["tid=1"]);
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["copilot-token.json"]);
        std::fs::write(&path, "not json").unwrap();
        assert_eq!(load::<Vec<String>>(&path), None);
        remove(&path);
        assert!(!path.exists());
    }

    #[test]
    fn a_profiles_sign_ins_are_private_and_kept_by_service() {
        let dir = crate::test_support::TempDir::new("store-profile-tokens");
        let warnings = Warnings::default();
        assert_eq!(
            service_token::<String>(dir.path(), "spotify", &warnings),
            None
        );
        let _held = hold(dir.path()).unwrap();
        save_service_token(dir.path(), "other", &"o-1", &warnings).unwrap();
        save_service_token(dir.path(), "spotify", &"s-1", &warnings).unwrap();
        save_service_token(dir.path(), "spotify", &"s-2", &warnings).unwrap();
        save_service_token(dir.path(), "gone", &"g-1", &warnings).unwrap();
        assert!(remove_service_token(dir.path(), "gone", &warnings).unwrap());
        assert!(!remove_service_token(dir.path(), "gone", &warnings).unwrap());
        let path = profile_file(dir.path());
        let kept: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(kept, serde_json::json!({"other": "o-1", "spotify": "s-2"}));
        assert_eq!(
            service_token::<String>(dir.path(), "spotify", &warnings).as_deref(),
            Some("s-2")
        );
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        std::fs::write(&path, "not json").unwrap();
        assert_eq!(
            service_token::<String>(dir.path(), "spotify", &warnings),
            None
        );
        assert_eq!(warnings.take().len(), 1, "a corrupt file is moved aside");
    }

    #[test]
    fn a_token_that_cannot_be_written_says_where() {
        let dir = crate::test_support::TempDir::new("store-tokens-blocked");
        let path = dir.path().join("copilot-token.json");
        std::fs::create_dir_all(&path).unwrap();
        let error = save(&path, &"t").unwrap_err();
        assert_eq!(error.path, path);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
