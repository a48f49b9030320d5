//! Signing in to MCP servers over HTTP that ask for it (the MCP authorization spec, OAuth 2.1):
//! a 401 (or a 403 asking for more scope) from the server starts discovery (`discover`), a
//! client (`register`), a sign-in (`flow`) and keeps its tokens (`store`); the token then goes
//! as `Authorization: Bearer` to that server's address alone (the transport adds it to its own
//! requests and to nothing else), renewed with the refresh token when it expires or is
//! refused. Runs of Marvin never open a browser on their own: a server that needs a person to
//! sign in is reported with the command that does it, `marvin mcp login NAME` (`command`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

pub(crate) mod challenge;
pub(crate) mod command;
mod discover;
mod flow;
mod jwt;
mod register;
mod store;
mod token;

use challenge::Challenge;
use store::Entry;

/// How a sign-in's address reaches a person (or, in tests, a program): given the address and
/// the callback's port, it returns once the address was shown or visited.
pub type Visit = Arc<dyn Fn(&str, u16) -> Result<(), String> + Send + Sync>;

/// A server's sign-ins cannot start more than this many times in a run: a server that keeps
/// asking for a scope it never grants must not loop.
const MAX_SIGN_INS: u32 = 3;
/// Metadata and token answers are small.
const MAX_ANSWER: u64 = 256 << 10;

/// Where server `name`'s sign-in is kept and how one is made.
#[derive(Clone)]
pub struct SignIn {
    pub name: String,
    /// The profile's directory (its tokens.json).
    pub profile: PathBuf,
    /// The client declared in mcp.json (`"oauth": {"clientId", …}`).
    pub client: Option<crate::config::OAuthClient>,
    /// How to show a sign-in's address; none in a run, where nobody is asked.
    pub visit: Option<Visit>,
}

impl SignIn {
    /// The sentence for a sign-in that needs a person.
    fn needed(&self) -> String {
        let name = &self.name;
        format!("the MCP server {name} {NEEDED} {name}`")
    }
}

const NEEDED: &str = "needs a sign-in: run `marvin mcp login";

/// The sentence saying a server needs a sign-in, if `why` (a failure to start) is one.
pub(crate) fn sign_in_needed(why: &str) -> Option<&str> {
    let at = why.find(NEEDED)?;
    let start = why[..at].rfind("the MCP server ")?;
    Some(&why[start..])
}

/// The sign-in of one server's transport.
pub(crate) struct Auth {
    sign_in: SignIn,
    url: String,
    state: Mutex<State>,
}

struct State {
    entry: Option<Entry>,
    sign_ins: u32,
}

impl Auth {
    /// The sign-in kept for the server at `url`, if any.
    pub(crate) fn new(sign_in: SignIn, url: &str) -> Auth {
        // A kept sign-in whose client proves itself with a declared secret or key is used
        // (refreshed with them) only while mcp.json allows that authorization server: one
        // kept before the check, or before "issuer" changed, signs in again.
        let pinned = sign_in.client.as_ref().and_then(|c| c.issuer.as_deref());
        let entry = store::load(&sign_in.profile, &sign_in.name, url).filter(|entry| {
            let proves = entry.client.secret.is_some() || entry.client.method == "private_key_jwt";
            !proves || flow::may_prove_to(pinned, &entry.issuer, url, &sign_in.name).is_ok()
        });
        Auth {
            sign_in,
            url: url.to_string(),
            state: Mutex::new(State { entry, sign_ins: 0 }),
        }
    }

