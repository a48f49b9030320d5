//! REPL commands, parsed from a line before it is sent to the model, in the seed's order:
//! `!` commands, then command words, each typed with or without a leading slash (`usage`,
//! `/usage`); anything else is a prompt. Only a single line can be a command: a pasted or
//! multi-line entry is always a prompt. None of them exists in non-interactive mode.

use crate::config::ProviderKind;

/// What a line typed at the prompt asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Command {
    /// `quit` or `exit`.
    Quit,
    /// `!code`: toggle coding mode.
    ToggleCode,
    /// `!pro PROMPT`: answer this one prompt with the high model tier.
    Pro(String),
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
    /// `preferences`: edit the profile's preferences in $VISUAL, $EDITOR or vi.
    Preferences,
    /// `profiles` lists them; `profiles NAME` switches (creating it).
    Profiles(Option<String>),
    /// `usage`: tokens and cost, this session and all time.
    Usage,
    /// `context`: the model's window and how much of it the conversation takes.
    Context,
    /// `last`: everything the last command run_command ran printed.
    Last,
    /// `saved`: the saved places.
    Saved,
    /// `notifications`: the last ntfy messages heard, whole (before a prompt each shows as
    /// one line).
    Notifications,
    /// `clear`: forget the conversation.
    Clear,
    /// `new`: start a new conversation.
    New,
    /// `sessions`: the stored sessions, the last updated first.
    Sessions,
    /// `/resume NAME`: take up a stored session by name or id.
    Resume(String),
    /// `/rename NAME`: name this session.
    Rename(String),
    /// `fork`: go on in a copy of this session; the old one stays as it was.
    Fork,
    /// `pending` lists the runs parked on a question; `/pending ID` takes one up here (its
    /// question is asked now), `/pending drop ID` deletes it.
    Pending(Option<PendingAction>),
    /// `provider`: the provider table.
    Providers,
    /// `/provider NAME`: answer with that provider from the next message on.
    SwitchProvider(String),
    /// `model` shows the model; `/model NAME` switches the provider in use to it.
    Model(Option<String>),
    /// `help`: the commands and the user's own tools.
    Help,
    /// `tools`: the user's own tools and where each came from.
    Tools,
    /// `approvals`: list the `always` grants of this project.
    ListApprovals,
    /// `approvals revoke N`: remove grant N of the list (or the grant with that exact key).
    Revoke(String),
    /// `mcp`: the MCP servers; `mcp restart NAME` starts one again.
    Mcp(Option<String>),
    /// A known `/word` followed by what it does not take: how to use it.
    Misused(&'static str),
    /// A `/word` Marvin does not know, and the known one closest to it.
    Unknown {
        word: String,
        closest: Option<&'static str>,
    },
    /// Anything else: a prompt for the model.
    Prompt(String),
}

/// What `/pending` does with one parked run.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum PendingAction {
    Answer(String),
    Drop(String),
}

/// Every command word, and how it is used (shown when it is given what it does not take).
/// Each works with or without the slash; with arguments, see [`word`].
pub(crate) const WORDS: &[(&str, &str)] = &[
    ("approvals", "/approvals [revoke N]"),
    ("clear", "/clear"),
    ("context", "/context"),
    ("exit", "/exit"),
    ("fork", "/fork"),
    ("help", "/help"),
    ("last", "/last"),
    ("mcp", "/mcp [restart NAME]"),
    ("model", "/model [NAME]"),
    ("new", "/new"),
    ("notifications", "/notifications"),
    ("pending", "/pending [ID | drop ID]"),
    ("preferences", "/preferences"),
    ("profiles", "/profiles [NAME]"),
    ("provider", "/provider [NAME]"),
    ("providers", "/providers"),
    ("quit", "/quit"),
    ("rename", "/rename NAME"),
    ("resume", "/resume NAME"),
    ("saved", "/saved"),
    ("sessions", "/sessions"),
    ("tools", "/tools"),
    ("usage", "/usage"),
];

