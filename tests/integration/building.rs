//! Building from a fresh clone: the build script reads the commit for `--version` without
//! touching the clone's git index, which it watches; a refreshed index would make the second
//! build (`make install`, then `cargo run --release`, as the README says) compile everything
//! again.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use crate::common::TempDir;

/// The build script cargo compiled for these tests (the newest, if several).
fn build_script() -> PathBuf {
    let profile_dir = std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf();
    std::fs::read_dir(profile_dir.join("build"))
        .unwrap()
        .filter_map(|entry| {
            let script = entry.ok()?.path().join("build-script-build");
            let modified = script.metadata().ok()?.modified().ok()?;
            Some((modified, script))
        })
        .filter(|(_, script)| {
            script
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|name| name.to_string_lossy().starts_with("marvin-"))
        })
        .max()
        .expect("cargo compiled marvin's build script")
        .1
}

fn index_changed_at(clone: &Path) -> SystemTime {
    clone
        .join(".git/index")
        .metadata()
        .unwrap()
        .modified()
        .unwrap()
}

#[test]
fn the_build_script_leaves_a_fresh_clones_index_alone() {
    let project = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !project.join(".git").exists() {
        eprintln!("skipped: not a git checkout");
        return;
    }
    let work = TempDir::new("fresh-clone");
    let clone = work.path().join("marvin");
    let cloned = Command::new("git")
        .args(["clone", "-q", "--no-hardlinks"])
        .arg(project)
        .arg(&clone)
        .status()
        .unwrap();
    assert!(cloned.success());
    let before = index_changed_at(&clone);
    let out_dir = work.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    // Past the second the clone was made in: git then sees its files as racily clean and
    // `git status` would write the index again.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let output = Command::new(build_script())
        .env("CARGO_MANIFEST_DIR", &clone)
        .env("OUT_DIR", &out_dir)
        .env_remove("PROFILE")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        index_changed_at(&clone),
        before,
        "the build script rewrote .git/index"
    );
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(&clone)
        .output()
        .unwrap();
    let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        said.contains(&format!("cargo:rustc-env=MARVIN_COMMIT={head}\n")),
        "a fresh clone is not dirty: {said}"
    );
}