    /// The sentence for a sign-in that needs a person.
    pub(crate) fn needed(&self) -> String {
        self.sign_in.needed()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The access token for the server's requests, renewed first when it has expired.
    pub(crate) fn bearer(&self, agent: &ureq::Agent) -> Option<String> {
        let mut state = self.state();
        let entry = state.entry.as_ref()?;
        if entry.expired() && entry.refresh_token.is_some() {
            if let Ok(renewed) = token::refresh(agent, entry) {
                let _ = store::save(&self.sign_in.profile, &self.sign_in.name, &renewed);
                state.entry = Some(renewed);
            }
        }
        state.entry.as_ref().map(|e| e.access_token.clone())
    }

    /// After the server refused a request that carried `sent` with `challenge`: a renewed or
    /// new sign-in to send it again with, or the sentence saying why there is none.
    pub(crate) fn recover(
        &self,
        agent: &ureq::Agent,
        sent: Option<&str>,
        challenge: &Challenge,
    ) -> Result<(), String> {
        let mut state = self.state();
        let current = state.entry.as_ref().map(|e| e.access_token.as_str());
        if current.is_some() && current != sent {
            // Renewed by another request meanwhile.
            return Ok(());
        }
        let renewable = state.entry.as_ref().filter(|e| e.refresh_token.is_some());
        if let Some(entry) = renewable.filter(|_| !challenge.wants_more_scope()) {
            if let Ok(renewed) = token::refresh(agent, entry) {
                self.keep(&mut state, renewed)?;
                return Ok(());
            }
        }
        if state.sign_ins >= MAX_SIGN_INS {
            return Err(format!(
                "{} (it refused {MAX_SIGN_INS} sign-ins in a row)",
                self.sign_in.needed()
            ));
        }
        state.sign_ins += 1;
        let name = &self.sign_in.name;
        let plan = discover::discover(agent, &self.url, challenge)
            .map_err(|why| format!("signing in to the MCP server {name} failed: {why}"))?;
        let entry =
            flow::sign_in(agent, &self.sign_in, &self.url, &plan).map_err(|why| {
                match self.sign_in.visit.is_some() {
                    true => format!("signing in to the MCP server {name} failed: {why}"),
                    false => why,
                }
            })?;
        self.keep(&mut state, entry)
    }

    fn keep(&self, state: &mut State, entry: Entry) -> Result<(), String> {
        let kept = store::save(&self.sign_in.profile, &self.sign_in.name, &entry);
        state.entry = Some(entry);
        kept
    }
}

/// GETs `url` for a JSON object: none when there is no such document there (any answer but
/// a 2xx with JSON), an error when the address cannot be reached.
/// The longest one exchange with a server of the sign-in (metadata, registration, a token)
/// may take: the server's own agent sets none, and a refresh holds the sign-in's lock.
pub(crate) const EXCHANGE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

fn get_json(agent: &ureq::Agent, url: &str) -> Result<Option<Value>, String> {
    let response = agent
        .get(url)
        .header("Accept", "application/json")
        .config()
        .timeout_global(Some(EXCHANGE_TIMEOUT))
        .build()
        .call()
        .map_err(|e| format!("cannot reach {}: {e}", crate::net::without_userinfo(url)))?;
    if !response.status().is_success() {
        return Ok(None);
    }
    let body = crate::net::read_start(response.into_body().into_reader(), MAX_ANSWER)
        .map_err(|e| format!("reading {}: {e}", crate::net::without_userinfo(url)))?;
    Ok(serde_json::from_str::<Value>(&body)
        .ok()
        .filter(Value::is_object))
}

/// POSTs `body` with `request` (to `endpoint`): the status and the JSON answer (null when
/// it is not JSON).
fn post(
    request: ureq::RequestBuilder<ureq::typestate::WithBody>,
    body: String,
    endpoint: &str,
) -> Result<(u16, Value), String> {
    let response = request
        .header("Accept", "application/json")
        .config()
        .timeout_global(Some(EXCHANGE_TIMEOUT))
        .build()
        .send(body)
        .map_err(|e| {
            format!(
                "cannot reach {}: {e}",
                crate::net::without_userinfo(endpoint)
            )
        })?;
    let status = response.status().as_u16();
    let text = crate::net::read_start(response.into_body().into_reader(), MAX_ANSWER)
        .map_err(|e| format!("reading the answer of {endpoint}: {e}"))?;
    Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

/// An error answer in words: its OAuth error, else its status.
fn said(status: u16, answer: &Value) -> String {
    token::oauth_error(answer).unwrap_or_else(|| format!("HTTP {status}"))
}

#[cfg(test)]
mod tests;
