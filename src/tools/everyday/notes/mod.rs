//! Notes: `write_note`, `read_note`, `notes_ls`, `notes_mkdir`, `search_notes`, and the
//! line-range read and patch tools confined to the notes directory (`file_read_lines`,
//! `file_apply_patch`). Notes live in ~/Notes, or in .marvin/notes/ in coding mode.

mod place;

use std::path::Path;

use serde::Deserialize;

use place::{NOTE_LIMIT, notes};

use crate::tools::kit::confined;
use crate::tools::kit::edit;
use crate::tools::kit::fsafe::Dir;
use crate::tools::kit::ignore::{self, Visit};
use crate::tools::kit::paths;
use crate::tools::kit::read::read_lines;
use crate::tools::kit::target::io_error;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const MAX_HITS: usize = 100;

const WRITE_PARAMS: &[Param] = &[
    Param::required(
        "path",
        Kind::String,
        "Note path inside the notes directory, e.g. ideas/garden.md",
    ),
    Param::required("content", Kind::String, "The text of the note"),
    Param::optional(
        "append",
        Kind::Boolean,
        "Add to the end of the note instead of replacing it",
    ),
];
const PATH_PARAM: &[Param] = &[Param::required(
    "path",
    Kind::String,
    "Path inside the notes directory",
)];
const LS_PARAMS: &[Param] = &[Param::optional(
    "path",
    Kind::String,
    "Subdirectory of the notes directory",
)];
const SEARCH_PARAMS: &[Param] = &[Param::required(
    "query",
    Kind::String,
    "Text to look for, regardless of case",
)];
const LINES_PARAMS: &[Param] = &[
    Param::required("path", Kind::String, "Note path inside the notes directory"),
    Param::optional("start_line", Kind::Integer, "First line, counting from 1"),
    Param::optional("end_line", Kind::Integer, "Last line (inclusive)"),
];
const PATCH_PARAMS: &[Param] = &[
    Param::required("path", Kind::String, "Note path inside the notes directory"),
    Param::required(
        "old_str",
        Kind::String,
        "Exact text to replace; it must occur exactly once",
    ),
    Param::required("new_str", Kind::String, "The text to put in its place"),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "notes",
    about: "notes and lists in the notes folder",
    words: &[
        "note",
        "notes",
        "notebook",
        "jot",
        "write down",
        "~list",
        "~lists",
        "todo",
        "to do list",
        "shopping",
        "grocery",
        "groceries",
        "checklist",
        "remember that",
        "memo",
        "~item",
        "~items",
        "remove from",
        "add to",
    ],
    asks: &[
        "remember this for me",
        "note this down for later",
        "what is on my list",
        "check my lists",
        "which lists do I have",
        "clear the list",
        "take an item off the list",
        "read me my to-do list",
        "write this down",
        "jot a note",
        "add milk to the shopping list",
        "what's on my grocery list",
        "read my notes about the trip",
        "look through my notes",
        "take a note that",
        "make a note that",
        "save it as a note",
        "delete that note",
        "keep a memo",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("write_note")
            .describe("Write (or with append, add to) a note in the notes directory.")
            .offered(Offered::Everywhere)
            .writes()
            .params(WRITE_PARAMS)
            .example(r#"{"path": "todo.md", "content": "- buy milk\n", "append": true}"#)
            .handler(write_note),
        ToolDef::build("read_note")
            .describe("Read a note from the notes directory.")
            .offered(Offered::Everywhere)
            .params(PATH_PARAM)
            .example(r#"{"path": "todo.md"}"#)
            .handler(read_note),
        ToolDef::build("notes_ls")
            .describe("List the notes directory or one of its subdirectories.")
            .offered(Offered::Everywhere)
            .params(LS_PARAMS)
            .example(r#"{"path": "projects"}"#)
            .handler(notes_ls),
        ToolDef::build("notes_mkdir")
            .describe("Create a folder in the notes directory.")
            .offered(Offered::Everywhere)
            .writes()
            .params(PATH_PARAM)
            .example(r#"{"path": "projects/garden"}"#)
            .handler(notes_mkdir),
        ToolDef::build("search_notes")
            .describe("Find notes containing some text; returns path:line:text.")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "tomatoes"}"#)
            .handler(search_notes),
        ToolDef::build("file_read_lines")
            .describe("Read lines of a file in the notes directory.")
            .offered(Offered::Everywhere)
            .params(LINES_PARAMS)
            .example(r#"{"path": "journal.md", "start_line": 1, "end_line": 50}"#)
            .handler(file_read_lines),
        ToolDef::build("file_apply_patch")
            .describe("Change a file in the notes directory by replacing old_str (exactly once) with new_str.")
            .offered(Offered::Everywhere)
            .writes()
            .params(PATCH_PARAMS)
            .example(r#"{"path": "todo.md", "old_str": "- buy milk", "new_str": "- buy oat milk"}"#)
            .handler(file_apply_patch),
    ]
}

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
    append: Option<bool>,
}

fn write_note(args: WriteArgs, ctx: &ToolContext) -> Result<String, String> {
    let notes = notes(ctx)?;
    let (path, real) = notes.resolve(&args.path)?;
    let shown = args.path.trim();
    let existing = notes.existing(&real, shown)?;
    let mode = existing.as_ref().map(|(_, mode)| *mode);
    let old = existing.map(|(text, _)| text).unwrap_or_default();
    if args.append == Some(true) && mode.is_some() {
        let mut text = old.clone();
        if !text.is_empty() && !text.ends_with('\n') && !args.content.starts_with('\n') {
            text.push('\n');
        }
        text.push_str(&args.content);
        notes.write(ctx, "write_note", &path, (&old, &text, mode))?;
        return Ok(format!(
            "Appended {} lines to '{shown}' (now {} lines).",
            args.content.lines().count(),
            text.lines().count()
        ));
    }
    notes.write(ctx, "write_note", &path, (&old, &args.content, mode))?;
    Ok(format!(
        "Saved note '{shown}' ({} lines) in {}.",
        args.content.lines().count(),
        notes.dir.display()
    ))
}

#[derive(Deserialize)]
struct PathArgs {
    path: String,
}

fn read_note(args: PathArgs, ctx: &ToolContext) -> Result<String, String> {
    let notes = notes(ctx)?;
    let (path, _) = notes.resolve(&args.path)?;
    read_lines(&notes.root, &path, args.path.trim(), None, None)
}

#[derive(Deserialize)]
struct LsArgs {
    path: Option<String>,
}

fn notes_ls(args: LsArgs, ctx: &ToolContext) -> Result<String, String> {
    let notes = notes(ctx)?;
    let top = notes.dir.clone();
    let dir = match &args.path {
        Some(path) if !path.trim().is_empty() => notes.resolve(path)?.1,
        _ => top.clone(),
    };
    if !dir.is_dir() {
        return Err(format!(
            "'{}' is not a folder of the notes directory. Its top level:\n{}",
            args.path.unwrap_or_default(),
            paths::listing(&top)
        ));
    }
    Ok(format!("{}:\n{}", dir.display(), paths::listing(&dir)))
}

fn notes_mkdir(args: PathArgs, ctx: &ToolContext) -> Result<String, String> {
    let notes = notes(ctx)?;
    let (_, real) = notes.resolve(&args.path)?;
    let canonical_root = std::fs::canonicalize(&notes.root).map_err(|e| e.to_string())?;
    let relative = real
        .strip_prefix(&canonical_root)
        .map_err(|_| "The folder must be inside the notes directory.".to_string())?;
    Dir::open(&canonical_root, relative, true).map_err(|e| io_error(&e, &args.path, "create"))?;
    Ok(format!(
        "Created the folder '{}' in {}.",
        args.path.trim(),
        notes.dir.display()
    ))
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
}

fn search_notes(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let needle = args.query.trim().to_lowercase();
    if needle.is_empty() {
        return Err("The query is empty: say what text to look for.".into());
    }
    let notes = notes(ctx)?;
    let root = std::fs::canonicalize(&notes.root).map_err(|e| e.to_string())?;
    let top = root.join(&notes.base);
    let mut hits = Vec::new();
    ignore::walk(&top, &mut |entry| {
        if !entry.is_dir {
            hits.extend(matching_lines(
                &root,
                &top.join(&entry.path),
                &entry.path,
                &needle,
            ));
        }
        if hits.len() > MAX_HITS {
            Visit::Stop
        } else {
            Visit::Continue
        }
    });
    if hits.is_empty() {
        return Ok(format!("No notes mention '{}'.", args.query.trim()));
    }
    let more = hits.len().saturating_sub(MAX_HITS);
    hits.truncate(MAX_HITS);
    let mut text = hits.join("\n");
    if more > 0 {
        text.push_str(&format!(
            "\n[{more} more matches not shown: use a more specific query]"
        ));
    }
    Ok(text)
}

/// The lines of note `full` that mention `needle`; nothing for a symlink, a special or binary
/// file, or one over NOTE_LIMIT.
fn matching_lines(root: &Path, full: &Path, shown: &Path, needle: &str) -> Vec<String> {
    let Ok((bytes, size)) = confined::read(root, full, NOTE_LIMIT) else {
        return Vec::new();
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Vec::new();
    };
    if size > NOTE_LIMIT || text.contains('\0') {
        return Vec::new();
    }
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.to_lowercase().contains(needle))
        .map(|(i, line)| {
            format!(
                "{}:{}:{}",
                shown.display(),
                i + 1,
                line.chars().take(300).collect::<String>()
            )
        })
        .collect()
}

#[derive(Deserialize)]
struct LinesArgs {
    path: String,
    start_line: Option<i64>,
    end_line: Option<i64>,
}

fn file_read_lines(args: LinesArgs, ctx: &ToolContext) -> Result<String, String> {
    let notes = notes(ctx)?;
    let (path, _) = notes.resolve(&args.path)?;
    read_lines(
        &notes.root,
        &path,
        args.path.trim(),
        args.start_line,
        args.end_line,
    )
}

#[derive(Deserialize)]
struct PatchArgs {
    path: String,
    old_str: String,
    new_str: String,
}

fn file_apply_patch(args: PatchArgs, ctx: &ToolContext) -> Result<String, String> {
    let notes = notes(ctx)?;
    let (path, real) = notes.resolve(&args.path)?;
    let shown = args.path.trim();
    let (text, mode) = notes.existing(&real, shown)?.ok_or_else(|| {
        format!(
            "File not found: '{shown}'. Notes dir: {}. Check the path with notes_ls.",
            notes.dir.display()
        )
    })?;
    let (patched, summary) = edit::replace_once(&text, &args.old_str, &args.new_str, shown)?;
    notes.write(
        ctx,
        "file_apply_patch",
        &path,
        (&text, &patched, Some(mode)),
    )?;
    Ok(format!("Patched '{shown}': {summary}."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;
    use std::sync::Arc;

    fn ctx(home: &TempDir, work: &TempDir, coding_mode: bool) -> ToolContext {
        ToolContext {
            coding_mode,
            settings: Arc::new(crate::tools::ToolSettings {
                search_path: None,
                notes_home: Some(home.path().join("Notes")),
                ..crate::tools::ToolSettings::default()
            }),
            ..ToolContext::new(work.path().to_path_buf())
        }
    }

    #[test]
    fn notes_go_to_home_or_to_the_project_in_coding_mode() {
        let (home, work) = (TempDir::new("notes-home"), TempDir::new("notes-work"));
        let interactive = ctx(&home, &work, false);
        write_note(
            WriteArgs {
                path: "ideas/garden.md".into(),
                content: "tomatoes\n".into(),
                append: None,
            },
            &interactive,
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(home.path().join("Notes/ideas/garden.md")).unwrap(),
            "tomatoes\n"
        );
        let coding = ctx(&home, &work, true);
        write_note(
            WriteArgs {
                path: "plan.md".into(),
                content: "step 1\n".into(),
                append: None,
            },
            &coding,
        )
        .unwrap();
        assert!(work.path().join(".marvin/notes/plan.md").exists());
        assert!(!home.path().join("Notes/plan.md").exists());
    }

    #[test]
    fn write_append_read_search_ls_mkdir_and_patch() {
        let (home, work) = (TempDir::new("notes-flow"), TempDir::new("notes-flow-work"));
        let ctx = ctx(&home, &work, false);
        write_note(
            WriteArgs {
                path: "todo.md".into(),
                content: "- milk\n".into(),
                append: None,
            },
            &ctx,
        )
        .unwrap();
        write_note(
            WriteArgs {
                path: "todo.md".into(),
                content: "- Bread\n".into(),
                append: Some(true),
            },
            &ctx,
        )
        .unwrap();
        assert_eq!(
            read_note(
                PathArgs {
                    path: "todo.md".into()
                },
                &ctx
            )
            .unwrap(),
            "- milk\n- Bread\n"
        );
        assert_eq!(
            search_notes(
                SearchArgs {
                    query: "bread".into()
                },
                &ctx
            )
            .unwrap(),
            "todo.md:2:- Bread"
        );
        notes_mkdir(
            PathArgs {
                path: "projects/garden".into(),
            },
            &ctx,
        )
        .unwrap();
        let listing = notes_ls(LsArgs { path: None }, &ctx).unwrap();
        assert!(listing.ends_with(":\n  projects/\n  todo.md"), "{listing}");
        file_apply_patch(
            PatchArgs {
                path: "todo.md".into(),
                old_str: "- milk".into(),
                new_str: "- oat milk".into(),
            },
            &ctx,
        )
        .unwrap();
        assert_eq!(
            file_read_lines(
                LinesArgs {
                    path: "todo.md".into(),
                    start_line: Some(1),
                    end_line: Some(1)
                },
                &ctx
            )
            .unwrap(),
            "[Lines 1–1 of 2 in 'todo.md']\n- oat milk"
        );
        assert!(
            search_notes(
                SearchArgs {
                    query: "kale".into()
                },
                &ctx
            )
            .unwrap()
            .starts_with("No notes mention")
        );
    }

    #[test]
    fn notes_tools_stay_inside_the_notes_directory() {
        let (home, work) = (TempDir::new("notes-jail"), TempDir::new("notes-jail-work"));
        std::fs::write(work.path().join("secret.txt"), "s").unwrap();
        let ctx = ctx(&home, &work, false);
        for path in ["../secret.txt", "/etc/passwd"] {
            assert!(
                read_note(PathArgs { path: path.into() }, &ctx).is_err(),
                "{path}"
            );
            assert!(
                write_note(
                    WriteArgs {
                        path: path.into(),
                        content: "x".into(),
                        append: None
                    },
                    &ctx
                )
                .is_err(),
                "{path}"
            );
        }
        let no_home = ToolContext::new(work.path().to_path_buf());
        assert!(
            read_note(PathArgs { path: "a".into() }, &no_home)
                .unwrap_err()
                .contains("HOME is not set")
        );
    }
}
