//! The system prompt, built for every turn in the seed's order: who Marvin is and the rules it
//! keeps, the user's preferences, profile and saved places, a compact history, coding-mode
//! instructions, background jobs, then the project's own instruction files. Within a
//! conversation it stays the same from request to request unless something in it changes,
//! so a provider's cache of the prompt's start holds: the current time goes with each of the
//! person's messages instead (see [`stamped`]), and the compact history is the one the
//! conversation started with.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::clock::iso8601;
use crate::store::chatlog::Entry;
use crate::tools::kit::confined::{self, Refused};

/// What the prompt says about the session.
pub(crate) struct PromptFacts<'a> {
    pub coding_mode: bool,
    /// Nobody can answer a question in this run (no one at a terminal, no `--on-ask`).
    pub nobody_answers: bool,
    pub readonly: bool,
    pub working_dir: &'a Path,
    /// What the prompt says of the tools (see `Registry::prompt_line`); empty for nothing.
    pub tools_line: &'a str,
    /// Whether `append_file` is there, for writing large files in sections.
    pub append_file: bool,
    /// Background jobs still running, one line each.
    pub jobs: &'a [String],
    pub profile: &'a str,
    /// JSON text, when the profile has any.
    pub preferences: Option<&'a str>,
    pub places: Option<&'a str>,
    /// The compact history the conversation started with (see [`compact_history`]).
    pub recent: Option<&'a str>,
    /// (file shown, contents) of the project's instruction files, in order.
    pub project_docs: &'a [(String, String)],
}

const PERSONALITY: &str = "\
You are Marvin, a terminal AI assistant. You are capable, direct and a little dry. \
Answer in plain text suited to a terminal: short paragraphs, simple lists, code in fenced \
blocks. Be concise; say when you are unsure instead of guessing. Use tools when they give a \
better answer than memory, and never invent tool results.";

const CODING: &str = "\
Coding mode is on. File paths are relative to the working directory; absolute paths and \
paths outside it are refused. Read files before changing them. Files over 10KB must be read \
in sections with start_line/end_line.";

const LARGE_FILES: &str = "\
When writing a large file, create it with the first part (create_file) and add the rest in \
sections (append_file) so that no single call is huge.";

/// What opens each project instruction file's part.
const PROJECT_DOC: &str = "Project instructions from ";

const NO_TOOLS: &str = "\
No tools are available in this conversation: you cannot read files, run commands or look \
anything up. Answer from what you know and what the conversation holds, and say so when a \
question needs a tool.";

/// History lines in the prompt, and their length.
const HISTORY_LINES: usize = 20;
const HISTORY_CHARS: usize = 200;
/// Instruction files are cut at this size each, and all of them together at the total.
const DOC_LIMIT: usize = 16 * 1024;
const DOCS_TOTAL: usize = 64 * 1024;

pub(crate) fn system_prompt(facts: &PromptFacts<'_>) -> String {
    let mut parts = vec![PERSONALITY.to_string()];
    if let Some(preferences) = facts.preferences {
        parts.push(format!("The user's preferences: {preferences}"));
    }
    parts.push(format!("Active profile: {}.", facts.profile));
    if let Some(places) = facts.places {
        parts.push(format!("The user's saved places: {places}"));
    }
    if let Some(recent) = facts.recent {
        parts.push(recent.to_string());
    }
    if facts.coding_mode {
        parts.push(CODING.to_string());
        if facts.append_file {
            parts.push(LARGE_FILES.to_string());
        }
        parts.push(format!(
            "Working directory: {}",
            facts.working_dir.display()
        ));
    }
    if !facts.jobs.is_empty() {
        let jobs: Vec<String> = facts.jobs.iter().map(|j| format!("- {j}")).collect();
        parts.push(format!(
            "Background jobs (check with review_status):\n{}",
            jobs.join("\n")
        ));
    }
    if facts.readonly {
        parts.push("You are a read-only agent: you can inspect but not change files.".to_string());
    }
    if facts.nobody_answers {
        parts.push(
            "Nobody can answer questions during this run: state your assumptions and carry on."
                .to_string(),
        );
    }
    if !facts.tools_line.is_empty() {
        parts.push(facts.tools_line.to_string());
    }
    for (file, text) in facts.project_docs {
        parts.push(format!("{PROJECT_DOC}{file}:\n{text}"));
    }
    parts.join("\n\n")
}

