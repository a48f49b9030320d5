//! The system prompt: who Marvin is, the rules it keeps, and what it knows about this session.

use std::path::Path;
use std::time::SystemTime;

use crate::clock::iso8601;

/// What the prompt says about the session.
pub struct PromptFacts<'a> {
    pub coding_mode: bool,
    pub non_interactive: bool,
    pub readonly: bool,
    pub working_dir: &'a Path,
    pub tool_names: &'a [&'static str],
    /// Background jobs still running, one line each.
    pub jobs: &'a [String],
    pub now: SystemTime,
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

pub fn system_prompt(facts: &PromptFacts<'_>) -> String {
    let mut parts = vec![PERSONALITY.to_string()];
    parts.push(format!("Current time (UTC): {}.", iso8601(facts.now)));
    if facts.coding_mode {
        parts.push(CODING.to_string());
        if facts.tool_names.contains(&"append_file") {
            parts.push(LARGE_FILES.to_string());
        }
        parts.push(format!(
            "Working directory: {}",
            facts.working_dir.display()
        ));
    }
    if !facts.jobs.is_empty() {
        parts.push(format!(
            "Background jobs (check with review_status):\n{}",
            facts
                .jobs
                .iter()
                .map(|j| format!("- {j}"))
                .collect::<Vec<_>>()
                .join("\n")
        ));
    }
    if facts.readonly {
        parts.push("You are a read-only agent: you can inspect but not change files.".to_string());
    }
    if facts.non_interactive {
        parts.push(
            "Nobody can answer questions during this run: state your assumptions and carry on."
                .to_string(),
        );
    }
    if !facts.tool_names.is_empty() {
        parts.push(format!("Tools available: {}.", facts.tool_names.join(", ")));
    }
    parts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coding_facts_appear_only_in_coding_mode() {
        let dir = Path::new("/work/project");
        let mut facts = PromptFacts {
            coding_mode: false,
            non_interactive: false,
            readonly: false,
            working_dir: dir,
            tool_names: &["system_info", "append_file"],
            jobs: &[],
            now: SystemTime::UNIX_EPOCH,
        };
        let plain = system_prompt(&facts);
        assert!(plain.starts_with("You are Marvin"));
        assert!(plain.contains("Current time (UTC): 1970-01-01T00:00:00Z."));
        assert!(!plain.contains("/work/project"));
        assert!(plain.ends_with("Tools available: system_info, append_file."));
        assert!(!plain.contains("create_file"));
        facts.coding_mode = true;
        facts.non_interactive = true;
        let jobs = ["review-1: review of src (running 5s)".to_string()];
        facts.jobs = &jobs;
        let coding = system_prompt(&facts);
        assert!(coding.contains(
            "Background jobs (check with review_status):\n- review-1: review of src (running 5s)"
        ));
        assert!(coding.contains("Working directory: /work/project"));
        assert!(coding.contains("append_file"));
        assert!(coding.contains("Nobody can answer questions"));
    }
}
