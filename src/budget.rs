//! The context budget (seed 002 §3 context.ts, §6.4, §7.4): estimate the conversation's
//! tokens (JSON length / 4, calibrated against what the provider reports), cut tool results
//! that would not fit, warn near the limit, and compact the conversation (after backing it up)
//! by keeping the system prompt and the last messages under a summary of the rest. The limits
//! follow the model's window less room for the answer and the tools' definitions (unless
//! MARVIN_CONTEXT_BUDGET sets them), and a whole request (the conversation and the tools)
//! must fit that window: what still does not after compaction is cut.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::llm::ModelFacts;
use crate::llm::window::answer_room;
use crate::message::{Message, Role};
use crate::tools::kit::confined;

/// The conversation's limit however large the window: the seed's 226K (a fuller window costs
/// more and answers slower). MARVIN_CONTEXT_BUDGET may set more.
pub const MOST: usize = 226_000;

/// Messages kept at the end when compacting.
const KEEP: usize = 8;
/// Topics listed in the summary, and their length.
const TOPICS: usize = 15;
const TOPIC_CHARS: usize = 100;

#[derive(Debug, Clone)]
pub struct Budget {
    /// The conversation's limits (the tools' definitions aside).
    pub warn: usize,
    pub compact: usize,
    pub hard: usize,
    /// Real tokens per estimated token, learnt from the provider's usage.
    ratio: f64,
    /// MARVIN_CONTEXT_BUDGET set `hard`: the model's window does not move it.
    fixed: bool,
    /// The model answering, as its provider learned it: the window requests must fit.
    model: Option<ModelFacts>,
    /// Estimated tokens (unscaled) of the tools' definitions the next request carries.
    tools_raw: usize,
    /// The person was told the model calls no tools (once a session is enough).
    pub(crate) told_no_tools: bool,
}

impl Budget {
    /// Thresholds for a hard limit of `hard` tokens: warn at 180/226 of it and compact at
    /// 200/226, as the seed's 180K / 200K / 226K.
    pub fn new(hard: usize) -> Self {
        Self {
            warn: hard * 180 / 226,
            compact: hard * 200 / 226,
            hard,
            ratio: 1.0,
            fixed: false,
            model: None,
            tools_raw: 0,
            told_no_tools: false,
        }
    }

    /// A session's budget: MARVIN_CONTEXT_BUDGET's hard limit when set, which stays; else
    /// [`MOST`] until the model's window is known (see [`Budget::follow`]).
    pub fn from_setting(setting: Option<usize>) -> Self {
        match setting {
            Some(hard) => Self {
                fixed: true,
                ..Self::new(hard)
            },
            None => Self::new(MOST),
        }
    }

    /// Follows the model answering now (its window decides the limits). True when it changed.
    pub fn follow(&mut self, facts: &ModelFacts) -> bool {
        if self.model.as_ref() == Some(facts) {
            return false;
        }
        self.model = Some(facts.clone());
        self.set_limits();
        true
    }

    /// The next requests carry `tools` (the raw JSON of their definitions), or none.
    pub fn set_tools(&mut self, tools: Option<&str>) {
        self.tools_raw = tools.map_or(0, |t| t.len() / 4);
        self.set_limits();
    }

    /// The conversation's limits: what the model's window holds besides the answer and the
    /// tools' definitions, at most [`MOST`]; MARVIN_CONTEXT_BUDGET's when set.
    fn set_limits(&mut self) {
        let Some(room) = self.room().filter(|_| !self.fixed) else {
            return;
        };
        let hard = room.min(MOST).saturating_sub(self.tools()).max(1);
        *self = Self {
            ratio: self.ratio,
            model: self.model.take(),
            tools_raw: self.tools_raw,
            told_no_tools: self.told_no_tools,
            ..Self::new(hard)
        };
    }

    /// What a request may hold: the model's window less room for its answer.
    pub fn room(&self) -> Option<usize> {
        let window = self.model.as_ref()?.window;
        Some(window.saturating_sub(answer_room(window)))
    }

    /// The model the limits follow, once a request was fitted to it.
    pub fn model(&self) -> Option<&ModelFacts> {
        self.model.as_ref()
    }

    /// MARVIN_CONTEXT_BUDGET set the limits.
    pub fn is_fixed(&self) -> bool {
        self.fixed
    }

