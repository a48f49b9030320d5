//! What a session tells its front-ends during a turn, in order: answer text, tool rounds,
//! model calls, notices and warnings, questions closed. Serialisable with a stable JSON shape
//! (`{"type": "text", ...}`), so a front-end may render it or stream it unchanged.

use std::time::Duration;

use serde::{Serialize, Serializer};

use crate::agent::AgentEvent;
use crate::message::{ToolCall, Usage};

/// One thing that happened in a turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A piece of the model's answer.
    Text { text: String },
    /// Something the person should know: from the turn (a retry, a compaction, an answer cut
    /// off) at level `info`, or a `warning` from below the front-end (a store file moved
    /// aside, a log that could not be written).
    Notice { level: Level, message: String },
    /// A new message on one of the profile's ntfy subscriptions (`topic: text`), polled
    /// before the prompt goes to the model.
    Notification { message: String },
    /// A model call finished; its usage, if the service reported any.
    ModelCall {
        model: String,
        #[serde(serialize_with = "usage_shown")]
        usage: Option<Usage>,
    },
    /// The calls of round `round` start, all at once.
    ToolRound { round: usize, calls: Vec<CallShown> },
    /// One call of the round finished; `output` is everything the tool returned.
    ToolResult {
        round: usize,
        id: String,
        name: String,
        #[serde(rename = "elapsed_ms", serialize_with = "millis")]
        elapsed: Duration,
        is_error: bool,
        /// The ticket gate turned the call back (seed 002 invariant 21): not a failure, a
        /// step on the way; said only when so.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        turned_back: bool,
        output: String,
    },
    /// A call under way says how far it is (a download's bytes so far); the next one replaces
    /// it, and the call's result ends it.
    ToolProgress { id: String, text: String },
    /// Every call of the round finished.
    ToolRoundFinished {
        round: usize,
        #[serde(rename = "elapsed_ms", serialize_with = "millis")]
        elapsed: Duration,
    },
    /// The tools the next request offers changed: their families, each with why it is
    /// there, how many tools, and the bytes of their definitions.
    ToolsOffered {
        families: Vec<FamilyOffered>,
        tools: usize,
        bytes: usize,
    },
    /// Question `id` (see `Interaction`) is no longer open: answered on some surface, or
    /// given up (`outcome` says which, in the chat log's words). Front-ends still showing it
    /// stop asking. It carries seed 003's `interaction_response`: where the question belongs,
    /// the person's action (`approve`, `deny`, `submit`, `cancel`, `timeout`, …) with its
    /// scope, input or reason, and what the question shows now (its completed view).
    QuestionClosed {
        id: u64,
        outcome: String,
        #[serde(flatten)]
        answer: Box<Answered>,
    },
}

/// Where a question belongs (seed 003 §Event Persistence): when it was asked or answered, the
/// turn, the model response whose tool call asks, that call, the prompt itself (a reprompt is
/// a prompt of its own), and the tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Correlation {
    pub timestamp: String,
    pub turn_id: String,
    pub response_id: String,
    pub tool_call_id: String,
    pub interaction_id: String,
    pub tool_name: String,
}

/// What became of a question, as every surface shows it.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answered {
    #[serde(flatten)]
    pub correlation: Correlation,
    pub action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_scope: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The completed view's lines (the tool's summary, the values given).
    pub completed: Vec<String>,
}

impl Answered {
    /// `response` to `prompt`, answered now.
    pub fn new(
        prompt: &crate::interact::Prompt,
        response: &crate::interact::Response,
        correlation: Correlation,
    ) -> Self {
        use crate::interact::{Response, view};
        let mut answered = Answered {
            correlation,
            action: view::action(response).to_string(),
            completed: prompt.completed.render(&prompt.request, response),
            ..Answered::default()
        };
        answered.correlation.timestamp = crate::clock::iso8601_millis(std::time::SystemTime::now());
        match response {
            Response::Approved(scope) => {
                answered.approval_scope = Some(view::scope_name(*scope).to_string())
            }
            Response::Denied(reason) => answered.reason = Some(reason.clone()),
            Response::Submitted(input) => {
                answered.input = Some(serde_json::Value::Object(input.clone()))
            }
            _ => {}
        }
        answered
    }
}

/// How much a notice matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// The turn goes on as it should (a retry, a compaction).
    Info,
    /// Something the person owns was not read or written as it should have been.
    Warning,
}

/// A tool call as shown: arguments as JSON when they parse, else as the text the model sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallShown {
    pub id: String,
    pub name: String,
    pub arguments: serde_json::Value,
}

impl Event {
    pub fn warning(message: impl Into<String>) -> Event {
        Event::Notice {
            level: Level::Warning,
            message: message.into(),
        }
    }
}

/// A tool family a request offers, and why: `core` always, a word of the message, a call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FamilyOffered {
    pub family: String,
    pub why: String,
}

/// `--verbose`'s line for a `ToolsOffered`: `tools: core, weather ("rain") · 4 tools, 3.1 KB`.
pub fn tools_line(families: &[FamilyOffered], tools: usize, bytes: usize) -> String {
    let families: Vec<String> = families
        .iter()
        .map(|f| match f.family.as_str() {
            "core" | "all" => f.family.clone(),
            _ => format!("{} ({})", f.family, f.why),
        })
        .collect();
    format!(
        "tools: {} · {tools} tools, {:.1} KB",
        families.join(", "),
        bytes as f64 / 1024.0
    )
}

