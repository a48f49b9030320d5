//! REPL commands, parsed from a line before it is sent to the model, in the seed's order:
//! `!` commands, then keywords, then slash commands; anything else is a prompt. None of them
//! exists in non-interactive mode.

/// What a line typed at the prompt asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Command {
    /// `quit` or `exit`.
    Quit,
    /// `!code`: toggle coding mode.
    ToggleCode,
    /// `!shell` or `!sh`: toggle shell mode, where lines run as bash commands.
    ToggleShell,
    /// `!blender`: whether Blender's add-on is reachable, and its scene.
    Blender,
    /// `!COMMAND`: run it in the shell.
    Shell(String),
    /// `!v [N]`: record N seconds (default 5) and send what was said; or why N is refused.
    Record(Result<u32, String>),
    /// `!voice`: listen until Enter or Ctrl+C, sending what is said at each pause.
    Listen,
    /// `preferences`: edit the profile's preferences in $EDITOR.
    Preferences,
    /// `profiles` lists them; `profiles NAME` switches (creating it).
    Profiles(Option<String>),
    /// `usage`: tokens and cost, this session and all time.
    Usage,
    /// `saved`: the saved places.
    Saved,
    /// `/clear`: forget the conversation.
    Clear,
    /// `/provider`: the provider table.
    Providers,
    /// `/provider NAME`: answer with that provider from the next message on.
    SwitchProvider(String),
    /// `/model` shows the model; `/model NAME` switches the provider in use to it.
    Model(Option<String>),
    /// `/help`: the commands and the user's own tools.
    Help,
    /// `/tools`: the user's own tools and where each came from.
    Tools,
    /// `/approvals`: list the `always` grants of this project.
    ListApprovals,
    /// `/approvals revoke N`: remove grant N of the list (or the grant with that exact key).
    Revoke(String),
    /// `/mcp`: the MCP servers; `/mcp restart NAME` starts one again.
    Mcp(Option<String>),
    /// A slash command Marvin does not know.
    Unknown(String),
    /// Anything else: a prompt for the model.
    Prompt(String),
}

pub(crate) fn parse(line: &str) -> Command {
    let line = line.trim();
    // Only a single line can be a command: a pasted block that starts with `quit` is a prompt.
    if line.contains('\n') {
        return Command::Prompt(line.to_string());
    }
    if let Some(rest) = line.strip_prefix('!') {
        return match rest.trim() {
            "code" => Command::ToggleCode,
            "shell" | "sh" => Command::ToggleShell,
            "blender" => Command::Blender,
            "voice" => Command::Listen,
            "v" => Command::Record(Ok(crate::voice::DEFAULT_SECONDS)),
            "" => Command::Prompt(line.to_string()),
            command if command.starts_with("v ") => Command::Record(seconds(&command[2..])),
            command => Command::Shell(command.to_string()),
        };
    }
    let mut words = line.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some("quit" | "exit"), None, _) => Command::Quit,
        (Some("preferences"), None, _) => Command::Preferences,
        (Some("profiles"), None, _) => Command::Profiles(None),
        (Some("profiles"), Some(name), None) => Command::Profiles(Some(name.to_string())),
        (Some("usage"), None, _) => Command::Usage,
        (Some("saved"), None, _) => Command::Saved,
        (Some("/clear"), None, _) => Command::Clear,
        (Some("/provider" | "/providers"), None, _) => Command::Providers,
        (Some("/provider"), Some(name), None) => Command::SwitchProvider(name.to_string()),
        (Some("/model"), None, _) => Command::Model(None),
        (Some("/model"), Some(name), None) => Command::Model(Some(name.to_string())),
        (Some("/help"), None, _) => Command::Help,
        (Some("/tools"), None, _) => Command::Tools,
        (Some("/approvals"), None, _) => Command::ListApprovals,
        (Some("/approvals"), Some("revoke"), _) => {
            Command::Revoke(line.splitn(3, ' ').nth(2).unwrap_or("").trim().to_string())
        }
        (Some("/mcp"), None, _) => Command::Mcp(None),
        (Some("/mcp"), Some("restart"), Some(name)) => Command::Mcp(Some(name.to_string())),
        (Some(word), _, _)
            if word.starts_with('/') && word.len() > 1 && !word[1..].contains('/') =>
        {
            Command::Unknown(word.to_string())
        }
        _ => Command::Prompt(line.to_string()),
    }
}

