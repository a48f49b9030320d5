//! What a user's tool asks over `@@marvin-interact`, asked of the person: approvals kept as
//! Marvin's own grants in the tool's namespace, input forms asked again when the tool refuses
//! an answer (a reprompt, at most [`MAX_REPROMPTS`] in a row), questions left open when nobody
//! answers in time (pending, the late answer a message for the model), at most
//! [`MAX_QUESTIONS`] questions a call, and the replies for nobody there and for a cancelled
//! turn.

use std::cell::{Cell, RefCell};
use std::io::{Read, Write};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::pipe::Pipe;
use super::protocol::{self, Ask, Kind, With, plain, reply};
use super::{Definition, Origin};
use crate::interact::approvals::{Action, ActionKind};
use crate::interact::{
    self, FollowUp, InputForm, MAX_QUESTIONS, MAX_REPROMPTS, Outcome, Request, Response, Scope,
};
use crate::tools::ToolContext;
use crate::tools::ask::ask_user;

/// How the conversation with the tool ended.
pub(super) struct Talked {
    pub output: String,
    pub omitted: u64,
    /// A question parked the run (`--on-ask park`): the call is made again with the answer.
    pub parked: bool,
}

/// Answers the tool's requests until its stdout ends.
pub(super) fn converse<R: Read, W: Write>(
    def: &Definition,
    ctx: &ToolContext,
    pipe: Pipe<R, W>,
) -> Talked {
    let mut talk = Talk {
        def,
        ctx,
        pipe,
        parked: false,
        told: false,
        asked: 0,
    };
    while let Some(request) = talk.pipe.next_request() {
        talk.handle(&request);
    }
    let (output, omitted) = talk.pipe.finish();
    Talked {
        output,
        omitted,
        parked: talk.parked,
    }
}

struct Talk<'a, R: Read, W: Write> {
    def: &'a Definition,
    ctx: &'a ToolContext,
    pipe: Pipe<R, W>,
    parked: bool,
    /// The model was told that a tool not marked interactive asked.
    told: bool,
    /// Questions put to the person in this call (a remembered grant asks nobody).
    asked: usize,
}

/// What a question's handler does with the person's response, with the pipe to reply on.
type Respond<'r, R, W> = dyn FnMut(&mut Pipe<R, W>, Response) -> Outcome + 'r;

