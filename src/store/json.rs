//! Reading and writing the store's JSON files: a missing or empty file is empty, a corrupt one
//! (not JSON, not even UTF-8) is moved aside as `<name>.corrupt-<time>` with a warning (never
//! silently overwritten), writes go to a temporary file that is renamed into place, or
//! removed when the write fails, and a new file appears whole or not at all (another marvin
//! starting at the same moment never reads it half-written). Secrets are written readable by
//! the user alone (0600).

use std::fs;
use std::io;
use std::path::Path;
use std::time::SystemTime;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Warnings;

/// The file's value; the default when it is missing, empty (a full disk leaves one, and there
/// is nothing in it to lose) or had to be moved aside (also when it is not UTF-8: that is not
/// JSON either, and must not be overwritten unseen). Moving it aside adds a warning to
/// `warnings`.
pub(crate) fn read<T: DeserializeOwned + Default>(path: &Path, warnings: &Warnings) -> T {
    let Ok(bytes) = fs::read(path) else {
        return T::default();
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return T::default();
    }
    match serde_json::from_slice(&bytes) {
        Ok(value) => value,
        Err(error) => {
            warnings.push(move_aside(path, &error));
            T::default()
        }
    }
}

/// Renames a corrupt file to `<name>.corrupt-<time>`; says what happened.
fn move_aside(path: &Path, error: &serde_json::Error) -> String {
    let stamp = crate::clock::iso8601(SystemTime::now()).replace(':', "-");
    let mut aside = path.as_os_str().to_os_string();
    aside.push(format!(".corrupt-{stamp}"));
    match fs::rename(path, &aside) {
        Ok(()) => format!(
            "{} was not valid JSON ({error}); moved it to {} and started afresh",
            path.display(),
            Path::new(&aside).display()
        ),
        Err(move_error) => format!(
            "{} is not valid JSON ({error}) and could not be moved aside: {move_error}",
            path.display()
        ),
    }
}

/// Writes `value` in one step: a temporary file beside it, then a rename.
pub(crate) fn save<T: Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    replace(path, format!("{text}\n").as_bytes())
}

/// Writes `value` in one step, readable by the user alone (0600) from its first byte on, and
/// on the disk before it takes the old file's place: for secrets (session tokens).
pub(crate) fn save_private<T: Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let text = serde_json::to_string(value).map_err(io::Error::other)?;
    write_then_rename(path, text.as_bytes(), Access::Private)
}

/// Replaces the file's content with `bytes` in one step, readable by the user alone (0600)
/// from its first byte on: for a key the person gave.
pub(crate) fn replace_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_then_rename(path, bytes, Access::Private)
}

/// Replaces the file's content in one step, so a reader at the same moment sees the old
/// content or the new, never a truncated file.
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_then_rename(path, bytes, Access::Shared)
}

/// Makes the file with `bytes` unless it exists: written to a temporary file first and linked
/// into place, so that nobody ever sees it empty or half-written, and never over a file
/// another process has just made or the user has edited. `private` makes it 0600.
///
/// A file that is already there (anything at the name, as the link would find it) is left
/// alone without writing the temporary file: every run opens the profile, and a private one
/// is synced to the disk, which took 3.6 ms on a quiet disk and over 10 ms on a busy one.
/// One that appears after this look is still never overwritten: the link refuses it.
pub(crate) fn create_if_absent(path: &Path, bytes: &[u8], private: bool) -> io::Result<()> {
    if fs::symlink_metadata(path).is_ok() {
        return Ok(());
    }
    let access = match private {
        true => Access::Private,
        false => Access::Shared,
    };
    let temp = temp_beside(path);
    write_new(&temp, bytes, access).inspect_err(|_| {
        let _ = fs::remove_file(&temp);
    })?;
    let linked = match fs::hard_link(&temp, path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        // A file system without hard links: made new in place (a reader may then see it
        // empty for a moment, which reads as empty, not corrupt).
        Err(_) => match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
        {
            Ok(mut file) => io::Write::write_all(&mut file, bytes),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            Err(error) => Err(error),
        },
    };
    let _ = fs::remove_file(&temp);
    linked
}

