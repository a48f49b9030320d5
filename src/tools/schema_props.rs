//! Properties of argument validation and `Registry::execute`: any arguments for any
//! parameters never panic, what validation lets through has the declared types, the values
//! given and passes again unchanged; what it lets through for a built-in tool deserialises into
//! that tool's typed arguments; any arguments text and any tool name come back from `execute`
//! as a result for the model, in time however long the name.

use std::borrow::Cow;

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::schema::{Choices, Kind, Param, validate};
use super::{Offered, Registry, ToolContext, ToolDef};
use crate::message::ToolCall;
use crate::props::{config, json as any_json, leaf, text};

const NAMES: &[&str] = &[
    "path", "count", "ratio", "all", "names", "mode", "items", "value",
];
const OPTIONS: &[&str] = &["a", "b", "long option"];

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::String),
        Just(Kind::Integer),
        Just(Kind::Number),
        Just(Kind::Boolean),
        Just(Kind::StringList),
        Just(Kind::Choice(Choices::Fixed(OPTIONS))),
        Just(Kind::ObjectList(r#"{"type": "object"}"#)),
        Just(Kind::Any(Cow::Borrowed(r#"{"type": "array"}"#))),
    ]
}

/// Parameters of any kinds under distinct names.
fn params() -> impl Strategy<Value = Vec<Param>> {
    let param = (prop::sample::select(NAMES), kind(), any::<bool>());
    prop::collection::vec(param, 0..6).prop_map(|mut params| {
        params.sort_by_key(|(name, _, _)| *name);
        params.dedup_by_key(|(name, _, _)| *name);
        params
            .into_iter()
            .map(|(name, kind, required)| Param::loaded(name.into(), kind, required, "d".into()))
            .collect()
    })
}

/// A value for a parameter of `kind`: right, in a form validation forgives, at an edge, or
/// anything at all.
fn value_for(kind: &Kind) -> BoxedStrategy<Value> {
    let edges = prop_oneof![
        Just(json!("NaN")),
        Just(json!("inf")),
        Just(json!("-inf")),
        Just(json!("1e400")),
        Just(json!(1e300)),
        Just(json!(-1e300)),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(-1)),
        Just(json!(" 7 ")),
        Just(json!(3.0)),
        Just(json!(-0.0)),
    ];
    let right = match kind {
        Kind::String => text(12).prop_map(Value::from).boxed(),
        Kind::Integer => prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<i32>().prop_map(|n| Value::from(n.to_string())),
            any::<i32>().prop_map(|n| json!(f64::from(n))),
        ]
        .boxed(),
        Kind::Number => prop_oneof![
            any::<f64>().prop_map(Value::from),
            any::<f64>().prop_map(|f| Value::from(f.to_string())),
        ]
        .boxed(),
        Kind::Boolean => prop_oneof![
            any::<bool>().prop_map(Value::from),
            prop::sample::select(&["true", " false "][..]).prop_map(Value::from),
        ]
        .boxed(),
        Kind::StringList => prop_oneof![
            prop::collection::vec(text(6).prop_map(Value::from), 0..4).prop_map(Value::Array),
            text(6).prop_map(Value::from),
        ]
        .boxed(),
        Kind::Choice(_) => prop::sample::select(OPTIONS).prop_map(Value::from).boxed(),
        Kind::ObjectList(_) => prop::collection::vec(any_json(NAMES, 1), 0..3)
            .prop_map(|items| {
                let objects = items.into_iter().map(|item| json!({ "item": item }));
                Value::Array(objects.collect())
            })
            .boxed(),
        Kind::Any(_) => any_json(NAMES, 2).boxed(),
    };
    prop_oneof![4 => right, 1 => edges, 1 => leaf(), 1 => any_json(NAMES, 2)].boxed()
}

/// Arguments for `params`: each present or not, and some that no parameter names.
fn arguments_for(params: &[Param]) -> BoxedStrategy<Map<String, Value>> {
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = params
        .iter()
        .map(|param| {
            let name = param.name.to_string();
            prop::option::of(value_for(&param.kind).prop_map(move |v| (name.clone(), v))).boxed()
        })
        .collect();
    let extra = prop::collection::vec((text(4), leaf()), 0..2);
    (fields, extra)
        .prop_map(|(fields, extra)| {
            extra
                .into_iter()
                .chain(fields.into_iter().flatten())
                .collect()
        })
        .boxed()
}

/// Arguments for the built-in tool `i`. A parameter of any JSON value is checked by the tool's
/// typed arguments, not by validation: it gets its value in the tool's example, or none.
fn builtin_arguments(i: usize) -> BoxedStrategy<Map<String, Value>> {
    let tool = super::builtin().swap_remove(i);
    let example: Map<String, Value> = serde_json::from_str(&tool.example).unwrap_or_default();
    let (any, checked): (Vec<Param>, Vec<Param>) = tool
        .params
        .iter()
        .cloned()
        .partition(|p| matches!(p.kind, Kind::Any(_)));
    let from_example: Vec<(String, Value)> = any
        .iter()
        .filter_map(|p| Some((p.name.to_string(), example.get(p.name.as_ref())?.clone())))
        .collect();
    let kept = prop::sample::subsequence(from_example.clone(), 0..=from_example.len());
    (arguments_for(&checked), kept)
        .prop_map(|(mut args, kept)| {
            args.extend(kept);
            args
        })
        .boxed()
}

/// Whether `value` is what a parameter of `kind` promises its handler.
fn has_kind(kind: &Kind, value: &Value) -> bool {
    match kind {
        Kind::String => value.is_string(),
        Kind::Integer => value.is_i64(),
        Kind::Number => value.as_f64().is_some_and(f64::is_finite),
        Kind::Boolean => value.is_boolean(),
        Kind::StringList => value
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_string)),
        Kind::Choice(options) => value
            .as_str()
            .is_some_and(|s| options.iter().any(|o| o == s)),
        Kind::ObjectList(_) => value
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_object)),
        Kind::Any(_) => true,
    }
}