    fn raw(messages: &[Message]) -> usize {
        serde_json::to_string(messages).map_or(0, |json| json.len()) / 4
    }

    pub fn estimate(&self, messages: &[Message]) -> usize {
        (Self::raw(messages) as f64 * self.ratio) as usize
    }

    /// The tokens of a request with `messages` and the tools set.
    pub fn request(&self, messages: &[Message]) -> usize {
        ((Self::raw(messages) + self.tools_raw) as f64 * self.ratio) as usize
    }

    /// The tokens the tools' definitions take.
    pub fn tools(&self) -> usize {
        (self.tools_raw as f64 * self.ratio) as usize
    }

    /// A request with `messages` and the tools set fits the model's window with its answer.
    pub fn fits(&self, messages: &[Message]) -> bool {
        self.room()
            .is_none_or(|room| self.request(messages) <= room)
    }

    /// Learns from the provider's count for the request just sent.
    pub fn calibrate(&mut self, sent: &[Message], input_tokens: u64) {
        let raw = Self::raw(sent) + self.tools_raw;
        if raw > 100 && input_tokens > 0 {
            self.ratio = (input_tokens as f64 / raw as f64).clamp(0.2, 5.0);
            self.set_limits();
        }
    }

    /// The results of one round as they may enter the conversation: whole, with a warning near
    /// the limit, cut to the room that is left, or an error when nothing fits. Each is budgeted
    /// on its own: the smaller ones first, each whole if it fits an equal share of the room
    /// left, so one huge result is cut alone and never crowds out the others.
    pub fn fit_round(&self, messages: &[Message], results: Vec<String>) -> Vec<String> {
        let used = self.estimate(messages);
        let mut left = self.warn.saturating_sub(used);
        let mut order: Vec<usize> = (0..results.len()).collect();
        order.sort_by_key(|&i| results[i].len());
        let mut pending: Vec<Option<String>> = results.into_iter().map(Some).collect();
        let mut fitted = vec![String::new(); pending.len()];
        for (done, &i) in order.iter().enumerate() {
            let share = left / (order.len() - done);
            let text = self.fit_in(used, share, pending[i].take().unwrap_or_default());
            left = left.saturating_sub(self.tokens_of(&text));
            fitted[i] = text;
        }
        fitted
    }

    fn tokens_of(&self, text: &str) -> usize {
        (text.len() as f64 / 4.0 * self.ratio) as usize
    }

    /// `result` given `room` tokens, in a conversation of `used` tokens.
    fn fit_in(&self, used: usize, room: usize, result: String) -> String {
        if used >= self.hard {
            return format!(
                "Error: Context budget exhausted ({} tokens). Call compact_history to free space, or start a new session. (The result was {} characters; for files use read_file with start_line/end_line.)",
                self.hard,
                result.len()
            );
        }
        let needed = self.tokens_of(&result);
        if needed <= room && used + needed <= self.warn {
            return result;
        }
        let room_chars = (room as f64 * 4.0 / self.ratio) as usize;
        let mut text = if result.len() > room_chars {
            let mut cut = room_chars.min(result.len());
            while !result.is_char_boundary(cut) {
                cut -= 1;
            }
            format!(
                "{}\n[Result truncated — {} chars omitted due to context budget. Use more specific queries.]",
                &result[..cut],
                result.len() - cut
            )
        } else {
            result
        };
        text.push_str(&format!(
            "\n[Context budget: about {} of {} tokens used; keep results short or call compact_history.]",
            used + needed.min((room_chars as f64 / 4.0) as usize),
            self.hard
        ));
        text
    }

    /// Keeps a call's arguments out of the conversation when they alone would take more than a
    /// quarter of the room: the call already ran with all of them, and a 10 MB argument kept in
    /// the history would leave no room for any result. Returns how many were replaced.
    pub fn shrink_arguments(&self, message: &mut Message) -> usize {
        let limit = self.warn; // a quarter of the warn threshold, in characters (4 per token)
        let mut shrunk = 0;
        for call in &mut message.tool_calls {
            let size = call.function.arguments.len();
            if size > limit {
                let note = format!(
                    "the {size} characters of arguments were left out of the conversation to save context; the call ran with all of them"
                );
                call.function.arguments = serde_json::json!({ "omitted": note }).to_string();
                shrunk += 1;
            }
        }
        shrunk
    }

