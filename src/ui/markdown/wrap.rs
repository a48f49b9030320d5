//! Prose fitted to the terminal's width as it streams: each word is held until it ends, then
//! goes on the row it fits on or starts the next one, which opens with the line's hanging
//! prefix (a quote's bars, a list item's indentation); a word wider than a row is broken.

use crate::ui::width::char_width;

/// One line of rendered text (with this renderer's SGR codes) on its way to the screen.
pub(super) struct Wrap {
    /// The most columns a row may take.
    width: usize,
    /// What starts each row after the first, and its columns.
    hang: String,
    hang_width: usize,
    /// The columns taken on the current row.
    column: usize,
    /// A word was written on the current row (after its lead or hang).
    row_has_text: bool,
    /// The spaces and SGR codes since the last word written.
    gap: String,
    /// The word being received (with the SGR codes inside it) and its columns.
    word: String,
    word_width: usize,
    /// The SGR sequence in force after what was written: each code this renderer writes sets
    /// the whole state (`ESC[0;…m`), so the last one is all a new row needs to restore.
    sgr: String,
}

impl Wrap {
    /// A line whose first row already holds `lead` columns (bars, a bullet) and whose text is
    /// in `sgr` (a heading's style; empty for none); `hang` starts every later row.
    pub(super) fn new(width: usize, lead: usize, hang: String, sgr: &str) -> Self {
        Self {
            width,
            hang_width: super::table::display_width(&hang),
            hang,
            column: lead,
            row_has_text: false,
            gap: String::new(),
            word: String::new(),
            word_width: 0,
            sgr: sgr.to_string(),
        }
    }

    /// Takes the next rendered piece of the line (no newline in it) and writes to `out` the
    /// words that ended in it.
    pub(super) fn push(&mut self, text: &str, out: &mut String) {
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if c == '\x1b' {
                let end = rest.find('m').map_or(rest.len(), |m| m + 1);
                let held = match self.word.is_empty() {
                    true => &mut self.gap,
                    false => &mut self.word,
                };
                held.push_str(&rest[..end]);
                rest = &rest[end..];
                continue;
            }
            rest = &rest[c.len_utf8()..];
            if c == super::syntax::SOFT {
                // The paragraph's next line: a row of its own, the spaces before it dropped.
                self.place(out);
                self.break_row(out);
                continue;
            }
            if c == ' ' || c == '\t' {
                self.place(out);
                self.gap.push(c);
                continue;
            }
            self.word.push(c);
            self.word_width += char_width(c);
            while self.word_width > self.room() {
                self.split(out);
            }
        }
    }

    /// The stream paused in the middle of a word: what came of it is shown now, where it
    /// fits as it is (should the word go on past the row, the rest starts the next one).
    pub(super) fn release(&mut self, out: &mut String) {
        self.place(out);
    }

    /// The line ended: writes the last word, and the spaces after it where they fit.
    pub(super) fn end(&mut self, out: &mut String) {
        self.place(out);
        let gap = std::mem::take(&mut self.gap);
        if self.column + self.gap_width(&gap) <= self.width {
            out.push_str(&gap);
        } else {
            out.push_str(&escapes(&gap));
        }
    }

    /// The columns a word may take on a row of its own.
    fn room(&self) -> usize {
        self.width.saturating_sub(self.hang_width).max(1)
    }

    /// The columns the spaces of `gap` take from the current column (tabs to the next stop).
    fn gap_width(&self, gap: &str) -> usize {
        let mut column = self.column;
        for c in gap.chars() {
            match c {
                ' ' => column += 1,
                '\t' => column += 8 - column % 8,
                _ => {}
            }
        }
        column - self.column
    }

    /// The word ended: it goes after the gap on this row if it fits, else on a new row.
    fn place(&mut self, out: &mut String) {
        if self.word.is_empty() {
            return;
        }
        let gap = self.gap_width(&self.gap);
        if self.row_has_text && self.column + gap + self.word_width > self.width {
            self.break_row(out);
        } else {
            self.write_gap(out);
        }
        let word = std::mem::take(&mut self.word);
        self.write(&word, self.word_width, out);
        self.word_width = 0;
    }

    /// The word is wider than any row: what fits goes on this row (a new one when this has
    /// text), the rest is held for the next.
    fn split(&mut self, out: &mut String) {
        if self.row_has_text {
            self.break_row(out);
        } else {
            self.write_gap(out);
        }
        let free = self.width.saturating_sub(self.column);
        let (mut at, mut taken) = (0, 0);
        while let Some(c) = self.word[at..].chars().next() {
            let (len, columns) = match c {
                '\x1b' => (self.word[at..].find('m').map_or(1, |m| m + 1), 0),
                c => (c.len_utf8(), char_width(c)),
            };
            if taken + columns > free && taken > 0 {
                break;
            }
            at += len;
            taken += columns;
        }
        let rest = self.word.split_off(at);
        let head = std::mem::replace(&mut self.word, rest);
        self.write(&head, taken, out);
        self.word_width -= taken;
        if !self.word.is_empty() {
            self.break_row(out);
        }
    }

    fn write_gap(&mut self, out: &mut String) {
        let gap = std::mem::take(&mut self.gap);
        self.column += self.gap_width(&gap);
        self.note_sgr(&gap);
        out.push_str(&gap);
    }

    fn write(&mut self, text: &str, columns: usize, out: &mut String) {
        out.push_str(text);
        self.note_sgr(text);
        self.column += columns;
        self.row_has_text = true;
    }

    /// Ends the row and starts the next with the hang, the style in force carried over (it is
    /// off across the line break, so that an underline or a colour does not run on).
    fn break_row(&mut self, out: &mut String) {
        let styled = |sgr: &str| !sgr.is_empty() && sgr != "\x1b[0m";
        if styled(&self.sgr) {
            out.push_str("\x1b[0m");
        }
        let gap = std::mem::take(&mut self.gap);
        self.note_sgr(&gap);
        out.push('\n');
        out.push_str(&self.hang);
        if styled(&self.sgr) {
            out.push_str(&self.sgr);
        }
        self.column = self.hang_width;
        self.row_has_text = false;
    }

    /// Remembers the last SGR sequence in `text`, the state from there on.
    fn note_sgr(&mut self, text: &str) {
        if let Some(at) = text.rfind('\x1b') {
            let end = text[at..].find('m').map_or(text.len(), |m| at + m + 1);
            self.sgr = text[at..end].to_string();
        }
    }
}

