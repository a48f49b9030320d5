//! Times commands for scripts/bench.sh: interleaved runs, median wall time, peak RSS.
//!
//! bench_measure RUNS --cmd NAME -- ARGV... [--cmd NAME -- ARGV...]
//! Prints one line per command: `NAME MEDIAN_MS MAX_RSS_KB`. Each child is reaped with wait4,
//! so its own peak RSS is read from its rusage. A spawned child starts from this small
//! process's memory, which bounds the RSS floor (compare with /bin/true).

// A benchmark starts the programs it measures: not programs for a model.
#![allow(clippy::disallowed_methods)]

use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs: usize = args[0].parse().expect("RUNS");
    let commands = parse(&args[1..]);
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); commands.len()];
    let mut peaks = vec![0i64; commands.len()];
    for _ in 0..runs {
        for (i, (_, argv)) in commands.iter().enumerate() {
            let (ms, rss_kb) = run_once(argv);
            times[i].push(ms);
            peaks[i] = peaks[i].max(rss_kb);
        }
    }
    for (i, (name, _)) in commands.iter().enumerate() {
        times[i].sort_by(f64::total_cmp);
        let median = times[i][times[i].len() / 2];
        println!("{name} {median:.3} {}", peaks[i]);
    }
}

fn parse(mut rest: &[String]) -> Vec<(String, Vec<String>)> {
    let mut commands = Vec::new();
    while !rest.is_empty() {
        assert_eq!(rest[0], "--cmd", "expected --cmd NAME -- ARGV");
        let name = rest[1].clone();
        rest = &rest[3..];
        let end = rest.iter().position(|a| a == "--cmd").unwrap_or(rest.len());
        commands.push((name, rest[..end].to_vec()));
        rest = &rest[end..];
    }
    commands
}

// The child is reaped by libc::wait4, which std's Child cannot see: wait4 gives its rusage.
#[allow(clippy::zombie_processes)]
fn run_once(argv: &[String]) -> (f64, i64) {
    let start = Instant::now();
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", argv[0]));
    let mut status = 0;
    // SAFETY: rusage is plain data filled by wait4 for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed().as_secs_f64() * 1000.0;
    assert!(
        pid > 0 && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{} failed",
        argv.join(" ")
    );
    (elapsed, usage.ru_maxrss)
}
