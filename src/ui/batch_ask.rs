//! The questions of a `--non-interactive` run answered from outside: each question and
//! approval goes out as a JSON event (`question`, `approval`, `form`), and its answer comes back
//! as one JSON line (`{"id": 1, "answers": [...]}`, `{"id": 2, "approve": "once"}`): on stdin
//! (`--on-ask stdin`), or published from the phone by ntfy (`--on-ask notify`, see `phone`). A
//! line that is not a usable answer is reported as an `answer_error` event and the question
//! stays open; when stdin ends, what is still open is denied.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::phone::Phone;
use crate::interact::view::scope_name;
use crate::interact::{Answer, Approval, InputForm, Question, Request, Response, Scope};
use crate::session::Interaction;
use crate::tools::everyday::ntfy::Ntfy;

/// What a denial says to the model when stdin ended before an answer.
const STDIN_ENDED: &str = "no answer: stdin was closed before the question was answered";

pub(crate) struct Answers {
    /// Lines of stdin from its reader thread, `None` once it ended; no receiver when stdin is
    /// not a surface.
    stdin: Option<Receiver<Option<String>>>,
    /// The bodies published to the phone's reply topic.
    phone_lines: Option<Receiver<Option<String>>>,
    /// The questions asked and not answered yet, by id, with when they were asked.
    open: BTreeMap<u64, (Interaction, Instant)>,
    /// No surface is left to answer: what is asked now is denied at once.
    ended: bool,
    /// Where questions go by ntfy, and the secrets their answers must carry.
    phone: Option<Phone>,
    /// `--on-ask wait:N`: how long a question waits before it is denied.
    wait: Option<Duration>,
}

/// Where questions are asked.
pub(crate) struct Surfaces {
    /// On the --json stream, answered on stdin.
    pub stdin: bool,
    /// On the phone by ntfy: the server and the run's topic.
    pub phone: Option<(Ntfy, String)>,
    /// Denied after this long without an answer.
    pub wait: Option<Duration>,
}

impl Answers {
    /// Starts the surfaces: reading stdin on a thread of its own (it is this run's only
    /// reader), polling the phone's reply topic.
    pub(crate) fn start(surfaces: Surfaces) -> Result<Self, String> {
        let mut answers = Self {
            stdin: None,
            phone_lines: None,
            open: BTreeMap::new(),
            ended: false,
            phone: None,
            wait: surfaces.wait,
        };
        if let Some((ntfy, topic)) = surfaces.phone {
            let (sender, lines) = mpsc::channel();
            answers.phone = Some(Phone::start(ntfy, topic, sender)?);
            answers.phone_lines = Some(lines);
        }
        if surfaces.stdin {
            answers.stdin = Some(read_stdin());
        }
        answers.ended = answers.stdin.is_none() && answers.phone.is_none();
        Ok(answers)
    }

    /// Takes a question: returns its event, or (stdin has ended) denies it at once and says so.
    pub(crate) fn ask(&mut self, interaction: Interaction) -> Vec<Value> {
        let event = question_event(&interaction);
        if self.ended && !matches!(interaction.prompt.request, Request::Form(_)) {
            interaction.reply.send(Response::Denied(STDIN_ENDED.into()));
            return vec![event, closed_event(interaction.id, STDIN_ENDED)];
        }
        if let Request::Form(_) = interaction.prompt.request {
            // Nothing to answer: the page has the questions.
            interaction.reply.send(Response::Shown);
            return vec![event];
        }
        if let Some(phone) = &mut self.phone {
            if let Err(why) = phone.send(interaction.id, &interaction.prompt.request) {
                let why = format!("the question could not be sent to the phone: {why}");
                interaction.reply.send(Response::Denied(why.clone()));
                return vec![event, closed_event(interaction.id, &why)];
            }
        }
        self.open
            .insert(interaction.id, (interaction, Instant::now()));
        vec![event]
    }

    /// Question `id` closed (its tool stopped waiting, or the turn ended): it takes no answer
    /// now. The event that says so, when it was still open.
    pub(crate) fn forget(&mut self, id: u64, outcome: &str) -> Option<Value> {
        self.open.remove(&id).map(|_| closed_event(id, outcome))
    }

