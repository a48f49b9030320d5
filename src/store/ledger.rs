//! The lifetime usage ledger, MARVIN_HOME/usage.json: totals over every run. Several marvin
//! processes (sub-agents) update it at once, so each update takes an exclusive lock on a lock
//! file, reads, adds and replaces the file in one rename.

use std::io;
use std::path::Path;

use super::Warnings;
use crate::usage::Tally;

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

/// The `usage` report: this session and all time.
pub(crate) fn report(session: &Tally, lifetime: &Tally) -> String {
    let models: Vec<String> = session
        .model_turns
        .iter()
        .map(|(model, turns)| match session.model_cost.get(model) {
            Some(cost) => format!("{model}: {turns} calls, ${cost:.4}"),
            None => format!("{model}: {turns} calls, price unknown"),
        })
        .collect();
    let by_model = if models.is_empty() {
        String::new()
    } else {
        format!(" ({})", models.join("; "))
    };
    format!(
        "This session: {} model calls, {} tokens in / {} out, ${:.4}{by_model}\nAll time:     {} model calls, {} tokens in / {} out, ${:.4}",
        session.llm_turns,
        session.input_tokens,
        session.output_tokens,
        session.cost,
        lifetime.llm_turns,
        lifetime.input_tokens,
        lifetime.output_tokens,
        lifetime.cost
    )
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
