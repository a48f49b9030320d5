//! The tool's side of the conversation: its stdout read line by line (request lines apart,
//! the rest kept as its result, capped), and one reply written to its stdin for each request.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::Arc;

use serde_json::Value;

use super::protocol::PREFIX;
use super::watchdog::Watched;
use crate::tools::kit::process::OUTPUT_CAP;

/// The longest line read whole: a request is at most this long (a longer one is cut, and is
/// then not JSON, which the tool is told); a longer output line counts as omitted.
const LINE_CAP: u64 = 1024 * 1024;

pub(super) struct Pipe<R: Read, W: Write> {
    reader: BufReader<R>,
    /// `None` for a tool that is not interactive: its stdin ended after the arguments.
    stdin: Option<W>,
    output: String,
    omitted: u64,
    watched: Arc<Watched>,
    /// Names the requests of this call: `CALL/1`, `CALL/2`, …
    call_id: String,
    asked: u32,
    /// The request waiting for its reply: its interaction id.
    awaiting: Option<String>,
    /// A request read ahead (after an answer, to see whether it asks again), not yet handled.
    ahead: Option<String>,
}

impl<R: Read, W: Write> Pipe<R, W> {
    pub(super) fn new(stdout: R, stdin: Option<W>, watched: Arc<Watched>, call_id: &str) -> Self {
        Self {
            reader: BufReader::new(stdout),
            stdin,
            output: String::new(),
            omitted: 0,
            watched,
            call_id: call_id.to_string(),
            asked: 0,
            awaiting: None,
            ahead: None,
        }
    }

    pub(super) fn interactive(&self) -> bool {
        self.stdin.is_some()
    }

    /// The next request (the text after the prefix), the output before it kept; `None` when
    /// the tool's stdout ends. The tool's time stands still until the request is answered.
    pub(super) fn next_request(&mut self) -> Option<String> {
        if let Some(ahead) = self.ahead.take() {
            return Some(ahead);
        }
        let mut line = Vec::new();
        loop {
            line.clear();
            match (&mut self.reader)
                .take(LINE_CAP)
                .read_until(b'\n', &mut line)
            {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            if line.len() as u64 == LINE_CAP && line.last() != Some(&b'\n') {
                // A line without end in sight: the rest of it is read and dropped, never kept.
                self.omitted += self.skip_line();
            }
            let text = String::from_utf8_lossy(&line);
            if let Some(request) = text.strip_prefix(PREFIX) {
                self.watched.asked();
                self.asked += 1;
                self.awaiting = Some(format!("{}/{}", self.call_id, self.asked));
                return Some(request.trim().to_string());
            }
            let room = OUTPUT_CAP.saturating_sub(self.output.len());
            if text.len() <= room {
                self.output.push_str(&text);
            } else {
                self.omitted += text.len() as u64;
            }
        }
    }

    /// Reads to the end of the current line, keeping nothing; how many bytes were dropped.
    fn skip_line(&mut self) -> u64 {
        let mut dropped = 0u64;
        loop {
            let (found, used) = match self.reader.fill_buf() {
                Ok([]) | Err(_) => return dropped,
                Ok(buffer) => match buffer.iter().position(|b| *b == b'\n') {
                    Some(at) => (true, at + 1),
                    None => (false, buffer.len()),
                },
            };
            self.reader.consume(used);
            dropped += used as u64;
            if found {
                return dropped;
            }
        }
    }

    /// Keeps a request read ahead for [`Pipe::next_request`] to give again.
    pub(super) fn put_back(&mut self, request: String) {
        self.ahead = Some(request);
    }

    /// The interaction id of the request waiting for its reply.
    #[cfg(test)]
    pub(super) fn awaiting(&self) -> Option<&str> {
        self.awaiting.as_deref()
    }

    /// Replies to the request waiting (once; a second reply to it is dropped), with its
    /// interaction id unless `plain` (the first protocol's replies are as they were).
    pub(super) fn reply(&mut self, mut reply: Value, plain: bool) {
        let Some(id) = self.awaiting.take() else {
            return;
        };
        if !plain {
            reply["requestId"] = Value::String(id);
        }
        if let Some(pipe) = self.stdin.as_mut() {
            // A tool that stopped reading is not an error of Marvin's.
            let _ = writeln!(pipe, "{reply}");
            let _ = pipe.flush();
        }
        self.watched.replied();
    }

    /// The output, and how many bytes of it were left out.
    pub(super) fn finish(self) -> (String, u64) {
        (self.output, self.omitted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_line_without_end_is_dropped_not_kept() {
        let long = "x".repeat(3 * LINE_CAP as usize);
        let stdout = format!("{long}\n@@marvin-interact {{\"a\":1}}\nlast\n");
        let mut answers = Vec::new();
        let watched = Watched::new(std::time::Duration::from_secs(60));
        let mut pipe = Pipe::new(stdout.as_bytes(), Some(&mut answers), watched, "c1");
        assert_eq!(pipe.next_request().as_deref(), Some("{\"a\":1}"));
        assert_eq!(pipe.next_request(), None);
        let (output, omitted) = pipe.finish();
        assert_eq!(output, "last\n");
        assert_eq!(omitted, long.len() as u64 + 1);
    }

    #[test]
    fn requests_are_told_apart_from_output_and_answered_once_each() {
        let stdout = "working\n@@marvin-interact {\"a\":1}\nmore\n@@marvin-interact {\"b\":2}\n";
        let mut answers = Vec::new();
        let watched = Watched::new(std::time::Duration::from_secs(60));
        let mut pipe = Pipe::new(stdout.as_bytes(), Some(&mut answers), watched, "c1");
        assert_eq!(pipe.next_request().as_deref(), Some("{\"a\":1}"));
        assert_eq!(pipe.awaiting(), Some("c1/1"));
        pipe.reply(json!({"action": "approve"}), false);
        pipe.reply(json!({"action": "twice"}), false);
        let second = pipe.next_request().unwrap();
        pipe.put_back(second.clone());
        assert_eq!(pipe.next_request(), Some(second));
        pipe.reply(json!({"status": "answered"}), true);
        assert_eq!(pipe.next_request(), None);
        assert!(pipe.interactive());
        assert_eq!(pipe.finish(), ("working\nmore\n".to_string(), 0));
        assert_eq!(
            String::from_utf8(answers).unwrap(),
            "{\"action\":\"approve\",\"requestId\":\"c1/1\"}\n{\"status\":\"answered\"}\n"
        );
    }
}
