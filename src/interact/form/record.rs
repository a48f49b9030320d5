//! What the chat log keeps of an interview, readable and without the form's address or token:
//! the questions when it opens, and the answers given in the browser when the tool returns
//! (answers given in the terminal are logged as they are taken).

use serde_json::Value;

use super::questions::{Interview, Kind};

/// One line for the questions: `interview "Title" asked: db (single: SQLite | PostgreSQL)
/// Which database?; name (text) Name?`.
pub fn asked(interview: &Interview) -> String {
    let questions: Vec<String> = interview
        .questions
        .iter()
        .map(|q| {
            let options: Vec<&str> = q.options.iter().map(|o| o.label.as_str()).collect();
            let kind = match options.is_empty() {
                true => q.kind.name().to_string(),
                false => format!("{}: {}", q.kind.name(), options.join(" | ")),
            };
            let optional = match q.optional && q.kind != Kind::Info {
                true => ", optional",
                false => "",
            };
            format!("{} ({kind}{optional}) {}", q.id, q.question)
        })
        .collect();
    let title = interview
        .title
        .as_deref()
        .unwrap_or("Marvin has some questions");
    format!("interview \"{title}\" asked: {}", questions.join("; "))
}

/// For the `interview` tool's result `content`, when it was answered or cancelled in the
/// browser: `interview answered in the browser: db: PostgreSQL; name: ledger`.
pub fn of_result(tool: &str, content: &str) -> Option<String> {
    if tool != "interview" {
        return None;
    }
    let details: Value = content
        .lines()
        .filter(|line| line.starts_with('{'))
        .find_map(|line| serde_json::from_str(line).ok())?;
    if details.get("answered_in").and_then(Value::as_str) != Some("browser") {
        return None;
    }
    match details.get("status").and_then(Value::as_str)? {
        "cancelled" => Some("interview cancelled in the browser".into()),
        "completed" => {
            let responses = content.split_once("Responses:\n")?.1;
            let lines: Vec<String> = responses
                .split("\n\n")
                .next()?
                .lines()
                .map(|line| match line.strip_prefix("- ") {
                    Some(answer) => format!("; {answer}"),
                    None => format!(" {}", line.trim()),
                })
                .collect();
            let joined = lines.concat();
            Some(format!(
                "interview answered in the browser: {}",
                joined.trim_start_matches("; ")
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::form::answers::{Reply, ReplyValue, Status, result_text};
    use crate::interact::form::questions::parse;
    use serde_json::json;

    #[test]
    fn the_log_reads_the_questions_and_the_browsers_answers_without_the_address() {
        let interview = parse(&json!({"title": "Setup", "questions": [
            {"id": "intro", "type": "info", "question": "Hello."},
            {"id": "db", "type": "single", "question": "Which?", "options": ["SQLite", "PostgreSQL"]},
            {"id": "notes", "type": "text", "question": "Notes?", "optional": true}]}))
        .unwrap();
        assert_eq!(
            asked(&interview),
            "interview \"Setup\" asked: intro (info) Hello.; db (single: SQLite | PostgreSQL) Which?; notes (text, optional) Notes?"
        );
        let replies = [
            Reply {
                id: "notes".into(),
                value: ReplyValue::One("two\nlines".into()),
                attachments: vec![],
            },
            Reply {
                id: "db".into(),
                value: ReplyValue::One("MariaDB".into()),
                attachments: vec![],
            },
        ];
        let result =
            |status, surface| result_text(status, surface, &interview.questions, &replies, 60);
        assert_eq!(
            of_result("interview", &result(Status::Completed, Some("browser"))).as_deref(),
            Some("interview answered in the browser: db: Other: \"MariaDB\"; notes: two lines")
        );
        assert_eq!(
            of_result("interview", &result(Status::Cancelled, Some("browser"))).as_deref(),
            Some("interview cancelled in the browser")
        );
        // The terminal's answers are logged as they are taken; other tools are not interviews.
        assert_eq!(
            of_result("interview", &result(Status::Completed, Some("terminal"))),
            None
        );
        assert_eq!(of_result("interview", &result(Status::Timeout, None)), None);
        assert_eq!(
            of_result("ask_user", &result(Status::Completed, Some("browser"))),
            None
        );
    }
}
