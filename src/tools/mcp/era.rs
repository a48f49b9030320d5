//! The two eras of MCP. Up to revision 2025-11-25 a connection opens with `initialize`, and a
//! server asks the person something with a request of its own in the middle of a call
//! (`elicitation/create`). From 2026-07-28 there is no handshake: every request carries a
//! `_meta` envelope (the revision, the client's capabilities and name), `server/discover`
//! says what a server speaks, and a call that needs input ends with `input_required`; the
//! client asks, then calls again with the answers (multi round-trip requests, SEP-2322).
//! Marvin asks `server/discover` first: a server of the new era answers it, one of the old
//! answers "method not found", and is then opened with `initialize`.

use serde_json::{Map, Value, json};

use super::connection::{Connection, Failure, ServerRequests};
use super::rpc::{INVALID_PARAMS, RpcError};
use crate::cancel::CancelToken;

/// The revision of the new era Marvin speaks.
pub const MODERN: &str = "2026-07-28";
/// The old era's revision Marvin asks for, and the older ones it also speaks (their messages
/// are the same for what Marvin uses).
pub const LEGACY: &str = "2025-11-25";
const ALSO_SPOKEN: &[&str] = &["2025-06-18", "2025-03-26", "2024-11-05"];
/// How many times one call may come back for more input before Marvin gives up.
const MAX_INPUT_ROUNDS: usize = 10;

/// Which era a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    Legacy,
    Modern,
}

/// What the opening learnt: the era, and what the server calls itself.
pub struct Opened {
    pub era: Era,
    pub info: String,
}

fn capabilities() -> Value {
    json!({"elicitation": {"form": {}}})
}

fn client_info() -> Value {
    json!({"name": "marvin", "version": env!("CARGO_PKG_VERSION")})
}

impl Era {
    /// `params` as this era sends them: in the new one, with the `_meta` envelope.
    pub fn params(self, params: Value) -> Value {
        match self {
            Era::Legacy => params,
            Era::Modern => {
                let mut params = match params {
                    Value::Object(map) => map,
                    _ => Map::new(),
                };
                params.insert("_meta".into(), envelope());
                Value::Object(params)
            }
        }
    }
}

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities(),
        "io.modelcontextprotocol/clientInfo": client_info(),
    })
}

/// Opens `connection` in the era the server speaks. `describe` words a failure (with what the
/// server said on the side).
pub fn open(
    connection: &Connection,
    timeout: std::time::Duration,
    describe: &dyn Fn(&Failure) -> String,
) -> Result<Opened, String> {
    let never = CancelToken::new();
    let discovered = connection.request(
        "server/discover",
        Era::Modern.params(json!({})),
        timeout,
        &never,
        &mut |_, _| None,
    );
    match discovered {
        Ok(result) if speaks_modern(&result) => {
            return Ok(Opened {
                era: Era::Modern,
                info: info(result.pointer("/_meta/io.modelcontextprotocol~1serverInfo")),
            });
        }
        // An old-era server does not know the method (or answers it some other way).
        Ok(_) | Err(Failure::Rpc(_)) => {}
        Err(failure) => return Err(format!("it did not start: {}", describe(&failure))),
    }
    let initialized = connection.request(
        "initialize",
        json!({
            "protocolVersion": LEGACY,
            "capabilities": capabilities(),
            "clientInfo": client_info(),
        }),
        timeout,
        &never,
        &mut |_, _| None,
    );
    let result =
        initialized.map_err(|failure| format!("it did not start: {}", describe(&failure)))?;
    let version = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    if version != LEGACY && !ALSO_SPOKEN.contains(&version) {
        return Err(format!(
            "it speaks MCP revision {version:?}, which Marvin does not (Marvin speaks {MODERN}, {LEGACY} and {})",
            ALSO_SPOKEN.join(", ")
        ));
    }
    connection.notify("notifications/initialized", Value::Null)?;
    Ok(Opened {
        era: Era::Legacy,
        info: info(result.get("serverInfo")),
    })
}

fn speaks_modern(discovered: &Value) -> bool {
    discovered
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|versions| versions.iter().any(|v| v == MODERN))
}

/// "name version" of a serverInfo object.
fn info(server: Option<&Value>) -> String {
    let field = |name: &str| server.and_then(|s| s.get(name)).and_then(Value::as_str);
    match (field("name"), field("version")) {
        (Some(name), Some(version)) => format!("{name} {version}"),
        (Some(name), None) => name.to_string(),
        _ => String::new(),
    }
}

