//! The everyday tools of issue 14's Wikipedia, papers and feeds families, through the built
//! binary: a replayed model calls them and local servers replay the services (recorded
//! responses in tests/fixtures/apis/, or bodies built from a service's documentation where
//! nothing was recorded, which the test says).

mod academic;
mod feeds;
mod wiki;

pub use crate::common::tools::{Silent, reply};
use crate::common::{Reply, TempDir, fixture};

/// What each call of one round returned, in call order (see `common::tools::run`).
pub fn run(home: &TempDir, calls: &[(&str, &str, &str)], env: &[(&str, String)]) -> Vec<String> {
    crate::common::tools::run(home, calls, env).results
}

/// A recorded response from tests/fixtures/apis/.
pub fn recorded(status: u16, content_type: &str, name: &str) -> Reply {
    reply(status, content_type, fixture(&format!("apis/{name}")))
}

/// A captive portal's page, where a service's data was expected.
pub fn portal() -> Reply {
    reply(
        200,
        "text/html; charset=utf-8",
        "<!DOCTYPE html><html><head><title>Hotel Wi-Fi</title></head><body><form>Log in</form></body></html>",
    )
}
