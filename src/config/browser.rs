//! Where the interview form can be shown: in a browser opened here, or, over SSH, on a
//! headless machine or with --no-browser, at an address the person reaches from their own
//! machine through an `ssh -L` tunnel.

use super::Env;
use crate::web::browser::{Launcher, Platform};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct FormSurface {
    /// Open the default browser on the form.
    pub open_browser: bool,
    /// Why no browser is opened, when none is.
    pub why_not: Option<String>,
    /// `user@host` for the `ssh -L` line, when Marvin runs over SSH.
    pub ssh_target: Option<String>,
    /// How a browser is started here: BROWSER, then the platform's openers.
    pub launcher: Launcher,
}

impl FormSurface {
    pub(super) fn from_env(env: &Env, no_browser_flag: bool) -> Self {
        let ssh = env.get("SSH_CONNECTION").is_some() || env.get("SSH_TTY").is_some();
        let platform = if cfg!(target_os = "macos") {
            Platform::MacOs
        } else if env.get("WSL_DISTRO_NAME").is_some() {
            Platform::Wsl
        } else if env.get("TERMUX_VERSION").is_some() {
            Platform::Termux
        } else {
            Platform::Unix
        };
        let browser = env.get("BROWSER");
        // macOS, Windows (under WSL) and Android (Termux) open a browser without X or
        // Wayland; so does whatever BROWSER names, a text browser included.
        let display = platform != Platform::Unix
            || env.get("DISPLAY").is_some()
            || env.get("WAYLAND_DISPLAY").is_some()
            || Launcher::has_browser_variable(browser);
        let variable = env
            .get("MARVIN_NO_BROWSER")
            .is_some_and(|v| !matches!(v, "0" | "false" | "no"));
        let why_not = if no_browser_flag {
            Some("--no-browser was given".to_string())
        } else if variable {
            Some("MARVIN_NO_BROWSER is set".to_string())
        } else if ssh {
            Some("Marvin runs over SSH".to_string())
        } else if !display {
            Some(
                "there is no display here (DISPLAY, WAYLAND_DISPLAY and BROWSER are unset)"
                    .to_string(),
            )
        } else {
            None
        };
        let ssh_target = ssh.then(|| {
            let user = env
                .get("USER")
                .or_else(|| env.get("LOGNAME"))
                .unwrap_or("you");
            // SSH_CONNECTION: client address, client port, server address, server port.
            let host = env
                .get("SSH_CONNECTION")
                .and_then(|c| c.split_whitespace().nth(2))
                .map(|address| match address.contains(':') {
                    true => format!("[{address}]"),
                    false => address.to_string(),
                })
                .unwrap_or_else(hostname);
            format!("{user}@{host}")
        });
        Self {
            open_browser: why_not.is_none(),
            why_not,
            ssh_target,
            launcher: Launcher::new(browser, platform, env.search_path().map(Into::into)),
        }
    }

    /// Opens `url` in a browser when one may be opened here: `None` when it was, else what to
    /// tell the person (why not, and how to get there; `port` for the `ssh -L` line).
    pub fn show(&self, url: &str, port: u16) -> Option<String> {
        if !self.open_browser {
            return self.reach(port);
        }
        match self.launcher.open(url) {
            Ok(()) => None,
            Err(why) => Some(format!("The browser could not be opened: {why}.")),
        }
    }

    /// What to tell the person when no browser was opened: why, and how to get there.
    pub fn reach(&self, port: u16) -> Option<String> {
        let why = self.why_not.as_ref()?;
        let mut text = format!("Not opening a browser because {why}.");
        if let Some(target) = &self.ssh_target {
            text.push_str(&format!(
                "\nFrom your own machine, forward the port first:\n    ssh -L {port}:127.0.0.1:{port} {target}\nthen open the address there."
            ));
        }
        Some(text)
    }
}

fn hostname() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: gethostname writes at most `len` bytes into the buffer we own.
    let ok = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) } == 0;
    let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
    match std::str::from_utf8(&buffer[..end]) {
        Ok(name) if ok && !name.is_empty() => name.to_string(),
        _ => "this-machine".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surface(pairs: &[(&str, &str)], flag: bool) -> FormSurface {
        FormSurface::from_env(&Env::from_pairs(pairs.iter().copied()), flag)
    }

    #[test]
    fn a_browser_opens_only_with_a_display_and_not_over_ssh() {
        let desktop = surface(&[("DISPLAY", ":0")], false);
        assert!(desktop.open_browser && desktop.reach(8080).is_none());
        assert!(surface(&[("WAYLAND_DISPLAY", "wayland-0")], false).open_browser);
        assert!(!surface(&[("DISPLAY", ":0")], true).open_browser);
        assert!(!surface(&[("DISPLAY", ":0"), ("MARVIN_NO_BROWSER", "1")], false).open_browser);
        assert!(surface(&[("DISPLAY", ":0"), ("MARVIN_NO_BROWSER", "0")], false).open_browser);
        if !cfg!(target_os = "macos") {
            let headless = surface(&[], false);
            assert!(!headless.open_browser);
            assert!(headless.reach(1).unwrap().contains("no display"));
        }
    }

    #[test]
    fn wsl_termux_and_browser_open_a_browser_without_x() {
        if cfg!(target_os = "macos") {
            return;
        }
        for pairs in [
            [("WSL_DISTRO_NAME", "Ubuntu")],
            [("TERMUX_VERSION", "0.118.0")],
            [("BROWSER", "w3m")],
        ] {
            assert!(surface(&pairs, false).open_browser, "{pairs:?}");
        }
        assert!(!surface(&[("BROWSER", ":")], false).open_browser);
        let over_ssh = surface(&[("BROWSER", "w3m"), ("SSH_TTY", "/dev/pts/1")], false);
        assert!(!over_ssh.open_browser);
        assert_eq!(
            surface(&[], true).show("http://127.0.0.1:1/", 1).unwrap(),
            "Not opening a browser because --no-browser was given."
        );
        assert_eq!(
            surface(&[("MARVIN_NO_BROWSER", "1")], false)
                .reach(1)
                .unwrap(),
            "Not opening a browser because MARVIN_NO_BROWSER is set."
        );
    }

    #[test]
    fn over_ssh_the_tunnel_line_names_the_user_and_the_server_address() {
        let remote = surface(
            &[
                ("DISPLAY", "localhost:10.0"),
                ("SSH_CONNECTION", "203.0.113.9 52100 198.51.100.7 22"),
                ("USER", "ada"),
            ],
            false,
        );
        assert!(!remote.open_browser);
        let reach = remote.reach(43123).unwrap();
        assert!(
            reach.starts_with("Not opening a browser because Marvin runs over SSH.\n"),
            "{reach}"
        );
        assert!(
            reach.contains("ssh -L 43123:127.0.0.1:43123 ada@198.51.100.7"),
            "{reach}"
        );
        let ipv6 = surface(
            &[("SSH_CONNECTION", "::1 5 fe80::2 22"), ("LOGNAME", "bo")],
            false,
        );
        assert_eq!(ipv6.ssh_target.as_deref(), Some("bo@[fe80::2]"));
        let tty_only = surface(&[("SSH_TTY", "/dev/pts/3")], false);
        assert!(tty_only.ssh_target.unwrap().starts_with("you@"));
    }
}
