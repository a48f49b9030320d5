//! Streamed text held a moment, so the tokens of one moment go out as one `text_delta`.

use std::time::{Duration, Instant};

/// How often streamed text goes out: the tokens of this long join one `text_delta`. Fifty
/// clients then get at most about sixty frames a second instead of one per token (each 80 bytes
/// of framing around a few letters), and the event log a line per frame. Text goes out with the
/// next token or the next `interrupted()` look, at least every 50 ms: when the model pauses, it
/// waits no longer than that.
const TEXT_EVERY: Duration = Duration::from_millis(16);

/// Streamed text not sent yet, and since when it waits.
#[derive(Default)]
pub(super) struct Waiting {
    text: String,
    since: Option<Instant>,
}

impl Waiting {
    /// Adds `text` at `now`; says whether what waits is due to go out.
    pub(super) fn push(&mut self, text: &str, now: Instant) -> bool {
        self.text.push_str(text);
        self.since.get_or_insert(now);
        self.due(now)
    }

    pub(super) fn due(&self, now: Instant) -> bool {
        self.since
            .is_some_and(|since| now.duration_since(since) >= TEXT_EVERY)
    }

    pub(super) fn take(&mut self) -> Option<String> {
        self.since = None;
        Some(std::mem::take(&mut self.text)).filter(|text| !text.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_text_waits_a_moment_and_goes_out_joined() {
        let start = Instant::now();
        let mut waiting = Waiting::default();
        assert!(!waiting.due(start + TEXT_EVERY), "nothing waits");
        assert!(!waiting.push(" one", start + TEXT_EVERY * 2));
        let start = start + TEXT_EVERY * 2;
        assert!(!waiting.push(" two", start + TEXT_EVERY / 2));
        assert!(waiting.push(" three", start + TEXT_EVERY));
        assert_eq!(waiting.take().as_deref(), Some(" one two three"));
        assert_eq!(waiting.take(), None);
        // The clock starts again with the next text, not at the last send.
        let later = start + TEXT_EVERY * 10;
        assert!(!waiting.push(" four", later));
        assert!(waiting.due(later + TEXT_EVERY));
    }
}
