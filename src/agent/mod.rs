//! The tool loop: ask the model, run the tools it calls (the calls of one round in parallel),
//! feed the results back, until it answers in text or the round cap is reached.

mod fit;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::budget::Budget;

use crate::llm::api_error::CONTEXT_ADVICE;
use crate::llm::chain::ProviderChain;
use crate::llm::{ChatRequest, ChatResult, ErrorKind, LlmError};
use crate::message::{Message, ToolCall, Usage};
use crate::tools::{Registry, ToolContext, ToolOutcome};
use fit::fit;

/// What the loop reports while it works, in order. The session turns each into the
/// `session::Event` its front-ends see; the loop knows nothing of them.
#[derive(Debug, Clone)]
pub enum AgentEvent {
    /// A piece of the model's answer.
    Text(String),
    /// Something the user should know (a retry after a rate limit).
    Notice(String),
    /// A model call finished; its usage, if the service reported any, and whether its
    /// answer was cut at the cap (`finish_reason: length`).
    ModelCall {
        model: String,
        usage: Option<Usage>,
        cut: bool,
    },
    ToolRoundStarted {
        round: usize,
        calls: Vec<ToolCall>,
    },
    ToolFinished {
        round: usize,
        call: ToolCall,
        elapsed: Duration,
        outcome: ToolOutcome,
    },
    ToolRoundFinished {
        round: usize,
        elapsed: Duration,
    },
    /// A call under way says how far it is (a download's bytes so far).
    ToolProgress {
        call_id: String,
        text: String,
    },
    /// The tools the next request offers changed (the first request of the turn, or a
    /// family loaded on the way): their families and why each is there, how many tools,
    /// and the bytes of their definitions.
    ToolsOffered {
        families: Vec<(String, String)>,
        tools: usize,
        bytes: usize,
    },
}

/// Everything one turn needs besides the conversation.
pub struct Turn<'a> {
    pub providers: &'a ProviderChain,
    pub registry: &'a Registry,
    pub ctx: &'a ToolContext,
    pub max_rounds: usize,
    pub emit: &'a (dyn Fn(AgentEvent) + Sync),
    /// The session's context budget, and where compaction backs the conversation up.
    pub budget: &'a Mutex<Budget>,
    pub backup_dir: &'a Path,
}