/// The SGR sequences in `text`, without what is between them.
fn escapes(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        let end = rest[at..].find('m').map_or(rest.len(), |m| at + m + 1);
        out.push_str(&rest[at..end]);
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` pushed in pieces of `size` characters into a line `width` wide.
    fn wrapped(text: &str, width: usize, lead: usize, hang: &str, size: usize) -> String {
        let mut wrap = Wrap::new(width, lead, hang.to_string(), "");
        let mut out = String::new();
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(size) {
            wrap.push(&piece.iter().collect::<String>(), &mut out);
        }
        wrap.end(&mut out);
        out
    }

    #[test]
    fn words_move_to_the_next_row_whole() {
        // (text, width, lead, hang, expected)
        let cases: &[(&str, usize, usize, &str, &str)] = &[
            ("one two three", 80, 0, "", "one two three"),
            ("one two three", 7, 0, "", "one two\nthree"),
            ("one two three", 8, 2, "  ", "one\n  two\n  three"),
            (
                "an eighty column line",
                10,
                0,
                "",
                "an eighty\ncolumn\nline",
            ),
            ("trailing  ", 12, 0, "", "trailing  "),
            ("trailing  ", 9, 0, "", "trailing"),
            ("a abcdefghijkl b", 5, 0, "", "a\nabcde\nfghij\nkl b"),
            ("  indented text", 10, 0, "", "  indented\ntext"),
            ("日本語 日本語 日本語", 14, 0, "", "日本語 日本語\n日本語"),
            ("x\ty z", 10, 0, "", "x\ty\nz"),
        ];
        for (text, width, lead, hang, expected) in cases {
            for size in [1, 3, 100] {
                assert_eq!(
                    wrapped(text, *width, *lead, hang, size),
                    *expected,
                    "{text:?} at {width}, pieces of {size}"
                );
            }
        }
    }

    #[test]
    fn a_style_is_closed_before_a_break_and_opened_after_it() {
        let mut wrap = Wrap::new(8, 2, "│ ".into(), "\x1b[0;1;4m");
        let mut out = String::new();
        wrap.push("big \x1b[0;1;4;36mtitle\x1b[0;1;4m here", &mut out);
        wrap.end(&mut out);
        assert_eq!(
            out,
            "big\x1b[0m\n│ \x1b[0;1;4;36mtitle\x1b[0;1;4m\x1b[0m\n│ \x1b[0;1;4mhere"
        );
    }

    #[test]
    fn a_word_is_held_only_until_it_ends_or_the_stream_pauses() {
        let mut wrap = Wrap::new(12, 0, String::new(), "");
        let mut out = String::new();
        wrap.push("Hello wor", &mut out);
        assert_eq!(out, "Hello");
        wrap.push("ld ", &mut out);
        assert_eq!(out, "Hello world");
        wrap.push("a", &mut out);
        wrap.release(&mut out);
        assert_eq!(out, "Hello world\na");
        wrap.push("nd so", &mut out);
        wrap.end(&mut out);
        assert_eq!(out, "Hello world\nand so");
    }
}
