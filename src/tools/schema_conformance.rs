//! The tool-argument checker ([`validate`] over the parameters read from an MCP server's
//! input schema) run on the JSON-Schema-Test-Suite's draft 2020-12 cases for the keywords it
//! claims (`type`, `enum`, `required`, `properties`); prints the counts and holds them to the
//! target. A property it passes through whole is the server's to check, and skipped.

use serde_json::Value;

use super::mcp::tools::{allows_others, params};
use super::schema::{Kind, validate, validate_keeping_others};
use crate::schema_suite::{Outcome, Tally, as_object, keywords};

/// The keywords the checker claims to check.
const CLAIMED: [&str; 4] = ["type", "enum", "required", "properties"];

/// What the checker makes of one case.
fn outcome(case: &crate::schema_suite::Case) -> Outcome {
    let (schema, data) = match as_object(case) {
        Ok(pair) => pair,
        Err(why) => return Outcome::Skipped(why),
    };
    if let Some(other) = keywords(&schema)
        .into_iter()
        .find(|k| !CLAIMED.contains(&k.as_str()))
    {
        return Outcome::Skipped(format!("uses {other}, which the checker does not claim"));
    }
    let params = params(&schema);
    for param in &params {
        let given = data.get(param.name.as_ref()).is_some();
        // An empty schema allows every value, as passing it on does.
        let whole = matches!(&param.kind, Kind::Any(property) if property != "{}");
        if let (Kind::Any(property), true, true) = (&param.kind, given, whole) {
            return Outcome::Skipped(format!(
                "a property {property} goes to the server whole, for it to check"
            ));
        }
    }
    let checked = match allows_others(&schema) {
        true => validate_keeping_others(&params, &data),
        false => validate(&params, &data),
    };
    Outcome::Checked(checked.is_ok())
}

#[test]
fn the_tool_argument_checker_passes_the_suite_for_its_keywords() {
    let share = Tally::run("tool-argument checker", &CLAIMED, outcome);
    assert!(share >= 0.93, "{:.1}% of the cases pass", share * 100.0);
}

#[test]
fn a_case_about_one_value_is_one_required_property() {
    let case = crate::schema_suite::Case {
        keyword: "type".into(),
        group: String::new(),
        description: String::new(),
        schema: serde_json::json!({"type": "integer"}),
        data: Value::from("1"),
        valid: false,
    };
    let (schema, data) = as_object(&case).unwrap();
    assert_eq!(schema["required"], serde_json::json!(["value"]));
    assert_eq!(data["value"], Value::from("1"));
}
