//! Properties of the tool-call assembler: any events, JSON of any shape or none, never panic,
//! its measure of progress never goes back and what it holds is never more than it was fed;
//! well-formed tool calls streamed in any fragments, with or without their index, with headers
//! repeated, come out as they were sent; text comes out whole and shown once; and thousands of
//! calls cost time in proportion, not squared.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::stream::{Assembler, Step};
use crate::message::ToolCall;
use crate::net::sse::SseEvent;
use crate::props::{config, json as any_json, line, split_at, text};

/// The keys a chunk is read by.
const KEYS: &[&str] = &[
    "choices",
    "index",
    "delta",
    "message",
    "content",
    "refusal",
    "reasoning",
    "tool_calls",
    "id",
    "function",
    "name",
    "arguments",
    "finish_reason",
    "usage",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "error",
    "code",
    "x_groq",
];

/// One tool-call delta as services send them, right or wrong.
fn call_delta() -> impl Strategy<Value = Value> {
    let index = prop_oneof![
        4 => (0i64..4).prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => Just(Value::Null),
        1 => text(3).prop_map(Value::from),
    ];
    let arguments = prop_oneof![
        4 => text(16).prop_map(Value::from),
        1 => any_json(KEYS, 2),
    ];
    (
        prop::option::of(index),
        prop::option::of(prop::sample::select(&["", "a", "b", "call_9"][..])),
        prop::option::of(prop::sample::select(&["", "f", "g"][..])),
        prop::option::of(arguments),
    )
        .prop_map(|(index, id, name, arguments)| {
            let mut call = json!({"function": {}});
            if let Some(index) = index {
                call["index"] = index;
            }
            if let Some(id) = id {
                call["id"] = json!(id);
            }
            if let Some(name) = name {
                call["function"]["name"] = json!(name);
            }
            if let Some(arguments) = arguments {
                call["function"]["arguments"] = arguments;
            }
            call
        })
}

/// A chunk as services send them: text, reasoning, tool calls, a finish reason, usage; or
/// JSON of any shape.
fn chunk() -> impl Strategy<Value = Value> {
    let delta = (
        prop::option::of(text(12)),
        prop::option::of(text(6)),
        prop::collection::vec(call_delta(), 0..4),
    )
        .prop_map(|(content, reasoning, calls)| {
            json!({"content": content, "reasoning": reasoning, "tool_calls": calls})
        });
    let shaped = (delta, prop::option::of(Just("tool_calls")), any::<bool>()).prop_map(
        |(delta, finish, usage)| {
            let mut chunk =
                json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
            if usage {
                chunk["usage"] = json!({"prompt_tokens": 3, "completion_tokens": 4});
            }
            chunk
        },
    );
    prop_oneof![3 => shaped, 1 => any_json(KEYS, 5)]
}

/// An event: a chunk as JSON text, text that is no JSON, or `[DONE]`; named or not.
fn event() -> impl Strategy<Value = SseEvent> {
    let data = prop_oneof![
        6 => chunk().prop_map(|chunk| chunk.to_string()),
        1 => text(24),
        1 => Just("[DONE]".to_string()),
    ];
    let name = prop::option::of(prop::sample::select(&["error", "message", "ping"][..]));
    (name, data).prop_map(|(name, data)| SseEvent {
        event: name.map(str::to_string),
        data,
    })
}

/// A well-formed call: its id, name and arguments (JSON text).
fn sent_call() -> impl Strategy<Value = (String, String, String)> {
    (
        "[a-z0-9_]{1,8}",
        "[a-z_]{1,12}",
        any_json(KEYS, 3).prop_map(|args| json!({"value": args}).to_string()),
    )
}

