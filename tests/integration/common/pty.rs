//! Running the binary under a real pseudo-terminal, typing into it and reading what it shows.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Pty {
    width: usize,
    writer: File,
    child: Child,
    screen: Arc<Mutex<Vec<u8>>>,
    /// The reader has seen the end: every holder of the terminal has closed it.
    drained: Arc<std::sync::atomic::AtomicBool>,
}

impl Pty {
    /// Starts `command` with a pty of 100x30 as its controlling terminal.
    pub fn spawn(command: Command) -> Self {
        Self::spawn_sized(command, 100, 30)
    }

    /// Starts `command` with a pty of `width` columns and `height` rows.
    pub fn spawn_sized(mut command: Command, width: u16, height: u16) -> Self {
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize {
            ws_row: height,
            ws_col: width,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty fills two fds; the null pointers ask for no name and default termios.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(rc, 0, "openpty failed");
        // SAFETY: both fds were just opened for us and are owned from here on.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        command
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().unwrap();
        let master = File::from(master);
        let mut reader = master.try_clone().unwrap();
        let screen = Arc::new(Mutex::new(Vec::new()));
        let sink = screen.clone();
        let drained = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = drained.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            done.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        Self {
            width: usize::from(width),
            writer: master,
            child,
            screen,
            drained,
        }
    }

    /// The process's id, to look at it in /proc.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Everything shown so far.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned()
    }

    /// The terminal as a person sees it now: rows rebuilt from what was written, with the
    /// lines that ran past the right margin noted.
    pub fn visible(&self) -> super::screen::Screen {
        super::screen::Screen::replay(&self.screen(), self.width)
    }

    /// Waits until `text` has been shown `times` times in all.
    pub fn wait_for_nth(&self, text: &str, times: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.screen().matches(text).count() < times {
            assert!(
                Instant::now() < deadline,
                "waited for {text:?} x{times}; screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until the last line shown is the REPL's prompt: the line editor reads keys again
    /// (keys sent earlier go through the terminal's line mode and are echoed as they are).
    pub fn wait_for_prompt(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            let last_line = screen.rsplit('\n').next().unwrap_or("");
            if last_line.contains("› ") {
                return;
            }
            assert!(Instant::now() < deadline, "no prompt; screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn wait_for(&self, text: &str) {
        self.wait_for_nth(text, 1);
    }

    /// Waits until the screen shows `text` as a person reads it: the rows Marvin wrapped it
    /// onto read as one, the spaces between words counting as one.
    pub fn wait_for_words(&self, text: &str) {
        let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
        let wanted = words(text);
        let deadline = Instant::now() + Duration::from_secs(20);
        while !words(&self.visible().text()).contains(&wanted) {
            assert!(
                Instant::now() < deadline,
                "waited for {text:?}; screen:\n{}",
                self.visible().text()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until a prompt (`› `) is the last thing on screen, then sends Ctrl+D and waits
    /// for the exit. (Ctrl+D typed before the prompt is back would be taken by the terminal's
    /// own line mode and lost.)
    pub fn leave(&mut self) -> ExitStatus {
        self.wait_for_prompt();
        self.send("\x04");
        self.wait_exit()
    }

    /// Sends `signal` to the process, as `kill -SIGNAL` would.
    pub fn signal(&self, signal: i32) {
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(self.child.id() as i32, signal) };
    }

    /// SIGKILL, as from `kill -9`: no handler runs, nothing is flushed.
    pub fn kill_hard(&mut self) -> ExitStatus {
        self.child.kill().unwrap();
        self.child.wait().unwrap()
    }

    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // What it wrote last may still be on its way from the pty: read it all (a
                // child it left behind may hold the pty; then give up after a while).
                let drained = Instant::now() + Duration::from_secs(2);
                while !self.drained.load(std::sync::atomic::Ordering::SeqCst)
                    && Instant::now() < drained
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "process did not exit; screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The REPL on a `width`×24 terminal against the model server at `url`, with `env` besides
/// the clean environment of [`super::marvin`].
pub fn repl_at(
    width: u16,
    home: &super::TempDir,
    url: &str,
    env: &[(&str, &str)],
    args: &[&str],
) -> Pty {
    let mut command = super::marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", url)
        .env("MARVIN_MODEL", "gpt-4o")
        .env("TERM", "xterm")
        .envs(env.iter().copied())
        .args(args);
    Pty::spawn_sized(command, width, 24)
}

/// [`repl_at`] an 80-column terminal.
pub fn at_80(home: &super::TempDir, url: &str, env: &[(&str, &str)], args: &[&str]) -> Pty {
    repl_at(80, home, url, env, args)
}

impl Pty {
    /// At the prompt: turns coding mode on, then sends `prompt`.
    pub fn send_in_coding_mode(&mut self, prompt: &str) {
        self.wait_for("› ");
        self.send("!code\r");
        self.wait_for("code› ");
        self.send(&format!("{prompt}\r"));
    }
}
