//! What a program Marvin starts for the model can reach. Questions and checks decide what runs;
//! the kernel decides what it can touch: every such program (commands, git, a project's MCP
//! servers, user tools, downloaders, installers) is built here, with Marvin's keys out of its
//! environment and, on Linux, a Landlock ruleset it enters between fork and exec. It reads
//! everything but the person's secret stores, and writes only in the working directory, the
//! temp dir and what the person allows (`--sandbox`, `MARVIN_SANDBOX_WRITE`).

#[cfg(target_os = "linux")]
mod child;
#[cfg(target_os = "linux")]
mod kernel;
#[cfg(target_os = "linux")]
mod landlock;
mod refusal;
#[cfg(target_os = "linux")]
mod rules;
mod stores;

#[cfg(target_os = "linux")]
pub(crate) use kernel::kernel;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) use refusal::explain;

/// How far programs are confined (`--sandbox`, `MARVIN_SANDBOX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write in the working directory, the temp dir and what the person allows.
    Workspace,
    /// Write nowhere.
    ReadOnly,
    /// Not confined: the questions are the only guard.
    Off,
}

impl Mode {
    pub const NAMES: [&'static str; 3] = ["workspace", "read-only", "off"];

    pub fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "workspace" => Some(Mode::Workspace),
            "read-only" | "readonly" => Some(Mode::ReadOnly),
            "off" => Some(Mode::Off),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Workspace => "workspace",
            Mode::ReadOnly => "read-only",
            Mode::Off => "off",
        }
    }
}

/// The sandbox of a session, from Config. A bare `Policy` (as unit tests build tool settings)
/// confines nothing.
#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: Mode,
    /// Programs may use the network (TCP); `--no-network` refuses it.
    pub network: bool,
    /// Directories the person lets programs write in besides the working and temp dirs.
    pub writable: Vec<PathBuf>,
    /// The person's home (HOME), where the secret stores are.
    pub user_home: Option<PathBuf>,
    /// MARVIN_HOME: Marvin's own keys, tokens, grants and logs. Never writable by a program.
    pub marvin_home: Option<PathBuf>,
    /// Secret stores the environment moved out of the home's usual places (GNUPGHOME, …).
    pub named_stores: Vec<PathBuf>,
    /// Where temporary files go (TMPDIR, else /tmp).
    pub temp_dir: PathBuf,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            mode: Mode::Off,
            network: true,
            writable: Vec::new(),
            user_home: None,
            marvin_home: None,
            named_stores: Vec::new(),
            temp_dir: PathBuf::from("/tmp"),
        }
    }
}

/// What one program may reach besides what the policy gives every program.
#[derive(Debug, Default, Clone)]
pub(crate) struct Paths {
    /// Directories it writes in (the working directory, a repository's git directory).
    pub writes: Vec<PathBuf>,
    /// Places inside a secret store it must read (a user tool's own directory).
    pub reads: Vec<PathBuf>,
}

impl Paths {
    /// Writing in `dir` (and reading all but the secret stores).
    pub(crate) fn writing(dir: &Path) -> Self {
        Self {
            writes: vec![dir.to_path_buf()],
            reads: Vec::new(),
        }
    }
}

/// Whether a program was confined, for the one notice a session gives when it was not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Confined {
    /// In a Landlock ruleset of this ABI.
    Kernel(u32),
    /// `--sandbox off`.
    Off,
    /// The sandbox was asked for and cannot be had here: why.
    Unavailable(String),
}

impl Policy {
    /// `program`, to be run confined as this policy and `paths` say, its environment without
    /// Marvin's keys. An error when the sandbox cannot give what was asked (no network on a
    /// kernel that cannot refuse it).
    pub(crate) fn command(
        &self,
        program: impl AsRef<OsStr>,
        paths: &Paths,
    ) -> Result<(Command, Confined), String> {
        // The one place programs for the model are made: everything else goes through here.
        #[allow(clippy::disallowed_methods)]
        let mut command = Command::new(program);
        without_secrets(&mut command);
        if self.mode == Mode::Off {
            return Ok((command, Confined::Off));
        }
        let confined = self.confine(&mut command, paths)?;
        Ok((command, confined))
    }

    /// The secret stores of this person that exist, as real paths: under HOME and under the
    /// home the password database names, those the environment moved, and Marvin's own.
    pub(crate) fn stores(&self) -> Vec<PathBuf> {
        let mut homes: Vec<PathBuf> = self.user_home.iter().cloned().collect();
        homes.extend(stores::passwd_home().filter(|home| !homes.contains(home)));
        let mut named = self.named_stores.clone();
        named.extend(self.marvin_home.iter().cloned());
        stores::existing(&homes, &named)
    }

