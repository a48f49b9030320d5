//! The person's secret stores: where keys, tokens, passwords and browser profiles live, which
//! no program Marvin starts for the model may read, whatever the mode.

use std::path::{Path, PathBuf};

/// Under the home directory: keys (ssh, gpg, cloud and cluster credentials, Marvin's API key
/// files in ~/.ssh), logins (gh, Copilot, hub, git's and curl's stored passwords, docker
/// registries, cargo's, PyPI's, RubyGems', Vault's and Terraform's tokens), password stores
/// and keyrings, and browser profiles with their cookies. (`~/.npmrc` is left readable: npm
/// reads its settings there.)
pub(crate) const IN_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".config/github-copilot",
    ".config/hub",
    ".netrc",
    ".git-credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".pypirc",
    ".gem/credentials",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
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
/// leads): [`IN_HOME`] under each of `homes`, then `named` (stores the environment moved, and
/// Marvin's own home).
pub(crate) fn existing(homes: &[PathBuf], named: &[PathBuf]) -> Vec<PathBuf> {
    let in_homes = homes
        .iter()
        .flat_map(|home| IN_HOME.iter().map(move |store| home.join(store)));
    let mut stores: Vec<PathBuf> = in_homes
        .chain(named.iter().cloned())
        .filter_map(|store| std::fs::canonicalize(store).ok())
        .collect();
    stores.sort();
    stores.dedup();
    stores
}

/// The home directory the password database gives the user Marvin runs as, which `HOME` may
/// not name (`sudo`, `env -i`, a cron job's HOME set elsewhere): read once, not again for
/// every program confined.
pub(crate) fn passwd_home() -> Option<PathBuf> {
    static HOME: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    HOME.get_or_init(read_passwd_home).clone()
}

fn read_passwd_home() -> Option<PathBuf> {
    use std::ffi::CStr;
    use std::os::unix::ffi::OsStrExt;
    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: an all-zero passwd is a valid value for getpwuid_r to fill.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: the buffer and the entry outlive the call; `found` is set to `entry` or null.
    let status = unsafe {
        libc::getpwuid_r(
            libc::geteuid(),
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        )
    };
    if status != 0 || found.is_null() || entry.pw_dir.is_null() {
        return None;
    }
    // SAFETY: pw_dir points into `buffer`, NUL-terminated, as getpwuid_r filled it.
    let dir = unsafe { CStr::from_ptr(entry.pw_dir) };
    let dir = PathBuf::from(std::ffi::OsStr::from_bytes(dir.to_bytes()));
    (dir.is_absolute() && dir != Path::new("/")).then_some(dir)
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
        let found = existing(&[home.path().to_path_buf()], &[home.path().join("marvin")]);
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

    #[test]
    fn the_password_database_names_a_home() {
        // Whoever runs the tests has an entry (root's is /root); only its shape is checked.
        if let Some(home) = passwd_home() {
            assert!(home.is_absolute(), "{}", home.display());
        }
    }
}
