//! A session's events as a server-sent event stream: what came after `since` first, then each
//! new one as it is published (`id: SEQ`, `event: TYPE`, `data: JSON`), written within a few
//! milliseconds (those that come together in one write), with a comment line after 15 s of
//! quiet so proxies and browsers keep the connection. The stream ends when the client goes
//! away, or the broadcaster drops it (it stopped reading) or the gateway stops.

use std::io::Write;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::Value;

use super::broadcast::Published;

const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// What is sent in one write when events come faster than the client reads them.
const BATCH_BYTES: usize = 64 * 1024;
/// How long a client's writer waits for more events to send together with the first.
const COALESCE: Duration = Duration::from_millis(5);

/// Writes the events to `client` until one side is done. Events that have piled up go out
/// together, in one write.
pub(crate) fn pump(
    client: &mut dyn Write,
    backlog: Vec<Arc<Published>>,
    live: &Receiver<Arc<Published>>,
) {
    let mut batch = String::new();
    for event in backlog {
        batch.push_str(&event.frame);
        if batch.len() >= BATCH_BYTES && send(client, &mut batch).is_err() {
            return;
        }
    }
    // The rest of what was missed goes out now, not with the next event.
    if send(client, &mut batch).is_err() {
        return;
    }
    loop {
        match live.recv_timeout(KEEP_ALIVE) {
            Ok(event) => batch.push_str(&event.frame),
            Err(RecvTimeoutError::Timeout) if batch.is_empty() => {
                batch.push_str(": keep-alive\n\n")
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                let _ = send(client, &mut batch);
                return;
            }
        }
        // A streamed answer comes a token at a time: waiting a moment lets the next ones join
        // this write, so fifty clients cost fifty threads a few wake-ups, not one a token.
        std::thread::sleep(COALESCE);
        while batch.len() < BATCH_BYTES {
            match live.try_recv() {
                Ok(event) => batch.push_str(&event.frame),
                Err(_) => break,
            }
        }
        if send(client, &mut batch).is_err() {
            return;
        }
    }
}

fn send(client: &mut dyn Write, batch: &mut String) -> std::io::Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    client.write_all(batch.as_bytes())?;
    batch.clear();
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

    fn published(value: Value) -> Arc<Published> {
        Arc::new(Published {
            frame: frame(&value),
            value,
        })
    }

    #[test]
    fn what_was_missed_goes_out_at_once_not_with_the_next_event() {
        let (sender, live) = std::sync::mpsc::sync_channel(4);
        let (wrote, written) = std::sync::mpsc::channel();
        struct Told(std::sync::mpsc::Sender<String>);
        impl Write for Told {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                let _ = self.0.send(String::from_utf8_lossy(bytes).into_owned());
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let backlog = vec![published(json!({"type": "done", "seq": 1}))];
        let pumping = std::thread::spawn(move || pump(&mut Told(wrote), backlog, &live));
        let first = written.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(first.starts_with("id: 1\nevent: done"), "{first}");
        drop(sender);
        pumping.join().unwrap();
    }

    #[test]
    fn the_backlog_comes_first_then_live_events_and_the_end() {
        let (sender, live) = std::sync::mpsc::sync_channel(4);
        sender
            .send(published(json!({"type": "done", "seq": 2, "answer": "a"})))
            .unwrap();
        drop(sender);
        let mut written = Vec::new();
        let backlog = vec![published(
            json!({"type": "text_delta", "seq": 1, "text": "a"}),
        )];
        pump(&mut written, backlog, &live);
        assert_eq!(
            String::from_utf8(written).unwrap(),
            "id: 1\nevent: text_delta\ndata: {\"seq\":1,\"text\":\"a\",\"type\":\"text_delta\"}\n\n\
             id: 2\nevent: done\ndata: {\"answer\":\"a\",\"seq\":2,\"type\":\"done\"}\n\n"
        );
    }
}
