//! Finding where to sign in for an MCP server: its protected-resource metadata (RFC 9728: the
//! address its 401 names, else the well-known paths under its origin), the authorization
//! server it names and that server's metadata (RFC 8414, then OpenID discovery, path-aware),
//! and the 2025-03-26 way for a server without them: its own origin as the authorization
//! server, `/authorize`, `/token` and `/register` there when it has no metadata either. The
//! metadata's `resource` must be the server itself: a server cannot get Marvin to sign in for
//! another one.

use serde_json::Value;

use super::challenge::Challenge;
use super::get_json;

/// Where and how to sign in.
#[derive(Debug, PartialEq)]
pub(crate) struct Plan {
    /// What the token is for (RFC 8707's `resource`).
    pub(crate) resource: String,
    /// The authorization server (the audience of a client's signed assertion).
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    pub(crate) auth_methods: Vec<String>,
    pub(crate) grant_types: Vec<String>,
    /// The scope to ask for: the challenge's, else all the server supports, else none.
    pub(crate) scope: Option<String>,
    /// Whether the server takes a client id that is the https:// address of the client's
    /// metadata (a Client ID Metadata Document, SEP-991).
    pub(crate) metadata_documents: bool,
}

/// The plan for the server at `url`, from `challenge` (its 401 or 403) and the metadata found.
pub(crate) fn discover(
    agent: &ureq::Agent,
    url: &str,
    challenge: &Challenge,
) -> Result<Plan, String> {
    let (origin, path) = split(url).ok_or_else(|| format!("{url} is not an http(s) address"))?;
    let mut protected = None;
    // Metadata decides where secrets go: none is read in the clear from an https server.
    let addresses = resource_metadata_urls(&origin, &path, challenge);
    for address in addresses.iter().filter(|a| protected_enough(a, url)) {
        if let Some(found) = get_json(agent, address)? {
            protected = Some(found);
            break;
        }
    }
    let (resource, issuer, supported) = match &protected {
        Some(metadata) => {
            let resource = metadata["resource"].as_str().unwrap_or_default();
            if !same_resource(resource, url) {
                return Err(format!(
                    "its metadata says it is {resource:?}, not {url}: Marvin does not sign in \
                     for another address"
                ));
            }
            let issuer = metadata
                .pointer("/authorization_servers/0")
                .and_then(Value::as_str);
            let issuer = issuer.ok_or("its metadata names no authorization server")?;
            (
                resource.to_string(),
                issuer.to_string(),
                words(&metadata["scopes_supported"]),
            )
        }
        None => (
            url.split('#').next().unwrap_or(url).to_string(),
            origin,
            Vec::new(),
        ),
    };
    let (issuer_origin, issuer_path) = split(&issuer)
        .ok_or_else(|| format!("its authorization server {issuer:?} is not an http(s) address"))?;
    if !protected_enough(&issuer, url) {
        return Err(format!(
            "its authorization server {issuer} is not https://, and its metadata could be \
             changed on the way"
        ));
    }
    let mut metadata = None;
    for address in server_metadata_urls(&issuer_origin, &issuer_path) {
        if let Some(found) = get_json(agent, &address)? {
            metadata = Some(found);
            break;
        }
    }
    let scope = challenge
        .scope
        .clone()
        .or_else(|| (!supported.is_empty()).then(|| supported.join(" ")));
    // RFC 8414 §3.3: the metadata is the issuer's own. Its origin at least must be the one it
    // was read from, or another server's metadata could send a client's assertions for it.
    let named = metadata.as_ref().and_then(|m| m["issuer"].as_str());
    if let Some(named) = named.filter(|n| split(n).is_none_or(|(o, _)| o != issuer_origin)) {
        return Err(format!(
            "its authorization server at {issuer_origin} says it is {named:?}: Marvin does not \
             sign in where the metadata names another server"
        ));
    }
    let mut plan = plan(resource, &issuer_origin, metadata.as_ref(), scope);
    plan.issuer = metadata
        .as_ref()
        .and_then(|m| m["issuer"].as_str())
        .unwrap_or(&issuer)
        .to_string();
    let endpoints = [&plan.authorization_endpoint, &plan.token_endpoint];
    let endpoints = endpoints.into_iter().chain(&plan.registration_endpoint);
    let endpoints: Vec<&String> = endpoints.collect();
    // An endpoint is printed for the person to open: no control characters (a terminal's
    // escape sequences) come from a server's metadata.
    if let Some(odd) = endpoints.iter().find(|e| e.chars().any(char::is_control)) {
        return Err(format!(
            "its authorization server names an endpoint with control characters in it ({}); \
             ask the server's operator to fix its metadata",
            odd.escape_debug()
        ));
    }
    if let Some(plain) = endpoints.into_iter().find(|e| !protected_enough(e, url)) {
        return Err(format!(
            "its authorization server's endpoint {plain} is not https://, and secrets would \
             cross the network in the clear"
        ));
    }
    Ok(plan)
}

