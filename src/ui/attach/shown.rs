//! What an attached terminal shows of a served session's events: the answer rendered as
//! Markdown as it streams (whole lines at a time, as the external printer prints lines), tool
//! calls as the REPL shows them (`calls`), and questions, approvals and input forms with how
//! to answer them (a questionnaire under a heading of its own); once one is over, the tool's
//! completed view, and whether it was answered elsewhere. Its own lines are wrapped at words
//! to the line's width, an option's description continuing under itself. The questions shown
//! are kept (`Open`), so a typed answer can name them, or not when only one waits, and one to
//! a question that is over is told how it ended.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use super::calls::Calls;
use crate::ui::markdown::Markdown;
use crate::ui::sanitize::sanitize;
use crate::ui::style::Style;
use crate::ui::width::{fit, width, wrap};

/// The questions and approvals shown, by `interactionId`: their events, with `over` set to how
/// each ended once it is over.
pub(super) type Open = Arc<Mutex<BTreeMap<String, Value>>>;

/// The messages this terminal sent whose `user_message` has not come back yet: the prompt
/// shows them as typed, so they are not shown again.
pub(super) type Sent = Arc<Mutex<Vec<String>>>;

/// The answer's text as it streams: rendered (or plain with `--raw`), held until a line ends;
/// the calls under way; the widest line of Marvin's own.
pub(super) struct Shown {
    markdown: Option<Markdown>,
    held: String,
    sent: Sent,
    calls: Calls,
    line: usize,
}

impl Shown {
    /// What a terminal whose lines take `width` columns shows (its own lines at most 79, as
    /// the REPL's), the events up to `replay_end` having happened before it attached.
    pub(super) fn new(style: Style, width: usize, raw: bool, sent: Sent, replay_end: u64) -> Self {
        let line = width.min(79);
        Self {
            markdown: (!raw).then(|| Markdown::new(style, width)),
            held: String::new(),
            sent,
            calls: Calls::new(style, line, replay_end),
            line,
        }
    }

    /// Whether `event` is a message this terminal sent (and shows already).
    fn sent_here(&self, event: &Value) -> bool {
        let content = event["content"].as_str().unwrap_or("").trim();
        let mut sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner);
        let found = sent.iter().position(|s| s.trim() == content);
        found.map(|at| sent.remove(at)).is_some()
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

    /// What `event` shows, after the text it ends; and at the replay's end, the calls still
    /// running.
    pub(super) fn event(&mut self, event: &Value, open: &Open) -> String {
        let shown = self.shown(event, open);
        let running = self.calls.after(event);
        joined(shown, running)
    }

    fn shown(&mut self, event: &Value, open: &Open) -> String {
        let kind = event["type"].as_str().unwrap_or("");
        if kind == "text_delta" {
            return self.text(event["text"].as_str().unwrap_or(""));
        }
        let before = self.finish();
        let shown = match kind {
            "user_message" if self.sent_here(event) => String::new(),
            "tool_call_start" => self.calls.started(event),
            "tool_result" => self.calls.finished(event),
            _ => fit(&describe(event, open, self.line), self.line),
        };
        joined(before, shown)
    }
}

/// Two pieces of what is shown, one under the other; either may be empty.
fn joined(first: String, second: String) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second,
        (false, true) => first,
        (false, false) => format!("{first}\n{second}"),
    }
}

/// One event other than text or a tool call, as lines of at most `line` columns where they
/// can be wrapped well here (an option's description); the others are fitted after.
fn describe(event: &Value, open: &Open, line: usize) -> String {
    let field = |key: &str| sanitize(event[key].as_str().unwrap_or("")).into_owned();
    let lock = || open.lock().unwrap_or_else(PoisonError::into_inner);
    match event["type"].as_str().unwrap_or("") {
        "user_message" => format!("› {}", field("content")),
        "interaction_request" => {
            let named = named_if_not_alone(&mut lock(), &field("interactionId"), event);
            let heading = match event["presentation"] == "questionnaire" {
                true => questionnaire(event, line),
                false => String::new(),
            };
            let asks = asking(event, &named, line);
            format!("{heading}{}{asks}", reprompted(event))
        }
        "interaction_response" => closed(event, &mut lock()),
        "done" => String::new(),
        "error" => format!("  error: {}", field("message")),
        "notice" => format!("  {}", field("message")),
        _ => String::new(),
    }
}

