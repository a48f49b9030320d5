//! Network plumbing shared by the model clients (`llm/`) and the tools: one kind of HTTP agent
//! (User-Agent, proxy, timeouts), the cancel-aware exchange, per-host politeness, bounded
//! bodies, multipart uploads, server-sent events (model streams, MCP over HTTP), transport failures classified, and credentials kept out of every error. A leaf: it
//! uses nothing of Marvin's but the cancel token. `guard` checks the addresses the model
//! chose (Marvin's own requests and the filtering proxy programs go through); `whatwg` reads
//! a URL's host as browsers do.

mod agent;
mod body;
mod client;
mod guard;
mod multipart;
mod pace;
mod probe;
mod redact;
mod response;
pub(crate) mod sse;
#[cfg(test)]
mod sse_conformance;
#[cfg(test)]
mod sse_props;
mod transport;
mod url;
pub(crate) mod whatwg;

pub(crate) use agent::{CONNECT_TIMEOUT, ProxyRules, user_agent};
pub(crate) use body::{BodyError, read_bytes, read_start, read_text};
pub(crate) use client::{Client, Failure, Response};
pub use guard::AllowList;
pub(crate) use guard::{FilterProxy, Guard, Refusal};
pub(crate) use multipart::Multipart;
pub(crate) use probe::get_json;
pub(crate) use redact::{Redact, Secrets};
pub(crate) use response::{header, is_html, is_success};
pub(crate) use transport::{Phase, Transport};
#[cfg(test)]
pub(crate) use url::url_userinfo;
pub(crate) use url::{host_of, is_loopback, port_of, without_userinfo};
