//! The SSE reader against its peers' test data (tests/fixtures/sse): eventsource-parser's
//! fixture streams and tests and WPT's `eventsource/format-*` streams, each read as the peer
//! delivers it, whole, byte by byte and cut in two at every byte.

use std::collections::VecDeque;
use std::time::Duration;

use serde::Deserialize;

use super::sse::{SseEvent, SseReader};
use super::sse_props::Pieces;

#[derive(Deserialize)]
struct Corpus {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    source: String,
    /// The stream as the peer delivers it, as UTF-8 text.
    chunks: Vec<String>,
    events: Vec<Expected>,
    /// The reconnection time the stream leaves set, in ms, when the peer checks it.
    retry: Option<u64>,
    /// The last event id the stream leaves set, when the peer checks it.
    last_event_id: Option<String>,
    /// How many comment lines the peer counts, when it does.
    comments: Option<usize>,
}

/// An event as the peer expects it: `id` is the `lastEventId` it carries (WHATWG).
#[derive(Deserialize, Debug, PartialEq, Eq)]
struct Expected {
    event: Option<String>,
    data: String,
    id: String,
}

/// What one reading of a stream gave: each event with the last event id as it was
/// dispatched, then the retry, last event id and comments the stream left.
#[derive(Debug, PartialEq, Eq)]
struct Read {
    events: Vec<Expected>,
    retry: Option<Duration>,
    last_event_id: String,
    comments: usize,
}

fn read(pieces: Vec<Vec<u8>>) -> Result<Read, String> {
    let mut reader = SseReader::new(Pieces(VecDeque::from(pieces)));
    let mut events = Vec::new();
    while let Some(SseEvent { event, data }) = reader.next_event().map_err(|e| format!("{e:?}"))? {
        let id = reader.last_event_id().to_string();
        events.push(Expected { event, data, id });
    }
    Ok(Read {
        events,
        retry: reader.retry(),
        last_event_id: reader.last_event_id().to_string(),
        comments: reader.comment_lines(),
    })
}

/// Every way a case's stream is delivered: as the peer chunks it, whole, byte by byte, and
/// cut in two at each byte.
fn deliveries(case: &Case) -> Vec<(String, Vec<Vec<u8>>)> {
    let bytes: Vec<u8> = case.chunks.concat().into_bytes();
    let chunks = case.chunks.iter().map(|c| c.as_bytes().to_vec()).collect();
    let mut ways = vec![
        ("as the peer chunks it".to_string(), chunks),
        ("whole".to_string(), vec![bytes.clone()]),
        (
            "byte by byte".to_string(),
            bytes.chunks(1).map(<[u8]>::to_vec).collect(),
        ),
    ];
    for cut in 1..bytes.len() {
        let (head, tail) = bytes.split_at(cut);
        ways.push((
            format!("cut at byte {cut}"),
            vec![head.to_vec(), tail.to_vec()],
        ));
    }
    ways
}

/// The first way `case` is read wrong, in words; `None` when every way reads right.
fn check(case: &Case) -> Option<String> {
    for (how, pieces) in deliveries(case) {
        let got = match read(pieces) {
            Ok(got) => got,
            Err(e) => return Some(format!("{how}: failed: {e}")),
        };
        if got.events != case.events {
            return Some(format!("{how}: events {:?}", got.events));
        }
        let wrong = [
            case.retry
                .is_some_and(|ms| got.retry != Some(Duration::from_millis(ms))),
            case.last_event_id
                .as_ref()
                .is_some_and(|id| *id != got.last_event_id),
            case.comments.is_some_and(|n| n != got.comments),
        ];
        if wrong.iter().any(|w| *w) {
            return Some(format!("{how}: {got:?}"));
        }
    }
    None
}

#[test]
fn the_peers_streams_read_as_they_expect_cut_every_way() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sse/cases.json");
    let corpus: Corpus = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let total = corpus.cases.len();
    let mut failed = Vec::new();
    for case in &corpus.cases {
        if let Some(why) = check(case) {
            failed.push(format!("{} ({}): {why}", case.name, case.source));
        }
    }
    let cuts: usize = corpus
        .cases
        .iter()
        .map(|c| c.chunks.concat().len() + 2)
        .sum();
    eprintln!(
        "SSE (eventsource-parser + WPT): {}/{total} streams passed, each read {cuts} ways in all",
        total - failed.len()
    );
    for failure in &failed {
        eprintln!("  {failure}");
    }
    assert!(
        failed.is_empty(),
        "{} of {total} streams read wrong",
        failed.len()
    );
}
