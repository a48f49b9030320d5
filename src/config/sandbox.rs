//! The sandbox of a run: `--sandbox MODE` (else MARVIN_SANDBOX, else workspace),
//! `--no-network` (else MARVIN_SANDBOX_NETWORK=off) and the directories the person lets
//! programs write in besides the working and temp dirs (MARVIN_SANDBOX_WRITE, `:`-separated).

use std::path::{Path, PathBuf};

use super::{ConfigError, Env};
use crate::cli::Args;
use crate::sandbox::{Mode, Policy};

pub(super) fn policy(
    args: &Args,
    env: &Env,
    marvin_home: Option<&Path>,
    cwd: &Path,
) -> Result<Policy, ConfigError> {
    let (given, from) = match (&args.sandbox, env.get("MARVIN_SANDBOX")) {
        (Some(flag), _) => (Some(flag.as_str()), "--sandbox"),
        (None, var) => (var, "MARVIN_SANDBOX"),
    };
    let mode = match given {
        None => Mode::Workspace,
        Some(name) => Mode::parse(name).ok_or_else(|| {
            ConfigError::Invalid(format!(
                "{from} {name:?}: choose one of {}",
                Mode::NAMES.join(", ")
            ))
        })?,
    };
    let network = match env.get("MARVIN_SANDBOX_NETWORK") {
        _ if args.no_network => false,
        None | Some("on") => true,
        Some("off") => false,
        Some(other) => {
            return Err(ConfigError::Invalid(format!(
                "MARVIN_SANDBOX_NETWORK {other:?}: choose on or off"
            )));
        }
    };
    Ok(Policy {
        mode,
        network,
        writable: writable(env.get("MARVIN_SANDBOX_WRITE"), env.get("HOME"), cwd)?,
        user_home: env.get("HOME").map(PathBuf::from),
        marvin_home: marvin_home.map(Path::to_path_buf),
        named_stores: named_stores(env),
        temp_dir: env
            .get("TMPDIR")
            .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from),
    })
}

/// Secret stores the environment put somewhere of its own: the tools' own variables, and
/// the stores under XDG_CONFIG_HOME and XDG_DATA_HOME when those are not the home's usual
/// `.config` and `.local/share` (which `sandbox::stores` names already).
fn named_stores(env: &Env) -> Vec<PathBuf> {
    let mut named: Vec<PathBuf> = [
        "GH_CONFIG_DIR",
        "GNUPGHOME",
        "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_CONFIG_FILE",
        "DOCKER_CONFIG",
        "PASSWORD_STORE_DIR",
        "CLOUDSDK_CONFIG",
    ]
    .iter()
    .filter_map(|name| env.get(name))
    .map(PathBuf::from)
    .collect();
    // KUBECONFIG is a list of files, `:` between them.
    named.extend(
        env.get("KUBECONFIG")
            .unwrap_or("")
            .split(':')
            .filter(|file| !file.is_empty())
            .map(PathBuf::from),
    );
    if let Some(config) = env.get("XDG_CONFIG_HOME") {
        for store in [
            "gh",
            "github-copilot",
            "hub",
            "gcloud",
            "google-chrome",
            "chromium",
            "BraveSoftware",
            "microsoft-edge",
        ] {
            named.push(Path::new(config).join(store));
        }
    }
    if let Some(data) = env.get("XDG_DATA_HOME") {
        named.push(Path::new(data).join("keyrings"));
    }
    named.retain(|path| path.is_absolute());
    named
}

