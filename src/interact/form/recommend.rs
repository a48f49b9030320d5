//! What a choice question recommends, in each form the reference reads: `recommended` on the
//! question (a label, or a list; a one-element list on a single choice is its one label) with
//! its `conviction`, or `"recommended": true` (and a `conviction`) on the options themselves;
//! one form or the other, never both.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::questions::{Conviction, FormOption, Kind};

/// An option's own recommendation.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Flag {
    recommended: bool,
    conviction: Option<Conviction>,
}

impl Flag {
    pub(super) fn parse(object: &Map<String, Value>, at: &str) -> Result<Self, String> {
        let recommended = match object.get("recommended") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(flag)) => *flag,
            Some(other) => {
                return Err(format!(
                    "{at}.recommended: expected true or false, got {other}."
                ));
            }
        };
        let conviction = conviction(object.get("conviction"), &format!("{at}.conviction"))?;
        Ok(Self {
            recommended,
            conviction,
        })
    }

    fn is_set(&self) -> bool {
        self.recommended || self.conviction.is_some()
    }
}

fn conviction(value: Option<&Value>, field: &str) -> Result<Option<Conviction>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(c)) if c == "strong" => Ok(Some(Conviction::Strong)),
        Some(Value::String(c)) if c == "slight" => Ok(Some(Conviction::Slight)),
        Some(_) => Err(format!("{field}: must be \"strong\" or \"slight\".")),
    }
}

/// The recommended labels and the conviction, from the question (`object`) or its options'
/// `flags`.
pub(super) fn resolve(
    object: &Map<String, Value>,
    kind: Kind,
    options: &[FormOption],
    flags: &[Flag],
    at: &dyn Fn(&str) -> String,
) -> Result<(Vec<String>, Option<Conviction>), String> {
    let given = |key: &str| object.get(key).is_some_and(|v| !v.is_null());
    let on_question = given("recommended") || given("conviction");
    if on_question && flags.iter().any(Flag::is_set) {
        return Err(format!(
            "{}: use either question-level recommended/conviction or option-level recommended flags, not both.",
            at("recommended")
        ));
    }
    if flags.iter().any(Flag::is_set) {
        return from_options(kind, options, flags, at);
    }
    let picks = question_picks(object.get("recommended"), kind, at)?;
    let labels: HashSet<&str> = options.iter().map(|o| o.label.as_str()).collect();
    for pick in &picks {
        if !labels.contains(pick.as_str()) {
            return Err(format!(
                "{}: \"{pick}\" is not one of the options.",
                at("recommended")
            ));
        }
    }
    let conviction = conviction(object.get("conviction"), &at("conviction"))?;
    if conviction.is_some() && picks.is_empty() {
        return Err(format!(
            "{}: requires recommended (the option it is about).",
            at("conviction")
        ));
    }
    Ok((picks, conviction))
}

fn question_picks(
    value: Option<&Value>,
    kind: Kind,
    at: &dyn Fn(&str) -> String,
) -> Result<Vec<String>, String> {
    let picks: Vec<String> = match (value, kind) {
        (None | Some(Value::Null), _) => return Ok(Vec::new()),
        (Some(_), Kind::Text | Kind::Image | Kind::Info) => {
            return Err(format!(
                "{}: not allowed for type \"{}\".",
                at("recommended"),
                kind.name()
            ));
        }
        (Some(Value::String(one)), _) => vec![one.clone()],
        (Some(Value::Array(many)), _) => many
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("{}: expected option labels.", at("recommended")))?,
        (Some(other), _) => {
            return Err(format!(
                "{}: expected option labels, got {other}.",
                at("recommended")
            ));
        }
    };
    if kind == Kind::Single && picks.len() > 1 {
        return Err(format!(
            "{}: must be one option label for single-select.",
            at("recommended")
        ));
    }
    Ok(picks)
}

fn from_options(
    kind: Kind,
    options: &[FormOption],
    flags: &[Flag],
    at: &dyn Fn(&str) -> String,
) -> Result<(Vec<String>, Option<Conviction>), String> {
    for (j, (option, flag)) in options.iter().zip(flags).enumerate() {
        if flag.conviction.is_some() && !flag.recommended {
            return Err(format!(
                "{} (\"{}\"): conviction requires \"recommended\": true.",
                at(&format!("options[{j}]")),
                option.label
            ));
        }
    }
    let picks: Vec<String> = options
        .iter()
        .zip(flags)
        .filter(|(_, flag)| flag.recommended)
        .map(|(option, _)| option.label.clone())
        .collect();
    if kind == Kind::Single && picks.len() > 1 {
        return Err(format!(
            "{}: exactly one option must be recommended for single-select.",
            at("options")
        ));
    }
    let mut convictions = flags.iter().filter_map(|flag| flag.conviction);
    let first = convictions.next();
    if convictions.any(|c| Some(c) != first) {
        return Err(format!(
            "{}: recommended options must use the same conviction.",
            at("options")
        ));
    }
    Ok((picks, first))
}
