//! Properties of the Codex patch format: a patch is found in any arguments, whole or cut off,
//! as a prefix of what was sent; any text parses or is refused without a panic, into no more
//! than it holds; patches written from random sections read back as they were written;
//! random hunks on random files apply or are refused, never grow a file by more than they add,
//! and a hunk cut from the file itself applies where it was cut.

use proptest::prelude::*;

use super::extract;
use super::lines;
use super::parse::{FileOp, Hunk, Line, parse};
use crate::props::{config, text};

/// Text of a file line or a path: no marker can start it.
fn plain(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(&["a", "b", "x", "1", " ", "(", ")", ";", "é"][..]),
        0..=max,
    )
    .prop_map(|parts| parts.concat())
}

fn path() -> impl Strategy<Value = String> {
    "[a-z]{1,6}(/[a-z0-9_.]{1,6}){0,2}"
}

fn hunk_line() -> impl Strategy<Value = Line> {
    prop_oneof![
        plain(12).prop_map(|t| Line::Keep(format!("k{t}"))),
        plain(12).prop_map(Line::Remove),
        plain(12).prop_map(Line::Add),
    ]
}

/// A hunk the grammar takes: it changes something, its last line is not a blank context line,
/// and one that only adds lines says where (an `@@` text or the end of the file).
fn hunk() -> impl Strategy<Value = Hunk> {
    let anchor = plain(10).prop_map(|a| format!("fn {}", a.trim()).trim().to_string());
    (
        prop::collection::vec(anchor, 0..3),
        (prop::bool::ANY, plain(8)),
        prop::collection::vec(hunk_line(), 0..5),
        any::<bool>(),
    )
        .prop_map(|(anchors, (remove, first), mut lines, at_end)| {
            let change = if remove {
                Line::Remove(first)
            } else {
                Line::Add(first)
            };
            lines.insert(0, change);
            let mut hunk = Hunk::new(String::new());
            hunk.anchors = anchors;
            hunk.lines = lines;
            hunk.at_end = at_end;
            if hunk.old().is_empty() && hunk.anchors.is_empty() && !hunk.at_end {
                hunk.anchors.push("fn main".into());
            }
            hunk
        })
}

fn file_op() -> impl Strategy<Value = FileOp> {
    prop_oneof![
        (
            path(),
            prop::option::of(path()),
            prop::collection::vec(hunk(), 1..4)
        )
            .prop_map(|(path, move_to, hunks)| FileOp::Update {
                path,
                move_to,
                hunks
            }),
        (path(), prop::collection::vec(plain(12), 0..5)).prop_map(|(path, lines)| FileOp::Add {
            path,
            content: lines.iter().map(|l| format!("{l}\n")).collect(),
        }),
        path().prop_map(|path| FileOp::Delete { path }),
    ]
}

/// The patch text of `ops`, markers indented by `indent`, with text around it.
fn render(ops: &[FileOp], indent: &str) -> String {
    let mut out = vec!["<<'EOF'".to_string(), format!("{indent}*** Begin Patch")];
    for op in ops {
        match op {
            FileOp::Update {
                path,
                move_to,
                hunks,
            } => {
                out.push(format!("{indent}*** Update File: {path}"));
                if let Some(to) = move_to {
                    out.push(format!("{indent}*** Move to: {to}"));
                }
                for hunk in hunks {
                    render_hunk(hunk, &mut out);
                }
            }
            FileOp::Add { path, content } => {
                out.push(format!("{indent}*** Add File: {path}"));
                out.extend(content.lines().map(|l| format!("+{l}")));
            }
            FileOp::Delete { path } => out.push(format!("{indent}*** Delete File: {path}")),
        }
    }
    out.push(format!("{indent}*** End Patch"));
    out.push("EOF".into());
    out.join("\n")
}

