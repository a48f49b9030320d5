//! The shared cancellation token of one turn: Ctrl+C (or the page's Stop) sets it, everything
//! that blocks watches it, and a tool it stops says who stopped it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

type Hook = Box<dyn FnOnce() + Send>;

/// Cloning shares the token. Work that blocks in a way a flag cannot reach (a socket read, a
/// child process) registers a hook with [`CancelToken::on_cancel`]; `cancel` runs the hooks.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

/// Who stopped a turn, as a tool it stopped tells the model (and the person, in its result).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StoppedBy {
    /// Ctrl+C in the terminal, or a signal that ends the run.
    #[default]
    CtrlC,
    /// The Stop button of the gateway's page (`POST …/cancel`).
    Page,
}

impl StoppedBy {
    /// How the person stopped it, for "cancelled by the user (…)".
    pub fn how(self) -> &'static str {
        match self {
            Self::CtrlC => "Ctrl+C",
            Self::Page => "Stop in the browser page",
        }
    }
}

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    /// Set by the first cancel.
    by: OnceLock<StoppedBy>,
    next_hook: AtomicU64,
    state: Mutex<Vec<(u64, Hook)>>,
    wake: Condvar,
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Cancel once (by Ctrl+C): later calls do nothing. Hooks run on the calling thread.
    pub fn cancel(&self) {
        self.cancel_by(StoppedBy::CtrlC);
    }

    /// [`Self::cancel`], saying who stopped the turn (the first to cancel it).
    pub fn cancel_by(&self, by: StoppedBy) {
        let _ = self.inner.by.set(by);
        let hooks = {
            let mut state = self.lock();
            if self.inner.cancelled.swap(true, Ordering::SeqCst) {
                return;
            }
            std::mem::take(&mut *state)
        };
        self.inner.wake.notify_all();
        for (_, hook) in hooks {
            hook();
        }
    }

    /// Who stopped the turn (Ctrl+C until it is cancelled).
    pub fn stopped_by(&self) -> StoppedBy {
        self.inner.by.get().copied().unwrap_or_default()
    }

    /// How the person stopped the turn, for "cancelled by the user (…)".
    pub fn how(&self) -> &'static str {
        self.stopped_by().how()
    }

    /// Run `hook` when the token is cancelled (at once if it already is). Dropping the guard
    /// unregisters the hook.
    pub fn on_cancel(&self, hook: impl FnOnce() + Send + 'static) -> HookGuard {
        let id = self.inner.next_hook.fetch_add(1, Ordering::SeqCst);
        let mut state = self.lock();
        if self.is_cancelled() {
            drop(state);
            hook();
        } else {
            state.push((id, Box::new(hook)));
        }
        HookGuard {
            token: self.clone(),
            id,
        }
    }

    /// Sleep for `duration` unless cancelled first. Returns true when cancelled.
    pub fn sleep(&self, duration: Duration) -> bool {
        let deadline = Instant::now() + duration;
        let mut state = self.lock();
        while !self.is_cancelled() {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = match self.inner.wake.wait_timeout(state, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        true
    }

    fn lock(&self) -> MutexGuard<'_, Vec<(u64, Hook)>> {
        // A hook that panicked cannot leave the list half-edited: recover the guard.
        self.inner
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Unregisters its hook when dropped.
pub struct HookGuard {
    token: CancelToken,
    id: u64,
}

impl Drop for HookGuard {
    fn drop(&mut self) {
        self.token.lock().retain(|(id, _)| *id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn cancel_runs_registered_hooks_once() {
        let token = CancelToken::new();
        let runs = Arc::new(AtomicUsize::new(0));
        let counter = runs.clone();
        let _guard = token.on_cancel(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        token.cancel();
        token.cancel();
        assert!(token.is_cancelled());
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn the_first_to_cancel_says_who_stopped_the_turn() {
        let token = CancelToken::new();
        assert_eq!(token.how(), "Ctrl+C");
        token.cancel_by(StoppedBy::Page);
        token.cancel();
        assert!(token.is_cancelled());
        assert_eq!(token.how(), "Stop in the browser page");
        let other = CancelToken::new();
        other.cancel();
        other.cancel_by(StoppedBy::Page);
        assert_eq!(other.how(), "Ctrl+C");
    }

    #[test]
    fn dropped_guard_unregisters_the_hook() {
        let token = CancelToken::new();
        let runs = Arc::new(AtomicUsize::new(0));
        let counter = runs.clone();
        drop(token.on_cancel(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        }));
        token.cancel();
        assert_eq!(runs.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn hook_registered_after_cancel_runs_at_once() {
        let token = CancelToken::new();
        token.cancel();
        let runs = Arc::new(AtomicUsize::new(0));
        let counter = runs.clone();
        let _guard = token.on_cancel(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn sleep_wakes_on_cancel_from_another_thread() {
        let token = CancelToken::new();
        let other = token.clone();
        let sleeper = std::thread::spawn(move || other.sleep(Duration::from_secs(60)));
        token.cancel();
        assert!(sleeper.join().unwrap());
        assert!(!CancelToken::new().sleep(Duration::from_millis(1)));
    }
}
