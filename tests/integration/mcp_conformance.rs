//! The official MCP conformance suite's client scenarios (npm @modelcontextprotocol/conformance,
//! installed once by scripts/mcp-conformance.sh under the target directory), played by
//! Marvin's MCP client: for each scenario the suite starts its server and runs this test
//! binary's hidden `conformance_client` entry with the server's address, then checks what
//! the client did. The `auth/` scenarios sign in as Marvin does (see src/tools/mcp/oauth).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::TempDir;

/// The directory of the suite's `conformance` program.
fn suite() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-conformance");
    let output = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/mcp-conformance.sh"))
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "installing the MCP conformance suite from npm failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

/// The suite's client scenarios, as `conformance list` names them.
fn client_scenarios(bin: &Path) -> Vec<String> {
    let output = Command::new(bin.join("conformance"))
        .arg("list")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let listed = text.split("Client scenarios").nth(1).unwrap_or_default();
    let names = listed.lines().skip(1).map(str::trim);
    let names = names.map_while(|line| line.strip_prefix("- "));
    names.map(str::to_string).collect()
}

/// Whether the suite passed `scenario`: it ran checks and none failed.
fn passes(bin: &Path, scenario: &str, client: &str, dir: &Path) -> Result<(), String> {
    let output = Command::new(bin.join("conformance"))
        .args(["client", "--scenario", scenario, "--command", client])
        .current_dir(dir)
        .output()
        .unwrap();
    // The checks and their tally go to stderr.
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    let tally = text.lines().find_map(|line| line.strip_prefix("Passed: "));
    let counts = tally.and_then(|tally| {
        let (passed, rest) = tally.split_once('/')?;
        let (total, rest) = rest.split_once(',')?;
        let failed = rest.trim().split(' ').next()?;
        Some((
            passed.parse::<u32>().ok()?,
            total.parse::<u32>().ok()?,
            failed.parse::<u32>().ok()?,
        ))
    });
    match counts {
        Some((_, total, 0)) if total > 0 && output.status.success() => Ok(()),
        _ => Err(format!("{}{text}", String::from_utf8_lossy(&output.stdout))),
    }
}

#[test]
fn marvin_passes_the_suites_client_scenarios_oauth_included() {
    let bin = suite();
    let scenarios = client_scenarios(&bin);
    let oauth = scenarios.iter().filter(|name| name.starts_with("auth/"));
    assert!(oauth.count() >= 17, "the suite lists {scenarios:?}");
    let played = scenarios;
    let exe = std::env::current_exe().unwrap();
    let client = format!(
        "{} --ignored --exact --nocapture mcp_conformance::conformance_client",
        exe.display()
    );
    let dir = TempDir::new("mcp-conformance");
    let mut failed = Vec::new();
    for scenario in &played {
        if let Err(why) = passes(&bin, scenario, &client, dir.path()) {
            failed.push(format!("{scenario}:\n{why}"));
        }
    }
    eprintln!(
        "MCP conformance client scenarios: {}/{} passed",
        played.len() - failed.len(),
        played.len()
    );
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// The scenarios whose client must fail, as the suite expects (its `allowClientError`): the
/// server lies about who it is, or never grants the scope it asks for.
const MUST_FAIL: &[&str] = &["auth/resource-mismatch", "auth/scope-retry-limit"];

/// The client the suite runs: `MCP_CONFORMANCE_SCENARIO` names the scenario and the server's
/// address comes last on the command line. Run alone (without the suite), it does nothing.
#[test]
#[ignore = "run by the MCP conformance suite with a scenario's address"]
fn conformance_client() {
    let Ok(scenario) = std::env::var("MCP_CONFORMANCE_SCENARIO") else {
        return;
    };
    let url = std::env::args().next_back().unwrap_or_default();
    let played = marvin::test_support::mcp_conformance_client(&url, &scenario);
    match MUST_FAIL.contains(&scenario.as_str()) {
        true => assert!(played.is_err(), "{scenario} at {url}: {played:?}"),
        false => assert!(played.is_ok(), "{scenario} at {url}: {played:?}"),
    }
}

/// `marvin mcp login` and `logout` through the binary, the servers of the suite's
/// `auth/metadata-default` signing in: the "browser" (BROWSER) is curl opening the address
/// and following the suite's redirect to the callback, and the suite checks the sign-in.
#[test]
fn marvin_mcp_login_signs_in_where_the_suite_checks_it_and_logout_forgets_it() {
    let bin = suite();
    let exe = std::env::current_exe().unwrap();
    let client = format!(
        "{} --ignored --exact --nocapture mcp_conformance::login_client",
        exe.display()
    );
    let dir = TempDir::new("mcp-conformance-login");
    let passed = passes(&bin, "auth/metadata-default", &client, dir.path());
    assert!(passed.is_ok(), "{}", passed.unwrap_err());
}

/// The client of the test above: logs in to the server at the address given last, checks the
/// kept sign-in, and logs out.
#[test]
#[ignore = "run by the MCP conformance suite with a scenario's address"]
fn login_client() {
    use std::os::unix::fs::PermissionsExt;
    if std::env::var("MCP_CONFORMANCE_SCENARIO").is_err() {
        return;
    }
    let url = std::env::args().next_back().unwrap_or_default();
    let home = TempDir::new("mcp-login");
    let marvin_home = home.path().join("marvin-home");
    std::fs::create_dir_all(&marvin_home).unwrap();
    let declared = serde_json::json!({"mcpServers": {"remote": {"url": url}}});
    std::fs::write(marvin_home.join("mcp.json"), declared.to_string()).unwrap();
    let browser = home.path().join("browser");
    std::fs::write(
        &browser,
        "#!/bin/sh\nback=$(curl -s -o /dev/null -w '%{redirect_url}' \"$1\") && curl -s -o /dev/null \"$back\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let login = crate::common::marvin(home.path())
        .env("BROWSER", &browser)
        .args(["mcp", "login", "remote"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&login.stdout);
    assert!(
        login.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&login.stderr)
    );
    assert!(
        said.starts_with("Signed in to the MCP server remote;"),
        "{said}"
    );
    let tokens = marvin_home.join("profiles/default/tokens.json");
    let mode = std::fs::metadata(&tokens).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let kept: serde_json::Value = serde_json::from_slice(&std::fs::read(&tokens).unwrap()).unwrap();
    let token = kept["mcp/remote"]["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(token.starts_with("test-token"), "{kept}");
    assert!(!said.contains(&token) && !String::from_utf8_lossy(&login.stderr).contains(&token));
    let logout = crate::common::marvin(home.path())
        .args(["mcp", "logout", "remote"])
        .output()
        .unwrap();
    assert!(logout.status.success());
    let kept: serde_json::Value = serde_json::from_slice(&std::fs::read(&tokens).unwrap()).unwrap();
    assert!(kept.get("mcp/remote").is_none(), "{kept}");
}