fn render_hunk(hunk: &Hunk, out: &mut Vec<String>) {
    if hunk.anchors.is_empty() {
        out.push("@@".into());
    }
    out.extend(hunk.anchors.iter().map(|a| format!("@@ {a}")));
    out.extend(hunk.lines.iter().map(|line| match line {
        Line::Keep(t) => format!(" {t}"),
        Line::Remove(t) => format!("-{t}"),
        Line::Add(t) => format!("+{t}"),
    }));
    if hunk.at_end {
        out.push("*** End of File".into());
    }
}

/// Every byte of text the operations hold, and how many pieces (hunks, lines) they have.
fn held(ops: &[FileOp]) -> (usize, usize) {
    let mut bytes = 0;
    let mut pieces = 0;
    for op in ops {
        match op {
            FileOp::Update {
                path,
                move_to,
                hunks,
            } => {
                bytes += path.len() + move_to.as_ref().map_or(0, String::len);
                for hunk in hunks {
                    pieces += 1 + hunk.lines.len();
                    bytes += hunk.anchors.iter().map(String::len).sum::<usize>();
                    bytes += hunk.old().iter().map(|l| l.len()).sum::<usize>();
                    bytes += hunk
                        .lines
                        .iter()
                        .filter_map(|l| match l {
                            Line::Add(t) => Some(t.len()),
                            _ => None,
                        })
                        .sum::<usize>();
                }
            }
            FileOp::Add { path, content } => bytes += path.len() + content.len(),
            FileOp::Delete { path } => bytes += path.len(),
        }
        pieces += 1;
    }
    (bytes, pieces)
}

/// Patch-like text: the markers, hunk lines and anything between.
fn patchy_text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        Just("*** Begin Patch".to_string()),
        Just("*** End Patch".to_string()),
        path().prop_map(|p| format!("*** Update File: {p}")),
        path().prop_map(|p| format!("*** Add File: {p}")),
        path().prop_map(|p| format!("  *** Delete File: {p}")),
        path().prop_map(|p| format!("*** Move to: {p}")),
        Just("*** End of File".to_string()),
        Just("<<<<<<< SEARCH".to_string()),
        Just("=======".to_string()),
        Just(">>>>>>> REPLACE".to_string()),
        Just("@@ -3,7 +3,8 @@ fn f()".to_string()),
        Just("\\ No newline at end of file".to_string()),
        plain(8).prop_map(|t| format!("@@ {t}")),
        plain(8).prop_map(|t| format!(" {t}")),
        plain(8).prop_map(|t| format!("-{t}")),
        plain(8).prop_map(|t| format!("+{t}")),
        text(10),
    ];
    prop::collection::vec(line, 0..30).prop_map(|lines| lines.join("\n"))
}

