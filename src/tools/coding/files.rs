//! The file tools of coding mode: `read_file` (with its 10 KB guard and line ranges),
//! `create_file`, `append_file` and `apply_patch` (also in the Codex patch format).

use serde::Deserialize;

use super::codex_patch;
use crate::interact::approvals::Action;
use crate::tools::kit::edit::{self, approve_edit};
use crate::tools::kit::read::read_lines;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const READ_FILE_PARAMS: &[Param] = &[
    Param::required(
        "path",
        Kind::String,
        "Path relative to the working directory",
    ),
    Param::optional(
        "start_line",
        Kind::Integer,
        "First line to read, counting from 1",
    ),
    Param::optional("end_line", Kind::Integer, "Last line to read (inclusive)"),
];

const CREATE_PARAMS: &[Param] = &[
    Param::required(
        "path",
        Kind::String,
        "Path of the new file, relative to the working directory",
    ),
    Param::required("content", Kind::String, "The whole content of the file"),
];

const APPEND_PARAMS: &[Param] = &[
    Param::required(
        "path",
        Kind::String,
        "Path of an existing file, relative to the working directory",
    ),
    Param::required(
        "content",
        Kind::String,
        "Text to add at the end of the file",
    ),
];

const PATCH_PARAMS: &[Param] = &[
    Param::required(
        "path",
        Kind::String,
        "Path of the file to change, relative to the working directory",
    ),
    Param::required(
        "old_str",
        Kind::String,
        "Exact text to replace; it must occur exactly once in the file",
    ),
    Param::required("new_str", Kind::String, "The text to put in its place"),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "coding/files",
    about: "reading, creating and changing files",
    words: &[
        "file",
        "files",
        "read",
        "edit",
        "change",
        "write",
        "create",
        "patch",
        "rename",
        "refactor",
        "implement",
        "function",
        "module",
        "class",
        "method",
        "endpoint",
        "handler",
        "scaffold",
        "typo",
        "dockerfile",
        "config",
        "bug",
        "panic*",
        "crash*",
    ],
    asks: &[
        "read the readme",
        "open main.rs",
        "edit the config file",
        "create a new file",
        "fix the bug in this module",
        "add a function to the module",
        "rename a variable across the code",
        "write a test for it",
        "what's in this file",
        "split this function into smaller ones",
        "add a new route to the api",
        "create a handler and its test",
        "correct a spelling mistake in the docs",
        "add a command line option",
        "update the version number",
        "write a dockerfile",
        "find out why the program crashes",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("read_file")
            .describe("Read a text file in the working directory. Files over 10KB must be read in sections with start_line/end_line.")
            .offered(Offered::Project)
            .params(READ_FILE_PARAMS)
            .example(r#"{"path": "src/main.rs", "start_line": 1, "end_line": 100}"#)
            .handler(read_file),
        ToolDef::build("create_file")
            .describe("Create a new file (never overwrites; use apply_patch to change a file). For a large file, create it with the first part and add the rest with append_file.")
            .offered(Offered::Coding)
            .writes()
            .ticket_gated()
            .params(CREATE_PARAMS)
            .example(r#"{"path": "src/util.rs", "content": "pub fn helper() {}\n"}"#)
            .handler(|args: WriteArgs, ctx| edit::create(&ctx.working_dir(), &args.path, &args.content, &approve_edit(ctx, "create_file"))),
        ToolDef::build("append_file")
            .describe("Add text to the end of an existing file, e.g. the next section of a large file.")
            .offered(Offered::Coding)
            .writes()
            .ticket_gated()
            .params(APPEND_PARAMS)
            .example(r#"{"path": "docs/guide.md", "content": "The next section.\n"}"#)
            .handler(|args: WriteArgs, ctx| edit::append(&ctx.working_dir(), &args.path, &args.content, &approve_edit(ctx, "append_file"))),
        ToolDef::build("apply_patch")
            .describe("Change a file by replacing old_str, which must occur exactly once, with new_str. Include enough surrounding lines to make old_str unique. Instead of these arguments you may send a Codex patch ('*** Begin Patch' ... '*** End Patch' with Add File, Update File (optionally '*** Move to:'), Delete File sections; '@@' hunks or SEARCH/REPLACE blocks). Where it differs from Codex's apply_patch: the whole patch applies or nothing does; a patch without its '*** End Patch' line is refused as cut off; Add File and Move to never overwrite an existing file; paths must be relative; context and '-' lines must equal whole lines of the file exactly (no whitespace fuzz; CRLF and LF endings are kept line by line), and a hunk without an '@@' line must match exactly one place; the text after '@@' is a line above the change (indentation ignored) that picks the place; a hunk that only adds lines needs an '@@' line or context lines.")
            .offered(Offered::Coding)
            .writes()
            .ticket_gated()
            .params(PATCH_PARAMS)
            .raw(codex_patch_call)
            .example(r#"{"path": "src/main.rs", "old_str": "let x = 1;", "new_str": "let x = 2;"}"#)
            .handler(|args: PatchArgs, ctx| edit::patch(&ctx.working_dir(), &args.path, &args.old_str, &args.new_str, &approve_edit(ctx, "apply_patch"))),
    ]
}

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

#[derive(Deserialize)]
struct PatchArgs {
    path: String,
    old_str: String,
    new_str: String,
}

/// An apply_patch call whose arguments hold a Codex `*** Begin Patch` patch.
fn codex_patch_call(raw: &str, ctx: &ToolContext) -> Option<Result<String, String>> {
    let patch = codex_patch::extract(raw)?;
    let approve = |paths: &str, diff: String| ctx.approve(Action::edit("apply_patch", paths, diff));
    Some(codex_patch::run(&ctx.working_dir(), &patch, &approve))
}

#[derive(Deserialize)]
struct ReadFileArgs {
    path: String,
    start_line: Option<i64>,
    end_line: Option<i64>,
}

fn read_file(args: ReadFileArgs, ctx: &ToolContext) -> Result<String, String> {
    read_lines(
        &ctx.working_dir(),
        &args.path,
        args.path.trim(),
        args.start_line,
        args.end_line,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;
    use std::fs;

    fn workspace(name: &str) -> (TempDir, ToolContext) {
        let ws = TempDir::new(name);
        let dir = ws.path();
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::write(dir.join("src/lib.rs"), "one\ntwo\nthree\n").unwrap();
        let big: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
        fs::write(dir.join("big.txt"), big).unwrap();
        fs::write(dir.join("empty.txt"), "").unwrap();
        fs::write(dir.join("blob.bin"), [0u8, 1, 2, 3]).unwrap();
        let ctx = ToolContext {
            coding_mode: true,
            shared: std::sync::Arc::new(crate::tools::SessionTools {
                tickets: crate::tools::coding::tickets::TicketGate::opened(),
                ..Default::default()
            }),
            ..ToolContext::new(dir.to_path_buf())
        };
        (ws, ctx)
    }

    #[test]
    fn apply_patch_takes_codex_patches_raw_or_wrapped_in_json() {
        use crate::message::ToolCall;
        let (dir, ctx) = workspace("codex-call");
        let registry = crate::tools::Registry::builtin();
        let patch =
            "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n one\n-two\n+TWO\n*** End Patch";
        let raw = registry.execute(&ToolCall::new("1", "apply_patch", patch), &ctx);
        assert_eq!(
            raw.content,
            "Applied the patch: updated src/lib.rs (1 changes)."
        );
        let wrapped = serde_json::json!({"input": patch.replace("two", "TWO").replace("TWO\n*** End", "2\n*** End")}).to_string();
        let json = registry.execute(&ToolCall::new("2", "apply_patch", &wrapped), &ctx);
        assert!(!json.is_error, "{}", json.content);
        assert_eq!(
            fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
            "one\n2\nthree\n"
        );
        let plain = registry.execute(
            &ToolCall::new(
                "3",
                "apply_patch",
                r#"{"path":"src/lib.rs","old_str":"2","new_str":"two"}"#,
            ),
            &ctx,
        );
        assert_eq!(
            plain.content,
            "Patched 'src/lib.rs': lines 2–2 replaced (1 lines → 1 lines)."
        );
    }
}