    pub fn needs_compaction(&self, messages: &[Message]) -> bool {
        self.estimate(messages) >= self.compact
    }

    /// Backs the conversation up to `backup_dir`, then keeps the system prompt, a summary of
    /// the dropped part and the last messages (a tool round is never split); if that is not
    /// enough, the oldest large tool results are shortened too.
    pub fn compact(
        &mut self,
        messages: &mut Vec<Message>,
        backup_dir: &Path,
    ) -> std::io::Result<Compaction> {
        let backup = backup(messages, backup_dir)?;
        let dropped = self.drop_older(messages, &backup);
        let mut shortened = 0;
        for index in 1..messages.len() {
            if self.estimate(messages) < self.warn && self.fits(messages) {
                break;
            }
            let message = &mut messages[index];
            let size = message.text().len();
            if message.role == Role::Tool && size > 200 {
                message.content = Some(format!(
                    "[Result removed to save context: it was {size} characters. Call the tool again if you need it.]"
                ));
                shortened += 1;
            }
        }
        Ok(Compaction {
            dropped,
            shortened,
            backup,
        })
    }

    /// Drops all but the last messages under a summary. What is kept opens with the person's
    /// message, as the providers require before any tool call: the last one before the kept
    /// part stays with it when the part starts in the middle of a turn's tool rounds.
    fn drop_older(&self, messages: &mut Vec<Message>, backup: &Path) -> usize {
        if messages.len() <= KEEP + 1 {
            return 0;
        }
        let mut start = messages.len() - KEEP;
        while start > 1 && messages[start].role == Role::Tool {
            start -= 1;
        }
        let asked = (1..=start).rev().find(|&i| messages[i].role == Role::User);
        let dropped: Vec<Message> = match asked {
            Some(question) if question < start => {
                let mut dropped: Vec<Message> = messages.drain(question + 1..start).collect();
                let before: Vec<Message> = messages.drain(1..question).collect();
                dropped.splice(0..0, before);
                dropped
            }
            _ => messages.drain(1..start).collect(),
        };
        if dropped.is_empty() {
            return 0;
        }
        let topics: Vec<String> = dropped
            .iter()
            .filter(|m| m.role == Role::User && !m.text().is_empty())
            .map(|m| {
                crate::prompt::unstamped(m.text())
                    .replace('\n', " ")
                    .chars()
                    .take(TOPIC_CHARS)
                    .collect()
            })
            .take(TOPICS)
            .collect();
        let topics = if topics.is_empty() {
            "various topics".to_string()
        } else {
            topics.join("; ")
        };
        let summary = format!(
            "[Context compacted. {} messages summarized. Earlier conversation covered: {topics}. The full conversation was saved to {}.]",
            dropped.len(),
            backup.display()
        );
        // With no question of the person's left, the summary stands in for one.
        let summary = match messages.get(1) {
            Some(next) if next.role == Role::User => Message::system(summary),
            _ => Message::user(summary),
        };
        messages.insert(1, summary);
        dropped.len()
    }

    /// Cuts the longest texts until a request with `messages` fits the model's window (after
    /// a compaction could not make it): each keeps its start and says how much was cut.
    /// Returns how many were cut.
    pub fn cut_to_fit(&self, messages: &mut [Message]) -> usize {
        let Some(room) = self.room() else {
            return 0;
        };
        let mut cut = 0;
        for _ in 0..messages.len() {
            let over = self.request(messages).saturating_sub(room);
            let longest = (0..messages.len()).max_by_key(|&i| messages[i].text().len());
            let Some(index) = longest.filter(|_| over > 0) else {
                break;
            };
            let text = messages[index].text();
            let over_chars = (over as f64 * 4.0 / self.ratio) as usize + CUT_NOTE;
            if text.len() <= CUT_NOTE * 2 {
                break;
            }
            let mut keep = text.len().saturating_sub(over_chars);
            while !text.is_char_boundary(keep) {
                keep -= 1;
            }
            let note = format!(
                "\n[{} characters cut here: the conversation did not fit the model's window]",
                text.len() - keep
            );
            messages[index].content = Some(format!("{}{note}", &text[..keep]));
            cut += 1;
        }
        cut
    }
}

/// Characters of the note that says what was cut (and some to spare).
const CUT_NOTE: usize = 120;