impl<R: Read, W: Write> Talk<'_, R, W> {
    fn handle(&mut self, request: &str) {
        if !self.pipe.interactive() {
            if std::mem::replace(&mut self.told, true) {
                return self.pipe.reply(Value::Null, true);
            }
            self.ctx.shared.notes.add(
                &self.ctx.call_id,
                format!(
                    "({} asked a question with @@marvin-interact, but its tool.json lacks \"interactive\": true, so it was not asked.)",
                    self.def.name
                ),
            );
            return self.pipe.reply(Value::Null, true);
        }
        let ask = match protocol::parse(request) {
            Ok(ask) => ask,
            Err(invalid) => {
                let old = invalid.get("action").is_none();
                return self.pipe.reply(invalid, old);
            }
        };
        if ask.error.is_some() {
            let why = "\"error\" asks an input form again right after its answer was submitted (a reprompt); this request follows no submitted form: leave \"error\" out, or put it in \"prompt\"";
            return self.pipe.reply(reply("invalid").with("error", why), false);
        }
        if self.ctx.interactor.is_none() {
            return self.pipe.reply(plain(&ask, "unavailable"), ask.old());
        }
        match &ask.kind {
            Kind::Approval(approval) => self.approval(&ask, approval),
            Kind::Input(input) => self.input(&ask, input),
            Kind::Questions(questions) => self.questions(&ask, questions),
        }
    }

    /// Approval: answered at once from an earlier grant for its key; else asked, a session or
    /// always grant kept with Marvin's own (`user-tool-ask:NAME:KEY`: apart from the grants of
    /// the tool's `approval` in tool.json, `user-tool:NAME:…`, which stand for other words).
    fn approval(&mut self, ask: &Ask, approval: &protocol::Approval) {
        let namespace = match self.def.origin {
            Origin::User => "user-tool-ask",
            Origin::Project => "project-tool-ask",
        };
        let name = &self.def.name;
        let grant_key = approval
            .key
            .as_ref()
            .map(|key| format!("{namespace}:{name}:{key}"));
        let action = Action {
            tool: name.clone(),
            kind: ActionKind::Act,
            key: grant_key
                .clone()
                // No key: once only, under a key no grant is ever given.
                .unwrap_or_else(|| format!("{namespace}:{name}")),
            scope: approval.key.as_ref().map(|key| {
                let key_grant = format!("{namespace}:{name}:{key}");
                (key_grant, format!("{name} approvals of {key}"))
            }),
            summary: approval.prompt.clone(),
            detail: approval.detail.clone(),
        };
        let grants = &self.ctx.shared.grants;
        let remembered = || match &grant_key {
            Some(key) if grants.granted(&action) => Some(match grants.always().contains(key) {
                true => Scope::Always,
                false => Scope::Session,
            }),
            _ => None,
        };
        if let Some(scope) = remembered() {
            return self
                .pipe
                .reply(protocol::approved(scope).with("remembered", true), false);
        }
        // The calls of a round ask one at a time: a grant given to one spares the next.
        let _turn = grants.one_at_a_time();
        if let Some(scope) = remembered() {
            return self
                .pipe
                .reply(protocol::approved(scope).with("remembered", true), false);
        }
        let request = Request::Approval(interact::Approval {
            tool: name.clone(),
            summary: approval.prompt.clone(),
            detail: approval.detail.clone(),
            covers: action.covers(),
            all_edits: false,
            scopes: approval.scopes.clone(),
        });
        let offered = approval.scopes.clone();
        let shared = Arc::clone(&self.ctx.shared);
        let call_id = self.ctx.call_id.clone();
        let grant = move |scope: Scope| -> Scope {
            let scope = match offered.contains(&scope) {
                true => scope,
                false => Scope::Once,
            };
            if let Err(error) = shared.grants.grant(&action, scope) {
                shared.notes.add(
                    &call_id,
                    format!("(The approval could not be saved for later: {error}.)"),
                );
            }
            scope
        };
        let late = follow_up(self, ask, None, Some(Box::new(grant.clone())));
        self.put(ask, request, late, &mut |pipe, response| {
            let answer = match response {
                Response::Approved(scope) => protocol::approved(grant(scope)),
                Response::Denied(reason) if !reason.trim().is_empty() => {
                    reply("deny").with("reason", reason.trim())
                }
                _ => reply("deny"),
            };
            pipe.reply(answer, false);
            Outcome::Complete(Ok(String::new()))
        });
    }

    /// An input form: the typed values go to the tool, which may refuse them and ask again
    /// with an `error` (a reprompt: shown with the error, the values filled in).
    fn input(&mut self, ask: &Ask, input: &protocol::Input) {
        let reprompts = Cell::new(0);
        let form = RefCell::new(input.form.clone());
        let late = follow_up(self, ask, Some(input.form.clone()), None);
        let request = Request::Input(input.form.clone());
        self.put(ask, request, late, &mut |pipe, response| {
            let values = match response {
                Response::Submitted(values) => values,
                Response::Denied(reason) if !reason.trim().is_empty() => {
                    pipe.reply(reply("cancel").with("reason", reason.trim()), false);
                    return Outcome::Complete(Ok(String::new()));
                }
                _ => {
                    pipe.reply(reply("cancel"), false);
                    return Outcome::Complete(Ok(String::new()));
                }
            };
            // Every surface checks the form; what it sends is checked again, and typed.
            let typed = match form.borrow().check(&Value::Object(values.clone())) {
                Ok(typed) => typed,
                Err(errors) => {
                    reprompts.set(reprompts.get() + 1);
                    let said: Vec<String> = errors.into_iter().map(|e| e.message).collect();
                    let again = form.borrow().clone().with_initial(&values);
                    return Outcome::Reprompt(Request::Input(again), said.join(" "));
                }
            };
            pipe.reply(reply("submit").with("input", typed.clone()), false);
            match asked_again(pipe, &typed) {
                None => Outcome::Complete(Ok(String::new())),
                Some(_) if reprompts.get() >= MAX_REPROMPTS => {
                    let why = format!(
                        "too many reprompts: the form was asked again {MAX_REPROMPTS} times in a row; go on without the answer, or say in the result what is wrong"
                    );
                    pipe.reply(reply("refused").with("error", why), false);
                    Outcome::Complete(Ok(String::new()))
                }
                Some((again, error)) => {
                    reprompts.set(reprompts.get() + 1);
                    *form.borrow_mut() = again.clone();
                    Outcome::Reprompt(Request::Input(again), error)
                }
            }
        });
    }

    /// The first protocol's questions, answered as they always were.
    fn questions(&mut self, ask: &Ask, questions: &[interact::Question]) {
        let late = follow_up(self, ask, None, None);
        let request = Request::Questions(questions.to_vec());
        self.put(ask, request, late, &mut |pipe, response| {
            let answer = match response {
                Response::Answers(answers) => {
                    ask_user::answers_json(questions, &answers).with("status", "answered")
                }
                _ => protocol::status("cancelled"),
            };
            pipe.reply(answer, true);
            Outcome::Complete(Ok(String::new()))
        });
    }

    /// One more question would pass [`MAX_QUESTIONS`] for this call: it is not asked, and the
    /// model is told once.
    fn too_many(&mut self) -> bool {
        self.asked += 1;
        if self.asked == MAX_QUESTIONS + 1 {
            self.ctx.shared.notes.add(
                &self.ctx.call_id,
                format!(
                    "({} asked the person more than {MAX_QUESTIONS} questions in one call: Marvin refused the rest, so its result may lack answers it wanted. If you need more from the person, ask them in plain text.)",
                    self.def.name
                ),
            );
        }
        self.asked > MAX_QUESTIONS
    }

    /// Asks the person; `respond` replies to what they did. Nobody answering in time gives
    /// `timeout`, or `pending` with the question left open; a cancelled turn `cancelled`.
    fn put(&mut self, ask: &Ask, request: Request, late: FollowUp, respond: &mut Respond<R, W>) {
        let old = ask.old();
        if self.too_many() {
            let why = format!(
                "too many questions: this call has asked the person {MAX_QUESTIONS} times, the most one call may; go on without the answer, or end and say in the result what is missing"
            );
            let refused = match old {
                true => protocol::status("cancelled"),
                false => reply("refused"),
            };
            return self.pipe.reply(refused.with("error", why), old);
        }
        let ctx = self.ctx;
        let pipe = RefCell::new(&mut self.pipe);
        let went_pending = Cell::new(false);
        let result = {
            let mut on_response = |response| respond(&mut pipe.borrow_mut(), response);
            let mut on_timeout = || match &ask.pending {
                Some(pending) => {
                    went_pending.set(true);
                    Outcome::Pending(pending.message.clone().unwrap_or_default())
                }
                None => {
                    pipe.borrow_mut().reply(plain(ask, "timeout"), old);
                    Outcome::Complete(Ok(String::new()))
                }
            };
            let mut on_cancel = || pipe.borrow_mut().reply(plain(ask, "cancelled"), old);
            let timeout = ask.pending.as_ref().map_or(ask.timeout, |p| p.after);
            let question = interact::Ask {
                request,
                timeout,
                presentation: ask.presentation,
                completed: ask.completed.clone(),
            };
            let hooks = interact::Hooks {
                on_response: &mut on_response,
                on_timeout: &mut on_timeout,
                on_cancel: &mut on_cancel,
                follow_up: Some(late),
            };
            ctx.request_interaction(question, hooks)
        };
        let pipe = pipe.into_inner();
        if went_pending.get() {
            let message = ask
                .pending
                .as_ref()
                .and_then(|p| p.message.as_deref())
                .map_or(String::new(), |m| format!(" ({m})"));
            ctx.shared.notes.add(
                &ctx.call_id,
                format!(
                    "(The question \"{}\" is still open{message}: the person's answer will come as a message later.)",
                    ask.gist()
                ),
            );
            return pipe.reply(plain(ask, "pending"), old);
        }
        let fallback = match result {
            Ok(_) => return,
            Err(why) if why == interact::PARKED => {
                self.parked = true;
                plain(ask, "cancelled")
            }
            Err(why) if interact::is_nobody_answers(&why) => plain(ask, "unavailable"),
            Err(why) if why == interact::CANCELLED => plain(ask, "cancelled"),
            Err(why) if old => protocol::status("cancelled").with("error", why),
            Err(why) => reply("refused").with("error", why),
        };
        pipe.reply(fallback, old);
    }
}

