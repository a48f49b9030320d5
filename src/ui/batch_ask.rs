//! The questions of a `--non-interactive` run answered from outside: each question goes out
//! as a JSON event (see `ask_json`), and its answer comes back as one JSON line: on stdin
//! (`--on-ask stdin`), or published from the phone by ntfy (`--on-ask notify`, see `phone`).
//! A line that is not a usable answer is reported as an `answer_error` event and the question
//! stays open; a question waits as long as its tool lets it (or `--on-ask wait:N`); when
//! stdin ends, what is still open is closed unanswered.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::ask_json::{Unfit, answer_error, closed_event, question_event, response_to};
use super::phone::Phone;
use crate::interact::{Prompt, Request, Response};
use crate::session::{Correlation, Interaction, Reply};
use crate::tools::everyday::ntfy::Ntfy;

/// Why a question closed when stdin ended before its answer.
pub(crate) const STDIN_ENDED: &str = "no answer: stdin was closed before the question was answered";

pub(crate) struct Answers {
    /// Lines of stdin from its reader thread, `None` once it ended; no receiver when stdin is
    /// not a surface.
    stdin: Option<Receiver<Option<String>>>,
    /// The bodies published to the phone's reply topic.
    phone_lines: Option<Receiver<Option<String>>>,
    /// The questions asked and not answered yet, by id.
    open: BTreeMap<u64, Open>,
    /// The questions whose event went out and whose `question_closed` has not.
    shown: BTreeSet<u64>,
    /// No surface is left to answer: what is asked now is closed at once.
    ended: bool,
    /// Where questions go by ntfy, and the secrets their answers must carry.
    phone: Option<Phone>,
    /// `--on-ask wait:N`: how long a question waits before it is closed unanswered.
    wait: Option<Duration>,
    /// Late questions settled since the last look (see [`Answers::take_late`]).
    late: Vec<(u64, Response)>,
}

/// A question open on the surfaces.
struct Open {
    prompt: Prompt,
    correlation: Correlation,
    /// The asking tool's handle; `None` for a late question (its tool has finished).
    reply: Option<Reply>,
    asked: Instant,
}

/// Where questions are asked.
pub(crate) struct Surfaces {
    /// On the --json stream, answered on stdin.
    pub stdin: bool,
    /// On the phone by ntfy: the server and the run's topic.
    pub phone: Option<(Ntfy, String)>,
    /// Closed unanswered after this long.
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
            shown: BTreeSet::new(),
            ended: false,
            phone: None,
            wait: surfaces.wait,
            late: Vec::new(),
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

    /// Takes a tool's question: returns its event (and closes it at once when nobody is left
    /// to answer).
    pub(crate) fn ask(&mut self, interaction: Interaction) -> Vec<Value> {
        let Interaction {
            id,
            prompt,
            reply,
            correlation,
        } = interaction;
        self.ask_open(id, prompt, correlation, Some(reply))
    }

    /// Asks question `id` again after its tool finished without the answer (seed 003's
    /// pending): its answer is taken with [`Answers::take_late`].
    pub(crate) fn ask_late(
        &mut self,
        id: u64,
        prompt: Prompt,
        correlation: Correlation,
    ) -> Vec<Value> {
        self.ask_open(id, prompt, correlation, None)
    }

    fn ask_open(
        &mut self,
        id: u64,
        prompt: Prompt,
        correlation: Correlation,
        reply: Option<Reply>,
    ) -> Vec<Value> {
        let mut events = vec![question_event(id, &prompt, &correlation)];
        self.shown.insert(id);
        if let Request::Form(_) = prompt.request {
            // Nothing to answer: the page has the questions.
            if let Some(reply) = reply {
                reply.send(Response::Shown);
            }
            return events;
        }
        let open = Open {
            prompt,
            correlation,
            reply,
            asked: Instant::now(),
        };
        self.open.insert(id, open);
        if self.ended {
            events.extend(self.unanswered(id, STDIN_ENDED));
            return events;
        }
        if let Some(phone) = &mut self.phone {
            let prompt = &self.open[&id].prompt;
            if let Err(why) = phone.send(id, &prompt.request, prompt.error.as_deref()) {
                let why = format!("the question could not be sent to the phone: {why}");
                events.extend(self.unanswered(id, &why));
            }
        }
        events
    }

    /// Question `id` closed (answered, its tool stopped waiting, or the turn ended): it takes
    /// no answer now. Whether its event went out, so its `question_closed` goes out too.
    pub(crate) fn forget(&mut self, id: u64) -> bool {
        self.open.remove(&id);
        self.shown.remove(&id)
    }

    /// The late questions settled since the last look, with what settled them.
    pub(crate) fn take_late(&mut self) -> Vec<(u64, Response)> {
        std::mem::take(&mut self.late)
    }

