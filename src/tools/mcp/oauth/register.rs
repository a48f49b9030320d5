//! Who Marvin is to an authorization server: a client registered on the spot (RFC 7591) where
//! the server offers that, or the one declared in mcp.json; and how it proves it at the token
//! endpoint (`client_secret_basic`, `client_secret_post` or `none`, as the server supports).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::discover::Plan;
use super::{post, said};
use crate::config::OAuthClient;

/// A client of the authorization server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Client {
    pub(crate) id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post`, `private_key_jwt` or `none`.
    pub(crate) method: String,
    /// For `private_key_jwt`: the declared key (never kept with the tokens) and the audience
    /// of the assertions it signs.
    #[serde(skip)]
    pub(crate) key: Option<(String, String)>,
}

impl Client {
    /// A client declared in mcp.json, proving itself as the server supports: with its key
    /// where the server takes signed assertions, else with its secret.
    pub(crate) fn declared(declared: &OAuthClient, plan: &Plan) -> Client {
        let signs = plan.auth_methods.iter().any(|m| m == "private_key_jwt");
        let key = declared.key.clone().filter(|_| signs);
        let method = match key {
            Some(_) => "private_key_jwt",
            None => method(&plan.auth_methods, declared.secret.is_some()),
        };
        Client {
            id: declared.id.clone(),
            secret: declared.secret.clone(),
            method: method.to_string(),
            key: key.map(|key| (key, plan.issuer.clone())),
        }
    }
}

/// The way to prove a client at the token endpoint, from what the server supports (RFC 8414:
/// `client_secret_basic` when it says nothing).
pub(crate) fn method(supported: &[String], has_secret: bool) -> &'static str {
    let offers = |name: &str| supported.iter().any(|m| m == name);
    if !has_secret {
        return "none";
    }
    if supported.is_empty() || offers("client_secret_basic") {
        "client_secret_basic"
    } else if offers("client_secret_post") {
        "client_secret_post"
    } else {
        "none"
    }
}

/// Registers Marvin with `redirect_uri` at the plan's registration endpoint.
pub(crate) fn register(
    agent: &ureq::Agent,
    plan: &Plan,
    redirect_uri: &str,
) -> Result<Client, String> {
    let Some(endpoint) = &plan.registration_endpoint else {
        return Err(
            "its authorization server takes no registrations, and mcp.json declares no \
                    client for it: add \"oauth\": {\"clientId\": …} to its entry"
                .into(),
        );
    };
    // A public client unless the server only takes secrets.
    let asked = match plan.auth_methods.iter().any(|m| m == "none") || plan.auth_methods.is_empty()
    {
        true => "none",
        false => method(&plan.auth_methods, true),
    };
    let mut body = json!({
        "client_name": "Marvin",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": asked,
    });
    if let Some(scope) = &plan.scope {
        body["scope"] = scope.as_str().into();
    }
    let request = agent
        .post(endpoint)
        .header("Content-Type", "application/json");
    let (status, answer) = post(request, body.to_string(), endpoint)?;
    let id = answer["client_id"].as_str().filter(|_| status < 300);
    let Some(id) = id else {
        return Err(format!(
            "registering with {endpoint} failed ({})",
            said(status, &answer)
        ));
    };
    let secret = answer["client_secret"].as_str().map(str::to_string);
    let method = answer["token_endpoint_auth_method"]
        .as_str()
        .unwrap_or(asked)
        .to_string();
    let method = match (secret.is_some(), method.as_str()) {
        (false, _) => "none".to_string(),
        (true, "none") => self::method(&plan.auth_methods, true).to_string(),
        (true, _) => method,
    };
    Ok(Client {
        id: id.to_string(),
        secret,
        method,
        key: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proof_is_one_the_server_supports() {
        let list = |methods: &[&str]| methods.iter().map(|m| m.to_string()).collect::<Vec<_>>();
        let cases: &[(&[&str], bool, &str)] = &[
            (&[], true, "client_secret_basic"),
            (&[], false, "none"),
            (&["client_secret_post"], true, "client_secret_post"),
            (&["client_secret_basic"], true, "client_secret_basic"),
            (
                &["client_secret_post", "client_secret_basic"],
                true,
                "client_secret_basic",
            ),
            (&["none"], true, "none"),
            (&["client_secret_post"], false, "none"),
            (&["private_key_jwt"], true, "none"),
        ];
        for (supported, secret, expected) in cases {
            assert_eq!(
                method(&list(supported), *secret),
                *expected,
                "{supported:?} {secret}"
            );
        }
    }
}
