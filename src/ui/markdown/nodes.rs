//! The inline pieces of a line as CommonMark reads them, and CommonMark's "process emphasis"
//! over their delimiter runs: the nearest opener of the same kind, the rule of three, a run
//! shared between two spans, an unmatched run left as text.

/// What a line's text holds, inline.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    Text(String),
    Code(String),
    /// Raw inline HTML, shown as written.
    Html(String),
    Emph(Vec<Node>),
    Strong(Vec<Node>),
    Del(Vec<Node>),
    Link(Vec<Node>, String),
    Image(Vec<Node>, String),
    Autolink(String),
}

/// A node and the source bytes it came from.
#[derive(Debug)]
pub(super) struct Piece {
    pub node: Node,
    pub start: usize,
    pub end: usize,
}

/// A run of `*`, `_` or `~` that may open or close a span; its piece is `Text` of the marks
/// not used yet.
#[derive(Debug, Clone)]
pub(super) struct Delim {
    pub piece: usize,
    pub mark: u8,
    pub count: usize,
    /// The run's length as written (for the rule of three).
    pub written: usize,
    pub open: bool,
    pub close: bool,
    /// Where the run starts in the source.
    pub start: usize,
}

/// How far apart (bytes) an opener and its closer may be: what a span holds back while it
/// streams. A pair further apart is text.
pub(super) const WINDOW: usize = 256;

/// Matches the delimiters above `bottom` and wraps what is between each pair; the ones left
/// unmatched stay as text. Returns the openers left unmatched (their start), for a stream to
/// wait on.
pub(super) fn process(
    pieces: &mut Vec<Piece>,
    delims: &mut Vec<Delim>,
    bottom: usize,
) -> Vec<usize> {
    let mut ci = bottom;
    while ci < delims.len() {
        if !delims[ci].close {
            ci += 1;
            continue;
        }
        match (bottom..ci)
            .rev()
            .find(|&oi| pairs(&delims[oi], &delims[ci]))
        {
            Some(oi) => ci = matched(pieces, delims, oi, ci),
            None if !delims[ci].open => {
                delims.remove(ci);
            }
            None => ci += 1,
        }
    }
    let open = delims[bottom..]
        .iter()
        .filter(|d| d.open && d.count > 0)
        .map(|d| d.start + d.written - d.count)
        .collect();
    delims.truncate(bottom);
    open
}

/// Whether the opener `o` may close with the closer `c`.
fn pairs(o: &Delim, c: &Delim) -> bool {
    if o.mark != c.mark || !o.open || c.start - o.start > WINDOW {
        return false;
    }
    if o.mark == b'~' {
        return o.count == c.count;
    }
    let odd = (o.close || c.open)
        && (o.written + c.written).is_multiple_of(3)
        && !(o.written.is_multiple_of(3) && c.written.is_multiple_of(3));
    !odd
}

/// Wraps the pieces between opener `oi` and closer `ci` in a span, uses up their marks, and
/// returns the delimiter to look at next.
fn matched(pieces: &mut Vec<Piece>, delims: &mut Vec<Delim>, oi: usize, ci: usize) -> usize {
    let (o, c) = (&delims[oi], &delims[ci]);
    let used = match o.mark {
        b'~' => c.count,
        _ if o.count >= 2 && c.count >= 2 => 2,
        _ => 1,
    };
    let (op, cp) = (o.piece, c.piece);
    let inner: Vec<Node> = pieces.drain(op + 1..cp).map(|p| p.node).collect();
    shrink(&mut pieces[op], used, false);
    shrink(&mut pieces[op + 1], used, true);
    let node = match (o.mark, used) {
        (b'~', _) => Node::Del(inner),
        (_, 1) => Node::Emph(inner),
        _ => Node::Strong(inner),
    };
    let (start, end) = (pieces[op].end, pieces[op + 1].start);
    pieces.insert(op + 1, Piece { node, start, end });
    delims.drain(oi + 1..ci);
    let mut ci = oi + 1;
    for d in &mut delims[ci..] {
        d.piece = d.piece + op + 2 - cp;
    }
    delims[oi].count -= used;
    delims[ci].count -= used;
    if delims[ci].count == 0 {
        delims.remove(ci);
    }
    if delims[oi].count == 0 {
        delims.remove(oi);
        ci -= 1;
    }
    ci
}

/// Takes `n` marks off a delimiter's text, at its start (`front`) or its end.
fn shrink(piece: &mut Piece, n: usize, front: bool) {
    if let Node::Text(text) = &mut piece.node {
        let keep = text.len() - n;
        *text = match front {
            true => text[n..].to_string(),
            false => text[..keep].to_string(),
        };
    }
    match front {
        true => piece.start += n,
        false => piece.end -= n,
    }
}

/// Whether `c` counts as punctuation for the flanking rules (Unicode P and S classes; here
/// anything neither alphanumeric nor whitespace).
fn punct(c: char) -> bool {
    !c.is_alphanumeric() && !c.is_whitespace()
}

/// Whether a run of `mark` between `prev` and `next` (a space at the line's ends) may open and
/// may close, by CommonMark's flanking rules (`_` not inside a word).
pub(super) fn can_open_close(mark: u8, prev: char, next: char) -> (bool, bool) {
    let left = !next.is_whitespace() && (!punct(next) || prev.is_whitespace() || punct(prev));
    let right = !prev.is_whitespace() && (!punct(prev) || next.is_whitespace() || punct(next));
    match mark {
        b'_' => (
            left && (!right || punct(prev)),
            right && (!left || punct(next)),
        ),
        _ => (left, right),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flanking() {
        // (prev, next, * opens/closes, _ opens/closes)
        let cases = [
            (' ', 'a', (true, false), (true, false)),
            ('a', ' ', (false, true), (false, true)),
            ('a', 'b', (true, true), (false, false)),
            ('(', 'a', (true, false), (true, false)),
            ('a', '(', (false, true), (false, true)),
            ('.', '.', (true, true), (true, true)),
            (' ', ' ', (false, false), (false, false)),
        ];
        for (prev, next, star, underscore) in cases {
            assert_eq!(
                can_open_close(b'*', prev, next),
                star,
                "{prev:?} * {next:?}"
            );
            assert_eq!(
                can_open_close(b'_', prev, next),
                underscore,
                "{prev:?} _ {next:?}"
            );
        }
    }
}