/// What a question asks, and how to answer it here (`named`: its id and a space, when a
/// command must name it).
fn asking(event: &Value, named: &str, line: usize) -> String {
    let field = |key: &str| sanitize(event[key].as_str().unwrap_or("")).into_owned();
    match event["interactionType"].as_str().unwrap_or("") {
        "questions" => question_text(named, &event["questions"], line),
        "approval" => {
            let scopes: Vec<&str> = event["scopes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let scopes = match scopes.is_empty() {
                true => "once|session|always".to_string(),
                false => scopes.join("|"),
            };
            format!(
                "[{}] {}\n{}\n  /approve {named}[{scopes}] or /deny {named}WHAT INSTEAD",
                field("tool"),
                crate::interact::shown_after_tag(&field("tool"), &field("summary")),
                field("detail"),
            )
        }
        "input" => form_text(event, named),
        "form" => format!(
            "[{}] {}\n  Open: {}",
            field("toolName"),
            field("title"),
            field("url")
        ),
        _ => String::new(),
    }
}

/// An input form's fields, one a line with what they take, and how to answer.
fn form_text(event: &Value, named: &str) -> String {
    let tool = sanitize(event["toolName"].as_str().unwrap_or("form")).into_owned();
    let mut lines = match event["presentation"] == "questionnaire" {
        true => Vec::new(),
        false => {
            let prompt = event["prompt"].as_str().filter(|p| !p.is_empty());
            vec![format!(
                "[{tool}] {}",
                sanitize(prompt.unwrap_or("Please fill in:"))
            )]
        }
    };
    match super::request::form(event) {
        Ok(form) => {
            for field in &form.fields {
                let optional = if field.required { "" } else { " (optional)" };
                let takes = match (&field.choices, field.boolean) {
                    (_, true) => Some("yes or no".to_string()),
                    (choices, _) if !choices.is_empty() => {
                        let labels: Vec<&str> = choices.iter().map(|(l, _)| l.as_str()).collect();
                        Some(format!("one of {}", labels.join(", ")))
                    }
                    _ => field.hint(),
                };
                let takes = takes.map(|t| format!(": {t}")).unwrap_or_default();
                let line = format!("{} [{}]{optional}{takes}", field.label, field.key);
                lines.push(format!("  {}", sanitize(&line)));
            }
        }
        Err(why) => lines.push(format!("  (cannot be asked here: {})", sanitize(&why))),
    }
    let here = match named.is_empty() {
        true => "Enter".to_string(),
        false => format!("/answer {}", named.trim_end()),
    };
    lines.push(format!(
        "  {here} fills it in here · /answer {named}FIELD=VALUE, … · /dismiss {named}closes it"
    ));
    lines.join("\n")
}

/// A questionnaire's heading: a block of its own, named by its prompt or who asks (as the
/// REPL names it), underlined as far as it goes, within `line` columns.
fn questionnaire(event: &Value, line: usize) -> String {
    let prompt = event["prompt"].as_str().filter(|p| !p.is_empty());
    let tool = event["toolName"].as_str().unwrap_or("");
    let heading = match (prompt, tool) {
        (Some(prompt), _) => prompt.to_string(),
        // ask_user's questions are the model's own, as the REPL says.
        (None, "" | "ask_user") => "Marvin asks".to_string(),
        (None, tool) => format!("{tool} asks"),
    };
    let heading = sanitize(&heading).into_owned();
    let rule = "─".repeat(width(&heading).min(line).max(3));
    format!("\n{heading}\n{rule}\n")
}

