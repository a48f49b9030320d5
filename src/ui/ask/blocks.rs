//! What an interview question shows besides its text, as plain text that fits the terminal:
//! code blocks with their line numbers and marked lines, Markdown as written, tables in
//! aligned columns (or one cell a line when they are too wide), a chart's numbers as a table,
//! pictures as their paths, Mermaid as its source and HTML as its text. Nothing the page shows
//! is lost over SSH.

use super::{Asker, layout};
use crate::interact::form::content::Content;
use crate::interact::form::media::{Chart, Media, MediaBody, Table};
use crate::interact::form::questions::FormQuestion;
use crate::ui::sanitize::sanitize;

/// Where blocks start: under the question's text.
const INDENT: &str = "    ";

impl Asker<'_> {
    /// The question's media and content block, then the content of its options.
    pub(super) fn blocks(&mut self, question: &FormQuestion) {
        for item in &question.media {
            self.media(item);
        }
        if let Some(content) = &question.content {
            self.content(content, "");
        }
        for option in &question.options {
            if let Some(content) = &option.content {
                self.content(content, &format!("Option \"{}\"", option.label));
            }
        }
    }

    fn media(&mut self, item: &Media) {
        match &item.body {
            MediaBody::Image { src, alt } => {
                let said = match src.as_str() {
                    s if s.starts_with("data:") => "Picture: shown in the page only".to_string(),
                    s => format!("Picture: {s}"),
                };
                let alt = alt
                    .as_deref()
                    .map(|a| format!(" ({a})"))
                    .unwrap_or_default();
                self.block_note(&format!("{said}{alt}"));
            }
            MediaBody::Table { table } => self.table(table),
            MediaBody::Chart { chart } => self.chart(chart),
            MediaBody::Mermaid { mermaid } => {
                self.block_note("Mermaid diagram, as its source:");
                self.code_rows(mermaid, None, &[]);
            }
            MediaBody::Html { html } => {
                for paragraph in html_text(html).split("\n\n") {
                    self.block_note(paragraph);
                }
            }
        }
        if let Some(caption) = &item.caption {
            self.block_note(caption);
        }
    }

    /// A content block: a header (`label`, title, file and lines, language), then the source.
    fn content(&mut self, content: &Content, label: &str) {
        let lines = content.lines.map(|(a, b)| format!(":{a}-{b}"));
        let file = content
            .file
            .as_ref()
            .map(|f| format!("{f}{}", lines.unwrap_or_default()));
        let head: Vec<&str> = [Some(label), content.title.as_deref(), file.as_deref()]
            .into_iter()
            .flatten()
            .filter(|part| !part.is_empty())
            .collect();
        let lang = content.lang.as_deref().unwrap_or("");
        let head = match (head.is_empty(), lang.is_empty()) {
            (true, true) => String::new(),
            (true, false) => lang.to_string(),
            (false, true) => head.join(" · "),
            (false, false) => format!("{} ({lang})", head.join(" · ")),
        };
        if !head.is_empty() {
            self.block_note(&head);
        }
        let numbered = !content.is_markdown() || content.show_source == Some(true);
        let first = numbered.then(|| content.first_line());
        self.code_rows(&content.source, first, &content.highlights);
    }

    /// Source lines behind a bar; numbered from `first` when given, the `marked` ones (from
    /// 1) pointed at. Long lines are broken, every character kept.
    fn code_rows(&mut self, source: &str, first: Option<u32>, marked: &[u32]) {
        let style = self.style;
        let count = source.lines().count().max(1) as u32;
        let digits = first.map_or(0, |f| (f + count - 1).to_string().len());
        let bar = style.glyph("│", "|");
        for (i, line) in source.split('\n').enumerate() {
            let n = i as u32 + 1;
            let mark = match marked.contains(&n) {
                true => style.glyph("›", ">"),
                false => " ",
            };
            let number = first.map_or(String::new(), |f| format!("{:>digits$} ", f + n - 1));
            let lead = format!("{INDENT}{bar}{mark}{number}");
            let room = layout::columns()
                .saturating_sub(layout::width(&lead))
                .max(10);
            let clean = sanitize(line);
            for (r, row) in layout::wrap_exact(&clean, room).into_iter().enumerate() {
                let gutter = match r {
                    0 => style.dim(&lead),
                    _ => style.dim(&format!("{INDENT}{bar} {}", " ".repeat(number.len()))),
                };
                let row = match mark {
                    " " => row,
                    _ => style.bold(&row),
                };
                self.line(&format!("{gutter}{row}"));
            }
        }
    }

    /// A dim line under the question, wrapped.
    fn block_note(&mut self, text: &str) {
        let style = self.style;
        self.hang(INDENT, INDENT, &sanitize(text), |row| style.dim(row));
    }

    fn table(&mut self, table: &Table) {
        self.grid(&table.headers, &table.rows, &table.highlights);
    }

    /// A chart as its numbers: one row per label, one column per dataset.
    fn chart(&mut self, chart: &Chart) {
        self.block_note(&format!(
            "{} chart, as its numbers:",
            capitalised(&chart.kind)
        ));
        let count = chart
            .datasets
            .iter()
            .map(|set| set.data.len())
            .max()
            .unwrap_or(0)
            .max(chart.labels.len());
        let mut headers = vec![String::new()];
        headers.extend(chart.datasets.iter().map(|set| set.label.clone()));
        let rows: Vec<Vec<String>> = (0..count)
            .map(|i| {
                let label = chart.labels.get(i).cloned().unwrap_or((i + 1).to_string());
                let mut row = vec![label];
                row.extend(chart.datasets.iter().map(|set| {
                    set.data
                        .get(i)
                        .copied()
                        .flatten()
                        .map(number)
                        .unwrap_or_default()
                }));
                row
            })
            .collect();
        self.grid(&headers, &rows, &[]);
    }

    /// Rows in aligned columns when they fit the terminal, else each row as `header: cell`
    /// lines; `marked` rows (from 0) pointed at.
    fn grid(&mut self, headers: &[String], rows: &[Vec<String>], marked: &[usize]) {
        let clean = |cells: &[String]| -> Vec<String> {
            cells
                .iter()
                .map(|c| sanitize(c).replace('\n', " "))
                .collect()
        };
        let headers = clean(headers);
        let rows: Vec<Vec<String>> = rows.iter().map(|row| clean(row)).collect();
        let columns = rows
            .iter()
            .map(Vec::len)
            .chain([headers.len()])
            .max()
            .unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                rows.iter()
                    .chain([&headers])
                    .filter_map(|row| row.get(c))
                    .map(|cell| layout::width(cell))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let total = INDENT.len() + 2 + widths.iter().sum::<usize>() + 2 * columns.saturating_sub(1);
        if total > layout::columns() {
            return self.grid_as_list(&headers, &rows, marked);
        }
        let style = self.style;
        let pad = |cells: &[String]| -> String {
            let padded: Vec<String> = (0..columns)
                .map(|c| {
                    let cell = cells.get(c).map_or("", String::as_str);
                    format!("{cell}{}", " ".repeat(widths[c] - layout::width(cell)))
                })
                .collect();
            padded.join("  ").trim_end().to_string()
        };
        if headers.iter().any(|h| !h.is_empty()) {
            self.line(&format!("{INDENT}  {}", style.bold(&pad(&headers))));
            let rule = style.glyph("─", "-").repeat(total - INDENT.len() - 2);
            self.line(&format!("{INDENT}  {}", style.dim(&rule)));
        }
        for (r, row) in rows.iter().enumerate() {
            match marked.contains(&r) {
                true => self.line(&format!(
                    "{INDENT}{} {}",
                    style.glyph("›", ">"),
                    style.bold(&pad(row))
                )),
                false => self.line(&format!("{INDENT}  {}", pad(row))),
            }
        }
    }

    fn grid_as_list(&mut self, headers: &[String], rows: &[Vec<String>], marked: &[usize]) {
        let style = self.style;
        for (r, row) in rows.iter().enumerate() {
            let mark = match marked.contains(&r) {
                true => style.glyph("›", ">"),
                false => " ",
            };
            for (c, cell) in row.iter().enumerate() {
                let name = headers.get(c).filter(|h| !h.is_empty());
                let text = match name {
                    Some(name) => format!("{name}: {cell}"),
                    None => cell.clone(),
                };
                let lead = match c {
                    0 => format!("{INDENT}{mark} "),
                    _ => format!("{INDENT}    "),
                };
                self.hang(&lead, &lead, &text, |row| row.to_string());
            }
        }
    }
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "A".into(),
    }
}

