//! What a person sees on a terminal of a given width, rebuilt from the bytes written to it: a
//! small emulator that moves a cursor over rows of cells, honours carriage returns, line
//! erasure and cursor moves, ignores colours and modes, and notes every line that wrapped.

/// The terminal's rows as shown, top to bottom (the scrollback included), and where text ran
/// past the right margin.
pub struct Screen {
    width: usize,
    rows: Vec<Vec<char>>,
    row: usize,
    col: usize,
    /// The text of each row that wrapped onto the next, as it stood when it wrapped.
    pub wrapped: Vec<String>,
}

impl Screen {
    /// Replays `bytes` on a terminal `width` columns wide.
    pub fn replay(bytes: &str, width: usize) -> Self {
        let mut screen = Screen {
            width,
            rows: vec![Vec::new()],
            row: 0,
            col: 0,
            wrapped: Vec::new(),
        };
        let mut chars = bytes.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\x1b' => screen.escape(&mut chars),
                '\r' => screen.col = 0,
                // The pty turns "\n" into "\r\n" on the way out (ONLCR).
                '\n' => {
                    screen.down();
                    screen.col = 0;
                }
                '\x08' => screen.col = screen.col.saturating_sub(1),
                '\x07' => {}
                c if c.is_control() && c != '\t' => {}
                c => screen.put(c),
            }
        }
        screen
    }

    /// The rows as text, trailing blanks trimmed, blank rows at the end left out.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .rows
            .iter()
            .map(|row| {
                let text: String = row.iter().filter(|c| **c != WIDE_TAIL).collect();
                text.trim_end().to_string()
            })
            .collect();
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        lines
    }

    /// The rows joined by newlines.
    pub fn text(&self) -> String {
        self.lines().join("\n")
    }

    fn down(&mut self) {
        self.row += 1;
        if self.row == self.rows.len() {
            self.rows.push(Vec::new());
        }
    }

    fn put(&mut self, c: char) {
        let (c, cells) = if c == '\t' {
            (' ', 8 - self.col % 8)
        } else {
            (c, width_of(c))
        };
        if self.col + cells > self.width {
            self.wrapped.push(self.rows[self.row].iter().collect());
            self.down();
            self.col = 0;
        }
        let row = &mut self.rows[self.row];
        if row.len() < self.col + cells {
            row.resize(self.col + cells, ' ');
        }
        row[self.col] = c;
        for cell in 1..cells {
            row[self.col + cell] = if c == ' ' { ' ' } else { WIDE_TAIL };
        }
        self.col += cells;
    }

    /// A control sequence after ESC: CSI (`ESC [ params final`), OSC (to BEL or ST), or a
    /// two-character one.
    fn escape(&mut self, chars: &mut std::iter::Peekable<std::str::Chars>) {
        match chars.next() {
            Some('[') => {
                let mut params = String::new();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        self.csi(&params, c);
                        return;
                    }
                    params.push(c);
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                        return;
                    }
                }
            }
            _ => {}
        }
    }

    fn csi(&mut self, params: &str, command: char) {
        let n = params
            .trim_start_matches('?')
            .split(';')
            .next()
            .and_then(|p| p.parse::<usize>().ok());
        let count = n.unwrap_or(1).max(1);
        match command {
            'A' => self.row = self.row.saturating_sub(count),
            'B' => {
                for _ in 0..count {
                    self.down();
                }
            }
            'C' => self.col = (self.col + count).min(self.width.saturating_sub(1)),
            'D' => self.col = self.col.saturating_sub(count),
            'G' => self.col = count - 1,
            'K' => {
                let row = &mut self.rows[self.row];
                match n.unwrap_or(0) {
                    0 => row.truncate(self.col),
                    1 => row.iter_mut().take(self.col + 1).for_each(|c| *c = ' '),
                    _ => row.clear(),
                }
            }
            'J' if n.unwrap_or(0) == 0 => {
                self.rows[self.row].truncate(self.col);
                self.rows.truncate(self.row + 1);
            }
            _ => {} // colours, modes, and what these tests never meet
        }
    }
}

/// Stands in the second cell of a wide character.
const WIDE_TAIL: char = '\u{0}';

/// The cells `c` takes: two for emoji and East Asian wide characters, none for combining
/// marks and variation selectors, else one.
fn width_of(c: char) -> usize {
    match c as u32 {
        0x300..=0x36f | 0x200b..=0x200f | 0xfe00..=0xfe0f => 0,
        0x1100..=0x115f
        | 0x2e80..=0xa4cf
        | 0xac00..=0xd7a3
        | 0xf900..=0xfaff
        | 0xfe30..=0xfe4f
        | 0xff00..=0xff60
        | 0xffe0..=0xffe6
        | 0x1f300..=0x1f64f
        | 0x1f900..=0x1f9ff
        | 0x1f680..=0x1f6ff => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewritten_lines_show_their_last_text() {
        let screen = Screen::replay("a spinner 1s\r\x1b[2Kdone\nnext\x1b[31m red\x1b[0m\n", 80);
        assert_eq!(screen.lines(), ["done", "next red"]);
        assert!(screen.wrapped.is_empty());
    }

    #[test]
    fn long_lines_wrap_and_are_noted() {
        let screen = Screen::replay(&"x".repeat(85), 80);
        assert_eq!(screen.lines(), ["x".repeat(80), "x".repeat(5)]);
        assert_eq!(screen.wrapped.len(), 1);
    }
}
