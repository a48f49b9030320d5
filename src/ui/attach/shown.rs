//! What an attached terminal shows of a served session's events: the answer rendered as
//! Markdown as it streams (whole lines at a time, as the external printer prints lines), tool
//! calls as one line each, and questions and approvals with how to answer them. The questions
//! shown are kept (`Open`), so a typed answer can name them, or not when only one waits, and
//! one to a question that is over is told how it ended.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use crate::ui::markdown::Markdown;
use crate::ui::sanitize::sanitize;
use crate::ui::style::Style;

/// The questions and approvals shown, by `interactionId`: their events, with `over` set to how
/// each ended once it is over.
pub(super) type Open = Arc<Mutex<BTreeMap<String, Value>>>;

/// The answer's text as it streams: rendered (or plain with `--raw`), held until a line ends.
pub(super) struct Shown {
    markdown: Option<Markdown>,
    held: String,
}

impl Shown {
    pub(super) fn new(style: Style, width: usize, raw: bool) -> Self {
        Self {
            markdown: (!raw).then(|| Markdown::new(style, width)),
            held: String::new(),
        }
    }

    /// Takes streamed text; returns the lines it completed.
    fn text(&mut self, text: &str) -> String {
        match &mut self.markdown {
            Some(markdown) => self.held.push_str(&markdown.push(text)),
            None => self.held.push_str(&sanitize(text)),
        }
        match self.held.rfind('\n') {
            Some(end) => {
                let lines: String = self.held.drain(..=end).collect();
                lines.trim_end_matches('\n').to_string()
            }
            None => String::new(),
        }
    }

    /// The text ended (a tool round, a question, the turn's end): all of it that is held.
    fn finish(&mut self) -> String {
        if let Some(markdown) = &mut self.markdown {
            self.held.push_str(&markdown.finish());
        }
        std::mem::take(&mut self.held)
            .trim_end_matches('\n')
            .to_string()
    }

    /// What `event` shows, after the text it ends.
    pub(super) fn event(&mut self, event: &Value, open: &Open) -> String {
        let kind = event["type"].as_str().unwrap_or("");
        if kind == "text_delta" {
            return self.text(event["text"].as_str().unwrap_or(""));
        }
        let before = self.finish();
        let shown = describe(event, open);
        match (before.is_empty(), shown.is_empty()) {
            (true, _) => shown,
            (false, true) => before,
            (false, false) => format!("{before}\n{shown}"),
        }
    }
}

/// One event other than text, as lines.
fn describe(event: &Value, open: &Open) -> String {
    let field = |key: &str| sanitize(event[key].as_str().unwrap_or("")).into_owned();
    let lock = || open.lock().unwrap_or_else(PoisonError::into_inner);
    let id = field("interactionId");
    match event["type"].as_str().unwrap_or("") {
        "user_message" => format!("› {}", field("content")),
        "tool_call_start" => {
            let names: Vec<&str> = event["calls"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["name"].as_str())
                .collect();
            format!("  … {}", sanitize(&names.join(", ")))
        }
        "tool_result" => {
            // A call the ticket gate turned back is a step, not a failure.
            let mark = if event["turned_back"] == true {
                "·"
            } else if event["is_error"] == true {
                "✗"
            } else {
                "✓"
            };
            format!("  {mark} {}", field("name"))
        }
        "question_prompt" => {
            lock().insert(id.clone(), event.clone());
            let error = reprompted(event);
            format!("{error}{}", question_text(&id, &event["questions"]))
        }
        "approval_required" => {
            lock().insert(id.clone(), event.clone());
            format!(
                "{}[{}] {}\n{}\n  /approve {id} [once|session|always] or /deny {id} WHAT INSTEAD",
                reprompted(event),
                field("tool"),
                field("summary"),
                field("detail"),
            )
        }
        "interaction_response" => {
            let id = event["id"].to_string();
            if let Some(shown) = lock().get_mut(&id) {
                shown["over"] = Value::String(field("outcome"));
            }
            format!("  (question {id} is over: {})", field("outcome"))
        }
        "done" => String::new(),
        "error" => format!("  error: {}", field("message")),
        "notice" => format!("  {}", field("message")),
        _ => String::new(),
    }
}

