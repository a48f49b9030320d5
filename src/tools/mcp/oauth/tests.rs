//! The sign-in through Marvin's own MCP client against two local servers on two origins, an
//! MCP server that asks for a sign-in and its authorization server: the tokens kept private,
//! renewed when expired, and the access token seen by the MCP server alone.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};
use tiny_http::{Header, Response};

use super::{SignIn, sign_in_needed};
use crate::config::OAuthClient;
use crate::test_support::TempDir;
use crate::tools::mcp::server::{Server, State};

/// One request a local server saw: its method, path, Authorization header and body.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    path: String,
    authorization: Option<String>,
    body: String,
}

type Answer = dyn Fn(&Seen, &str) -> (u16, Vec<(&'static str, String)>, String) + Send + Sync;

/// A local server answering each request with `answer` (given the request and its own base).
struct Local {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
}

impl Local {
    fn start(
        answer: impl Fn(&Seen, &str) -> (u16, Vec<(&'static str, String)>, String)
        + Send
        + Sync
        + 'static,
    ) -> Local {
        Local::start_at("127.0.0.1", answer)
    }

    /// A server on `host`, another loopback address for a server on another host.
    fn start_at(
        host: &str,
        answer: impl Fn(&Seen, &str) -> (u16, Vec<(&'static str, String)>, String)
        + Send
        + Sync
        + 'static,
    ) -> Local {
        let server = Arc::new(tiny_http::Server::http(format!("{host}:0")).unwrap());
        let base = format!("http://{}", server.server_addr().to_ip().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let answer: Arc<Answer> = Arc::new(answer);
        let (listening, log, own) = (server.clone(), seen.clone(), base.clone());
        let thread = std::thread::spawn(move || {
            for mut request in listening.incoming_requests() {
                let mut body = String::new();
                let _ = request.as_reader().read_to_string(&mut body);
                let authorization = request
                    .headers()
                    .iter()
                    .find(|h| h.field.equiv("authorization"))
                    .map(|h| h.value.to_string());
                let one = Seen {
                    method: request.method().to_string(),
                    path: request.url().to_string(),
                    authorization,
                    body,
                };
                log.lock().unwrap().push(one.clone());
                let (status, headers, text) = answer(&one, &own);
                let mut response = Response::from_string(text).with_status_code(status);
                for (name, value) in headers {
                    response.add_header(Header::from_bytes(name, value).unwrap());
                }
                let _ = request.respond(response);
            }
        });
        Local {
            base,
            seen,
            server,
            thread: Some(thread),
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn json_answer(value: Value) -> (u16, Vec<(&'static str, String)>, String) {
    let kind = ("Content-Type", "application/json".to_string());
    (200, vec![kind], value.to_string())
}

/// An authorization server: metadata, registration, an authorization endpoint that signs the
/// user in at once, and tokens: `at-1` (already expired) with `rt-1`, then `at-2` for it.
fn authorization_server() -> Local {
    Local::start(|seen, base| {
        let path = seen.path.split('?').next().unwrap_or_default();
        match path {
            "/.well-known/oauth-authorization-server" => json_answer(json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "token_endpoint_auth_methods_supported": ["none"],
            })),
            "/register" => json_answer(json!({"client_id": "c-1"})),
            "/authorize" => {
                let query = seen.path.split_once('?').unwrap().1;
                let param = |name| crate::web::query_param(query, name).unwrap();
                let back = crate::tools::kit::web::percent_decode(&param("redirect_uri"));
                let state = param("state");
                let location = format!("{back}?code=the-code&state={state}");
                (302, vec![("Location", location)], String::new())
            }
            "/token" if seen.body.contains("grant_type=refresh_token") => json_answer(
                json!({"access_token": "at-2", "token_type": "Bearer", "expires_in": 3600}),
            ),
            "/token" => json_answer(json!({
                "access_token": "at-1", "token_type": "Bearer", "expires_in": 0,
                "refresh_token": "rt-1",
            })),
            _ => (404, Vec::new(), String::new()),
        }
    })
}

/// An MCP server that takes `at-2` alone and names `issuer` as its authorization server.
fn mcp_server(issuer: String) -> Local {
    Local::start(move |seen, base| {
        if seen.path == "/.well-known/oauth-protected-resource/mcp" {
            return json_answer(json!({
                "resource": format!("{base}/mcp"),
                "authorization_servers": [issuer],
            }));
        }
        if seen.path != "/mcp" || seen.method != "POST" {
            return (405, Vec::new(), String::new());
        }
        if seen.authorization.as_deref() != Some("Bearer at-2") {
            let challenge = format!(
                r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#
            );
            return (401, vec![("WWW-Authenticate", challenge)], String::new());
        }
        let message: Value = serde_json::from_str(&seen.body).unwrap_or_default();
        let result = match message["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "remote", "version": "1"},
            }),
            "tools/list" => json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
            "server/discover" => {
                let error = json!({"code": -32601, "message": "Method not found"});
                return json_answer(json!({"jsonrpc": "2.0", "id": message["id"], "error": error}));
            }
            _ => return (202, Vec::new(), String::new()),
        };
        json_answer(json!({"jsonrpc": "2.0", "id": message["id"], "result": result}))
    })
}

fn server(url: &str, profile: PathBuf, visit: bool) -> Server {
    declaring(url, profile, visit, None)
}

/// The server at `url` with `client` declared for it in mcp.json.
fn declaring(url: &str, profile: PathBuf, visit: bool, client: Option<OAuthClient>) -> Server {
    let mut config = crate::tools::mcp::conformance::declared("remote", url);
    config.oauth_client = client.clone();
    let sign_in = SignIn {
        name: "remote".into(),
        profile,
        client,
        visit: visit
            .then(|| Arc::new(crate::tools::mcp::conformance::follow_redirect) as super::Visit),
    };
    Server::new(
        config,
        std::env::temp_dir(),
        crate::sandbox::Policy::default(),
        Duration::from_secs(20),
        State::Starting,
        Some(sign_in),
    )
}

#[test]
fn the_access_token_is_kept_private_renewed_and_sent_to_the_mcp_server_alone() {
    let dir = TempDir::new("mcp-oauth");
    let issuer = authorization_server();
    let mcp = mcp_server(issuer.base.clone());
    let url = format!("{}/mcp", mcp.base);
    let remote = server(&url, dir.path().to_path_buf(), true);
    remote.start();
    assert_eq!(remote.state(), State::Ready);
    assert_eq!(remote.tools().len(), 1);
    remote.stop();

    let file = dir.path().join("tokens.json");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let kept: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(
        kept["mcp/remote"]["access_token"], "at-2",
        "renewed and kept"
    );
    assert_eq!(kept["mcp/remote"]["url"], url.as_str());

    let to_issuer = issuer.seen();
    assert!(
        to_issuer
            .iter()
            .any(|s| s.body.contains("grant_type=refresh_token"))
    );
    for seen in &to_issuer {
        let text = format!("{seen:?}");
        assert!(!text.contains("at-1") && !text.contains("at-2"), "{seen:?}");
        assert_eq!(seen.authorization, None, "{seen:?}");
    }
    let to_mcp = mcp.seen();
    let metadata = to_mcp.iter().filter(|s| s.path.starts_with("/.well-known"));
    assert!(metadata.clone().count() > 0);
    assert!(metadata.into_iter().all(|s| s.authorization.is_none()));
    let signed = to_mcp.iter().filter(|s| s.authorization.is_some());
    assert!(
        signed
            .clone()
            .all(|s| s.authorization.as_deref() == Some("Bearer at-2"))
    );
    assert!(signed.count() >= 3, "{to_mcp:?}");

    // The next run starts with the kept sign-in, and without anyone to sign in.
    let again = server(&url, dir.path().to_path_buf(), false);
    again.start();
    assert_eq!(again.state(), State::Ready);
    again.stop();
}

#[test]
fn a_run_reports_a_server_that_needs_a_sign_in_instead_of_waiting() {
    let dir = TempDir::new("mcp-oauth-run");
    let issuer = authorization_server();
    let mcp = mcp_server(issuer.base.clone());
    let remote = server(
        &format!("{}/mcp", mcp.base),
        dir.path().to_path_buf(),
        false,
    );
    remote.start();
    let State::Failed(why) = remote.state() else {
        panic!("{:?}", remote.state());
    };
    assert_eq!(
        sign_in_needed(&why),
        Some("the MCP server remote needs a sign-in: run `marvin mcp login remote`"),
        "{why}"
    );
    assert!(!dir.path().join("tokens.json").exists());
    assert!(
        issuer
            .seen()
            .iter()
            .all(|s| !s.path.starts_with("/authorize"))
    );
}

#[test]
fn an_authorization_server_whose_metadata_names_another_is_not_signed_in_to() {
    let dir = TempDir::new("mcp-oauth-impostor");
    // Its metadata claims to be another server's (RFC 8414 §3.3), as one that collects the
    // assertions a client signs for that server would.
    let impostor = Local::start(|seen, base| match seen.path.as_str() {
        "/.well-known/oauth-authorization-server" => json_answer(json!({
            "issuer": "https://real-as.example",
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
        })),
        _ => json_answer(json!({"client_id": "c-1", "access_token": "at-2"})),
    });
    let mcp = mcp_server(impostor.base.clone());
    let remote = server(&format!("{}/mcp", mcp.base), dir.path().to_path_buf(), true);
    remote.start();
    let State::Failed(why) = remote.state() else {
        panic!("{:?}", remote.state());
    };
    assert!(
        why.contains("says it is \"https://real-as.example\""),
        "{why}"
    );
    let seen = impostor.seen();
    assert!(
        seen.iter().all(|s| s.path.starts_with("/.well-known/")),
        "{seen:?}"
    );
    assert!(!dir.path().join("tokens.json").exists());
}

/// An authorization server for machines (client_credentials with client_secret_basic alone)
/// on another host than the MCP server's: 127.0.0.2.
fn machine_authorization_server() -> Local {
    Local::start_at("127.0.0.2", |seen, base| match seen.path.as_str() {
        "/.well-known/oauth-authorization-server" => json_answer(json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        })),
        "/token" => {
            json_answer(json!({"access_token": "at-2", "token_type": "Bearer", "expires_in": 3600}))
        }
        _ => (404, Vec::new(), String::new()),
    })
}

#[test]
fn a_declared_secret_goes_only_to_an_authorization_server_on_the_servers_host_or_the_pinned_one() {
    let issuer = machine_authorization_server();
    let mcp = mcp_server(issuer.base.clone());
    let url = format!("{}/mcp", mcp.base);
    let client = |pinned: Option<&str>| OAuthClient {
        id: "robot".into(),
        secret: Some("s3cret".into()),
        key: None,
        issuer: pinned.map(Into::into),
    };
    let to_token = |issuer: &Local| {
        let seen = issuer.seen();
        seen.into_iter()
            .filter(|s| s.path == "/token")
            .collect::<Vec<_>>()
    };

    // Named by the server alone, an authorization server on another host gets nothing.
    let dir = TempDir::new("mcp-oauth-pin");
    let remote = declaring(&url, dir.path().into(), false, Some(client(None)));
    remote.start();
    let State::Failed(why) = remote.state() else {
        panic!("{:?}", remote.state());
    };
    let base = &issuer.base;
    let said = format!("the MCP server remote sends Marvin to sign in at {base}, which is not");
    let advice = format!("add \"issuer\": \"{base}\" to its \"oauth\"");
    assert!(why.contains(&said) && why.contains(&advice), "{why}");
    assert!(!why.contains("s3cret"), "{why}");
    assert!(to_token(&issuer).is_empty());

    // Another pinned issuer: refused too, naming both.
    let remote = declaring(
        &url,
        dir.path().into(),
        false,
        Some(client(Some("https://login.example"))),
    );
    remote.start();
    let State::Failed(why) = remote.state() else {
        panic!("{:?}", remote.state());
    };
    assert!(why.contains("(https://login.example)"), "{why}");
    assert!(to_token(&issuer).is_empty());

    // Pinned in mcp.json, it is used, with the secret as HTTP Basic.
    let remote = declaring(
        &url,
        dir.path().into(),
        false,
        Some(client(Some(&issuer.base))),
    );
    remote.start();
    assert_eq!(remote.state(), State::Ready);
    remote.stop();
    let asked = to_token(&issuer);
    assert_eq!(asked.len(), 1, "{asked:?}");
    let basic = crate::interact::form::uploads::encode_base64(b"robot:s3cret");
    assert_eq!(asked[0].authorization, Some(format!("Basic {basic}")));
}

#[test]
fn an_issuer_is_pinned_by_its_address_or_its_origin() {
    use super::flow::same_issuer;
    assert!(same_issuer(
        "https://login.example/t1",
        "https://login.example/t1/"
    ));
    assert!(same_issuer(
        "https://LOGIN.example",
        "https://login.example/t1"
    ));
    assert!(!same_issuer(
        "https://login.example/t2",
        "https://login.example/t1"
    ));
    assert!(!same_issuer(
        "https://login.example",
        "https://login.example:8443"
    ));
    assert!(!same_issuer(
        "http://login.example",
        "https://login.example"
    ));
    assert!(!same_issuer(
        "https://login.example.evil",
        "https://login.example"
    ));
}

#[test]
fn a_kept_sign_in_with_a_declared_secret_is_used_only_while_mcp_json_allows_its_server() {
    let dir = TempDir::new("mcp-oauth-kept");
    let url = "http://127.0.0.1:9/mcp";
    let kept = |issuer: &str| super::store::Entry {
        url: url.into(),
        resource: url.into(),
        token_endpoint: format!("{issuer}/token"),
        client: super::register::Client {
            id: "robot".into(),
            secret: Some("s3cret".into()),
            method: "client_secret_basic".into(),
            key: None,
        },
        issuer: issuer.into(),
        access_token: "at".into(),
        refresh_token: Some("rt".into()),
        expires_at: None,
        scope: None,
    };
    let loaded = |issuer: &str, pinned: Option<&str>| {
        super::store::save(dir.path(), "remote", &kept(issuer)).unwrap();
        let sign_in = SignIn {
            name: "remote".into(),
            profile: dir.path().into(),
            client: Some(OAuthClient {
                id: "robot".into(),
                secret: Some("s3cret".into()),
                key: None,
                issuer: pinned.map(Into::into),
            }),
            visit: None,
        };
        super::Auth::new(sign_in, url).state().entry.is_some()
    };
    assert!(loaded("http://127.0.0.1:8", None), "on the server's host");
    assert!(!loaded("http://127.0.0.2:8", None), "elsewhere, unpinned");
    assert!(
        loaded("http://127.0.0.2:8", Some("http://127.0.0.2:8")),
        "pinned"
    );
    assert!(!loaded("", None), "kept before the issuer was kept");
}