/// Sends `method` with `params` and, while the answer says `input_required` (the new era's
/// way to ask), answers its input requests with `on_request` and sends it again with the
/// answers and the server's state, as the pattern says. The final result.
pub fn request_with_input(
    connection: &Connection,
    era: Era,
    method: &str,
    params: Value,
    timeout: std::time::Duration,
    cancel: &CancelToken,
    on_request: ServerRequests<'_>,
) -> Result<Value, Failure> {
    let mut extra = Map::new();
    for _ in 0..=MAX_INPUT_ROUNDS {
        let mut sent = params.clone();
        if let Value::Object(fields) = &mut sent {
            fields.extend(extra.clone());
        }
        let result =
            connection.request(method, era.params(sent), timeout, cancel, &mut *on_request)?;
        if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
            return Ok(result);
        }
        extra = answers(&result, &mut *on_request)?;
    }
    Err(Failure::Rpc(RpcError {
        code: INVALID_PARAMS,
        message: format!(
            "the server asked for more input {MAX_INPUT_ROUNDS} times in one call; Marvin stopped there"
        ),
    }))
}

/// The `inputResponses` (and `requestState`, unchanged) for an `input_required` result.
fn answers(result: &Value, on_request: ServerRequests<'_>) -> Result<Map<String, Value>, Failure> {
    let mut responses = Map::new();
    if let Some(requests) = result.get("inputRequests").and_then(Value::as_object) {
        for (key, request) in requests {
            let method = request.get("method").and_then(Value::as_str).unwrap_or("");
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            let answer = match method {
                // Marvin offers no roots: an empty list says so.
                "roots/list" => Ok(json!({"roots": []})),
                _ => on_request(method, &params).unwrap_or_else(|| {
                    Err(RpcError {
                        code: super::rpc::METHOD_NOT_FOUND,
                        message: format!(
                            "the server asked for {method}, which Marvin does not offer"
                        ),
                    })
                }),
            };
            responses.insert(key.clone(), answer.map_err(Failure::Rpc)?);
        }
    }
    let mut extra = Map::new();
    extra.insert("inputResponses".into(), Value::Object(responses));
    if let Some(state) = result.get("requestState") {
        extra.insert("requestState".into(), state.clone());
    }
    Ok(extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_era_sends_the_envelope_with_every_request() {
        let sent = Era::Modern.params(json!({"name": "read_file", "arguments": {"path": "a"}}));
        assert_eq!(sent["name"], "read_file");
        assert_eq!(
            sent["_meta"]["io.modelcontextprotocol/protocolVersion"],
            MODERN
        );
        assert_eq!(
            sent["_meta"]["io.modelcontextprotocol/clientCapabilities"],
            json!({"elicitation": {"form": {}}})
        );
        assert_eq!(
            sent["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
            "marvin"
        );
        assert_eq!(Era::Legacy.params(json!({"a": 1})), json!({"a": 1}));
    }

    /// The server-filesystem 2.0.1 answer to server/discover (tests/fixtures/mcp/).
    #[test]
    fn a_discover_answer_tells_the_era_and_the_server() {
        let answer = json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": true}}, "resultType": "complete", "ttlMs": 0, "cacheScope": "private", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "secure-filesystem-server", "version": "2.0.1"}}});
        assert!(speaks_modern(&answer));
        assert_eq!(
            info(answer.pointer("/_meta/io.modelcontextprotocol~1serverInfo")),
            "secure-filesystem-server 2.0.1"
        );
        assert!(!speaks_modern(
            &json!({"supportedVersions": ["2027-01-01"]})
        ));
    }

    /// The spec's example of an `input_required` result (2026-07-28 basic/patterns/mrtr).
    #[test]
    fn input_requests_are_answered_by_key_with_the_state_echoed() {
        let result = json!({"resultType": "input_required",
            "inputRequests": {
                "github_login": {"method": "elicitation/create", "params": {"mode": "form", "message": "Please provide your GitHub username", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}},
                "where": {"method": "roots/list", "params": {}}
            },
            "requestState": "opaque-123"});
        let mut asked = Vec::new();
        let extra = answers(&result, &mut |method, params| {
            asked.push((method.to_string(), params["message"].clone()));
            Some(Ok(
                json!({"action": "accept", "content": {"name": "octocat"}}),
            ))
        })
        .unwrap();
        assert_eq!(
            Value::Object(extra),
            json!({"inputResponses": {
                "github_login": {"action": "accept", "content": {"name": "octocat"}},
                "where": {"roots": []}},
                "requestState": "opaque-123"})
        );
        assert_eq!(
            asked,
            [(
                "elicitation/create".to_string(),
                json!("Please provide your GitHub username")
            )]
        );
        let sampling = json!({"resultType": "input_required",
            "inputRequests": {"capital": {"method": "sampling/createMessage", "params": {}}}});
        let refused = answers(&sampling, &mut |_, _| None).unwrap_err();
        assert!(
            matches!(refused, Failure::Rpc(RpcError { ref message, .. }) if message.contains("sampling/createMessage"))
        );
    }
}