    /// Answers what stdin and the phone brought since the last look, and closes what waited
    /// too long; returns the events to write.
    pub(crate) fn poll(&mut self) -> Vec<Value> {
        let mut events = Vec::new();
        while let Some(line) = self.phone_lines.as_ref().and_then(|l| l.try_recv().ok()) {
            if let Some(line) = line {
                events.extend(self.phone_body(&line));
            }
        }
        while let Some(stdin) = &self.stdin {
            match stdin.try_recv() {
                Ok(Some(line)) if line.trim().is_empty() => {}
                Ok(Some(line)) => events.extend(self.stdin_line(&line)),
                Ok(None) | Err(TryRecvError::Disconnected) => {
                    self.stdin = None;
                    if self.phone.is_none() {
                        self.ended = true;
                        let ids: Vec<u64> = self.open.keys().copied().collect();
                        for id in ids {
                            events.extend(self.unanswered(id, STDIN_ENDED));
                        }
                    }
                }
                Err(TryRecvError::Empty) => break,
            }
        }
        events.extend(self.close_overdue());
        events
    }

    /// Closes the questions that waited as long as their tool lets them, or `--on-ask wait`.
    fn close_overdue(&mut self) -> Vec<Value> {
        let mut events = Vec::new();
        let overdue: Vec<(u64, bool)> = self
            .open
            .iter()
            .filter_map(|(id, open)| {
                let waited = open.asked.elapsed();
                let by_wait = self.wait.is_some_and(|wait| waited >= wait);
                (by_wait || waited >= open.prompt.timeout).then_some((*id, by_wait))
            })
            .collect();
        for (id, by_wait) in overdue {
            match (by_wait, self.wait) {
                (true, Some(wait)) => {
                    let why = format!("no answer within {} s (--on-ask wait)", wait.as_secs());
                    events.extend(self.unanswered(id, &why));
                }
                _ => events.extend(self.settle(id, Response::TimedOut, None)),
            }
        }
        events
    }

    /// Closes question `id` without an answer, saying `why`: a tool's approval or question is
    /// denied with it (the model reads why); a form, or a question whose tool has finished,
    /// is closed as not answered in time.
    fn unanswered(&mut self, id: u64, why: &str) -> Vec<Value> {
        let response = match self.open.get(&id) {
            Some(open)
                if open.reply.is_some() && !matches!(open.prompt.request, Request::Input(_)) =>
            {
                Response::Denied(why.to_string())
            }
            _ => Response::TimedOut,
        };
        self.settle(id, response, Some(why))
    }

    /// Closes every late question with `response` (the run ends); their `question_closed`
    /// events.
    pub(crate) fn close_late(&mut self, response: Response) -> Vec<Value> {
        let late: Vec<u64> = self
            .open
            .iter()
            .filter(|(_, open)| open.reply.is_none())
            .map(|(id, _)| *id)
            .collect();
        let mut events = Vec::new();
        for id in late {
            events.extend(self.settle(id, response.clone(), None));
        }
        events
    }

    /// Ends open question `id` with `response`: the asking tool gets it (the turn then says the
    /// question closed), or a late question's is kept for [`Answers::take_late`] and its
    /// `question_closed` event returned here.
    fn settle(&mut self, id: u64, response: Response, why: Option<&str>) -> Vec<Value> {
        let Some(open) = self.open.remove(&id) else {
            return Vec::new();
        };
        if let Some(reply) = open.reply {
            reply.send(response);
            return Vec::new();
        }
        self.shown.remove(&id);
        let event = closed_event(id, &open.prompt, &response, open.correlation, why);
        self.late.push((id, response));
        vec![event]
    }

    /// One line of stdin: the answer to an open question, or an `answer_error` event.
    fn stdin_line(&mut self, line: &str) -> Vec<Value> {
        let parsed: Value = match serde_json::from_str(line) {
            Ok(value @ Value::Object(_)) => value,
            _ => {
                let why = "an answer is one JSON object per line, e.g. {\"id\": 1, \"answers\": [\"SQLite\"]}";
                return vec![answer_error(None, &why.into())];
            }
        };
        let Some(id) = parsed["id"].as_u64() else {
            let why = "the answer has no \"id\": give the id of the question it answers";
            return vec![answer_error(None, &why.into())];
        };
        self.answer(id, &parsed)
            .unwrap_or_else(|unfit| vec![answer_error(Some(id), &unfit)])
    }

    /// A body published to the phone's reply topic (JSON or words, carrying its question's
    /// secret): the answer, or why not, told back to the phone too.
    fn phone_body(&mut self, body: &str) -> Vec<Value> {
        let Some(phone) = &self.phone else {
            return Vec::new();
        };
        let read = phone.read(body);
        let answered = read.and_then(|(id, answer)| {
            self.answer(id, &answer)
                .map_err(|unfit| (Some(id), unfit.message))
        });
        match answered {
            Ok(events) => events,
            Err((id, why)) => {
                if let Some(phone) = &self.phone {
                    phone.refuse(id, &why);
                }
                vec![answer_error(id, &Unfit::from(why))]
            }
        }
    }

    /// `answer` to question `id`, when it is open and the answer fits.
    fn answer(&mut self, id: u64, answer: &Value) -> Result<Vec<Value>, Unfit> {
        let Some(open) = self.open.get(&id) else {
            let ids: Vec<String> = self.open.keys().map(u64::to_string).collect();
            let which = match ids.len() {
                0 => "no question is open".to_string(),
                _ => format!("the open ones are {}", ids.join(", ")),
            };
            return Err(format!("no open question has id {id}: {which}").into());
        };
        let response = response_to(&open.prompt.request, answer)?;
        Ok(self.settle(id, response, None))
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
