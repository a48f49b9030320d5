//! A running program's output as its tool's progress: the last lines read so far (past the
//! cap the model's copy keeps, too), told at most twice a second while more comes.

use std::time::{Duration, Instant};

/// Bytes of the output's end kept for the progress.
const TAIL_BYTES: usize = 4096;
/// Lines of it told.
const TAIL_LINES: usize = 12;
/// The least time between two reports.
const EVERY: Duration = Duration::from_millis(500);

/// The end of the output read so far.
#[derive(Default)]
pub(crate) struct Tail {
    bytes: Vec<u8>,
    /// Bytes read in all.
    read: u64,
}

impl Tail {
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.read += chunk.len() as u64;
        self.bytes.extend_from_slice(chunk);
        let extra = self.bytes.len().saturating_sub(TAIL_BYTES);
        self.bytes.drain(..extra);
    }

    /// The last lines, as a terminal would show them: a line redrawn with carriage returns
    /// (a progress bar) as it was drawn last, a line cut by the byte limit left out.
    pub(crate) fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        let whole = match self.read > self.bytes.len() as u64 {
            true => text.split_once('\n').map_or("", |(_, rest)| rest),
            false => &text,
        };
        let lines: Vec<&str> = whole
            .trim_end_matches('\n')
            .split('\n')
            .map(|line| {
                line.trim_end_matches('\r')
                    .rsplit('\r')
                    .next()
                    .unwrap_or("")
            })
            .collect();
        lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n")
    }
}

/// Tells `report` the output's last lines when more was read and enough time has passed.
pub(crate) struct Watcher<'a> {
    report: &'a dyn Fn(String),
    told: u64,
    last: Option<Instant>,
}

impl<'a> Watcher<'a> {
    pub(crate) fn new(report: &'a dyn Fn(String)) -> Self {
        Self {
            report,
            told: 0,
            last: None,
        }
    }

    pub(crate) fn look(&mut self, tail: &Tail, now: Instant) {
        let due = self.last.is_none_or(|last| now >= last + EVERY);
        if tail.read == self.told || !due {
            return;
        }
        self.told = tail.read;
        self.last = Some(now);
        let text = tail.text();
        if !text.trim().is_empty() {
            (self.report)(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn tail(chunks: &[&str]) -> Tail {
        let mut tail = Tail::default();
        chunks.iter().for_each(|c| tail.push(c.as_bytes()));
        tail
    }

    #[test]
    fn the_text_is_the_last_lines_as_a_terminal_shows_them() {
        let cases: &[(&[&str], &str)] = &[
            (&["one\ntwo\n"], "one\ntwo"),
            (&["compiling", " a\nok"], "compiling a\nok"),
            (&["10%\r50%\r100%\ndone\r\n"], "100%\ndone"),
        ];
        for (chunks, text) in cases {
            assert_eq!(tail(chunks).text(), *text, "{chunks:?}");
        }
        let many: String = (1..=40).map(|n| format!("line {n}\n")).collect();
        let shown = tail(&[&many]).text();
        assert_eq!(shown.lines().count(), TAIL_LINES);
        assert!(shown.ends_with("line 40"), "{shown}");
        // Past the byte limit: the line it cuts is left out, the end kept.
        let long = format!("{}\nlast\n", "x".repeat(TAIL_BYTES * 2));
        assert_eq!(tail(&[&long]).text(), "last");
    }

    #[test]
    fn more_output_is_told_at_most_twice_a_second() {
        let told = RefCell::new(Vec::new());
        let report = |text: String| told.borrow_mut().push(text);
        let mut watcher = Watcher::new(&report);
        let start = Instant::now();
        let mut output = tail(&["one\n"]);
        watcher.look(&output, start);
        output.push(b"two\n");
        watcher.look(&output, start + Duration::from_millis(100));
        watcher.look(&output, start + EVERY);
        // Nothing new: nothing told.
        watcher.look(&output, start + EVERY * 3);
        assert_eq!(*told.borrow(), ["one", "one\ntwo"]);
    }
}
