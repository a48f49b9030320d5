//! The one-line spinner shown while Marvin waits for the model or for tools: a turning mark,
//! what it waits for and the seconds so far. It only says what to draw; the view draws it on a
//! terminal and erases it without leaving a line behind.

use std::time::{Duration, Instant};

use super::style::Style;
use super::width::truncate;

/// Nothing is drawn for waits shorter than this, so quick answers do not flicker.
const DELAY: Duration = Duration::from_millis(150);
/// How long each frame of the mark stays.
const FRAME: Duration = Duration::from_millis(100);
const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const ASCII_FRAMES: [&str; 4] = ["|", "/", "-", "\\"];

pub(crate) struct Spinner {
    since: Instant,
    /// What is waited for: `thinking`, or the calls under way.
    label: String,
    /// How far the call is, when it says (a download's bytes).
    detail: Option<String>,
    /// The frame last drawn, so an unchanged one is not drawn again.
    drawn: Option<String>,
    /// A call said how far it is: the wait is worth showing at once.
    eager: bool,
}

impl Spinner {
    pub(crate) fn new(label: String) -> Self {
        Self::since(label, Instant::now())
    }

    /// A spinner counting from `since` (a tool round that began earlier).
    pub(crate) fn since(label: String, since: Instant) -> Self {
        Self {
            since,
            label,
            detail: None,
            drawn: None,
            eager: false,
        }
    }

    /// Says what is waited for now; how far the former one was is dropped with it.
    pub(crate) fn relabel(&mut self, label: String) {
        if label != self.label {
            self.label = label;
            self.detail = None;
        }
    }

    /// How far the call is; from now on the spinner is drawn without waiting.
    pub(crate) fn detail(&mut self, detail: String) {
        self.detail = Some(detail);
        self.eager = true;
    }

    /// The line to draw at `now`, fitting `room` columns, when it differs from the one on
    /// screen; `None` when nothing is to be drawn (too early, or unchanged).
    pub(crate) fn frame(&mut self, now: Instant, room: usize, style: Style) -> Option<String> {
        let text = self.render(now, room, style)?;
        if self.drawn.as_deref() == Some(text.as_str()) {
            return None;
        }
        self.drawn = Some(text.clone());
        Some(text)
    }

    /// The screen no longer shows the spinner (it was erased): the next frame is drawn anew.
    pub(crate) fn hidden(&mut self) {
        self.drawn = None;
    }

    fn render(&self, now: Instant, room: usize, style: Style) -> Option<String> {
        let elapsed = now.saturating_duration_since(self.since);
        if elapsed < DELAY && !self.eager {
            return None;
        }
        let tick = (elapsed.as_millis() / FRAME.as_millis()) as usize;
        let mark = if style.unicode {
            FRAMES[tick % FRAMES.len()]
        } else {
            ASCII_FRAMES[tick % ASCII_FRAMES.len()]
        };
        let dot = style.glyph("·", "-");
        let seconds = format!(" {dot} {}s", elapsed.as_secs());
        let detail = self
            .detail
            .as_ref()
            .map(|d| format!(" {dot} {d}"))
            .unwrap_or_default();
        let body = truncate(
            &format!("{}{detail}", self.label),
            room.saturating_sub(2 + seconds.len()),
            style.unicode,
        );
        Some(format!(
            "{} {}",
            style.cyan(mark),
            style.dim(&format!("{body}{seconds}"))
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Style = Style::PLAIN;

    #[test]
    fn nothing_is_drawn_at_first_then_the_seconds_count() {
        let start = Instant::now();
        let mut spinner = Spinner::since("thinking".into(), start);
        assert_eq!(spinner.frame(start, 79, PLAIN), None);
        let later = start + Duration::from_millis(3_050);
        assert_eq!(spinner.frame(later, 79, PLAIN).unwrap(), "⠋ thinking · 3s");
        assert_eq!(
            spinner.frame(later, 79, PLAIN),
            None,
            "unchanged: not redrawn"
        );
        spinner.hidden();
        assert!(spinner.frame(later, 79, PLAIN).is_some());
    }

    #[test]
    fn details_fit_the_room_and_ascii_has_its_own_marks() {
        let start = Instant::now();
        let mut spinner = Spinner::since("download_file  https://example.com/".into(), start);
        spinner.detail("3.1 MB of 10 MB".into());
        let ascii = Style {
            colour: false,
            unicode: false,
        };
        let text = spinner
            .frame(start + Duration::from_secs(4), 40, ascii)
            .unwrap();
        assert!(text.starts_with("| download_file"), "{text}");
        assert!(text.ends_with("... - 4s"), "{text}");
        assert!(super::super::width::width(&text) <= 40, "{text}");
    }
}
