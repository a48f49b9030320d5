//! A writer for stdout or stderr that remembers whether it is mid-line, flushes as policy
//! says, and turns a closed pipe (`marvin ... | head`) into a quiet stop instead of an error.

use std::io::{self, IsTerminal, Write};

/// Writes `marvin: MESSAGE` on stderr, the house way for a warning or an error; text that came
/// from outside (a server's reply, a file name, a tool definition) is made harmless and the
/// line wrapped to the terminal's width when stderr is a terminal, and left byte-exact for a
/// pipe or a file.
pub(crate) fn warn(message: &str) {
    let mut err = io::stderr();
    let line = if err.is_terminal() {
        let line = format!("marvin: {}", super::sanitize::sanitize(message));
        format!("{}\n", super::width::fit(&line, super::width::line_width()))
    } else {
        format!("marvin: {message}\n")
    };
    // Nothing sensible is left to do when stderr itself is gone.
    let _ = err.write_all(line.as_bytes());
}

pub(crate) struct Out {
    writer: Box<dyn Write>,
    terminal: bool,
    flush_each: bool,
    at_line_start: bool,
    broken: bool,
}

impl Out {
    /// Standard output; flushed after every write on a terminal or when `flush_each` is set.
    pub(crate) fn stdout(flush_each: bool) -> Self {
        let terminal = io::stdout().is_terminal();
        Self::new(Box::new(io::stdout()), terminal, flush_each || terminal)
    }

    pub(crate) fn stderr() -> Self {
        let terminal = io::stderr().is_terminal();
        Self::new(Box::new(io::stderr()), terminal, true)
    }

    pub(crate) fn new(writer: Box<dyn Write>, terminal: bool, flush_each: bool) -> Self {
        Self {
            writer,
            terminal,
            flush_each,
            at_line_start: true,
            broken: false,
        }
    }

    pub(crate) fn is_terminal(&self) -> bool {
        self.terminal
    }

    /// The reader went away: there is no point in producing more output.
    pub(crate) fn is_broken(&self) -> bool {
        self.broken
    }

    /// Writes text that came from outside (the model, a tool, a server): on a terminal with
    /// escape sequences and control characters made harmless, elsewhere byte for byte.
    pub(crate) fn write_outside(&mut self, text: &str) {
        if self.terminal {
            self.write(&super::sanitize::sanitize(text));
        } else {
            self.write(text);
        }
    }

    pub(crate) fn write(&mut self, text: &str) {
        self.write_then(text, self.flush_each);
    }

    /// Writes text that came from outside, as `write_outside` does, without flushing it: the
    /// caller flushes a run of such writes together (`flush`, or the next `write`).
    pub(crate) fn write_outside_held(&mut self, text: &str) {
        if self.terminal {
            self.write_then(&super::sanitize::sanitize(text), false);
        } else {
            self.write_then(text, false);
        }
    }

    /// Writes `text` without flushing it: see `write_outside_held`.
    pub(crate) fn write_held(&mut self, text: &str) {
        self.write_then(text, false);
    }

    fn write_then(&mut self, text: &str, flush: bool) {
        if text.is_empty() || self.broken {
            return;
        }
        let mut result = self.writer.write_all(text.as_bytes());
        if result.is_ok() && flush {
            result = self.writer.flush();
        }
        self.note(result);
        self.at_line_start = text.ends_with('\n');
    }

    /// Ends the current line if something was written on it.
    pub(crate) fn end_line(&mut self) {
        if !self.at_line_start {
            self.write("\n");
        }
    }

    /// Erases the current line on a terminal (a line rewritten in place) and starts afresh.
    pub(crate) fn erase_line(&mut self) {
        self.write("\r\x1b[2K");
        self.at_line_start = true;
    }

    pub(crate) fn flush(&mut self) {
        let result = self.writer.flush();
        self.note(result);
    }

    fn note(&mut self, result: io::Result<()>) {
        // Any write error (EPIPE above all) means nobody reads us any more.
        if result.is_err() {
            self.broken = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn end_line_only_when_mid_line() {
        let buffer = Shared::default();
        let mut out = Out::new(Box::new(buffer.clone()), false, false);
        out.end_line();
        out.write("abc");
        out.end_line();
        out.end_line();
        assert_eq!(buffer.0.lock().unwrap().as_slice(), b"abc\n");
    }

    #[test]
    fn broken_pipe_is_remembered_not_fatal() {
        let mut out = Out::new(Box::new(Closed), false, true);
        out.write("x");
        assert!(out.is_broken());
        out.write("y");
    }
}
