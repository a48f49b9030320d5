//! The `/help` text: the commands, the `!` commands and the keys, in aligned columns,
//! word-wrapped to the terminal (80 columns at most).

use super::width::wrap;

/// Where the second column starts.
const COLUMN: usize = 24;

/// Headings, each with its rows of what to type and what it does.
const SECTIONS: &[(&str, &[(&str, &str)])] = &[
    (
        "Commands, with or without the slash (help or /help); a command with words after it \
         needs the slash (/model gpt-4o-mini):",
        &[
            ("/new", "start a new session; the old one stays stored"),
            ("/clear", "forget the conversation (the chat log keeps it)"),
            ("/sessions", "the stored sessions, the last updated first"),
            ("/resume NAME", "take up a stored session by name or id"),
            ("/rename NAME", "name this session"),
            (
                "/fork",
                "go on in a copy of this session; the old one stays",
            ),
            (
                "/pending [ID]",
                "runs parked on a question; answer one here, or drop ID",
            ),
            ("/usage", "tokens and cost, this session and all time"),
            (
                "/context",
                "the model's window and how much the conversation takes",
            ),
            (
                "/last",
                "all the last command printed (its last lines show)",
            ),
            ("/model [NAME]", "the model in use; or switch to model NAME"),
            (
                "/provider [NAME]",
                "the providers, models and credentials; or switch to NAME",
            ),
            (
                "/profiles [NAME]",
                "list profiles, or switch to NAME (creating it)",
            ),
            (
                "/preferences",
                "edit this profile's preferences in $VISUAL or $EDITOR",
            ),
            ("/saved", "the saved places of this profile"),
            (
                "/notifications",
                "the last ntfy messages whole (one line each shows)",
            ),
            (
                "/approvals",
                "actions always allowed here; /approvals revoke N",
            ),
            ("/tools", "your own tools and where each came from"),
            (
                "/mcp [restart NAME]",
                "MCP servers, their state and tools; or start one again",
            ),
            ("/help", "this list"),
            ("/quit, /exit", "leave (Ctrl+D too)"),
        ],
    ),
    (
        "Shell and voice:",
        &[
            ("!code", "turn coding mode on or off"),
            (
                "!pro PROMPT",
                "answer this one prompt with the high model tier",
            ),
            (
                "!shell, !sh",
                "shell mode: lines run as bash commands until !sh again",
            ),
            (
                "!COMMAND",
                "run COMMAND in bash where the tools work; cd moves both",
            ),
            (
                "!blender",
                "whether Blender's add-on is reachable, and its scene",
            ),
            (
                "!v [N]",
                "record N seconds (default 5, up to 120), then send it",
            ),
            (
                "!voice",
                "listen and send at each pause, until Enter or Ctrl+C",
            ),
        ],
    ),
    (
        "Keys:",
        &[
            (
                "Alt+Enter",
                "a new line in the message (so does \\ then Enter)",
            ),
            ("Pasting", "keeps the line breaks; Enter sends it all"),
            ("Ctrl+C", "clear the line, or stop an answer"),
            ("Ctrl+R, Up, Down", "search and walk the input history"),
            ("Tab", "complete a command, a profile or a provider"),
        ],
    ),
];

/// The help text for a terminal `width` columns wide.
pub(crate) fn text(width: usize) -> String {
    let width = width.clamp(40, 80);
    let mut lines = Vec::new();
    for (heading, rows) in SECTIONS {
        lines.push(wrap("", heading, 0, width));
        for (what, does) in *rows {
            let first = format!("  {what:<column$}", column = COLUMN - 2);
            lines.push(wrap(&first, does, COLUMN, width));
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_the_width_in_two_columns() {
        for width in [80, 60, 200] {
            let help = text(width);
            for line in help.lines() {
                assert!(line.chars().count() <= width.min(80), "{width}: {line:?}");
                // A row's second column, or its continuation, starts at the column.
                if line.starts_with("   ") {
                    assert_eq!(line.find(|c: char| c != ' '), Some(COLUMN), "{line:?}");
                }
            }
        }
        assert!(
            text(80).contains("\n  /new                  start a new session; the old one stays")
        );
    }

    #[test]
    fn every_command_word_is_listed() {
        let help = text(80);
        for (word, _) in crate::commands::WORDS {
            if *word != "providers" {
                assert!(help.contains(&format!("/{word}")), "{word}");
            }
        }
        assert!(help.contains("Alt+Enter"));
    }
}
