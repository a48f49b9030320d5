//! An incremental reader of server-sent events (the WHATWG event-stream format): the model
//! providers' streams and MCP's Streamable HTTP answers.

use std::io::{self, BufRead};
use std::time::Duration;

/// One dispatched event: its `event:` name, if any, and its joined `data:` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

/// One event's data (and so any one line) longer than this is not a stream we can use: stop
/// instead of buffering without end.
pub(crate) const MAX_EVENT: usize = 16 * 1024 * 1024;

/// The byte-order mark a stream may open with (UTF-8 decoding drops one, at the start only).
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Why no event could be read.
#[derive(Debug)]
pub(crate) enum SseError {
    /// The connection failed.
    Read(io::Error),
    /// An event grew past [`MAX_EVENT`] without ending.
    TooLarge,
}

/// How reading one line ended.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A whole line, its ending (LF, CRLF or a CR alone) left out.
    Ended,
    /// `room` bytes of a line that goes on: the caller refuses it.
    Full,
    /// The stream ended; what was read of an unterminated last line is not a line.
    Eof,
}

/// Reads events one at a time, so each delta can be shown the moment its line arrives.
pub(crate) struct SseReader<R> {
    reader: R,
    line: Vec<u8>,
    comments: usize,
    /// The last line ended with a CR: a LF that comes next is the rest of that ending.
    after_cr: bool,
    /// No line was read yet: a BOM before it is dropped.
    at_start: bool,
    /// The last `id:` value read (the spec's "last event ID buffer"), kept from event to event.
    id_buffer: String,
    /// The id as of the last blank line (the spec's "last event ID string"): what a client
    /// resuming the stream sends as `Last-Event-ID`.
    last_event_id: String,
    /// The last valid `retry:` field: how long the server asks a client to wait before
    /// reconnecting.
    retry: Option<Duration>,
}

impl<R: BufRead> SseReader<R> {
    pub(crate) fn new(reader: R) -> Self {
        Self {
            reader,
            line: Vec::new(),
            comments: 0,
            after_cr: false,
            at_start: true,
            id_buffer: String::new(),
            last_event_id: String::new(),
            retry: None,
        }
    }

    /// How many comment lines (`: ...` keep-alives) were skipped so far.
    #[cfg(test)]
    pub(crate) fn comment_lines(&self) -> usize {
        self.comments
    }

