//! An ntfy message as shown before a prompt: one line, sanitised and cut to the terminal, and
//! where to read the rest (a message may be a megabyte; `/notifications` keeps it whole).

use super::sanitize::sanitize;
use super::width::{truncate, width};

/// What follows a message shown cut: the command that shows it whole.
pub(crate) const REST: &str = "(/notifications shows it whole)";

/// `message` after `bell` on one line of at most `columns`: its lines joined, and when it
/// does not fit or had more than one line, cut (with an ellipsis) to make room for [`REST`].
/// Below about 40 columns the line is wider: [`REST`] is always said.
pub(crate) fn one_line(bell: &str, message: &str, columns: usize, unicode: bool) -> String {
    let message = message.trim();
    let lead = format!("{bell} ");
    // A line holds at most `columns` characters of width one or more: more are never looked at.
    let head: String = message.chars().take(columns * 4).collect();
    let flat = sanitize(&head)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let whole = head.len() == message.len() && !message.contains('\n');
    if whole && width(&lead) + width(&flat) <= columns {
        return format!("{lead}{flat}");
    }
    let room = columns.saturating_sub(width(&lead) + 1 + width(REST));
    format!("{lead}{} {REST}", truncate(&flat, room, unicode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_one_line_cut_to_the_width_with_where_the_rest_is() {
        let long = format!("backup: {}", "disk full ".repeat(90_000));
        let cases: &[(&str, usize, bool, &str)] = &[
            (
                "alerts: disk 91% full",
                40,
                true,
                "🔔 alerts: disk 91% full",
            ),
            (
                &long,
                60,
                true,
                "🔔 backup: disk full disk f… (/notifications shows it whole)",
            ),
            (
                "alerts: line one\nline two",
                79,
                true,
                "🔔 alerts: line one line two (/notifications shows it whole)",
            ),
            (
                "alerts: \x1b[2Jcleared\tscreen",
                79,
                false,
                "* alerts: ^[[2Jcleared screen",
            ),
            (
                "alerts: a message too long for the line",
                40,
                false,
                "* ale... (/notifications shows it whole)",
            ),
        ];
        for (message, columns, unicode, shown) in cases {
            let bell = if *unicode { "🔔" } else { "*" };
            let line = one_line(bell, message, *columns, *unicode);
            assert_eq!(line, *shown, "{columns}");
            assert!(width(&line) <= *columns, "{line}");
        }
    }
}