/// The system prompt `prompt` for a model that is offered no tools (it cannot call them, or
/// their definitions do not fit its window): the list of tools gives way to saying so.
pub(crate) fn without_tools(prompt: &str) -> String {
    if prompt.contains(NO_TOOLS) {
        return prompt.to_string();
    }
    let mut parts: Vec<&str> = prompt.split("\n\n").collect();
    match parts
        .iter()
        .position(|p| p.starts_with("Tools available: "))
    {
        Some(index) => parts[index] = NO_TOOLS,
        None => parts.push(NO_TOOLS),
    }
    parts.join("\n\n")
}

/// What of system prompt `prompt` a request cannot do without: all but the list of tools
/// (withheld from a window they do not fit) and the project's instruction files (which a
/// small window may hold only the start of).
pub(crate) fn essential(prompt: &str) -> String {
    let prompt = without_tools(prompt);
    let parts: Vec<&str> = prompt
        .split("\n\n")
        .take_while(|part| !part.starts_with(PROJECT_DOC))
        .collect();
    parts.join("\n\n")
}

/// What opens the line of the current time at the end of a message of the person's.
const STAMP: &str = "\n\n[Current time (UTC): ";

/// The person's message `text` as the model gets it: with the time it was sent, to the
/// minute, on a line of its own at the end. Each message keeps its own, so the conversation
/// sent before stays as it was (a provider's cached prefix holds) and the newest always says
/// what time it is now.
pub(crate) fn stamped(text: &str, now: SystemTime) -> String {
    let time = iso8601(now);
    // 2026-11-29T15:30:12Z → 2026-11-29T15:30Z
    let minute = match time.len() {
        20 => format!("{}Z", &time[..16]),
        _ => time,
    };
    format!("{text}{STAMP}{minute}]")
}

/// The person's words in `message`, without the time [`stamped`] added.
pub(crate) fn unstamped(message: &str) -> &str {
    match message.rfind(STAMP) {
        Some(at) if message.ends_with(']') && !message[at + STAMP.len()..].contains('\n') => {
            &message[..at]
        }
        _ => message,
    }
}

/// How the chat log marks an answer cut at the cap (`finish_reason: length`).
pub(crate) const CUT_OFF: &str = "[Cut off]";

/// `Recent conversation:` with the last finished exchanges of `history` (a message of the
/// person's and the answer it got), each line cut at 200 characters. An exchange cancelled,
/// cut off, failed or left waiting is not one a model should take after, and the log's own
/// marks (a new conversation, an error) are not exchanges.
pub(crate) fn compact_history(history: &[Entry]) -> Option<String> {
    let mut finished: Vec<&Entry> = Vec::new();
    let mut asked: Option<&Entry> = None;
    for entry in history {
        match entry.role.as_str() {
            "you" => asked = Some(entry),
            "assistant" => {
                if let Some(question) = asked.take() {
                    let said = entry.text.trim_end();
                    if !said.ends_with("[Cancelled]") && !said.ends_with(CUT_OFF) {
                        finished.extend([question, entry]);
                    }
                }
            }
            // A question answered on the way belongs to its exchange; an error, a parked
            // question or a new conversation ends the exchange unanswered.
            _ if entry.text.starts_with("error:")
                || entry.text.starts_with("parked:")
                || entry.text == crate::store::chatlog::NEW_CONVERSATION =>
            {
                asked = None;
            }
            _ => {}
        }
    }
    let recent = &finished[finished.len().saturating_sub(HISTORY_LINES)..];
    if recent.is_empty() {
        return None;
    }
    let lines: Vec<String> = recent
        .iter()
        .map(|entry| {
            let who = match entry.role.as_str() {
                "you" => "User",
                "assistant" => "Asst",
                _ => "Sys",
            };
            let flat = entry.text.replace('\n', " ");
            let mut text: String = flat.chars().take(HISTORY_CHARS).collect();
            if flat.chars().count() > HISTORY_CHARS {
                text.push_str("...");
            }
            format!("{who}: {text}")
        })
        .collect();
    Some(format!("Recent conversation:\n{}", lines.join("\n")))
}