/// The error a reprompt shows above the question again.
fn reprompted(event: &Value) -> String {
    match event["error"].as_str() {
        Some(error) => format!("  ✗ {}\n", sanitize(error)),
        None => String::new(),
    }
}

fn question_text(id: &str, questions: &Value) -> String {
    let mut lines = Vec::new();
    for question in questions.as_array().into_iter().flatten() {
        let text = |key: &str| sanitize(question[key].as_str().unwrap_or("")).into_owned();
        lines.push(format!("[{}] {}", text("header"), text("question")));
        for (n, option) in question["options"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let label = sanitize(option["label"].as_str().unwrap_or("")).into_owned();
            lines.push(format!("  {}. {label}", n + 1));
        }
        if let Some(before) = entered_before(&question["initial"]) {
            lines.push(format!("  (you chose: {})", sanitize(&before)));
        }
    }
    lines.push(format!(
        "  /answer {id} N (a number, a label or your own words; ; between several answers)"
    ));
    lines.join("\n")
}

/// A reprompt's `initial`: what was chosen last time, in words.
fn entered_before(initial: &Value) -> Option<String> {
    let mut chosen: Vec<String> = initial["chosen"]
        .as_array()?
        .iter()
        .filter_map(|l| l.as_str().map(str::to_string))
        .collect();
    if let Some(other) = initial["other"].as_str() {
        chosen.push(format!("Other: {other}").trim_end().to_string());
    }
    Some(chosen.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PLAIN: Style = Style::PLAIN;

    #[test]
    fn text_comes_a_line_at_a_time_and_other_events_end_it() {
        let open: Open = Arc::default();
        let mut shown = Shown::new(PLAIN, 80, true);
        let text = |t: &str| json!({"type": "text_delta", "text": t});
        assert_eq!(shown.event(&text("Hello "), &open), "");
        assert_eq!(shown.event(&text("world\nmore"), &open), "Hello world");
        let round = json!({"type": "tool_call_start", "calls": [{"name": "read_file"}]});
        assert_eq!(shown.event(&round, &open), "more\n  … read_file");
        assert_eq!(shown.event(&json!({"type": "done"}), &open), "");
    }

    #[test]
    fn markdown_is_rendered_as_in_the_repl() {
        let open: Open = Arc::default();
        let mut shown = Shown::new(PLAIN, 80, false);
        let out = shown.event(
            &json!({"type": "text_delta", "text": "# Title\nSome **bold** text\n"}),
            &open,
        );
        assert!(!out.contains("**") && !out.contains("# "), "{out}");
        assert!(
            out.contains("Title") && out.contains("Some bold text"),
            "{out}"
        );
    }

    #[test]
    fn a_question_is_kept_until_it_is_over_and_a_reprompt_shows_its_error() {
        let open: Open = Arc::default();
        let mut shown = Shown::new(PLAIN, 80, true);
        let questions = json!([{"header": "Db", "question": "Which database?", "multiSelect": false,
            "options": [{"label": "SQLite"}, {"label": "Postgres"}],
            "initial": {"chosen": [], "other": ""}}]);
        let asked = shown.event(
            &json!({"type": "question_prompt", "interactionId": "4", "toolCallId": "call_1",
                    "error": "Please type an answer", "questions": questions}),
            &open,
        );
        assert!(
            asked.starts_with(
                "  ✗ Please type an answer\n[Db] Which database?\n  1. SQLite\n  2. Postgres\n  (you chose: Other:)"
            ),
            "{asked}"
        );
        assert!(asked.contains("/answer 4 N"), "{asked}");
        assert!(open.lock().unwrap().contains_key("4"));
        let over = json!({"type": "interaction_response", "id": 4, "outcome": "answered: SQLite"});
        assert_eq!(
            shown.event(&over, &open),
            "  (question 4 is over: answered: SQLite)"
        );
        assert_eq!(open.lock().unwrap()["4"]["over"], "answered: SQLite");
    }
}
