//! What the person types while a question is open: a line edited in raw mode (starting from
//! what is kept, Backspace and Ctrl+U to change it) or typed in the terminal's own line mode on
//! a dumb terminal, and each key before the question's deadline, which stops early when the
//! question closed elsewhere, the run is asked to end, or Esc closes a form.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::{Asker, Stop};
use crate::ui::keys::{self, Key};
use crate::ui::sanitize::sanitize;
use crate::ui::signal::Watch;

impl Asker<'_> {
    /// A line of free text, edited in raw mode (or typed normally on a dumb terminal).
    pub(super) fn text(&mut self, label: &str, deadline: Instant) -> Result<String, Stop> {
        self.edit(label, "", deadline)
    }

    /// [`Self::text`] starting from `start`, shown after `label` to be kept with Enter or
    /// changed (Backspace, Ctrl+U clears); on a dumb terminal Enter alone keeps it.
    pub(super) fn edit(
        &mut self,
        label: &str,
        start: &str,
        deadline: Instant,
    ) -> Result<String, Stop> {
        if self.margin > 0 {
            self.out.write(&" ".repeat(self.margin));
        }
        self.out.write(label);
        let Some(_raw) = self.raw_mode() else {
            if !start.is_empty() {
                let kept = format!("(Enter keeps {}) ", sanitize(start));
                self.out.write(&self.style.dim(&kept));
            }
            self.out.flush();
            let typed = self.read_line(deadline)?;
            return Ok(if typed.is_empty() {
                start.trim().to_string()
            } else {
                typed
            });
        };
        let mut text = start.to_string();
        self.out.write(&sanitize(&text));
        self.out.flush();
        loop {
            let key = self.key(deadline).inspect_err(|_| self.out.write("\n"));
            match key? {
                Key::Enter => {
                    self.out.write("\n");
                    return Ok(text.trim().to_string());
                }
                Key::Char(c) => {
                    text.push(c);
                    self.out.write(&sanitize(&c.to_string()));
                }
                Key::Space => {
                    text.push(' ');
                    self.out.write(" ");
                }
                Key::Backspace => {
                    if text.pop().is_some() {
                        self.out.write("\x08 \x08");
                    }
                }
                Key::ClearLine => {
                    let typed = text.chars().count();
                    self.out.write(&"\x08 \x08".repeat(typed));
                    text.clear();
                }
                Key::CtrlC | Key::CtrlD | Key::Closed => {
                    self.out.write("\n");
                    return Err(Stop::Cancelled);
                }
                Key::Timeout => {
                    self.out.write("\n");
                    return Err(Stop::TimedOut);
                }
                Key::Up | Key::Down | Key::Interrupted | Key::Escape | Key::Other => {}
            }
            self.out.flush();
        }
    }

    /// A line typed in the terminal's own line mode; Ctrl+C there arrives as SIGINT.
    pub(super) fn read_line(&mut self, deadline: Instant) -> Result<String, Stop> {
        let mut watch = Watch::new();
        let mut bytes = Vec::new();
        loop {
            match self.key(deadline)? {
                Key::Enter => return Ok(String::from_utf8_lossy(&bytes).trim().to_string()),
                Key::Char(c) => bytes.extend(c.to_string().as_bytes()),
                Key::Space => bytes.push(b' '),
                Key::Backspace => {
                    bytes.pop();
                }
                Key::Timeout => return Err(Stop::TimedOut),
                Key::CtrlC | Key::CtrlD | Key::Closed => return Err(Stop::Cancelled),
                Key::ClearLine => bytes.clear(),
                Key::Up | Key::Down | Key::Interrupted | Key::Escape | Key::Other => {}
            }
            if watch.fired() {
                return Err(Stop::Cancelled);
            }
        }
    }

    /// The next key before `deadline`; stops early when the question closed, the interview
    /// was answered elsewhere or SIGTERM/SIGHUP asked the run to end, and at Esc when what is
    /// asked may be closed.
    pub(super) fn key(&mut self, deadline: Instant) -> Result<Key, Stop> {
        loop {
            if crate::ui::signal::stop_signal().is_some() {
                return Err(Stop::Cancelled);
            }
            if let Some(why) = self.withdrawn.as_ref().and_then(|w| w.get()) {
                return Err(Stop::Withdrawn(why.clone()));
            }
            if self
                .elsewhere
                .as_ref()
                .is_some_and(|elsewhere| elsewhere.load(Ordering::SeqCst))
            {
                return Err(Stop::Elsewhere);
            }
            let slice = (Instant::now() + Duration::from_millis(100)).min(deadline);
            match keys::read_key(slice) {
                Key::Timeout if Instant::now() < deadline => {}
                Key::Escape if self.dismissable => return Err(Stop::Dismissed),
                key => return Ok(key),
            }
        }
    }
}
