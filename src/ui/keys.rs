//! Reading single keys from the terminal: raw mode while a question is open (restored on every
//! path out), arrow-key escape sequences decoded, a deadline honoured with poll(2); and no
//! `^C` echoed into an answer while it streams.

use std::time::Instant;

/// A key press, or why none came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    Up,
    Down,
    Enter,
    Space,
    Backspace,
    CtrlC,
    CtrlD,
    Char(char),
    /// Esc pressed on its own.
    Escape,
    /// Ctrl+U: clear the line typed so far.
    ClearLine,
    /// A key that means nothing here: an escape sequence not decoded (Right, Home, F1).
    Other,
    /// The deadline passed.
    Timeout,
    /// A signal arrived while waiting (SIGINT when the terminal is in line mode).
    Interrupted,
    /// Input ended or failed.
    Closed,
}

/// Raw mode on stdin for as long as it lives: no echo, no line buffering, Ctrl+C as a key.
pub(crate) struct RawMode {
    saved: libc::termios,
}

impl RawMode {
    pub(crate) fn enable() -> Option<RawMode> {
        Self::with(
            libc::ICANON | libc::ECHO | libc::ISIG | libc::IEXTEN,
            libc::ICRNL | libc::IXON,
        )
    }

    /// No echo and no line buffering, but Ctrl+C still signals and Enter may come as `\n`:
    /// for listening while keys are only looked at (voice input), so that typing does not
    /// echo over what is shown.
    pub(crate) fn quiet() -> Option<RawMode> {
        Self::with(libc::ICANON | libc::ECHO, 0)
    }

    /// Line mode as it was, Ctrl+C still signalling, but the terminal does not echo it as
    /// `^C` (ECHOCTL) at the cursor, in the middle of the answer being written: for a turn.
    pub(crate) fn no_control_echo() -> Option<RawMode> {
        Self::adjust(|mode| mode.c_lflag &= !libc::ECHOCTL)
    }

    /// Clears `local` and `input` flags of stdin's terminal until dropped.
    fn with(local: libc::tcflag_t, input: libc::tcflag_t) -> Option<RawMode> {
        Self::adjust(|raw| {
            raw.c_lflag &= !local;
            raw.c_iflag &= !input;
            raw.c_cc[libc::VMIN] = 1;
            raw.c_cc[libc::VTIME] = 0;
        })
    }

    /// Changes the attributes of stdin's terminal as `change` says, until dropped.
    fn adjust(change: impl FnOnce(&mut libc::termios)) -> Option<RawMode> {
        // SAFETY: termios is plain data; tcgetattr fills it for fd 0 or fails.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(0, &mut saved) } != 0 {
            return None;
        }
        let mut changed = saved;
        change(&mut changed);
        // SAFETY: setting attributes we just read and adjusted.
        (unsafe { libc::tcsetattr(0, libc::TCSANOW, &changed) } == 0).then_some(RawMode { saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // SAFETY: restoring the attributes saved at enable().
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.saved);
        }
    }
}

/// Waits up to `deadline` for stdin to have input: Ok(true) ready, Ok(false) timed out,
/// Err(true) interrupted by a signal, Err(false) failed.
fn wait_readable(deadline: Instant) -> Result<bool, bool> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Ok(false);
    }
    let mut fds = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = left.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: one pollfd for stdin, valid for the call.
    match unsafe { libc::poll(&mut fds, 1, millis) } {
        0 => Ok(false),
        n if n > 0 => Ok(true),
        _ => Err(std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted),
    }
}

fn read_byte() -> Option<u8> {
    let mut byte = 0u8;
    // SAFETY: reading one byte into a local buffer.
    let n = unsafe { libc::read(0, (&mut byte as *mut u8).cast(), 1) };
    (n == 1).then_some(byte)
}

/// The next key before `deadline`.
pub(crate) fn read_key(deadline: Instant) -> Key {
    match wait_readable(deadline) {
        Ok(true) => {}
        Ok(false) => return Key::Timeout,
        Err(true) => return Key::Interrupted,
        Err(false) => return Key::Closed,
    }
    let Some(byte) = read_byte() else {
        return Key::Closed;
    };
    match byte {
        b'\r' | b'\n' => Key::Enter,
        b' ' => Key::Space,
        3 => Key::CtrlC,
        4 => Key::CtrlD,
        8 | 127 => Key::Backspace,
        0x15 => Key::ClearLine,
        0x1b => escape(),
        _ => utf8(byte),
    }
}

/// After ESC: `[A`/`OA` up, `[B`/`OB` down; ESC with nothing after it is Esc itself, and any
/// other sequence a key without a meaning here.
fn escape() -> Key {
    let soon = Instant::now() + std::time::Duration::from_millis(30);
    if wait_readable(soon) != Ok(true) {
        return Key::Escape;
    }
    let first = read_byte();
    let second = if wait_readable(soon) == Ok(true) {
        read_byte()
    } else {
        None
    };
    match (first, second) {
        (Some(b'[' | b'O'), Some(b'A')) => Key::Up,
        (Some(b'[' | b'O'), Some(b'B')) => Key::Down,
        _ => Key::Other,
    }
}

/// A printable character, reading the rest of a multi-byte UTF-8 sequence.
fn utf8(first: u8) -> Key {
    let len = match first {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    };
    let mut bytes = vec![first];
    while bytes.len() < len {
        match read_byte() {
            Some(byte) => bytes.push(byte),
            None => break,
        }
    }
    match std::str::from_utf8(&bytes)
        .ok()
        .and_then(|s| s.chars().next())
    {
        Some(c) if !c.is_control() => Key::Char(c),
        _ => Key::Char('\u{fffd}'),
    }
}
