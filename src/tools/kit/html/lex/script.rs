//! Script data as the WHATWG tokenizer reads it: text up to `</script>`, except inside an
//! escaped `<!-- … -->` where a `<script>` opens a part that a `</script>` only closes again
//! (the escaped and double-escaped states).

use super::{Lexer, Raw, is_space};

/// The script data states between two characters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Data,
    /// After `<!` and after `<!-`.
    EscapeStart,
    EscapeStartDash,
    Escaped,
    EscapedDash,
    EscapedDashDash,
    Double,
    DoubleDash,
    DoubleDashDash,
}

impl Lexer<'_> {
    /// Script data up to its end tag (or the end of the input).
    pub(super) fn script_data(&mut self) -> Option<Raw> {
        let mut state = Script::Data;
        while let Some(c) = self.peek() {
            if c == '<'
                && matches!(
                    state,
                    Script::Data | Script::Escaped | Script::EscapedDash | Script::EscapedDashDash
                )
            {
                if let Some(end) = self.appropriate_end_tag() {
                    return end;
                }
            }
            self.pos += c.len_utf8();
            state = self.script_char(state, c);
        }
        self.finish()
    }

    /// One character of script data (not an end tag) in `state`: it is emitted (NUL as
    /// U+FFFD) and the state it leads to returned.
    fn script_char(&mut self, state: Script, c: char) -> Script {
        self.text.push(if c == '\0' { '\u{fffd}' } else { c });
        use Script::*;
        match (state, c) {
            (Data, '<') if self.eat("!") => {
                self.text.push('!');
                EscapeStart
            }
            (Data, _) => Data,
            (EscapeStart, '-') => EscapeStartDash,
            (EscapeStartDash, '-') => EscapedDashDash,
            (EscapeStart | EscapeStartDash, _) => self.reconsume(c, Data),
            (Escaped | EscapedDash, '-') => state.next_dash(),
            (EscapedDashDash, '-') => EscapedDashDash,
            (EscapedDashDash, '>') => Data,
            (Escaped | EscapedDash | EscapedDashDash, '<') => self.double_escape(Escaped, Double),
            (Escaped | EscapedDash | EscapedDashDash, _) => Escaped,
            (Double | DoubleDash, '-') => state.next_dash(),
            (DoubleDashDash, '-') => DoubleDashDash,
            (DoubleDashDash, '>') => Data,
            (Double | DoubleDash | DoubleDashDash, '<') => {
                if self.eat("/") {
                    self.text.push('/');
                    self.double_escape(Double, Escaped)
                } else {
                    Double
                }
            }
            (Double | DoubleDash | DoubleDashDash, _) => Double,
        }
    }

    /// `c`, just emitted, is to be read again in `state`: it is taken back.
    fn reconsume(&mut self, c: char, state: Script) -> Script {
        self.text.pop();
        self.pos -= c.len_utf8();
        state
    }

    /// The double escape start (or end) states after `<` (or `</`): a word of letters, emitted;
    /// `script` followed by a space, `/` or `>` leads to `to`, anything else stays in `stay`.
    fn double_escape(&mut self, stay: Script, to: Script) -> Script {
        let rest = &self.src[self.pos..];
        let len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        if len == 0 {
            return stay;
        }
        let word = rest[..len].to_ascii_lowercase();
        self.text.push_str(&rest[..len]);
        self.pos += len;
        match self.peek() {
            Some(c) if is_space(c) || c == '/' || c == '>' => {
                self.pos += 1;
                self.text.push(c);
                if word == "script" { to } else { stay }
            }
            _ => stay,
        }
    }
}

impl Script {
    /// Where a `-` leads from the escaped and double-escaped states.
    fn next_dash(self) -> Script {
        match self {
            Script::Escaped => Script::EscapedDash,
            Script::EscapedDash => Script::EscapedDashDash,
            Script::Double => Script::DoubleDash,
            _ => Script::DoubleDashDash,
        }
    }
}
