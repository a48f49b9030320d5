//! The Stack Exchange family: `stack_search` (questions on a site, Stack Overflow unless
//! another is named) and `stack_answers` (a question and its answers as text, code blocks
//! kept, the accepted answer first), through the Stack Exchange API at STACKEXCHANGE_URL. The
//! API's own errors (`error_id`, `error_message`, with any status; a throttle with how long
//! to wait), its `backoff` and a low quota are said.

use serde::Deserialize;
use serde_json::Value;

use crate::services::STACKEXCHANGE;
use crate::tools::kit::html;
use crate::tools::kit::web::Call;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const DEFAULT_SITE: &str = "stackoverflow";
const DEFAULT_QUESTIONS: i64 = 10;
const MAX_QUESTIONS: i64 = 30;
const DEFAULT_ANSWERS: i64 = 3;
const MAX_ANSWERS: i64 = 10;
/// A quota this low is mentioned (the API gives 300 requests a day without a key).
const LOW_QUOTA: i64 = 30;
/// The most of one post's text shown.
const MAX_POST: usize = 12_000;

const SEARCH_PARAMS: &[Param] = &[
    Param::required("query", Kind::String, "What the question is about"),
    Param::optional(
        "site",
        Kind::String,
        "The Stack Exchange site: stackoverflow (default), serverfault, superuser, askubuntu, unix, math…",
    ),
    Param::optional(
        "tagged",
        Kind::StringList,
        "Only questions with all these tags, e.g. [\"rust\", \"lifetimes\"]",
    ),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many questions (default 10, at most 30)",
    ),
];
const ANSWERS_PARAMS: &[Param] = &[
    Param::required(
        "question_id",
        Kind::Integer,
        "The question's number (from stack_search, or its address)",
    ),
    Param::optional("site", Kind::String, "The site (default stackoverflow)"),
    Param::optional(
        "max_answers",
        Kind::Integer,
        "How many answers (default 3, at most 10), the accepted one first, then by votes",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "stack",
    about: "Stack Overflow questions and answers",
    words: &[
        "stack overflow",
        "stackoverflow",
        "stack exchange",
        "error message",
        "exception",
        "compile",
        "programming",
        "~code",
    ],
    asks: &[
        "search stack overflow for this error",
        "how do I fix this exception",
        "programming question about rust lifetimes",
        "top answer on stack overflow",
        "why does this code throw",
        "error message when compiling",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("stack_search")
            .describe("Search Stack Overflow (or another Stack Exchange site) for questions: title, score, answers, tags. Use for programming and technical problems; read answers with stack_answers.")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "git undo last commit", "max_results": 5}"#)
            .handler(stack_search),
        ToolDef::build("stack_answers")
            .describe("Read a Stack Exchange question and its answers as text with code blocks kept, the accepted answer first.")
            .offered(Offered::Everywhere)
            .params(ANSWERS_PARAMS)
            .example(r#"{"question_id": 927358, "site": "stackoverflow"}"#)
            .handler(stack_answers),
    ]
}

/// The site asked for, checked: a name such as `stackoverflow` or `cooking`.
fn site(asked: Option<&str>) -> Result<String, String> {
    let site = asked
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(DEFAULT_SITE);
    let site = site
        .trim_start_matches("https://")
        .trim_end_matches(".com")
        .to_ascii_lowercase();
    if site.is_empty()
        || !site
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
    {
        return Err(format!(
            "'{site}' is not a Stack Exchange site name: use one such as stackoverflow, serverfault, superuser or askubuntu."
        ));
    }
    Ok(site)
}

fn within(asked: Option<i64>, default: i64, max: i64, name: &str) -> Result<String, String> {
    match asked.unwrap_or(default) {
        n if (1..=max).contains(&n) => Ok(n.to_string()),
        n => Err(format!("{name} must be between 1 and {max} (got {n}).")),
    }
}

/// One API call: the wrapper object, or a sentence for the model.
fn api(ctx: &ToolContext, path: &str, query: &[(&str, &str)]) -> Result<Value, String> {
    let web = &ctx.settings.web;
    let call = Call {
        query,
        ..Call::default()
    };
    let fetched = web.call(&STACKEXCHANGE, path, &call, &ctx.cancel)?;
    // The error wrapper comes with whatever status; it says more than the status does.
    if let Ok(value) = serde_json::from_slice::<Value>(&fetched.body) {
        if let Some(id) = value.get("error_id").and_then(Value::as_i64) {
            return Err(refusal(&value, id));
        }
    }
    web.read_json(&STACKEXCHANGE, &fetched)
}

/// The sentence for the API's error wrapper. A throttle says how long until requests are
/// taken again only inside its message ("more requests available in 17524 seconds").
fn refusal(value: &Value, id: i64) -> String {
    let message = value["error_message"].as_str().unwrap_or("no reason given");
    let name = value["error_name"].as_str().unwrap_or("error");
    match wait_seconds(message) {
        Some(seconds) => format!(
            "Stack Exchange is not taking requests from this IP address for now ({name}, {id}: {message}). It takes them again in about {}: do not call stack_search or stack_answers before then; answer from what you know, or use web_search.",
            in_words(seconds)
        ),
        None => format!("Stack Exchange refused the request ({name}, {id}): {message}"),
    }
}

/// The N of "available in N seconds".
fn wait_seconds(message: &str) -> Option<u64> {
    let (_, after) = message.split_once("available in ")?;
    let (number, unit) = after.trim_start().split_once(' ')?;
    unit.starts_with("second").then(|| number.parse().ok())?
}

/// `4 hours 52 minutes`, `3 minutes`, `40 seconds`.
fn in_words(seconds: u64) -> String {
    let plural = |n: u64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    match (seconds / 3600, seconds % 3600 / 60) {
        (0, 0) => plural(seconds, "second"),
        (0, minutes) => plural(minutes, "minute"),
        (hours, 0) => plural(hours, "hour"),
        (hours, minutes) => format!("{} {}", plural(hours, "hour"), plural(minutes, "minute")),
    }
}

/// What the wrapper says beyond the items: a backoff to respect, a quota running out.
fn notes(value: &Value) -> String {
    let mut notes = String::new();
    if let Some(backoff) = value["backoff"].as_i64() {
        notes.push_str(&format!(
            "\n\nStack Exchange asks to wait {backoff}s before calling this again."
        ));
    }
    if let (Some(left), Some(max)) = (
        value["quota_remaining"].as_i64(),
        value["quota_max"].as_i64(),
    ) {
        if left < LOW_QUOTA {
            notes.push_str(&format!(
                "\n\nStack Exchange quota low: {left} of {max} requests left today."
            ));
        }
    }
    notes
}

fn items(value: &Value) -> &[Value] {
    value["items"].as_array().map_or(&[], Vec::as_slice)
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    site: Option<String>,
    tagged: Option<Vec<String>>,
    max_results: Option<i64>,
}

fn stack_search(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = args.query.trim();
    if query.is_empty() {
        return Err("The query is empty: say what the question is about.".into());
    }
    let site = site(args.site.as_deref())?;
    let size = within(
        args.max_results,
        DEFAULT_QUESTIONS,
        MAX_QUESTIONS,
        "max_results",
    )?;
    let tagged: Vec<String> = args
        .tagged
        .unwrap_or_default()
        .iter()
        .map(|t| t.trim().to_lowercase())
        .filter(|t| !t.is_empty())
        .collect();
    let tagged = tagged.join(";");
    let mut query_pairs = vec![
        ("order", "desc"),
        ("sort", "relevance"),
        ("q", query),
        ("site", site.as_str()),
        ("pagesize", size.as_str()),
    ];
    if !tagged.is_empty() {
        query_pairs.push(("tagged", tagged.as_str()));
    }
    let value = api(ctx, "/2.3/search/advanced", &query_pairs)?;
    let questions = items(&value);
    if questions.is_empty() {
        return Ok(format!(
            "No questions on {site} match '{query}'. Try fewer or other words.{}",
            notes(&value)
        ));
    }
    let mut out = format!("Questions on {site} for '{query}':");
    for (i, question) in questions.iter().enumerate() {
        out.push_str(&format!("\n\n{}. {}", i + 1, describe_question(question)));
    }
    out.push_str(&format!(
        "\n\nRead one with stack_answers (question_id, site \"{site}\").{}",
        notes(&value)
    ));
    Ok(out)
}

fn describe_question(question: &Value) -> String {
    let answers = question["answer_count"].as_i64().unwrap_or(0);
    let accepted = if question.get("accepted_answer_id").is_some() {
        ", accepted answer"
    } else {
        ""
    };
    let tags: Vec<&str> = question["tags"]
        .as_array()
        .map(|t| t.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut text = format!(
        "{} [score {}, {answers} answer{}{accepted}] (question_id {})\n   {}",
        html::line(question["title"].as_str().unwrap_or("(untitled)")),
        question["score"].as_i64().unwrap_or(0),
        if answers == 1 { "" } else { "s" },
        question["question_id"].as_i64().unwrap_or(0),
        question["link"].as_str().unwrap_or_default()
    );
    if !tags.is_empty() {
        text.push_str(&format!("\n   tags: {}", tags.join(", ")));
    }
    text
}

#[derive(Deserialize)]
struct AnswersArgs {
    question_id: i64,
    site: Option<String>,
    max_answers: Option<i64>,
}

fn stack_answers(args: AnswersArgs, ctx: &ToolContext) -> Result<String, String> {
    let site = site(args.site.as_deref())?;
    let size = within(
        args.max_answers,
        DEFAULT_ANSWERS,
        MAX_ANSWERS,
        "max_answers",
    )?;
    if args.question_id <= 0 {
        return Err(format!(
            "question_id must be a question's number (got {}).",
            args.question_id
        ));
    }
    let id = args.question_id.to_string();
    let site_pair = ("site", site.as_str());
    let question = api(
        ctx,
        &format!("/2.3/questions/{id}"),
        &[site_pair, ("filter", "withbody")],
    )?;
    let Some(first) = items(&question).first() else {
        return Err(format!(
            "Stack Exchange has no question {id} on {site}: check the number (the one in the question's address) and the site.{}",
            notes(&question)
        ));
    };
    let answers = api(
        ctx,
        &format!("/2.3/questions/{id}/answers"),
        &[
            ("order", "desc"),
            ("sort", "votes"),
            site_pair,
            ("filter", "withbody"),
            ("pagesize", "100"),
        ],
    )?;
    let mut out = format!(
        "Question {id}: {} (score {})\n{}\n\n{}",
        html::line(first["title"].as_str().unwrap_or("(untitled)")),
        first["score"].as_i64().unwrap_or(0),
        first["link"].as_str().unwrap_or_default(),
        post(first)
    );
    let mut list: Vec<&Value> = items(&answers).iter().collect();
    list.sort_by_key(|a| {
        (
            !a["is_accepted"].as_bool().unwrap_or(false),
            -a["score"].as_i64().unwrap_or(0),
        )
    });
    let shown = size.parse().unwrap_or(DEFAULT_ANSWERS as usize);
    if list.is_empty() {
        out.push_str("\n\nNo answers yet.");
    }
    for answer in list.iter().take(shown) {
        out.push_str(&format!("\n\n---\n{}", describe_answer(answer)));
    }
    if list.len() > shown {
        out.push_str(&format!(
            "\n\n({} more answers; ask with a larger max_answers.)",
            list.len() - shown
        ));
    }
    out.push_str(&notes(&answers));
    Ok(out)
}

fn describe_answer(answer: &Value) -> String {
    let accepted = if answer["is_accepted"].as_bool().unwrap_or(false) {
        "accepted, "
    } else {
        ""
    };
    let author = answer
        .pointer("/owner/display_name")
        .and_then(Value::as_str)
        .map(|name| format!(", by {}", html::line(name)))
        .unwrap_or_default();
    format!(
        "Answer {} ({accepted}score {}{author}):\n\n{}",
        answer["answer_id"].as_i64().unwrap_or(0),
        answer["score"].as_i64().unwrap_or(0),
        post(answer)
    )
}

/// A post's body as text, code blocks fenced, cut when very long.
fn post(item: &Value) -> String {
    let text = html::fragment(item["body"].as_str().unwrap_or_default());
    if text.len() <= MAX_POST {
        return text;
    }
    let mut cut = MAX_POST;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}\n[… cut at {cut} of {} bytes]", &text[..cut], text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_throttle_says_how_long_to_wait() {
        for (message, seconds) in [
            (
                "too many requests from this IP, more requests available in 17524 seconds",
                Some(17524),
            ),
            ("more requests available in 1 second", Some(1)),
            ("more requests available in soon", None),
            ("No site found for name `x`", None),
        ] {
            assert_eq!(wait_seconds(message), seconds, "{message}");
        }
        for (seconds, words) in [
            (17524, "4 hours 52 minutes"),
            (3600, "1 hour"),
            (61, "1 minute"),
            (40, "40 seconds"),
        ] {
            assert_eq!(in_words(seconds), words);
        }
    }

    #[test]
    fn sites_are_checked() {
        let cases: &[(Option<&str>, Result<&str, ()>)] = &[
            (None, Ok("stackoverflow")),
            (Some(" "), Ok("stackoverflow")),
            (Some("AskUbuntu"), Ok("askubuntu")),
            (Some("serverfault.com"), Ok("serverfault")),
            (Some("meta.stackoverflow"), Ok("meta.stackoverflow")),
            (Some("a b"), Err(())),
            (Some("x/../y"), Err(())),
        ];
        for (asked, expected) in cases {
            assert_eq!(
                site(*asked).as_deref().map_err(|_| ()),
                expected.as_ref().copied().map_err(|_| ()),
                "{asked:?}"
            );
        }
    }

    #[test]
    fn the_wrapper_reports_backoff_and_a_low_quota() {
        assert_eq!(
            notes(&json!({"quota_remaining": 250, "quota_max": 300})),
            ""
        );
        assert_eq!(
            notes(&json!({"quota_remaining": 3, "quota_max": 300, "backoff": 10})),
            "\n\nStack Exchange asks to wait 10s before calling this again.\n\nStack Exchange quota low: 3 of 300 requests left today."
        );
    }
}