/// How a question ended, marking it over: its completed view (the tool's), with ✓ or ✗, or
/// for a question whose tool left the view as it is, the outcome in brackets; and whether it
/// was answered elsewhere.
fn closed(event: &Value, open: &mut BTreeMap<String, Value>) -> String {
    let id = match &event["interactionId"] {
        Value::String(id) => id.clone(),
        _ => event["id"].to_string(),
    };
    let outcome = sanitize(event["outcome"].as_str().unwrap_or("")).into_owned();
    let Some(shown) = open.get_mut(&id) else {
        return format!("  ({outcome})");
    };
    shown["over"] = Value::String(outcome.clone());
    let what = asked(shown);
    let action = event["action"].as_str().unwrap_or("");
    let by_person =
        matches!(action, "approve" | "deny" | "submit") || outcome.starts_with("dismissed");
    let elsewhere = match by_person && shown["answeredHere"] != true {
        true => " (answered elsewhere)",
        false => "",
    };
    let completed: Vec<String> = event["completed"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|line| line.as_str().map(|l| sanitize(l).into_owned()))
        .collect();
    let plain = shown["completedView"]["summaryTemplate"].is_null()
        && shown["completedView"]["showInputs"] != false
        && shown["interactionType"] != "input";
    if plain || completed.is_empty() {
        return format!("  ({what}{outcome}){elsewhere}");
    }
    let mark = match action {
        "approve" | "submit" => "✓",
        _ => "✗",
    };
    let mut lines = vec![format!("  {mark} {what}{}", completed[0])];
    lines.extend(completed[1..].iter().map(|line| format!("    {line}")));
    if !elsewhere.is_empty() {
        lines.push(format!("   {elsewhere}"));
    }
    lines.join("\n")
}

/// Keeps `event` open as `id`; the id and a space when another of its kind waits too (a command
/// must name it then), else nothing.
fn named_if_not_alone(open: &mut BTreeMap<String, Value>, id: &str, event: &Value) -> String {
    open.insert(id.to_string(), event.clone());
    let others = open
        .iter()
        .filter(|(other, e)| {
            *other != id && e["interactionType"] == event["interactionType"] && e["over"].is_null()
        })
        .count();
    match others {
        0 => String::new(),
        _ => format!("{id} "),
    }
}

/// What a question or approval asked, as its closing line names it: `[Header] `.
fn asked(event: &Value) -> String {
    let name = match event["interactionType"].as_str() {
        Some("approval") => event["tool"].as_str(),
        Some("questions") => event["questions"][0]["header"].as_str(),
        _ => event["toolName"].as_str(),
    };
    name.filter(|n| !n.is_empty())
        .map(|n| format!("[{}] ", sanitize(n)))
        .unwrap_or_default()
}

/// The error a reprompt shows above the question again.
fn reprompted(event: &Value) -> String {
    match event["error"].as_str() {
        Some(error) => format!("  ✗ {}\n", sanitize(error)),
        None => String::new(),
    }
}

/// The questions as the terminal asks them: each option with its description, then "Other",
/// and how to answer (`named`: the question's id and a space, when a command must name it).
fn question_text(named: &str, questions: &Value, line: usize) -> String {
    let mut lines = Vec::new();
    let questions: Vec<&Value> = questions.as_array().into_iter().flatten().collect();
    for question in &questions {
        let text = |key: &str| sanitize(question[key].as_str().unwrap_or("")).into_owned();
        let several = match question["multiSelect"] == true {
            true => " (one or more)",
            false => "",
        };
        lines.push(format!(
            "[{}] {}{several}",
            text("header"),
            text("question")
        ));
        for (n, option) in question["options"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let label = sanitize(option["label"].as_str().unwrap_or("")).into_owned();
            let description = sanitize(option["description"].as_str().unwrap_or("").trim());
            lines.push(option_line(n + 1, &label, &description, line));
        }
        lines.push("  Other: your own words".into());
        if let Some(before) = entered_before(&question["initial"]) {
            lines.push(format!("  (you chose: {})", sanitize(&before)));
        }
    }
    let between = match questions.len() {
        1 => "",
        _ => "; put ; between the answers",
    };
    lines.push(format!(
        "  /answer {named}N (a number, a label, or Other: your own words{between})"
    ));
    lines.join("\n")
}

