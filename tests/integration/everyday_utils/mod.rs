//! The everyday tools of issue 14's utilities, GitHub, downloads and bookmarks families, through
//! the built binary: a replayed model calls them, local servers replay the services (recorded
//! responses in tests/fixtures/apis/, or bodies built from a service's documentation where
//! nothing was recorded), and fake `gh` and `yt-dlp` scripts stand in for those programs.

mod bookmarks;
mod downloads;
mod github;
mod utilities;

use crate::common::Reply;
pub use crate::common::tools::{Run, Silent, run};

/// A JSON answer of the service replayed from `tests/fixtures/apis/`.
pub fn api_fixture(name: &str) -> Reply {
    Reply::json(200, crate::common::fixture(&format!("apis/{name}")))
}

/// An HTML page where a service should answer with data (a captive portal, a login page).
pub fn html_page() -> Reply {
    Reply {
        status: 200,
        headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
        body: b"<!DOCTYPE html><html><body><h1>Sign in to the hotel wifi</h1></body></html>"
            .to_vec(),
        calls: Default::default(),
    }
}
