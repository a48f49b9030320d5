//! Questions a tool left open when it finished without their answer (seed 003's "pending"),
//! in a non-interactive run: once the turn has answered, they are asked again where the run
//! asks (the --json stream, the phone), marked `"late": true`, and the run waits for them as
//! for any question. An answer that comes is handed to the model as the prompt of a follow-up
//! turn, whose answer is the run's. A question still open when the run ends first (stdin
//! closed, its ten minutes or `--on-ask wait` up, the run stopped) is closed unanswered, and
//! its answer can no longer reach the model.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use super::BatchView;
use crate::interact::{DEFAULT_TIMEOUT, Response, STILL_OPEN};
use crate::session::{Deferred, Session, TurnEnd, TurnReport};

/// How often the surfaces are looked at while only late questions are open.
const POLL: Duration = Duration::from_millis(50);

impl BatchView {
    /// After the turn `report`: asks the questions left open, and runs a turn for the answers
    /// that came, as long as new ones are left open. Returns the last turn's report, its
    /// tally the whole run's; a run stopped while waiting ends as cancelled.
    pub(crate) fn late_answers(
        &mut self,
        session: &mut Session,
        mut report: TurnReport,
    ) -> TurnReport {
        loop {
            let deferred = session.take_deferred();
            // A turn that did not answer leaves its questions with it.
            if deferred.is_empty() || !matches!(report.end, TurnEnd::Answered(_)) {
                return report;
            }
            self.say_answer(&report);
            if self.wait_for_late(session, deferred) == Waited::Stopped {
                report.end = TurnEnd::Cancelled;
                return report;
            }
            let Some(mut next) = session.submit_follow_ups(self) else {
                return report;
            };
            self.answer_said = false;
            next.tally.add(&report.tally);
            next.elapsed += report.elapsed;
            report = next;
        }
    }

    /// Writes the answer of a turn whose run goes on: its `message` event, or the newline
    /// that ends it.
    fn say_answer(&mut self, report: &TurnReport) {
        let TurnEnd::Answered(message) = &report.end else {
            return;
        };
        if self.json {
            self.emit(json!({"type": "message", "text": message.text()}));
        } else {
            self.held_breaks.clear();
            self.out.write("\n");
        }
        self.out.flush();
        self.answer_said = true;
    }

    /// Asks `deferred` again and waits until each is answered or closed; the answers go to
    /// the session for the next turn.
    fn wait_for_late(&mut self, session: &mut Session, deferred: Vec<Deferred>) -> Waited {
        let mut waiting = BTreeMap::new();
        for mut late in deferred {
            let id = session.next_question_id();
            late.prompt.error = Some(STILL_OPEN.into());
            late.prompt.timeout = DEFAULT_TIMEOUT;
            let mut correlation = late.correlation.clone();
            correlation.interaction_id = id.to_string();
            correlation.timestamp = crate::clock::iso8601_millis(std::time::SystemTime::now());
            let Some(answers) = self.answers() else {
                // Nobody can be asked (the phone could not be reached): nothing waits.
                return Waited::Done;
            };
            let mut events = answers.ask_late(id, late.prompt.clone(), correlation);
            if let Some(Value::Object(asked)) = events.first_mut() {
                asked.insert("late".into(), Value::Bool(true));
            }
            self.asked(events);
            waiting.insert(id, late);
        }
        while !waiting.is_empty() {
            let Some(answers) = self.answers.as_mut() else {
                return Waited::Done;
            };
            let stopped = self.watch.fired() || self.out.is_broken();
            let events = match stopped {
                true => answers.close_late(Response::Cancelled),
                false => answers.poll(),
            };
            let settled = answers.take_late();
            self.asked(events);
            for (id, response) in settled {
                if let Some(late) = waiting.remove(&id) {
                    session.answer_later(late, &response);
                }
            }
            if stopped {
                return Waited::Stopped;
            }
            if !waiting.is_empty() {
                std::thread::sleep(POLL);
            }
        }
        Waited::Done
    }
}

/// How waiting for late answers ended.
#[derive(PartialEq)]
enum Waited {
    /// Each was answered or closed.
    Done,
    /// The run was stopped (a signal, a closed stdout).
    Stopped,
}