/// Option `n`, `label — description`, wrapped within `line` columns: the description's later
/// lines start under its first word, or under the label when that would leave less than half
/// the line for them.
fn option_line(n: usize, label: &str, description: &str, line: usize) -> String {
    let number = format!("  {n}. ");
    if description.is_empty() {
        return wrap(&number, label, width(&number), line);
    }
    let first = format!("{number}{label} — ");
    match width(&first) <= line / 2 {
        true => wrap(&first, description, width(&first), line),
        false => wrap(
            &number,
            &format!("{label} — {description}"),
            width(&number),
            line,
        ),
    }
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
        let mut shown = Shown::new(PLAIN, 80, true, Sent::default(), 0);
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
        let mut shown = Shown::new(PLAIN, 80, false, Sent::default(), 0);
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
        let mut shown = Shown::new(PLAIN, 80, true, Sent::default(), 0);
        let questions = json!([{"header": "Db", "question": "Which database?", "multiSelect": false,
            "options": [{"label": "SQLite"}, {"label": "Postgres"}],
            "initial": {"chosen": [], "other": ""}}]);
        let asked = shown.event(
            &json!({"type": "interaction_request", "interactionType": "questions",
                    "interactionId": "4", "toolCallId": "call_1",
                    "error": "Please type an answer", "questions": questions}),
            &open,
        );
        assert!(
            asked.starts_with(
                "  ✗ Please type an answer\n[Db] Which database?\n  1. SQLite\n  2. Postgres\n  Other: your own words\n  (you chose: Other:)"
            ),
            "{asked}"
        );
        assert!(
            asked.ends_with("\n  /answer N (a number, a label, or Other: your own words)"),
            "{asked}"
        );
        assert!(open.lock().unwrap().contains_key("4"));
        // A second waiting question is named, with its description.
        let second = json!({"type": "interaction_request", "interactionType": "questions",
            "interactionId": "5", "questions": [
            {"header": "Port", "question": "Which port?", "multiSelect": true,
             "options": [{"label": "8080", "description": "the usual"}]}]});
        let asked = shown.event(&second, &open);
        assert_eq!(
            asked,
            "[Port] Which port? (one or more)\n  1. 8080 — the usual\n  Other: your own words\n  /answer 5 N (a number, a label, or Other: your own words)"
        );
        let over = json!({"type": "interaction_response", "id": 4, "outcome": "answered: SQLite"});
        assert_eq!(shown.event(&over, &open), "  ([Db] answered: SQLite)");
        assert_eq!(open.lock().unwrap()["4"]["over"], "answered: SQLite");
    }

    #[test]
    fn a_message_sent_from_here_is_not_shown_again_but_another_client_s_is() {
        let open: Open = Arc::default();
        let sent = Sent::default();
        let mut shown = Shown::new(PLAIN, 80, true, Arc::clone(&sent), 0);
        sent.lock().unwrap().push("hello".into());
        let said = |content: &str| json!({"type": "user_message", "content": content});
        assert_eq!(shown.event(&said("hello"), &open), "");
        assert_eq!(shown.event(&said("hello"), &open), "› hello");
        assert!(sent.lock().unwrap().is_empty());
    }

    #[test]
    fn an_input_form_lists_its_fields_and_its_completed_view_replaces_it() {
        let open: Open = Arc::default();
        let mut shown = Shown::new(PLAIN, 80, true, Sent::default(), 0);
        let form = json!({"type": "interaction_request", "interactionType": "input",
            "interactionId": "6", "toolName": "deploy", "prompt": "Where should it listen?",
            "completedView": {"showInputs": true, "summaryTemplate": null},
            "inputSchema": {"type": "form", "fields": [
                {"id": "port", "type": "integer", "label": "Port", "required": true,
                 "minimum": 1, "maximum": 65535},
                {"id": "tls", "type": "boolean", "label": "TLS", "required": false},
                {"id": "zone", "type": "select", "label": "Zone", "required": true,
                 "options": [{"value": "eu", "label": "Europe"}, {"value": "us", "label": "America"}]}]}});
        assert_eq!(
            shown.event(&form, &open),
            "[deploy] Where should it listen?\n  Port [port]: A whole number from 1 to 65535.\n  TLS [tls] (optional): yes or no\n  Zone [zone]: one of Europe, America\n  Enter fills it in here · /answer FIELD=VALUE, … · /dismiss closes it"
        );
        let answered = json!({"type": "interaction_response", "id": 6, "interactionId": "6",
            "outcome": "submitted: port: 8080", "action": "submit",
            "completed": ["Port: 8080", "Zone: Europe"]});
        assert_eq!(
            shown.event(&answered, &open),
            "  ✓ [deploy] Port: 8080\n    Zone: Europe\n    (answered elsewhere)"
        );
        // Answered here: not said to be elsewhere; a plain question keeps its one line.
        open.lock().unwrap().get_mut("6").unwrap()["answeredHere"] = json!(true);
        assert_eq!(
            shown.event(&answered, &open),
            "  ✓ [deploy] Port: 8080\n    Zone: Europe"
        );
        let asked = json!({"type": "interaction_request", "interactionType": "questions",
            "interactionId": "8", "questions": [{"header": "Db", "question": "Which?",
            "options": [{"label": "A"}]}]});
        shown.event(&asked, &open);
        let closed = json!({"type": "interaction_response", "id": 8, "interactionId": "8",
            "outcome": "answered: A", "action": "submit", "completed": ["Which?: A"]});
        assert_eq!(
            shown.event(&closed, &open),
            "  ([Db] answered: A) (answered elsewhere)"
        );
    }

    #[test]
    fn its_own_lines_wrap_at_words_within_the_width_and_a_description_under_itself() {
        let open: Open = Arc::default();
        let mut shown = Shown::new(PLAIN, 49, true, Sent::default(), 0);
        let description = "a server of its own, which takes more setting up but lets many \
                           programs write at once";
        let asked = json!({"type": "interaction_request", "interactionType": "questions",
            "interactionId": "4", "questions": [{"header": "Database",
            "question": "Which database should the service keep its orders in?",
            "options": [{"label": "SQLite", "description": "one file"},
                        {"label": "PostgreSQL", "description": description}]}]});
        let notice = json!({"type": "notice", "message": "The model's answer was cut off at \
            the length limit; ask it to go on where it stopped."});
        let shown = [shown.event(&asked, &open), shown.event(&notice, &open)].join("\n");
        let lines: Vec<&str> = shown.lines().collect();
        assert!(lines.iter().all(|l| width(l) <= 49), "{shown}");
        let lead = "  2. PostgreSQL — ";
        let first = lines.iter().position(|l| l.starts_with(lead)).unwrap();
        let column = width(lead);
        let rest: Vec<&str> = lines[first + 1..]
            .iter()
            .take_while(|l| l.starts_with(&" ".repeat(column)))
            .map(|l| l.trim())
            .collect();
        assert!(!rest.is_empty(), "{shown}");
        let said = format!("{} {}", &lines[first][lead.len()..], rest.join(" "));
        assert_eq!(said, description, "{shown}");
        assert!(shown.contains("\n  Other: your own words\n"), "{shown}");
        // A label too long for its description to start at half the line: under the label.
        let long = option_line(2, &"PostgreSQL ".repeat(3), description, 49);
        assert!(
            long.lines()
                .skip(1)
                .all(|l| l.starts_with("     ") && !l.starts_with("      ")),
            "{long}"
        );
    }
}
