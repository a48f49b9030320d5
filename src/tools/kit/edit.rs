//! Creating, appending to and patching text files inside a root directory (the working dir,
//! or the notes dir), through [`Target`] so symlinks cannot redirect a write, and the check
//! that asks the person before a change is written.

use std::path::Path;

use super::target::{Planned, Target, already_exists};
use crate::interact::approvals::Action;
use crate::interact::diff;
use crate::tools::ToolContext;

fn line_count(text: &str) -> usize {
    text.lines().count()
}

/// Looks at a change before it is written (the file as an approval names it, old text, new
/// text) and may refuse it.
pub(crate) type Check<'a> = &'a dyn Fn(&str, &str, &str) -> Result<(), String>;

/// A check that asks the person to approve the change, showing its diff.
pub(crate) fn approve_edit<'a>(
    ctx: &'a ToolContext,
    tool: &'static str,
) -> impl Fn(&str, &str, &str) -> Result<(), String> + 'a {
    move |name, old, new| ctx.approve(Action::edit(tool, name, diff::unified(name, old, new)))
}

/// A check that lets every change through.
#[cfg(test)]
pub(crate) fn no_check(_: &str, _: &str, _: &str) -> Result<(), String> {
    Ok(())
}

/// `create_file`: a new file; never overwrites. Missing directories are made only once the
/// change was allowed, and taken away again if the write fails.
pub(crate) fn create(
    root: &Path,
    path: &str,
    content: &str,
    check: Check<'_>,
) -> Result<String, String> {
    let planned = Planned::new(root, path)?;
    if planned.exists()? {
        return Err(already_exists(&planned.shown));
    }
    check(&planned.approval_name(), "", content)?;
    let (target, made) = planned.make_dirs()?;
    if let Err(error) = target.write(content, None, false) {
        if let Some(first) = made {
            planned.remove_made_dirs(first);
        }
        return Err(error);
    }
    Ok(format!(
        "Created '{}' ({} lines).",
        target.shown,
        line_count(content)
    ))
}

/// `append_file`: adds `content` at the end, starting on a new line.
pub(crate) fn append(
    root: &Path,
    path: &str,
    content: &str,
    check: Check<'_>,
) -> Result<String, String> {
    let target = Target::new(root, path, false)?;
    let (old, mode) = target.read_text().map_err(|e| {
        if e.starts_with("File not found") {
            format!(
                "File '{}' does not exist. Create it with create_file first, then append the rest.",
                target.shown
            )
        } else {
            e
        }
    })?;
    let mut text = old.clone();
    if !text.is_empty() && !text.ends_with('\n') && !content.starts_with('\n') {
        text.push('\n');
    }
    text.push_str(content);
    check(&target.approval_name(), &old, &text)?;
    target.write(&text, Some(mode), true)?;
    Ok(format!(
        "Appended {} lines to '{}' (now {} lines).",
        line_count(content),
        target.shown,
        line_count(&text)
    ))
}

/// `apply_patch`: replaces the one occurrence of `old` with `new`.
pub(crate) fn patch(
    root: &Path,
    path: &str,
    old: &str,
    new: &str,
    check: Check<'_>,
) -> Result<String, String> {
    let target = Target::new(root, path, false)?;
    let (text, mode) = target.read_text()?;
    let (patched, summary) = replace_once(&text, old, new, &target.shown)?;
    check(&target.approval_name(), &text, &patched)?;
    target.write(&patched, Some(mode), true)?;
    Ok(format!("Patched '{}': {summary}.", target.shown))
}

/// The text with `old` replaced by `new`, when `old` occurs exactly once; a file with CRLF
/// line endings also matches an `old` written with LF.
pub(crate) fn replace_once(
    text: &str,
    old: &str,
    new: &str,
    shown: &str,
) -> Result<(String, String), String> {
    if old.is_empty() {
        return Err("old_str is empty. To add text at the end use append_file; otherwise include the lines around the change in old_str.".into());
    }
    if old == new {
        return Err("old_str and new_str are the same: there is nothing to change.".into());
    }
    let (old, new) = if !text.contains(old) && text.contains("\r\n") && !old.contains('\r') {
        (old.replace('\n', "\r\n"), new.replace('\n', "\r\n"))
    } else {
        (old.to_string(), new.to_string())
    };
    let starts: Vec<usize> = text.match_indices(old.as_str()).map(|(at, _)| at).collect();
    match starts.as_slice() {
        [] => Err(format!(
            "old_str not found in '{shown}'. The file may have changed: re-read it with read_file.{}",
            nearest(text, &old)
        )),
        [at] => {
            let first = text[..*at].matches('\n').count() + 1;
            let last = first + old.matches('\n').count() - usize::from(old.ends_with('\n'));
            let patched = format!("{}{new}{}", &text[..*at], &text[at + old.len()..]);
            let summary = format!(
                "lines {first}–{last} replaced ({} lines → {} lines)",
                line_count(&old),
                line_count(&new)
            );
            Ok((patched, summary))
        }
        many => {
            let lines: Vec<String> = many
                .iter()
                .map(|at| (text[..*at].matches('\n').count() + 1).to_string())
                .collect();
            Err(format!(
                "old_str matches {} places in '{shown}' (lines {}). Include more surrounding lines so that it matches exactly one.",
                many.len(),
                lines.join(", ")
            ))
        }
    }
}

