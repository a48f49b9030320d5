//! The commit Marvin is built from, for `--version`: `MARVIN_COMMIT` is the short hash, with
//! " dirty" when tracked files differ from it, or empty outside a git checkout (a vendored
//! tarball, a crate download). Asks the `git` program; no crate.
//!
//! A release binary also gets the functions a run uses placed side by side
//! (`link/hot-functions.txt`, made by `scripts/hot-functions.sh`): the kernel maps a program's
//! code 64 KB around each page it touches, so scattered hot code costs resident memory.
//!
//! The browser pages' files (`form/`) go into the binary deflated (see `src/web/packed.rs`).

// The build runs git and rustc for the builder, not programs for a model.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::Command;

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let git = |args: &[&str]| -> Option<String> {
        // `--no-optional-locks`: `git status` would otherwise refresh the index of a fresh
        // clone, leaving the tree as it was but the index rewritten.
        let output = Command::new("git")
            .arg("--no-optional-locks")
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
    order_hot_functions(&root);
    deflate_pages(Path::new(&root));
    // Run again when the commit or the sources change; only paths that exist (a missing one
    // would make cargo run this script on every build). Not the index: every `git status` or
    // `git add` rewrites it, and a build that follows it would compile everything again
    // (minutes), though neither changes the commit or a file.
    let mut watched = vec![
        "src".to_string(),
        "form".into(),
        "Cargo.toml".into(),
        "Cargo.lock".into(),
    ];
    for name in ["HEAD", "packed-refs"] {
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

/// Writes every file of `form/` (the interview's page and the gateway's) deflated into
/// `OUT_DIR/form/`, under its own path with `.deflate` added: 35 KB in the binary instead of
/// 112 KB. `web::packed::page_file!` takes them in and inflates each the first time it is served.
fn deflate_pages(root: &Path) {
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("form");
    let mut folders = vec![root.join("form")];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|error| panic!("cannot list {}: {error}", folder.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let text = std::fs::read(&path)
                .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
            let relative = path.strip_prefix(root.join("form")).expect("under form/");
            let mut packed = out.join(relative).into_os_string();
            packed.push(".deflate");
            let packed = Path::new(&packed);
            std::fs::create_dir_all(packed.parent().expect("a folder"))
                .and_then(|()| {
                    std::fs::write(packed, miniz_oxide::deflate::compress_to_vec(&text, 10))
                })
                .unwrap_or_else(|error| panic!("cannot write {}: {error}", packed.display()));
        }
    }
}

/// Asks the linker to put the functions of `link/hot-functions.txt` first, where that linker is
/// surely rust-lld: a release build for x86_64 Linux by rustc 1.90 or later, with no linker of
/// the user's choosing. A name the build no longer has (another toolchain, renamed code) is
/// skipped silently: the order is an optimisation, never a reason to fail a build. The same
/// linker also folds functions whose code is identical (`--icf=all`: generic code instantiated
/// for types of one layout, closures alike): 38 KB less, no instruction more. Read-only
/// data is folded alike (two identical constant tables may share an address): Rust promises
/// no distinct address to two functions, and Marvin compares no function's or constant's
/// address (the diet groups `recipes/diet.rs` compares with `ptr::eq` all differ in content).
fn order_hot_functions(root: &str) {
    let list = Path::new(root).join("link/hot-functions.txt");
    println!("cargo:rerun-if-changed={}", list.display());
    for name in [
        "PROFILE",
        "TARGET",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC",
        "MARVIN_LINK_MAP",
        "RUSTC_LINKER",
    ] {
        println!("cargo:rerun-if-env-changed={name}");
    }
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let own_linker = var("CARGO_ENCODED_RUSTFLAGS").contains("link")
        || !var("RUSTC_LINKER").is_empty()
        || std::env::vars()
            .any(|(name, _)| name.starts_with("CARGO_TARGET_") && name.ends_with("_LINKER"));
    if var("PROFILE") != "release"
        || var("TARGET") != "x86_64-unknown-linux-gnu"
        || own_linker
        || !list.exists()
        || !rustc_links_with_lld(&var("RUSTC"))
    {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin=marvin=-Wl,--symbol-ordering-file={}",
        list.display()
    );
    println!("cargo:rustc-link-arg-bin=marvin=-Wl,--no-warn-symbol-ordering");
    println!("cargo:rustc-link-arg-bin=marvin=-Wl,--icf=all");
    // scripts/hot_functions.py reads where each function landed: the binary itself is stripped.
    if let Ok(map) = std::env::var("MARVIN_LINK_MAP") {
        println!("cargo:rustc-link-arg-bin=marvin=-Wl,-Map={map}");
    }
}

/// rustc links x86_64 Linux programs with its own lld from 1.90 on.
fn rustc_links_with_lld(rustc: &str) -> bool {
    let Ok(output) = Command::new(if rustc.is_empty() { "rustc" } else { rustc })
        .arg("-V")
        .output()
    else {
        return false;
    };
    let version = String::from_utf8_lossy(&output.stdout);
    let mut numbers = version.split_whitespace().nth(1).unwrap_or("").split('.');
    let major: u32 = numbers.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    let minor: u32 = numbers.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    (major, minor) >= (1, 90)
}
