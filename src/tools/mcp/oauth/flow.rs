//! One sign-in: the authorization code flow with PKCE (S256) through a callback on
//! 127.0.0.1 at a free port, the `state` checked there, the `resource` (RFC 8707) and scope in
//! the request; or, for a client declared with a secret or a key at a server that only grants
//! `client_credentials`, that grant, which needs nobody.

use std::time::{Duration, Instant};

use super::discover::{Plan, split};
use super::register::{self, Client};
use super::store::Entry;
use super::token::{self, Tokens};
use super::{SignIn, Visit};
use crate::tools::kit::web::encode_pairs;
use crate::web::callback::{Answer, Callback};
use crate::web::pkce::Pkce;

/// How long the person has to sign in.
const WAIT: Duration = Duration::from_secs(300);

/// Signs in to the server at `url` as `plan` says: the new sign-in, not yet kept.
pub(crate) fn sign_in(
    agent: &ureq::Agent,
    sign_in: &SignIn,
    url: &str,
    plan: &Plan,
) -> Result<Entry, String> {
    // A client id that is the https:// address of its metadata is one only a server that
    // takes such documents knows; any other registers the client as if none was declared.
    let declared = sign_in
        .client
        .as_ref()
        .filter(|declared| plan.metadata_documents || !declared.id.starts_with("https://"))
        .map(|declared| Client::declared(declared, plan));
    let machine = |grant: &str| plan.grant_types.iter().any(|g| g == grant);
    let proves = |c: &&Client| c.secret.is_some() || c.key.is_some();
    if declared.as_ref().filter(proves).is_some() {
        let pinned = sign_in.client.as_ref().and_then(|c| c.issuer.as_deref());
        may_prove_to(pinned, &plan.issuer, url, &sign_in.name)?;
    }
    if let Some(client) = declared.as_ref().filter(proves) {
        if machine("client_credentials") && !machine("authorization_code") {
            let mut form = vec![
                ("grant_type", "client_credentials"),
                ("resource", plan.resource.as_str()),
            ];
            form.extend(plan.scope.as_deref().map(|scope| ("scope", scope)));
            let tokens = token::request(agent, &plan.token_endpoint, client, &form)?;
            return Ok(entry(url, plan, client.clone(), tokens));
        }
    }
    let visit = sign_in.visit.as_ref().ok_or_else(|| sign_in.needed())?;
    let pkce = Pkce::new()?;
    let who = format!("the MCP server {}", sign_in.name);
    let callback = Callback::start(0, pkce.state.clone(), &std::env::temp_dir(), &who)
        .map_err(|e| format!("cannot listen on 127.0.0.1 for the sign-in's answer: {e}"))?;
    let redirect_uri = format!("http://127.0.0.1:{}/callback", callback.port());
    let client = match declared {
        Some(client) => client,
        None => register::register(agent, plan, &redirect_uri)?,
    };
    let address = authorize_url(plan, &client, &redirect_uri, &pkce);
    visit(&address, callback.port())?;
    let code = wait(&callback)?;
    drop(callback);
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", redirect_uri.as_str()),
        ("code_verifier", pkce.verifier.as_str()),
        ("resource", plan.resource.as_str()),
    ];
    let tokens = token::request(agent, &plan.token_endpoint, &client, &form)?;
    Ok(entry(url, plan, client, tokens))
}