/// The endpoints of `metadata`, or the 2025-03-26 defaults at `origin` without any.
fn plan(resource: String, origin: &str, metadata: Option<&Value>, scope: Option<String>) -> Plan {
    let Some(metadata) = metadata else {
        return Plan {
            resource,
            issuer: origin.to_string(),
            authorization_endpoint: format!("{origin}/authorize"),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            auth_methods: Vec::new(),
            grant_types: Vec::new(),
            scope,
            metadata_documents: false,
        };
    };
    let text = |name: &str| metadata[name].as_str().map(str::to_string);
    Plan {
        resource,
        issuer: origin.to_string(),
        authorization_endpoint: text("authorization_endpoint")
            .unwrap_or_else(|| format!("{origin}/authorize")),
        token_endpoint: text("token_endpoint").unwrap_or_else(|| format!("{origin}/token")),
        registration_endpoint: text("registration_endpoint"),
        auth_methods: words(&metadata["token_endpoint_auth_methods_supported"]),
        grant_types: words(&metadata["grant_types_supported"]),
        scope,
        metadata_documents: metadata["client_id_metadata_document_supported"] == true,
    }
}

fn words(value: &Value) -> Vec<String> {
    let list = value.as_array().map(Vec::as_slice).unwrap_or_default();
    list.iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// `scheme://host[:port]` (lowercase, no user) and the path (no trailing `/`, no query).
pub(crate) fn split(url: &str) -> Option<(String, String)> {
    let uri: ureq::http::Uri = url.parse().ok()?;
    let scheme = uri
        .scheme_str()
        .filter(|s| matches!(*s, "http" | "https"))?;
    let host = uri.host()?.to_ascii_lowercase();
    let origin = match uri.port_u16() {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    };
    Some((origin, uri.path().trim_end_matches('/').to_string()))
}

/// Where the protected-resource metadata may be, in order: the address the challenge names,
/// then the well-known path with the server's path, then without it (RFC 9728 §3.1).
pub(crate) fn resource_metadata_urls(
    origin: &str,
    path: &str,
    challenge: &Challenge,
) -> Vec<String> {
    let mut urls: Vec<String> = challenge.resource_metadata.iter().cloned().collect();
    if !path.is_empty() {
        urls.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
    urls
}

/// Where an authorization server's metadata may be (RFC 8414 §3.1, then OpenID discovery in
/// both of its placements for an issuer with a path).
pub(crate) fn server_metadata_urls(origin: &str, path: &str) -> Vec<String> {
    if path.is_empty() {
        return vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ];
    }
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
    ]
}

/// Whether secrets may go to `endpoint`: over https://, or to this machine, or in the clear
/// as the person chose for the server at `url` itself (declared with http://).
pub(crate) fn protected_enough(endpoint: &str, url: &str) -> bool {
    let loopback = |address: &str| {
        let uri = address.parse::<ureq::http::Uri>().ok();
        let host = uri.as_ref().and_then(|uri| uri.host()).unwrap_or_default();
        matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "::1")
    };
    endpoint.starts_with("https://")
        || (endpoint.starts_with("http://") && (loopback(endpoint) || url.starts_with("http://")))
}

