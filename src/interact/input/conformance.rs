//! The form field checker ([`InputForm::from_schema`] and [`InputForm::check`]) run on the
//! JSON-Schema-Test-Suite's draft 2020-12 cases for the keywords it claims; prints the counts
//! and holds them to the target. A form field has one type: a property written without one
//! takes the type its keywords are about, and a case giving it a value of another type (which
//! the keyword ignores, and the field would refuse) is skipped.

use serde_json::{Map, Value};

use super::InputForm;
use crate::schema_suite::{Case, Outcome, Tally, as_object, keywords, kind};

/// The suite's files for the keywords the checker claims (`format` for `date`, `date-time`,
/// `uri`, `email`).
const FILES: [&str; 16] = [
    "type",
    "enum",
    "required",
    "properties",
    "default",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "items",
    "format/date",
    "format/date-time",
    "format/uri",
    "format/email",
];

/// The type a property without one is about, from its keywords.
fn implied_type(property: &Value) -> Option<&'static str> {
    let has = |names: &[&str]| names.iter().any(|name| property.get(*name).is_some());
    let strings = property
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| values.iter().all(Value::is_string));
    match () {
        _ if has(&["minLength", "maxLength", "format"]) || strings => Some("string"),
        _ if has(&["minimum", "maximum"]) => Some("number"),
        _ if has(&["minItems", "maxItems", "items"]) => Some("array"),
        _ => None,
    }
}

/// Gives each untyped property its implied type; `Err` when it has none, or the case's value
/// for it is of another type.
fn typed(schema: &mut Value, data: &Map<String, Value>) -> Result<(), String> {
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    for (name, property) in properties.iter_mut() {
        if property.get("type").is_some() || !property.is_object() {
            continue;
        }
        let Some(implied) = implied_type(property) else {
            return Err(format!("a form field needs a type; {property} has none"));
        };
        if let Some(value) = data.get(name) {
            let given = kind(value);
            let fits = given == implied || (implied == "number" && given == "integer");
            if !fits {
                return Err(format!(
                    "an untyped {implied} keyword ignores a {given}, which a {implied} field refuses"
                ));
            }
        }
        property["type"] = Value::from(implied);
    }
    Ok(())
}

/// What the checker makes of one case.
fn outcome(case: &Case) -> Outcome {
    let (mut schema, data) = match as_object(case) {
        Ok(pair) => pair,
        Err(why) => return Outcome::Skipped(why),
    };
    if let Some(other) = keywords(&schema).into_iter().find(|k| {
        !FILES
            .iter()
            .any(|file| file.split('/').next() == Some(k.as_str()))
    }) {
        return Outcome::Skipped(format!("uses {other}, which the checker does not claim"));
    }
    if let Err(why) = typed(&mut schema, &data) {
        return Outcome::Skipped(why);
    }
    match InputForm::from_schema("", &schema, &[]) {
        Ok(form) => Outcome::Checked(form.check(&Value::Object(data)).is_ok()),
        Err(why) => Outcome::Skipped(format!("a form cannot ask it: {why}")),
    }
}

#[test]
fn the_form_checker_passes_the_suite_for_its_keywords() {
    let share = Tally::run("form field checker", &FILES, outcome);
    assert!(share >= 0.93, "{:.1}% of the cases pass", share * 100.0);
}

#[test]
fn an_untyped_property_takes_the_type_its_keywords_are_about() {
    assert_eq!(
        implied_type(&serde_json::json!({"minLength": 2})),
        Some("string")
    );
    assert_eq!(
        implied_type(&serde_json::json!({"maximum": 3})),
        Some("number")
    );
    assert_eq!(implied_type(&serde_json::json!({"enum": [1]})), None);
}
