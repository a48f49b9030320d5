//! The terminal as a person sees it at 80 columns: what Marvin prints itself fits, symbols
//! fall back to ASCII where the locale is not UTF-8.

use crate::common::pty::Pty;
use crate::common::{ReplayServer, Reply, TempDir, marvin};

/// The REPL on an 80×24 terminal against `url`, with `env` besides the usual.
fn at_80(home: &TempDir, url: &str, env: &[(&str, &str)], args: &[&str]) -> Pty {
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", url)
        .env("MARVIN_MODEL", "gpt-4o")
        .env("TERM", "xterm")
        .envs(env.iter().copied())
        .args(args);
    Pty::spawn_sized(command, 80, 24)
}

#[test]
fn a_c_locale_gets_ascii_instead_of_symbols() {
    let home = TempDir::new("ux-ascii");
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("c1", "system_info", "{}")]),
        Reply::text(&["Fine."]),
    ]);
    let mut pty = at_80(
        &home,
        &server.url(),
        &[("LANG", "C")],
        &["--once", "how is the machine?"],
    );
    pty.wait_for("Fine.");
    assert!(pty.wait_exit().success());
    let screen = pty.visible().text();
    assert!(screen.contains("  + system_info  (0.0s)"), "{screen}");
    assert!(screen.is_ascii(), "{screen}");
}
