//! The watchdog of a user's tool: ends its whole process group when its time is up or the
//! turn is cancelled. The time stands still while the tool waits for the person, and a
//! cancelled turn first lets the open question's reply (`{"action": "cancelled"}`) reach
//! the tool.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::cancel::CancelToken;
use crate::tools::kit::process;

/// How long a cancelled turn waits for the open question's reply before the tool is stopped.
const REPLY_GRACE: Duration = Duration::from_millis(200);
/// Between SIGTERM and SIGKILL: the tool's time to clean up.
const TERM_GRACE: Duration = Duration::from_millis(500);
const TICK: Duration = Duration::from_millis(20);

/// What the watchdog and the conversation with the tool share: the tool's time left, and
/// whether it waits for a reply.
pub(super) struct Watched {
    clock: Mutex<Clock>,
    asking: AtomicBool,
}

struct Clock {
    deadline: Instant,
    /// Since when the tool waits for a reply (its time stands still).
    paused: Option<Instant>,
}

impl Watched {
    pub(super) fn new(timeout: Duration) -> Arc<Self> {
        Arc::new(Self {
            clock: Mutex::new(Clock {
                deadline: Instant::now() + timeout,
                paused: None,
            }),
            asking: AtomicBool::new(false),
        })
    }

    /// The tool asked: its time stops until the reply.
    pub(super) fn asked(&self) {
        let mut clock = self.clock.lock().unwrap_or_else(PoisonError::into_inner);
        clock.paused.get_or_insert_with(Instant::now);
        self.asking.store(true, Ordering::SeqCst);
    }

    /// The reply went out: the tool's time runs again.
    pub(super) fn replied(&self) {
        let mut clock = self.clock.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(since) = clock.paused.take() {
            clock.deadline += since.elapsed();
        }
        self.asking.store(false, Ordering::SeqCst);
    }

    fn expired(&self) -> bool {
        let clock = self.clock.lock().unwrap_or_else(PoisonError::into_inner);
        clock.paused.is_none() && Instant::now() >= clock.deadline
    }

    fn asking(&self) -> bool {
        self.asking.load(Ordering::SeqCst)
    }
}

/// Why the watchdog stopped the tool.
pub(super) enum Stop {
    Timeout,
    Cancelled,
}

/// Ends the tool's process group when its time is up or the turn is cancelled.
pub(super) struct Watchdog {
    done: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Option<Stop>>,
}

impl Watchdog {
    pub(super) fn start(group: libc::pid_t, watched: Arc<Watched>, cancel: CancelToken) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        let finished = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            while !finished.load(Ordering::SeqCst) {
                let why = if cancel.is_cancelled() {
                    // The open question hears of the cancel first (the session ends it at
                    // once, and its reply follows).
                    let asked = Instant::now();
                    while watched.asking() && asked.elapsed() < REPLY_GRACE {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Some(Stop::Cancelled)
                } else if watched.expired() {
                    Some(Stop::Timeout)
                } else {
                    None
                };
                if let Some(why) = why {
                    process::kill_group(group, libc::SIGTERM);
                    std::thread::sleep(TERM_GRACE);
                    process::kill_group(group, libc::SIGKILL);
                    return Some(why);
                }
                std::thread::sleep(TICK);
            }
            None
        });
        Self { done, thread }
    }

    /// Stops watching; says whether it had to stop the tool.
    pub(super) fn finish(self) -> Option<Stop> {
        self.done.store(true, Ordering::SeqCst);
        self.thread.join().unwrap_or(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_stands_still_while_the_tool_waits_for_a_reply() {
        let watched = Watched::new(Duration::ZERO);
        assert!(watched.expired());
        watched.asked();
        assert!(!watched.expired() && watched.asking());
        watched.replied();
        assert!(watched.expired() && !watched.asking());
        let long = Watched::new(Duration::from_secs(3600));
        assert!(!long.expired());
    }
}