/// What the context holds and may hold, for `/context` and `--json`'s usage event.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ContextReport {
    /// The model's window (its request and answer together), once learned.
    pub window: Option<usize>,
    /// Where the window was learned: `llama.cpp /props`, `ollama /api/show`, the table...
    pub window_from: Option<&'static str>,
    /// The conversation's limit (warn and compact at 180/226 and 200/226 of it).
    pub limit: usize,
    /// MARVIN_CONTEXT_BUDGET set the limit.
    pub limit_set: bool,
    /// About how many tokens the conversation takes now.
    pub used: usize,
    /// About how many tokens the tools' definitions took in the last request (0: none).
    pub tools: usize,
}

impl Budget {
    /// What the context holds now with `messages`.
    pub fn report(&self, messages: &[Message]) -> ContextReport {
        ContextReport {
            window: self.model.as_ref().map(|m| m.window),
            window_from: self.model.as_ref().map(|m| m.source),
            limit: self.hard,
            limit_set: self.fixed,
            used: self.estimate(messages),
            tools: self.tools(),
        }
    }
}

impl ContextReport {
    /// `/context`, a few lines.
    pub fn describe(&self) -> String {
        let mut lines = vec![format!(
            "Context: about {} of {} tokens in use{}.",
            self.used,
            self.limit,
            if self.limit_set {
                " (MARVIN_CONTEXT_BUDGET)"
            } else {
                ""
            }
        )];
        lines.push(match (self.window, self.window_from) {
            (Some(window), Some(from)) => format!(
                "The model's window: {window} tokens (from {from}); {} of them are kept for its answer.",
                answer_room(window)
            ),
            _ => "The model's window is learned at the first message.".to_string(),
        });
        if self.tools > 0 {
            lines.push(format!(
                "The tools' definitions take about {} tokens of each request.",
                self.tools
            ));
        }
        lines.join("\n")
    }
}

/// What a compaction did.
#[derive(Debug)]
pub struct Compaction {
    pub dropped: usize,
    pub shortened: usize,
    pub backup: PathBuf,
}

