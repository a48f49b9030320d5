//! The lifetime usage ledger, MARVIN_HOME/usage.json: totals over every run. Several marvin
//! processes (sub-agents) update it at once, so each update takes an exclusive lock on a lock
//! file, reads, adds and replaces the file in one rename.

use std::io;
use std::path::Path;

use super::Warnings;
use crate::usage::{Tally, dollars, total_cost};

const FILE: &str = "usage.json";

/// Adds a turn's tally to the ledger and returns the new totals.
pub(crate) fn add(home: &Path, tally: &Tally, warnings: &Warnings) -> io::Result<Tally> {
    let held = super::lock::hold(&home.join(FILE))?;
    let mut totals = lifetime(home, warnings);
    totals.add(tally);
    super::json::save(&home.join(FILE), &totals)?;
    drop(held);
    Ok(totals)
}

/// The totals so far. A ledger that does not parse is moved aside (with a warning), never
/// overwritten.
pub(crate) fn lifetime(home: &Path, warnings: &Warnings) -> Tally {
    super::json::read(&home.join(FILE), warnings)
}

/// The `usage` report: this session (with each model's share) and all time, in columns that
/// fit 80.
pub(crate) fn report(session: &Tally, lifetime: &Tally) -> String {
    let mut lines = vec![format!("This session  {}", totals(session))];
    for (model, turns) in &session.model_turns {
        let cost = match session.model_cost.get(model) {
            Some(cost) => dollars(*cost),
            None => "price unknown".into(),
        };
        let model: String = model.chars().take(40).collect();
        lines.push(format!("  {model}: {turns} {}, {cost}", calls(*turns)));
    }
    lines.push(format!("All time      {}", totals(lifetime)));
    lines.join("\n")
}

fn totals(tally: &Tally) -> String {
    format!(
        "{} model {}, {} tokens in / {} out, {}",
        tally.llm_turns,
        calls(tally.llm_turns),
        tally.input_tokens,
        tally.output_tokens,
        total_cost(tally)
    )
}

fn calls(count: u64) -> &'static str {
    if count == 1 { "call" } else { "calls" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Usage;
    use std::fs;

    #[test]
    fn concurrent_updates_are_never_lost() {
        let home = crate::test_support::TempDir::new("ledger");
        let mut tally = Tally::default();
        tally.record(
            "gpt-5.1",
            Some(&Usage {
                input_tokens: 10,
                output_tokens: 1,
                reported_cost: None,
                cached_tokens: 0,
            }),
        );
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..25 {
                        add(home.path(), &tally, &Warnings::default()).unwrap();
                    }
                });
            }
        });
        let totals = lifetime(home.path(), &Warnings::default());
        assert_eq!(
            (
                totals.llm_turns,
                totals.input_tokens,
                totals.model_turns["gpt-5.1"]
            ),
            (200, 2000, 200)
        );
        assert!((totals.cost - 200.0 * tally.cost).abs() < 1e-9);
    }

    #[test]
    fn the_report_reads_in_dollars_and_cents() {
        let mut session = Tally::default();
        session.record(
            "gpt-4o",
            Some(&Usage {
                input_tokens: 10,
                output_tokens: 5,
                reported_cost: None,
                cached_tokens: 0,
            }),
        );
        session.record("mystery-model", None);
        let report = report(&session, &Tally::default());
        assert_eq!(
            report,
            "This session  2 model calls, 10 tokens in / 5 out, <$0.01 + unknown\n  gpt-4o: 1 call, <$0.01\n  mystery-model: 1 call, price unknown\nAll time      0 model calls, 0 tokens in / 0 out, $0.00"
        );
    }

    #[test]
    fn a_corrupt_ledger_is_moved_aside() {
        let home = crate::test_support::TempDir::new("ledger-corrupt");
        fs::write(home.path().join(FILE), "{oops").unwrap();
        let warnings = Warnings::default();
        assert_eq!(lifetime(home.path(), &warnings), Tally::default());
        assert_eq!(warnings.take().len(), 1);
        assert!(
            fs::read_dir(home.path())
                .unwrap()
                .filter_map(Result::ok)
                .any(|e| e
                    .file_name()
                    .to_string_lossy()
                    .starts_with("usage.json.corrupt-"))
        );
    }
}
