//! Finding things in the working directory: `code_grep` (ripgrep when installed, else a
//! built-in search that honours .gitignore too) and `tree` (with depth and entry caps).

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use crate::tools::kit::confined;
use crate::tools::kit::ignore::{self, Glob, Visit};
use crate::tools::kit::{paths, process};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const DEFAULT_MATCHES: i64 = 100;
const MAX_MATCHES: i64 = 1000;
/// Lines longer than this are cut in results.
const MAX_LINE: usize = 300;
/// Files larger than this are skipped by the built-in search.
const MAX_FILE: u64 = 5 * 1024 * 1024;
const TREE_ENTRIES: usize = 300;

const GREP_PARAMS: &[Param] = &[
    Param::required(
        "pattern",
        Kind::String,
        "What to search for: a regular expression with ripgrep, plain text without it",
    ),
    Param::optional(
        "path",
        Kind::String,
        "File or directory to search (default: the working directory)",
    ),
    Param::optional(
        "file_glob",
        Kind::String,
        "Only files whose name matches, e.g. *.rs",
    ),
    Param::optional("ignore_case", Kind::Boolean, "Match regardless of case"),
    Param::optional(
        "max_results",
        Kind::Integer,
        "Most matching lines to return (default 100, at most 1000)",
    ),
];

