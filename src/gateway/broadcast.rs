//! One served session's events: numbered in order, kept (in memory, and appended to a JSON-lines
//! log in the profile so a reload after a restart can replay them), and fanned out to every
//! client listening. Each event is written out once (its JSON and its server-sent-event frame)
//! and shared by every client. Each client has a bounded channel of its own: one that stops
//! reading is dropped when its channel is full, never allowed to hold up the turn.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

/// Events a client may fall behind by before it is dropped.
const BACKLOG: usize = 4096;

/// An event as published: its JSON, and the frame the event streams send.
pub(crate) struct Published {
    pub value: Value,
    pub frame: String,
}

impl Published {
    fn new(value: Value) -> Arc<Self> {
        let frame = super::sse::frame(&value);
        Arc::new(Self { value, frame })
    }

    /// The event's JSON and a newline, as the log keeps it: the frame's `data:` line, so the
    /// event is written out once.
    fn log_line(&self) -> &str {
        let start = self
            .frame
            .find("\ndata: ")
            .map_or(0, |at| at + "\ndata: ".len());
        &self.frame[start..self.frame.len() - 1]
    }
}

pub(crate) struct Broadcaster {
    state: Mutex<State>,
    /// Where the events are appended (none: kept in memory only).
    log: Option<PathBuf>,
}

#[derive(Default)]
struct State {
    events: Vec<Arc<Published>>,
    clients: Vec<SyncSender<Arc<Published>>>,
    /// The log, open for appending once the first event is written.
    file: Option<File>,
    /// Writing the log failed once: said once, not on every event.
    log_failed: bool,
}

impl Broadcaster {
    pub(crate) fn new(log: Option<PathBuf>) -> Self {
        Self {
            state: Mutex::new(State::default()),
            log,
        }
    }

    /// A broadcaster that goes on from the events `log` has kept (a session served before):
    /// a client that connects replays them; lines cut by a crash are skipped.
    pub(crate) fn open(log: Option<PathBuf>) -> Self {
        let kept: Vec<Value> = log
            .as_ref()
            .and_then(|path| std::fs::read_to_string(path).ok())
            .map(|text| {
                text.lines()
                    .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                    .collect()
            })
            .unwrap_or_default();
        let broadcaster = Self::new(log);
        {
            let mut state = broadcaster.lock();
            // Numbered again in order, so a line that was skipped leaves no gap.
            for (n, mut event) in kept.into_iter().enumerate() {
                event["seq"] = json!(n + 1);
                state.events.push(Published::new(event));
            }
        }
        broadcaster
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Numbers `event` (`seq`, from 1), keeps it and sends it to every client; returns why the
    /// log could not be written, the first time it cannot.
    pub(crate) fn publish(&self, kind: &str, mut event: Value) -> Option<String> {
        let mut state = self.lock();
        event["type"] = json!(kind);
        event["seq"] = json!(state.events.len() + 1);
        let published = Published::new(event);
        state.events.push(Arc::clone(&published));
        state
            .clients
            .retain(|client| match client.try_send(Arc::clone(&published)) {
                Ok(()) => true,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
            });
        let failed = self.append(&mut state, published.log_line()).err()?;
        if std::mem::replace(&mut state.log_failed, true) {
            return None;
        }
        Some(failed)
    }

    fn append(&self, state: &mut State, line: &str) -> Result<(), String> {
        let Some(path) = &self.log else {
            return Ok(());
        };
        let failed =
            |e: std::io::Error| format!("cannot write the event log {}: {e}", path.display());
        if state.file.is_none() {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(failed)?;
            }
            let file = OpenOptions::new().create(true).append(true).open(path);
            state.file = Some(file.map_err(failed)?);
        }
        match &mut state.file {
            // One write a line, in append mode: a crash cuts at most the last line.
            Some(file) => file.write_all(line.as_bytes()).map_err(failed),
            None => Ok(()),
        }
    }

    /// The events after `since`, and a channel that brings every later one, in order with them.
    pub(crate) fn subscribe(
        &self,
        since: usize,
    ) -> (Vec<Arc<Published>>, Receiver<Arc<Published>>) {
        let mut state = self.lock();
        let (sender, receiver) = mpsc::sync_channel(BACKLOG);
        let backlog = state.events.iter().skip(since).cloned().collect();
        state.clients.push(sender);
        (backlog, receiver)
    }

    /// The highest `interactionId` among the events: a session served again numbers its
    /// questions after it.
    pub(crate) fn last_interaction(&self) -> u64 {
        self.lock()
            .events
            .iter()
            .filter_map(|e| e.value["interactionId"].as_str()?.parse().ok())
            .max()
            .unwrap_or(0)
    }

    /// The questions and approvals asked and never closed: the prompts of a session's earlier
    /// life, which nobody can answer now.
    pub(crate) fn unanswered(&self) -> Vec<Value> {
        let state = self.lock();
        let id_of = |event: &Value| match &event["interactionId"] {
            Value::String(id) => Some(id.clone()),
            _ => event["id"].as_u64().map(|n| n.to_string()),
        };
        let closed: std::collections::HashSet<String> = state
            .events
            .iter()
            .filter(|e| e.value["type"] == "interaction_response")
            .filter_map(|e| id_of(&e.value))
            .collect();
        let mut once = std::collections::HashSet::new();
        state
            .events
            .iter()
            .filter(|e| {
                let kind = e.value["type"].as_str().unwrap_or("");
                // The kinds before `interaction_request` too: a log kept by an older Marvin.
                matches!(
                    kind,
                    "interaction_request"
                        | "question_prompt"
                        | "approval_required"
                        | "form_opened"
                        | "input_request"
                )
            })
            .filter(|e| id_of(&e.value).is_some_and(|id| !closed.contains(&id)))
            // A prompt asked as `interaction_request` and as seed 001/004's event is one.
            .filter(|e| id_of(&e.value).is_some_and(|id| once.insert(id)))
            .map(|e| e.value.clone())
            .collect()
    }

