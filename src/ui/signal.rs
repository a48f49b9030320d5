//! Ctrl+C during a turn: a SIGINT handler that only counts, read by the main thread.

use std::sync::atomic::{AtomicUsize, Ordering};

static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_sigint(_: libc::c_int) {
    // Only an atomic add: the one thing that is safe inside a signal handler.
    INTERRUPTS.fetch_add(1, Ordering::SeqCst);
}

/// Installs the handler, so SIGINT no longer kills the process but is counted instead.
pub fn install() {
    // SAFETY: the handler is async-signal-safe; sigaction is given a fully initialised struct.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
    }
}

/// Watches for interrupts that arrive after it was created.
pub struct Watch {
    seen: usize,
}

impl Watch {
    pub fn new() -> Self {
        Self {
            seen: INTERRUPTS.load(Ordering::SeqCst),
        }
    }

    /// True once for each new interrupt.
    pub fn fired(&mut self) -> bool {
        let now = INTERRUPTS.load(Ordering::SeqCst);
        if now != self.seen {
            self.seen = now;
            true
        } else {
            false
        }
    }
}

impl Default for Watch {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_sigint_is_counted_not_fatal() {
        install();
        let mut watch = Watch::new();
        assert!(!watch.fired());
        // SAFETY: raising a signal whose handler was installed above.
        unsafe { libc::raise(libc::SIGINT) };
        assert!(watch.fired());
        assert!(!watch.fired());
    }
}
