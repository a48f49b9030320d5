//! What a confined program does to itself between fork and exec, before it enters its
//! ruleset: it gives up the terminal it would share with Marvin (a program that still had it
//! could push keys into Marvin's prompt with TIOCSTI), and when it runs as root, the powers
//! that would let it past the sandbox (reading Marvin's memory and environment with
//! CAP_SYS_PTRACE, pushing keys into any terminal with CAP_SYS_ADMIN). Only async-signal-safe
//! calls: the parent's other threads may hold any lock at fork.

use std::os::fd::RawFd;

/// The capabilities a root program loses: Landlock lets CAP_SYS_PTRACE read processes outside
/// the sandbox, and CAP_SYS_ADMIN inject keys into terminals.
const ROOT_POWERS: [libc::c_int; 2] = [19 /* CAP_SYS_PTRACE */, 21 /* CAP_SYS_ADMIN */];

/// Everything the child does before exec, in order; an error fails the spawn.
pub(super) fn enter(ruleset: RawFd) -> std::io::Result<()> {
    leave_the_terminal();
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        drop_root_powers();
    }
    super::landlock::restrict_self(ruleset)
}

/// Detaches from the controlling terminal, if there is one (TIOCNOTTY: a process that does not
/// lead its session just loses it; nothing is signalled).
fn leave_the_terminal() {
    // SAFETY: open, ioctl and close on a NUL-terminated path and the descriptor just opened.
    unsafe {
        let tty = libc::open(
            c"/dev/tty".as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        );
        if tty >= 0 {
            libc::ioctl(tty, libc::TIOCNOTTY);
            libc::close(tty);
        }
    }
}

/// Takes [`ROOT_POWERS`] out of the bounding set (so the program does not get them back at
/// exec) and clears the ambient set. A failure leaves the powers as they were: Landlock and
/// no_new_privs still hold.
fn drop_root_powers() {
    // SAFETY: prctl with integer arguments.
    unsafe {
        for power in ROOT_POWERS {
            libc::prctl(libc::PR_CAPBSET_DROP, power, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
    }
}
