//! REPL commands, parsed from a line before it is sent to the model. None of them exists in
//! non-interactive mode.

/// What a line typed at the prompt asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// `quit` or `exit`.
    Quit,
    /// `!code`: toggle coding mode.
    ToggleCode,
    /// `/provider`: the provider table.
    Providers,
    /// `/help`: the commands and the user's own tools.
    Help,
    /// `/tools`: the user's own tools and where each came from.
    Tools,
    /// `/approvals`: list the `always` grants of this project.
    ListApprovals,
    /// `/approvals revoke N`: remove grant N of the list (or the grant with that exact key).
    Revoke(String),
    /// A slash command Marvin does not know.
    Unknown(String),
    /// Anything else: a prompt for the model.
    Prompt(String),
}

pub fn parse(line: &str) -> Command {
    let line = line.trim();
    let mut words = line.split_whitespace();
    match (words.next(), words.next()) {
        (Some("quit" | "exit"), None) => Command::Quit,
        (Some("!code"), None) => Command::ToggleCode,
        (Some("/provider" | "/providers"), None) => Command::Providers,
        (Some("/help"), None) => Command::Help,
        (Some("/tools"), None) => Command::Tools,
        (Some("/approvals"), None) => Command::ListApprovals,
        (Some("/approvals"), Some("revoke")) => {
            Command::Revoke(words.collect::<Vec<_>>().join(" "))
        }
        (Some(word), _) if word.starts_with('/') && word.len() > 1 && !word[1..].contains('/') => {
            Command::Unknown(word.to_string())
        }
        _ => Command::Prompt(line.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_to_commands() {
        let cases: &[(&str, Command)] = &[
            ("quit", Command::Quit),
            ("  exit ", Command::Quit),
            ("!code", Command::ToggleCode),
            ("/provider", Command::Providers),
            ("/help", Command::Help),
            ("/tools", Command::Tools),
            ("/approvals", Command::ListApprovals),
            ("/approvals revoke 2", Command::Revoke("2".into())),
            ("/nope", Command::Unknown("/nope".into())),
            (
                "/etc/hosts looks odd, why?",
                Command::Prompt("/etc/hosts looks odd, why?".into()),
            ),
            (
                "quit smoking tips",
                Command::Prompt("quit smoking tips".into()),
            ),
            ("what is 2+2", Command::Prompt("what is 2+2".into())),
        ];
        for (line, expected) in cases {
            assert_eq!(&parse(line), expected, "{line}");
        }
    }
}