fn delta_of(calls: Vec<Value>) -> Value {
    json!({"choices": [{"index": 0, "delta": {"tool_calls": calls}}]})
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn any_events_never_panic_and_hold_no_more_than_they_were_fed(
        events in prop::collection::vec(event(), 0..12),
    ) {
        let mut assembler = Assembler::new();
        let mut fed = 0;
        let mut shown = 0;
        for event in &events {
            fed += event.data.len();
            let before = assembler.progress();
            let step = assembler.push_event(event, &mut |text| shown += text.len());
            prop_assert!(assembler.progress() >= before, "progress went back");
            if let Step::Malformed(data) = &step {
                prop_assert!(data.len() <= event.data.len());
            }
        }
        prop_assert!(shown <= fed);
        let result = assembler.finish();
        let content = result.message.content.as_deref().map_or(0, str::len);
        prop_assert!(content <= fed);
        for call in &result.message.tool_calls {
            prop_assert!(!call.id.is_empty());
            prop_assert!(!call.function.arguments.trim().is_empty());
            let invented = call.function.arguments == "{}";
            prop_assert!(invented || call.function.arguments.len() <= fed);
        }
        let fragments = events.iter().filter(|e| e.data.contains("tool_calls")).count();
        prop_assert!(result.message.tool_calls.len() <= 4 * fragments + 1);
    }

    #[test]
    fn calls_streamed_in_any_fragments_come_out_as_sent(
        calls in prop::collection::vec(sent_call(), 1..5),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
        indexed in any::<bool>(),
        repeat_headers in any::<bool>(),
    ) {
        let mut ids: Vec<&str> = calls.iter().map(|(id, _, _)| id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        prop_assume!(ids.len() == calls.len());
        let mut assembler = Assembler::new();
        for (i, (id, name, arguments)) in calls.iter().enumerate() {
            let fragments = split_at(arguments.as_bytes(), &cuts);
            for (n, fragment) in fragments.iter().enumerate() {
                // Cut between bytes: a fragment may end inside a character.
                let fragment = String::from_utf8_lossy(fragment).into_owned();
                prop_assume!(fragment.len() == fragments[n].len());
                let mut call = json!({"function": {"arguments": fragment}});
                if indexed {
                    call["index"] = json!(i);
                }
                if n == 0 || repeat_headers {
                    call["id"] = json!(id);
                    call["function"]["name"] = json!(name);
                }
                assembler.push_chunk(&delta_of(vec![call]), &mut |_| {});
            }
        }
        let expected: Vec<ToolCall> = calls
            .iter()
            .map(|(id, name, arguments)| ToolCall::new(id, name, arguments))
            .collect();
        prop_assert_eq!(assembler.finish().message.tool_calls, expected);
    }

    #[test]
    fn text_of_any_size_in_any_pieces_is_shown_once_and_kept_whole(
        pieces in prop::collection::vec(line(64), 0..24),
    ) {
        let mut assembler = Assembler::new();
        let mut shown = String::new();
        for piece in &pieces {
            let chunk = json!({"choices": [{"index": 0, "delta": {"content": piece}}]});
            let event = SseEvent { event: None, data: chunk.to_string() };
            prop_assert_eq!(assembler.push_event(&event, &mut |t| shown.push_str(t)), Step::Continue);
        }
        let whole = pieces.concat();
        prop_assert_eq!(&shown, &whole);
        let kept = assembler.finish().message.content.unwrap_or_default();
        prop_assert_eq!(kept, whole);
    }
}

/// A call per index in one event, or one event per call: the assembler keeps up in time
/// proportional to the calls (scanning every call so far for each new one took minutes here).
/// The cap on what it holds is `stream::tests::an_answer_that_never_stops_is_cut_off`.
#[test]
fn thousands_of_calls_in_one_event_or_in_many_take_time_in_proportion() {
    let calls = 100_000;
    let event = |calls: String| SseEvent {
        event: None,
        data: format!(r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{calls}]}}}}]}}"#),
    };
    let mut assembler = Assembler::new();
    let all: Vec<String> = (0..calls).map(|i| format!(r#"{{"index":{i}}}"#)).collect();
    let step = assembler.push_event(&event(all.join(",")), &mut |_| {});
    assert_eq!(step, Step::Continue);
    assert_eq!(assembler.finish().message.tool_calls.len(), calls);

    let mut assembler = Assembler::new();
    for i in 0..calls / 4 {
        let call = format!(r#"{{"index":{i},"id":"c{i}","function":{{"name":"f"}}}}"#);
        assert_eq!(
            assembler.push_event(&event(call), &mut |_| {}),
            Step::Continue
        );
    }
    assert_eq!(assembler.finish().message.tool_calls.len(), calls / 4);
}
