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

/// Matches the delimiters from `bottom` on (CommonMark's "process emphasis") and nests the
/// pieces from `from` on into the spans found; the marks left unmatched stay as text. Returns
/// where the openers left unmatched start, for a stream to wait on.
pub(super) fn process(
    pieces: &mut Vec<Piece>,
    delims: &mut Vec<Delim>,
    bottom: usize,
    from: usize,
) -> Vec<usize> {
    let spans = pair(pieces, &mut delims[bottom..]);
    // A stream waits from the start of the run as written: read again from a mark inside it,
    // the rest would be a shorter run, and pair otherwise (the rule of three).
    let open = delims[bottom..]
        .iter()
        .filter(|d| d.open && d.count > 0)
        .map(|d| d.start)
        .collect();
    delims.truncate(bottom);
    let nested = nest(pieces.drain(from..).collect(), from, &spans);
    pieces.extend(nested);
    open
}

/// A span `pair` found: the pieces between its opener's and its closer's, in a node of `kind`.
struct Span {
    open: usize,
    close: usize,
    kind: u8,
}

/// Pairs closers with openers in order, as the spec's algorithm does, in time linear in the
/// delimiters: the list is linked backwards (`prev`), so the delimiters between a pair leave
/// it at once; a closer looks back no further than its `openers_bottom` (where the last search
/// for its kind failed) and the window. Spans come out innermost first. A delimiter out of the
/// list has `count` 0.
fn pair(pieces: &mut [Piece], delims: &mut [Delim]) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut prev: Vec<Option<usize>> = (0..delims.len()).map(|i| i.checked_sub(1)).collect();
    // By mark, whether the closer may open, its run's length mod 3: the lowest index to try.
    let mut openers_bottom = [[[0usize; 3]; 2]; 3];
    for ci in 0..delims.len() {
        while delims[ci].close && delims[ci].count > 0 {
            let c = &delims[ci];
            let kind = match c.mark {
                b'*' => 0,
                b'_' => 1,
                _ => 2,
            };
            let floor = &mut openers_bottom[kind][usize::from(c.open)][c.written % 3];
            let Some(oi) = opener(delims, &prev, ci, *floor) else {
                *floor = ci;
                if !delims[ci].open {
                    leave(delims, &mut prev, ci);
                }
                break;
            };
            spans.push(matched(pieces, delims, oi, ci));
            link_pair(delims, &mut prev, oi, ci);
        }
    }
    spans
}

/// After opener `oi` and closer `ci` paired: the delimiters between them leave the list at
/// once, and so does either of the two with no marks left.
fn link_pair(delims: &mut [Delim], prev: &mut [Option<usize>], oi: usize, ci: usize) {
    let mut at = prev[ci];
    while let Some(i) = at.filter(|&i| i > oi) {
        delims[i].count = 0;
        at = prev[i];
    }
    prev[ci] = match delims[oi].count {
        0 => prev[oi],
        _ => Some(oi),
    };
    if delims[ci].count == 0 {
        leave(delims, prev, ci);
    }
}

/// The nearest opener in the list for closer `ci`, at `floor` or above and within the window.
fn opener(delims: &[Delim], prev: &[Option<usize>], ci: usize, floor: usize) -> Option<usize> {
    let c = &delims[ci];
    let mut at = prev[ci];
    while let Some(oi) = at.filter(|&oi| oi >= floor) {
        if c.start - delims[oi].start > WINDOW {
            return None;
        }
        if pairs(&delims[oi], c) {
            return Some(oi);
        }
        at = prev[oi];
    }
    None
}

/// Takes closer `ci` out of the list: the one after it (not reached yet) links past it.
fn leave(delims: &mut [Delim], prev: &mut [Option<usize>], ci: usize) {
    delims[ci].count = 0;
    let before = prev[ci];
    if let Some(next) = prev.get_mut(ci + 1) {
        *next = before;
    }
}

/// Whether the opener `o` may close with the closer `c`.
fn pairs(o: &Delim, c: &Delim) -> bool {
    if o.mark != c.mark || !o.open || o.count == 0 {
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

/// Uses up the marks opener `oi` and closer `ci` share, and returns their span.
fn matched(pieces: &mut [Piece], delims: &mut [Delim], oi: usize, ci: usize) -> Span {
    let (o, c) = (&delims[oi], &delims[ci]);
    let used = match o.mark {
        b'~' => c.count,
        _ if o.count >= 2 && c.count >= 2 => 2,
        _ => 1,
    };
    let kind = match (o.mark, used) {
        (b'~', _) => b'~',
        (mark, 1) => mark,
        _ => b'2',
    };
    let span = Span {
        open: o.piece,
        close: c.piece,
        kind,
    };
    shrink(&mut pieces[span.open], used, false);
    shrink(&mut pieces[span.close], used, true);
    delims[oi].count -= used;
    delims[ci].count -= used;
    span
}

/// The pieces (the first is piece `from`) with each span's in a node: a span opens after its
/// opener's piece (the last found outermost) and closes before its closer's (the first found
/// innermost). A span at the top comes out as a piece from its opener's marks to its closer's.
fn nest(pieces: Vec<Piece>, from: usize, spans: &[Span]) -> Vec<Piece> {
    let mut opens: Vec<usize> = (0..spans.len()).collect();
    opens.sort_by_key(|&s| (spans[s].open, std::cmp::Reverse(s)));
    let mut closes: Vec<usize> = (0..spans.len()).collect();
    closes.sort_by_key(|&s| (spans[s].close, s));
    let (mut opens, mut closes) = (opens.into_iter().peekable(), closes.into_iter().peekable());
    let mut top: Vec<Piece> = Vec::with_capacity(pieces.len());
    // The spans open, innermost last: kind, where it starts, the nodes in it so far.
    let mut open: Vec<(u8, usize, Vec<Node>)> = Vec::new();
    for (i, piece) in (from..).zip(pieces) {
        while closes.next_if(|&s| spans[s].close == i).is_some() {
            if let Some((kind, start, kids)) = open.pop() {
                let node = span_node(kind, kids);
                match open.last_mut() {
                    Some((_, _, outer)) => outer.push(node),
                    None => top.push(Piece {
                        node,
                        start,
                        end: piece.start,
                    }),
                }
            }
        }
        let end = piece.end;
        match open.last_mut() {
            Some((_, _, kids)) => kids.push(piece.node),
            None => top.push(piece),
        }
        while let Some(s) = opens.next_if(|&s| spans[s].open == i) {
            open.push((spans[s].kind, end, Vec::new()));
        }
    }
    top
}

/// The node of a span of `kind` (`*` or `_`: emphasis, `2`: strong, `~`: struck).
fn span_node(kind: u8, kids: Vec<Node>) -> Node {
    match kind {
        b'~' => Node::Del(kids),
        b'2' => Node::Strong(kids),
        _ => Node::Emph(kids),
    }
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