    /// The id of the last event dispatched (empty when none had one): sent back as
    /// `Last-Event-ID` to resume the stream where it broke off.
    pub(crate) fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The reconnection time the server asked for with its last valid `retry:` field.
    pub(crate) fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// The next event, or `None` at the end of the stream. As the format says, an event is
    /// dispatched only at the blank line after it: one left unterminated when the stream
    /// ends is dropped, for it may be cut short.
    pub(crate) fn next_event(&mut self) -> Result<Option<SseEvent>, SseError> {
        let mut event = String::new();
        let mut data = String::new();
        let mut has_data = false;
        loop {
            let room = MAX_EVENT.saturating_sub(data.len()) + 1;
            if self.read_line(room).map_err(SseError::Read)? == Line::Eof {
                return Ok(None);
            }
            let text = String::from_utf8_lossy(&self.line);
            // Counted as read and as kept: a byte that is not UTF-8 is kept as three.
            if data.len() + self.line.len().max(text.len()) > MAX_EVENT {
                return Err(SseError::TooLarge);
            }
            if text.is_empty() {
                self.last_event_id.clone_from(&self.id_buffer);
                if has_data {
                    return Ok(Some(finish(event, data)));
                }
                event.clear();
                continue;
            }
            if text.starts_with(':') {
                self.comments += 1;
                continue;
            }
            let (field, value) = match text.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (text.as_ref(), ""),
            };
            match field {
                "data" => {
                    data.push_str(value);
                    data.push('\n');
                    has_data = true;
                }
                "event" => value.clone_into(&mut event),
                "id" if !value.contains('\0') => value.clone_into(&mut self.id_buffer),
                "retry" => self.retry = retry(value).or(self.retry),
                _ => {} // an id with NUL in it, and unknown fields, are ignored
            }
        }
    }

    /// Reads the next line into `self.line` without its ending (LF, CRLF, or a CR alone, as
    /// the format allows), at most `room` bytes of it. A BOM before the first line is left
    /// out.
    fn read_line(&mut self, room: usize) -> io::Result<Line> {
        let line = self.read_raw_line(room)?;
        if std::mem::take(&mut self.at_start) && self.line.starts_with(BOM) {
            self.line.drain(..BOM.len());
        }
        Ok(line)
    }

    /// [`Self::read_line`] as the bytes come.
    fn read_raw_line(&mut self, room: usize) -> io::Result<Line> {
        self.line.clear();
        loop {
            let buffer = match self.reader.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let Some(&first) = buffer.first() else {
                return Ok(Line::Eof);
            };
            if std::mem::take(&mut self.after_cr) && first == b'\n' {
                self.reader.consume(1);
                continue;
            }
            let wanted = &buffer[..buffer.len().min(room - self.line.len())];
            if let Some(end) = wanted.iter().position(|b| matches!(b, b'\n' | b'\r')) {
                self.line.extend_from_slice(&wanted[..end]);
                self.after_cr = wanted[end] == b'\r';
                self.reader.consume(end + 1);
                return Ok(Line::Ended);
            }
            let taken = wanted.len();
            self.line.extend_from_slice(wanted);
            self.reader.consume(taken);
            if self.line.len() == room {
                return Ok(Line::Full);
            }
        }
    }
}

/// A `retry:` value: ASCII digits only, in milliseconds (anything else is ignored).
fn retry(value: &str) -> Option<Duration> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Only digits: the one failure left is a number past u64, as good as forever.
    Some(Duration::from_millis(value.parse().unwrap_or(u64::MAX)))
}

