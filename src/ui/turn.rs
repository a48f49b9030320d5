//! The terminal during a turn: events to the view, Ctrl+C to cancel, and tools' questions
//! asked one at a time on a thread of their own. While a question is on the terminal, that
//! thread alone writes to it: the events and questions that arrive meanwhile wait here, in
//! order, and are shown once it is answered, so the session never stops pumping.

use std::collections::VecDeque;
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use super::ask::Asker;
use super::away::Away;
use super::output::Out;
use super::signal::Watch;
use super::terminal::{Handover, TerminalView};
use crate::interact::{Request, Response};
use crate::session::{Event, Interaction, Reply, TurnUi};

pub(crate) struct TerminalTurn<'a> {
    view: &'a mut TerminalView,
    watch: Watch,
    /// The question on the terminal now.
    open: Option<Open>,
    /// What arrived while it was open.
    waiting: VecDeque<Waiting>,
    /// Where a question left unanswered goes after a while (MARVIN_PHONE_TOPIC).
    away: Option<Away>,
}

struct Open {
    id: u64,
    reply: Reply,
    /// What is asked, and since when: for the phone, once it has waited long enough.
    request: Request,
    shown: Instant,
    /// Tells the asking thread to stop, and why: the question closed without its answer.
    withdrawn: Arc<OnceLock<String>>,
    thread: JoinHandle<()>,
}

enum Waiting {
    Event(Event),
    Question(Box<Interaction>),
}

impl TurnUi for TerminalTurn<'_> {
    fn event(&mut self, event: &Event) {
        if let Event::QuestionClosed { id, outcome, .. } = event {
            self.closed(*id, outcome);
        } else if self.open.is_some() {
            self.waiting.push_back(Waiting::Event(event.clone()));
        } else {
            self.view.on_event(event);
        }
    }

    fn ask(&mut self, interaction: Interaction) {
        if self.open.is_some() {
            self.waiting
                .push_back(Waiting::Question(Box::new(interaction)));
        } else {
            self.show(interaction);
        }
    }

    fn interrupted(&mut self) -> bool {
        if self.open.as_ref().is_some_and(|o| o.thread.is_finished()) {
            self.end_question("cancelled");
            self.catch_up();
        }
        if let Some(away) = &mut self.away {
            if let Some(open) = &self.open {
                away.tick(open.id, open.shown, &open.request, &open.reply);
            }
            away.poll();
        }
        if self.open.is_none() {
            self.show_problems();
            self.view.tick();
        }
        self.watch.fired() || self.view.is_broken()
    }
}

impl<'a> TerminalTurn<'a> {
    /// The turn on `view`; questions left unanswered go to the phone as `away` says.
    pub(crate) fn new(view: &'a mut TerminalView, away: Option<Away>) -> Self {
        view.begin_turn();
        Self {
            view,
            watch: Watch::new(),
            open: None,
            waiting: VecDeque::new(),
            away,
        }
    }

    /// What went wrong sending questions to the phone, once the terminal is free.
    fn show_problems(&mut self) {
        if let Some(away) = &mut self.away {
            for problem in away.take_problems() {
                self.view.warning(&problem);
            }
        }
    }

    /// After the turn: stops a question still shown and shows what waited (as dropping it
    /// does; this says so where it happens).
    pub(crate) fn close(mut self) {
        self.settle();
    }

    /// Question `id` is over (answered here or elsewhere, or given up): stop showing it, or
    /// forget it if it still waited.
    fn closed(&mut self, id: u64, outcome: &str) {
        if let Some(away) = &mut self.away {
            away.closed(id, outcome);
        }
        if self.open.as_ref().is_some_and(|o| o.id == id) {
            let why = match outcome {
                "cancelled" => outcome.to_string(),
                _ => format!("answered elsewhere: {outcome}"),
            };
            self.end_question(&why);
            self.catch_up();
        } else {
            self.waiting
                .retain(|w| !matches!(w, Waiting::Question(q) if q.id == id));
        }
    }

    /// Hands the terminal to a thread that asks the question and sends the answer.
    fn show(&mut self, interaction: Interaction) {
        let handover = self.view.hand_over();
        let withdrawn = Arc::new(OnceLock::new());
        let Interaction {
            id, prompt, reply, ..
        } = interaction;
        let (flag, answer, asked) = (Arc::clone(&withdrawn), reply.clone(), prompt.clone());
        let request = prompt.request.clone();
        let spawned = std::thread::Builder::new()
            .name("marvin-ask".into())
            .spawn(move || {
                let response = ask_on_terminal(handover, &asked, Some(flag));
                answer.send(response);
            });
        match spawned {
            Ok(thread) => {
                self.open = Some(Open {
                    id,
                    reply,
                    request,
                    shown: Instant::now(),
                    withdrawn,
                    thread,
                })
            }
            // No thread to spare: ask here, as before questions had threads of their own.
            Err(_) => reply.send(self.view.ask(&prompt)),
        }
    }

    /// Stops the open question, if any, saying `why`, and waits for its thread to give the
    /// terminal back (a thread that has answered already says nothing more).
    fn end_question(&mut self, why: &str) {
        if let Some(open) = self.open.take() {
            let _ = open.withdrawn.set(why.to_string());
            if open.thread.join().is_err() {
                // The question broke: the tool must not wait for it forever.
                open.reply.send(Response::Cancelled);
            }
        }
    }

    /// Shows what waited, up to the next question, which is then asked.
    fn catch_up(&mut self) {
        while self.open.is_none() {
            match self.waiting.pop_front() {
                Some(Waiting::Event(event)) => self.view.on_event(&event),
                Some(Waiting::Question(question)) => self.show(*question),
                None => break,
            }
        }
    }

    /// Nothing is asked any more; the events that waited are shown.
    fn settle(&mut self) {
        self.end_question("cancelled");
        self.show_problems();
        for waiting in std::mem::take(&mut self.waiting) {
            if let Waiting::Event(event) = waiting {
                self.view.on_event(&event);
            }
        }
    }
}

impl Drop for TerminalTurn<'_> {
    fn drop(&mut self) {
        self.settle();
    }
}

/// Asks `prompt` on the terminal as `handover` says, from whatever thread.
fn ask_on_terminal(
    handover: Handover,
    prompt: &crate::interact::Prompt,
    withdrawn: Option<Arc<OnceLock<String>>>,
) -> Response {
    let mut out = if handover.to_stderr {
        Out::stderr()
    } else {
        Out::stdout(false)
    };
    let mut asker = Asker::new(&mut out, handover.style, handover.dumb);
    asker.withdrawn = withdrawn;
    asker.ask(prompt)
}
