//! A line's inline Markdown read as CommonMark reads it (escapes, entities, code spans,
//! emphasis, links and images, autolinks, raw HTML, GFM's strikethrough), and how much of it is
//! settled while the line is still arriving: everything before the first opener that text yet
//! to come could still close (within [`WINDOW`] bytes of it).

use super::nodes::{Delim, Node, Piece, WINDOW, can_open_close, process};
use super::syntax::{self, Refs, SOFT, Scan};

/// A line's text parsed so far.
pub(super) struct Parsed {
    /// The nodes settled, in order.
    pub nodes: Vec<Node>,
    /// The source bytes they came from: the rest waits for more text.
    pub taken: usize,
}

/// A `[` or `![` that a later `]` may close.
struct Bracket {
    piece: usize,
    image: bool,
    /// The delimiters before it: the ones after are the link text's.
    delims: usize,
    start: usize,
}

struct Parser<'a> {
    text: &'a str,
    refs: &'a Refs,
    /// The text ends where `text` does.
    complete: bool,
    /// The line ends where `text` does (the text may go on in the next line).
    ended: bool,
    /// The character before `text`.
    prev: char,
    pieces: Vec<Piece>,
    delims: Vec<Delim>,
    brackets: Vec<Bracket>,
    /// The brackets below this index are inactive unless they are images' (a link was made
    /// after them: links do not nest), as the spec marks them, at once.
    links_from: usize,
    /// Where the text stops telling what comes next (more is needed).
    hold: usize,
}

/// Parses `text` (one line, no newline) after the character `prev`; `ends.0`: the text ends
/// where `text` does; `ends.1`: its line does (a span may still go on in the next line).
pub(super) fn parse(text: &str, prev: char, ends: (bool, bool), refs: &Refs) -> Parsed {
    let (complete, ended) = ends;
    let mut p = Parser {
        text,
        refs,
        complete,
        ended,
        prev,
        pieces: Vec::new(),
        delims: Vec::new(),
        brackets: Vec::new(),
        links_from: 0,
        hold: text.len(),
    };
    p.scan();
    let mut waits: Vec<usize> = process(&mut p.pieces, &mut p.delims, 0, 0);
    if !complete {
        let active = p
            .brackets
            .iter()
            .enumerate()
            .filter(|(i, b)| p.active(*i, b));
        waits.extend(active.map(|(_, b)| b.start));
    }
    let open_until = |start: usize| complete || p.hold - start > WINDOW;
    let settled = waits
        .into_iter()
        .filter(|&start| !open_until(start))
        .fold(p.hold, usize::min);
    let mut settled_pieces: Vec<(usize, Node)> = Vec::new();
    for piece in p.pieces {
        if piece.end > settled {
            break;
        }
        settled_pieces.push((piece.end, piece.node));
    }
    // Never stop inside a run of marks: read again from there, the rest of the run would be
    // a shorter run and pair otherwise (the rule of three), so what was settled waits.
    if !complete {
        while let Some(&(end, _)) = settled_pieces.last() {
            if !inside_a_run(text.as_bytes(), end) {
                break;
            }
            settled_pieces.pop();
        }
    }
    let taken = settled_pieces.last().map_or(0, |(end, _)| *end);
    let nodes = settled_pieces.into_iter().map(|(_, node)| node).collect();
    Parsed { nodes, taken }
}

/// Whether byte `at` of `text` falls between two marks of one run (`**|*`).
fn inside_a_run(text: &[u8], at: usize) -> bool {
    at > 0 && at < text.len() && matches!(text[at], b'*' | b'_' | b'~') && text[at - 1] == text[at]
}