fn finish(event: String, mut data: String) -> SseEvent {
    if data.ends_with('\n') {
        data.pop();
    }
    // An empty name is the default kind of event, as no name at all.
    let event = (!event.is_empty()).then_some(event);
    SseEvent { event, data }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(input: &str) -> (Vec<SseEvent>, usize) {
        let mut reader = SseReader::new(input.as_bytes());
        let mut out = Vec::new();
        while let Some(event) = reader.next_event().unwrap() {
            out.push(event);
        }
        (out, reader.comment_lines())
    }

    fn data(text: &str) -> SseEvent {
        SseEvent {
            event: None,
            data: text.to_string(),
        }
    }

    #[test]
    fn parses_the_event_stream_cases() {
        let cases: &[(&str, &str, Vec<SseEvent>, usize)] = &[
            (
                "plain",
                "data: a\n\ndata: b\n\n",
                vec![data("a"), data("b")],
                0,
            ),
            (
                "crlf",
                "data: a\r\n\r\ndata: b\r\n\r\n",
                vec![data("a"), data("b")],
                0,
            ),
            ("no space after colon", "data:a\n\n", vec![data("a")], 0),
            (
                "only one space stripped",
                "data:  a\n\n",
                vec![data(" a")],
                0,
            ),
            (
                "multi-line data",
                "data: a\ndata: b\n\n",
                vec![data("a\nb")],
                0,
            ),
            (
                "comments skipped",
                ": ping\n\n: ping\ndata: x\n\n",
                vec![data("x")],
                2,
            ),
            (
                "unterminated last event is dropped",
                "data: a\n\ndata: [DONE]\n",
                vec![data("a")],
                0,
            ),
            ("no newline at all at eof", "data: z", vec![], 0),
            (
                "a BOM at the start is dropped",
                "\u{feff}data: a\n\n",
                vec![data("a")],
                0,
            ),
            (
                "a BOM elsewhere is part of the field name",
                "data: a\n\n\u{feff}data: b\n\n",
                vec![data("a")],
                0,
            ),
            (
                "an empty event name is no name",
                "event:\ndata: a\n\n",
                vec![data("a")],
                0,
            ),
            (
                "a CR alone ends a line",
                "data: a\rdata: b\r\rdata: c\r\n\r\n",
                vec![data("a\nb"), data("c")],
                0,
            ),
            (
                "CR, LF and CRLF mixed",
                "data: a\r\n\rdata: b\n\r\n",
                vec![data("a"), data("b")],
                0,
            ),
            (
                "leading space is another field",
                " data: x\n\ndata: y\n\n",
                vec![data("y")],
                0,
            ),
            ("blank lines only", "\n\n\n", vec![], 0),
            (
                "id and retry ignored",
                "id: 1\nretry: 10\ndata: q\n\n",
                vec![data("q")],
                0,
            ),
        ];
        for (name, input, expected, comments) in cases {
            let (got, seen_comments) = events(input);
            assert_eq!(&got, expected, "case {name}");
            assert_eq!(seen_comments, *comments, "comments in case {name}");
        }
    }

    #[test]
    fn ids_and_retries_are_kept_as_the_format_says() {
        let cases: &[(&str, &str, &str, Option<u64>)] = &[
            (
                "id as of the last blank line",
                "id: 1\ndata: a\n\nid: 2\n",
                "1",
                None,
            ),
            ("an id without data counts", "id: 7\n\n", "7", None),
            (
                "an id with NUL is ignored",
                "id: 3\nid: x\0y\n\n",
                "3",
                None,
            ),
            ("an empty id clears it", "id: 3\n\nid\n\n", "", None),
            ("retry in ms", "retry: 1500\n\n", "", Some(1500)),
            (
                "retry only digits",
                "retry: 1500\nretry: 20x\nretry:\n\n",
                "",
                Some(1500),
            ),
            ("retry leading zeros", "retry:0250\n", "", Some(250)),
        ];
        for (name, input, id, retry) in cases {
            let mut reader = SseReader::new(input.as_bytes());
            while reader.next_event().unwrap().is_some() {}
            assert_eq!(reader.last_event_id(), *id, "{name}");
            assert_eq!(reader.retry(), retry.map(Duration::from_millis), "{name}");
        }
    }

    #[test]
    fn event_name_belongs_to_its_event_only() {
        let (got, _) = events("event: error\ndata: {}\n\ndata: next\n\n");
        assert_eq!(got[0].event.as_deref(), Some("error"));
        assert_eq!(got[1].event, None);
    }

    /// Endless bytes, made as they are read rather than held.
    struct Endless(&'static [u8]);

    impl io::Read for Endless {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            for (i, byte) in out.iter_mut().enumerate() {
                *byte = self.0[i % self.0.len()];
            }
            Ok(out.len())
        }
    }

    #[test]
    fn an_event_that_never_ends_is_refused_not_buffered() {
        for pattern in [&b"x"[..], b"data: xxxxxxxxxxxxxxx\n"] {
            let mut reader = SseReader::new(io::BufReader::new(Endless(pattern)));
            assert!(
                matches!(reader.next_event(), Err(SseError::TooLarge)),
                "{:?}",
                String::from_utf8_lossy(pattern)
            );
        }
    }

    #[test]
    fn data_that_grows_past_the_cap_as_kept_is_refused() {
        // Half the cap of bytes that are not UTF-8 is half again more than the cap as text.
        let mut input = b"data: ".to_vec();
        input.resize(MAX_EVENT / 2, 0xff);
        input.extend_from_slice(b"\n\n");
        let mut reader = SseReader::new(&input[..]);
        assert!(matches!(reader.next_event(), Err(SseError::TooLarge)));
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let mut reader = SseReader::new(&b"data: \xff\n\n"[..]);
        let event = reader.next_event().unwrap().unwrap();
        assert_eq!(event.data, "\u{fffd}");
    }
}
