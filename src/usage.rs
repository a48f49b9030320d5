//! Token and cost accounting for a session, with the price table of the models we know.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::message::Usage;

/// USD per million tokens: input, output, and input read from the service's cache of the
/// prompt's start (the input price where the table does not know a cheaper one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cached: f64,
}

/// List prices per million tokens: input, output, and cached input where the provider lists a
/// cheaper price for it (OpenAI's cached input, Anthropic's cache reads). Matched by the longest prefix of the model name that ends
/// at a `-` or the end, after dropping a `models/` or `provider/` style prefix.
const PRICES: &[(&str, f64, f64, Option<f64>)] = &[
    ("gpt-5.1", 1.25, 10.0, Some(0.125)),
    ("gpt-5-mini", 0.25, 2.0, Some(0.025)),
    ("gpt-5-nano", 0.05, 0.40, Some(0.005)),
    ("gpt-5", 1.25, 10.0, Some(0.125)),
    ("gpt-4.1-mini", 0.40, 1.60, Some(0.10)),
    ("gpt-4.1-nano", 0.10, 0.40, Some(0.025)),
    ("gpt-4.1", 2.0, 8.0, Some(0.50)),
    ("gpt-4o-mini", 0.15, 0.60, Some(0.075)),
    ("gpt-4o", 2.50, 10.0, Some(1.25)),
    ("o4-mini", 1.10, 4.40, Some(0.275)),
    ("o3", 2.0, 8.0, Some(0.50)),
    ("gemini-3-pro-preview", 2.0, 12.0, None),
    ("gemini-2.5-pro", 1.25, 10.0, None),
    ("gemini-2.5-flash-lite", 0.10, 0.40, None),
    ("gemini-2.5-flash", 0.30, 2.50, None),
    ("gemini-2.0-flash", 0.10, 0.40, None),
    ("llama-3.3-70b-versatile", 0.59, 0.79, None),
    ("llama-3.1-8b-instant", 0.05, 0.08, None),
    ("gpt-oss-120b", 0.15, 0.75, None),
    ("gpt-oss-20b", 0.10, 0.50, None),
    ("claude-haiku-4.5", 1.0, 5.0, Some(0.10)),
    ("claude-sonnet-4.5", 3.0, 15.0, Some(0.30)),
    ("claude-opus-4.5", 5.0, 25.0, Some(0.50)),
];

/// The list price of `model`, when we know it.
pub fn price(model: &str) -> Option<Price> {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    PRICES
        .iter()
        .filter(|(prefix, ..)| {
            // A dated or sized variant of a model (`gpt-4o-2024-08-06`), not another model
            // that merely starts alike (`gpt-5.3-codex` is not `gpt-5`).
            name.strip_prefix(prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
        })
        .max_by_key(|(prefix, ..)| prefix.len())
        .map(|&(_, input, output, cached)| Price {
            input,
            output,
            cached: cached.unwrap_or(input),
        })
}

/// What one call cost: the service's own figure when it sent one, else the list price.
pub fn call_cost(model: &str, usage: &Usage) -> Option<f64> {
    usage.reported_cost.or_else(|| {
        price(model).map(|p| {
            let cached = usage.cached_tokens.min(usage.input_tokens);
            let fresh = usage.input_tokens - cached;
            (fresh as f64 * p.input
                + cached as f64 * p.cached
                + usage.output_tokens as f64 * p.output)
                / 1_000_000.0
        })
    })
}

/// Totals over a turn, a session, or all time (the ledger, MARVIN_HOME/usage.json).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tally {
    pub llm_turns: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of `input_tokens`, those read from a provider's cache of the prompt's start.
    pub cached_tokens: u64,
    pub cost: f64,
    /// Some call's cost was unknown, so `cost` is a lower bound.
    pub cost_incomplete: bool,
    pub model_turns: BTreeMap<String, u64>,
    pub model_cost: BTreeMap<String, f64>,
}

impl Tally {
    /// Counts one model call. A call without usage still counts as a turn.
    pub fn record(&mut self, model: &str, usage: Option<&Usage>) {
        self.llm_turns += 1;
        *self.model_turns.entry(model.to_string()).or_default() += 1;
        let Some(usage) = usage else {
            self.cost_incomplete = true;
            return;
        };
        self.input_tokens += usage.input_tokens;
        self.output_tokens += usage.output_tokens;
        self.cached_tokens += usage.cached_tokens.min(usage.input_tokens);
        match call_cost(model, usage) {
            Some(cost) => {
                self.cost += cost;
                *self.model_cost.entry(model.to_string()).or_default() += cost;
            }
            None => self.cost_incomplete = true,
        }
    }

