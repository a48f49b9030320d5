//! The host parser against WPT's URL tests (tests/fixtures/whatwg_url/urltestdata.json): every
//! entry of a special scheme other than `file:` (given, or taken from its base) has its host
//! read as `reached` reads it, and must come out as the entry's `hostname`, or fail where the
//! entry fails.

use serde::Deserialize;

use super::{Unreached, reached};

#[derive(Deserialize)]
struct Case {
    input: String,
    base: Option<String>,
    #[serde(default)]
    failure: bool,
    hostname: Option<String>,
}

/// What a case comes to: `Some(hostname)`, `None` for a failure.
fn outcome(case: &Case) -> Result<Option<String>, Unreached> {
    match reached(&case.input, case.base.as_deref()) {
        Ok(reached) => Ok(Some(reached.host.to_string())),
        Err(Unreached::Invalid) => Ok(None),
        Err(Unreached::Unhandled) => Err(Unreached::Unhandled),
    }
}

#[test]
fn wpts_url_tests_get_the_hosts_they_expect() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/whatwg_url/urltestdata.json"
    );
    let items: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    // The strings among the entries are the file's comments.
    let cases: Vec<Case> = items
        .into_iter()
        .filter(serde_json::Value::is_object)
        .map(|item| serde_json::from_value(item).unwrap())
        .collect();
    let mut run = 0;
    let mut failed = Vec::new();
    for case in &cases {
        let Ok(got) = outcome(case) else { continue };
        run += 1;
        let expected = (!case.failure).then(|| case.hostname.clone().unwrap_or_default());
        if got != expected {
            failed.push(format!(
                "{:?} (base {:?}): expected {expected:?}, got {got:?}",
                case.input, case.base
            ));
        }
    }
    eprintln!(
        "WPT urltestdata: {}/{run} hosts as expected ({} entries, the rest not of a special scheme)",
        run - failed.len(),
        cases.len()
    );
    for failure in &failed {
        eprintln!("  {failure}");
    }
    assert!(failed.is_empty(), "{} of {run} hosts wrong", failed.len());
    assert!(run > 400, "only {run} entries were of a special scheme");
}
