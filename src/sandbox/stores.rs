//! The person's secret stores: where keys, tokens, passwords and browser profiles live, which
//! no program Marvin starts for the model may read, whatever the mode.

use std::path::{Path, PathBuf};

/// Under the home directory: keys (ssh, gpg, cloud and cluster credentials, Marvin's API key
/// files in ~/.ssh), logins (gh, git's and curl's stored passwords, docker registries, cargo's
/// token), password stores and keyrings, and browser profiles with their cookies.
pub(crate) const IN_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".netrc",
    ".git-credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".password-store",
    ".local/share/keyrings",
    ".mozilla",
    ".thunderbird",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
];

/// The stores that exist, as real paths (a store that is a symlink is kept out where it
/// leads), Marvin's own home among them.
pub(crate) fn existing(user_home: Option<&Path>, marvin_home: Option<&Path>) -> Vec<PathBuf> {
    let named = user_home
        .into_iter()
        .flat_map(|home| IN_HOME.iter().map(move |store| home.join(store)))
        .chain(marvin_home.map(Path::to_path_buf));
    let mut stores: Vec<PathBuf> = named
        .filter_map(|store| std::fs::canonicalize(store).ok())
        .collect();
    stores.sort();
    stores.dedup();
    stores
}

/// The store `path` lies in, if any (`path` as the real path it names).
pub(crate) fn holding<'a>(stores: &'a [PathBuf], path: &Path) -> Option<&'a Path> {
    stores
        .iter()
        .find(|store| path.starts_with(store))
        .map(PathBuf::as_path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn only_stores_that_exist_count_and_links_count_where_they_lead() {
        let home = TempDir::new("stores");
        let elsewhere = TempDir::new("stores-elsewhere");
        std::fs::create_dir(home.path().join(".ssh")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), home.path().join(".aws")).unwrap();
        std::fs::create_dir_all(home.path().join("marvin")).unwrap();
        let found = existing(Some(home.path()), Some(&home.path().join("marvin")));
        let real = |p: &Path| std::fs::canonicalize(p).unwrap();
        let mut expected = vec![
            real(&home.path().join(".ssh")),
            real(elsewhere.path()),
            real(&home.path().join("marvin")),
        ];
        expected.sort();
        assert_eq!(found, expected);
        assert_eq!(
            holding(&found, &real(&home.path().join(".ssh")).join("id_rsa")),
            Some(real(&home.path().join(".ssh")).as_path())
        );
        assert_eq!(holding(&found, &real(home.path()).join("notes")), None);
    }
}
