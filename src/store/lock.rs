//! An exclusive lock around one file's read, change and write, across threads and processes
//! (`flock` on `<file>.lock` beside it): the parallel calls of one round, or two Marvins on one
//! profile, never lose each other's changes. The lock goes when the guard is dropped.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// Held while it lives.
pub(crate) struct Held(#[allow(dead_code)] File);

/// Waits for, then takes, the lock of `file`.
pub(crate) fn hold(file: &Path) -> io::Result<Held> {
    take(file, libc::LOCK_EX)?.ok_or_else(|| io::Error::other("the lock was not taken"))
}

/// Takes the lock of `file` if nobody holds it; `None` when somebody does.
pub(crate) fn try_hold(file: &Path) -> io::Result<Option<Held>> {
    take(file, libc::LOCK_EX | libc::LOCK_NB)
}

/// The lock file of `file`: `<file>.lock` beside it, which `flock(1)` can take too.
pub(crate) fn lock_file(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    file.with_file_name(name)
}

fn take(file: &Path, operation: libc::c_int) -> io::Result<Option<Held>> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_file(file))?;
    // SAFETY: flock on a file descriptor we own; the lock is released when it is closed.
    if unsafe { libc::flock(lock.as_raw_fd(), operation) } != 0 {
        let error = io::Error::last_os_error();
        return match error.kind() {
            io::ErrorKind::WouldBlock => Ok(None),
            _ => Err(error),
        };
    }
    Ok(Some(Held(lock)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn one_holder_at_a_time_across_threads() {
        let dir = crate::test_support::TempDir::new("store-lock");
        let file = dir.path().join("list.json");
        let inside = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..20 {
                        let _held = hold(&file).unwrap();
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), 1);
        assert!(dir.path().join("list.json.lock").exists());
    }

    #[test]
    fn a_held_lock_is_not_taken_twice_without_waiting() {
        let dir = crate::test_support::TempDir::new("store-try-lock");
        let file = dir.path().join("in-use");
        let first = try_hold(&file).unwrap();
        assert!(first.is_some());
        assert!(try_hold(&file).unwrap().is_none());
        drop(first);
        assert!(try_hold(&file).unwrap().is_some());
    }
}