pub(crate) fn parse(line: &str) -> Command {
    let line = line.trim();
    if line.contains('\n') {
        return Command::Prompt(line.to_string());
    }
    if let Some(rest) = line.strip_prefix('!') {
        return bang(line, rest.trim());
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((first, args)) = words.split_first() else {
        return Command::Prompt(line.to_string());
    };
    let slashed = first.strip_prefix('/');
    let name = slashed.unwrap_or(first).to_lowercase();
    if let Some(command) = word(&name, args, slashed.is_some(), line) {
        return command;
    }
    let usage = WORDS.iter().find(|(known, _)| *known == name);
    match (slashed, usage) {
        (Some(_), Some((_, usage))) => Command::Misused(usage),
        // A path (`/etc/hosts ...`) is a prompt.
        (Some(typed), None) if !typed.is_empty() && !typed.contains('/') => Command::Unknown {
            word: first.to_string(),
            closest: closest(&name),
        },
        _ => Command::Prompt(line.to_string()),
    }
}

/// A `!` line: Marvin's own `!` commands, else a shell command.
fn bang(line: &str, rest: &str) -> Command {
    match rest {
        "code" => Command::ToggleCode,
        "pro" => Command::Misused("!pro PROMPT"),
        command if command.starts_with("pro ") => Command::Pro(command[4..].trim().to_string()),
        "shell" | "sh" => Command::ToggleShell,
        "blender" => Command::Blender,
        "voice" => Command::Listen,
        "v" => Command::Record(Ok(crate::voice::DEFAULT_SECONDS)),
        "" => Command::Prompt(line.to_string()),
        command if command.starts_with("v ") => Command::Record(seconds(&command[2..])),
        command => Command::Shell(command.to_string()),
    }
}

/// Command word `name` (lower-cased, without its slash) with `args`; `None` when the line is
/// not that command. Alone, every word is its command. With arguments the slash makes it one;
/// without the slash only where the words cannot be a sentence for the model: `profiles
/// NAME` (the seed's keyword), `provider` with a provider's name, `approvals revoke ...` and
/// `mcp restart NAME`. `model NAME` needs the slash: "model trains poorly" is a question.
fn word(name: &str, args: &[&str], slash: bool, line: &str) -> Option<Command> {
    let command = match (name, args) {
        ("quit" | "exit", []) => Command::Quit,
        ("help", []) => Command::Help,
        ("new", []) => Command::New,
        ("clear", []) => Command::Clear,
        ("sessions" | "resume", []) => Command::Sessions,
        ("rename", []) => Command::Misused("/rename NAME"),
        ("fork", []) => Command::Fork,
        ("resume", [_, ..]) if slash => Command::Resume(after_words(line, 1)),
        ("rename", [_, ..]) if slash => Command::Rename(after_words(line, 1)),
        ("pending", []) => Command::Pending(None),
        ("pending", ["drop", id]) if slash => {
            Command::Pending(Some(PendingAction::Drop(id.to_string())))
        }
        ("pending", [id]) if slash => Command::Pending(Some(PendingAction::Answer(id.to_string()))),
        ("usage", []) => Command::Usage,
        ("context", []) => Command::Context,
        ("last", []) => Command::Last,
        ("saved", []) => Command::Saved,
        ("notifications", []) => Command::Notifications,
        ("tools", []) => Command::Tools,
        ("preferences", []) => Command::Preferences,
        ("profiles", []) => Command::Profiles(None),
        ("profiles", [name]) => Command::Profiles(Some(name.to_string())),
        ("provider" | "providers", []) => Command::Providers,
        ("provider", [name]) if slash || ProviderKind::parse(name).is_some() => {
            Command::SwitchProvider(name.to_string())
        }
        ("model", []) => Command::Model(None),
        ("model", [name]) if slash => Command::Model(Some(name.to_string())),
        ("approvals", []) => Command::ListApprovals,
        ("approvals", ["revoke", _, ..]) => Command::Revoke(after_words(line, 2)),
        ("mcp", []) => Command::Mcp(None),
        ("mcp", ["restart", name]) => Command::Mcp(Some(name.to_string())),
        _ => return None,
    };
    Some(command)
}

/// `line` without its first `n` words, trimmed (a grant's key may hold spaces).
fn after_words(line: &str, n: usize) -> String {
    let mut rest = line.trim_start();
    for _ in 0..n {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    rest.trim_end().to_string()
}

/// The command word `typed` was probably meant to be: the only one it begins, or one a
/// couple of edits away (`hepl`: help); none when nothing is that close.
fn closest(typed: &str) -> Option<&'static str> {
    let mut begun = WORDS.iter().filter(|(name, _)| name.starts_with(typed));
    if let (Some((name, _)), None) = (begun.next(), begun.next()) {
        return Some(name);
    }
    WORDS
        .iter()
        .map(|(name, _)| (crate::edit_distance::edit_distance(typed, name), *name))
        .filter(|(distance, _)| *distance <= 2 && 2 * distance <= typed.chars().count())
        .min()
        .map(|(_, name)| name)
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

    fn prompt(line: &str) -> Command {
        Command::Prompt(line.into())
    }

    fn unknown(word: &str, closest: Option<&'static str>) -> Command {
        Command::Unknown {
            word: word.into(),
            closest,
        }
    }

    #[test]
    fn lines_parse_to_commands() {
        let cases: &[(&str, Command)] = &[
            ("quit", Command::Quit),
            ("  exit ", Command::Quit),
            ("!code", Command::ToggleCode),
            ("!pro", Command::Misused("!pro PROMPT")),
            (
                "!pro  why is the sky blue? ",
                Command::Pro("why is the sky blue?".into()),
            ),
            ("!profile", Command::Shell("profile".into())),
            ("!sh", Command::ToggleShell),
            ("!shell", Command::ToggleShell),
            ("!ls -la", Command::Shell("ls -la".into())),
            ("!blender", Command::Blender),
            (" !blender ", Command::Blender),
            (
                "!blender --version",
                Command::Shell("blender --version".into()),
            ),
            ("!", prompt("!")),
            ("!voice", Command::Listen),
            ("!v", Command::Record(Ok(5))),
            ("!v 12", Command::Record(Ok(12))),
            ("! v  120 ", Command::Record(Ok(120))),
            ("!vi notes.txt", Command::Shell("vi notes.txt".into())),
            ("!cd", Command::Shell("cd".into())),
            ("preferences", Command::Preferences),
            ("profiles", Command::Profiles(None)),
            ("profiles work", Command::Profiles(Some("work".into()))),
            ("profiles are confusing", prompt("profiles are confusing")),
            ("usage", Command::Usage),
            ("saved", Command::Saved),
            ("/clear", Command::Clear),
            ("/new", Command::New),
            ("/last", Command::Last),
            ("last", Command::Last),
            ("/provider", Command::Providers),
            ("/providers", Command::Providers),
            ("/provider groq", Command::SwitchProvider("groq".into())),
            ("/model", Command::Model(None)),
            (
                "/model gpt-4o-mini",
                Command::Model(Some("gpt-4o-mini".into())),
            ),
            ("/model two words", Command::Misused("/model [NAME]")),
            ("/help", Command::Help),
            ("/tools", Command::Tools),
            ("/approvals", Command::ListApprovals),
            ("/approvals revoke 2", Command::Revoke("2".into())),
            (
                "/approvals revoke run_command:cargo  test",
                Command::Revoke("run_command:cargo  test".into()),
            ),
            (
                "/approvals revoke",
                Command::Misused("/approvals [revoke N]"),
            ),
            ("/mcp", Command::Mcp(None)),
            (
                "/mcp restart everything",
                Command::Mcp(Some("everything".into())),
            ),
            ("/nope", unknown("/nope", None)),
            (
                "/etc/hosts looks odd, why?",
                prompt("/etc/hosts looks odd, why?"),
            ),
            ("quit smoking tips", prompt("quit smoking tips")),
            ("/sessions", Command::Sessions),
            ("sessions", Command::Sessions),
            ("/fork", Command::Fork),
            ("/rename parser fix", Command::Rename("parser fix".into())),
            (
                "rename the file to x.txt",
                prompt("rename the file to x.txt"),
            ),
            ("/resume ab12cd34", Command::Resume("ab12cd34".into())),
            ("pending", Command::Pending(None)),
            (
                "/pending ab12cd34",
                Command::Pending(Some(PendingAction::Answer("ab12cd34".into()))),
            ),
            (
                "/pending drop ab12cd34",
                Command::Pending(Some(PendingAction::Drop("ab12cd34".into()))),
            ),
            ("pending ab12cd34", prompt("pending ab12cd34")),
            ("what is 2+2", prompt("what is 2+2")),
        ];
        for (line, expected) in cases {
            assert_eq!(&parse(line), expected, "{line}");
        }
    }

    #[test]
    fn every_command_works_with_and_without_the_slash() {
        let cases: &[(&str, Command)] = &[
            ("usage", Command::Usage),
            ("context", Command::Context),
            ("quit", Command::Quit),
            ("exit", Command::Quit),
            ("help", Command::Help),
            ("last", Command::Last),
            ("clear", Command::Clear),
            ("new", Command::New),
            ("preferences", Command::Preferences),
            ("profiles", Command::Profiles(None)),
            ("saved", Command::Saved),
            ("tools", Command::Tools),
            ("provider", Command::Providers),
            ("providers", Command::Providers),
            ("model", Command::Model(None)),
            ("approvals", Command::ListApprovals),
            ("mcp", Command::Mcp(None)),
            ("sessions", Command::Sessions),
            ("resume", Command::Sessions),
            ("rename", Command::Misused("/rename NAME")),
            ("fork", Command::Fork),
            ("pending", Command::Pending(None)),
            ("notifications", Command::Notifications),
        ];
        for (word, expected) in cases {
            for line in [
                word.to_string(),
                format!("/{word}"),
                format!("  /{word} "),
                word.to_uppercase(),
            ] {
                assert_eq!(&parse(&line), expected, "{line:?}");
            }
        }
        // Every command word is in the table, and every word of the table is a command.
        for (word, _) in WORDS {
            assert!(
                cases.iter().any(|(w, _)| w == word),
                "{word} has no case here"
            );
        }
    }

    #[test]
    fn command_words_with_arguments_are_commands_only_where_no_sentence_could_be() {
        let cases: &[(&str, Command)] = &[
            ("provider groq", Command::SwitchProvider("groq".into())),
            ("provider outages today", prompt("provider outages today")),
            ("provider outage", prompt("provider outage")),
            ("/provider nosuch", Command::SwitchProvider("nosuch".into())),
            ("model gpt-4o-mini", prompt("model gpt-4o-mini")),
            ("model trains poorly", prompt("model trains poorly")),
            ("tools for woodworking", prompt("tools for woodworking")),
            ("help me write a poem", prompt("help me write a poem")),
            ("new ideas for dinner", prompt("new ideas for dinner")),
            ("clear skies tomorrow?", prompt("clear skies tomorrow?")),
            ("usage of semicolons", prompt("usage of semicolons")),
            ("saved by the bell", prompt("saved by the bell")),
            ("approvals revoke 1", Command::Revoke("1".into())),
            ("approvals are annoying", prompt("approvals are annoying")),
            ("mcp restart files", Command::Mcp(Some("files".into()))),
            ("mcp servers explained", prompt("mcp servers explained")),
            ("/usage please", Command::Misused("/usage")),
            ("/help me", Command::Misused("/help")),
            ("/quit now", Command::Misused("/quit")),
            ("help?", prompt("help?")),
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
            let expected = prompt(text.trim());
            assert_eq!(parse(text), expected, "{text:?}");
        }
    }

    #[test]
    fn unknown_slash_words_get_the_closest_command() {
        let cases: &[(&str, Option<&str>)] = &[
            ("/hepl", Some("help")),
            ("/hlep", Some("help")),
            ("/usge", Some("usage")),
            ("/modle", Some("model")),
            ("/quti", Some("quit")),
            ("/pref", Some("preferences")),
            ("/cl", Some("clear")),
            ("/nw", Some("new")),
            ("/HEPL", Some("help")),
            ("/xyzzy", None),
            ("/cd", None),
            ("/tmp", None),
        ];
        for (line, closest) in cases {
            assert_eq!(parse(line), unknown(line, *closest), "{line}");
        }
    }

    #[test]
    fn a_swap_of_neighbours_is_one_edit() {
        let cases = [
            ("hepl", "help", 1),
            ("help", "help", 0),
            ("", "new", 3),
            ("kitten", "sitting", 3),
            ("modle", "model", 1),
            ("abc", "ca", 3),
        ];
        for (a, b, distance) in cases {
            assert_eq!(
                crate::edit_distance::edit_distance(a, b),
                distance,
                "{a} {b}"
            );
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
