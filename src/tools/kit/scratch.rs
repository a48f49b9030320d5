//! The session's private temporary directory, for files the tools keep for the model (an MCP
//! server's pictures and resources): made on first use under TMPDIR with a random name that
//! nobody else could have made first (created exclusively, mode 0700), files in it created
//! new and never through a symlink, and all of it removed when the session ends, or when
//! the process is ended by a signal at the prompt ([`remove_all`]).

use std::fs::{DirBuilder, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// Every scratch directory of the process that is still there, for [`remove_all`].
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes every session's scratch directory: for a process about to be ended by a signal,
/// whose sessions will not be dropped.
pub(crate) fn remove_all() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(PoisonError::into_inner));
    for dir in live {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A session's scratch directory; empty until a tool first writes to it.
#[derive(Default)]
pub struct Scratch(Mutex<Option<PathBuf>>);

impl Scratch {
    /// A fresh private directory for one call's files (`name` is made safe), inside the
    /// session's own one under `temp`.
    pub(crate) fn dir_for(&self, temp: &Path, name: &str) -> Result<PathBuf, String> {
        let session = self.session_dir(temp)?;
        let safe: String = name
            .chars()
            .map(|c| match c.is_ascii_alphanumeric() || c == '-' {
                true => c,
                false => '_',
            })
            .collect();
        for attempt in 0..100u32 {
            let dir = match attempt {
                0 => session.join(&safe),
                n => session.join(format!("{safe}-{n}")),
            };
            match DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(dir),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
            }
        }
        Err(format!(
            "cannot create a directory in {}",
            session.display()
        ))
    }

    /// The session's directory, made now if it is not there yet.
    fn session_dir(&self, temp: &Path) -> Result<PathBuf, String> {
        let mut made = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(dir) = made.as_ref() {
            return Ok(dir.clone());
        }
        for _ in 0..10 {
            let hex = crate::secret::random_hex(12)
                .map_err(|e| format!("no secure randomness for a temporary directory: {e}"))?;
            let dir = temp.join(format!("marvin-{hex}"));
            // Not recursive: a directory (or a link) already there is someone else's.
            match DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => {
                    *made = Some(dir.clone());
                    LIVE.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(dir.clone());
                    return Ok(dir);
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(format!(
                        "cannot create a private directory in {}: {e}",
                        temp.display()
                    ));
                }
            }
        }
        Err(format!(
            "cannot create a private directory in {}",
            temp.display()
        ))
    }

    /// Removes the directory and all in it (a later file makes a new one). The session calls
    /// this when it ends, whoever else still holds its tools' state (a worker thread that has
    /// not yet let go of it when the process exits).
    pub(crate) fn remove(&self) {
        if let Some(dir) = self.0.lock().unwrap_or_else(PoisonError::into_inner).take() {
            LIVE.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .retain(|live| *live != dir);
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Writes `bytes` to a new file at `path` (mode 0600): never over an existing file and never
/// through a symlink.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    file.write_all(bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn directories_are_new_private_and_gone_with_the_session() {
        let temp = TempDir::new("scratch");
        let scratch = Scratch::default();
        let first = scratch.dir_for(temp.path(), "call/1").unwrap();
        let again = scratch.dir_for(temp.path(), "call/1").unwrap();
        assert_ne!(first, again);
        assert_eq!(first.parent(), again.parent());
        assert!(first.ends_with("call_1"));
        let session = first.parent().unwrap().to_path_buf();
        for dir in [&session, &first, &again] {
            let mode = std::fs::metadata(dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", dir.display());
        }
        write_new(&first.join("a.png"), b"png").unwrap();
        assert!(write_new(&first.join("a.png"), b"again").is_err());
        drop(scratch);
        assert!(!session.exists());
    }

    #[test]
    fn a_planted_link_is_not_written_through() {
        let temp = TempDir::new("scratch-link");
        let victim = temp.path().join("victim");
        std::fs::write(&victim, "mine").unwrap();
        let link = temp.path().join("link.png");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(write_new(&link, b"overwritten").is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
    }
}