impl Parser<'_> {
    /// Whether bracket `i` may still open a link or an image.
    fn active(&self, i: usize, bracket: &Bracket) -> bool {
        bracket.image || i >= self.links_from
    }

    /// The text from `from` to the window's edge past `start` (the byte `start + WINDOW`,
    /// moved back to a character's start), and whether the edge cut it short.
    fn window(&self, from: usize, start: usize) -> (&str, bool) {
        let edge = edge(self.text, start + WINDOW).max(from);
        (&self.text[from..edge], edge < self.text.len())
    }

    fn scan(&mut self) {
        let mut i = 0;
        while i < self.text.len() {
            let next = match self.text.as_bytes()[i] {
                b'\\' => self.escape(i),
                b'`' => self.code(i),
                b'*' | b'_' | b'~' => self.delim(i),
                b'[' => Some(self.bracket(i, i + 1, false)),
                b'!' if self.text[i + 1..].starts_with('[') => Some(self.bracket(i, i + 2, true)),
                // An image's `![` cut after its `!`: the next piece tells.
                b'!' if i + 1 == self.text.len() && !self.complete && !self.ended => self.wait(),
                b']' => self.close_bracket(i),
                b'<' => self.angle(i),
                b'&' => self.entity(i),
                _ => Some(self.plain(i)),
            };
            match next {
                Some(next) => i = next,
                None => {
                    self.hold = i;
                    return;
                }
            }
        }
    }

    /// `None`: more text is needed to tell (the line is not complete).
    fn wait<T>(&self) -> Option<T> {
        None
    }

    fn push(&mut self, node: Node, start: usize, end: usize) -> usize {
        self.pieces.push(Piece { node, start, end });
        end
    }

    fn text(&mut self, text: &str, start: usize, end: usize) -> usize {
        self.push(Node::Text(text.to_string()), start, end)
    }

    /// Text up to the next character that may start something.
    fn plain(&mut self, i: usize) -> usize {
        let rest = &self.text[i..];
        let first = rest.chars().next().map_or(1, char::len_utf8);
        let len = rest[first..]
            .find(['\\', '`', '*', '_', '~', '[', '!', ']', '<', '&'])
            .map_or(rest.len(), |at| at + first);
        self.text(&rest[..len], i, i + len)
    }

    fn escape(&mut self, i: usize) -> Option<usize> {
        match self.text[i + 1..].chars().next() {
            Some(c) if c.is_ascii_punctuation() => Some(self.text(&c.to_string(), i, i + 2)),
            // A hard break before the next line: the line breaks there anyway.
            Some(SOFT) => Some(self.text("", i, i + 1)),
            Some(_) => Some(self.text("\\", i, i + 1)),
            // A backslash at the end of a paragraph is text (a hard break needs a next line).
            None if self.complete => Some(self.text("\\", i, i + 1)),
            None => self.wait(),
        }
    }

    /// A code span: the run of backticks at `i` up to the next run as long, within the window.
    fn code(&mut self, i: usize) -> Option<usize> {
        let n = run(self.text, i, b'`');
        if i + n == self.text.len() && !self.complete {
            return self.wait();
        }
        let (span, cut) = self.window(i, i);
        let limit = i + span.len();
        let mut j = i + n;
        // A run that starts inside the window may end past it (then `j > limit`).
        while let Some(at) = self.text.get(j..limit).and_then(|rest| rest.find('`')) {
            let start = j + at;
            let len = run(self.text, start, b'`');
            if start + len == self.text.len() && !self.complete {
                return self.wait();
            }
            if len == n {
                let content = syntax::code_content(&self.text[i + n..start]);
                return Some(self.push(Node::Code(content), i, start + n));
            }
            j = start + len;
        }
        if !cut && !self.complete {
            return self.wait();
        }
        Some(self.text(&self.text[i..i + n], i, i + n))
    }

    /// A run of `*`, `_` or `~`, as text that may become a span's marks.
    fn delim(&mut self, i: usize) -> Option<usize> {
        let mark = self.text.as_bytes()[i];
        let n = run(self.text, i, mark);
        let end = i + n;
        if end == self.text.len() && !self.complete && !self.ended {
            return self.wait();
        }
        let space = |c: char| if c == SOFT { ' ' } else { c };
        let prev = space(self.text[..i].chars().next_back().unwrap_or(self.prev));
        let next = space(self.text[end..].chars().next().unwrap_or(' '));
        let (mut open, mut close) = can_open_close(mark, prev, next);
        if mark == b'~' && n > 2 {
            (open, close) = (false, false);
        }
        let piece = self.pieces.len();
        self.text(&self.text[i..end], i, end);
        if open || close {
            self.delims.push(Delim {
                piece,
                mark,
                count: n,
                written: n,
                open,
                close,
                start: i,
            });
        }
        Some(end)
    }

    fn bracket(&mut self, i: usize, end: usize, image: bool) -> usize {
        self.links_from = self.links_from.min(self.brackets.len());
        self.brackets.push(Bracket {
            piece: self.pieces.len(),
            image,
            delims: self.delims.len(),
            start: i,
        });
        self.text(&self.text[i..end], i, end)
    }

    /// A `]`: closes the nearest bracket as a link when an inline destination follows.
    fn close_bracket(&mut self, i: usize) -> Option<usize> {
        let Some(bracket) = self.brackets.last() else {
            return Some(self.text("]", i, i + 1));
        };
        let active = self.active(self.brackets.len() - 1, bracket);
        if !active || i - bracket.start > WINDOW {
            self.brackets.pop();
            return Some(self.text("]", i, i + 1));
        }
        let (rest, cut) = self.window(i + 1, bracket.start);
        let after = match syntax::inline_link(rest) {
            Scan::Found(len, url) => Some((i + 1 + len, url)),
            // A destination still open at the window's edge: no link within it.
            Scan::More if cut => None,
            Scan::More if !self.complete => return self.wait(),
            _ => match self.reference(bracket.start, bracket.image, i) {
                Scan::Found(end, url) => Some((end, url)),
                Scan::More if !self.complete => return self.wait(),
                _ => None,
            },
        };
        let Some((end, url)) = after.filter(|(end, _)| end - bracket.start <= WINDOW) else {
            self.brackets.pop();
            return Some(self.text("]", i, i + 1));
        };
        Some(self.link(end, url))
    }

    /// A reference link closed by the `]` at `i`: `[text][label]`, `[text][]` or `[text]`,
    /// its end and destination when the label is defined.
    fn reference(&self, start: usize, image: bool, i: usize) -> Scan {
        let text_start = start + if image { 2 } else { 1 };
        let (rest, cut) = self.window(i + 1, start);
        let (end, raw) = match syntax::link_label(rest) {
            Scan::Found(len, raw) if !raw.is_empty() => (i + 1 + len, raw),
            Scan::Found(len, _) => (i + 1 + len, self.text[text_start..i].to_string()),
            Scan::More if self.text[i + 1..].is_empty() && self.complete => {
                (i + 1, self.text[text_start..i].to_string())
            }
            // A label still open at the window's edge: no link within it.
            Scan::More if cut => return Scan::No,
            Scan::More => return Scan::More,
            Scan::No => (i + 1, self.text[text_start..i].to_string()),
        };
        match self.refs.get(&syntax::label(&raw)) {
            Some(url) if raw.len() <= 999 => Scan::Found(end, url.clone()),
            _ => Scan::No,
        }
    }

    /// Makes the pieces after the last bracket a link (or image) ending at `end`.
    fn link(&mut self, end: usize, url: String) -> usize {
        let Some(bracket) = self.brackets.pop() else {
            return end;
        };
        let kids_from = bracket.piece + 1;
        process(
            &mut self.pieces,
            &mut self.delims,
            bracket.delims,
            kids_from,
        );
        let kids = self.pieces.drain(kids_from..).map(|p| p.node).collect();
        self.pieces.pop();
        let node = match bracket.image {
            true => Node::Image(kids, url),
            false => {
                self.links_from = self.brackets.len();
                Node::Link(kids, url)
            }
        };
        self.push(node, bracket.start, end)
    }

    /// `<`: an autolink, raw HTML, or a plain `<`.
    fn angle(&mut self, i: usize) -> Option<usize> {
        let (rest, cut) = self.window(i, i);
        match syntax::angle(rest) {
            syntax::Angle::Autolink(len, _) => {
                let shown = rest[1..len - 1].to_string();
                Some(self.push(Node::Autolink(shown), i, i + len))
            }
            syntax::Angle::Html(len) => {
                Some(self.push(Node::Html(rest[..len].to_string()), i, i + len))
            }
            syntax::Angle::More if !self.complete && !cut => self.wait(),
            _ => Some(self.text("<", i, i + 1)),
        }
    }

    /// `&name;`, `&#123;`, `&#x1F;`: the character; anything else a plain `&`.
    fn entity(&mut self, i: usize) -> Option<usize> {
        match syntax::entity(&self.text[i..]) {
            Scan::Found(len, decoded) => Some(self.text(&decoded, i, i + len)),
            Scan::More if !self.complete && !self.ended => self.wait(),
            _ => Some(self.text("&", i, i + 1)),
        }
    }
}