/// Typed arguments of every kind, as a tool's handler declares them.
#[derive(Deserialize)]
#[allow(dead_code)] // deserialised, never read: the point is whether they deserialise
struct Typed {
    path: Option<String>,
    count: Option<i64>,
    ratio: Option<f64>,
    all: Option<bool>,
    names: Option<Vec<String>>,
    mode: Option<String>,
    items: Option<Vec<Map<String, Value>>>,
    value: Option<Value>,
}

const TYPED: &[Param] = &[
    Param::required("path", Kind::String, "a path"),
    Param::optional("count", Kind::Integer, "how many"),
    Param::required("ratio", Kind::Number, "a ratio"),
    Param::optional("all", Kind::Boolean, "all of them"),
    Param::optional("names", Kind::StringList, "names"),
    Param::optional("mode", Kind::Choice(Choices::Fixed(OPTIONS)), "a mode"),
    Param::optional("items", Kind::ObjectList(r#"{"type": "object"}"#), "items"),
    Param::optional("value", Kind::Any(Cow::Borrowed("{}")), "anything"),
];

fn typed(_: Typed, _: &ToolContext) -> Result<String, String> {
    Ok("done".into())
}

fn test_registry() -> Registry {
    super::install_panic_hook();
    let mut registry = Registry::default();
    registry.add(
        ToolDef::build("typed_tool")
            .describe("Takes every kind of argument.")
            .offered(Offered::Everywhere)
            .params(TYPED)
            .example(r#"{"path": "a", "ratio": 0.5}"#)
            .handler(typed),
    );
    registry
}

/// Arguments text as models send it: JSON for the tool, that JSON as a string, cut short,
/// or anything.
fn arguments_text() -> impl Strategy<Value = String> {
    let object = arguments_for(TYPED).prop_map(|args| Value::Object(args).to_string());
    prop_oneof![
        4 => object.clone(),
        1 => object.clone().prop_map(|text| Value::from(text).to_string()),
        1 => (object, any::<usize>()).prop_map(|(text, cut)| {
            let cut = cut % (text.len() + 1);
            text.get(..cut).unwrap_or(&text).to_string()
        }),
        1 => any_json(NAMES, 3).prop_map(|value| value.to_string()),
        1 => text(40),
    ]
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn validated_arguments_have_the_declared_types_and_validate_again_unchanged(
        (params, args) in params().prop_flat_map(|params| {
            let args = arguments_for(&params);
            (Just(params), args)
        }),
    ) {
        match validate(&params, &args) {
            Ok(clean) => {
                for (name, value) in &clean {
                    let param = params.iter().find(|p| p.name == name.as_str());
                    prop_assert!(param.is_some(), "{} is no parameter", name);
                    let kind = &param.map(|p| p.kind.clone()).unwrap_or(Kind::String);
                    prop_assert!(has_kind(kind, value), "{}: {} is no {:?}", name, value, kind);
                    // A number given as a number keeps its value.
                    if let (Some(given), Some(kept)) = (args[name].as_f64(), value.as_f64()) {
                        prop_assert!(given == kept, "{}: {} became {}", name, given, kept);
                    }
                }
                for param in params.iter().filter(|p| p.required) {
                    prop_assert!(clean.contains_key(param.name.as_ref()), "{} missing", param.name);
                }
                prop_assert_eq!(validate(&params, &clean), Ok(clean.clone()));
            }
            Err(problems) => {
                prop_assert!(!problems.is_empty() && problems.len() <= params.len());
                for problem in &problems {
                    prop_assert!(problem.chars().count() < 200, "{}", problem);
                }
            }
        }
    }

    #[test]
    fn what_validates_for_a_built_in_tool_fits_its_typed_arguments(
        (tool, args) in prop::sample::select((0..super::builtin().len()).collect::<Vec<_>>())
            .prop_flat_map(|i| (Just(i), builtin_arguments(i))),
    ) {
        let tool = super::builtin().swap_remove(tool);
        if let Ok(clean) = validate(&tool.params, &args) {
            let fits = tool.fits.map_or(Ok(()), |fits| fits(Value::Object(clean.clone())));
            // Known gap: an integer parameter has no range, and a few tools take theirs as
            // unsigned, so -1 is refused by the typed arguments rather than by validation
            // (still a sentence for the model, without the usage).
            let out_of_range = fits.as_ref().is_err_and(|e| e.starts_with("invalid value: integer"));
            prop_assert!(fits.is_ok() || out_of_range, "{}({}): {:?}", tool.name, Value::Object(clean), fits);
        }
    }

    #[test]
    fn any_arguments_text_comes_back_as_a_result_never_a_panic_or_a_misfit(
        arguments in arguments_text(),
    ) {
        let registry = test_registry();
        let ctx = ToolContext::new("/".into());
        let outcome = registry.execute(&ToolCall::new("c1", "typed_tool", arguments.clone()), &ctx);
        prop_assert!(!outcome.content.contains("do not fit"), "{}: {}", arguments, outcome.content);
        prop_assert!(!outcome.content.starts_with("Error executing"), "{}", outcome.content);
        prop_assert!(outcome.content.len() <= 2_000, "{} bytes", outcome.content.len());
    }

    #[test]
    fn any_tool_name_is_answered_with_the_tools_there_are(name in text(40)) {
        let registry = Registry::builtin();
        prop_assume!(!registry.has(&name));
        let ctx = ToolContext::new("/".into());
        let outcome = registry.execute(&ToolCall::new("c1", name.clone(), "{}"), &ctx);
        prop_assert!(outcome.is_error);
        prop_assert!(outcome.content.contains("Available: "), "{}", outcome.content);
    }
}

/// A name as long as a model may stream is answered in time (the nearest names are looked
/// for only among names near its length).
#[test]
fn a_tool_name_of_megabytes_is_answered_in_time() {
    let registry = Registry::builtin();
    let ctx = ToolContext::new("/".into());
    let name = "read_file".repeat(1 << 17);
    let outcome = registry.execute(&ToolCall::new("c1", name, "{}"), &ctx);
    assert!(outcome.content.starts_with("Error: Unknown tool"));
}
