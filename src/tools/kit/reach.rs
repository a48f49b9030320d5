//! Reaching the model's addresses: the guard a web tool's requests go through (what
//! MARVIN_WEB_ALLOW names, the grants the person gave, what they allowed for this call), and the
//! question put to the person, in every permission mode, when a request meets an address of
//! their own machine or network; without anyone to ask, the sentence that says how to allow it.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use crate::interact::approvals::{Action, ActionKind};
use crate::net::{Failure, FilterProxy, Guard, Refusal, Transport};
use crate::tools::ToolContext;

/// How many addresses one call asks about at most (a redirect through several of the
/// person's hosts) before it gives up.
const MAX_ASKS: usize = 5;

/// The model's address, reached for one call of `tool`.
pub(crate) struct Reach<'a> {
    ctx: &'a ToolContext,
    tool: &'static str,
    /// The `host:port`s the person allowed for this call alone.
    once: Arc<Mutex<HashSet<String>>>,
}

impl<'a> Reach<'a> {
    pub(crate) fn new(ctx: &'a ToolContext, tool: &'static str) -> Self {
        Self {
            ctx,
            tool,
            once: Arc::default(),
        }
    }

    /// The guard of this call's requests. It reads the grants and this call's answers as it
    /// checks, so what the person allows holds at once.
    pub(crate) fn guard(&self) -> Guard {
        let allow = self.ctx.settings.web.settings().allow.clone();
        let shared = Arc::clone(&self.ctx.shared);
        let once = Arc::clone(&self.once);
        Guard::new(move |host, addr| {
            let place = place(host, addr.port());
            allow.allows(host, addr)
                || lock(&once).contains(&place)
                || shared.grants.granted(&checked(&place, addr))
        })
    }

    /// Runs `attempt` until the guard lets it through: each refusal is asked about, and what
    /// the person allows holds for the next attempt. A "no", or nobody to ask, ends it with
    /// the sentence for the model as the failure's answer.
    pub(crate) fn attempts<T>(
        &self,
        mut attempt: impl FnMut() -> Result<T, Failure<String>>,
    ) -> Result<T, Failure<String>> {
        for _ in 0..MAX_ASKS {
            match attempt() {
                Err(Failure::Transport(Transport::Guarded(refusal))) => {
                    self.ask(&refusal).map_err(Failure::Answer)?;
                }
                other => return other,
            }
        }
        Err(Failure::Answer(self.too_many()))
    }

    /// A filtering proxy for a program that fetches the model's `url` itself (Chromium,
    /// yt-dlp), checking with this call's guard as it connects; `url` is asked about first,
    /// while the person can answer.
    pub(crate) fn program_proxy(&self, url: &str) -> Result<FilterProxy, String> {
        let web = &self.ctx.settings.web;
        self.before(url, web.proxy_for(url).is_some())?;
        let idle = web.settings().timeout;
        FilterProxy::start(self.guard(), web.proxy_rules().clone(), idle).map_err(|e| {
            format!(
                "Could not start the proxy {} goes through: {e}. Try again.",
                self.tool
            )
        })
    }

    /// Before a program fetches `url` itself: its host's addresses checked, and asked about.
    fn before(&self, url: &str, proxied: bool) -> Result<(), String> {
        let guard = self.guard();
        for _ in 0..MAX_ASKS {
            match guard.check_url(url, proxied) {
                Ok(()) => return Ok(()),
                Err(refusal) => self.ask(&refusal)?,
            }
        }
        Err(self.too_many())
    }

    fn too_many(&self) -> String {
        format!(
            "{} met more than {MAX_ASKS} addresses of the person's own machine or network and stopped; ask the person which address to use.",
            self.tool
        )
    }

    /// Asks the person about `refusal`; `Ok` when they allowed it, from then on for this
    /// call (and longer, as they chose).
    pub(crate) fn ask(&self, refusal: &Refusal) -> Result<(), String> {
        if self.ctx.interactor.is_none() {
            return Err(nobody_to_ask(self.tool, refusal));
        }
        let place = place(&refusal.host, refusal.addr.port());
        self.ctx.approve_in_every_mode(Action {
            tool: self.tool.into(),
            kind: ActionKind::Act,
            key: format!("web:{place}"),
            scope: Some((
                format!("web:{place}"),
                format!("web tools reaching {place}"),
            )),
            summary: format!("{} wants to reach this machine or your network:", self.tool),
            detail: format!(
                "{} leads to {}, {}",
                refusal.url,
                refusal.addr,
                refusal.own.describe()
            ),
        })?;
        lock(&self.once).insert(place);
        Ok(())
    }
}