    /// Adds another tally (a turn's) to this one (the session's).
    pub fn add(&mut self, other: &Tally) {
        self.llm_turns += other.llm_turns;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cached_tokens += other.cached_tokens;
        self.cost += other.cost;
        self.cost_incomplete |= other.cost_incomplete;
        for (model, turns) in &other.model_turns {
            *self.model_turns.entry(model.clone()).or_default() += turns;
        }
        for (model, cost) in &other.model_cost {
            *self.model_cost.entry(model.clone()).or_default() += cost;
        }
    }

    /// The `MARVIN_COST:{json}` line of the non-interactive contract. Models whose price is
    /// unknown appear in `model_turns` but not in `model_cost`; when some call's price is
    /// unknown `cost_unknown` is true, and `session_cost` is null when no call's is known
    /// (never a zero that reads as free).
    pub fn cost_line(&self) -> String {
        let mut value = json!({
            "session_cost": match self.nothing_priced() {
                true => serde_json::Value::Null,
                false => json!(round(self.cost)),
            },
            "llm_turns": self.llm_turns,
            "model_turns": self.model_turns,
            "model_cost": self.model_cost.iter().map(|(k, v)| (k.clone(), round(*v))).collect::<BTreeMap<_, _>>(),
        });
        if self.cost_incomplete && self.llm_turns > 0 {
            value["cost_unknown"] = json!(true);
        }
        format!("MARVIN_COST:{value}")
    }

    /// Calls were made and none of them has a known price.
    fn nothing_priced(&self) -> bool {
        self.llm_turns > 0 && self.cost_incomplete && self.model_cost.is_empty()
    }
}

/// Costs are kept to a millionth of a cent in the output.
fn round(usd: f64) -> f64 {
    (usd * 1e8).round() / 1e8
}

/// For the status line: `$1.23`, `<$0.01`, with `+` when some call's price was unknown, or
/// `cost unknown`; `None` before any call.
pub fn format_cost(tally: &Tally) -> Option<String> {
    if tally.nothing_priced() {
        return Some("cost unknown".into());
    }
    if tally.model_cost.is_empty() {
        return None;
    }
    let plus = if tally.cost_incomplete { "+" } else { "" };
    Some(format!("{}{plus}", dollars(tally.cost)))
}

/// A total as `usage` shows it: `$1.23`, `$1.23 + unknown` when some call's price was
/// unknown, `cost unknown` when none was known; `$0.00` only when nothing was spent.
pub fn total_cost(tally: &Tally) -> String {
    match (
        tally.nothing_priced(),
        tally.cost_incomplete && tally.llm_turns > 0,
    ) {
        (true, _) => "cost unknown".into(),
        (false, true) => format!("{} + unknown", dollars(tally.cost)),
        (false, false) => dollars(tally.cost),
    }
}