/// The N of `!v N`: whole seconds within [`crate::voice::SECONDS`].
fn seconds(text: &str) -> Result<u32, String> {
    let range = crate::voice::SECONDS;
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            format!(
                "!v takes a number of seconds from {} to {}, e.g. `!v 10`; not {:?}.",
                range.start(),
                range.end(),
                text.trim()
            )
        })
}

/// A line as sent: as typed or pasted, its line breaks kept (a pasted `\r\n` or `\r` becomes
/// `\n`), trimmed at the ends.
pub(crate) fn normalise(line: &str) -> String {
    line.replace("\r\n", "\n")
        .replace('\r', "\n")
        .trim()
        .to_string()
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
            ("!sh", Command::ToggleShell),
            ("!shell", Command::ToggleShell),
            ("!ls -la", Command::Shell("ls -la".into())),
            ("!blender", Command::Blender),
            (" !blender ", Command::Blender),
            (
                "!blender --version",
                Command::Shell("blender --version".into()),
            ),
            ("!", Command::Prompt("!".into())),
            ("!voice", Command::Listen),
            ("!v", Command::Record(Ok(5))),
            ("!v 12", Command::Record(Ok(12))),
            ("! v  120 ", Command::Record(Ok(120))),
            ("!vi notes.txt", Command::Shell("vi notes.txt".into())),
            ("preferences", Command::Preferences),
            ("profiles", Command::Profiles(None)),
            ("profiles work", Command::Profiles(Some("work".into()))),
            (
                "profiles are confusing",
                Command::Prompt("profiles are confusing".into()),
            ),
            ("usage", Command::Usage),
            ("saved", Command::Saved),
            ("/clear", Command::Clear),
            ("/provider", Command::Providers),
            ("/provider groq", Command::SwitchProvider("groq".into())),
            ("/model", Command::Model(None)),
            (
                "/model gpt-4o-mini",
                Command::Model(Some("gpt-4o-mini".into())),
            ),
            ("/model two words", Command::Unknown("/model".into())),
            ("/help", Command::Help),
            ("/tools", Command::Tools),
            ("/approvals", Command::ListApprovals),
            ("/approvals revoke 2", Command::Revoke("2".into())),
            ("/mcp", Command::Mcp(None)),
            (
                "/mcp restart everything",
                Command::Mcp(Some("everything".into())),
            ),
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

    #[test]
    fn a_multi_line_entry_is_always_a_prompt() {
        for text in [
            "quit\nplease",
            "/help\nme",
            "!ls\n!pwd",
            " usage\nand more ",
        ] {
            assert_eq!(parse(text), Command::Prompt(text.trim().into()), "{text:?}");
        }
    }

    #[test]
    fn recording_seconds_are_bounded() {
        for text in ["0", "121", "-3", "five", "2.5"] {
            let Command::Record(Err(why)) = parse(&format!("!v {text}")) else {
                panic!("{text} accepted");
            };
            assert!(
                why.starts_with("!v takes a number of seconds from 1 to 120"),
                "{why}"
            );
            assert!(why.contains(&format!("{text:?}")), "{why}");
        }
    }

    #[test]
    fn line_breaks_are_kept_and_the_ends_trimmed() {
        assert_eq!(normalise("  one\ntwo\r\nthree\r \n"), "one\ntwo\nthree");
        assert_eq!(normalise("a  b"), "a  b");
    }
}
