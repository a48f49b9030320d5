//! Properties of the SSE reader: any bytes, cut anywhere, are read without a panic into the
//! same events whatever the cuts, no event is larger than its input or the cap, and a stream
//! of well-formed events (any line endings, comments and other fields between) reads back as
//! it was written.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};

use proptest::prelude::*;

use super::sse::{MAX_EVENT, SseError, SseEvent, SseReader};
use crate::props::{config, line, split_at};

/// Bytes handed over in the pieces a network might deliver them in, never more than one
/// piece at a time.
pub(super) struct Pieces(pub(super) VecDeque<Vec<u8>>);

impl Read for Pieces {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Pieces {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.0.front().is_some_and(Vec::is_empty) {
            self.0.pop_front();
        }
        Ok(self.0.front().map_or(&[], Vec::as_slice))
    }

    fn consume(&mut self, n: usize) {
        if let Some(front) = self.0.front_mut() {
            front.drain(..n);
        }
    }
}

/// Every event of `input` delivered in `pieces`, and how the reading ended.
fn read_all(pieces: Vec<Vec<u8>>) -> (Vec<SseEvent>, Result<(), String>) {
    let mut reader = SseReader::new(Pieces(pieces.into()));
    let mut events = Vec::new();
    loop {
        match reader.next_event() {
            Ok(Some(event)) => events.push(event),
            Ok(None) => return (events, Ok(())),
            Err(SseError::TooLarge) => return (events, Err("too large".into())),
            Err(SseError::Read(e)) => return (events, Err(e.to_string())),
        }
    }
}

/// Bytes heavy in what the format is made of.
fn stream_bytes() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop_oneof![
        Just(b"data:".to_vec()),
        Just(b"data: ".to_vec()),
        Just(b"event: ".to_vec()),
        Just(b": ping".to_vec()),
        Just(b"id: 7".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\n\n".to_vec()),
        Just(vec![0xff]),
        Just(vec![0xe2, 0x82]),
        Just("é€😀".as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..8),
    ];
    prop::collection::vec(pieces, 0..64).prop_map(|pieces| pieces.concat())
}

/// One well-formed event: an optional name, its data lines, and lines that carry nothing
/// (comments, ids, retries, unknown fields) put among them.
#[derive(Debug, Clone)]
struct Written {
    name: Option<String>,
    data: Vec<String>,
    noise: Vec<(usize, String)>,
}

fn written() -> impl Strategy<Value = Written> {
    let noise = prop_oneof![
        line(12).prop_map(|text| format!(":{text}")),
        line(6).prop_map(|id| format!("id: {id}")),
        Just("retry: 1000".to_string()),
        line(6).prop_map(|value| format!("x-other: {value}")),
    ];
    (
        prop::option::of(line(10).prop_map(|name| name.trim_start().to_string())),
        prop::collection::vec(line(40), 1..5),
        prop::collection::vec((0usize..8, noise), 0..3),
    )
        .prop_map(|(name, data, noise)| Written { name, data, noise })
}

/// The event's lines as a server writes them: `data:` with or without the space.
fn lines_of(event: &Written, spaced: bool) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(name) = &event.name {
        lines.push(format!("event: {name}"));
    }
    for data in &event.data {
        // Without the space, a value that starts with one would lose it: write it then.
        let space = if spaced || data.starts_with(' ') {
            " "
        } else {
            ""
        };
        lines.push(format!("data:{space}{data}"));
    }
    for (at, noise) in &event.noise {
        lines.insert(at % (lines.len() + 1), noise.clone());
    }
    lines
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn any_bytes_cut_anywhere_read_the_same_and_no_larger(
        input in stream_bytes(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let (whole, whole_end) = read_all(vec![input.clone()]);
        let (pieces, pieces_end) = read_all(split_at(&input, &cuts));
        prop_assert_eq!(&whole, &pieces);
        prop_assert_eq!(whole_end, pieces_end);
        let lines = input.iter().filter(|b| matches!(b, b'\n' | b'\r')).count();
        prop_assert!(whole.len() <= lines + 1);
        // A byte that is not UTF-8 becomes U+FFFD (three bytes): nothing else grows.
        let data: usize = whole.iter().map(|e| e.data.len() + e.event.as_ref().map_or(0, String::len)).sum();
        prop_assert!(data <= 3 * input.len(), "{} bytes of events from {}", data, input.len());
    }

    #[test]
    fn well_formed_events_read_back_whatever_the_line_endings_and_cuts(
        events in prop::collection::vec(written(), 0..6),
        endings in prop::collection::vec(prop::sample::select(&["\n", "\r\n", "\r"][..]), 1..8),
        spaced in any::<bool>(),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let mut stream = String::new();
        let mut ending = endings.iter().cycle();
        for event in &events {
            for line in lines_of(event, spaced) {
                stream.push_str(&line);
                stream.push_str(ending.next().copied().unwrap_or("\n"));
            }
            // The blank line: a LF right after a CR would only finish that CR's ending.
            let blank = match ending.next().copied().unwrap_or("\n") {
                "\n" if stream.ends_with('\r') => "\r",
                blank => blank,
            };
            stream.push_str(blank);
        }
        let (read, end) = read_all(split_at(stream.as_bytes(), &cuts));
        prop_assert_eq!(end, Ok(()));
        let expected: Vec<SseEvent> = events
            .iter()
            // An empty name is the default kind, as no name.
            .map(|e| SseEvent { event: e.name.clone().filter(|n| !n.is_empty()), data: e.data.join("\n") })
            .collect();
        prop_assert_eq!(read, expected, "stream {:?}", stream);
    }
}

/// A line that never ends is refused at the cap however it arrives, and so is data that
/// grows past the cap as it is kept (a byte that is not UTF-8 is kept as three).
#[test]
fn the_cap_holds_for_a_line_that_never_ends_and_for_data_as_kept() {
    let cases: [(&str, u8, usize, &[u8]); 2] = [
        ("one endless line", b'x', MAX_EVENT + 2, b""),
        // Ended, or it would be dropped unread at the end of the stream.
        (
            "bad bytes, three times as long kept",
            0xff,
            MAX_EVENT / 2,
            b"\n",
        ),
    ];
    for (name, byte, size, ending) in cases {
        let mut input = b"data: ".to_vec();
        input.resize(size, byte);
        input.extend_from_slice(ending);
        let (events, end) = read_all(split_at(&input, &[4096, 65536, MAX_EVENT / 3]));
        let kept: usize = events.iter().map(|e| e.data.len()).sum();
        assert!(kept <= MAX_EVENT, "{name}: {kept} bytes kept");
        assert!(
            end.is_err(),
            "{name}: {} events, ended {end:?}",
            events.len()
        );
    }
}
