//! A question's `media`: pictures, tables, charts, Mermaid diagrams and HTML shown with it,
//! one object or a list, each kind's required fields checked. Nothing is fetched from
//! elsewhere: a picture is a file on this machine (served by the form) or a data URI, a chart
//! is drawn by the page itself, a diagram is shown as its source.

use serde::Serialize;
use serde_json::{Map, Value};

use super::content::optional_string;

/// One item of `media`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Media {
    #[serde(flatten)]
    pub body: MediaBody,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
    pub position: Position,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum MediaBody {
    /// `src`: a path on this machine, a `data:image/…` URI, or an http(s) address (shown as
    /// a link: the page loads nothing from elsewhere).
    Image {
        src: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        alt: Option<String>,
    },
    Table {
        table: Table,
    },
    Chart {
        chart: Chart,
    },
    /// A diagram's Mermaid source, shown as text.
    Mermaid {
        mermaid: String,
    },
    /// HTML, shown with only harmless elements kept.
    Html {
        html: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Rows to mark, counted from 0.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub highlights: Vec<usize>,
}

/// A Chart.js-style chart: its type and its data (labels and datasets of numbers).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chart {
    #[serde(rename = "type")]
    pub kind: String,
    pub labels: Vec<String>,
    pub datasets: Vec<Dataset>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dataset {
    pub label: String,
    /// `None` where the data has a gap (`null`).
    pub data: Vec<Option<f64>>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Position {
    #[default]
    Above,
    Below,
    /// Beside the question, on a wide page.
    Side,
}

impl MediaBody {
    pub const KINDS: &str = "image, table, chart, mermaid, html";
}

/// Reads `media`: one object or a list of them (`field` is e.g. `Question "a": media`).
pub fn parse_all(value: &Value, field: &str) -> Result<Vec<Media>, String> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| parse(item, &format!("{field}[{i}]")))
            .collect(),
        Value::Object(_) => Ok(vec![parse(value, field)?]),
        other => Err(format!(
            "{field}: must be an object (or a list of them) with a \"type\", got {other}."
        )),
    }
}

fn parse(value: &Value, field: &str) -> Result<Media, String> {
    let object = value
        .as_object()
        .ok_or_else(|| format!("{field}: must be an object with a \"type\", got {value}."))?;
    let text = |key: &str| optional_string(object, key, field);
    let body = match object.get("type").and_then(Value::as_str) {
        Some("image") => MediaBody::Image {
            src: required_string(object, "src", field)?,
            alt: text("alt")?,
        },
        Some("table") => MediaBody::Table {
            table: parse_table(object.get("table"), &format!("{field}.table"))?,
        },
        Some("chart") => MediaBody::Chart {
            chart: parse_chart(object.get("chart"), &format!("{field}.chart"))?,
        },
        Some("mermaid") => MediaBody::Mermaid {
            mermaid: required_string(object, "mermaid", field)?,
        },
        Some("html") => MediaBody::Html {
            html: required_string(object, "html", field)?,
        },
        _ => {
            return Err(format!(
                "{field}.type: must be one of {}.",
                MediaBody::KINDS
            ));
        }
    };
    let position = match object.get("position").and_then(Value::as_str) {
        None if object.get("position").is_none_or(Value::is_null) => Position::Above,
        Some("above") => Position::Above,
        Some("below") => Position::Below,
        Some("side") => Position::Side,
        _ => {
            return Err(format!(
                "{field}.position: must be one of above, below, side."
            ));
        }
    };
    Ok(Media {
        body,
        caption: text("caption")?,
        position,
    })
}

fn required_string(object: &Map<String, Value>, key: &str, field: &str) -> Result<String, String> {
    match object.get(key) {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.clone()),
        _ => Err(format!("{field}.{key}: required, as a non-empty string.")),
    }
}

/// A cell as text: strings as they are, numbers and booleans written out.
fn cell(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        _ => None,
    }
}