    /// The last turn began (a `user_message`) and never ended (`done` or `error`): the
    /// gateway stopped during it.
    pub(crate) fn turn_unfinished(&self) -> bool {
        let state = self.lock();
        let kinds = state.events.iter().rev().map(|e| e.value["type"].as_str());
        for kind in kinds {
            match kind {
                Some("done" | "error") => return false,
                Some("user_message") => return true,
                _ => {}
            }
        }
        false
    }

    /// How many events there are.
    pub(crate) fn len(&self) -> usize {
        self.lock().events.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_numbered_replayed_from_since_and_logged() {
        let dir = crate::test_support::TempDir::new("gateway-broadcast");
        let log = dir.path().join("events.jsonl");
        let hub = Broadcaster::new(Some(log.clone()));
        assert!(hub.publish("text_delta", json!({"text": "a"})).is_none());
        let (backlog, live) = hub.subscribe(0);
        assert_eq!(backlog[0].value["seq"], 1);
        hub.publish("text_delta", json!({"text": "b"}));
        let next = live.recv().unwrap();
        assert_eq!(next.value["text"], "b");
        assert!(next.frame.starts_with("id: 2\nevent: text_delta\ndata: {"));
        let (late, _) = hub.subscribe(1);
        assert_eq!(late.len(), 1);
        assert_eq!(late[0].value["seq"], 2);
        let lines = std::fs::read_to_string(&log).unwrap();
        assert_eq!(lines.lines().count(), 2);
        assert!(lines.contains("\"type\":\"text_delta\""));
    }

    #[test]
    fn a_session_served_again_replays_what_its_log_kept() {
        let dir = crate::test_support::TempDir::new("gateway-broadcast-open");
        let log = dir.path().join("events.jsonl");
        let first = Broadcaster::open(Some(log.clone()));
        first.publish("user_message", json!({"content": "hi"}));
        first.publish("done", json!({"answer": "hello"}));
        drop(first);
        let mut text = std::fs::read_to_string(&log).unwrap();
        text.push_str("{\"type\": \"cut by a cr");
        std::fs::write(&log, text).unwrap();
        let again = Broadcaster::open(Some(log));
        assert_eq!(again.len(), 2);
        again.publish("user_message", json!({"content": "again"}));
        let (all, _) = again.subscribe(0);
        let seqs: Vec<u64> = all
            .iter()
            .map(|e| e.value["seq"].as_u64().unwrap())
            .collect();
        assert_eq!(seqs, [1, 2, 3]);
    }

    #[test]
    fn prompts_never_closed_are_found_and_the_last_question_numbered() {
        let hub = Broadcaster::new(None);
        hub.publish(
            "question_prompt",
            json!({"interactionId": "1", "toolCallId": "a"}),
        );
        hub.publish(
            "interaction_response",
            json!({"id": 1, "outcome": "answered"}),
        );
        hub.publish(
            "interaction_request",
            json!({"interactionId": "2", "toolCallId": "b"}),
        );
        hub.publish(
            "question_prompt",
            json!({"interactionId": "2", "toolCallId": "b"}),
        );
        hub.publish(
            "question_prompt",
            json!({"interactionId": "3", "toolCallId": "c"}),
        );
        hub.publish(
            "interaction_response",
            json!({"id": 3, "interactionId": "3"}),
        );
        let open: Vec<Value> = hub.unanswered();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0]["toolCallId"], "b");
        assert_eq!(hub.last_interaction(), 3);
        assert!(!hub.turn_unfinished());
        hub.publish("user_message", json!({"content": "hi"}));
        hub.publish("text_delta", json!({"text": "he"}));
        assert!(hub.turn_unfinished());
        hub.publish("error", json!({"kind": "interrupted"}));
        assert!(!hub.turn_unfinished());
    }

    #[test]
    fn a_client_that_stops_reading_is_dropped_and_the_others_still_get_everything() {
        let hub = Broadcaster::new(None);
        let (_, stalled) = hub.subscribe(0);
        let (_, reading) = hub.subscribe(0);
        for n in 0..BACKLOG + 10 {
            hub.publish("text_delta", json!({"text": n.to_string()}));
            assert_eq!(reading.recv().unwrap().value["seq"], n + 1);
        }
        assert_eq!(stalled.try_iter().count(), BACKLOG);
        assert_eq!(hub.lock().clients.len(), 1);
        assert_eq!(hub.len(), BACKLOG + 10);
    }

    #[test]
    fn a_log_that_cannot_be_written_is_said_once() {
        let dir = crate::test_support::TempDir::new("gateway-broadcast-ro");
        std::fs::write(dir.path().join("file"), "").unwrap();
        let hub = Broadcaster::new(Some(dir.path().join("file").join("events.jsonl")));
        assert!(hub.publish("done", json!({})).is_some());
        assert!(hub.publish("done", json!({})).is_none());
    }
}
