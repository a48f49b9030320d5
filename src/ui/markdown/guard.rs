//! A panic while rendering (a bug) caught, and what shows instead: the renderer's entry
//! points run guarded, the panic hook stays quiet for them (no message or backtrace over the
//! answer), what the renderer held comes out as text, the rest of the answer passes as the
//! sanitized text it is, and one line at its end says so and where.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use super::{Line, Markdown, inline};

impl Markdown {
    /// Runs `work` on a fresh output and returns it; after a panic in it, what it wrote is
    /// kept and what the renderer held follows as text, and the renderer gives up on this
    /// answer (the next starts afresh after [`Markdown::finish`]).
    pub(super) fn guard(&mut self, work: impl FnOnce(&mut Self, &mut String)) -> String {
        let mut out = String::new();
        if let Err(place) = guarded(|| work(self, &mut out)) {
            if self.style.colour {
                // Whatever style the line had on ends here.
                out.push_str(&inline::sgr(""));
            }
            out.push_str(&guarded(|| self.held()).unwrap_or_default());
            self.fault = Some(place);
            if !out.is_empty() {
                self.line_ended = out.ends_with('\n');
            }
        }
        out
    }

    /// Text after a fault, as it is (sanitized already).
    pub(super) fn plain(&mut self, text: &str) -> String {
        if !text.is_empty() {
            self.line_ended = text.ends_with('\n');
        }
        text.to_string()
    }

    /// What the renderer held, as text: the word being wrapped and the spaces after it, a
    /// table's rows, the text not rendered yet (all of the buffer if its position broke:
    /// shown twice, not lost).
    fn held(&mut self) -> String {
        let mut out = String::new();
        if let Line::Text(text) = &mut self.line {
            text.wrap.end(&mut out);
        }
        if let Some(table) = self.table.take() {
            for row in table.rows {
                out.push_str(&row);
                out.push('\n');
            }
        }
        out.push_str(self.buf.get(self.pos..).unwrap_or(&self.buf));
        self.buf.clear();
        self.pos = 0;
        out
    }

    /// After a fault, the line that ends the answer: what happened and where (nothing when
    /// none happened). `out`: what the answer's end writes before it.
    pub(super) fn note(&self, out: &str) -> String {
        let Some(place) = &self.fault else {
            return String::new();
        };
        let ended = match out.is_empty() {
            true => self.line_ended,
            false => out.ends_with('\n'),
        };
        let line = format!(
            "[marvin: showing this answer's Markdown failed at {place} (a bug in Marvin); \
             from there on it is plain text]"
        );
        format!("{}{}", if ended { "" } else { "\n" }, self.style.dim(&line))
    }
}

thread_local! {
    /// Set while this thread renders: a panic now is one [`guarded`] catches. Each thread's
    /// own, so a renderer never silences another thread's crash.
    static RENDERING: Cell<bool> = const { Cell::new(false) };
    /// Where the last panic caught while rendering happened (`file:line`).
    static PLACE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `work`; a panic in it comes back as where it happened.
pub(super) fn guarded<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    // Restored rather than cleared: a guarded call inside another stays guarded.
    let outer = RENDERING.with(|flag| flag.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(work));
    RENDERING.with(|flag| flag.set(outer));
    result.map_err(|_| {
        PLACE
            .with(|place| place.borrow_mut().take())
            .unwrap_or_else(|| "an unknown place".to_string())
    })
}

/// Wraps the panic hook in place (the default one, or the tools' that wraps it) once per
/// process: a panic while rendering is noted, not printed; any other goes on to it.
fn install_hook() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if RENDERING.with(Cell::get) {
                let place = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
                PLACE.with(|slot| *slot.borrow_mut() = place);
            } else {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_comes_back_as_its_place_and_the_flag_is_restored() {
        assert_eq!(guarded(|| 7), Ok(7));
        let place = guarded(|| {
            let empty: Vec<u8> = Vec::new();
            empty[usize::from(empty.is_empty())]
        })
        .unwrap_err();
        assert!(place.starts_with("src/ui/markdown/guard.rs:"), "{place}");
        assert!(!RENDERING.with(Cell::get));
        let nested = guarded(|| guarded(|| panic!("inner")).is_err() && RENDERING.with(Cell::get));
        assert_eq!(nested, Ok(true));
        assert!(!RENDERING.with(Cell::get));
    }
}