/// A temporary name beside `path`, this process's and this thread's own.
fn temp_beside(path: &Path) -> std::path::PathBuf {
    let mut temp = path.as_os_str().to_os_string();
    temp.push(format!(
        ".tmp-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    temp.into()
}

/// Who may read a file the store writes.
#[derive(Clone, Copy, PartialEq)]
enum Access {
    /// As the umask allows.
    Shared,
    /// The user alone (0600), and synced before the rename.
    Private,
}

fn write_then_rename(path: &Path, bytes: &[u8], access: Access) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let temp = temp_beside(path);
    // A write that fails half-way (a full disk) must not leave the temporary file behind.
    write_new(&temp, bytes, access)
        .and_then(|()| fs::rename(&temp, path))
        .inspect_err(|_| {
            let _ = fs::remove_file(&temp);
        })
}

fn write_new(path: &Path, bytes: &[u8], access: Access) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if access == Access::Shared {
        return fs::write(path, bytes);
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// A store file that could not be written: which, and why. Each caller says it in its own
/// words (a sentence for the model, a warning for the person).
#[derive(Debug)]
pub(crate) struct SaveError {
    pub path: std::path::PathBuf,
    pub error: io::Error,
}

impl SaveError {
    pub(crate) fn at(path: &Path) -> impl FnOnce(io::Error) -> SaveError + '_ {
        move |error| SaveError {
            path: path.to_path_buf(),
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_is_empty_corrupt_is_moved_aside_and_saves_round_trip() {
        let dir = crate::test_support::TempDir::new("store-json");
        let path = dir.path().join("places.json");
        let warnings = Warnings::default();
        assert_eq!(read::<Vec<String>>(&path, &warnings), Vec::<String>::new());
        save(&path, &vec!["a".to_string()]).unwrap();
        assert_eq!(read::<Vec<String>>(&path, &warnings), ["a"]);
        assert!(warnings.take().is_empty());
        fs::write(&path, "[\"cut off").unwrap();
        assert_eq!(read::<Vec<String>>(&path, &warnings), Vec::<String>::new());
        let said = warnings.take();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].starts_with(&format!("{} was not valid JSON (", path.display()))
                && said[0].ends_with(" and started afresh"),
            "{said:?}"
        );
        let aside: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".corrupt-"))
            .collect();
        assert_eq!(aside.len(), 1, "{aside:?}");
        assert_eq!(
            fs::read_to_string(dir.path().join(&aside[0])).unwrap(),
            "[\"cut off"
        );
    }

    #[test]
    fn an_empty_file_is_empty_not_corrupt() {
        let dir = crate::test_support::TempDir::new("store-empty");
        let path = dir.path().join("preferences.json");
        for empty in ["", "\n", "  \n"] {
            fs::write(&path, empty).unwrap();
            let warnings = Warnings::default();
            assert_eq!(
                read::<serde_json::Value>(&path, &warnings),
                serde_json::Value::Null
            );
            assert!(warnings.take().is_empty());
            assert_eq!(fs::read_to_string(&path).unwrap(), empty);
        }
    }

    #[test]
    fn a_new_file_is_made_whole_and_never_over_another() {
        use std::os::unix::fs::PermissionsExt;
        let dir = crate::test_support::TempDir::new("store-create");
        let path = dir.path().join("tokens.json");
        create_if_absent(&path, b"{}\n", true).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "{}\n");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        fs::write(&path, "{\"edited\": 1}").unwrap();
        create_if_absent(&path, b"{}\n", true).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"edited\": 1}");
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }

    #[test]
    fn a_file_that_is_not_utf8_is_moved_aside_too() {
        let dir = crate::test_support::TempDir::new("store-utf8");
        let path = dir.path().join("prefs.json");
        let latin1 = b"[\"caf\xe9\"]";
        fs::write(&path, latin1).unwrap();
        let warnings = Warnings::default();
        assert_eq!(read::<Vec<String>>(&path, &warnings), Vec::<String>::new());
        assert_eq!(warnings.take().len(), 1);
        assert!(!path.exists());
        let aside: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(aside.len(), 1);
        assert_eq!(fs::read(&aside[0]).unwrap(), latin1);
    }
}
