//! The rule a provider's model lives by, kept by the stand-in model: it calls only tools the
//! request it answers offers, unless a test says its model makes a name up.

use serde_json::Value;

use super::{Calls, Recorded, Reply};

/// The tools `reply` calls that it may not: those `request` did not offer. Only chat requests
/// are judged.
pub fn unoffered(request: &Recorded, reply: &Reply) -> Vec<String> {
    if request.body.get("messages").is_none() || reply.calls == Calls::MadeUp {
        return Vec::new();
    }
    let offered = offered_by(request);
    let mut refused: Vec<String> = called(&reply.body)
        .into_iter()
        .filter(|name| !offered.contains(name))
        .collect();
    refused.dedup();
    refused
}

/// The names a chat request's `tools` offer (OpenAI's and Ollama's shape alike).
fn offered_by(request: &Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["function"]["name"].as_str().map(str::to_string))
        .collect()
}

/// The names of the tools a reply's body calls: a stream of `data:` events, one JSON answer,
/// or Ollama's lines of JSON.
fn called(body: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(body);
    let documents: Vec<Value> = match serde_json::from_str::<Value>(&text) {
        Ok(whole) => vec![whole],
        Err(_) => text
            .lines()
            .map(|line| line.trim().strip_prefix("data:").unwrap_or(line).trim())
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect(),
    };
    let mut names = Vec::new();
    for document in documents {
        let from_choices = document["choices"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|choice| {
                let delta = choice["delta"]["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten();
                let message = choice["message"]["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten();
                delta.chain(message).cloned().collect::<Vec<_>>()
            });
        let from_ollama = document["message"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .cloned();
        for call in from_choices.chain(from_ollama) {
            if let Some(name) = call["function"]["name"].as_str().filter(|n| !n.is_empty()) {
                names.push(name.to_string());
            }
        }
    }
    names
}