/// The byte `at` (at most the text's end) moved back to the start of its character.
fn edge(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The length of the run of `mark` at `i`.
fn run(text: &str, i: usize, mark: u8) -> usize {
    text.as_bytes()[i..]
        .iter()
        .take_while(|&&b| b == mark)
        .count()
}

#[cfg(test)]
mod tests {
    use super::super::syntax::NO_REFS;
    use super::*;

    /// The text of `text` as parsed in one piece (complete) and streamed (more to come).
    fn both(text: &str) -> (Parsed, Parsed) {
        let complete = parse(text, ' ', (true, true), &NO_REFS);
        let streamed = parse(text, ' ', (false, false), &NO_REFS);
        (complete, streamed)
    }

    /// Issue 41, finding 5: an unclosed backtick, then a run of backticks that crosses the
    /// window's edge, sliced the text backwards (`begin > end`) and ended the REPL.
    #[test]
    fn a_run_of_backticks_across_the_windows_edge_is_text() {
        for before in WINDOW - 8..=WINDOW {
            let text = format!("`{}``````{}", "a".repeat(before), "b".repeat(20));
            let (complete, _) = both(&text);
            assert_eq!(complete.taken, text.len(), "{before}");
            let shown: String = complete
                .nodes
                .iter()
                .map(|node| match node {
                    Node::Text(text) => text.as_str(),
                    other => panic!("{before}: only text expected, got {other:?}"),
                })
                .collect();
            assert_eq!(shown, text, "{before}");
        }
    }

    /// A window's edge inside a character (a code span's or an angle's, anything after a
    /// multibyte character) is moved back to the character's start.
    #[test]
    fn a_window_edge_inside_a_character_is_a_character_boundary() {
        for lead in ["`", "``", "<", "<a"] {
            for pad in 0..4 {
                let text = format!("{lead}{}{}", "x".repeat(pad), "é苹🔧".repeat(40));
                let (complete, streamed) = both(&text);
                assert_eq!(complete.taken, text.len(), "{lead:?} {pad}");
                assert!(streamed.taken <= text.len(), "{lead:?} {pad}");
            }
        }
    }
}