/// `context-backup-<unix millis>.jsonl`, one message per line, written before anything is
/// dropped. In a project (`.marvin/logs`) the directory is reached without following
/// symlinks and kept out of git (confined::log_dir); the file is always a new one.
fn backup(messages: &[Message], dir: &Path) -> std::io::Result<PathBuf> {
    let millis = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let name = format!("context-backup-{millis}.jsonl");
    let opened = confined::log_dir(dir)?;
    let mut file = confined::create_new(&opened, name.as_ref())?;
    for message in messages {
        writeln!(
            file,
            "{}",
            serde_json::to_string(message).unwrap_or_default()
        )?;
    }
    file.sync_all()?;
    Ok(dir.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;

    fn conversation(turns: usize, size: usize) -> Vec<Message> {
        let mut messages = vec![Message::system("rules")];
        for i in 0..turns {
            messages.push(Message::user(format!("question {i} {}", "q".repeat(size))));
            messages.push(Message::assistant("a".repeat(size)));
        }
        messages
    }

    #[test]
    fn thresholds_follow_the_seed_ratios() {
        let budget = Budget::new(226_000);
        assert_eq!(
            (budget.warn, budget.compact, budget.hard),
            (180_000, 200_000, 226_000)
        );
    }

    fn fit_one(budget: &Budget, messages: &[Message], result: &str) -> String {
        budget
            .fit_round(messages, vec![result.to_string()])
            .remove(0)
    }

    #[test]
    fn results_fit_are_cut_or_refused() {
        let budget = Budget::new(1000);
        let small = conversation(1, 10);
        assert_eq!(fit_one(&budget, &small, "short"), "short");
        let cut = fit_one(&budget, &small, &"x".repeat(10_000));
        assert!(
            cut.contains("[Result truncated — ")
                && cut.contains("chars omitted due to context budget"),
            "{}",
            &cut[cut.len() - 200..]
        );
        assert!(cut.len() < 4000, "{}", cut.len());
        assert!(cut.ends_with("keep results short or call compact_history.]"));
        let full = conversation(10, 500);
        assert!(
            fit_one(&budget, &full, "anything")
                .starts_with("Error: Context budget exhausted (1000 tokens).")
        );
    }

    #[test]
    fn one_huge_result_is_cut_alone_and_the_others_arrive_whole() {
        let budget = Budget::new(1000);
        let small = conversation(1, 10);
        let results = vec!["x".repeat(100_000), "small one".into(), "another".into()];
        let fitted = budget.fit_round(&small, results);
        assert_eq!(fitted[1], "small one");
        assert_eq!(fitted[2], "another");
        assert!(fitted[0].contains("[Result truncated — "), "{}", fitted[0]);
        let total: usize = fitted.iter().map(|f| budget.tokens_of(f)).sum();
        assert!(
            budget.estimate(&small) + total <= budget.warn + 100,
            "{total}"
        );
    }

    #[test]
    fn huge_arguments_are_left_out_of_the_history() {
        let budget = Budget::new(1000);
        let mut asks = Message::assistant("");
        asks.tool_calls
            .push(ToolCall::new("a", "create_file", "y".repeat(5000)));
        asks.tool_calls
            .push(ToolCall::new("b", "read_file", r#"{"path":"x"}"#));
        assert_eq!(budget.shrink_arguments(&mut asks), 1);
        let note: serde_json::Value =
            serde_json::from_str(&asks.tool_calls[0].function.arguments).unwrap();
        assert!(
            note["omitted"]
                .as_str()
                .unwrap()
                .starts_with("the 5000 characters")
        );
        assert_eq!(asks.tool_calls[1].function.arguments, r#"{"path":"x"}"#);
    }

    #[test]
    fn calibration_scales_the_estimate() {
        let mut budget = Budget::new(100_000);
        let messages = conversation(5, 200);
        let raw = budget.estimate(&messages);
        budget.calibrate(&messages, (raw * 2) as u64);
        assert!((budget.estimate(&messages) as i64 - (raw * 2) as i64).abs() <= 2);
    }

    #[test]
    fn compaction_backs_up_keeps_the_tail_and_summarises() {
        let dir = crate::test_support::TempDir::new("compact");
        let mut budget = Budget::new(1000);
        let mut messages = conversation(10, 200);
        let call = ToolCall::new("c", "read_file", "{}");
        let mut asks = Message::assistant("");
        asks.tool_calls.push(call.clone());
        messages.extend([
            asks,
            Message::tool_result(&call, "r".into()),
            Message::assistant("end"),
        ]);
        let before = messages.clone();
        assert!(budget.needs_compaction(&messages));
        let done = budget.compact(&mut messages, dir.path()).unwrap();
        assert_eq!(done.dropped, 14);
        let backup = done.backup;
        let saved: Vec<Message> = std::fs::read_to_string(&backup)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(saved, before, "the backup holds the whole conversation");
        assert_eq!(messages[0].text(), "rules");
        assert!(messages[1].text().starts_with("[Context compacted. 14 messages summarized. Earlier conversation covered: question 0 "), "{}", messages[1].text());
        // The last eight start with an answer: the question before it stays with them.
        assert_eq!(messages.len(), 3 + KEEP);
        assert!(messages[2].role == Role::User && messages[2].text().starts_with("question 7 "));
        assert_eq!(messages.last().unwrap().text(), "end");
        well_formed(&messages);
    }

    /// What every provider accepts: a question of the person's before any tool call, each
    /// result right after the call that asked for it.
    fn well_formed(messages: &[Message]) {
        let first = messages.iter().position(|m| m.role != Role::System);
        let first = first.map(|i| messages[i].role);
        assert_eq!(first, Some(Role::User), "{messages:#?}");
        let mut pending: Vec<&str> = Vec::new();
        for message in messages {
            match message.role {
                Role::Tool => {
                    let id = message.tool_call_id.as_deref().unwrap_or_default();
                    assert!(
                        pending.contains(&id),
                        "a result without its call: {messages:#?}"
                    );
                }
                _ => pending = message.tool_calls.iter().map(|c| c.id.as_str()).collect(),
            }
        }
    }

    fn tool_round(n: usize, size: usize) -> [Message; 2] {
        let call = ToolCall::new(format!("c{n}"), "read_file", "{}");
        let mut asks = Message::assistant("");
        asks.tool_calls.push(call.clone());
        [asks, Message::tool_result(&call, "r".repeat(size))]
    }

    #[test]
    fn a_long_tool_loop_compacts_around_the_question_it_answers() {
        let dir = crate::test_support::TempDir::new("compact-loop");
        let mut budget = Budget::new(1000);
        let mut messages = vec![Message::system("rules"), Message::user("fix the build")];
        messages.extend((0..12).flat_map(|n| tool_round(n, 300)));
        let done = budget.compact(&mut messages, dir.path()).unwrap();
        assert_eq!(done.dropped, 16);
        assert_eq!(messages[1].role, Role::System);
        assert_eq!(messages[2].text(), "fix the build");
        assert_eq!(messages[3].tool_calls[0].id, "c8");
        well_formed(&messages);
    }

    #[test]
    fn with_no_question_left_the_summary_stands_in_for_one() {
        let dir = crate::test_support::TempDir::new("compact-noquestion");
        let mut budget = Budget::new(1000);
        // A conversation capped by the session may open with an answer.
        let mut messages = vec![Message::system("rules"), Message::assistant("earlier")];
        messages.extend((0..6).flat_map(|n| tool_round(n, 300)));
        budget.compact(&mut messages, dir.path()).unwrap();
        assert_eq!(messages[1].role, Role::User);
        assert!(messages[1].text().starts_with("[Context compacted."));
        well_formed(&messages);
    }

    #[test]
    fn the_limits_follow_the_window_less_the_answer_and_the_tools() {
        // (window, tools' definitions in characters, the conversation's hard limit)
        let cases = [
            (8_192, 0, 6_144),
            (8_192, 8_000, 4_144),
            (32_768, 0, 24_576),
            (131_072, 0, 122_880),
            (1_048_576, 0, MOST),
            (1_048_576, 40_000, MOST - 10_000),
            (8_192, 40_000, 1),
        ];
        for (window, tools, hard) in cases {
            let mut budget = Budget::from_setting(None);
            assert!(budget.follow(&ModelFacts::learned(window, "test")));
            budget.set_tools(Some(&"t".repeat(tools)));
            assert_eq!(budget.hard, hard, "{window} {tools}");
            assert_eq!(budget.warn, hard * 180 / 226);
            assert!(
                !budget.follow(&ModelFacts::learned(window, "test")),
                "unchanged"
            );
        }
        let mut set = Budget::from_setting(Some(50_000));
        assert!(set.follow(&ModelFacts::learned(8192, "test")));
        set.set_tools(Some("[]"));
        assert_eq!(set.hard, 50_000, "MARVIN_CONTEXT_BUDGET wins");
        assert_eq!(set.room(), Some(6144), "the window still bounds a request");
    }

    #[test]
    fn a_request_counts_its_tools_and_what_does_not_fit_is_cut_with_a_note() {
        let mut budget = Budget::from_setting(None);
        budget.follow(&ModelFacts::learned(2000, "test"));
        let messages = vec![Message::system("rules"), Message::user("hi")];
        let bare = budget.request(&messages);
        budget.set_tools(Some(&"t".repeat(6000)));
        assert_eq!(budget.request(&messages), bare + 1500);
        assert!(!budget.fits(&messages), "room: {:?}", budget.room());
        budget.set_tools(None);
        assert!(budget.fits(&messages));
        let mut piped = vec![
            Message::system("rules"),
            Message::user(format!("summarise:\n{}", "word ".repeat(4000))),
        ];
        assert_eq!(budget.cut_to_fit(&mut piped), 1);
        assert!(budget.fits(&piped), "{}", budget.request(&piped));
        let text = piped[1].text();
        assert!(text.starts_with("summarise:\nword word"));
        assert!(
            text.ends_with(
                " characters cut here: the conversation did not fit the model's window]"
            ),
            "{}",
            &text[text.len() - 120..]
        );
        assert_eq!(piped[0].text(), "rules");
    }

    #[test]
    fn a_short_conversation_with_a_huge_result_gets_the_result_shortened() {
        let dir = crate::test_support::TempDir::new("compact-short");
        let mut budget = Budget::new(1000);
        let call = ToolCall::new("c", "read_file", "{}");
        let mut asks = Message::assistant("");
        asks.tool_calls.push(call.clone());
        let mut messages = vec![
            Message::system("rules"),
            Message::user("read it"),
            asks,
            Message::tool_result(&call, "x".repeat(8000)),
        ];
        let done = budget.compact(&mut messages, dir.path()).unwrap();
        assert_eq!((done.dropped, done.shortened), (0, 1));
        assert!(
            messages[3]
                .text()
                .starts_with("[Result removed to save context: it was 8000 characters.")
        );
        assert!(!budget.needs_compaction(&messages));
    }
}
