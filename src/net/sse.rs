//! An incremental reader of server-sent events (the WHATWG event-stream format): the model
//! providers' streams and MCP's Streamable HTTP answers.

use std::io::{self, BufRead};

/// One dispatched event: its `event:` name, if any, and its joined `data:` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

/// One event's data (and so any one line) longer than this is not a stream we can use: stop
/// instead of buffering without end.
pub(crate) const MAX_EVENT: usize = 16 * 1024 * 1024;

/// Why no event could be read.
#[derive(Debug)]
pub(crate) enum SseError {
    /// The connection failed.
    Read(io::Error),
    /// An event grew past [`MAX_EVENT`] without ending.
    TooLarge,
}

/// Reads events one at a time, so each delta can be shown the moment its line arrives.
pub(crate) struct SseReader<R> {
    reader: R,
    line: Vec<u8>,
    comments: usize,
    /// The last line ended with a CR: a LF that comes next is the rest of that ending.
    after_cr: bool,
}

impl<R: BufRead> SseReader<R> {
    pub(crate) fn new(reader: R) -> Self {
        Self {
            reader,
            line: Vec::new(),
            comments: 0,
            after_cr: false,
        }
    }

    /// How many comment lines (`: ...` keep-alives) were skipped so far.
    #[cfg(test)]
    pub(crate) fn comment_lines(&self) -> usize {
        self.comments
    }

    /// The next event, or `None` at the end of the stream. An event left unterminated at the
    /// end of the stream is still dispatched: some services close without the final blank line.
    pub(crate) fn next_event(&mut self) -> Result<Option<SseEvent>, SseError> {
        let mut event: Option<String> = None;
        let mut data = String::new();
        let mut has_data = false;
        loop {
            let room = MAX_EVENT.saturating_sub(data.len()) + 1;
            if !self.read_line(room).map_err(SseError::Read)? {
                return Ok(has_data.then(|| finish(event, data)));
            }
            let text = String::from_utf8_lossy(&self.line);
            // Counted as read and as kept: a byte that is not UTF-8 is kept as three.
            if data.len() + self.line.len().max(text.len()) > MAX_EVENT {
                return Err(SseError::TooLarge);
            }
            if text.is_empty() {
                if has_data {
                    return Ok(Some(finish(event, data)));
                }
                event = None;
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
                "event" => event = Some(value.to_string()),
                _ => {} // id, retry and unknown fields carry nothing we use
            }
        }
    }

    /// Reads the next line into `self.line` without its ending (LF, CRLF, or a CR alone, as
    /// the format allows), at most `room` bytes of it: a longer line comes back cut, for the
    /// caller to refuse. `false` at the end of the stream.
    fn read_line(&mut self, room: usize) -> io::Result<bool> {
        self.line.clear();
        let mut read_any = false;
        loop {
            let buffer = match self.reader.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let Some(&first) = buffer.first() else {
                return Ok(read_any);
            };
            if std::mem::take(&mut self.after_cr) && first == b'\n' {
                self.reader.consume(1);
                continue;
            }
            read_any = true;
            let wanted = &buffer[..buffer.len().min(room - self.line.len())];
            if let Some(end) = wanted.iter().position(|b| matches!(b, b'\n' | b'\r')) {
                self.line.extend_from_slice(&wanted[..end]);
                self.after_cr = wanted[end] == b'\r';
                self.reader.consume(end + 1);
                return Ok(true);
            }
            let taken = wanted.len();
            self.line.extend_from_slice(wanted);
            self.reader.consume(taken);
            if self.line.len() == room {
                return Ok(true);
            }
        }
    }
}

fn finish(event: Option<String>, mut data: String) -> SseEvent {
    if data.ends_with('\n') {
        data.pop();
    }
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
                "unterminated last event",
                "data: a\n\ndata: [DONE]\n",
                vec![data("a"), data("[DONE]")],
                0,
            ),
            ("no newline at all at eof", "data: z", vec![data("z")], 0),
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
