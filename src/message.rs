//! Conversation messages, tool calls and token usage in the OpenAI chat wire format.

use serde::{Deserialize, Serialize};

/// Who wrote a message, as the chat completions API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    /// `null` on the wire for an assistant message that only calls tools.
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Message {
    pub fn system(text: impl Into<String>) -> Self {
        Self::plain(Role::System, text.into())
    }

    pub fn user(text: impl Into<String>) -> Self {
        Self::plain(Role::User, text.into())
    }

    pub fn assistant(text: impl Into<String>) -> Self {
        Self::plain(Role::Assistant, text.into())
    }

    /// What the model said in one call: its text and the tools it called. A reply that only
    /// calls tools has no content (null on the wire), as the APIs send it back.
    pub fn assistant_turn(text: String, tool_calls: Vec<ToolCall>) -> Self {
        let content = (!text.is_empty() || tool_calls.is_empty()).then_some(text);
        Self {
            role: Role::Assistant,
            content,
            tool_calls,
            tool_call_id: None,
            name: None,
        }
    }

    /// The result of one tool call, answering the call with the same id.
    pub fn tool_result(call: &ToolCall, content: String) -> Self {
        Self {
            role: Role::Tool,
            content: Some(content),
            tool_calls: Vec::new(),
            tool_call_id: Some(call.id.clone()),
            name: Some(call.function.name.clone()),
        }
    }

    fn plain(role: Role, text: String) -> Self {
        Self {
            role,
            content: Some(text),
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
        }
    }

    /// The text of the message, empty when it has none.
    pub fn text(&self) -> &str {
        self.content.as_deref().unwrap_or("")
    }
}

/// A tool call requested by the model. `arguments` is JSON text, exactly as streamed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    pub function: FunctionCall,
}

fn function_type() -> String {
    "function".to_string()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    pub name: String,
    pub arguments: String,
}

impl ToolCall {
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            kind: function_type(),
            function: FunctionCall {
                name: name.into(),
                arguments: arguments.into(),
            },
        }
    }
}

/// Token counts of one model call, and the price when the service reported one.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// USD, when the service says what the call cost (OpenRouter does).
    pub reported_cost: Option<f64>,
    /// Of `input_tokens`, those the service took from its cache of the prompt's start (read,
    /// not evaluated again; most services charge less for them).
    pub cached_tokens: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assistant_tool_call_message_serialises_null_content() {
        let mut msg = Message::assistant("");
        msg.content = None;
        msg.tool_calls
            .push(ToolCall::new("call_1", "read_file", "{}"));
        let json = serde_json::to_value(&msg).unwrap();
        assert_eq!(json["content"], serde_json::Value::Null);
        assert_eq!(json["tool_calls"][0]["type"], "function");
        assert!(json.get("tool_call_id").is_none());
    }

    #[test]
    fn tool_result_answers_the_call() {
        let call = ToolCall::new("c9", "system_info", "{}");
        let msg = Message::tool_result(&call, "ok".into());
        let json = serde_json::to_value(&msg).unwrap();
        assert_eq!(json["role"], "tool");
        assert_eq!(json["tool_call_id"], "c9");
        assert_eq!(json["name"], "system_info");
        assert!(json.get("tool_calls").is_none());
    }
}
