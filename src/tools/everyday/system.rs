//! Facts about the machine and the session: `system_info`, the session's usage (`get_usage`),
//! `compact_history`, which frees context space, and `exit_app`, which ends the session once
//! the answer is shown (the front-end reads the request from the turn's report).

use std::ffi::CStr;
use std::fs;
use std::path::Path;

use serde::Deserialize;

use crate::tools::{Family, Offered, ToolContext, ToolDef};

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "system",
    about: "this machine, usage and cost, leaving",
    words: &[
        "disk", "memory", "cpu", "battery", "uptime", "hostname", "machine", "computer", "system",
        "usage", "cost", "tokens", "spent", "quit", "exit", "bye", "compact",
    ],
    asks: &[
        "is the disk full",
        "how much memory is free",
        "how long has the computer been up",
        "how much have I spent on tokens",
        "usage and cost so far",
        "shrink the history of this chat",
        "quit marvin",
        "close the app",
        "goodbye",
        "what machine is this",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("system_info")
            .describe("Describe this computer: operating system, CPU count, memory, disk space, uptime, load and battery.")
            .offered(Offered::Everywhere)
            .example("{}")
            .handler(system_info),
        ToolDef::build("compact_history")
            .describe("Summarise the older part of this conversation to free context space (a backup is kept).")
            .offered(Offered::Everywhere)
            .example("{}")
            .handler(compact_history),
        ToolDef::build("get_usage")
            .describe("Show the tokens and cost of this session and of all time.")
            .offered(Offered::Everywhere)
            .example("{}")
            .handler(get_usage),
        ToolDef::build("exit_app")
            .describe("End Marvin once this answer is shown. Use only when the user asks to quit, exit or close Marvin; then answer with a short goodbye.")
            .offered(Offered::Everywhere)
            .example("{}")
            .handler(exit_app),
    ]
}

#[derive(Deserialize)]
struct NoArgs {}

fn compact_history(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    ctx.shared
        .compact_requested
        .store(true, std::sync::atomic::Ordering::SeqCst);
    Ok("The conversation will be compacted before your next step: older messages are summarised, the latest kept, and a backup saved.".into())
}

fn exit_app(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    ctx.shared
        .exit_requested
        .store(true, std::sync::atomic::Ordering::SeqCst);
    Ok(
        "Marvin ends once this answer is shown: say a short goodbye, and call no more tools."
            .into(),
    )
}

/// The finished turns and the one under way (which the ledger gets only at its end).
fn get_usage(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    let read = |tally: &std::sync::Mutex<crate::usage::Tally>| {
        tally
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    };
    let now = read(&ctx.shared.turn_usage);
    let mut session = read(&ctx.shared.usage);
    session.add(&now);
    let mut lifetime = ctx
        .settings
        .marvin_home
        .as_deref()
        .map(|home| crate::store::ledger::lifetime(home, &ctx.shared.warnings))
        .unwrap_or_default();
    lifetime.add(&now);
    Ok(crate::store::ledger::report(&session, &lifetime))
}

