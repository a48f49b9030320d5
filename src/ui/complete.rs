//! Tab completion at the REPL prompt: command words (`!code`, `!voice`, `/approvals`, `usage`
//! ...) and, after `profiles ` and `provider ` (with or without the slash), the names of
//! existing profiles and of providers.

use std::path::PathBuf;

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use crate::config::ProviderKind;

/// Marvin's own `!` commands (any other `!` line is a shell command).
const BANG: &[&str] = &["!code", "!shell", "!sh", "!blender", "!v", "!voice"];

/// Completes commands; knows where profiles live to complete their names.
pub(crate) struct Completion {
    pub home: Option<PathBuf>,
}

impl Completer for Completion {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let argument = |command: &str| {
            before
                .strip_prefix(command)
                .or_else(|| before.strip_prefix(&command[1..]))
        };
        let argument = if let Some(partial) = argument("/profiles ") {
            let names = self.home.as_deref().map(crate::store::list);
            Some((partial, names.unwrap_or_default()))
        } else {
            argument("/provider ").map(|partial| {
                let names = ProviderKind::ALL.iter().map(|k| k.name().to_string());
                (partial, names.collect())
            })
        };
        if let Some((partial, names)) = argument {
            let found = names
                .into_iter()
                .filter(|n| n.starts_with(partial))
                .map(|n| Pair {
                    display: n.clone(),
                    replacement: n,
                })
                .collect();
            return Ok((before.len() - partial.len(), found));
        }
        if before.contains(char::is_whitespace) || before.is_empty() {
            return Ok((pos, Vec::new()));
        }
        Ok((0, commands(before)))
    }
}

/// The commands `typed` begins: `!` ones, slash ones, or (typed without a slash) the bare
/// words.
fn commands(typed: &str) -> Vec<Pair> {
    let words = crate::commands::WORDS.iter().map(|(word, _)| *word);
    let candidates: Vec<String> = if typed.starts_with('!') {
        BANG.iter().map(|c| c.to_string()).collect()
    } else if typed.starts_with('/') {
        words.map(|w| format!("/{w}")).collect()
    } else {
        words.map(str::to_string).collect()
    };
    candidates
        .into_iter()
        .filter(|c| c.starts_with(typed))
        .map(|c| Pair {
            display: c.clone(),
            replacement: c,
        })
        .collect()
}

impl Hinter for Completion {
    type Hint = String;
}
impl Highlighter for Completion {}
impl Validator for Completion {}
impl Helper for Completion {}

#[cfg(test)]
mod tests {
    use super::*;
    use rustyline::history::DefaultHistory;

    fn complete(completion: &Completion, line: &str) -> (usize, Vec<String>) {
        let history = DefaultHistory::new();
        let (start, pairs) = completion
            .complete(line, line.len(), &Context::new(&history))
            .unwrap();
        (start, pairs.into_iter().map(|p| p.replacement).collect())
    }

    #[test]
    fn commands_profile_and_provider_names_complete() {
        let home = crate::test_support::TempDir::new("complete");
        crate::store::open(home.path(), "work").unwrap();
        crate::store::open(home.path(), "weekend").unwrap();
        let completion = Completion {
            home: Some(home.path().to_path_buf()),
        };
        assert_eq!(
            complete(&completion, "/ap"),
            (0, vec!["/approvals".to_string()])
        );
        assert_eq!(
            complete(&completion, "!s"),
            (0, vec!["!shell".to_string(), "!sh".to_string()])
        );
        assert_eq!(
            complete(&completion, "profiles w"),
            (9, vec!["weekend".to_string(), "work".to_string()])
        );
        assert_eq!(
            complete(&completion, "tell me about /ap").1,
            Vec::<String>::new()
        );
        assert!(complete(&completion, "").1.is_empty());
        assert_eq!(
            complete(&completion, "/provider gr"),
            (10, vec!["groq".to_string()])
        );
        assert_eq!(complete(&completion, "/mo").1, ["/model"]);
        assert_eq!(complete(&completion, "/n").1, ["/new", "/notifications"]);
        assert_eq!(complete(&completion, "/no").1, ["/notifications"]);
        assert_eq!(complete(&completion, "us").1, ["usage"]);
        assert_eq!(complete(&completion, "/us").1, ["/usage"]);
        assert_eq!(
            complete(&completion, "/pro").1,
            ["/profiles", "/provider", "/providers"]
        );
        assert_eq!(
            complete(&completion, "/profiles w"),
            (10, vec!["weekend".to_string(), "work".to_string()])
        );
        assert_eq!(
            complete(&completion, "provider ol"),
            (9, vec!["ollama".to_string()])
        );
        assert_eq!(complete(&completion, "!b").1, ["!blender"]);
        assert_eq!(complete(&completion, "!v").1, ["!v", "!voice"]);
        assert_eq!(complete(&completion, "!vo").1, ["!voice"]);
    }
}