/// The project's instruction files, most specific last: .marvin-instructions,
/// .marvin/instructions.md, ~/.marvin/instructions/<working dir path>.md, every AGENTS.md
/// from the git root down to the working dir, then .marvin/spec.md, ux.md and design.md.
/// Files of the project are read only when they are regular files inside the directory they
/// are found for (a symlink may point elsewhere in it, never out of it): the working
/// directory's own in the working directory, each AGENTS.md above it in its own directory.
/// So a working directory without a `.git` of its own (a download under a home kept in git)
/// reaches nothing above it through a symlink. Each is read up to DOC_LIMIT bytes. One that
/// cannot be read as that says so in place of its text, so the model knows why.
pub(crate) fn project_docs(working_dir: &Path, user_home: Option<&Path>) -> Vec<(String, String)> {
    let project = working_dir
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(working_dir);
    let own = |name: &str| Doc::Project(working_dir.to_path_buf(), working_dir.join(name));
    let mut files: Vec<Doc> = vec![own(".marvin-instructions"), own(".marvin/instructions.md")];
    if let Some(home) = user_home {
        let keyed = working_dir.strip_prefix("/").unwrap_or(working_dir);
        files.push(Doc::Own(
            home.join(".marvin/instructions")
                .join(format!("{}.md", keyed.display())),
        ));
    }
    let mut agents: Vec<Doc> = working_dir
        .ancestors()
        .take_while(|dir| dir.starts_with(project))
        .map(|dir| Doc::Project(dir.to_path_buf(), dir.join("AGENTS.md")))
        .collect();
    agents.reverse();
    files.extend(agents);
    files.extend(
        ["spec.md", "ux.md", "design.md"]
            .iter()
            .map(|name| own(&format!(".marvin/{name}"))),
    );
    let mut docs = Vec::new();
    let mut total = 0;
    for file in files {
        if total >= DOCS_TOTAL {
            break;
        }
        let limit = DOC_LIMIT.min(DOCS_TOTAL - total);
        let Some(text) = file.read(working_dir, limit) else {
            continue;
        };
        total += text.len();
        let path = file.path();
        let shown = path
            .strip_prefix(working_dir)
            .map_or_else(|_| path.display().to_string(), |p| p.display().to_string());
        docs.push((shown, text));
    }
    docs
}

/// An instruction file: the project's (confined to the directory it is found for, the first
/// path) or the user's own (in their home).
enum Doc {
    Project(PathBuf, PathBuf),
    Own(PathBuf),
}

impl Doc {
    fn path(&self) -> &Path {
        match self {
            Doc::Project(_, path) | Doc::Own(path) => path,
        }
    }

    /// The text to show, cut at `limit` bytes and marked; `None` when there is nothing to
    /// show (no such file, empty, not UTF-8).
    fn read(&self, working_dir: &Path, limit: usize) -> Option<String> {
        let read = match self {
            Doc::Own(path) => confined::read_any(path, limit as u64),
            Doc::Project(root, path) => match project_file(root, path) {
                Ok(real) => confined::read(root, &real, limit as u64),
                Err(refused) => Err(refused),
            },
        };
        let (mut bytes, size) = match read {
            Ok(read) => read,
            Err(Refused::Missing | Refused::Directory) => return None,
            Err(Refused::Outside) => {
                let out_of = match self {
                    Doc::Project(root, _) if root != working_dir => "the directory it is in",
                    _ => "the project",
                };
                return Some(format!(
                    "[not read: it leads outside {out_of} through a symlink]"
                ));
            }
            Err(refused) => return Some(format!("[not read: {refused}]")),
        };
        if (bytes.len() as u64) < size {
            if let Err(error) = std::str::from_utf8(&bytes) {
                if error.error_len().is_none() {
                    bytes.truncate(error.valid_up_to());
                }
            }
        }
        let mut text = String::from_utf8(bytes).ok()?;
        if text.trim().is_empty() {
            return None;
        }
        if (text.len() as u64) < size {
            text.push_str(&format!("\n[cut: {} more bytes]", size - text.len() as u64));
        }
        Some(text.trim_end().to_string())
    }
}

