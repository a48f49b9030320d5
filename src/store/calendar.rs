//! A profile's calendar (calendar/): one `.ics` file an event, named by its id. The calendar
//! tools make and read the text (RFC 5545); this module keeps the files: written beside their
//! final name first so a half-written one never shows, listed, read and removed by id.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The folder, in the profile directory.
pub(crate) fn folder(profile_dir: &Path) -> PathBuf {
    profile_dir.join("calendar")
}

/// Saves `text` as event `id`; returns its path.
pub(crate) fn save(profile_dir: &Path, id: &str, text: &str) -> io::Result<PathBuf> {
    let dir = folder(profile_dir);
    let path = dir.join(format!("{id}.ics"));
    let part = dir.join(format!(".{id}.ics.part"));
    fs::create_dir_all(&dir)
        .and_then(|()| fs::write(&part, text))
        .and_then(|()| fs::rename(&part, &path))
        .inspect_err(|_| {
            let _ = fs::remove_file(&part);
        })?;
    Ok(path)
}

/// Every `.ics` file of the calendar as (id, text); unreadable files are skipped.
pub(crate) fn all(profile_dir: &Path) -> Vec<(String, String)> {
    let Ok(entries) = fs::read_dir(folder(profile_dir)) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "ics"))
        .filter_map(|path| {
            let id = path.file_stem()?.to_str()?.to_string();
            Some((id, fs::read_to_string(&path).ok()?))
        })
        .collect()
}

/// Event `id`'s text.
pub(crate) fn read(profile_dir: &Path, id: &str) -> io::Result<String> {
    fs::read_to_string(folder(profile_dir).join(format!("{id}.ics")))
}

/// Removes event `id`; returns the path it had.
pub(crate) fn remove(profile_dir: &Path, id: &str) -> io::Result<PathBuf> {
    let path = folder(profile_dir).join(format!("{id}.ics"));
    fs::remove_file(&path)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_saved_listed_read_and_removed_by_id() {
        let dir = crate::test_support::TempDir::new("store-calendar");
        let path = save(dir.path(), "e1", "BEGIN:VCALENDAR\r\n").unwrap();
        assert_eq!(path, dir.path().join("calendar/e1.ics"));
        fs::write(folder(dir.path()).join("notes.txt"), "not an event").unwrap();
        assert_eq!(
            all(dir.path()),
            [("e1".to_string(), "BEGIN:VCALENDAR\r\n".to_string())]
        );
        assert_eq!(read(dir.path(), "e1").unwrap(), "BEGIN:VCALENDAR\r\n");
        remove(dir.path(), "e1").unwrap();
        assert!(read(dir.path(), "e1").is_err());
        assert!(!folder(dir.path()).join(".e1.ics.part").exists());
    }
}
