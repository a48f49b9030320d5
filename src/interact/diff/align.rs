//! Which lines of two texts changed: a shortest edit script (Myers' greedy O(ND) search), with
//! each run of changes then slid the way GNU diff slides it, so a change shows in the same
//! hunks as `diff -u` shows it.

/// Past this many changed lines the search is not worth its memory (it keeps about d² numbers):
/// everything between the common first and last lines is then one change.
const MAX_EDITS: isize = 1000;

/// For each line of `a` (the old text) and of `b` (the new), whether it changed: a `-` or a
/// `+` line.
pub(super) fn changed(a: &[&str], b: &[&str]) -> (Vec<bool>, Vec<bool>) {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (mid_a, mid_b) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let (mut gone, mut added) = (vec![false; a.len()], vec![false; b.len()]);
    gone[head..a.len() - tail].fill(true);
    added[head..b.len() - tail].fill(true);
    if let Some(kept) = kept(mid_a, mid_b) {
        for (x, y) in kept {
            gone[head + x] = false;
            added[head + y] = false;
        }
    }
    slide(a, &mut gone, &added);
    slide(b, &mut added, &gone);
    (gone, added)
}

/// The pairs of lines (index in `a`, index in `b`) a shortest edit script keeps, in order;
/// `None` when it needs more than `MAX_EDITS` changes.
fn kept(a: &[&str], b: &[&str]) -> Option<Vec<(usize, usize)>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let off = n + m + 1;
    // v[off + k]: the furthest x reached on diagonal k = x - y; `trace[d]` is v before step d.
    let mut v = vec![0isize; 2 * off as usize + 1];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let mut last = None;
    'search: for d in 0..=(n + m).min(MAX_EDITS) {
        trace.push(v[(off - d) as usize..=(off + d) as usize].to_vec());
        for k in (-d..=d).step_by(2) {
            let at = |k: isize| (off + k) as usize;
            let down = k == -d || (k != d && v[at(k - 1)] < v[at(k + 1)]);
            let mut x = if down { v[at(k + 1)] } else { v[at(k - 1)] + 1 };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                (x, y) = (x + 1, y + 1);
            }
            v[at(k)] = x;
            if x >= n && y >= m {
                last = Some(d);
                break 'search;
            }
        }
    }
    let (mut x, mut y) = (n, m);
    let mut kept = Vec::new();
    for d in (1..=last?).rev() {
        let v = &trace[d as usize];
        let at = |k: isize| (k + d) as usize;
        let k = x - y;
        let down = k == -d || (k != d && v[at(k - 1)] < v[at(k + 1)]);
        let from_k = if down { k + 1 } else { k - 1 };
        let (from_x, from_y) = (v[at(from_k)], v[at(from_k)] - from_k);
        while x > from_x && y > from_y {
            (x, y) = (x - 1, y - 1);
            kept.push((x as usize, y as usize));
        }
        (x, y) = (from_x, from_y);
    }
    while x > 0 && y > 0 {
        (x, y) = (x - 1, y - 1);
        kept.push((x as usize, y as usize));
    }
    kept.reverse();
    Some(kept)
}

/// Slides each run of changed lines of one text (`lines`, `mine`) where an equal line lets it,
/// as GNU diff's `shift_boundaries` does: first up, merging with runs it meets, then down as far
/// as it goes, merging again, then back up to the last place where it ends beside a change in
/// the other text (`theirs`), so a replaced block shows as one `-`/`+` pair of runs.
fn slide(lines: &[&str], mine: &mut [bool], theirs: &[bool]) {
    let n = lines.len();
    let mut i = 0;
    // The line of the other text that pairs with line `i` (both unchanged) or follows the run.
    let mut j = 0;
    loop {
        while i < n && !mine[i] {
            j = run_end(theirs, j) + 1;
            i += 1;
        }
        if i == n {
            return;
        }
        let mut start = i;
        i = run_end(mine, i);
        j = run_end(theirs, j);
        let mut beside;
        loop {
            let length = i - start;
            while start > 0 && lines[start - 1] == lines[i - 1] {
                (start, i) = (start - 1, i - 1);
                (mine[start], mine[i]) = (true, false);
                start = run_start(mine, start);
                j = before_changes(theirs, j);
            }
            beside = if j > 0 && theirs[j - 1] { i } else { n };
            while i < n && lines[start] == lines[i] {
                (mine[start], mine[i]) = (false, true);
                (start, i) = (start + 1, run_end(mine, i + 1));
                j += 1;
                while j < theirs.len() && theirs[j] {
                    (j, beside) = (j + 1, i);
                }
            }
            if i - start == length {
                break;
            }
        }
        while beside < i {
            (start, i) = (start - 1, i - 1);
            (mine[start], mine[i]) = (true, false);
            j = before_changes(theirs, j);
        }
    }
}

/// The first unchanged line at or after `from`.
fn run_end(flags: &[bool], from: usize) -> usize {
    from + flags[from..].iter().take_while(|c| **c).count()
}

/// The first line of the run of changes that ends just before `end`.
fn run_start(flags: &[bool], end: usize) -> usize {
    end - flags[..end].iter().rev().take_while(|c| **c).count()
}

/// The last unchanged line before `from` (there is one: an equal line was just found above).
fn before_changes(flags: &[bool], from: usize) -> usize {
    run_start(flags, from) - 1
}
