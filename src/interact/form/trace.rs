//! The form's requests as the `verbose` interview reports them to the model: method, path
//! (never the query, which holds the token) and the status answered, one line each, a run of
//! the same line counted instead of repeated (the page's heartbeat every 5 s).

use std::sync::{Mutex, PoisonError};

/// Kept only when asked for.
pub(crate) struct Trace {
    lines: Option<Mutex<Vec<(String, usize)>>>,
}

impl Trace {
    pub(crate) fn new(on: bool) -> Self {
        Self {
            lines: on.then(|| Mutex::new(Vec::new())),
        }
    }

    pub(crate) fn record(&self, method: &str, path: &str, status: u16) {
        let Some(lines) = &self.lines else {
            return;
        };
        let line = format!("{method} {path} {status}");
        let mut lines = lines.lock().unwrap_or_else(PoisonError::into_inner);
        match lines.last_mut() {
            Some((last, count)) if *last == line => *count += 1,
            _ => lines.push((line, 1)),
        }
    }

    /// The lines so far; empty when not kept.
    pub(crate) fn lines(&self) -> Vec<String> {
        let Some(lines) = &self.lines else {
            return Vec::new();
        };
        let lines = lines.lock().unwrap_or_else(PoisonError::into_inner);
        lines
            .iter()
            .map(|(line, count)| match count {
                1 => line.clone(),
                n => format!("{line} (×{n})"),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_requests_are_counted_and_nothing_is_kept_unless_asked() {
        let trace = Trace::new(true);
        trace.record("GET", "/", 200);
        trace.record("POST", "/heartbeat", 200);
        trace.record("POST", "/heartbeat", 200);
        trace.record("POST", "/submit", 400);
        assert_eq!(
            trace.lines(),
            ["GET / 200", "POST /heartbeat 200 (×2)", "POST /submit 400"]
        );
        let off = Trace::new(false);
        off.record("GET", "/", 200);
        assert!(off.lines().is_empty());
    }
}