    /// Answers what stdin and the phone brought since the last look, and denies what waited
    /// too long; returns the events to write.
    pub(crate) fn poll(&mut self) -> Vec<Value> {
        let mut events = Vec::new();
        while let Some(line) = self.phone_lines.as_ref().and_then(|l| l.try_recv().ok()) {
            events.extend(line.and_then(|line| self.answer(&line, true)));
        }
        while let Some(stdin) = &self.stdin {
            match stdin.try_recv() {
                Ok(Some(line)) if line.trim().is_empty() => {}
                Ok(Some(line)) => events.extend(self.answer(&line, false)),
                Ok(None) | Err(TryRecvError::Disconnected) => {
                    self.stdin = None;
                    if self.phone.is_none() {
                        self.ended = true;
                        events.extend(self.deny_open(STDIN_ENDED));
                    }
                }
                Err(TryRecvError::Empty) => break,
            }
        }
        if let Some(wait) = self.wait {
            let late: Vec<u64> = self
                .open
                .iter()
                .filter(|(_, (_, asked))| asked.elapsed() >= wait)
                .map(|(id, _)| *id)
                .collect();
            let why = format!("no answer within {} s (--on-ask wait)", wait.as_secs());
            for id in late {
                if let Some((open, _)) = self.open.remove(&id) {
                    open.reply.send(Response::Denied(why.clone()));
                    events.push(closed_event(id, &why));
                }
            }
        }
        events
    }

    /// Denies every open question, saying `why`.
    fn deny_open(&mut self, why: &str) -> Vec<Value> {
        std::mem::take(&mut self.open)
            .into_iter()
            .map(|(id, (open, _))| {
                open.reply.send(Response::Denied(why.into()));
                closed_event(id, why)
            })
            .collect()
    }

    /// One line of an answer (from the phone: it must carry its question's secret): the
    /// answer to an open question, or an `answer_error` event.
    fn answer(&mut self, line: &str, from_phone: bool) -> Option<Value> {
        let parsed: Value = match serde_json::from_str(line) {
            Ok(value @ Value::Object(_)) => value,
            _ => {
                return Some(answer_error(
                    None,
                    "an answer is one JSON object per line, e.g. {\"id\": 1, \"answers\": [\"SQLite\"]}",
                ));
            }
        };
        let Some(id) = parsed["id"].as_u64() else {
            return Some(answer_error(
                None,
                "the answer has no \"id\": give the id of the question it answers",
            ));
        };
        let Some(open) = self.open.get(&id) else {
            let ids: Vec<String> = self.open.keys().map(u64::to_string).collect();
            let which = match ids.len() {
                0 => "no question is open".to_string(),
                _ => format!("the open ones are {}", ids.join(", ")),
            };
            return Some(answer_error(
                Some(id),
                &format!("no open question has id {id}: {which}"),
            ));
        };
        let vouched = |phone: &Phone| phone.vouches_for(id, &parsed);
        if from_phone && !self.phone.as_ref().is_some_and(vouched) {
            return Some(answer_error(
                Some(id),
                "the answer does not carry its question's secret: it is ignored",
            ));
        }
        match response_to(&open.0.prompt.request, &parsed) {
            Ok(response) => {
                if let Some((open, _)) = self.open.remove(&id) {
                    open.reply.send(response);
                }
                None
            }
            Err(why) => Some(answer_error(Some(id), &why)),
        }
    }
}

/// Lines of stdin, read on a thread of their own; `None` at its end.
fn read_stdin() -> Receiver<Option<String>> {
    let (sender, lines) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("marvin-answers".into())
        .spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if sender.send(Some(line)).is_err() {
                    return;
                }
            }
            let _ = sender.send(None);
        });
    if spawned.is_err() {
        // No thread: stdin reads as ended at once.
        let (sender, lines) = mpsc::channel();
        let _ = sender.send(None);
        return lines;
    }
    lines
}

/// What the JSON answer `answer` (`{"answers": [...]}`, `{"approve": "once"}`) says to
/// `request`, or why it does not fit.
pub(crate) fn response_to(request: &Request, answer: &Value) -> Result<Response, String> {
    match request {
        Request::Approval(approval) => approval_response(approval, answer),
        Request::Questions(questions) => questions_response(questions, answer),
        Request::Input(form) => input_response(form, answer),
        Request::Form(_) => Err("a form is answered in its page".to_string()),
    }
}

/// `{"input": {"port": 8080}}` for an input form (checked against its fields, every wrong
/// field named), or `{"cancel": true}` to close it without an answer.
fn input_response(form: &InputForm, answer: &Value) -> Result<Response, String> {
    if answer["cancel"] == json!(true) || answer["action"] == json!("cancel") {
        return Ok(Response::Dismissed);
    }
    if answer.get("input").is_none() {
        return Err(
            "\"input\" is an object of field ids and values (or send {\"cancel\": true})".into(),
        );
    }
    form.check(&answer["input"])
        .map(Response::Submitted)
        .map_err(|errors| {
            let said: Vec<String> = errors.into_iter().map(|e| e.message).collect();
            said.join(" ")
        })
}

