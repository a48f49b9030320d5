//! Resuming a stream the server closed before its end (MCP 2025-11-25, SEP-1699): after the
//! wait its `retry:` field asked for, a GET with `Last-Event-ID` picks the stream up where it
//! broke off, again and again while each resumption brings a message, a few times more when
//! none does.

use std::time::{Duration, Instant};

use super::answer::{Ended, Until};
use super::refused::Refused;
use std::sync::atomic::Ordering;

use super::Shared;
use crate::net;

/// Resumptions in a row that bring no message before the stream is given up.
const FRUITLESS: usize = 5;
/// The wait before resuming when the server named none (the WHATWG leaves it to the client).
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// A longer wait asked for is cut to this: the caller's own deadline is minutes at most.
const MAX_RETRY: Duration = Duration::from_secs(60);
/// How often a wait looks whether the transport is closing.
const TICK: Duration = Duration::from_millis(20);

impl Shared {
    /// Resumes the stream that `ended` while it stopped with an event id and without the
    /// answer to `expected` (with `None`, the server's own stream: until it gives up).
    /// Whether the answer came.
    pub(super) fn resume(&self, mut ended: Ended, expected: Option<u64>) -> Result<bool, Refused> {
        let mut fruitless = 0;
        while !ended.answered && !ended.last_event_id.is_empty() {
            if fruitless == FRUITLESS {
                return Err(Refused::Broken(format!(
                    "the answer from {} broke off before the result, and {FRUITLESS} \
                     resumptions in a row brought nothing",
                    self.shown
                )));
            }
            if !self.wait(ended.retry.unwrap_or(DEFAULT_RETRY).min(MAX_RETRY)) {
                return Ok(false);
            }
            let next = self.reconnect(&ended.last_event_id, expected)?;
            fruitless = if next.messages > 0 { 0 } else { fruitless + 1 };
            if !next.last_event_id.is_empty() {
                ended.last_event_id = next.last_event_id;
            }
            ended.answered = next.answered;
            ended.retry = next.retry.or(ended.retry);
        }
        Ok(ended.answered)
    }

    /// Waits `wait` unless the transport closes first: whether it is still open.
    fn wait(&self, wait: Duration) -> bool {
        let until = Instant::now() + wait;
        while !self.closing.load(Ordering::SeqCst) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return true;
            }
            std::thread::sleep(left.min(TICK));
        }
        false
    }

    /// One GET resuming the stream after `last_event_id`, read to the answer or its end.
    fn reconnect(&self, last_event_id: &str, expected: Option<u64>) -> Result<Ended, Refused> {
        let token = self.bearer();
        let request = self
            .with_headers(self.agent.get(&self.url), token.as_deref())
            .header("Accept", "text/event-stream")
            .header("Last-Event-ID", last_event_id);
        let response = request
            .call()
            .map_err(|error| Refused::Broken(self.unreachable(error)))?;
        if !response.status().is_success() {
            return Err(match self.refusal(response, true) {
                Refused::Failed(code, why) => Refused::Failed(
                    code,
                    format!(
                        "the answer broke off before the result, and resuming it failed: {why}"
                    ),
                ),
                other => other,
            });
        }
        let streams = net::header(&response, "content-type")
            .is_some_and(|kind| kind.to_ascii_lowercase().starts_with("text/event-stream"));
        if !streams {
            return Err(Refused::Broken(format!(
                "the answer from {} broke off before the result, and resuming it brought no \
                 event stream",
                self.shown
            )));
        }
        let reader = response.into_body().into_reader();
        self.read_stream(reader, expected, Until::Answer)
    }
}
