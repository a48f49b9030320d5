//! Differential test against GNU diff and patch: generated pairs of texts (random line edits,
//! CRLF and LF mixed, lines that differ only in a carriage return, missing final newlines,
//! empty files; fixed seeds, so every run sees the same pairs). Our hunks against `diff -u`'s,
//! and `patch` must turn the old text into the new one with every diff we show.

// Checks against the real programs, run as a person would.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::{Command, Stdio};

use super::hunks;
use crate::test_support::TempDir;

const PAIRS: u64 = 400;

/// A few short words, so that equal lines recur and the alignment has choices to make.
const WORDS: &[&str] = &["a", "b", "c", "d", "e", "fn x() {", "}", "", "  let y = 1;"];

fn text(rng: &mut fastrand::Rng) -> Vec<String> {
    let crlf = rng.u8(..4) == 0;
    (0..rng.usize(..24))
        .map(|_| {
            let end = if crlf || rng.u8(..12) == 0 {
                "\r\n"
            } else {
                "\n"
            };
            format!("{}{end}", WORDS[rng.usize(..WORDS.len())])
        })
        .collect()
}

/// `old` after a few random edits: lines deleted, inserted, replaced, a carriage return added
/// or taken away, every line end converted, the final newline dropped or the text emptied.
fn edited(rng: &mut fastrand::Rng, old: &[String]) -> Vec<String> {
    let mut new = old.to_vec();
    for _ in 0..rng.usize(1..5) {
        let at = rng.usize(..=new.len());
        let word = WORDS[rng.usize(..WORDS.len())];
        match rng.u8(..9) {
            0 | 1 if at < new.len() => drop(new.remove(at)),
            2 | 3 => new.insert(at, format!("{word}\n")),
            4 if at < new.len() => new[at] = format!("{word}\n"),
            5 if at < new.len() => new[at] = toggle_cr(&new[at]),
            6 => new = new.iter().map(|l| l.replace("\r\n", "\n")).collect(),
            7 => {
                new = new
                    .iter()
                    .map(|l| l.replace("\r\n", "\n").replace('\n', "\r\n"))
                    .collect()
            }
            8 if rng.u8(..6) == 0 => new.clear(),
            _ => {}
        }
    }
    new
}

fn toggle_cr(line: &str) -> String {
    match line.strip_suffix("\r\n") {
        Some(bare) => format!("{bare}\n"),
        None => line.replace('\n', "\r\n"),
    }
}

/// The text, without its final newline one time in four.
fn joined(rng: &mut fastrand::Rng, lines: &[String]) -> String {
    let text = lines.concat();
    match rng.u8(..4) {
        0 => text.trim_end_matches(['\r', '\n']).to_string(),
        _ => text,
    }
}

/// `diff -u`'s hunks, without its two header lines.
fn gnu_hunks(dir: &Path) -> String {
    let out = Command::new("diff")
        .args(["-u", "old", "new"])
        .current_dir(dir)
        .output()
        .expect("diff (GNU diffutils) runs");
    let text = String::from_utf8(out.stdout).expect("the texts are UTF-8");
    text.splitn(3, '\n').nth(2).unwrap_or("").to_string()
}

/// What `patch` makes of `old` with our diff, or why it refused.
fn patched(dir: &Path, diff: &str) -> Result<Vec<u8>, String> {
    std::fs::write(
        dir.join("ours.diff"),
        format!("--- a/old\n+++ b/new\n{diff}"),
    )
    .unwrap();
    let _ = std::fs::remove_file(dir.join("out"));
    let out = Command::new("patch")
        .args(["-s", "-o", "out", "-i", "ours.diff", "old"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("patch runs");
    match out.status.success() {
        true => Ok(std::fs::read(dir.join("out")).unwrap()),
        false => Err(String::from_utf8_lossy(&out.stdout).into_owned()),
    }
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn hunks_agree_with_gnu_diff_and_apply_with_patch() {
    if !have("diff") || !have("patch") {
        eprintln!("skipped: GNU diff or patch is not installed, so diffs were not checked");
        return;
    }
    let dir = TempDir::new("diff-gnu");
    let (mut agree, mut differ) = (0, Vec::new());
    let (mut empty, mut applied) = (0, 0);
    for seed in 0..PAIRS {
        let mut rng = fastrand::Rng::with_seed(seed);
        let old_lines = text(&mut rng);
        let new_lines = edited(&mut rng, &old_lines);
        let (old, new) = (joined(&mut rng, &old_lines), joined(&mut rng, &new_lines));
        empty += usize::from(old.is_empty() || new.is_empty());
        std::fs::write(dir.path().join("old"), &old).unwrap();
        std::fs::write(dir.path().join("new"), &new).unwrap();
        let ours = hunks(&old, &new);
        match gnu_hunks(dir.path()) == ours {
            true => agree += 1,
            false => differ.push(seed),
        }
        if !ours.is_empty() {
            let result = patched(dir.path(), &ours);
            assert_eq!(
                result.as_deref(),
                Ok(new.as_bytes()),
                "seed {seed}: patch with our diff\n{ours}"
            );
            applied += 1;
        }
    }
    eprintln!(
        "{agree} of {PAIRS} pairs have the hunks of diff -u ({empty} with an empty file; differ: {differ:?}); patch applied all {applied} non-empty diffs"
    );
    assert!(
        agree * 100 >= PAIRS as usize * 98,
        "seeds that differ: {differ:?}"
    );
}
