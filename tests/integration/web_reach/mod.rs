//! The web tools and the person's own machine and network (security finding III.7): an
//! address the model chose that leads to loopback, a private network, link-local (cloud
//! metadata) or an unspecified address is reached only with the person's approval or
//! MARVIN_WEB_ALLOW, whatever its spelling, after a redirect, and from Chromium's page too.

mod asked;
mod chromium;
mod proxied;
mod refused;
mod yt_dlp;

use crate::common::tools::reply;
use crate::common::{ReplayServer, Reply};

/// What no tool may read unasked: a service on loopback that tells its secret to anyone,
/// cross-origin pages included.
pub fn secret_service() -> ReplayServer {
    ReplayServer::answering(|_| secret()).expecting_no_calls()
}

pub fn secret() -> Reply {
    reply(200, "text/plain", "the secret is 4242").header("Access-Control-Allow-Origin", "*")
}

/// A service the person allows (by MARVIN_WEB_ALLOW) whose paths redirect to `target`:
/// `/page` is its own page, `/to/<path>` answers 302 to `<target><path>`.
pub fn redirecting_to(target: String) -> ReplayServer {
    ReplayServer::answering(move |request| match request.url.strip_prefix("/to") {
        Some(path) => {
            reply(302, "text/plain", "moved").header("Location", &format!("{target}{path}"))
        }
        None => reply(200, "text/plain", "an allowed page"),
    })
}

/// The sentence a call gets when nobody can approve `url`, which leads to `address` on this
/// machine.
pub fn refused(tool: &str, url: &str, address: &str) -> String {
    format!(
        "Error: {tool} did not reach {url}: its address {address} is this machine (loopback), and web tools reach the person's own machine or network only with their approval, which nobody is here to give. To allow it, the person sets MARVIN_WEB_ALLOW={address} and runs Marvin again; otherwise use a public address."
    )
}