/// What the model is told when nobody can approve `refusal`.
pub(crate) fn nobody_to_ask(tool: &str, refusal: &Refusal) -> String {
    format!(
        "{tool} did not reach {}: its address {refusal}, and web tools reach the person's own machine or network only with their approval, which nobody is here to give. To allow it, the person sets MARVIN_WEB_ALLOW={} and runs Marvin again; otherwise use a public address.",
        refusal.url,
        refusal.allow_entry()
    )
}

/// What a program's filtering proxy kept `what` (the page, yt-dlp) from, as a note after the
/// result; empty when nothing.
pub(crate) fn kept_note(what: &str, refused: &[Refusal]) -> String {
    if refused.is_empty() {
        return String::new();
    }
    let places: Vec<String> = refused.iter().map(Refusal::to_string).collect();
    let entries: Vec<String> = refused.iter().map(Refusal::allow_entry).collect();
    format!(
        "\n\n[Marvin kept {what} from reaching the person's own machine or network: {}. If {what} needs it, the person can allow it with MARVIN_WEB_ALLOW={}.]",
        places.join("; "),
        entries.join(",")
    )
}

/// `host:port` as a grant names it: the host as the URL writes it.
fn place(host: &str, port: u16) -> String {
    format!("{}:{port}", host.to_ascii_lowercase())
}

/// The action a grant must cover for a request to `place` that connects to `addr`: a grant
/// of the place (how the person was asked) or of the address itself (`127.0.0.1:8080` covers
/// `http://2130706433:8080`).
fn checked(place: &str, addr: SocketAddr) -> Action {
    Action {
        tool: String::new(),
        kind: ActionKind::Act,
        key: format!("web:{addr}"),
        scope: Some((format!("web:{place}"), String::new())),
        summary: String::new(),
        detail: String::new(),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::Scope;

    fn refusal(host: &str, addr: &str) -> Refusal {
        let guard = Guard::new(|_, _| false);
        let addr: SocketAddr = addr.parse().unwrap();
        guard
            .check(&format!("http://{host}:{}/x", addr.port()), host, addr)
            .unwrap_err()
    }

    #[test]
    fn without_anyone_to_ask_the_model_is_told_how_to_allow_it() {
        let ctx = ToolContext::new(std::path::PathBuf::from("/"));
        let reach = Reach::new(&ctx, "browse_web");
        assert_eq!(
            reach.ask(&refusal("localhost", "[::1]:3000")).unwrap_err(),
            "browse_web did not reach http://localhost:3000/x: its address [::1]:3000 is this machine (loopback), and web tools reach the person's own machine or network only with their approval, which nobody is here to give. To allow it, the person sets MARVIN_WEB_ALLOW=localhost:3000 and runs Marvin again; otherwise use a public address."
        );
    }

    #[test]
    fn grants_of_the_place_or_of_the_address_let_requests_through() {
        let ctx = ToolContext::new(std::path::PathBuf::from("/"));
        let reach = Reach::new(&ctx, "browse_web");
        let guard = reach.guard();
        let loopback: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let url = "http://x/";
        assert!(guard.check(url, "localhost", loopback).is_err());
        let grant = |key: &str| {
            let action = Action {
                key: key.into(),
                scope: None,
                ..checked("", loopback)
            };
            ctx.shared.grants.grant(&action, Scope::Session).unwrap();
        };
        grant("web:localhost:8080");
        assert!(guard.check(url, "localhost", loopback).is_ok());
        assert!(guard.check(url, "LocalHost", loopback).is_ok());
        assert!(guard.check(url, "2130706433", loopback).is_err());
        assert!(
            guard
                .check(url, "localhost", "127.0.0.1:8081".parse().unwrap())
                .is_err()
        );
        grant("web:127.0.0.1:8080");
        assert!(guard.check(url, "2130706433", loopback).is_ok());
        assert!(
            guard
                .check(
                    url,
                    "0x7f000001",
                    "[::ffff:127.0.0.1]:8080".parse().unwrap()
                )
                .is_ok()
        );
        assert!(
            guard
                .check(url, "x", "10.0.0.1:8080".parse().unwrap())
                .is_err()
        );
        lock(&reach.once).insert("x:8080".into());
        assert!(
            guard
                .check(url, "x", "10.0.0.1:8080".parse().unwrap())
                .is_ok()
        );
    }
}