impl From<&ToolCall> for CallShown {
    fn from(call: &ToolCall) -> CallShown {
        let arguments = serde_json::from_str(&call.function.arguments)
            .unwrap_or_else(|_| serde_json::Value::String(call.function.arguments.clone()));
        CallShown {
            id: call.id.clone(),
            name: call.function.name.clone(),
            arguments,
        }
    }
}

/// The agent loop reports in its own terms; the session shows them in these.
impl From<AgentEvent> for Event {
    fn from(event: AgentEvent) -> Event {
        match event {
            AgentEvent::Text(text) => Event::Text { text },
            AgentEvent::Notice(message) => Event::Notice {
                level: Level::Info,
                message,
            },
            AgentEvent::ModelCall { model, usage, .. } => Event::ModelCall { model, usage },
            AgentEvent::ToolRoundStarted { round, calls } => Event::ToolRound {
                round,
                calls: calls.iter().map(CallShown::from).collect(),
            },
            AgentEvent::ToolFinished {
                round,
                call,
                elapsed,
                outcome,
            } => Event::ToolResult {
                round,
                id: call.id,
                name: call.function.name,
                elapsed,
                is_error: outcome.is_error,
                turned_back: outcome.turned_back,
                output: outcome.content,
            },
            AgentEvent::ToolRoundFinished { round, elapsed } => {
                Event::ToolRoundFinished { round, elapsed }
            }
            AgentEvent::ToolProgress { call_id, text } => Event::ToolProgress { id: call_id, text },
            AgentEvent::ToolsOffered {
                families,
                tools,
                bytes,
            } => Event::ToolsOffered {
                families: families
                    .into_iter()
                    .map(|(family, why)| FamilyOffered { family, why })
                    .collect(),
                tools,
                bytes,
            },
        }
    }
}

fn millis<S: Serializer>(elapsed: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
}

fn usage_shown<S: Serializer>(usage: &Option<Usage>, serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Shown {
        input_tokens: u64,
        output_tokens: u64,
        reported_cost: Option<f64>,
    }
    usage
        .map(|u| Shown {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            reported_cost: u.reported_cost,
        })
        .serialize(serializer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolOutcome;
    use serde_json::json;

    #[test]
    fn every_event_has_a_stable_json_shape() {
        let call = ToolCall::new("c1", "read_file", r#"{"path": "a.rs"}"#);
        let raw = ToolCall::new("c2", "apply_patch", "*** Begin Patch");
        let cases = [
            (
                AgentEvent::Text("Hi".into()).into(),
                json!({"type": "text", "text": "Hi"}),
            ),
            (
                AgentEvent::Notice("retrying".into()).into(),
                json!({"type": "notice", "level": "info", "message": "retrying"}),
            ),
            (
                Event::warning("x.json was moved aside"),
                json!({"type": "notice", "level": "warning", "message": "x.json was moved aside"}),
            ),
            (
                AgentEvent::ModelCall {
                    model: "m".into(),
                    usage: Some(Usage {
                        input_tokens: 10,
                        output_tokens: 5,
                        reported_cost: None,
                        cached_tokens: 0,
                    }),
                    cut: false,
                }
                .into(),
                json!({"type": "model_call", "model": "m", "usage": {"input_tokens": 10, "output_tokens": 5, "reported_cost": null}}),
            ),
            (
                AgentEvent::ModelCall {
                    model: "m".into(),
                    usage: None,
                    cut: false,
                }
                .into(),
                json!({"type": "model_call", "model": "m", "usage": null}),
            ),
            (
                AgentEvent::ToolRoundStarted {
                    round: 1,
                    calls: vec![call.clone(), raw],
                }
                .into(),
                json!({"type": "tool_round", "round": 1, "calls": [
                    {"id": "c1", "name": "read_file", "arguments": {"path": "a.rs"}},
                    {"id": "c2", "name": "apply_patch", "arguments": "*** Begin Patch"}
                ]}),
            ),
            (
                AgentEvent::ToolFinished {
                    round: 1,
                    call,
                    elapsed: Duration::from_millis(1500),
                    outcome: ToolOutcome {
                        content: "fn main() {}".into(),
                        is_error: false,
                        turned_back: false,
                    },
                }
                .into(),
                json!({"type": "tool_result", "round": 1, "id": "c1", "name": "read_file", "elapsed_ms": 1500, "is_error": false, "output": "fn main() {}"}),
            ),
            (
                AgentEvent::ToolRoundFinished {
                    round: 2,
                    elapsed: Duration::from_micros(2_000_900),
                }
                .into(),
                json!({"type": "tool_round_finished", "round": 2, "elapsed_ms": 2000}),
            ),
            (
                Event::QuestionClosed {
                    id: 3,
                    outcome: "approved once".into(),
                    answer: Box::new(Answered {
                        correlation: Correlation {
                            timestamp: "2026-11-28T09:30:00.125Z".into(),
                            turn_id: "turn-1".into(),
                            response_id: "turn-1/2".into(),
                            tool_call_id: "call_1".into(),
                            interaction_id: "3".into(),
                            tool_name: "run_command".into(),
                        },
                        action: "approve".into(),
                        approval_scope: Some("once".into()),
                        completed: vec!["approved once".into()],
                        ..Answered::default()
                    }),
                },
                json!({"type": "question_closed", "id": 3, "outcome": "approved once",
                       "timestamp": "2026-11-28T09:30:00.125Z", "turnId": "turn-1",
                       "responseId": "turn-1/2", "toolCallId": "call_1", "interactionId": "3",
                       "toolName": "run_command", "action": "approve", "approvalScope": "once",
                       "completed": ["approved once"]}),
            ),
        ];
        for (event, expected) in cases {
            assert_eq!(serde_json::to_value(&event).unwrap(), expected, "{event:?}");
        }
    }
}
