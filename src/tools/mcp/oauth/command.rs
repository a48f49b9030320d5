//! `marvin mcp login NAME` and `marvin mcp logout NAME`: a person signs in to a declared HTTP
//! server in a browser (opened here when one can be, else the address is printed, over SSH
//! with the `ssh -L` line), and the sign-in is kept for the runs that follow; or it is
//! forgotten.

use std::collections::BTreeMap;

use super::{SignIn, challenge, discover, flow, store};
use crate::cli::Args;
use crate::config::{Env, McpTransport};
use crate::store::tokens;

/// Signs in to (`login`) or out of server `name`: what was done, in a sentence.
pub fn run(args: &Args, env: &Env, login: bool, name: &str) -> Result<String, String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let (mcp, surface) = crate::config::mcp_sign_in(args, env, &cwd)?;
    let Some(server) = mcp.servers.iter().find(|s| s.name == name) else {
        let names: Vec<&str> = mcp.servers.iter().map(|s| s.name.as_str()).collect();
        return Err(match names.is_empty() {
            true => format!("no MCP server is called {name}: none is declared"),
            false => format!(
                "no MCP server is called {name} (declared: {})",
                names.join(", ")
            ),
        });
    };
    let McpTransport::Http {
        url,
        headers,
        proxy,
    } = &server.transport
    else {
        return Err(format!(
            "the MCP server {name} is a program Marvin starts, which needs no sign-in"
        ));
    };
    let profile = mcp
        .sign_ins
        .clone()
        .ok_or("sign-ins are kept in MARVIN_HOME, and there is none (set MARVIN_HOME or HOME)")?;
    let file = tokens::profile_file(&profile);
    if !login {
        return Ok(match store::remove(&profile, name)? {
            true => format!(
                "Signed out of the MCP server {name} (removed from {}).",
                file.display()
            ),
            false => format!("There was no sign-in to the MCP server {name} to remove."),
        });
    }
    let sign_in = SignIn {
        name: name.to_string(),
        profile: profile.clone(),
        client: server.oauth_client.clone(),
        visit: Some(flow::browser(surface)),
    };
    sign_in_at(&sign_in, url, headers, proxy.as_deref())?;
    Ok(format!(
        "Signed in to the MCP server {name}; the sign-in is kept in {} and renewed as needed.",
        file.display()
    ))
}

/// Asks the server at `url` what it wants (an `initialize` without a token), signs in as it
/// says and keeps the sign-in.
pub fn sign_in_at(
    sign_in: &SignIn,
    url: &str,
    headers: &BTreeMap<String, String>,
    proxy: Option<&str>,
) -> Result<(), String> {
    let agent = super::super::http::agent(proxy);
    let asked = probe(&agent, url, headers)?;
    let plan = discover::discover(&agent, url, &asked)?;
    let entry = flow::sign_in(&agent, sign_in, url, &plan)?;
    store::save(&sign_in.profile, &sign_in.name, &entry)
}

/// The server's challenge to a first message without a token (none when it let it through).
fn probe(
    agent: &ureq::Agent,
    url: &str,
    headers: &BTreeMap<String, String>,
) -> Result<challenge::Challenge, String> {
    let message = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": super::super::era::LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "marvin", "version": env!("CARGO_PKG_VERSION")},
        },
    });
    let mut request = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let response = request
        .config()
        .timeout_global(Some(super::EXCHANGE_TIMEOUT))
        .build()
        .send(message.to_string())
        .map_err(|e| format!("cannot reach {}: {e}", crate::net::without_userinfo(url)))?;
    let header = crate::net::header(&response, "www-authenticate").unwrap_or_default();
    Ok(challenge::parse(&header))
}