/// `{"approve": "once" | "session" | "no", "reason": "..."}` for an approval; `"always"` (or
/// only what it lists) where the asking tool offers its own scopes.
fn approval_response(approval: &Approval, answer: &Value) -> Result<Response, String> {
    let reason = answer["reason"].as_str().unwrap_or("").to_string();
    let choices = choices(approval);
    match &answer["approve"] {
        Value::String(no) if no == "no" => Ok(Response::Denied(reason)),
        Value::Bool(false) => Ok(Response::Denied(reason)),
        Value::String(word) if choices.contains(&word.as_str()) => {
            let scope = match word.as_str() {
                "session" => Scope::Session,
                "always" => Scope::Always,
                "all_edits" => Scope::AllEdits,
                _ => Scope::Once,
            };
            Ok(Response::Approved(scope))
        }
        _ => {
            let quoted: Vec<String> = choices.iter().map(|c| format!("\"{c}\"")).collect();
            let (last, rest) = quoted.split_last().unwrap_or((&quoted[0], &[]));
            Err(format!(
                "\"approve\" is one of {} or {last} (with a \"reason\")",
                rest.join(", ")
            ))
        }
    }
}

/// What an approval may be answered with: the scopes the tool offers (else once and
/// session), all file edits where offered, and no.
fn choices(approval: &Approval) -> Vec<&'static str> {
    let mut choices = match approval.scopes.is_empty() {
        true => vec!["once", "session"],
        false => approval.scopes.iter().map(|s| scope_name(*s)).collect(),
    };
    if approval.all_edits && !choices.contains(&"all_edits") {
        choices.push("all_edits");
    }
    choices.push("no");
    choices
}

/// `{"answers": [...]}`: for each question in order, a label or your own text; a list of
/// labels where several may be chosen.
fn questions_response(questions: &[Question], answer: &Value) -> Result<Response, String> {
    let Some(given) = answer["answers"].as_array() else {
        return Err("\"answers\" is a list with one answer per question, in order".into());
    };
    if given.len() != questions.len() {
        return Err(format!(
            "{} questions were asked and {} answers given",
            questions.len(),
            given.len()
        ));
    }
    let answers = questions
        .iter()
        .zip(given)
        .map(|(question, given)| one_answer(question, given))
        .collect::<Result<Vec<Answer>, String>>()?;
    Ok(Response::Answers(answers))
}

fn one_answer(question: &Question, given: &Value) -> Result<Answer, String> {
    let is_label = |text: &str| question.options.iter().any(|o| o.label == text);
    match given {
        Value::String(text) if text.trim().is_empty() => Err(format!(
            "the answer to {:?} is empty: give a label or your own words",
            question.header
        )),
        Value::String(text) if is_label(text) && question.multi_select => {
            Ok(Answer::Many(vec![text.clone()]))
        }
        Value::String(text) if is_label(text) => Ok(Answer::One(text.clone())),
        Value::String(text) => Ok(Answer::Other(text.clone())),
        Value::Array(items) if question.multi_select => {
            let labels: Option<Vec<String>> = items
                .iter()
                .map(|item| item.as_str().filter(|t| is_label(t)).map(str::to_string))
                .collect();
            match labels {
                Some(labels) if !labels.is_empty() => Ok(Answer::Many(labels)),
                _ => Err(format!(
                    "the answer to {:?} is a list of its labels ({}), or your own words as one string",
                    question.header,
                    labels_of(question)
                )),
            }
        }
        _ => Err(format!(
            "the answer to {:?} is one of its labels ({}) or your own words",
            question.header,
            labels_of(question)
        )),
    }
}

fn labels_of(question: &Question) -> String {
    let labels: Vec<&str> = question.options.iter().map(|o| o.label.as_str()).collect();
    labels.join(", ")
}

/// The event that asks: `question`, `approval`, or `form` (a page's address, nothing to
/// answer here).
pub(crate) fn question_event(interaction: &Interaction) -> Value {
    let (id, error) = (interaction.id, &interaction.prompt.error);
    let mut event = match &interaction.prompt.request {
        Request::Approval(a) => json!({
            "type": "approval", "id": id, "tool": a.tool, "summary": a.summary,
            "detail": a.detail, "covers": a.covers, "choices": choices(a),
            "scopes": choices(a).into_iter().filter(|c| *c != "no").collect::<Vec<_>>(),
        }),
        Request::Questions(questions) => {
            let questions: Vec<Value> = questions
                .iter()
                .map(|q| {
                    json!({
                        "header": q.header, "question": q.question, "multi_select": q.multi_select,
                        "options": q.options,
                    })
                })
                .collect();
            json!({"type": "question", "id": id, "tool": "ask_user", "questions": questions})
        }
        Request::Input(form) => json!({
            "type": "input", "id": id, "tool": interaction.prompt.tool, "prompt": form.prompt,
            "inputSchema": form.to_json(),
        }),
        Request::Form(form) => {
            json!({"type": "form", "id": id, "title": form.title, "url": form.url})
        }
    };
    if let Some(error) = error {
        event["error"] = json!(error);
    }
    event
}

