//! A question's (or an option's) `content` block: code, a diff or Markdown shown with it
//! (`source`, `lang`, `file`, `lines`, `highlights`, `title`, `showSource`), and the legacy
//! `codeBlock` form (`code` for `source`), read as the same block.

use serde::Serialize;
use serde_json::{Map, Value};

/// A block of text shown with a question.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Content {
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// The file it comes from, shown in its header.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The lines of that file it shows: the first and the last (code only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<(u32, u32)>,
    /// Lines to mark, counted from 1 within `source` (code only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub highlights: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Markdown only: show the source instead of the rendered text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub show_source: Option<bool>,
}

impl Content {
    /// Whether `lang` says Markdown (rendered unless `showSource`).
    pub fn is_markdown(&self) -> bool {
        matches!(self.lang.as_deref(), Some("md" | "markdown"))
    }

    /// The number of the first line shown (from `lines`, else 1).
    pub fn first_line(&self) -> u32 {
        self.lines.map_or(1, |(first, _)| first)
    }
}

/// Reads the `content` block at `field` (e.g. `Question "a": content`); `legacy` reads a
/// `codeBlock`, whose text is in `code`.
pub fn parse(value: &Value, field: &str, legacy: bool) -> Result<Content, String> {
    let object = value
        .as_object()
        .ok_or_else(|| format!("{field}: expected an object with \"source\", got {value}."))?;
    let text_key = if legacy { "code" } else { "source" };
    let source = match object.get(text_key) {
        Some(Value::String(source)) => source.clone(),
        _ => return Err(format!("{field}.{text_key}: must be a string.")),
    };
    let text = |key: &str| optional_string(object, key, field);
    let mut content = Content {
        source,
        lang: text("lang")?,
        file: text("file")?,
        lines: None,
        highlights: Vec::new(),
        title: text("title")?,
        show_source: match object.get("showSource") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(show)) => Some(*show),
            Some(other) => {
                return Err(format!(
                    "{field}.showSource: expected true or false, got {other}."
                ));
            }
        },
    };
    if let Some(lang) = &mut content.lang {
        *lang = lang.trim().to_ascii_lowercase();
    }
    content.lines = parse_lines(object.get("lines"), field)?;
    content.highlights = parse_highlights(object.get("highlights"), field, &content.source)?;
    check_markdown_rules(&content, field)?;
    Ok(content)
}

/// `object[key]` when it is a string; none when it is missing or null; else an error naming
/// `field.key`.
pub(super) fn optional_string(
    object: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Option<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(format!("{field}.{key}: must be a string, got {other}.")),
    }
}

/// `"10-12"`, `"10"` or a number: the first and last line shown.
fn parse_lines(value: Option<&Value>, field: &str) -> Result<Option<(u32, u32)>, String> {
    let wrong = || format!("{field}.lines: must be a line range such as \"10-12\".");
    let text = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(text)) => text.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => return Err(wrong()),
    };
    let (first, last) = text.split_once('-').unwrap_or((&text, &text));
    let number = |part: &str| part.trim().parse::<u32>().ok().filter(|n| *n >= 1);
    match (number(first), number(last)) {
        (Some(first), Some(last)) if last >= first => Ok(Some((first, last))),
        _ => Err(wrong()),
    }
}

/// Line numbers within `source`, from 1.
fn parse_highlights(value: Option<&Value>, field: &str, source: &str) -> Result<Vec<u32>, String> {
    let list = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(_) => {
            return Err(format!(
                "{field}.highlights: must be an array of numbers (lines of the source, from 1)."
            ));
        }
    };
    let count = source.lines().count().max(1) as u64;
    let mut lines = Vec::new();
    for item in list {
        let Some(line) = item.as_u64().filter(|n| *n >= 1) else {
            return Err(format!(
                "{field}.highlights: must be an array of numbers (lines of the source, from 1)."
            ));
        };
        if line > count {
            return Err(format!(
                "{field}.highlights: line {line} is past the end of the source ({count} lines)."
            ));
        }
        lines.push(line as u32);
    }
    Ok(lines)
}

/// Markdown is rendered, so it has no line range or highlights; only Markdown may ask for
/// its source to be shown.
fn check_markdown_rules(content: &Content, field: &str) -> Result<(), String> {
    if content.is_markdown() {
        if content.lines.is_some() {
            return Err(format!("{field}.lines: not allowed for markdown content."));
        }
        if !content.highlights.is_empty() {
            return Err(format!(
                "{field}.highlights: not allowed for markdown content."
            ));
        }
    } else if content.show_source.is_some() {
        return Err(format!(
            "{field}.showSource: only valid when lang is \"md\" or \"markdown\"."
        ));
    }
    Ok(())
}
