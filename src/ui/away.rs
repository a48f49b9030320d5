//! A question left unanswered at the REPL goes to the phone: once it has waited
//! MARVIN_PHONE_AFTER minutes, it is sent by ntfy to MARVIN_PHONE_TOPIC with buttons, or words
//! to type, that answer it (see `phone`). The terminal keeps asking; the first answer from
//! either counts, and the other is told: the terminal says it was answered elsewhere, the
//! phone gets a notification that it was answered at the terminal. An answer from the phone
//! that does not fit is told back to the phone.

use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver};
use std::time::Instant;

use super::ask_json::response_to;
use super::phone::{Phone, tell};
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
        match phone.send(id, request, None) {
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

    /// Answers that came from the phone: one carrying its question's secret (or code) and
    /// fitting the question answers it (if the terminal has not already); one that does not
    /// fit, or carries neither, is told back to the phone, saying what to change.
    pub(crate) fn poll(&mut self) {
        let Some((phone, lines)) = &self.phone else {
            return;
        };
        while let Ok(Some(body)) = lines.try_recv() {
            let answered = phone.read(&body).and_then(|(id, answer)| {
                // A question over already: the phone was told when it closed.
                let Some((request, reply)) = self.sent.get(&id) else {
                    return Ok(());
                };
                let response = response_to(request, &answer).map_err(|u| (Some(id), u.message))?;
                self.answered_there.insert(id, describe_response(&response));
                reply.send(response);
                Ok(())
            });
            if let Err((id, why)) = answered {
                phone.refuse(id, &why);
                self.problems
                    .push(format!("the phone's answer was not used: {why}"));
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
        let message = match outcome {
            "cancelled" | "timed out" => format!("The question is over: {outcome}"),
            answered => format!("Answered at the terminal: {answered}"),
        };
        // On a thread of its own: the terminal must not wait for the phone.
        tell(
            &self.ntfy,
            &self.relay.topic,
            "Marvin: question answered",
            message,
        );
    }

    /// What went wrong since the last look.
    pub(crate) fn take_problems(&mut self) -> Vec<String> {
        std::mem::take(&mut self.problems)
    }
}