/// MARVIN_SANDBOX_WRITE's directories: `~/` means the home directory, a relative one counts
/// from where Marvin started; each must exist.
fn writable(
    list: Option<&str>,
    home: Option<&str>,
    cwd: &Path,
) -> Result<Vec<PathBuf>, ConfigError> {
    let mut dirs = Vec::new();
    for word in list.unwrap_or("").split(':').map(str::trim) {
        if word.is_empty() {
            continue;
        }
        let path = match (word.strip_prefix("~/"), home) {
            (Some(rest), Some(home)) => Path::new(home).join(rest),
            _ if word == "~" => home.map_or_else(|| PathBuf::from(word), PathBuf::from),
            _ => cwd.join(word),
        };
        if !path.is_dir() {
            return Err(ConfigError::Invalid(format!(
                "MARVIN_SANDBOX_WRITE: {} is not a directory",
                path.display()
            )));
        }
        dirs.push(path);
    }
    Ok(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    fn env(pairs: &[(&str, &str)]) -> Env {
        Env::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn the_mode_comes_from_the_flag_then_the_variable_then_workspace() {
        let cwd = Path::new("/");
        let flag = Args {
            sandbox: Some("off".into()),
            ..Args::default()
        };
        let read_only = env(&[("MARVIN_SANDBOX", "read-only")]);
        assert_eq!(
            policy(&flag, &read_only, None, cwd).unwrap().mode,
            Mode::Off
        );
        let plain = Args::default();
        assert_eq!(
            policy(&plain, &read_only, None, cwd).unwrap().mode,
            Mode::ReadOnly
        );
        let defaults = policy(&plain, &env(&[]), None, cwd).unwrap();
        assert_eq!(defaults.mode, Mode::Workspace);
        assert!(defaults.network);
        assert_eq!(defaults.temp_dir, PathBuf::from("/tmp"));
        let wrong = policy(&plain, &env(&[("MARVIN_SANDBOX", "loose")]), None, cwd);
        assert!(
            matches!(wrong, Err(ConfigError::Invalid(m)) if m.contains("workspace, read-only, off"))
        );
    }

    #[test]
    fn the_network_is_off_by_flag_or_variable() {
        let cwd = Path::new("/");
        let no_network = Args {
            no_network: true,
            ..Args::default()
        };
        assert!(!policy(&no_network, &env(&[]), None, cwd).unwrap().network);
        let off = env(&[("MARVIN_SANDBOX_NETWORK", "off")]);
        assert!(!policy(&Args::default(), &off, None, cwd).unwrap().network);
        let odd = env(&[("MARVIN_SANDBOX_NETWORK", "maybe")]);
        assert!(policy(&Args::default(), &odd, None, cwd).is_err());
    }

    #[test]
    fn writable_directories_must_exist_and_take_home_and_relative_paths() {
        let dir = TempDir::new("sandbox-write");
        std::fs::create_dir_all(dir.path().join("home/.cargo")).unwrap();
        std::fs::create_dir_all(dir.path().join("work/out")).unwrap();
        let home = dir.path().join("home");
        let cwd = dir.path().join("work");
        let found = writable(Some("~/.cargo: out :"), home.to_str(), &cwd).unwrap();
        assert_eq!(found, [home.join(".cargo"), cwd.join("out")]);
        let missing = writable(Some("nowhere"), home.to_str(), &cwd).unwrap_err();
        assert!(
            matches!(missing, ConfigError::Invalid(m) if m.contains("nowhere is not a directory"))
        );
    }

    #[test]
    fn stores_the_environment_moved_are_named() {
        let moved = env(&[
            ("GNUPGHOME", "/srv/gpg"),
            ("KUBECONFIG", "/k/a.yaml::/k/b.yaml"),
            ("XDG_CONFIG_HOME", "/cfg"),
            ("DOCKER_CONFIG", "relative/not/taken"),
        ]);
        let named = named_stores(&moved);
        for path in [
            "/srv/gpg",
            "/k/a.yaml",
            "/k/b.yaml",
            "/cfg/gh",
            "/cfg/github-copilot",
        ] {
            assert!(named.contains(&PathBuf::from(path)), "{path}: {named:?}");
        }
        assert!(!named.iter().any(|p| p.ends_with("taken")));
    }
}
