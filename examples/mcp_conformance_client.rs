//! The client the MCP conformance suite runs for its client scenarios: Marvin's MCP client
//! connects to the URL the suite appends and does what the scenario (MCP_CONFORMANCE_SCENARIO)
//! asks. Run by tests/integration/mcp_conformance.rs; by hand:
//!
//! npx @modelcontextprotocol/conformance@0.1.13 client --scenario sse-retry \
//!   --command "target/debug/examples/mcp_conformance_client"

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("mcp_conformance_client: usage: mcp_conformance_client URL");
        return ExitCode::FAILURE;
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match marvin::test_support::mcp_conformance_client(&url, &scenario) {
        Ok(said) => {
            println!("{said}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("mcp_conformance_client: {why}");
            ExitCode::FAILURE
        }
    }
}