    /// Where every program may write: the temp dir and the person's own choices (none in
    /// read-only mode), besides the working directory each is given; never inside Marvin's
    /// own home (a program that could write there could grant itself approvals or plant a
    /// tool), even when the working directory is there.
    pub(crate) fn writable_roots(&self, paths: &Paths) -> Vec<PathBuf> {
        if self.mode == Mode::ReadOnly {
            return Vec::new();
        }
        let own = self
            .marvin_home
            .as_ref()
            .and_then(|home| std::fs::canonicalize(home).ok());
        let mut roots = paths.writes.clone();
        roots.push(self.temp_dir.clone());
        roots.extend(self.writable.iter().cloned());
        roots
            .iter()
            .map(|root| std::fs::canonicalize(root).unwrap_or_else(|_| root.clone()))
            .filter(|root| own.as_ref().is_none_or(|own| !root.starts_with(own)))
            .collect()
    }

    /// Why programs cannot be confined as this policy asks, if they cannot.
    pub(crate) fn unavailable(&self) -> Option<String> {
        if self.mode == Mode::Off {
            return None;
        }
        #[cfg(target_os = "linux")]
        return kernel().as_ref().err().cloned();
        #[cfg(not(target_os = "linux"))]
        return Some(
            "programs cannot be confined on this system (Marvin's sandbox needs Linux's Landlock)"
                .into(),
        );
    }

    #[cfg(target_os = "linux")]
    fn confine(&self, command: &mut Command, paths: &Paths) -> Result<Confined, String> {
        kernel::confine(self, command, paths)
    }

    #[cfg(not(target_os = "linux"))]
    fn confine(&self, _command: &mut Command, _paths: &Paths) -> Result<Confined, String> {
        if !self.network {
            return Err(no_network_refused(
                "programs cannot be confined on this system",
            ));
        }
        Ok(Confined::Unavailable(
            "programs cannot be confined on this system (Marvin's sandbox needs Linux's Landlock)"
                .into(),
        ))
    }
}

pub(crate) fn no_network_refused(why: &str) -> String {
    format!(
        "Programs cannot be kept off the network here: {why}. Ask the person to run it themselves, or to run Marvin without --no-network."
    )
}

/// Makes this process's memory and environment (Marvin's keys) unreadable to other
/// processes, the programs it starts among them: not dumpable, so /proc/PID/environ and
/// ptrace need CAP_SYS_PTRACE, which a confined program, even root's, does not have (see
/// `child`). No core dumps either, which would hold the keys too.
pub fn keep_to_myself() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

/// `program` as the person would run it themselves, not confined, without Marvin's keys: for
/// what the person set up (their own MCP servers, their crontab), never for what a model or a
/// repository chose.
pub(crate) fn unconfined(program: impl AsRef<OsStr>) -> Command {
    #[allow(clippy::disallowed_methods)]
    let mut command = Command::new(program);
    without_secrets(&mut command);
    command
}

/// Takes the credentials out of a child's environment: every key and token variable of the
/// services table ([`crate::services::secret_variables`]).
pub(crate) fn without_secrets(command: &mut Command) -> &mut Command {
    for name in crate::services::secret_variables() {
        command.env_remove(name);
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_and_token_variable_config_reads_is_a_secret() {
        let secrets = crate::services::secret_variables();
        for kind in crate::config::ProviderKind::ALL {
            assert!(secrets.contains(&kind.key_var()), "{}", kind.key_var());
        }
        let credentials: Vec<&str> = crate::config::VARIABLES
            .iter()
            .copied()
            .filter(|name| name.ends_with("_KEY") || name.ends_with("_TOKEN"))
            .collect();
        assert!(credentials.len() >= 7, "{credentials:?}");
        for name in credentials {
            assert!(secrets.contains(&name), "{name} reaches child programs");
        }
        for name in ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"] {
            assert!(secrets.contains(&name), "{name}");
        }
    }

    #[test]
    fn a_child_started_without_secrets_does_not_see_them() {
        #[allow(clippy::disallowed_methods)]
        let mut command = Command::new("sh");
        command
            .args([
                "-c",
                "echo \"${GH_TOKEN-unset} ${OPENAI_API_KEY-unset} $KEEP\"",
            ])
            .env("GH_TOKEN", "t")
            .env("OPENAI_API_KEY", "k")
            .env("KEEP", "kept");
        without_secrets(&mut command);
        let output = command.output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "unset unset kept\n"
        );
    }
}
