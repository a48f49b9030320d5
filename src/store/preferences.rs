//! A profile's preferences (preferences.json, a JSON object): their text for the system
//! prompt, and editing them on a copy that replaces the file only when it is still an object.

use std::fs;
use std::path::{Path, PathBuf};

use super::Warnings;
use super::json;

/// The file, in the profile directory.
pub(super) const FILE: &str = "preferences.json";

/// What there is to edit when there is no file yet.
const UNSET: &str = "{}\n";

/// The preferences (an object; `null` when there are none or the file is not JSON).
pub(crate) fn load(profile_dir: &Path, warnings: &Warnings) -> serde_json::Value {
    json::read(&profile_dir.join(FILE), warnings)
}

/// The preferences as JSON text for the system prompt; `None` when there are none.
pub(crate) fn prompt_text(profile_dir: &Path, warnings: &Warnings) -> Option<String> {
    let value: serde_json::Value = json::read(&profile_dir.join(FILE), warnings);
    (value.as_object().is_some_and(|m| !m.is_empty())).then(|| value.to_string())
}

/// A copy of the preferences to edit (`preferences.json.edit`), made beside them so the
/// edited copy can take their place in one step.
pub(crate) fn draft(profile_dir: &Path) -> Result<PathBuf, String> {
    let draft = profile_dir.join(format!("{FILE}.edit"));
    let current = fs::read_to_string(profile_dir.join(FILE))
        .ok()
        .filter(|text| !text.trim().is_empty())
        .unwrap_or_else(|| UNSET.into());
    fs::write(&draft, &current).map_err(|e| format!("cannot prepare {}: {e}", draft.display()))?;
    Ok(draft)
}

/// Puts the edited copy in place when it is a JSON object: true when that changed the
/// preferences, false when the copy is as they were (nothing is written then); says why not
/// otherwise. The copy is gone afterwards either way.
pub(crate) fn accept(profile_dir: &Path, draft: &Path) -> Result<bool, String> {
    let text = fs::read_to_string(draft).unwrap_or_default();
    let file = profile_dir.join(FILE);
    let before = fs::read_to_string(&file).unwrap_or_else(|_| UNSET.into());
    let verdict = match serde_json::from_str::<serde_json::Value>(&text) {
        _ if text == before => Ok(false),
        Ok(value) if value.is_object() => fs::rename(draft, &file)
            .map(|()| true)
            .map_err(|e| e.to_string()),
        Ok(_) => Err("preferences must be a JSON object ({...})".into()),
        Err(error) => Err(format!("that is not valid JSON ({error})")),
    };
    discard(draft);
    verdict
}

/// Drops an edited copy that will not be used.
pub(crate) fn discard(draft: &Path) {
    let _ = fs::remove_file(draft);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn an_edit_replaces_the_preferences_only_when_it_is_an_object() {
        let dir = TempDir::new("store-preferences");
        let file = dir.path().join(FILE);
        fs::write(&file, r#"{"units": "metric"}"#).unwrap();
        let cases: &[(&str, Result<bool, &str>)] = &[
            ("[1, 2]", Err("preferences must be a JSON object ({...})")),
            ("{\"units\": ", Err("that is not valid JSON (")),
            (r#"{"units": "metric"}"#, Ok(false)),
            (r#"{"units": "imperial"}"#, Ok(true)),
        ];
        for (edited, expected) in cases {
            let before = fs::read_to_string(&file).unwrap();
            let draft = draft(dir.path()).unwrap();
            assert_eq!(fs::read_to_string(&draft).unwrap(), before);
            fs::write(&draft, edited).unwrap();
            match (accept(dir.path(), &draft), expected) {
                (Ok(changed), Ok(expected)) => {
                    assert_eq!(changed, *expected, "{edited}");
                    assert_eq!(fs::read_to_string(&file).unwrap(), *edited);
                }
                (Err(why), Err(start)) => {
                    assert!(why.starts_with(start), "{edited}: {why}");
                    assert_eq!(fs::read_to_string(&file).unwrap(), before);
                }
                (got, _) => panic!("{edited}: {got:?}"),
            }
            assert!(!draft.exists(), "{edited}");
        }
        let warnings = Warnings::default();
        assert_eq!(
            prompt_text(dir.path(), &warnings).as_deref(),
            Some(r#"{"units":"imperial"}"#)
        );
    }

    #[test]
    fn an_untouched_copy_writes_nothing() {
        let dir = TempDir::new("store-preferences-untouched");
        let draft = draft(dir.path()).unwrap();
        assert_eq!(accept(dir.path(), &draft), Ok(false));
        assert!(!dir.path().join(FILE).exists());
        assert!(!draft.exists());
    }
}