/// A file of lines from few words (so that lines repeat), each ending in LF or CRLF.
fn file() -> impl Strategy<Value = Vec<(String, &'static str)>> {
    let word = prop::sample::select(&["a", "b", "fn main", "  x = 1;", ""][..]);
    prop::collection::vec(
        (
            word.prop_map(str::to_string),
            prop::sample::select(&["\n", "\r\n"][..]),
        ),
        0..12,
    )
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn a_patch_in_arguments_cut_anywhere_is_found_as_far_as_it_came(
        ops in prop::collection::vec(file_op(), 1..3),
        key in prop::sample::select(&["input", "patch", "0"][..]),
        cut in any::<usize>(),
    ) {
        // As models send it: the string starts with the marker (one that starts otherwise and
        // is cut off is handed over as the arguments' text, refused as not starting right).
        let patch = render(&ops, "");
        let patch = patch[patch.find("*** Begin Patch").unwrap_or(0)..].to_string();
        let raw = serde_json::json!({ key: [patch.clone()] }).to_string();
        let opened = raw.find("*** Begin Patch").unwrap_or(0) + "*** Begin Patch".len();
        let cut = opened + cut % (raw.len() - opened + 1);
        let Some(cut) = (cut..=raw.len()).find(|&i| raw.is_char_boundary(i)) else {
            return Ok(());
        };
        let found = extract(&raw[..cut]);
        let found = found.ok_or_else(|| TestCaseError::fail("no patch found"))?;
        prop_assert!(patch.starts_with(&found), "{:?} from {:?}", found, &raw[..cut]);
        if cut == raw.len() {
            prop_assert_eq!(found, patch);
        }
    }

    #[test]
    fn any_arguments_text_is_searched_without_a_panic(raw in text(64)) {
        let raw = format!("{{\"input\": \"*** Begin Patch{raw}");
        if let Some(found) = extract(&raw) {
            prop_assert!(found.len() <= raw.len());
        }
    }

    #[test]
    fn any_text_parses_or_is_refused_into_no_more_than_it_holds(patch in patchy_text()) {
        if let Ok(ops) = parse(&patch) {
            let (bytes, pieces) = held(&ops);
            let lines = patch.lines().count();
            prop_assert!(bytes <= patch.len() + lines, "{} bytes from {}", bytes, patch.len());
            prop_assert!(pieces <= 2 * lines, "{} pieces from {} lines", pieces, lines);
        }
    }

    #[test]
    fn written_patches_read_back_as_written(
        mut ops in prop::collection::vec(file_op(), 1..5),
        indent in prop::sample::select(&["", "  "][..]),
    ) {
        let patch = render(&ops, indent);
        for op in &mut ops {
            if let FileOp::Update { hunks, .. } = op {
                for (n, hunk) in hunks.iter_mut().enumerate() {
                    hunk.label = format!("Hunk {}", n + 1);
                }
            }
        }
        prop_assert_eq!(parse(&patch), Ok(ops), "{}", patch);
    }

    #[test]
    fn random_hunks_on_random_files_apply_or_are_refused_and_add_only_what_they_add(
        file in file(),
        hunks in prop::collection::vec(hunk(), 1..4),
    ) {
        let text: String = file.iter().map(|(l, e)| format!("{l}{e}")).collect();
        if let Ok(patched) = lines::apply(&text, &hunks, "f") {
            let added: usize = hunks
                .iter()
                .flat_map(|h| &h.lines)
                .map(|l| match l { Line::Add(t) => t.len() + 2, _ => 0 })
                .sum();
            prop_assert!(patched.len() <= text.len() + added + 2);
        }
    }

    #[test]
    fn a_hunk_cut_from_the_file_applies_where_it_was_cut(
        (file, start, len) in file().prop_filter("a line", |f| !f.is_empty()).prop_flat_map(|f| {
            let lines = f.len();
            (Just(f), 0..lines, 1..4usize).prop_map(|(f, start, len)| {
                let len = len.min(f.len() - start);
                (f, start, len)
            })
        }),
        keep_first in any::<bool>(),
        added in prop::collection::vec(plain(6), 0..3),
    ) {
        let window: Vec<&str> = file[start..start + len].iter().map(|(l, _)| l.as_str()).collect();
        let mut hunk = Hunk::new("Hunk 1".into());
        for (i, line) in window.iter().enumerate() {
            let kept = keep_first && i == 0;
            hunk.lines.push(if kept { Line::Keep(line.to_string()) } else { Line::Remove(line.to_string()) });
        }
        hunk.lines.extend(added.iter().cloned().map(Line::Add));
        let text: String = file.iter().map(|(l, e)| format!("{l}{e}")).collect();
        let places = (0..=file.len() - len)
            .filter(|&i| file[i..i + len].iter().map(|(l, _)| l.as_str()).eq(window.iter().copied()))
            .count();
        let applied = lines::apply(&text, &[hunk], "f");
        if places == 1 {
            let mut expected: Vec<&str> = file[..start].iter().map(|(l, _)| l.as_str()).collect();
            if keep_first {
                expected.push(window[0]);
            }
            expected.extend(added.iter().map(String::as_str));
            expected.extend(file[start + len..].iter().map(|(l, _)| l.as_str()));
            let patched = applied.map_err(TestCaseError::fail)?;
            prop_assert_eq!(patched.lines().collect::<Vec<_>>(), expected);
        } else {
            let error = applied.err().unwrap_or_default();
            prop_assert!(error.contains("matches"), "{}", error);
        }
    }
}