/// Where project file `path` really is, when that is inside `root`.
fn project_file(root: &Path, path: &Path) -> Result<PathBuf, Refused> {
    let relative = path.strip_prefix(root).map_err(|_| Refused::Outside)?;
    let relative = relative.to_str().ok_or(Refused::Outside)?;
    crate::tools::kit::paths::resolve(root, relative).map_err(|_| Refused::Outside)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;
    use std::fs;

    fn entry(role: &str, text: &str) -> Entry {
        Entry {
            role: role.into(),
            text: text.into(),
            time: String::new(),
        }
    }

    fn facts<'a>(
        dir: &'a Path,
        recent: Option<&'a str>,
        docs: &'a [(String, String)],
    ) -> PromptFacts<'a> {
        PromptFacts {
            coding_mode: false,
            nobody_answers: false,
            readonly: false,
            working_dir: dir,
            tools_line: "Tools available: system_info, append_file.",
            append_file: true,
            jobs: &[],
            profile: "work",
            preferences: Some(r#"{"units":"metric"}"#),
            places: None,
            recent,
            project_docs: docs,
        }
    }

    #[test]
    fn parts_come_in_the_seed_order() {
        let dir = Path::new("/work/project");
        let long = "x".repeat(300);
        let history = [
            entry("you", "hello\nthere"),
            entry("assistant", &long),
            entry("system", "asked"),
        ];
        let docs = [("AGENTS.md".to_string(), "Use tabs.".to_string())];
        let recent = compact_history(&history);
        let mut facts = facts(dir, recent.as_deref(), &docs);
        let plain = system_prompt(&facts);
        assert!(plain.starts_with("You are Marvin"));
        assert!(!plain.contains("Current time"), "{plain}");
        let order = [
            "The user's preferences: {\"units\":\"metric\"}",
            "Active profile: work.",
            "Recent conversation:\nUser: hello there\nAsst: ",
            "Tools available:",
            "Project instructions from AGENTS.md:\nUse tabs.",
        ];
        let positions: Vec<usize> = order
            .iter()
            .map(|part| {
                plain
                    .find(part)
                    .unwrap_or_else(|| panic!("{part} missing:\n{plain}"))
            })
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
        assert!(plain.contains(&format!("Asst: {}...\n\n", "x".repeat(200))));
        assert!(!plain.contains("Sys: asked"), "{plain}");
        assert!(!plain.contains("/work/project") && !plain.contains("create_file"));
        facts.coding_mode = true;
        facts.nobody_answers = true;
        let jobs = ["review-1: review of src (running 5s)".to_string()];
        facts.jobs = &jobs;
        let coding = system_prompt(&facts);
        assert!(
            coding.contains("Working directory: /work/project") && coding.contains("append_file")
        );
        assert!(coding.contains("Background jobs (check with review_status):\n- review-1"));
        assert!(coding.contains("Nobody can answer questions"));
    }

    #[test]
    fn the_compact_history_holds_only_finished_exchanges() {
        let history = [
            entry("you", "count to a million"),
            entry("assistant", "1, 2, 3, 4 [Cancelled]"),
            entry("you", "write a long story"),
            entry("assistant", "Once upon a [Cut off]"),
            entry("you", "what is the capital of France?"),
            entry("system", "error: the server did not answer"),
            entry("you", "and of Italy?"),
            entry("system", "db: SQLite"),
            entry("assistant", "Rome."),
            entry("system", crate::store::chatlog::NEW_CONVERSATION),
            entry("you", "hello"),
        ];
        assert_eq!(
            compact_history(&history).as_deref(),
            Some("Recent conversation:\nUser: and of Italy?\nAsst: Rome.")
        );
        assert_eq!(compact_history(&history[..6]), None);
    }

    #[test]
    fn the_persons_message_carries_the_minute_it_was_sent_and_loses_it_again() {
        let sent = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_764_430_212);
        let message = stamped("what time is it?", sent);
        assert_eq!(
            message,
            "what time is it?\n\n[Current time (UTC): 2025-11-29T15:30Z]"
        );
        assert_eq!(unstamped(&message), "what time is it?");
        // Words of the person's own that look alike stay.
        let own = "notes:\n\n[Current time (UTC): then]\nmore";
        assert_eq!(unstamped(own), own);
        assert_eq!(unstamped("plain"), "plain");
    }

    #[test]
    fn a_model_offered_no_tools_is_told_so_instead_of_their_list() {
        let dir = Path::new("/work/project");
        let docs = [(
            "AGENTS.md".to_string(),
            "Tools available: make.".to_string(),
        )];
        let prompt = system_prompt(&facts(dir, None, &docs));
        let told = without_tools(&prompt);
        assert!(!told.contains("Tools available: system_info"), "{told}");
        assert!(told.contains(NO_TOOLS));
        assert!(told.ends_with("Project instructions from AGENTS.md:\nTools available: make."));
        assert_eq!(without_tools(&told), told, "said once");
        let mut none = facts(dir, None, &[]);
        none.tools_line = "";
        assert!(without_tools(&system_prompt(&none)).ends_with(NO_TOOLS));
        let essential = essential(&prompt);
        assert!(essential.starts_with(PERSONALITY) && essential.ends_with(NO_TOOLS));
        assert!(!essential.contains("make.") && !essential.contains("system_info"));
    }

    #[test]
    fn project_docs_are_found_from_the_git_root_down_and_capped() {
        let home = TempDir::new("docs-home");
        let repo = TempDir::new("docs-repo");
        let work = repo.path().join("crates/core");
        fs::create_dir_all(repo.path().join(".git")).unwrap();
        fs::create_dir_all(work.join(".marvin")).unwrap();
        fs::write(repo.path().join("AGENTS.md"), "root rules").unwrap();
        fs::write(work.join("AGENTS.md"), "crate rules").unwrap();
        fs::write(work.join(".marvin-instructions"), "first").unwrap();
        fs::write(work.join(".marvin/spec.md"), "x".repeat(20_000)).unwrap();
        let keyed = home
            .path()
            .join(".marvin/instructions")
            .join(format!("{}.md", work.strip_prefix("/").unwrap().display()));
        fs::create_dir_all(keyed.parent().unwrap()).unwrap();
        fs::write(&keyed, "from home").unwrap();
        let docs = project_docs(&work, Some(home.path()));
        let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            &texts[..4],
            ["first", "from home", "root rules", "crate rules"]
        );
        assert_eq!(docs[4].0, ".marvin/spec.md");
        assert!(
            docs[4].1.ends_with("[cut: 3616 more bytes]"),
            "{}",
            &docs[4].1[docs[4].1.len() - 40..]
        );
    }

    #[test]
    fn instruction_files_must_be_regular_files_inside_the_project() {
        let repo = TempDir::new("docs-confined");
        let outside = TempDir::new("docs-outside");
        let work = repo.path();
        fs::create_dir_all(work.join(".git")).unwrap();
        fs::create_dir_all(work.join(".marvin")).unwrap();
        fs::create_dir_all(work.join("docs")).unwrap();
        fs::write(outside.path().join("id_ed25519"), "PRIVATE KEY").unwrap();
        fs::write(work.join("docs/agents.md"), "linked rules").unwrap();
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, work.join(name)).unwrap()
        };
        link(&outside.path().join("id_ed25519"), "AGENTS.md");
        link(Path::new("/dev/zero"), ".marvin-instructions");
        link(&work.join("docs/agents.md"), ".marvin/spec.md");
        let fifo = std::ffi::CString::new(
            work.join(".marvin/ux.md")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let docs = project_docs(work, None);
        assert_eq!(
            docs,
            [
                (
                    ".marvin-instructions".to_string(),
                    "[not read: it leads outside the project through a symlink]".to_string()
                ),
                (
                    "AGENTS.md".to_string(),
                    "[not read: it leads outside the project through a symlink]".to_string()
                ),
                (".marvin/spec.md".to_string(), "linked rules".to_string()),
                (
                    ".marvin/ux.md".to_string(),
                    "[not read: it is a named pipe (FIFO), not a regular file]".to_string()
                ),
            ]
        );
    }
}