/// A number as a person writes it: no `.0` on whole numbers.
fn number(value: f64) -> String {
    match value.fract() == 0.0 && value.abs() < 1e15 {
        true => format!("{}", value as i64),
        false => format!("{}", (value * 1000.0).round() / 1000.0),
    }
}

/// The text of some HTML: tags dropped (a block's end a paragraph break), the common entities
/// read, runs of spaces made one.
fn html_text(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            rest = "";
            break;
        };
        let inside = rest[open + 1..open + close].to_ascii_lowercase();
        let tag = inside.trim_start_matches('/');
        let name: String = tag
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        if !inside.starts_with('/') && matches!(name.as_str(), "script" | "style") {
            // What a script or a style says is not text.
            let end = rest.to_ascii_lowercase()[open..]
                .find(&format!("</{name}"))
                .map_or(rest.len(), |at| open + at);
            rest = &rest[end..];
            continue;
        }
        if [
            "p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol",
        ]
        .contains(&name.as_str())
        {
            out.push_str("\n\n");
        } else if matches!(name.as_str(), "td" | "th") {
            out.push(' ');
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    let decoded = out
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    decoded
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_its_text() {
        let cases = [
            ("<p>Hello <b>there</b></p><p>Two</p>", "Hello there\n\nTwo"),
            (
                "<script>alert(1)</script>a &amp; b<style>p{}</style>",
                "a & b",
            ),
            ("<table><tr><th>A</th><td>1</td></tr></table>", "A 1"),
            ("plain", "plain"),
            ("<ul><li>one</li><li>two</li></ul>", "one\n\ntwo"),
        ];
        for (html, text) in cases {
            assert_eq!(html_text(html), text, "{html}");
        }
        assert_eq!(number(3.0), "3");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(1.0 / 3.0), "0.333");
        assert_eq!(capitalised("bar"), "Bar");
    }
}
