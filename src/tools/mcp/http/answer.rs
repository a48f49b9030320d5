//! Reading a 2xx answer: an event stream's events or a JSON message or batch, each handed to
//! the sink, noting whether the answer to the request came and, for a stream, where it
//! stopped (so it can be resumed).

use std::io::{BufReader, Read};
use std::time::Duration;

use serde_json::Value;

use super::refused::Refused;
use super::rpc::{self, Incoming};
use super::{MAX_BODY, Shared};
use crate::net::sse::{MAX_EVENT, SseError, SseReader};
use crate::net::{self, Response};

/// Where an answer stopped: whether the answer to the request was in it, how many messages
/// it brought, and, for an event stream, the id of its last event and the wait the server
/// asked for before resuming it.
#[derive(Debug, Default)]
pub(super) struct Ended {
    pub answered: bool,
    pub messages: usize,
    pub last_event_id: String,
    pub retry: Option<Duration>,
}

/// How long a stream is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Until {
    /// To its end: a POST's own stream, which the server ends after the answer.
    End,
    /// To the answer: a resumed stream (a GET) may stay open after it.
    Answer,
}

impl Shared {
    /// Hands every message of a 2xx answer to the sink: an event stream's events, a JSON
    /// message or batch, or nothing (202); where it stopped.
    pub(super) fn read_messages(
        &self,
        response: Response,
        expected: Option<u64>,
    ) -> Result<Ended, Refused> {
        let kind = net::header(&response, "content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let status = response.status().as_u16();
        let reader = response.into_body().into_reader();
        if kind.starts_with("text/event-stream") {
            return self.read_stream(reader, expected, Until::End);
        }
        if kind.starts_with("application/json") {
            let text = net::read_text(reader, MAX_BODY).map_err(|e| self.broken(e))?;
            let answered = self.take_json(&text, expected);
            return Ok(Ended {
                answered,
                messages: 1,
                ..Ended::default()
            });
        }
        let start = net::read_start(reader, 512).unwrap_or_default();
        if status == 202 || status == 204 || start.trim().is_empty() {
            return Ok(Ended::default());
        }
        let what = match net::is_html(Some(&kind), start.as_bytes()) {
            true => "a web page (a login page, or not the server's address?)".to_string(),
            false => format!("{kind:?}, neither JSON nor an event stream"),
        };
        Err(Refused::Broken(format!(
            "the server at {} answered with {what}",
            self.shown
        )))
    }

    /// The events of a stream until it ends (or, resumed, until the answer); the priming
    /// event (empty data) is skipped. A stream that breaks off after an event with an id ends
    /// as if closed, so it can be resumed.
    pub(super) fn read_stream(
        &self,
        reader: impl Read,
        expected: Option<u64>,
        until: Until,
    ) -> Result<Ended, Refused> {
        let mut events = SseReader::new(BufReader::with_capacity(64 << 10, reader));
        let (mut answered, mut messages) = (false, 0);
        loop {
            let error = match events.next_event() {
                Ok(Some(event)) if event.data.trim().is_empty() => continue,
                Ok(Some(event)) => {
                    messages += 1;
                    answered |= self.take(&event.data, expected);
                    if answered && until == Until::Answer {
                        break;
                    }
                    continue;
                }
                Ok(None) => break,
                Err(SseError::TooLarge) => net::BodyError::TooLarge(MAX_EVENT as u64),
                Err(SseError::Read(error)) if answered || events.last_event_id().is_empty() => {
                    net::BodyError::Read(error)
                }
                Err(SseError::Read(_)) => break,
            };
            return Err(self.broken(error));
        }
        Ok(Ended {
            answered,
            messages,
            last_event_id: events.last_event_id().to_string(),
            retry: events.retry(),
        })
    }

    /// A JSON body: one message, or a batch of them.
    fn take_json(&self, text: &str, expected: Option<u64>) -> bool {
        let Ok(mut parsed) = serde_json::from_str::<Value>(text) else {
            return self.take(text, expected);
        };
        // Each message is written out again below: the fields' order is kept first.
        crate::tools::mcp::order::mark(&mut parsed, text);
        let Value::Array(batch) = parsed else {
            return self.take(text, expected);
        };
        // Every message goes to the sink, also after the answer (no short circuit).
        let mut answered = false;
        for message in &batch {
            answered |= self.take(&message.to_string(), expected);
        }
        answered
    }

    /// One message to the sink, noting the negotiated version on the way; whether it is the
    /// answer to `expected`. What is not JSON-RPC is kept for `/mcp`, not guessed at.
    fn take(&self, text: &str, expected: Option<u64>) -> bool {
        let message = match rpc::parse(text) {
            Ok(message) => message,
            Err(why) => {
                let start: String = text.chars().take(80).collect();
                self.sink.garbage(format!(
                    "something that is not JSON-RPC ({why}: {start:?}) in an answer"
                ));
                return false;
            }
        };
        let answered = matches!(&message, Incoming::Response { id, .. } if Some(*id) == expected);
        if let Incoming::Response {
            result: Ok(result), ..
        } = &message
        {
            if let Some(version) = result.get("protocolVersion").and_then(Value::as_str) {
                self.session().protocol = Some(version.to_string());
            }
        }
        self.sink.deliver_during(expected, message);
        answered
    }
}
