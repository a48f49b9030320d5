//! Finding an installed program on a search path, with the design card's `which`: a leaf that
//! the tools (git, rg, tk, uv, bash, users' tools), voice (the recorder) and the Copilot
//! provider (`gh`) all use.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Where `program` is on `path` (a PATH value), if it is installed: the first executable file
/// of that name. A relative entry of PATH counts from the root, never from a directory a
/// project chose.
pub(crate) fn find_program(program: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    // A name with a slash is a path, not a program to look for.
    if program.contains('/') {
        return None;
    }
    which::which_in(program, Some(path?), Path::new("/")).ok()
}

/// Whether `path` is a file this process may execute.
pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_the_path() {
        let path = std::env::var_os("PATH");
        assert!(find_program("sh", path.as_deref()).is_some());
        assert!(find_program("no-such-program-xyz", path.as_deref()).is_none());
        assert!(find_program("sh", None).is_none());
        assert!(find_program("/bin/sh", path.as_deref()).is_none());
    }

    #[test]
    fn only_executable_files_count() {
        use std::os::unix::fs::PermissionsExt;
        let dir = crate::test_support::TempDir::new("programs");
        let plain = dir.path().join("tool");
        std::fs::write(&plain, "#!/bin/sh\n").unwrap();
        std::fs::create_dir(dir.path().join("folder")).unwrap();
        let path = dir.path().as_os_str();
        assert_eq!(find_program("tool", Some(path)), None);
        assert_eq!(find_program("folder", Some(path)), None);
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(find_program("tool", Some(path)), Some(plain));
    }
}
