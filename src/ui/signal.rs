//! Signals that stop a turn: Ctrl+C (SIGINT) and SIGTERM/SIGHUP (a `timeout`, a closed SSH
//! session, systemd stopping a job). The handlers only count and record, and the main thread
//! reads what they recorded; a stop by SIGTERM or SIGHUP also ends the run afterwards.
//!
//! The record is process-wide because signals are. It is read, never consumed: each [`Watch`]
//! keeps its own place in the count, so two watches (two sessions' front-ends) both see every
//! interrupt and neither can steal one from the other. Only a terminal front-end makes a
//! watch; the session never looks at signals (it asks its front-end `interrupted()`).

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};

static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);
/// The SIGTERM or SIGHUP that asked the run to end, or 0.
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Whether SIGTERM/SIGHUP end the turn in progress (true) or the process at once, as if no
/// handler were installed (at the REPL's prompt, where there is nothing to save).
static ARMED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    // Only an atomic add: the one thing that is safe inside a signal handler.
    INTERRUPTS.fetch_add(1, Ordering::SeqCst);
}

/// The write end of the pipe to the thread that tidies up before an unarmed stop ends the
/// process, or -1 (see [`tidy_before_stop`]).
static TIDY_PIPE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_stop(signal: libc::c_int) {
    let tidy = TIDY_PIPE.load(Ordering::SeqCst);
    if !ARMED.load(Ordering::SeqCst) && tidy >= 0 {
        // SAFETY: write() is async-signal-safe; the thread on the other end ends the process.
        unsafe { libc::write(tidy, (&(signal as u8) as *const u8).cast(), 1) };
        return;
    }
    if !ARMED.load(Ordering::SeqCst) {
        // SAFETY: signal() and raise() are async-signal-safe; the default action ends us.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
        return;
    }
    STOP_SIGNAL.store(signal, Ordering::SeqCst);
    INTERRUPTS.fetch_add(1, Ordering::SeqCst);
}

/// An unarmed SIGTERM or SIGHUP (at the REPL's prompt) first runs `tidy` (removing temporary
/// files the sessions would have removed when dropped), on a thread of its own, then ends the
/// process as the signal does. Without it, or when the thread cannot be started, the signal
/// ends the process at once.
pub(crate) fn tidy_before_stop(tidy: fn()) {
    let mut ends = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the two descriptors we own.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    let [read_end, write_end] = ends;
    let started = std::thread::Builder::new()
        .name("stop-tidy".into())
        .spawn(move || {
            let mut signal = 0u8;
            // SAFETY: reads one byte into `signal`, which we own.
            if unsafe { libc::read(read_end, (&mut signal as *mut u8).cast(), 1) } == 1 {
                tidy();
                // SAFETY: as in on_stop: the default action ends the process.
                unsafe {
                    libc::signal(libc::c_int::from(signal), libc::SIG_DFL);
                    libc::raise(libc::c_int::from(signal));
                }
            }
        });
    if started.is_ok() {
        TIDY_PIPE.store(write_end, Ordering::SeqCst);
    }
}

/// Installs the handlers, so SIGINT is counted instead of killing the process, and SIGTERM
/// and SIGHUP stop what is armed (see [`arm`]) and otherwise keep their default effect.
pub(crate) fn install() {
    handle(libc::SIGINT, on_sigint);
    handle(libc::SIGTERM, on_stop);
    handle(libc::SIGHUP, on_stop);
}

fn handle(signal: libc::c_int, handler: extern "C" fn(libc::c_int)) {
    // SAFETY: the handlers are async-signal-safe; sigaction is given a fully initialised struct.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signal, &action, std::ptr::null_mut());
    }
}

/// From now on SIGTERM and SIGHUP stop the turn (with its partial answer and cost line) instead
/// of killing the process; until [`Armed`] is dropped when it came from [`arm_turn`].
pub(crate) fn arm() {
    ARMED.store(true, Ordering::SeqCst);
}

/// Arms SIGTERM/SIGHUP for one REPL turn.
pub(crate) fn arm_turn() -> Armed {
    let was = ARMED.swap(true, Ordering::SeqCst);
    Armed { was }
}

/// Restores the earlier state when the turn ends.
pub(crate) struct Armed {
    was: bool,
}

impl Drop for Armed {
    fn drop(&mut self) {
        ARMED.store(self.was, Ordering::SeqCst);
    }
}

/// The signal that asked the run to end (SIGTERM or SIGHUP), if one did.
pub(crate) fn stop_signal() -> Option<i32> {
    match STOP_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// The exit status of a run stopped early: 128 + the signal, as shells report it (130 for
/// Ctrl+C, 143 for SIGTERM, 129 for SIGHUP).
pub(crate) fn stopped_status() -> u8 {
    128 + stop_signal().unwrap_or(libc::SIGINT) as u8
}

/// What stopped the turn, in words.
pub(crate) fn stopped_by() -> &'static str {
    match stop_signal() {
        Some(libc::SIGTERM) => "stopped by SIGTERM",
        Some(libc::SIGHUP) => "stopped by SIGHUP",
        _ => "cancelled by Ctrl+C",
    }
}

/// Watches for interrupts that arrive after it was created.
pub(crate) struct Watch {
    seen: usize,
}

impl Watch {
    pub(crate) fn new() -> Self {
        Self {
            seen: INTERRUPTS.load(Ordering::SeqCst),
        }
    }

    /// True once for each new Ctrl+C, and always once the run was asked to end (even when the
    /// signal came before this watch was made).
    pub(crate) fn fired(&mut self) -> bool {
        let now = INTERRUPTS.load(Ordering::SeqCst);
        if now != self.seen {
            self.seen = now;
            true
        } else {
            stop_signal().is_some()
        }
    }
}

/// Runs `job` on another thread while this one watches for Ctrl+C, which cancels the job's
/// token; the job's result once it ends (`Err` if it panicked).
pub(crate) fn cancellable<T: Send>(
    watch: &mut Watch,
    job: impl FnOnce(&crate::cancel::CancelToken) -> T + Send,
) -> std::thread::Result<T> {
    let cancel = crate::cancel::CancelToken::new();
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| job(&cancel));
        while !worker.is_finished() {
            if watch.fired() {
                cancel.cancel();
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        worker.join()
    })
}

impl Default for Watch {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test, so that no other test raises SIGINT in between.
    #[test]
    fn a_raised_sigint_is_counted_not_fatal_and_every_watch_sees_it() {
        install();
        let (mut watch, mut other) = (Watch::new(), Watch::new());
        assert!(!watch.fired());
        // SAFETY: raising a signal whose handler was installed above.
        unsafe { libc::raise(libc::SIGINT) };
        assert!(watch.fired());
        assert!(!watch.fired());
        assert!(
            other.fired(),
            "the first watch took nothing from the second"
        );
    }
}
