//! A policy made into a Landlock ruleset for one program: what this kernel can do, the rules
//! (read everything but the secret stores, write in the writable roots, the few devices every
//! program uses), and the child's entry into them before exec.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use super::landlock::{self, fs};
use super::rules::{self, Rule};
use super::{Confined, Paths, Policy, no_network_refused};

/// The devices any program may write to and use (a rule each; what is not there is skipped).
/// Not the terminals: a program that could open one could write past Marvin's sanitiser, or
/// push keys into its prompt.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// Shared memory, which programs (Python's multiprocessing, Chromium) make files in.
const SHARED_MEMORY: &str = "/dev/shm";

/// Variables that lead a program to a socket of the person's agents and buses outside the
/// sandbox (ssh-agent would sign with the keys the sandbox hides; the session bus starts
/// programs outside it; the keyring hands out passwords). Landlock does not confine Unix
/// sockets by path, so this only keeps well-behaved programs away from them.
const AGENT_VARIABLES: &[&str] = &[
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
];

/// `command` made to enter the ruleset of `policy` and `paths` before it runs.
pub(super) fn confine(
    policy: &Policy,
    command: &mut Command,
    paths: &Paths,
) -> Result<Confined, String> {
    let abi = match kernel() {
        Ok(abi) => *abi,
        Err(why) if policy.network => return Ok(Confined::Unavailable(why.clone())),
        Err(why) => return Err(no_network_refused(why)),
    };
    if !policy.network && abi < 4 {
        return Err(no_network_refused(&format!(
            "this kernel's Landlock (ABI {abi}) cannot refuse the network; Linux 6.7 or later can"
        )));
    }
    let ruleset = ruleset(policy, abi, paths)
        .map_err(|e| format!("The sandbox could not be set up: {e}."))?;
    for name in AGENT_VARIABLES {
        command.env_remove(name);
    }
    // SAFETY: the child makes only async-signal-safe calls (see `child`) on a descriptor the
    // closure keeps open until the command is dropped after spawning.
    unsafe {
        command.pre_exec(move || super::child::enter(ruleset.as_raw_fd()));
    }
    Ok(Confined::Kernel(abi))
}

/// The ruleset: read everything but the secret stores, write in the writable roots, use the
/// few devices every program uses.
fn ruleset(policy: &Policy, abi: u32, paths: &Paths) -> std::io::Result<OwnedFd> {
    let mut grants = vec![Rule::new("/", fs::READ)];
    for root in policy.writable_roots(paths) {
        grants.push(Rule::new(root, fs::READ | fs::WRITE));
    }
    for device in DEVICES {
        grants.push(Rule::new(*device, fs::CHANGE | fs::IOCTL_DEV));
    }
    grants.push(Rule::new(SHARED_MEMORY, fs::READ | fs::WRITE));
    let mut rules = rules::carve(&grants, &policy.stores(), &entries);
    for place in &paths.reads {
        let place = std::fs::canonicalize(place).unwrap_or_else(|_| place.clone());
        rules.push(Rule::new(place, fs::READ));
    }
    let mut ruleset = landlock::Ruleset::new(abi, policy.network)?;
    for rule in rules {
        ruleset.allow(&rule.path, rule.access)?;
    }
    Ok(ruleset.finish())
}

/// The entries of `dir` that are not symlinks (an unreadable directory has none).
fn entries(dir: &Path) -> Vec<std::ffi::OsString> {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    listing
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| !kind.is_symlink()))
        .map(|entry| entry.file_name())
        .collect()
}

/// This kernel's Landlock ABI, asked once; or why it cannot confine programs. ABI 1 (Linux
/// 5.13 to 5.18) cannot allow a file to move between directories, which git and builds do all
/// the time, so it counts as none.
pub(crate) fn kernel() -> &'static Result<u32, String> {
    static ABI: std::sync::OnceLock<Result<u32, String>> = std::sync::OnceLock::new();
    ABI.get_or_init(|| match landlock::abi() {
        Ok(1) => Err(
            "this kernel's Landlock (ABI 1) cannot let programs move files between directories, which git and builds need (Linux 5.19 or later can)"
                .to_string(),
        ),
        Ok(abi) => Ok(abi),
        Err(error) => Err(match error.raw_os_error() {
            Some(libc::ENOSYS) => {
                "this kernel has no Landlock (Linux 5.19 or later is needed)".to_string()
            }
            Some(libc::EOPNOTSUPP) => {
                "Landlock is switched off in this kernel (add landlock to its lsm= boot option)"
                    .to_string()
            }
            _ => format!("Landlock cannot be used here ({error})"),
        }),
    })
}