/// After a submitted form: the tool's next request, when it asks the form again (an input
/// request with an `error`), as the form to show (the last values filled in, unless it gives
/// its own) and the error. Anything else it sends is kept for the conversation to handle.
fn asked_again<R: Read, W: Write>(
    pipe: &mut Pipe<R, W>,
    last: &Map<String, Value>,
) -> Option<(InputForm, String)> {
    let next = pipe.next_request()?;
    match protocol::parse(&next) {
        Ok(Ask {
            kind: Kind::Input(again),
            error: Some(error),
            ..
        }) => {
            let form = match again.initial_given {
                true => again.form,
                false => again.form.with_initial(last),
            };
            Some((form, error))
        }
        _ => {
            pipe.put_back(next);
            None
        }
    }
}

/// What a late answer (to a question left open) tells the model, and for an approval the
/// grant it gives.
fn follow_up<R: Read, W: Write>(
    talk: &Talk<'_, R, W>,
    ask: &Ask,
    form: Option<InputForm>,
    grant: Option<Box<dyn Fn(Scope) -> Scope + Send>>,
) -> FollowUp {
    let (tool, gist) = (talk.def.name.clone(), ask.gist());
    Box::new(move |response: &Response| {
        let said = match (response, &form, &grant) {
            (Response::Submitted(input), Some(form), _) => form.summary(input),
            (Response::Approved(scope), _, Some(grant)) => {
                interact::describe(&Response::Approved(grant(*scope)))
            }
            _ => interact::describe(response),
        };
        format!("The person answered the earlier question of {tool} (\"{gist}\"): {said}")
    })
}

#[cfg(test)]
mod tests;
