//! A session's events as a server-sent event stream: what came after `since` first, then each
//! new one as it is published (`id: SEQ`, `event: TYPE`, `data: JSON`), each written and flushed
//! at once, with a comment line after 15 s of quiet so proxies and browsers keep the
//! connection. The stream ends when the client goes away, or the broadcaster drops it (it
//! stopped reading) or the gateway stops.

use std::io::Write;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::Value;

const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Writes the events to `client` until one side is done.
pub(crate) fn pump(client: &mut dyn Write, backlog: Vec<Value>, live: &Receiver<Value>) {
    for event in backlog {
        if send(client, frame(&event).as_bytes()).is_err() {
            return;
        }
    }
    loop {
        let piece = match live.recv_timeout(KEEP_ALIVE) {
            Ok(event) => frame(&event),
            Err(RecvTimeoutError::Timeout) => ": keep-alive\n\n".to_string(),
            Err(RecvTimeoutError::Disconnected) => return,
        };
        if send(client, piece.as_bytes()).is_err() {
            return;
        }
    }
}

fn send(client: &mut dyn Write, bytes: &[u8]) -> std::io::Result<()> {
    client.write_all(bytes)?;
    client.flush()
}

/// One event as SSE.
pub(crate) fn frame(event: &Value) -> String {
    let kind = event["type"].as_str().unwrap_or("message");
    format!("id: {}\nevent: {kind}\ndata: {event}\n\n", event["seq"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_backlog_comes_first_then_live_events_and_the_end() {
        let (sender, live) = std::sync::mpsc::sync_channel(4);
        sender
            .send(json!({"type": "done", "seq": 2, "answer": "a"}))
            .unwrap();
        drop(sender);
        let mut written = Vec::new();
        let backlog = vec![json!({"type": "text_delta", "seq": 1, "text": "a"})];
        pump(&mut written, backlog, &live);
        assert_eq!(
            String::from_utf8(written).unwrap(),
            "id: 1\nevent: text_delta\ndata: {\"seq\":1,\"text\":\"a\",\"type\":\"text_delta\"}\n\n\
             id: 2\nevent: done\ndata: {\"answer\":\"a\",\"seq\":2,\"type\":\"done\"}\n\n"
        );
    }
}