/// Whether the secret or key declared for server `name` (at `url`) may go to the
/// authorization server `issuer`: the one its `"issuer"` names (`pinned`), else one on the
/// server's own host. A server (or whoever answers at its address) names the authorization server itself,
/// and one of its own choosing would otherwise receive the secret at its token endpoint.
pub(super) fn may_prove_to(
    pinned: Option<&str>,
    issuer: &str,
    url: &str,
    name: &str,
) -> Result<(), String> {
    match pinned {
        Some(pinned) if same_issuer(pinned, issuer) => Ok(()),
        Some(pinned) => Err(format!(
            "the MCP server {name} sends Marvin to sign in at {issuer}, not at the \"issuer\" its \"oauth\" in mcp.json names ({pinned}), the only authorization server the client secret or key declared there goes to. If the server has moved to {issuer} and you trust it, change that \"issuer\"."
        )),
        None if host(issuer).is_some() && host(issuer) == host(url) => Ok(()),
        None => Err(format!(
            "the MCP server {name} sends Marvin to sign in at {issuer}, which is not on the server's own host, and the client secret or key declared for it in mcp.json goes only to an authorization server there or to the one its \"oauth\" names as \"issuer\". If you trust {issuer} with them, add \"issuer\": \"{issuer}\" to its \"oauth\"."
        )),
    }
}

/// Whether `pinned` names the authorization server `issuer`: the same address, or its
/// origin alone.
pub(super) fn same_issuer(pinned: &str, issuer: &str) -> bool {
    match (split(pinned), split(issuer)) {
        (Some((origin, path)), Some((theirs, their_path))) => {
            origin == theirs && (path.is_empty() || path == their_path)
        }
        _ => false,
    }
}

/// The host of an http(s) address, lowercase.
fn host(url: &str) -> Option<String> {
    let uri: ureq::http::Uri = url.parse().ok()?;
    uri.host().map(str::to_ascii_lowercase)
}

fn entry(url: &str, plan: &Plan, client: Client, tokens: Tokens) -> Entry {
    Entry {
        url: url.to_string(),
        resource: plan.resource.clone(),
        token_endpoint: plan.token_endpoint.clone(),
        client,
        issuer: plan.issuer.clone(),
        access_token: tokens.access,
        refresh_token: tokens.refresh,
        expires_at: tokens.expires_at,
        scope: tokens.scope.or_else(|| plan.scope.clone()),
    }
}

/// The authorization endpoint with the client, the challenge, the state, the resource and
/// the scope (left out when there is none to ask for).
fn authorize_url(plan: &Plan, client: &Client, redirect_uri: &str, pkce: &Pkce) -> String {
    let mut pairs = vec![
        ("response_type", "code"),
        ("client_id", client.id.as_str()),
        ("redirect_uri", redirect_uri),
        ("code_challenge", pkce.challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", pkce.state.as_str()),
        ("resource", plan.resource.as_str()),
    ];
    pairs.extend(plan.scope.as_deref().map(|scope| ("scope", scope)));
    let joiner = match plan.authorization_endpoint.contains('?') {
        true => '&',
        false => '?',
    };
    format!(
        "{}{joiner}{}",
        plan.authorization_endpoint,
        encode_pairs(&pairs)
    )
}

/// The code from the callback, or why there is none.
fn wait(callback: &Callback) -> Result<String, String> {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "nobody signed in within {} minutes",
                WAIT.as_secs() / 60
            ));
        }
        match callback.wait(left) {
            Some(Answer::Code(code)) => return Ok(code),
            Some(Answer::Refused(error)) => {
                return Err(format!(
                    "the authorization server did not sign Marvin in ({error})"
                ));
            }
            None => {}
        }
    }
}

/// A `Visit` for a person: the browser opened on the address when one can be, else the
/// address printed (with the `ssh -L` line over SSH), as the interview's form is shown.
pub(crate) fn browser(surface: crate::config::FormSurface) -> Visit {
    std::sync::Arc::new(move |address: &str, port: u16| {
        match surface.show(address, port) {
            None => eprintln!(
                "Opened the sign-in page in the browser. If it did not appear, open:\n    {address}"
            ),
            Some(why) => eprintln!("{why}\nOpen this address to sign in:\n    {address}"),
        }
        eprintln!(
            "Waiting for the sign-in (up to {} minutes)…",
            WAIT.as_secs() / 60
        );
        Ok(())
    })
}
