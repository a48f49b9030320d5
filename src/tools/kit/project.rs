//! Whether a directory is a project: inside a git work tree, or holding a build manifest. In
//! a project the tools that only read it (files, code search, git history) are offered outside
//! coding mode too, so a question about the code can be answered from the code.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Files that make a directory a project without git.
const MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "go.mod",
    "Makefile",
    "CMakeLists.txt",
    "meson.build",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "Gemfile",
    "composer.json",
    "mix.exs",
    "deno.json",
];

/// Whether `dir` is in a git work tree (a `.git` in it or above it) or holds a build manifest.
pub(crate) fn is_project(dir: &Path) -> bool {
    dir.ancestors().any(|d| d.join(".git").exists())
        || MANIFESTS.iter().any(|name| dir.join(name).is_file())
}

/// The answer for the session's working directory, asked again only when it changes.
#[derive(Default)]
pub(crate) struct ProjectCache(Mutex<Option<(PathBuf, bool)>>);

impl ProjectCache {
    pub(crate) fn is_project(&self, dir: &Path) -> bool {
        let mut known = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match known.as_ref() {
            Some((seen, answer)) if seen == dir => *answer,
            _ => {
                let answer = is_project(dir);
                *known = Some((dir.to_path_buf(), answer));
                answer
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn git_trees_and_manifests_make_projects() {
        let dir = TempDir::new("project");
        let plain = dir.path().join("plain");
        std::fs::create_dir_all(plain.join("deep")).unwrap();
        assert!(!is_project(&plain));
        let rust = dir.path().join("rust");
        std::fs::create_dir(&rust).unwrap();
        std::fs::write(rust.join("Cargo.toml"), "[package]\n").unwrap();
        assert!(is_project(&rust));
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/parse")).unwrap();
        assert!(
            is_project(&repo.join("src/parse")),
            "below the work tree's root"
        );
        let cache = ProjectCache::default();
        assert!(!cache.is_project(&plain));
        assert!(cache.is_project(&repo));
        std::fs::create_dir(plain.join(".git")).unwrap();
        assert!(
            cache.is_project(&plain),
            "asked again for another directory"
        );
    }
}