fn answer_error(id: Option<u64>, message: &str) -> Value {
    json!({"type": "answer_error", "id": id, "message": message})
}

fn closed_event(id: u64, outcome: &str) -> Value {
    json!({"type": "question_closed", "id": id, "outcome": outcome})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::Choice;

    fn question(multi: bool) -> Question {
        Question {
            header: "Database".into(),
            question: "Which database?".into(),
            options: ["SQLite", "MySQL"]
                .map(|label| Choice {
                    label: label.into(),
                    description: String::new(),
                })
                .to_vec(),
            multi_select: multi,
            initial: None,
        }
    }

    /// Questions, the answers given, and what they become (or a part of why not).
    type Case<'a> = (&'a [Question], Value, Result<Vec<Answer>, &'a str>);

    #[test]
    fn answers_are_labels_lists_or_own_words() {
        let single = [question(false)];
        let multi = [question(true)];
        let cases: &[Case] = &[
            (
                &single,
                json!(["SQLite"]),
                Ok(vec![Answer::One("SQLite".into())]),
            ),
            (
                &single,
                json!(["Postgres"]),
                Ok(vec![Answer::Other("Postgres".into())]),
            ),
            (
                &multi,
                json!([["SQLite", "MySQL"]]),
                Ok(vec![Answer::Many(vec!["SQLite".into(), "MySQL".into()])]),
            ),
            (
                &multi,
                json!(["MySQL"]),
                Ok(vec![Answer::Many(vec!["MySQL".into()])]),
            ),
            (&single, json!([""]), Err("is empty")),
            (
                &single,
                json!([]),
                Err("1 questions were asked and 0 answers given"),
            ),
            (
                &single,
                json!([["SQLite"]]),
                Err("one of its labels (SQLite, MySQL)"),
            ),
            (&multi, json!([["Oracle"]]), Err("a list of its labels")),
        ];
        for (questions, answers, expected) in cases {
            let got = questions_response(questions, &json!({"id": 1, "answers": answers}));
            match (got, expected) {
                (Ok(Response::Answers(got)), Ok(expected)) => {
                    assert_eq!(&got, expected, "{answers}")
                }
                (Err(why), Err(expected)) => assert!(why.contains(expected), "{answers}: {why}"),
                (got, expected) => panic!("{answers}: {got:?} vs {expected:?}"),
            }
        }
    }

    #[test]
    fn approvals_take_a_scope_or_a_no_with_its_reason() {
        let approval = Approval {
            tool: "run_command".into(),
            summary: "run_command wants to run:".into(),
            detail: "make".into(),
            covers: "`make`".into(),
            all_edits: false,
            scopes: Vec::new(),
        };
        let answer = |value: Value| approval_response(&approval, &value);
        assert_eq!(
            answer(json!({"approve": "once"})),
            Ok(Response::Approved(Scope::Once))
        );
        assert_eq!(
            answer(json!({"approve": "session"})),
            Ok(Response::Approved(Scope::Session))
        );
        assert_eq!(
            answer(json!({"approve": "no", "reason": "use make test"})),
            Ok(Response::Denied("use make test".into()))
        );
        assert_eq!(
            answer(json!({"approve": false})),
            Ok(Response::Denied(String::new()))
        );
        let refused = answer(json!({"approve": "always"})).unwrap_err();
        assert!(
            refused.contains("\"once\", \"session\" or \"no\""),
            "{refused}"
        );
        assert!(
            answer(json!({"approve": "all_edits"})).is_err(),
            "only for file edits"
        );
        // A tool's own scopes: always where it offers it, and nothing it does not offer.
        let offered = Approval {
            scopes: vec![Scope::Once, Scope::Always],
            ..approval.clone()
        };
        let answer = |value: Value| approval_response(&offered, &value);
        assert_eq!(
            answer(json!({"approve": "always"})),
            Ok(Response::Approved(Scope::Always))
        );
        let refused = answer(json!({"approve": "session"})).unwrap_err();
        assert!(
            refused.contains("\"once\", \"always\" or \"no\""),
            "{refused}"
        );
    }
}
