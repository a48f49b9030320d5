//! Helpers for the unit and integration tests: a temporary directory removed when dropped.
//! Not part of Marvin's interface.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct TempDir(PathBuf);

impl TempDir {
    /// A fresh, canonical directory named after `tag`, unique within the test run.
    pub fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let path =
            std::env::temp_dir().join(format!("marvin-test-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("creating a temporary directory");
        Self(std::fs::canonicalize(path).expect("canonical temporary directory"))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A command as cron hands it to the shell (cronie's do_command: a backslash takes the next
/// character, `\\%` becomes `%`), and whether an unescaped `%` cut it there.
pub fn as_cron_runs(command: &str) -> (String, bool) {
    let mut out = String::new();
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('%') => out.push('%'),
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            },
            '%' => return (out, true),
            c => out.push(c),
        }
    }
    (out, false)
}

/// The MCP conformance suite's client scenarios, played by Marvin's MCP client.
#[cfg(feature = "test-support")]
pub use crate::tools::mcp::conformance::run as mcp_conformance_client;

/// cmark's pathological Markdown shapes (`ui/markdown/pathological.rs`) with `n` repeats of
/// each: its name and input, for the bench.
#[cfg(feature = "test-support")]
pub fn markdown_shapes(n: usize) -> Vec<(&'static str, String)> {
    use crate::ui::markdown::pathological::{SHAPES, as_written};
    let written = as_written().map(|(name, unit)| (name, unit.repeat(n)));
    let shaped = SHAPES.iter().map(|shape| (shape.name, (shape.input)(n)));
    written.chain(shaped).collect()
}

/// What the REPL shows of `answer` (colour, 80 columns) pushed to its Markdown renderer in
/// pieces of `piece` bytes (0: at once), for the bench.
#[cfg(feature = "test-support")]
pub fn render_markdown(answer: &str, piece: usize) -> String {
    let style = crate::ui::style::Style {
        colour: true,
        unicode: true,
    };
    let markdown = crate::ui::markdown::Markdown::new(style, 79);
    crate::ui::markdown::pathological::render(markdown, answer, piece)
}