fn parse_table(value: Option<&Value>, field: &str) -> Result<Table, String> {
    let Some(Value::Object(table)) = value else {
        return Err(format!("{field}: required, as {{headers, rows}}."));
    };
    let headers = match table.get("headers") {
        Some(Value::Array(items)) => items.iter().map(cell).collect::<Option<Vec<_>>>(),
        _ => None,
    }
    .ok_or_else(|| format!("{field}.headers: must be an array of column names."))?;
    let Some(Value::Array(raw_rows)) = table.get("rows") else {
        return Err(format!("{field}.rows: must be an array of rows."));
    };
    let mut rows = Vec::new();
    for (r, row) in raw_rows.iter().enumerate() {
        let cells = match row {
            Value::Array(items) => items.iter().map(cell).collect::<Option<Vec<_>>>(),
            _ => None,
        }
        .ok_or_else(|| format!("{field}.rows[{r}]: must be an array of text or numbers."))?;
        rows.push(cells);
    }
    let highlights = match table.get("highlights") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_u64().map(|n| n as usize).filter(|n| *n < rows.len()))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                format!(
                    "{field}.highlights: must be row numbers from 0 to {}.",
                    rows.len().saturating_sub(1)
                )
            })?,
        Some(_) => {
            return Err(format!(
                "{field}.highlights: must be an array of row numbers."
            ));
        }
    };
    Ok(Table {
        headers,
        rows,
        highlights,
    })
}

fn parse_chart(value: Option<&Value>, field: &str) -> Result<Chart, String> {
    let Some(Value::Object(chart)) = value else {
        return Err(format!("{field}: required, as {{type, data}}."));
    };
    let kind = match chart.get("type") {
        Some(Value::String(kind)) if !kind.trim().is_empty() => kind.trim().to_string(),
        _ => return Err(format!("{field}.type: must be a string such as \"bar\".")),
    };
    let Some(Value::Object(data)) = chart.get("data") else {
        return Err(format!(
            "{field}.data: must be an object with labels and datasets."
        ));
    };
    let mut labels = match data.get("labels") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(cell)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("{field}.data.labels: must be an array of text."))?,
        Some(_) => return Err(format!("{field}.data.labels: must be an array of text.")),
    };
    let raw = match data.get("datasets") {
        None | Some(Value::Null) => &Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(format!("{field}.data.datasets: must be an array.")),
    };
    let mut datasets = Vec::new();
    for (d, set) in raw.iter().enumerate() {
        let at = format!("{field}.data.datasets[{d}]");
        datasets.push(parse_dataset(set, &at, d, &mut labels)?);
    }
    Ok(Chart {
        kind,
        labels,
        datasets,
    })
}

/// One dataset: numbers (or `null` for a gap), or `{x, y}` points whose `x` names the label
/// when the chart has none.
fn parse_dataset(
    set: &Value,
    at: &str,
    index: usize,
    labels: &mut Vec<String>,
) -> Result<Dataset, String> {
    let Some(object) = set.as_object() else {
        return Err(format!("{at}: must be an object with \"data\"."));
    };
    let label = match object.get("label") {
        Some(Value::String(label)) => label.clone(),
        _ => format!("Series {}", index + 1),
    };
    let Some(Value::Array(points)) = object.get("data") else {
        return Err(format!("{at}.data: must be an array of numbers."));
    };
    let name_points = labels.is_empty();
    let mut data = Vec::new();
    for (p, point) in points.iter().enumerate() {
        let value = match point {
            Value::Null => None,
            Value::Number(n) => n.as_f64(),
            Value::Object(xy) => {
                if name_points && index == 0 {
                    labels.push(xy.get("x").and_then(cell).unwrap_or_default());
                }
                xy.get("y").and_then(Value::as_f64)
            }
            _ => return Err(format!("{at}.data[{p}]: must be a number.")),
        };
        data.push(value);
    }
    Ok(Dataset { label, data })
}
