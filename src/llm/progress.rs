//! The deadline an answer must make progress by (MARVIN_TIMEOUT): bytes that add nothing to
//! it (keep-alive comments, blank lines, empty deltas, events nobody reads, a line that never
//! ends) do not move it, so a server cannot hold a call open with them.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::io::{self, Read};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// When the answer must next grow. The loop reading the answer moves it on when the answer
/// grows; the reader around the body ([`Progress::watch`]) fails once it has passed.
///
/// The body is only looked at when it is read, so a stall is noticed at the first read after
/// the deadline: at most one idle timeout (the socket's own, the same MARVIN_TIMEOUT) late.
#[derive(Clone)]
pub(crate) struct Progress {
    state: Rc<State>,
}

struct State {
    timeout: Duration,
    /// `None`: a timeout too long for the clock, so never.
    deadline: Cell<Option<Instant>>,
    started: Cell<bool>,
}

impl Progress {
    /// The clock starts now: the answer must begin within `timeout`.
    pub(crate) fn start(timeout: Duration) -> Self {
        Self {
            state: Rc::new(State {
                timeout,
                deadline: Cell::new(Instant::now().checked_add(timeout)),
                started: Cell::new(false),
            }),
        }
    }

    /// The answer grew: its next piece is due within the timeout from now.
    pub(crate) fn made(&self) {
        let state = &self.state;
        state
            .deadline
            .set(Instant::now().checked_add(state.timeout));
        state.started.set(true);
    }

    /// `body`, failing with [`Stalled`] when read after the deadline.
    pub(crate) fn watch<R: Read>(&self, body: R) -> Watched<R> {
        Watched {
            body,
            progress: self.clone(),
        }
    }
}

/// A body that may only be read until the answer's deadline.
pub(crate) struct Watched<R> {
    body: R,
    progress: Progress,
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // The answer read so far goes on before this read, which may wait for the network.
        before_wait();
        let state = &self.progress.state;
        if state.deadline.get().is_some_and(|at| Instant::now() >= at) {
            let stalled = Stalled {
                started: state.started.get(),
            };
            return Err(io::Error::new(io::ErrorKind::TimedOut, stalled));
        }
        self.body.read(buf)
    }
}

thread_local! {
    /// What this thread does before a read of an answer that may wait: see [`on_wait`].
    static BEFORE_WAIT: RefCell<Option<Rc<dyn Fn()>>> = const { RefCell::new(None) };
}

/// Runs `hook` on this thread before every read of an answer's body (which may wait for the
/// network) and when [`before_wait`] is called, until the guard is dropped: the turn's worker
/// sends the text it holds on then, one message for the tokens of a burst.
pub(crate) fn on_wait(hook: Rc<dyn Fn()>) -> WaitHook {
    BEFORE_WAIT.with(|slot| *slot.borrow_mut() = Some(hook));
    WaitHook(())
}

/// Runs the hook [`on_wait`] set a last time and removes it when dropped (also when the
/// thread unwinds from a panic: what it held is not lost).
pub(crate) struct WaitHook(());

impl Drop for WaitHook {
    fn drop(&mut self) {
        if let Some(hook) = BEFORE_WAIT.with(|slot| slot.borrow_mut().take()) {
            hook();
        }
    }
}

/// Runs this thread's hook, if it has one: the thread may wait now.
pub(crate) fn before_wait() {
    let hook = BEFORE_WAIT.with(|slot| slot.borrow().clone());
    if let Some(hook) = hook {
        hook();
    }
}

/// The answer did not grow within the timeout; `started` says whether it had begun.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stalled {
    pub(crate) started: bool,
}

impl fmt::Display for Stalled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the answer made no progress within the timeout")
    }
}

impl std::error::Error for Stalled {}

/// The stall behind `error`, when it is one.
pub(crate) fn stalled(error: &io::Error) -> Option<Stalled> {
    error.get_ref()?.downcast_ref::<Stalled>().copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::sse::SseReader;
    use std::io::BufReader;

    const LONG: Duration = Duration::from_secs(3600);

    fn read_all(reader: &mut impl Read) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        reader.read_to_end(&mut out).map(|_| out)
    }

    #[test]
    fn the_wait_hook_runs_before_each_read_and_once_more_when_dropped() {
        let runs = Rc::new(Cell::new(0));
        let hook = {
            let runs = Rc::clone(&runs);
            on_wait(Rc::new(move || runs.set(runs.get() + 1)))
        };
        let progress = Progress::start(LONG);
        read_all(&mut progress.watch(&b"data"[..])).unwrap();
        let reads = runs.get();
        assert!(reads >= 2, "{reads}");
        before_wait();
        assert_eq!(runs.get(), reads + 1);
        drop(hook);
        assert_eq!(runs.get(), reads + 2);
        before_wait();
        assert_eq!(runs.get(), reads + 2);
    }

    #[test]
    fn a_body_reads_until_the_deadline_and_fails_after_it() {
        let progress = Progress::start(LONG);
        assert_eq!(
            read_all(&mut progress.watch(&b"data"[..])).unwrap(),
            b"data"
        );
        let error = read_all(&mut Progress::start(Duration::ZERO).watch(&b"data"[..])).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert_eq!(stalled(&error), Some(Stalled { started: false }));
    }

    #[test]
    fn progress_moves_the_deadline_and_marks_the_answer_started() {
        let progress = Progress::start(Duration::ZERO);
        progress.made();
        let error = read_all(&mut progress.watch(&b"x"[..])).unwrap_err();
        assert_eq!(stalled(&error), Some(Stalled { started: true }));
        let progress = Progress::start(LONG);
        progress.made();
        assert!(read_all(&mut progress.watch(&b"x"[..])).is_ok());
    }

    #[test]
    fn a_timeout_too_long_for_the_clock_never_fires() {
        let progress = Progress::start(Duration::MAX);
        progress.made();
        assert!(read_all(&mut progress.watch(&b"x"[..])).is_ok());
    }

    #[test]
    fn other_errors_are_not_stalls() {
        assert_eq!(stalled(&io::Error::from(io::ErrorKind::TimedOut)), None);
        assert_eq!(stalled(&io::Error::other("reset")), None);
    }

    /// Keep-alives without end; after `reads` reads the deadline has passed, as if the time
    /// had gone by while only they came.
    struct KeepAlives {
        reads: usize,
        progress: Progress,
    }

    impl Read for KeepAlives {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            match self.reads.checked_sub(1) {
                Some(left) => self.reads = left,
                None => self.progress.state.deadline.set(Some(Instant::now())),
            }
            let bytes = b": keep-alive\n\n";
            let n = bytes.len().min(out.len());
            out[..n].copy_from_slice(&bytes[..n]);
            Ok(n)
        }
    }

    #[test]
    fn keep_alives_alone_end_at_the_deadline_instead_of_holding_the_reader() {
        let progress = Progress::start(LONG);
        let keep_alives = KeepAlives {
            reads: 100,
            progress: progress.clone(),
        };
        let body = BufReader::with_capacity(16, progress.watch(keep_alives));
        let mut events = SseReader::new(body);
        let Err(crate::net::sse::SseError::Read(error)) = events.next_event() else {
            panic!("keep-alives read past the deadline");
        };
        assert_eq!(stalled(&error), Some(Stalled { started: false }));
    }
}
