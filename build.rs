//! The commit Marvin is built from, for `--version`: `MARVIN_COMMIT` is the short hash, with
//! " dirty" when tracked files differ from it, or empty outside a git checkout (a vendored
//! tarball, a crate download). Asks the `git` program; no crate.

use std::path::Path;
use std::process::Command;

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let git = |args: &[&str]| -> Option<String> {
        let output = Command::new("git")
            .args(args)
            .current_dir(&root)
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(hash) if !hash.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|changes| !changes.is_empty());
            if dirty { format!("{hash} dirty") } else { hash }
        }
        _ => String::new(),
    };
    println!("cargo:rustc-env=MARVIN_COMMIT={commit}");
    // Run again when the commit or the tracked files change; only paths that exist (a missing
    // one would make cargo run this script on every build).
    let mut watched = vec!["src".to_string(), "Cargo.toml".into(), "Cargo.lock".into()];
    for name in ["HEAD", "index", "packed-refs"] {
        watched.extend(git(&["rev-parse", "--git-path", name]));
    }
    watched.extend(
        git(&["symbolic-ref", "-q", "HEAD"])
            .and_then(|reference| git(&["rev-parse", "--git-path", &reference])),
    );
    for path in watched {
        let full = Path::new(&root).join(&path);
        if full.exists() {
            println!("cargo:rerun-if-changed={}", full.display());
        }
    }
}
