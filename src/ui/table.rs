//! The provider table of `--list-providers` and `/provider`: aligned columns under a header,
//! the last one wrapped so that every row fits 80 columns.

use super::width::{truncate, width, wrap};

/// One provider as the table shows it.
pub(crate) struct ProviderRow {
    pub emoji: &'static str,
    pub name: &'static str,
    pub model: String,
    /// Where its credentials come from, or why it is not set up.
    pub about: String,
    /// `← in use`, `← fallback` or nothing; never split over two lines.
    pub marker: &'static str,
}

/// The widest model column; a longer model name is cut.
const MODEL_COLUMN: usize = 28;
/// Below this much room for the last column, each provider's credentials go on lines of
/// their own under it.
const NARROWEST_ABOUT: usize = 24;

/// The table, one line per row (more when the last column wraps), each ending in a newline;
/// without `unicode`, no emoji and `<-` for the arrow.
pub(crate) fn providers(rows: &[ProviderRow], unicode: bool, line: usize) -> String {
    let name_column = rows.iter().map(|r| width(r.name)).max().unwrap_or(0).max(8);
    let model_column = rows
        .iter()
        .map(|r| width(&r.model))
        .max()
        .unwrap_or(0)
        .clamp(5, MODEL_COLUMN);
    // The emoji takes two columns and a space follows it.
    let about_at = 3 + name_column + 2 + model_column + 2;
    if line < about_at + NARROWEST_ABOUT {
        return stacked(rows, unicode, line, name_column);
    }
    let indent = " ".repeat(about_at);
    let mut out = format!(
        "   {:<name_column$}  {:<model_column$}  CREDENTIALS\n",
        "PROVIDER", "MODEL"
    );
    for row in rows {
        let model = truncate(&row.model, model_column, unicode);
        let pad = model_column.saturating_sub(width(&model));
        let marker = match unicode {
            true => row.marker.to_string(),
            false => row.marker.replace('←', "<-"),
        };
        let room = line.saturating_sub(about_at);
        let mut about: Vec<String> = wrap("", &row.about, 0, room)
            .lines()
            .map(String::from)
            .collect();
        if let Some(last) = about.last_mut().filter(|_| !marker.is_empty()) {
            if width(last) + 1 + width(&marker) <= room {
                *last = format!("{last} {marker}");
            } else {
                about.push(marker);
            }
        }
        out.push_str(&format!(
            "{} {:<name_column$}  {model}{}  {}\n",
            if unicode { row.emoji } else { "  " },
            row.name,
            " ".repeat(pad),
            about[0]
        ));
        for more in &about[1..] {
            out.push_str(&format!("{indent}{more}\n"));
        }
    }
    out
}

/// The table for a narrow terminal: the provider and its model on one line, where its
/// credentials are (and whether it is in use) on the lines under it.
fn stacked(rows: &[ProviderRow], unicode: bool, line: usize, name_column: usize) -> String {
    let mut out = String::new();
    for row in rows {
        let model_room = line.saturating_sub(3 + name_column + 2);
        let model = truncate(&row.model, model_room, unicode);
        let emoji = if unicode { row.emoji } else { "  " };
        out.push_str(&format!("{emoji} {:<name_column$}  {model}\n", row.name));
        let marker = match unicode {
            true => row.marker.to_string(),
            false => row.marker.replace('←', "<-"),
        };
        let about = format!("{} {marker}", row.about);
        out.push_str(&wrap("   ", about.trim_end(), 3, line));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: usize = 79;

    #[test]
    fn rows_align_and_fit_80_columns() {
        let rows = [
            ProviderRow {
                emoji: "⚡",
                name: "groq",
                model: "llama-3.3-70b-versatile".into(),
                about: "GROQ_API_KEY".into(),
                marker: "← in use",
            },
            ProviderRow {
                emoji: "🔮",
                name: "openai-compat",
                model: "qwen/qwen3-32b".into(),
                about: "not set up: an API key or a server: set OPENAI_COMPAT_API_KEY or OPENAI_COMPAT_URL".into(),
                marker: "",
            },
        ];
        let table = providers(&rows, true, LINE);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[0],
            "   PROVIDER       MODEL                    CREDENTIALS"
        );
        assert_eq!(
            lines[1],
            "⚡ groq           llama-3.3-70b-versatile  GROQ_API_KEY ← in use"
        );
        assert!(lines[2].starts_with("🔮 openai-compat  qwen/qwen3-32b           not set up:"));
        assert!(lines[3].starts_with(&" ".repeat(43)), "{:?}", lines[3]);
        for line in &lines {
            assert!(width(line) <= LINE, "{line}");
        }
        let narrow = providers(&rows, true, 45);
        for line in narrow.lines() {
            assert!(width(line) <= 45, "{line}");
        }
        assert!(
            narrow.starts_with(
                "⚡ groq           llama-3.3-70b-versatile\n   GROQ_API_KEY ← in use\n"
            ),
            "{narrow}"
        );
        let ascii = providers(&rows, false, LINE);
        assert!(ascii.is_ascii(), "{ascii}");
        assert!(
            ascii.contains("   groq           llama-3.3-70b-versatile  GROQ_API_KEY <- in use"),
            "{ascii}"
        );
    }
}
