//! A quick look at a local server: one GET with a hard deadline, no proxy (loopback only), for
//! finding a model server on this machine when nothing is set up.

use std::time::Duration;

use serde_json::Value;

/// The JSON `url` answers with a 2xx status within `within`, or `None`.
pub(crate) fn get_json(url: &str, within: Duration) -> Option<Value> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .user_agent(super::agent::user_agent())
        .accept_encoding("")
        .timeout_global(Some(within))
        .build()
        .into();
    let mut response = agent.get(url).call().ok()?;
    if !response.status().is_success() {
        return None;
    }
    let body = response
        .body_mut()
        .with_config()
        .limit(1 << 20)
        .read_to_vec()
        .ok()?;
    serde_json::from_slice(&body).ok()
}
