//! Linux's Landlock, spoken directly (landlock(7)): which ABI the kernel has, a ruleset built in
//! the parent (create, add a rule per path), and the two calls a child makes between fork and
//! exec to enter it (no new privileges, restrict self). The parent does everything that can
//! allocate or fail slowly, so the child only makes two async-signal-safe system calls.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Access rights to files (`LANDLOCK_ACCESS_FS_*`), by the ABI that brought them.
pub(crate) mod fs {
    pub const EXECUTE: u64 = 1 << 0;
    pub const WRITE_FILE: u64 = 1 << 1;
    pub const READ_FILE: u64 = 1 << 2;
    pub const READ_DIR: u64 = 1 << 3;
    pub const REMOVE_DIR: u64 = 1 << 4;
    pub const REMOVE_FILE: u64 = 1 << 5;
    pub const MAKE_CHAR: u64 = 1 << 6;
    pub const MAKE_DIR: u64 = 1 << 7;
    pub const MAKE_REG: u64 = 1 << 8;
    pub const MAKE_SOCK: u64 = 1 << 9;
    pub const MAKE_FIFO: u64 = 1 << 10;
    pub const MAKE_BLOCK: u64 = 1 << 11;
    pub const MAKE_SYM: u64 = 1 << 12;
    /// ABI 2: linking or renaming a file into another directory.
    pub const REFER: u64 = 1 << 13;
    /// ABI 3: truncating a file.
    pub const TRUNCATE: u64 = 1 << 14;
    /// ABI 5: ioctl on a device (a terminal's TIOCSTI among them).
    pub const IOCTL_DEV: u64 = 1 << 15;

    /// Reading and running what is there.
    pub const READ: u64 = EXECUTE | READ_FILE | READ_DIR;
    /// Changing a file that is there.
    pub const CHANGE: u64 = WRITE_FILE | TRUNCATE;
    /// Everything that writes: changing files, making and removing entries.
    pub const WRITE: u64 = CHANGE
        | REMOVE_DIR
        | REMOVE_FILE
        | MAKE_CHAR
        | MAKE_DIR
        | MAKE_REG
        | MAKE_SOCK
        | MAKE_FIFO
        | MAKE_BLOCK
        | MAKE_SYM
        | REFER;
    /// The rights a rule on a file (not a directory) may hold.
    pub const ON_A_FILE: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV;
}

/// TCP rights (`LANDLOCK_ACCESS_NET_*`, ABI 4).
const NET_BIND_TCP: u64 = 1 << 0;
const NET_CONNECT_TCP: u64 = 1 << 1;
/// Scopes (`LANDLOCK_SCOPE_*`, ABI 6): no connecting to abstract Unix sockets of processes
/// outside the sandbox (an X server's, a desktop's buses), no signals to them.
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

const CREATE_RULESET_VERSION: u32 = 1 << 0;
const RULE_PATH_BENEATH: libc::c_int = 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The Landlock ABI version this kernel offers, or why there is none.
pub(crate) fn abi() -> Result<u32, io::Error> {
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns a number.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    if version < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(version as u32)
}

/// The file rights an ABI knows.
pub(crate) fn handled_fs(abi: u32) -> u64 {
    let mut rights = fs::READ | fs::WRITE | fs::IOCTL_DEV;
    if abi < 2 {
        rights &= !fs::REFER;
    }
    if abi < 3 {
        rights &= !fs::TRUNCATE;
    }
    if abi < 5 {
        rights &= !fs::IOCTL_DEV;
    }
    rights
}

/// A ruleset being built: every file right of the ABI is denied but where a rule allows it.
pub(crate) struct Ruleset {
    fd: OwnedFd,
    handled: u64,
}

impl Ruleset {
    /// A ruleset for `abi`; with `network` false (ABI 4 and later), TCP is refused too.
    pub(crate) fn new(abi: u32, network: bool) -> io::Result<Self> {
        let handled = handled_fs(abi);
        let attr = RulesetAttr {
            handled_access_fs: handled,
            handled_access_net: if network || abi < 4 {
                0
            } else {
                NET_BIND_TCP | NET_CONNECT_TCP
            },
            scoped: match abi >= 6 {
                true => SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET,
                false => 0,
            },
        };
        // SAFETY: the attribute is a valid struct of the size given; the kernel returns a new
        // file descriptor (close-on-exec) or -1.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &attr as *const RulesetAttr,
                std::mem::size_of::<RulesetAttr>(),
                0u32,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a descriptor the kernel just gave us, owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
        Ok(Self { fd, handled })
    }

    /// Allows `access` beneath `path` (on the file itself when it is not a directory). A path
    /// that is gone is skipped: it cannot be reached either way.
    pub(crate) fn allow(&mut self, path: &Path, access: u64) -> io::Result<()> {
        let file = match std::fs::File::options()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
            .open(path)
        {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(error) => return Err(error),
        };
        let mut access = access & self.handled;
        if !file.metadata()?.is_dir() {
            access &= fs::ON_A_FILE;
        }
        if access == 0 {
            return Ok(());
        }
        let rule = PathBeneathAttr {
            allowed_access: access,
            parent_fd: file.as_raw_fd(),
        };
        // SAFETY: both descriptors are open; the rule is a valid struct.
        let done = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                self.fd.as_raw_fd(),
                RULE_PATH_BENEATH,
                &rule as *const PathBeneathAttr,
                0u32,
            )
        };
        if done < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The finished ruleset, for [`enter`] in a child.
    pub(crate) fn finish(self) -> OwnedFd {
        self.fd
    }
}

/// Puts the calling process (a child between fork and exec) into the ruleset `fd`, for good:
/// no new privileges (a set-user-ID program gains nothing), then the ruleset. Only
/// async-signal-safe calls.
pub(crate) fn restrict_self(fd: RawFd) -> io::Result<()> {
    // SAFETY: prctl and a system call, no allocation; the descriptor stays open until exec.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
