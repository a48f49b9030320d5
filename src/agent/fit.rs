//! What is sent always fits the model that answers. Before each model call the budget follows
//! that model's window (its provider learns it at the first call); a model that cannot call
//! tools is offered none and its system prompt says so; a request that would not fit is
//! compacted, then sent without the tools' definitions, then cut, each with a notice. The
//! server never has to refuse it, nor cut it without a word.

use std::sync::atomic::Ordering;

use serde_json::value::RawValue;

use super::{AgentEvent, Turn, compact, lock};
use crate::budget::Budget;
use crate::llm::{ErrorKind, LlmError};
use crate::message::{Message, Role};
use crate::prompt::{essential, without_tools};

/// What a request carries once fitted: the tools it offers and its estimated size.
pub(crate) struct Fitted<'a> {
    pub tools: Option<&'a RawValue>,
    pub tokens: usize,
}

/// Fits the next request (`messages`, offering `tools`) to the model that will answer;
/// `compact_first` compacts whatever the estimate says (the server refused a request as too
/// long). Tools whose definitions alone would crowd the conversation out are withheld before
/// anything is compacted for them.
pub(crate) fn fit<'a>(
    turn: &Turn<'_>,
    messages: &mut Vec<Message>,
    tools: Option<&'a RawValue>,
    compact_first: bool,
) -> Result<Fitted<'a>, LlmError> {
    let mut tools = offer(turn, messages, tools);
    too_small(turn, messages)?;
    if tools.is_some() && crowds_out(&lock(turn.budget)) {
        tools = None;
        drop_tools(turn, messages);
    }
    let requested = turn
        .ctx
        .shared
        .compact_requested
        .swap(false, Ordering::SeqCst);
    let needed = {
        let budget = lock(turn.budget);
        budget.needs_compaction(messages) || !budget.fits(messages)
    };
    if compact_first || requested || needed {
        compact(turn, messages);
    }
    if tools.is_some() && !lock(turn.budget).fits(messages) {
        tools = None;
        drop_tools(turn, messages);
    }
    cut_if_needed(turn, messages);
    Ok(Fitted {
        tools,
        tokens: lock(turn.budget).request(messages),
    })
}

/// Characters of the person's last message a request must be able to hold whole: a longer
/// one (a piped log) may be cut to fit, a question must not be.
const QUESTION: usize = 1000;

/// A window that cannot hold even the essentials of the system prompt and the start of the
/// person's message (a server misconfigured, or one that lies: a window of 3 tokens) would
/// have the request cut to notes: it is refused, and what was learned of the model is
/// forgotten, so that a server put right is asked again.
fn too_small(turn: &Turn<'_>, messages: &[Message]) -> Result<(), LlmError> {
    let budget = lock(turn.budget);
    let (Some(room), Some(model)) = (budget.room(), budget.model()) else {
        return Ok(());
    };
    let system = messages.first().filter(|m| m.role == Role::System);
    let question = messages.iter().rev().find(|m| m.role == Role::User);
    let mut least = vec![Message::system(essential(system.map_or("", Message::text)))];
    if let Some(question) = question {
        let text = question.text();
        least.push(Message::user(match text.char_indices().nth(QUESTION) {
            Some((end, _)) => &text[..end],
            None => text,
        }));
    }
    let needed = budget.estimate(&least);
    if needed <= room {
        return Ok(());
    }
    let message = format!(
        "the model's window is {} tokens (from {}): too small for Marvin's instructions and your message (about {needed} tokens) and an answer, so nothing was sent; start the model's server with a larger context (llama.cpp: --ctx-size, vLLM: --max-model-len, LM Studio: the model's context length, Ollama: num_ctx), or choose another model",
        model.window, model.source
    );
    drop(budget);
    turn.providers.active().forget();
    Err(LlmError::new(ErrorKind::BadRequest, message))
}

/// The budget follows the model that will answer, and the tools it can be offered: none to a
/// model that cannot call them (said once a session).
fn offer<'a>(
    turn: &Turn<'_>,
    messages: &mut [Message],
    tools: Option<&'a RawValue>,
) -> Option<&'a RawValue> {
    let provider = turn.providers.active();
    let facts = provider.facts(&turn.ctx.cancel);
    let mut budget = lock(turn.budget);
    budget.follow(&facts);
    let offered = tools.filter(|_| facts.tools);
    budget.set_tools(offered.map(RawValue::get));
    if tools.is_some() && offered.is_none() {
        withhold_tools(messages);
        if !std::mem::replace(&mut budget.told_no_tools, true) {
            drop(budget);
            notice(
                turn,
                format!(
                    "the model {} cannot call tools: it is offered none this session",
                    provider.model()
                ),
            );
        }
    }
    offered
}

/// The tools' definitions would leave the conversation less than a third of what a request
/// may hold: no compaction could make room enough.
fn crowds_out(budget: &Budget) -> bool {
    budget
        .room()
        .is_some_and(|room| budget.tools() > room / 3 * 2)
}

/// The system prompt of a request that offers no tools says so.
fn withhold_tools(messages: &mut [Message]) {
    if let Some(system) = messages.first_mut() {
        system.content = Some(without_tools(system.text()));
    }
}

/// The tools' definitions leave too little room: the request goes without them (said once a
/// session).
fn drop_tools(turn: &Turn<'_>, messages: &mut [Message]) {
    let (tools, window, told) = {
        let mut budget = lock(turn.budget);
        let tools = budget.tools();
        budget.set_tools(None);
        let window = budget.model().map_or(budget.hard, |m| m.window);
        (
            tools,
            window,
            std::mem::replace(&mut budget.told_no_tools, true),
        )
    };
    withhold_tools(messages);
    if !told {
        notice(
            turn,
            format!(
                "the tools' definitions (about {tools} tokens) leave too little of the model's window of {window} tokens for the conversation: the model is offered no tools while they do not fit"
            ),
        );
    }
}

/// Cuts the longest messages when even a compacted conversation does not fit.
fn cut_if_needed(turn: &Turn<'_>, messages: &mut [Message]) {
    let budget = lock(turn.budget);
    if budget.fits(messages) {
        return;
    }
    let before = budget.request(messages);
    let cut = budget.cut_to_fit(messages);
    let room = budget.room().unwrap_or(budget.hard);
    drop(budget);
    notice(
        turn,
        format!(
            "the request (about {before} tokens) does not fit the {room} tokens the model's window holds besides its answer, even compacted: the end of its {cut} longest message(s) was cut"
        ),
    );
}

fn notice(turn: &Turn<'_>, text: String) {
    (turn.emit)(AgentEvent::Notice(text));
}