fn system_info(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    let mut lines = vec![format!("OS: {}", os_name())];
    let uts = uname();
    if let Some((release, machine, host)) = &uts {
        lines.push(format!("Kernel: {release} ({machine})"));
        lines.push(format!("Hostname: {host}"));
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    lines.push(format!("CPUs: {cpus}"));
    if let Some((available, total)) = memory() {
        lines.push(format!(
            "Memory: {} available of {}",
            size(available),
            size(total)
        ));
    }
    let working_dir = ctx.working_dir();
    if let Some((free, total)) = disk(&working_dir) {
        lines.push(format!(
            "Disk ({}): {} free of {}",
            working_dir.display(),
            size(free),
            size(total)
        ));
    }
    if let Some(uptime) = read_first_number("/proc/uptime") {
        lines.push(format!("Uptime: {}", duration(uptime as u64)));
    }
    if let Ok(load) = fs::read_to_string("/proc/loadavg") {
        let averages: Vec<&str> = load.split_whitespace().take(3).collect();
        lines.push(format!("Load average: {}", averages.join(" ")));
    }
    lines.push(format!(
        "Battery: {}",
        battery().unwrap_or_else(|| "none found".to_string())
    ));
    Ok(lines.join("\n"))
}

fn os_name() -> String {
    let pretty = fs::read_to_string("/etc/os-release").ok().and_then(|text| {
        text.lines()
            .find_map(|line| line.strip_prefix("PRETTY_NAME="))
            .map(|name| name.trim_matches('"').to_string())
    });
    match pretty {
        Some(name) => format!(
            "{name} ({} {})",
            std::env::consts::OS,
            std::env::consts::ARCH
        ),
        None => format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
    }
}

/// Kernel release, machine and host name.
fn uname() -> Option<(String, String, String)> {
    // SAFETY: utsname is plain data; uname fills it and returns 0 on success.
    let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut uts) } != 0 {
        return None;
    }
    // SAFETY: on success each field is a NUL-terminated string inside the struct.
    let field = |raw: &[libc::c_char]| {
        unsafe { CStr::from_ptr(raw.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    };
    Some((
        field(&uts.release),
        field(&uts.machine),
        field(&uts.nodename),
    ))
}

/// (available, total) bytes from /proc/meminfo.
fn memory() -> Option<(u64, u64)> {
    let text = fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
            .map(|kb| kb * 1024)
    };
    Some((field("MemAvailable:")?, field("MemTotal:")?))
}

/// (free, total) bytes of the filesystem holding `path`.
fn disk(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs is plain data, filled by the call for a valid NUL-terminated path.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut stats) } != 0 {
        return None;
    }
    let block = stats.f_frsize as u64;
    Some((stats.f_bavail as u64 * block, stats.f_blocks as u64 * block))
}

fn read_first_number(path: &str) -> Option<f64> {
    fs::read_to_string(path)
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn battery() -> Option<String> {
    let entries = fs::read_dir("/sys/class/power_supply").ok()?;
    entries.filter_map(Result::ok).find_map(|entry| {
        let dir = entry.path();
        let kind = fs::read_to_string(dir.join("type")).ok()?;
        if kind.trim() != "Battery" {
            return None;
        }
        let capacity = fs::read_to_string(dir.join("capacity")).ok()?;
        let status = fs::read_to_string(dir.join("status")).unwrap_or_default();
        Some(format!("{}% ({})", capacity.trim(), status.trim()))
    })
}

fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn duration(seconds: u64) -> String {
    let (days, hours, minutes) = (
        seconds / 86_400,
        seconds % 86_400 / 3600,
        seconds % 3600 / 60,
    );
    if days > 0 {
        format!("{days}d {hours}h {minutes}m")
    } else {
        format!("{hours}h {minutes}m")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> ToolContext {
        ToolContext {
            coding_mode: true,
            ..ToolContext::new(std::env::temp_dir())
        }
    }

    #[test]
    fn system_info_reports_the_machine() {
        let info = system_info(NoArgs {}, &ctx()).unwrap();
        let cpus = std::thread::available_parallelism().unwrap().get();
        assert!(info.contains(&format!("CPUs: {cpus}")), "{info}");
        assert!(info.starts_with("OS: "), "{info}");
        assert!(info.contains("Battery: "), "{info}");
        if cfg!(target_os = "linux") {
            assert!(
                info.contains("Memory: ") && info.contains(" available of "),
                "{info}"
            );
            assert!(info.contains("Disk ("), "{info}");
        }
    }

    #[test]
    fn sizes_and_durations_read_well() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(3 * 1024 * 1024 * 1024), "3.0 GiB");
        assert_eq!(duration(59), "0h 0m");
        assert_eq!(duration(3 * 86_400 + 4 * 3600 + 12 * 60), "3d 4h 12m");
    }
}
