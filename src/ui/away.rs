//! A question left unanswered at the REPL goes to the phone: once it has waited
//! MARVIN_PHONE_AFTER minutes, it is sent by ntfy to MARVIN_PHONE_TOPIC with buttons that answer
//! it (see `phone`). The terminal keeps asking; the first answer from either counts, and the
//! other is told: the terminal says it was answered elsewhere, the phone gets a notification
//! that it was answered at the terminal.

use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::batch_ask::response_to;
use super::phone::Phone;
use crate::cancel::CancelToken;
use crate::config::PhoneRelay;
use crate::interact::Request;
use crate::session::{Reply, describe_response};
use crate::tools::everyday::ntfy::Ntfy;

pub(crate) struct Away {
    ntfy: Ntfy,
    relay: PhoneRelay,
    /// Started with the first question sent; `None` before, or when it could not start.
    phone: Option<(Phone, Receiver<Option<String>>)>,
    /// The phone could not be reached: nothing more is sent this turn.
    unreachable: bool,
    /// The questions on the phone, by id: what was asked and how to answer it.
    sent: HashMap<u64, (Request, Reply)>,
    /// The answers the phone sent, by question, in the words a closed question's outcome has:
    /// when the question closes with that outcome, the phone's answer counted.
    answered_there: HashMap<u64, String>,
    /// What went wrong, to show once the terminal is free.
    problems: Vec<String>,
}

impl Away {
    pub(crate) fn new(ntfy: Ntfy, relay: PhoneRelay) -> Self {
        Self {
            ntfy,
            relay,
            phone: None,
            unreachable: false,
            sent: HashMap::new(),
            answered_there: HashMap::new(),
            problems: Vec::new(),
        }
    }

    /// Question `id`, on the terminal since `shown`: sent to the phone once it has waited long
    /// enough (a page to fill in stays on this machine).
    pub(crate) fn tick(&mut self, id: u64, shown: Instant, request: &Request, reply: &Reply) {
        let due = shown.elapsed() >= self.relay.after;
        if !due || self.unreachable || self.sent.contains_key(&id) {
            return;
        }
        if matches!(request, Request::Form(_)) {
            return;
        }
        if self.phone.is_none() {
            let (sender, lines) = mpsc::channel();
            match Phone::start(self.ntfy.clone(), self.relay.topic.clone(), sender) {
                Ok(phone) => self.phone = Some((phone, lines)),
                Err(why) => return self.give_up(&why),
            }
        }
        let Some((phone, _)) = &mut self.phone else {
            return;
        };
        match phone.send(id, request) {
            Ok(()) => {
                self.sent.insert(id, (request.clone(), reply.clone()));
            }
            Err(why) => self.give_up(&why),
        }
    }

    fn give_up(&mut self, why: &str) {
        self.unreachable = true;
        self.problems.push(format!(
            "the question could not be sent to the phone (MARVIN_PHONE_TOPIC): {why}"
        ));
    }

    /// Answers that came from the phone: one carrying its question's secret and fitting the
    /// question answers it (if the terminal has not already).
    pub(crate) fn poll(&mut self) {
        let Some((phone, lines)) = &self.phone else {
            return;
        };
        let mut answers = Vec::new();
        while let Ok(Some(line)) = lines.try_recv() {
            let Ok(answer) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let Some(id) = answer["id"].as_u64() else {
                continue;
            };
            if !phone.vouches_for(id, &answer) {
                self.problems.push(
                    "an answer on the phone's reply topic did not carry its question's secret: it was ignored"
                        .into(),
                );
                continue;
            }
            answers.push((id, answer));
        }
        for (id, answer) in answers {
            let Some((request, reply)) = self.sent.get(&id) else {
                continue;
            };
            match response_to(request, &answer) {
                Ok(response) => {
                    self.answered_there.insert(id, describe_response(&response));
                    reply.send(response);
                }
                Err(why) => self
                    .problems
                    .push(format!("the phone's answer was not usable: {why}")),
            }
        }
    }

    /// Question `id` is over with `outcome`: a phone that showed it and did not answer it is
    /// told, so nobody answers it twice.
    pub(crate) fn closed(&mut self, id: u64, outcome: &str) {
        let phone_won = self.answered_there.remove(&id).as_deref() == Some(outcome);
        if self.sent.remove(&id).is_none() || phone_won {
            return;
        }
        let (ntfy, topic) = (self.ntfy.clone(), self.relay.topic.clone());
        let message = match outcome {
            "cancelled" | "timed out" => format!("The question is over: {outcome}"),
            answered => format!("Answered at the terminal: {answered}"),
        };
        // On a thread of its own: the terminal must not wait for the phone.
        let _ = std::thread::Builder::new()
            .name("marvin-phone-told".into())
            .spawn(move || {
                let _ = ntfy.publish(
                    &topic,
                    Some("Marvin: question answered"),
                    &message,
                    Duration::from_secs(10),
                    &CancelToken::new(),
                );
            });
    }

    /// What went wrong since the last look.
    pub(crate) fn take_problems(&mut self) -> Vec<String> {
        std::mem::take(&mut self.problems)
    }
}
