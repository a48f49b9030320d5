//! The smallest MCP server over stdio, for `make bench`: one tool, `echo`, answered at once, so
//! a call's time through Marvin is Marvin's (and the pipes'). `--init-delay-ms N` makes
//! `initialize` take N ms, as a server that is slow to start (to see servers start in
//! parallel).
//!
//! cargo run --release --example mcp_echo_server -- [--init-delay-ms N]

use std::io::{BufRead, Write};
use std::time::Duration;

use serde_json::{Value, json};

fn main() {
    let mut init_delay = Duration::ZERO;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--init-delay-ms" => {
                let ms = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--init-delay-ms N");
                init_delay = Duration::from_millis(ms);
            }
            other => panic!("unknown argument {other}"),
        }
    }
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
            continue; // a notification
        };
        let result = match method {
            "initialize" => {
                std::thread::sleep(init_delay);
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                       "serverInfo": {"name": "bench-echo", "version": "1"}})
            }
            "tools/list" => json!({"tools": [{"name": "echo", "description": "Echoes text",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                                "required": ["text"]}}]}),
            "tools/call" => {
                let text = message["params"]["arguments"]["text"]
                    .as_str()
                    .unwrap_or("");
                json!({"content": [{"type": "text", "text": text}]})
            }
            "ping" => json!({}),
            _ => {
                let error = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": "Method not found"}});
                let _ = writeln!(stdout, "{error}");
                let _ = stdout.flush();
                continue;
            }
        };
        let _ = writeln!(
            stdout,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "result": result})
        );
        let _ = stdout.flush();
    }
}
