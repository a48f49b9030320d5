//! What the REPL says when it opens: who answers, how to leave, and whether the last
//! conversation was picked up (and how to start afresh), within 80 columns.

use super::style::Style;
use super::width::join_within;
use crate::session::Resumed;
use crate::when;

/// The banner's lines, dim, each within `width` columns. `now` is the unix time, to say
/// "today" or "yesterday".
pub(crate) fn lines(
    style: Style,
    provider: &str,
    model: &str,
    resumed: Option<&Resumed>,
    now: i64,
    width: usize,
) -> Vec<String> {
    let dot = format!(" {} ", style.glyph("·", "|"));
    let who = [
        "Marvin".to_string(),
        provider.to_string(),
        model.to_string(),
    ];
    let keys = [
        "Ctrl+D or quit leaves".to_string(),
        "Ctrl+C stops an answer".to_string(),
        "/help for more".to_string(),
    ];
    let mut lines = join_within(&who, &dot, width, style.unicode);
    lines.extend(join_within(&keys, &dot, width, style.unicode));
    if let Some(resumed) = resumed {
        let dash = style.glyph("—", "-");
        let name = match resumed.name.as_str() {
            "" => String::new(),
            name => format!(" \"{}\":", super::sanitize::sanitize(name)),
        };
        let said = format!(
            "Resumed{name} {} from {} {dash} /new starts fresh",
            messages(resumed.messages),
            when_said(&resumed.last, now)
        );
        lines.extend(
            super::width::wrap("", &said, 0, width)
                .lines()
                .map(String::from),
        );
    }
    lines.into_iter().map(|line| style.dim(&line)).collect()
}

fn messages(count: usize) -> String {
    match count {
        1 => "1 message".into(),
        n => format!("{n} messages"),
    }
}

/// `today 18:02`, `yesterday 18:02`, or the day and time, local; the text as logged when it is
/// not a time.
pub(crate) fn when_said(logged: &str, now: i64) -> String {
    let Ok(at) = when::parse(logged, now) else {
        return logged.to_string();
    };
    let (then, today) = (when::local(at), when::local(now));
    let clock = format!("{:02}:{:02}", then.hour, then.minute);
    match today.days() - then.days() {
        0 => format!("today {clock}"),
        1 => format!("yesterday {clock}"),
        _ => when::show(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Style = Style::PLAIN;

    #[test]
    fn a_fresh_start_says_who_answers_and_how_to_leave() {
        assert_eq!(
            lines(PLAIN, "openai-compat", "gpt-4o", None, 0, 79),
            [
                "Marvin · openai-compat · gpt-4o",
                "Ctrl+D or quit leaves · Ctrl+C stops an answer · /help for more"
            ]
        );
    }

    #[test]
    fn a_resumed_conversation_says_from_when() {
        let now = when::from_local(20_000, 9, 30);
        let yesterday = crate::clock::iso8601(
            std::time::UNIX_EPOCH
                + std::time::Duration::from_secs(when::from_local(19_999, 18, 2) as u64),
        );
        let resumed = Resumed {
            messages: 14,
            last: yesterday,
            name: "parser fix".into(),
        };
        let shown = lines(PLAIN, "groq", "llama", Some(&resumed), now, 79);
        assert_eq!(
            shown[2],
            "Resumed \"parser fix\": 14 messages from yesterday 18:02 — /new starts fresh"
        );
        let older = Resumed {
            messages: 1,
            last: "2026-01-02T03:04:05Z".into(),
            name: String::new(),
        };
        let shown = lines(PLAIN, "groq", "llama", Some(&older), now, 79);
        assert!(
            shown[2].starts_with("Resumed 1 message from "),
            "{}",
            shown[2]
        );
        assert!(shown[2].contains("2026"), "{}", shown[2]);
    }

    #[test]
    fn long_names_wrap_within_80_columns() {
        let model = "anthropic/claude-3.5-sonnet-20241022:beta-with-a-very-long-suffix";
        for line in lines(PLAIN, "openrouter", model, None, 0, 79) {
            assert!(super::super::width::width(&line) <= 79, "{line}");
        }
    }
}
