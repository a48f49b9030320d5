//! Tab completion at the REPL prompt: command words (`!code`, `!voice`, `/approvals`, `profiles` ...)
//! and, after `profiles ` and `/provider `, the names of existing profiles and of providers.

use std::path::PathBuf;

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use crate::config::ProviderKind;

const COMMANDS: &[&str] = &[
    "!code",
    "!shell",
    "!sh",
    "!blender",
    "!v",
    "!voice",
    "quit",
    "exit",
    "preferences",
    "profiles",
    "usage",
    "saved",
    "/clear",
    "/provider",
    "/model",
    "/approvals",
    "/tools",
    "/mcp",
    "/help",
];

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
        let argument = if let Some(partial) = before.strip_prefix("profiles ") {
            let names = self.home.as_deref().map(crate::store::list);
            Some((partial, names.unwrap_or_default()))
        } else {
            before.strip_prefix("/provider ").map(|partial| {
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
        if before.contains(' ') {
            return Ok((pos, Vec::new()));
        }
        let found = COMMANDS
            .iter()
            .filter(|c| c.starts_with(before) && !before.is_empty())
            .map(|c| Pair {
                display: c.to_string(),
                replacement: c.to_string(),
            })
            .collect();
        Ok((0, found))
    }
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
        assert_eq!(complete(&completion, "!b").1, ["!blender"]);
        assert_eq!(complete(&completion, "!v").1, ["!v", "!voice"]);
        assert_eq!(complete(&completion, "!vo").1, ["!voice"]);
    }
}
