//! ANSI styling, on only when the output is a terminal and the environment allows colour.

/// Wraps text in ANSI codes, or leaves it alone when colour is off; picks a symbol or its
/// ASCII stand-in by the locale.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub colour: bool,
    /// The locale can show symbols beyond ASCII (emoji, ✓, box lines).
    pub unicode: bool,
}

impl Style {
    /// No colour, symbols beyond ASCII: what tests compare against.
    #[cfg(test)]
    pub(crate) const PLAIN: Style = Style {
        colour: false,
        unicode: true,
    };

    /// `symbol` where the locale shows it, else `ascii`.
    pub(crate) fn glyph(self, symbol: &'static str, ascii: &'static str) -> &'static str {
        if self.unicode { symbol } else { ascii }
    }

    pub(crate) fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    pub(crate) fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    pub(crate) fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    pub(crate) fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    pub(crate) fn paint_green(self, text: &str) -> String {
        self.paint("32", text)
    }

    pub(crate) fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paints_only_with_colour() {
        let style = |colour| Style {
            colour,
            unicode: true,
        };
        assert_eq!(style(true).dim("x"), "\x1b[2mx\x1b[0m");
        assert_eq!(style(false).red("x"), "x");
    }

    #[test]
    fn symbols_fall_back_to_ascii() {
        let style = |unicode| Style {
            colour: false,
            unicode,
        };
        assert_eq!(style(true).glyph("✓", "ok"), "✓");
        assert_eq!(style(false).glyph("✓", "ok"), "ok");
    }
}