const TREE_PARAMS: &[Param] = &[
    Param::optional(
        "path",
        Kind::String,
        "Directory to list (default: the working directory)",
    ),
    Param::optional(
        "depth",
        Kind::Integer,
        "How many levels deep (default 3, at most 10)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "coding/search",
    about: "searching the code, the tree of files",
    words: &[
        "grep",
        "search the code",
        "find in",
        "tree",
        "where is",
        "defined",
        "usage",
        "occurrence*",
        "usages",
        "references",
        "fixme",
        "hard-coded",
    ],
    asks: &[
        "where is this function defined",
        "search the code for",
        "find every use of",
        "grep for the config key",
        "show the tree of files",
        "which places use this function",
        "files in the src folder",
        "look for fixme comments",
        "find every caller of this function",
        "where is the retry handled",
        "look for secrets committed in the code",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("code_grep")
            .describe("Search file contents in the working directory, skipping files .gitignore excludes. Returns path:line:text.")
            .offered(Offered::Project)
            .params(GREP_PARAMS)
            .example(r#"{"pattern": "fn main", "file_glob": "*.rs", "max_results": 50}"#)
            .handler(code_grep),
        ToolDef::build("tree")
            .describe("List the files and directories of the working directory as a tree, skipping what .gitignore excludes.")
            .offered(Offered::Project)
            .params(TREE_PARAMS)
            .example(r#"{"path": "src", "depth": 2}"#)
            .handler(tree),
    ]
}

#[derive(Deserialize)]
pub(crate) struct GrepArgs {
    pattern: String,
    path: Option<String>,
    file_glob: Option<String>,
    ignore_case: Option<bool>,
    max_results: Option<i64>,
}

const PLAIN_NOTE: &str =
    "\n(plain-text search: install ripgrep for regular expressions: sudo apt install ripgrep)";

/// Also github_grep's search, with a clone as the working directory.
pub(crate) fn code_grep(args: GrepArgs, ctx: &ToolContext) -> Result<String, String> {
    if args.pattern.is_empty() {
        return Err("The pattern is empty: say what text to search for.".into());
    }
    let limit = args.max_results.unwrap_or(DEFAULT_MATCHES);
    if !(1..=MAX_MATCHES).contains(&limit) {
        return Err(format!(
            "max_results must be between 1 and {MAX_MATCHES}, not {limit}."
        ));
    }
    let working_dir = ctx.working_dir();
    let root = std::fs::canonicalize(&working_dir).unwrap_or_else(|_| working_dir.clone());
    let shown = args.path.as_deref().map_or(".", str::trim);
    // Search what was resolved and confined, never the raw string: `link/..` is the working
    // dir to paths::resolve, but the link target's parent to the kernel.
    let scope = match &args.path {
        Some(path) => paths::resolve(&working_dir, path)?,
        None => root.clone(),
    };
    if let Some(refused) = confined::special(&scope) {
        return Err(format!(
            "'{shown}' cannot be searched: {refused}. Give code_grep a directory or a regular file."
        ));
    }
    if !scope.exists() {
        return Err(format!(
            "'{shown}' does not exist. Working dir: {}. Directory contents:\n{}",
            working_dir.display(),
            paths::listing(&working_dir)
        ));
    }
    let relative = scope
        .strip_prefix(&root)
        .unwrap_or(Path::new(""))
        .to_path_buf();
    let (lines, note) = match ctx.find_program("rg") {
        Some(rg) => match stalls_ripgrep(&root, &scope) {
            None => (ripgrep(ctx, &rg, &root, &args, &relative)?, String::new()),
            Some(why) => (builtin(&root, &relative, &args), why),
        },
        None => (builtin(&root, &relative, &args), PLAIN_NOTE.to_string()),
    };
    let searched = match scope.is_dir() {
        true => scope.as_path(),
        false => scope.parent().unwrap_or(&root),
    };
    let note = format!("{}{note}", ignored_note(&root, searched));
    if lines.is_empty() {
        return Ok(format!(
            "No matches for '{}' in {shown}.{note}",
            args.pattern
        ));
    }
    let total = lines.len();
    let mut text: String = lines
        .into_iter()
        .take(limit as usize)
        .collect::<Vec<_>>()
        .join("\n");
    if total > limit as usize {
        let _ = write!(
            text,
            "\n[{} more matching lines not shown: narrow the search with path or file_glob]",
            total - limit as usize
        );
    }
    text.push_str(&note);
    Ok(text)
}

/// Why ripgrep must not search `scope`, as a note for the model: an ignore file it would
/// read is a FIFO or device.
fn stalls_ripgrep(root: &Path, scope: &Path) -> Option<String> {
    let dir = if scope.is_dir() {
        scope
    } else {
        scope.parent()?
    };
    let (file, why) = ignore::odd_ignore_file(root, dir)?;
    let file = file
        .strip_prefix(root)
        .unwrap_or(&file)
        .display()
        .to_string();
    Some(format!(
        "\n(plain-text search: ripgrep was not used because '{file}' cannot be read as an ignore file: {why})"
    ))
}

/// ripgrep in the working dir on `scope` (relative to it, already resolved): symlinks not
/// followed, `.tickets/` left out, files over 5 MB skipped.
fn ripgrep(
    ctx: &ToolContext,
    rg: &Path,
    root: &Path,
    args: &GrepArgs,
    scope: &Path,
) -> Result<Vec<String>, String> {
    let mut command = ctx.program(rg, crate::sandbox::Paths::default())?;
    command
        .args([
            "--line-number",
            "--with-filename",
            "--no-heading",
            "--color",
            "never",
            "--no-require-git",
            "--no-follow",
            "--max-filesize",
            "5M",
        ])
        .args(["--max-columns", "300", "--max-columns-preview"])
        .current_dir(root);
    if args.ignore_case == Some(true) {
        command.arg("--ignore-case");
    }
    if let Some(glob) = &args.file_glob {
        command.args(["--glob", glob]);
    }
    // Later globs win: this one keeps .tickets/ out even when file_glob would let it in.
    command.args(["--glob", "!/.tickets"]);
    let scope = if scope.as_os_str().is_empty() {
        Path::new(".")
    } else {
        scope
    };
    command
        .arg("--regexp")
        .arg(&args.pattern)
        .arg("--")
        .arg(scope);
    let exit = process::run_program(command, "ripgrep", Duration::from_secs(60), &ctx.cancel)?;
    match exit.code {
        0 | 1 => Ok(exit
            .output
            .lines()
            .map(|l| l.strip_prefix("./").unwrap_or(l).to_string())
            .collect()),
        _ => Err(format!("ripgrep refused the search: {}", exit.output)),
    }
}

/// Literal search over the files git would not ignore under `scope` (relative to `root`):
/// symlinks, FIFOs, devices, binary files, files over 5 MB and `.tickets/` are skipped.
fn builtin(root: &Path, scope: &Path, args: &GrepArgs) -> Vec<String> {
    let query = Query {
        needle: if args.ignore_case == Some(true) {
            args.pattern.to_lowercase()
        } else {
            args.pattern.clone()
        },
        fold: args.ignore_case == Some(true),
        glob: args.file_glob.as_deref().map(|g| Glob::new(g.as_bytes())),
    };
    let top = root.join(scope);
    if !top.is_dir() {
        return query.search(root, scope);
    }
    let mut found = Vec::new();
    ignore::walk(&top, &mut |entry| {
        let path = scope.join(&entry.path);
        if paths::is_tickets(&path) {
            return Visit::Skip;
        }
        if !entry.is_dir {
            found.extend(query.search(root, &path));
        }
        if found.len() > MAX_MATCHES as usize {
            Visit::Stop
        } else {
            Visit::Continue
        }
    });
    found
}

struct Query {
    needle: String,
    fold: bool,
    glob: Option<Glob>,
}

impl Query {
    /// The matching lines of file `path` (relative to `root`), as `path:line:text`; nothing
    /// for a symlink, special, binary or huge file.
    fn search(&self, root: &Path, path: &Path) -> Vec<String> {
        let name = path
            .file_name()
            .map(|n| n.as_encoded_bytes())
            .unwrap_or_default();
        if self.glob.as_ref().is_some_and(|glob| !glob.matches(name)) {
            return Vec::new();
        }
        let bytes = match confined::open(root, path) {
            Ok(opened) if opened.size <= MAX_FILE => opened.head(MAX_FILE).unwrap_or_default(),
            _ => return Vec::new(),
        };
        if bytes.iter().take(8192).any(|b| *b == 0) {
            return Vec::new();
        }
        let shown = path.display();
        String::from_utf8_lossy(&bytes)
            .lines()
            .enumerate()
            .filter(|(_, line)| {
                if self.fold {
                    line.to_lowercase().contains(&self.needle)
                } else {
                    line.contains(&self.needle)
                }
            })
            .map(|(number, line)| {
                format!(
                    "{shown}:{}:{}",
                    number + 1,
                    line.chars().take(MAX_LINE).collect::<String>()
                )
            })
            .collect()
    }
}

#[derive(Deserialize)]
struct TreeArgs {
    path: Option<String>,
    depth: Option<i64>,
}

fn tree(args: TreeArgs, ctx: &ToolContext) -> Result<String, String> {
    let depth = args.depth.unwrap_or(3);
    if !(1..=10).contains(&depth) {
        return Err(format!("depth must be between 1 and 10, not {depth}."));
    }
    let working_dir = ctx.working_dir();
    let top = std::fs::canonicalize(&working_dir).unwrap_or_else(|_| working_dir.clone());
    let (root, title) = match &args.path {
        Some(path) => (
            paths::resolve(&working_dir, path)?,
            format!("{}/", path.trim().trim_end_matches('/')),
        ),
        None => (top.clone(), format!("{}/", working_dir.display())),
    };
    if !root.is_dir() {
        return Err(format!(
            "'{title}' is not a directory. Use read_file for files."
        ));
    }
    let base = root.strip_prefix(&top).unwrap_or(Path::new(""));
    let mut lines = vec![title];
    let (mut deeper, mut over_cap) = (0usize, 0usize);
    ignore::walk(&root, &mut |entry| {
        // .tickets/ is for the tk tool alone: no file tool shows it.
        if paths::is_tickets(&base.join(&entry.path)) {
            return Visit::Skip;
        }
        if entry.depth >= depth as usize {
            deeper += 1;
            return Visit::Skip;
        }
        if lines.len() > TREE_ENTRIES {
            over_cap += 1;
            return Visit::Skip;
        }
        let name = entry
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let slash = if entry.is_dir { "/" } else { "" };
        lines.push(format!("{}{name}{slash}", "  ".repeat(entry.depth + 1)));
        Visit::Continue
    });
    if lines.len() == 1 {
        lines.push("  (empty)".into());
    }
    if deeper > 0 {
        lines.push(format!(
            "[{deeper} entries deeper than {depth} levels not shown: use path or a larger depth]"
        ));
    }
    if over_cap > 0 {
        lines.push(format!(
            "[{over_cap} more entries not shown (limit {TREE_ENTRIES}): list a subdirectory]"
        ));
    }
    let mut text = lines.join("\n");
    text.push_str(&ignored_note(&top, &root));
    Ok(text)
}

/// A line saying that git ignores the directory `dir` is in (or is), when it does: what was
/// listed or found there is what the model asked for by name, and a search from above skips it.
fn ignored_note(top: &Path, dir: &Path) -> String {
    let Some(ignored) = ignore::ignored_dir(dir) else {
        return String::new();
    };
    let shown = ignored.strip_prefix(top).unwrap_or(&ignored).display();
    format!(
        "\n[git ignores {shown}/: what is in it is shown because this path was asked for; a search or listing from above it skips it]"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;
    use std::sync::Arc;

    fn project(with_path: bool) -> (TempDir, ToolContext) {
        let dir = TempDir::new("search");
        for (path, text) in [
            ("src/main.rs", "fn main() {\n    println!(\"Hello\");\n}\n"),
            ("src/lib.rs", "pub fn hello() {}\n"),
            ("target/out.rs", "fn main() {}\n"),
            ("README.md", "Say hello.\n"),
            ("blob.bin", "fn main\0binary"),
        ] {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        let search_path = if with_path {
            std::env::var("PATH").ok()
        } else {
            None
        };
        let mut ctx = ToolContext::new(dir.path().to_path_buf());
        ctx.settings = Arc::new(crate::tools::ToolSettings {
            search_path,
            notes_home: None,
            ..crate::tools::ToolSettings::default()
        });
        (dir, ctx)
    }

    fn grep(ctx: &ToolContext, pattern: &str, glob: Option<&str>, ignore_case: bool) -> String {
        code_grep(
            GrepArgs {
                pattern: pattern.into(),
                path: None,
                file_glob: glob.map(String::from),
                ignore_case: Some(ignore_case),
                max_results: None,
            },
            ctx,
        )
        .unwrap()
    }

    #[test]
    fn builtin_search_honours_gitignore_globs_and_case() {
        let (_dir, ctx) = project(false);
        let hits = grep(&ctx, "fn main", None, false);
        assert!(
            hits.starts_with("src/main.rs:1:fn main() {\n(plain-text search"),
            "{hits}"
        );
        let hits = grep(&ctx, "HELLO", Some("*.md"), true);
        assert!(hits.starts_with("README.md:1:Say hello."), "{hits}");
        assert!(
            grep(&ctx, "nothing like this", None, false)
                .starts_with("No matches for 'nothing like this' in .")
        );
    }

    #[test]
    fn ripgrep_is_used_when_installed() {
        let (_dir, ctx) = project(true);
        if ctx.find_program("rg").is_none() {
            return; // Covered by the built-in search above; this machine has no ripgrep.
        }
        let hits = grep(&ctx, "fn (main|hello)", None, false);
        assert!(
            hits.contains("src/main.rs:1:fn main() {")
                && hits.contains("src/lib.rs:1:pub fn hello() {}"),
            "{hits}"
        );
        assert!(!hits.contains("target/"), "{hits}");
    }

    #[test]
    fn too_many_matches_are_cut_with_a_note() {
        let (dir, ctx) = project(false);
        std::fs::write(dir.path().join("many.txt"), "x\n".repeat(30)).unwrap();
        let hits = code_grep(
            GrepArgs {
                pattern: "x".into(),
                path: Some("many.txt".into()),
                file_glob: None,
                ignore_case: None,
                max_results: Some(5),
            },
            &ctx,
        )
        .unwrap();
        assert_eq!(
            hits.lines().filter(|l| l.starts_with("many.txt:")).count(),
            5
        );
        assert!(hits.contains("[25 more matching lines not shown"), "{hits}");
    }

    #[test]
    fn tree_lists_with_depth_and_ignores() {
        let (dir, ctx) = project(false);
        std::fs::create_dir_all(dir.path().join("src/deep/deeper")).unwrap();
        std::fs::write(dir.path().join("src/deep/deeper/x.rs"), "").unwrap();
        let listing = tree(
            TreeArgs {
                path: Some("src".into()),
                depth: Some(2),
            },
            &ctx,
        )
        .unwrap();
        assert_eq!(
            listing,
            "src/\n  deep/\n    deeper/\n  lib.rs\n  main.rs\n[1 entries deeper than 2 levels not shown: use path or a larger depth]"
        );
        let top = tree(
            TreeArgs {
                path: None,
                depth: Some(1),
            },
            &ctx,
        )
        .unwrap();
        assert!(
            top.contains("  src/\n") && top.contains("  README.md") && !top.contains("target"),
            "{top}"
        );
        assert!(
            tree(
                TreeArgs {
                    path: Some("README.md".into()),
                    depth: None
                },
                &ctx
            )
            .unwrap_err()
            .contains("not a directory")
        );
    }

    #[test]
    fn a_path_git_ignores_is_listed_and_searched_with_a_note() {
        let (dir, ctx) = project(false);
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let note = "[git ignores target/: what is in it is shown because this path was asked for";
        let listed = tree(
            TreeArgs {
                path: Some("target".into()),
                depth: None,
            },
            &ctx,
        )
        .unwrap();
        assert!(
            listed.contains("  out.rs") && listed.contains(note),
            "{listed}"
        );
        let args = GrepArgs {
            pattern: "fn main".into(),
            path: Some("target".into()),
            file_glob: None,
            ignore_case: None,
            max_results: None,
        };
        let found = code_grep(args, &ctx).unwrap();
        assert!(
            found.contains("target/out.rs:1:") && found.contains(note),
            "{found}"
        );
        let top = tree(
            TreeArgs {
                path: Some("src".into()),
                depth: None,
            },
            &ctx,
        )
        .unwrap();
        assert!(!top.contains("git ignores"), "{top}");
    }
}