/// A cost as a person reads it: `$0.00` for nothing, `<$0.01` below a cent, else in cents.
pub fn dollars(cost: f64) -> String {
    if cost <= 0.0 {
        "$0.00".into()
    } else if cost < 0.005 {
        "<$0.01".into()
    } else {
        format!("${cost:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            reported_cost: None,
            cached_tokens: 0,
        }
    }

    #[test]
    fn cached_input_is_priced_at_the_cached_rate_where_the_table_knows_it() {
        let cached = Usage {
            cached_tokens: 800_000,
            ..usage(1_000_000, 0)
        };
        // gpt-5: 200k fresh at $1.25/M, 800k cached at $0.125/M.
        assert_eq!(call_cost("gpt-5", &cached), Some(0.25 + 0.1));
        // A model with no cheaper cached price: every input token at the input price.
        assert_eq!(call_cost("gpt-oss-120b", &cached), Some(0.15));
        let mut tally = Tally::default();
        tally.record("gpt-5", Some(&cached));
        tally.record("gpt-5", Some(&usage(10, 0)));
        assert_eq!(
            (tally.input_tokens, tally.cached_tokens),
            (1_000_010, 800_000)
        );
    }

    #[test]
    fn prices_match_the_longest_prefix_and_ignore_vendor_prefixes() {
        assert_eq!(
            price("gpt-4o-mini-2024-07-18"),
            Some(Price {
                input: 0.15,
                output: 0.60,
                cached: 0.075
            })
        );
        assert_eq!(
            price("gpt-4o-2024-08-06"),
            Some(Price {
                input: 2.5,
                output: 10.0,
                cached: 1.25
            })
        );
        assert_eq!(
            price("models/gemini-2.5-flash"),
            Some(Price {
                input: 0.30,
                output: 2.50,
                cached: 0.30
            })
        );
        assert_eq!(
            price("openai/gpt-oss-120b"),
            Some(Price {
                input: 0.15,
                output: 0.75,
                cached: 0.15
            })
        );
        assert_eq!(price("my-local-model"), None);
        assert_eq!(price("gpt-5.3-codex"), None);
        assert_eq!(
            price("gpt-5"),
            Some(Price {
                input: 1.25,
                output: 10.0,
                cached: 0.125
            })
        );
    }

    #[test]
    fn tally_counts_turns_tokens_and_costs() {
        let mut tally = Tally::default();
        tally.record("gpt-5.1", Some(&usage(1_000_000, 100_000)));
        tally.record("gpt-5.1", None);
        tally.record("local", Some(&usage(10, 5)));
        tally.record(
            "router",
            Some(&Usage {
                input_tokens: 1,
                output_tokens: 1,
                reported_cost: Some(0.002),
                cached_tokens: 0,
            }),
        );
        assert_eq!(tally.llm_turns, 4);
        assert_eq!(
            (tally.input_tokens, tally.output_tokens),
            (1_000_011, 100_006)
        );
        assert!((tally.cost - 2.252).abs() < 1e-9);
        assert!(tally.cost_incomplete);
        assert_eq!(
            tally.cost_line(),
            r#"MARVIN_COST:{"cost_unknown":true,"llm_turns":4,"model_cost":{"gpt-5.1":2.25,"router":0.002},"model_turns":{"gpt-5.1":2,"local":1,"router":1},"session_cost":2.252}"#
        );
        assert_eq!(format_cost(&tally).as_deref(), Some("$2.25+"));
        assert_eq!(total_cost(&tally), "$2.25 + unknown");
    }

    #[test]
    fn a_model_without_a_known_price_costs_unknown_never_zero() {
        let mut tally = Tally::default();
        tally.record("qwen/qwen3-32b", Some(&usage(10, 5)));
        assert_eq!(
            tally.cost_line(),
            r#"MARVIN_COST:{"cost_unknown":true,"llm_turns":1,"model_cost":{},"model_turns":{"qwen/qwen3-32b":1},"session_cost":null}"#
        );
        assert_eq!(format_cost(&tally).as_deref(), Some("cost unknown"));
        assert_eq!(total_cost(&tally), "cost unknown");
        assert_eq!(total_cost(&Tally::default()), "$0.00");
    }

    #[test]
    fn costs_show_in_cents_and_below_a_cent_as_such() {
        for (cost, shown) in [
            (0.0, "$0.00"),
            (0.000_12, "<$0.01"),
            (0.0049, "<$0.01"),
            (0.005, "$0.01"),
            (0.123, "$0.12"),
            (12.0, "$12.00"),
        ] {
            assert_eq!(dollars(cost), shown, "{cost}");
        }
    }

    #[test]
    fn adding_tallies_sums_every_field() {
        let mut turn = Tally::default();
        turn.record("gpt-5.1", Some(&usage(10, 20)));
        let mut session = Tally::default();
        session.add(&turn);
        session.add(&turn);
        assert_eq!(
            (
                session.llm_turns,
                session.input_tokens,
                session.output_tokens
            ),
            (2, 20, 40)
        );
        assert_eq!(session.model_turns["gpt-5.1"], 2);
        assert!((session.model_cost["gpt-5.1"] - 2.0 * turn.cost).abs() < 1e-12);
    }

    #[test]
    fn empty_tally_has_zero_cost_line_and_no_shown_cost() {
        let tally = Tally::default();
        assert_eq!(
            tally.cost_line(),
            r#"MARVIN_COST:{"llm_turns":0,"model_cost":{},"model_turns":{},"session_cost":0.0}"#
        );
        assert_eq!(format_cost(&tally), None);
    }
}
