//! GitHub through the `gh` CLI: `github_search` (repositories), `github_clone` (to
//! `<clones_dir>/<owner>/<repo>`, MARVIN_CLONES_DIR), and `github_read_file` / `github_grep`
//! on a clone. `gh` runs as a child with its own credential (GH_TOKEN or GITHUB_TOKEN when
//! set, else its `gh auth login`) and without any other key or token of Marvin's environment.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::tools::coding::search::{self, GrepArgs};
use crate::tools::context::Workspace;
use crate::tools::kit::process::{self, Ending, RunLimits};
use crate::tools::kit::read;
use crate::tools::kit::web::MAX_ANSWER;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

/// What the seed tells the model when `gh` is missing (seed 002 §7.5).
const INSTALL_HINT: &str =
    "GitHub CLI (gh) is not installed. Install from: https://cli.github.com/";
/// How long a clone may take.
const CLONE_TIMEOUT: Duration = Duration::from_secs(600);
const DEFAULT_RESULTS: i64 = 10;
const MAX_RESULTS: i64 = 100;

const REPO: Param = Param::required(
    "repo",
    Kind::String,
    "The repository as owner/name, e.g. rust-lang/rustlings",
);
const SEARCH_PARAMS: &[Param] = &[
    Param::required(
        "query",
        Kind::String,
        "GitHub search words and qualifiers, e.g. 'http client language:rust stars:>100'",
    ),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many repositories (default 10, at most 100)",
    ),
    Param::optional(
        "sort",
        Kind::Choice(crate::tools::schema::Choices::Fixed(&[
            "best-match",
            "stars",
            "forks",
            "updated",
        ])),
        "Order (default best-match)",
    ),
];
const CLONE_PARAMS: &[Param] = &[REPO];
const READ_PARAMS: &[Param] = &[
    REPO,
    Param::required(
        "path",
        Kind::String,
        "The file's path inside the repository",
    ),
    Param::optional("start_line", Kind::Integer, "First line to read (1-based)"),
    Param::optional("end_line", Kind::Integer, "Last line to read"),
];
const GREP_PARAMS: &[Param] = &[
    REPO,
    Param::required(
        "pattern",
        Kind::String,
        "What to search for (a regular expression with ripgrep, plain text without it)",
    ),
    Param::optional(
        "path",
        Kind::String,
        "A file or directory inside the repository",
    ),
    Param::optional(
        "file_glob",
        Kind::String,
        "Only files whose name matches, e.g. *.py",
    ),
    Param::optional("ignore_case", Kind::Boolean, "Match regardless of case"),
    Param::optional(
        "max_results",
        Kind::Integer,
        "Most matching lines (default 100)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "github",
    about: "GitHub repositories",
    words: &[
        "gh",
        "github",
        "repository",
        "repo",
        "repos",
        "clone",
        "source code",
        "open source",
    ],
    asks: &[
        "search github for a library",
        "clone this repository",
        "read the readme of that repo",
        "find repos about",
        "open source projects for",
        "grep the repository on github",
        "show the files of a github repo",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("github_search")
            .describe("Search GitHub for repositories (name, stars, language, description, address). Use to find a project or library on GitHub.")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "terminal file manager language:rust", "max_results": 5, "sort": "stars"}"#)
            .handler(github_search),
        ToolDef::build("github_clone")
            .describe("Clone a GitHub repository (its latest commit) into the user's clones directory, so github_read_file and github_grep can read it.")
            .offered(Offered::Everywhere)
            .writes()
            .params(CLONE_PARAMS)
            .example(r#"{"repo": "BurntSushi/ripgrep"}"#)
            .handler(github_clone),
        ToolDef::build("github_read_file")
            .describe("Read a file of a repository cloned with github_clone.")
            .offered(Offered::Everywhere)
            .params(READ_PARAMS)
            .example(r#"{"repo": "BurntSushi/ripgrep", "path": "README.md"}"#)
            .handler(github_read_file),
        ToolDef::build("github_grep")
            .describe("Search the files of a repository cloned with github_clone; returns path:line:text.")
            .offered(Offered::Everywhere)
            .params(GREP_PARAMS)
            .example(r#"{"repo": "BurntSushi/ripgrep", "pattern": "fn main", "file_glob": "*.rs"}"#)
            .handler(github_grep),
    ]
}

/// `owner/name` checked: one slash, each part letters, digits, `-`, `_` or `.`, neither `.`
/// nor `..`, not starting with `-` (which gh would read as an option). A GitHub address is
/// taken too.
fn repo_name(text: &str) -> Result<(String, String), String> {
    let trimmed = text.trim();
    let bare = ["https://github.com/", "http://github.com/", "github.com/"]
        .iter()
        .find_map(|prefix| trimmed.strip_prefix(prefix))
        .unwrap_or(trimmed);
    let bare = bare.trim_end_matches('/');
    let bare = bare.strip_suffix(".git").unwrap_or(bare);
    let fits = |part: &str| {
        !part.is_empty()
            && part != "."
            && part != ".."
            && !part.starts_with('-')
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    match bare.split_once('/') {
        Some((owner, name)) if fits(owner) && fits(name) => Ok((owner.into(), name.into())),
        _ => Err(format!(
            "'{trimmed}' is not a GitHub repository: give it as owner/name, e.g. rust-lang/rustlings."
        )),
    }
}

fn clones_dir(ctx: &ToolContext) -> Result<PathBuf, String> {
    ctx.settings
        .web
        .settings()
        .clones_dir
        .clone()
        .ok_or_else(|| {
            "There is no directory for GitHub clones: set MARVIN_CLONES_DIR (or HOME).".to_string()
        })
}

/// `gh` with `args`, never prompting, without Marvin's keys and tokens except the GitHub
/// token that is gh's own (GH_TOKEN or GITHUB_TOKEN), from a directory no repository can steer
/// (the temporary directory, not the working one); its output when it succeeds (up to 5 MB: a search answer is larger than a command's usual cap), else a
/// sentence with what it said.
fn gh(ctx: &ToolContext, args: &[&str], timeout: Duration) -> Result<String, String> {
    let program = ctx.find_program("gh").ok_or(INSTALL_HINT)?;
    // Confined, gh still reads its own login (a secret store) and writes the clones.
    let places = crate::sandbox::Paths {
        writes: ctx
            .settings
            .web
            .settings()
            .clones_dir
            .clone()
            .into_iter()
            .collect(),
        reads: (ctx.settings.sandbox.user_home.iter())
            .map(|home| home.join(".config/gh"))
            .collect(),
    };
    let mut command = ctx.program_apart(program, places)?;
    if let Some((var, token)) = &ctx.settings.web.settings().gh_token {
        command.env(var, token);
    }
    command
        .current_dir(std::env::temp_dir())
        .args(args)
        .env("GH_PROMPT_DISABLED", "1")
        .env("GH_NO_UPDATE_NOTIFIER", "1")
        .env("NO_COLOR", "1");
    let limits = RunLimits {
        timeout,
        output_cap: MAX_ANSWER as usize,
        cancel: &ctx.cancel,
        input: None,
        watch: None,
    };
    let run = process::run(command, limits).map_err(|e| format!("Could not run gh: {e}."))?;
    let output = run.output.trim().to_string();
    let code = match run.ending {
        Ending::Exited(0) if run.omitted == 0 => return Ok(output),
        Ending::Exited(0) => {
            return Err("gh's answer is larger than 5 MB; ask for less.".into());
        }
        Ending::Exited(code) => code,
        Ending::Signalled(signal) => return Err(format!("gh was killed by signal {signal}.")),
        Ending::TimedOut => {
            return Err(format!(
                "gh did not finish within {}s. Try again later.",
                timeout.as_secs()
            ));
        }
        Ending::Cancelled => {
            return Err(format!(
                "gh was cancelled by the user ({}).",
                ctx.cancel.how()
            ));
        }
    };
    let mut message = format!("gh failed (exit code {code}): {output}");
    if output.contains("gh auth login") || code == 4 {
        message.push_str("\nThe user must log in once with `gh auth login`, or set GH_TOKEN.");
    }
    Err(message)
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    max_results: Option<i64>,
    sort: Option<String>,
}

fn github_search(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = args.query.trim();
    if query.is_empty() {
        return Err("The query is empty: say what to search GitHub for.".into());
    }
    let limit = args.max_results.unwrap_or(DEFAULT_RESULTS);
    if !(1..=MAX_RESULTS).contains(&limit) {
        return Err(format!(
            "max_results must be between 1 and {MAX_RESULTS}, not {limit}."
        ));
    }
    let q = format!("q={query}");
    let per_page = format!("per_page={limit}");
    let mut call = vec![
        "api",
        "-X",
        "GET",
        "search/repositories",
        "-f",
        &q,
        "-f",
        &per_page,
    ];
    let sort;
    if let Some(order) = args.sort.as_deref().filter(|s| *s != "best-match") {
        sort = format!("sort={order}");
        call.extend(["-f", &sort]);
    }
    let timeout = ctx.settings.web.settings().timeout;
    let output = gh(ctx, &call, timeout)?;
    let answer: Value = serde_json::from_str(&output).map_err(|_| {
        format!(
            "gh answered with something other than GitHub's JSON: {}",
            output.chars().take(300).collect::<String>()
        )
    })?;
    describe_search(&answer, query, limit as usize)
}

/// The repositories of a search answer, one entry each; the total GitHub counted.
fn describe_search(answer: &Value, query: &str, limit: usize) -> Result<String, String> {
    let items = answer["items"]
        .as_array()
        .ok_or("GitHub's answer has no list of repositories; try again later.")?;
    let total = answer["total_count"].as_u64().unwrap_or(items.len() as u64);
    if items.is_empty() {
        return Ok(format!("No repositories found on GitHub for '{query}'."));
    }
    let mut text = String::new();
    for item in items.iter().take(limit) {
        let name = item["full_name"].as_str().unwrap_or("?");
        let stars = item["stargazers_count"].as_u64().unwrap_or(0);
        let _ = write!(text, "- {name} ★{stars}");
        if let Some(language) = item["language"].as_str() {
            let _ = write!(text, " ({language})");
        }
        if let Some(description) = item["description"].as_str().filter(|d| !d.is_empty()) {
            let _ = write!(text, " — {description}");
        }
        let url = item["html_url"].as_str().unwrap_or_default();
        let _ = writeln!(text, "\n  {url}");
    }
    let shown = items.len().min(limit) as u64;
    if total > shown {
        let _ = write!(
            text,
            "[{shown} of {total} repositories shown; refine the query or raise max_results]"
        );
    }
    if answer["incomplete_results"] == Value::Bool(true) {
        text.push_str("\n[GitHub's search timed out: the results may be incomplete]");
    }
    Ok(text.trim_end().to_string())
}

#[derive(Deserialize)]
struct CloneArgs {
    repo: String,
}

fn github_clone(args: CloneArgs, ctx: &ToolContext) -> Result<String, String> {
    let (owner, name) = repo_name(&args.repo)?;
    ctx.find_program("gh").ok_or(INSTALL_HINT)?;
    let target = clones_dir(ctx)?.join(&owner).join(&name);
    if target.join(".git").is_dir() {
        return Ok(format!(
            "{owner}/{name} is already cloned at {}; read it with github_read_file and github_grep.",
            target.display()
        ));
    }
    if target.exists() {
        return Err(format!(
            "{} exists but is not a git clone; move it away first.",
            target.display()
        ));
    }
    let parent = target.parent().unwrap_or(&target);
    std::fs::create_dir_all(parent)
        .map_err(|e| format!("Cannot create {}: {e}.", parent.display()))?;
    let repo = format!("{owner}/{name}");
    let destination = target.to_string_lossy().into_owned();
    let cloned = gh(
        ctx,
        &["repo", "clone", &repo, &destination, "--", "--depth", "1"],
        CLONE_TIMEOUT,
    );
    if let Err(error) = cloned {
        // A clone that failed half-way leaves nothing behind.
        let _ = std::fs::remove_dir_all(&target);
        return Err(error);
    }
    if !target.is_dir() {
        return Err(format!(
            "gh reported success but {} was not created.",
            target.display()
        ));
    }
    Ok(format!(
        "Cloned {repo} (latest commit) to {}: {} files. Read it with github_read_file and github_grep.",
        target.display(),
        count_files(&target)
    ))
}

fn count_files(root: &Path) -> usize {
    let mut count = 0;
    crate::tools::kit::ignore::walk(root, &mut |entry| {
        if !entry.is_dir {
            count += 1;
        }
        crate::tools::kit::ignore::Visit::Continue
    });
    count
}

/// The clone of `repo`, which must exist.
fn clone_of(ctx: &ToolContext, repo: &str) -> Result<(String, PathBuf), String> {
    let (owner, name) = repo_name(repo)?;
    let root = clones_dir(ctx)?.join(&owner).join(&name);
    if !root.is_dir() {
        return Err(format!(
            "{owner}/{name} is not cloned yet: call github_clone with {{\"repo\": \"{owner}/{name}\"}} first."
        ));
    }
    Ok((format!("{owner}/{name}"), root))
}

#[derive(Deserialize)]
struct ReadArgs {
    repo: String,
    path: String,
    start_line: Option<i64>,
    end_line: Option<i64>,
}

fn github_read_file(args: ReadArgs, ctx: &ToolContext) -> Result<String, String> {
    let (repo, root) = clone_of(ctx, &args.repo)?;
    let shown = format!("{repo}/{}", args.path.trim().trim_start_matches("./"));
    read::read_lines(&root, &args.path, &shown, args.start_line, args.end_line)
}

#[derive(Deserialize)]
struct GrepRepoArgs {
    repo: String,
    #[serde(flatten)]
    grep: GrepArgs,
}

fn github_grep(args: GrepRepoArgs, ctx: &ToolContext) -> Result<String, String> {
    let (_, root) = clone_of(ctx, &args.repo)?;
    // code_grep, in the clone as its working directory.
    let in_clone = ToolContext {
        workspace: Arc::new(Workspace::new(root)),
        coding_mode: false,
        ..ctx.clone()
    };
    search::code_grep(args.grep, &in_clone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_names_are_owner_and_name_and_nothing_else() {
        let cases: &[(&str, Option<(&str, &str)>)] = &[
            ("rust-lang/rustlings", Some(("rust-lang", "rustlings"))),
            (
                " https://github.com/BurntSushi/ripgrep.git ",
                Some(("BurntSushi", "ripgrep")),
            ),
            ("github.com/a_b/c.d/", Some(("a_b", "c.d"))),
            ("../etc", None),
            ("owner/..", None),
            ("a/b/c", None),
            ("justname", None),
            ("-o/x", None),
            ("owner/na me", None),
            ("/abs", None),
        ];
        for (text, expected) in cases {
            let got = repo_name(text).ok();
            let expected = expected.map(|(o, n)| (o.to_string(), n.to_string()));
            assert_eq!(got, expected, "{text}");
        }
    }

    #[test]
    fn search_answers_list_repositories_and_the_total() {
        let answer = serde_json::json!({"total_count": 3, "items": [
            {"full_name": "a/b", "stargazers_count": 5, "language": null, "description": null, "html_url": "https://github.com/a/b"},
            {"full_name": "c/d", "stargazers_count": 1, "language": "Go", "description": "D", "html_url": "https://github.com/c/d"}
        ]});
        assert_eq!(
            describe_search(&answer, "x", 1).unwrap(),
            "- a/b ★5\n  https://github.com/a/b\n[1 of 3 repositories shown; refine the query or raise max_results]"
        );
        let empty = serde_json::json!({"total_count": 0, "incomplete_results": false, "items": []});
        assert_eq!(
            describe_search(&empty, "x", 5).unwrap(),
            "No repositories found on GitHub for 'x'."
        );
    }
}