/// Whether `resource` is the server at `url`: the same origin, and a path `url`'s is or lies
/// under.
pub(crate) fn same_resource(resource: &str, url: &str) -> bool {
    let (Some((origin, path)), Some((server, under))) = (split(resource), split(url)) else {
        return false;
    };
    origin == server && (under == path || under.starts_with(&format!("{path}/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_resource_metadata_is_looked_for_where_rfc_9728_says() {
        let named = Challenge {
            resource_metadata: Some("https://a.example/custom/metadata.json".into()),
            ..Challenge::default()
        };
        let (origin, path) = split("https://A.example:8443/v1/mcp/?x=1").unwrap();
        assert_eq!(
            (origin.as_str(), path.as_str()),
            ("https://a.example:8443", "/v1/mcp")
        );
        assert_eq!(
            resource_metadata_urls(&origin, &path, &named),
            [
                "https://a.example/custom/metadata.json",
                "https://a.example:8443/.well-known/oauth-protected-resource/v1/mcp",
                "https://a.example:8443/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            resource_metadata_urls("http://h", "", &Challenge::default()),
            ["http://h/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn authorization_server_metadata_is_looked_for_with_its_path() {
        assert_eq!(
            server_metadata_urls("https://auth.example", ""),
            [
                "https://auth.example/.well-known/oauth-authorization-server",
                "https://auth.example/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            server_metadata_urls("https://auth.example", "/tenant1"),
            [
                "https://auth.example/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example/.well-known/openid-configuration/tenant1",
                "https://auth.example/tenant1/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn a_resource_is_the_server_or_a_path_above_it_on_its_origin() {
        let cases = [
            (
                "http://localhost:3000/mcp",
                "http://localhost:3000/mcp",
                true,
            ),
            ("http://localhost:3000", "http://localhost:3000/mcp", true),
            ("http://localhost:3000/", "http://localhost:3000/mcp", true),
            (
                "https://evil.example.com/mcp",
                "http://localhost:3000/mcp",
                false,
            ),
            (
                "http://localhost:3001/mcp",
                "http://localhost:3000/mcp",
                false,
            ),
            (
                "https://localhost:3000/mcp",
                "http://localhost:3000/mcp",
                false,
            ),
            (
                "http://localhost:3000/mc",
                "http://localhost:3000/mcp",
                false,
            ),
            (
                "http://localhost:3000/mcp/other",
                "http://localhost:3000/mcp",
                false,
            ),
            ("", "http://localhost:3000/mcp", false),
        ];
        for (resource, url, same) in cases {
            assert_eq!(same_resource(resource, url), same, "{resource} for {url}");
        }
    }

    #[test]
    fn secrets_go_over_https_or_stay_on_this_machine() {
        let cases = [
            (
                "https://auth.example/token",
                "https://mcp.example/mcp",
                true,
            ),
            (
                "http://auth.example/token",
                "https://mcp.example/mcp",
                false,
            ),
            (
                "http://localhost:9000/token",
                "https://mcp.example/mcp",
                true,
            ),
            ("http://127.0.0.1/token", "https://mcp.example/mcp", true),
            ("http://[::1]:8/token", "https://mcp.example/mcp", true),
            ("http://[::1]/token", "https://mcp.example/mcp", true),
            (
                "http://localhost.evil.example/token",
                "https://mcp.example/mcp",
                false,
            ),
            ("http://auth.example/token", "http://mcp.example/mcp", true),
            ("ftp://auth.example/token", "http://mcp.example/mcp", false),
        ];
        for (endpoint, url, allowed) in cases {
            assert_eq!(
                protected_enough(endpoint, url),
                allowed,
                "{endpoint} for {url}"
            );
        }
    }

    #[test]
    fn without_metadata_the_2025_03_26_endpoints_are_at_the_origin() {
        let plan = plan("http://h:1/mcp".into(), "http://h:1", None, None);
        assert_eq!(plan.authorization_endpoint, "http://h:1/authorize");
        assert_eq!(plan.token_endpoint, "http://h:1/token");
        assert_eq!(
            plan.registration_endpoint.as_deref(),
            Some("http://h:1/register")
        );
    }
}
