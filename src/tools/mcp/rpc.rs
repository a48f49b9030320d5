//! JSON-RPC 2.0 as MCP uses it: one message per line, requests with numeric ids of ours, and
//! the server's own requests (a separate id space: elicitation, ping, roots) that a client must
//! answer, with "method not found" for what it does not offer.

use serde_json::{Value, json};

/// The error of a failed request, as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

/// JSON-RPC's code for a method the receiver does not have.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC's code for parameters the receiver cannot use.
pub const INVALID_PARAMS: i64 = -32602;

/// One message from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The answer to our request `id`.
    Response {
        id: u64,
        result: Result<Value, RpcError>,
    },
    /// The server asks something of us; `id` is echoed in the answer as it came.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
}

/// Reads one message. A response to an id we never use (not a number) is an error: the
/// server is confused and the line is reported, not guessed at.
pub fn parse(line: &str) -> Result<Incoming, String> {
    let mut value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    super::order::mark(&mut value, line);
    let Value::Object(mut message) = value else {
        return Err("not a JSON-RPC message (not an object)".into());
    };
    let method = message.remove("method");
    let params = message.remove("params").unwrap_or(Value::Null);
    let id = message.remove("id");
    match (method, id) {
        (Some(Value::String(method)), Some(id)) if !id.is_null() => {
            Ok(Incoming::Request { id, method, params })
        }
        (Some(Value::String(method)), _) => Ok(Incoming::Notification { method, params }),
        (Some(_), _) => Err("its method is not a string".into()),
        (None, Some(id)) => {
            let id = id
                .as_u64()
                .ok_or_else(|| format!("a response to an id Marvin never sent ({id})"))?;
            let result = match (message.remove("result"), message.remove("error")) {
                (Some(result), None) => Ok(result),
                (_, Some(error)) => Err(RpcError {
                    code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("(no message)")
                        .to_string(),
                }),
                (None, None) => return Err("a response with neither result nor error".into()),
            };
            Ok(Incoming::Response { id, result })
        }
        (None, None) => Err("neither a request, a notification nor a response".into()),
    }
}

/// Our request `id`, as one line.
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A notification (no answer expected), as one line.
pub fn notification(method: &str, params: Value) -> String {
    match params {
        Value::Null => json!({"jsonrpc": "2.0", "method": method}).to_string(),
        params => json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string(),
    }
}

/// Our answer to the server's request `id`.
pub fn response(id: &Value, result: Result<Value, RpcError>) -> String {
    match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
        Err(error) => json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": error.code, "message": error.message}})
        .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as server-everything 2026.8.31 wrote them (tests/fixtures/mcp/).
    #[test]
    fn real_messages_are_told_apart() {
        assert_eq!(
            parse(r#"{"result":{"tools":[]},"jsonrpc":"2.0","id":2}"#).unwrap(),
            Incoming::Response {
                id: 2,
                result: Ok(json!({"tools": []}))
            }
        );
        assert_eq!(
            parse(
                r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}"#
            )
            .unwrap(),
            Incoming::Response {
                id: 3,
                result: Err(RpcError {
                    code: METHOD_NOT_FOUND,
                    message: "Method not found".into()
                })
            }
        );
        // The server's own requests count from 0, in their own id space.
        assert_eq!(
            parse(r#"{"method":"roots/list","jsonrpc":"2.0","id":0}"#).unwrap(),
            Incoming::Request {
                id: json!(0),
                method: "roots/list".into(),
                params: Value::Null
            }
        );
        assert_eq!(
            parse(r#"{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}"#).unwrap(),
            Incoming::Notification {
                method: "notifications/tools/list_changed".into(),
                params: Value::Null
            }
        );
    }

    #[test]
    fn garbage_is_described() {
        assert!(
            parse("Starting default (STDIO) server...")
                .unwrap_err()
                .starts_with("not JSON")
        );
        assert_eq!(
            parse("[1]").unwrap_err(),
            "not a JSON-RPC message (not an object)"
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":"x","result":{}}"#).unwrap_err(),
            r#"a response to an id Marvin never sent ("x")"#
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":1}"#).unwrap_err(),
            "a response with neither result nor error"
        );
    }

    #[test]
    fn messages_are_written_on_one_line() {
        let line = request(
            7,
            "tools/call",
            json!({"name": "echo", "arguments": {"message": "a\nb"}}),
        );
        assert!(!line.contains('\n'));
        assert_eq!(
            notification("notifications/initialized", Value::Null),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        );
        assert_eq!(
            response(
                &json!(0),
                Err(RpcError {
                    code: METHOD_NOT_FOUND,
                    message: "Method not found".into()
                })
            ),
            r#"{"error":{"code":-32601,"message":"Method not found"},"id":0,"jsonrpc":"2.0"}"#
        );
    }
}
