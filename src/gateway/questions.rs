//! The questions a served session has open, and those over: found by the prompt an answer
//! names (`interactionId`) or by the model's call that asks (`toolCallId`), so a second answer
//! is told it came too late (409) rather than that there was no such question (404).

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use serde_json::Value;

use super::answers::Refused;
use crate::interact::Response;
use crate::session::{Deferred, Interaction};

/// A served session's questions: open, over, and left open by their tools.
#[derive(Default)]
pub(super) struct Questions {
    /// Each with when it was asked.
    pub(super) open: BTreeMap<u64, (Interaction, Instant)>,
    /// Answered or given up, with the call that asked: a late answer gets 409, not 404.
    pub(super) closed: HashMap<u64, String>,
    /// Left open by tools that went on without the answer, asked after their turn.
    pub(super) late: BTreeMap<u64, Deferred>,
    /// Their answers, for the model at the start of the next turn.
    pub(super) late_answers: Vec<(Deferred, Response)>,
    /// What the `interaction_response` of an answered prompt adds to the session's outcome:
    /// the client that answered, and what it chose.
    pub(super) answered: HashMap<u64, Value>,
    /// The arguments of the session's tool calls, by call id: what an approval's
    /// `approval_required` shows as `input`.
    pub(super) arguments: HashMap<String, Value>,
}

impl Questions {
    /// Closes prompt `id`: its reply, if it is still open.
    pub(super) fn close(&mut self, id: u64) -> Option<crate::session::Reply> {
        let (open, _) = self.open.remove(&id)?;
        self.closed
            .insert(id, open.correlation.tool_call_id.clone());
        Some(open.reply)
    }

    /// The prompt `which` names, or why there is none open.
    pub(super) fn find(&self, which: &Which) -> Result<u64, NotTaken> {
        let (found, closed) = match which {
            Which::Prompt(id) => (
                (self.open.contains_key(id) || self.late.contains_key(id)).then_some(*id),
                self.closed.contains_key(id),
            ),
            Which::Call(call) => {
                let asked = self
                    .open
                    .iter()
                    .map(|(id, (open, _))| (id, &open.correlation));
                let left = self.late.iter().map(|(id, late)| (id, &late.correlation));
                (
                    asked
                        .chain(left)
                        .find(|(_, correlation)| correlation.tool_call_id == *call)
                        .map(|(id, _)| *id),
                    self.closed.values().any(|closed| closed == call),
                )
            }
        };
        found.ok_or(match closed {
            true => NotTaken::Closed,
            false => NotTaken::Unknown,
        })
    }
}

/// What an answer names: one prompt (`interactionId`), or the model's call that asks
/// (`toolCallId`: whichever prompt is open for it, a reprompt included).
pub(crate) enum Which {
    Prompt(u64),
    Call(String),
}

/// Why an answer was not taken.
#[derive(Debug, PartialEq)]
pub(crate) enum NotTaken {
    /// No question with that id was ever asked (404).
    Unknown,
    /// It was answered already, or given up (409).
    Closed,
    /// The answer does not fit the question (400).
    Invalid(Refused),
    /// The client answering switched its interactive mode off: it only watches (403).
    ReadOnly(String),
}
