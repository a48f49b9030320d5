//! The JSON-Schema-Test-Suite's draft 2020-12 cases (tests/fixtures/json_schema/) as the two
//! checkers' conformance tests read them: each case as an object of named values (what a
//! checker takes), and the tally of passes, failures and skips (with why) per keyword.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// One test of the suite.
pub struct Case {
    /// The file's keyword: `minLength`, `format/date`.
    pub keyword: String,
    pub group: String,
    pub description: String,
    pub schema: Value,
    pub data: Value,
    pub valid: bool,
}

/// Every case of the files for `keywords` (`format/date` is `format/date.json`).
pub fn cases(keywords: &[&str]) -> Vec<Case> {
    let mut list = Vec::new();
    for keyword in keywords {
        let path = format!(
            "{}/tests/fixtures/json_schema/{keyword}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let groups: Vec<Value> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        for group in groups {
            let mut schema = group["schema"].clone();
            if let Some(object) = schema.as_object_mut() {
                object.remove("$schema");
            }
            for test in group["tests"].as_array().into_iter().flatten() {
                list.push(Case {
                    keyword: keyword.to_string(),
                    group: group["description"].as_str().unwrap_or("").to_string(),
                    description: test["description"].as_str().unwrap_or("").to_string(),
                    schema: schema.clone(),
                    data: test["data"].clone(),
                    valid: test["valid"] == json!(true),
                });
            }
        }
    }
    list
}

/// The name a single value is given when a case is about one value, not an object.
pub const VALUE: &str = "value";

/// The case as the checkers take it: an object schema and an object of values. A schema of
/// an object (`properties`, `required`, `"type": "object"`) is taken as it is, and its
/// instance must be an object; any other schema is about one value, made the one required
/// property [`VALUE`]. `Err` says why the case cannot be given.
pub fn as_object(case: &Case) -> Result<(Value, Map<String, Value>), String> {
    let object_schema = ["properties", "required"]
        .iter()
        .any(|key| case.schema.get(*key).is_some())
        || case.schema.get("type") == Some(&json!("object"));
    if !object_schema {
        let schema =
            json!({"type": "object", "properties": {VALUE: case.schema}, "required": [VALUE]});
        let mut data = Map::new();
        data.insert(VALUE.into(), case.data.clone());
        return Ok((schema, data));
    }
    match &case.data {
        Value::Object(data) => Ok((case.schema.clone(), data.clone())),
        other => Err(format!(
            "the checker takes an object of named values, not {}",
            kind(other)
        )),
    }
}

/// The keywords a schema uses (its own and its properties' and items', recursively), but
/// for annotations; a boolean schema is named `true`/`false`.
pub fn keywords(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    collect(schema, &mut found);
    found.sort();
    found.dedup();
    found
}

fn collect(schema: &Value, found: &mut Vec<String>) {
    let Some(object) = schema.as_object() else {
        found.push(format!("{schema} schema"));
        return;
    };
    for (key, value) in object {
        if !["title", "description", "$comment"].contains(&key.as_str()) {
            found.push(key.clone());
        }
        match key.as_str() {
            "properties" => value
                .as_object()
                .into_iter()
                .flat_map(Map::values)
                .for_each(|sub| collect(sub, found)),
            "items" => collect(value, found),
            _ => {}
        }
    }
}

/// The JSON type of a value, as the suite names it.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// What a checker made of one case.
pub enum Outcome {
    /// It accepted (`true`) or refused the instance.
    Checked(bool),
    /// It cannot be given the case, and why.
    Skipped(String),
}

/// Per keyword: passed, failed, skipped; and why cases were skipped, and which failed.
#[derive(Default)]
pub struct Tally {
    counts: BTreeMap<String, [usize; 3]>,
    skips: BTreeMap<String, usize>,
    failures: Vec<String>,
}

impl Tally {
    pub fn add(&mut self, case: &Case, outcome: Outcome) {
        let row = self.counts.entry(case.keyword.clone()).or_default();
        match outcome {
            Outcome::Checked(accepted) if accepted == case.valid => row[0] += 1,
            Outcome::Checked(_) => {
                row[1] += 1;
                self.failures.push(format!(
                    "{}: {} / {}: {} should be {}",
                    case.keyword,
                    case.group,
                    case.description,
                    case.data,
                    if case.valid { "valid" } else { "invalid" }
                ));
            }
            Outcome::Skipped(why) => {
                row[2] += 1;
                *self
                    .skips
                    .entry(format!("{}: {why}", case.keyword))
                    .or_default() += 1;
            }
        }
    }

    /// `outcome` of every case of the suite's `files`, reported as `checker`: the share of the
    /// checked cases that passed.
    pub fn run(checker: &str, files: &[&str], outcome: impl Fn(&Case) -> Outcome) -> f64 {
        let mut tally = Tally::default();
        for case in cases(files) {
            tally.add(&case, outcome(&case));
        }
        tally.report(checker)
    }

    /// Prints the counts, the reasons for skips and (with `SCHEMA_FAILURES` set) each failure;
    /// returns the share of the checked cases that passed.
    pub fn report(&self, checker: &str) -> f64 {
        let (mut passed, mut checked) = (0, 0);
        eprintln!("{checker}: keyword passed/checked (skipped)");
        for (keyword, [pass, fail, skip]) in &self.counts {
            eprintln!("  {keyword}: {pass}/{} ({skip} skipped)", pass + fail);
            passed += pass;
            checked += pass + fail;
        }
        eprintln!("  all: {passed}/{checked}");
        for (why, count) in &self.skips {
            eprintln!("  skipped {count}: {why}");
        }
        if std::env::var_os("SCHEMA_FAILURES").is_some() {
            self.failures.iter().for_each(|f| eprintln!("  FAIL {f}"));
        }
        passed as f64 / checked.max(1) as f64
    }
}