/// Runs one turn on `messages` (which end with the user's message) and returns the answer.
/// Each round of tool calls and the answer are appended to `messages`, a round stopped by a
/// cancel too (each call with its result, so the next turn knows what was attempted); a model
/// call that fails or is cancelled adds nothing, so the conversation always stays well-formed.
pub fn run_turn(turn: &Turn<'_>, messages: &mut Vec<Message>) -> Result<Message, LlmError> {
    // A project's MCP servers are asked about here, on the worker, where a question reaches
    // the person (a run without anyone to ask did this before the turn).
    if let (Some(hub), Some(_)) = (turn.registry.mcp(), &turn.ctx.interactor) {
        hub.prepare(turn.ctx, false);
    }
    // The families the conversation used before (one taken up) and those the person's last
    // message asks for, the MCP servers' just started among them, are offered from the first
    // request on.
    turn.registry.remember(turn.ctx, messages);
    let asked = messages
        .iter()
        .rev()
        .find(|m| m.role == crate::message::Role::User)
        .and_then(|m| m.content.as_deref())
        .map(crate::prompt::unstamped);
    if let Some(asked) = asked {
        turn.registry.route(turn.ctx, asked);
    }
    let mut offer = OfferedTools::default();
    let cancel = &turn.ctx.cancel;
    for round in 1.. {
        let last_call = round > turn.max_rounds;
        // What the model may be offered now: a family loaded in the last round comes in; the
        // request is then fitted to the model's window (see `call_model`).
        let mut offered = offer.now(turn);
        let sent_before_cancel = !cancel.is_cancelled();
        let result = match call_model(turn, messages, &mut offered, last_call) {
            Ok(result) => result,
            // A call cancelled on its way was made all the same (the provider may bill what
            // it sent): it counts, with its usage unknown.
            Err(error) if error.kind == ErrorKind::Cancelled && sent_before_cancel => {
                (turn.emit)(AgentEvent::ModelCall {
                    model: turn.providers.active().model().to_string(),
                    usage: None,
                    cut: false,
                });
                return Err(error);
            }
            Err(error) => return Err(error),
        };
        if let Some(usage) = &result.usage {
            lock(turn.budget).calibrate(messages, usage.input_tokens);
        }
        (turn.ctx.shared.turn_usage.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .record(turn.providers.active().model(), result.usage.as_ref());
        let cut = result.finish_reason.as_deref() == Some("length");
        (turn.emit)(AgentEvent::ModelCall {
            model: turn.providers.active().model().to_string(),
            usage: result.usage,
            cut,
        });
        if cut {
            let cap = crate::llm::window::answer_room(turn.providers.active().facts(cancel).window);
            (turn.emit)(AgentEvent::Notice(format!(
                "the answer was cut off at its limit (about {cap} tokens, the room the model's window leaves for it); say \"go on\" for the rest"
            )));
        }
        let mut message = result.message;
        if message.tool_calls.is_empty() || last_call {
            message.tool_calls.clear();
            if message.content.is_none() {
                message.content = Some(String::new());
            }
            messages.push(message.clone());
            return Ok(message);
        }
        let mut results = run_round(turn, round, &message.tool_calls);
        lock(turn.budget).shrink_arguments(&mut message);
        // Make room first rather than cut this round's results to nothing.
        let crowded = {
            let budget = lock(turn.budget);
            let incoming =
                budget.estimate(&results) + budget.estimate(std::slice::from_ref(&message));
            budget.estimate(messages) + incoming >= budget.warn
        };
        if crowded {
            compact(turn, messages);
        }
        messages.push(message);
        // Tools return everything; the loop decides what fits the context.
        let contents = results
            .iter_mut()
            .map(|r| r.content.take().unwrap_or_default())
            .collect();
        let fitted = lock(turn.budget).fit_round(messages, contents);
        for (mut result, content) in results.into_iter().zip(fitted) {
            result.content = Some(content);
            messages.push(result);
        }
        // A round stopped by a cancel is kept with what each call said (finished, or stopped
        // part-way: a write may have happened), so the next turn knows what was attempted.
        // A parked question stops the turn the same way, once the round's other calls are done.
        if cancel.is_cancelled() || turn.ctx.shared.parked.any() {
            return Err(LlmError::cancelled());
        }
    }
    unreachable!("the loop returns at the latest after max_rounds + 1 calls")
}

/// The tool definitions of a turn's requests, made again when the session has loaded a family
/// since the last request (a `find_tools`, a call of a tool not offered), and said when they
/// change.
#[derive(Default)]
struct OfferedTools {
    /// The offer's version they were made for; `None` before the first request.
    made_for: Option<u64>,
    definitions: Option<Box<serde_json::value::RawValue>>,
}

impl OfferedTools {
    fn now(&mut self, turn: &Turn<'_>) -> Option<&serde_json::value::RawValue> {
        let count = turn.ctx.shared.offer.version();
        if self.made_for != Some(count) {
            self.made_for = Some(count);
            self.definitions = turn.registry.definitions(turn.ctx);
            let families = turn.registry.offered_families(turn.ctx);
            (turn.emit)(AgentEvent::ToolsOffered {
                families,
                tools: turn.registry.names(turn.ctx).len(),
                bytes: self.definitions.as_ref().map_or(0, |d| d.get().len()),
            });
        }
        self.definitions.as_deref()
    }
}

/// Takes up a turn that was parked on a question: the calls `parked` of the last round are
/// made again, one after the other (the first question asked gets the answer that came), and
/// their new results take the place of the old; `run_turn` then goes on. Stops, as a cancel
/// does, when a call parks again (the others are still made: each parks or finishes).
pub fn resume_turn(
    turn: &Turn<'_>,
    messages: &mut [Message],
    parked: &[String],
) -> Result<(), LlmError> {
    let calls: Vec<ToolCall> = messages
        .iter()
        .rev()
        .find(|m| !m.tool_calls.is_empty())
        .map(|m| {
            m.tool_calls
                .iter()
                .filter(|c| parked.contains(&c.id))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    for call in &calls {
        let result = run_round(turn, 1, std::slice::from_ref(call));
        let content = result
            .into_iter()
            .next()
            .and_then(|m| m.content)
            .unwrap_or_default();
        let fitted = lock(turn.budget).fit_round(messages, vec![content]);
        let slot = messages
            .iter_mut()
            .rev()
            .find(|m| m.tool_call_id.as_deref() == Some(call.id.as_str()));
        if let Some(slot) = slot {
            slot.content = fitted.into_iter().next();
        }
        if turn.ctx.cancel.is_cancelled() {
            return Err(LlmError::cancelled());
        }
    }
    if turn.ctx.shared.parked.any() {
        return Err(LlmError::cancelled());
    }
    Ok(())
}

/// One model call, fitted to the model that answers (see `fit`). Tools withheld from it stay
/// withheld for the rest of the turn (`offered`). A refusal the next try can avoid is tried
/// once more: a request the server found too long (or a fallback with a smaller window) after
/// compacting again, tools the server would not take without them.
fn call_model(
    turn: &Turn<'_>,
    messages: &mut Vec<Message>,
    offered: &mut Option<&serde_json::value::RawValue>,
    last_call: bool,
) -> Result<ChatResult, LlmError> {
    let (mut retried, mut compact_again) = (false, false);
    loop {
        let tools = if last_call { None } else { *offered };
        let fitted = fit(turn, messages, tools, compact_again)?;
        if tools.is_some() && fitted.tools.is_none() {
            *offered = None;
        }
        let request = ChatRequest {
            messages,
            tools: fitted.tools,
            tokens: fitted.tokens,
        };
        let mut on_text = |text: &str| (turn.emit)(AgentEvent::Text(text.to_string()));
        let mut notice = |text: String| (turn.emit)(AgentEvent::Notice(text));
        let answered = turn
            .providers
            .chat(&request, &mut on_text, &turn.ctx.cancel, &mut notice);
        // The text the worker holds goes on now, whatever comes next.
        crate::llm::progress::before_wait();
        let error = match answered {
            Ok(result) => return Ok(result),
            Err(error) => error,
        };
        let again = match error.kind {
            ErrorKind::ContextLength => true,
            ErrorKind::ToolsRefused => fitted.tools.is_some(),
            _ => false,
        };
        if retried || !again {
            return Err(error);
        }
        retried = true;
        compact_again = error.kind == ErrorKind::ContextLength;
        let refusal = error.message.trim_end_matches(CONTEXT_ADVICE);
        (turn.emit)(AgentEvent::Notice(format!(
            "{}; trying again with a request that fits",
            refusal.trim_end_matches('.')
        )));
    }
}

pub(crate) fn lock(budget: &Mutex<Budget>) -> std::sync::MutexGuard<'_, Budget> {
    budget.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) fn compact(turn: &Turn<'_>, messages: &mut Vec<Message>) {
    let result = lock(turn.budget).compact(messages, turn.backup_dir);
    let notice = match result {
        Ok(done) if done.dropped + done.shortened == 0 => return,
        Ok(done) => format!(
            "context compacted: {} older messages summarised, {} old tool results shortened; the full conversation is in {}",
            done.dropped,
            done.shortened,
            done.backup.display()
        ),
        Err(error) => format!(
            "the context could not be compacted: cannot back it up in {}: {error}",
            turn.backup_dir.display()
        ),
    };
    (turn.emit)(AgentEvent::Notice(notice));
}

/// Runs the calls of one round in parallel; results come back in call order.
fn run_round(turn: &Turn<'_>, round: usize, calls: &[ToolCall]) -> Vec<Message> {
    (turn.emit)(AgentEvent::ToolRoundStarted {
        round,
        calls: calls.to_vec(),
    });
    let started = Instant::now();
    let run_one = |call: &ToolCall| {
        let begun = Instant::now();
        let outcome = turn.registry.execute(call, turn.ctx);
        (turn.emit)(AgentEvent::ToolFinished {
            round,
            call: call.clone(),
            elapsed: begun.elapsed(),
            outcome: outcome.clone(),
        });
        outcome
    };
    let outcomes = run_parallel(calls, &run_one);
    (turn.emit)(AgentEvent::ToolRoundFinished {
        round,
        elapsed: started.elapsed(),
    });
    calls
        .iter()
        .zip(outcomes)
        .map(|(call, outcome)| Message::tool_result(call, outcome.content))
        .collect()
}

/// Tool calls of one round that run at the same time.
const MAX_PARALLEL: usize = 8;

/// Runs `run_one` for every call on at most [`MAX_PARALLEL`] threads at once (a model that asks
/// for 500 commands in one round must not start 500 processes); outcomes in call order. A
/// worker thread that cannot be started leaves its calls to the others; a tool that panics past
/// the registry's guard fails alone.
fn run_parallel(
    calls: &[ToolCall],
    run_one: &(dyn Fn(&ToolCall) -> ToolOutcome + Sync),
) -> Vec<ToolOutcome> {
    if calls.len() == 1 {
        return vec![run_one(&calls[0])];
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<ToolOutcome>>> = calls.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some(call) = calls.get(i) else { break };
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_one(call)))
                .unwrap_or_else(|_| ToolOutcome {
                    content: format!(
                        "Error executing '{}': the tool thread failed",
                        call.function.name
                    ),
                    is_error: true,
                    turned_back: false,
                });
            *slots[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
        }
    };
    std::thread::scope(|scope| {
        let started = (0..calls.len().min(MAX_PARALLEL))
            .filter(|n| {
                std::thread::Builder::new()
                    .name(format!("tool-worker-{n}"))
                    .spawn_scoped(scope, work)
                    .is_ok()
            })
            .count();
        if started == 0 {
            work();
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .expect("every call index below calls.len() was taken by a worker and filled")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_big_round_runs_at_most_max_parallel_calls_at_once_in_call_order() {
        let calls: Vec<ToolCall> = (0..40)
            .map(|i| ToolCall::new(format!("c{i}"), "t", "{}"))
            .collect();
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let run_one = |call: &ToolCall| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(5));
            running.fetch_sub(1, Ordering::SeqCst);
            if call.id == "c7" {
                panic!("a tool that panics fails alone");
            }
            ToolOutcome {
                content: call.id.clone(),
                is_error: false,
                turned_back: false,
            }
        };
        let outcomes = run_parallel(&calls, &run_one);
        assert!(most.load(Ordering::SeqCst) <= MAX_PARALLEL);
        assert_eq!(outcomes.len(), 40);
        for (i, outcome) in outcomes.iter().enumerate() {
            if i == 7 {
                assert!(outcome.is_error && outcome.content.contains("thread failed"));
            } else {
                assert_eq!(outcome.content, format!("c{i}"));
            }
        }
    }
}