/// Cells of edit tables the nearest-line hint works out at most: the lines past that budget
/// are not compared (a file of 10 MB of long lines against a long first line took minutes).
const NEAREST_BUDGET: usize = 20_000_000;

/// A hint for an `old_str` that was not found: the lines most like its first line.
pub(crate) fn nearest(text: &str, old: &str) -> String {
    let squash = |s: &str| s.split_whitespace().collect::<String>();
    let mut hint = String::new();
    if squash(text).contains(&squash(old)) {
        hint.push_str(
            " It would match if whitespace were ignored: check indentation and line breaks.",
        );
    }
    let Some(first) = old.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return hint;
    };
    let lines: Vec<&str> = text.lines().collect();
    let most = first.len().max(8) / 2;
    let length = first.chars().count();
    let mut budget = NEAREST_BUDGET;
    let best = lines
        .iter()
        .enumerate()
        .take(50_000)
        .filter(|(_, line)| line.len() < 400)
        // No fewer edits than the lengths differ by.
        .filter(|(_, line)| line.trim().chars().count().abs_diff(length) <= most)
        .take_while(|(_, line)| {
            let cost = (line.len() + 1) * (first.len() + 1);
            budget = budget.saturating_sub(cost);
            budget > 0
        })
        .map(|(i, line)| (crate::edit_distance::edit_distance(line.trim(), first), i))
        .min();
    let Some((distance, at)) = best else {
        return hint;
    };
    if distance > most {
        return hint;
    }
    let from = at.saturating_sub(2);
    let to = (at + old.lines().count() + 2).min(lines.len());
    let shown: Vec<String> = (from..to)
        .map(|i| format!("  {:>5} | {}", i + 1, lines[i]))
        .collect();
    format!(
        "{hint}\nNearest match (lines {}–{to}):\n{}",
        from + 1,
        shown.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;
    use crate::tools::kit::target::MAX_EDIT_BYTES;

    #[test]
    fn create_refuses_to_overwrite_and_makes_directories() {
        let root = TempDir::new("edit-create");
        assert_eq!(
            create(root.path(), "src/new/mod.rs", "a\nb\n", &no_check).unwrap(),
            "Created 'src/new/mod.rs' (2 lines)."
        );
        assert_eq!(
            std::fs::read_to_string(root.path().join("src/new/mod.rs")).unwrap(),
            "a\nb\n"
        );
        let err = create(root.path(), "src/new/mod.rs", "other", &no_check).unwrap_err();
        assert_eq!(
            err,
            "File already exists: 'src/new/mod.rs'. Use apply_patch to modify existing files."
        );
    }

    #[test]
    fn append_starts_on_a_new_line_and_needs_the_file() {
        let root = TempDir::new("edit-append");
        std::fs::write(root.path().join("doc.md"), "# Title").unwrap();
        assert_eq!(
            append(root.path(), "doc.md", "more\n", &no_check).unwrap(),
            "Appended 1 lines to 'doc.md' (now 2 lines)."
        );
        assert_eq!(
            std::fs::read_to_string(root.path().join("doc.md")).unwrap(),
            "# Title\nmore\n"
        );
        assert!(
            append(root.path(), "nope.md", "x", &no_check)
                .unwrap_err()
                .contains("Create it with create_file first")
        );
    }

    #[test]
    fn replace_once_cases() {
        let text = "fn a() {\n    one();\n}\nfn b() {\n    one();\n}\n";
        let (patched, summary) =
            replace_once(text, "fn a() {\n    one();", "fn a() {\n    two();", "f.rs").unwrap();
        assert_eq!(patched, text.replacen("one", "two", 1));
        assert_eq!(summary, "lines 1–2 replaced (2 lines → 2 lines)");
        let err = replace_once(text, "    one();", "x", "f.rs").unwrap_err();
        assert_eq!(
            err,
            "old_str matches 2 places in 'f.rs' (lines 2, 5). Include more surrounding lines so that it matches exactly one."
        );
        assert!(
            replace_once(text, "", "x", "f.rs")
                .unwrap_err()
                .starts_with("old_str is empty")
        );
        assert!(
            replace_once(text, "a", "a", "f.rs")
                .unwrap_err()
                .contains("the same")
        );
    }

    #[test]
    fn not_found_shows_the_nearest_lines_and_whitespace_hints() {
        let text = "alpha\nbeta\n    let total = compute(x);\ngamma\ndelta\n";
        let err = replace_once(text, "let total = compute(y);", "z", "m.rs").unwrap_err();
        assert!(
            err.starts_with("old_str not found in 'm.rs'. The file may have changed"),
            "{err}"
        );
        assert!(err.contains("Nearest match (lines 1–5):\n      1 | alpha\n      2 | beta\n      3 |     let total = compute(x);"), "{err}");
        let err = replace_once(text, "let   total = compute(x);\ngamma", "z", "m.rs").unwrap_err();
        assert!(
            err.contains("would match if whitespace were ignored"),
            "{err}"
        );
    }

    #[test]
    fn the_nearest_line_hint_works_out_a_bounded_number_of_edits() {
        // 10 MB of long lines against a long first line: minutes before the budget.
        let line: String = ('a'..='z').cycle().take(399).collect();
        let text = format!("{line}\n").repeat(10 * 1024 * 1024 / 400);
        assert_eq!(nearest(&text, &"b".repeat(500)), "");
        // Lines far in length cost nothing: a near line after many is still found.
        let text = format!("{}fn main() {{\n", format!("{line}\n").repeat(20_000));
        assert!(nearest(&text, "fn main(){").contains("| fn main() {"));
    }

    #[test]
    fn crlf_files_match_lf_old_str() {
        let (patched, _) = replace_once("a\r\nb\r\nc\r\n", "a\nb", "a\nB", "w.txt").unwrap();
        assert_eq!(patched, "a\r\nB\r\nc\r\n");
    }

    #[test]
    fn patch_keeps_permissions_and_refuses_binary_and_non_utf8() {
        use std::os::unix::fs::PermissionsExt;
        let root = TempDir::new("edit-patch");
        let script = root.path().join("run.sh");
        std::fs::write(&script, "echo old\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            patch(root.path(), "run.sh", "old", "new", &no_check).unwrap(),
            "Patched 'run.sh': lines 1–1 replaced (1 lines → 1 lines)."
        );
        assert_eq!(std::fs::read_to_string(&script).unwrap(), "echo new\n");
        assert_eq!(
            std::fs::metadata(&script).unwrap().permissions().mode() & 0o777,
            0o755
        );
        std::fs::write(root.path().join("bin"), [0u8, 159, 146, 150]).unwrap();
        assert!(
            patch(root.path(), "bin", "a", "b", &no_check)
                .unwrap_err()
                .contains("binary")
        );
        std::fs::write(root.path().join("latin1.txt"), [b'c', b'a', b'f', 0xe9]).unwrap();
        assert!(
            patch(root.path(), "latin1.txt", "caf", "x", &no_check)
                .unwrap_err()
                .contains("not UTF-8")
        );
    }

    #[test]
    fn a_directory_swapped_for_a_symlink_after_the_check_is_not_followed() {
        let root = TempDir::new("edit-swap");
        let outside = TempDir::new("edit-swap-outside");
        std::fs::create_dir(root.path().join("sub")).unwrap();
        // The path checks out as a plain directory, then is replaced by a symlink before the write.
        let target = Target::new(root.path(), "sub/file.txt", false).unwrap();
        std::fs::rename(root.path().join("sub"), root.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("sub")).unwrap();
        target.write("x", None, false).unwrap();
        // The write went to the directory that was checked, wherever it is now.
        assert!(!outside.path().join("file.txt").exists());
        assert_eq!(
            std::fs::read_to_string(root.path().join("moved/file.txt")).unwrap(),
            "x"
        );
        // A fresh attempt sees the symlink and refuses.
        assert!(
            create(root.path(), "sub/other.txt", "x", &no_check)
                .unwrap_err()
                .contains("symlink")
        );
    }

    #[test]
    fn files_that_are_not_what_they_seem_are_refused_unopened() {
        let root = TempDir::new("edit-special");
        let fifo = std::ffi::CString::new(root.path().join("pipe").as_os_str().as_encoded_bytes())
            .unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert_eq!(
            patch(root.path(), "pipe", "a", "b", &no_check).unwrap_err(),
            "'pipe' is a named pipe (FIFO), not a regular file, so it was not opened; only regular text files can be edited."
        );
        let socket = root.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        assert!(
            patch(root.path(), "sock", "a", "b", &no_check)
                .unwrap_err()
                .starts_with("'sock' is a socket, not a regular file")
        );
        assert!(
            Target::new(Path::new("/"), "dev/null", false)
                .unwrap()
                .read_text()
                .unwrap_err()
                .starts_with("'dev/null' is a character device, not a regular file")
        );
        std::fs::create_dir(root.path().join("dir")).unwrap();
        assert_eq!(
            patch(root.path(), "dir", "a", "b", &no_check).unwrap_err(),
            "'dir' is a directory, not a file. Name a file inside it."
        );
        // A sparse file over the limit is refused before it is read.
        let big = std::fs::File::create(root.path().join("big.log")).unwrap();
        big.set_len(MAX_EDIT_BYTES + 1).unwrap();
        assert_eq!(
            patch(root.path(), "big.log", "a", "b", &no_check).unwrap_err(),
            "'big.log' is larger than 10 MB, the most the file tools edit; it was not read. Change it with run_command (e.g. sed), or edit a smaller file."
        );
    }
}
