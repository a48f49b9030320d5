use super::*;
use crate::interact::form::questions::{Reply, ReplyValue};

/// Seed 003's fields, with the bounds beside them.
fn port_form() -> InputForm {
    InputForm::from_fields(
        "Where should the server listen?",
        &json!([
            {"id": "port", "type": "integer", "label": "Port", "required": true,
             "minimum": 1024, "maximum": 65535, "defaultValue": 8080},
            {"id": "host", "type": "select", "label": "Interface",
             "options": [{"value": "127.0.0.1", "label": "Only this machine"},
                         {"value": "0.0.0.0", "label": "Every interface"}]},
            {"id": "tls", "type": "checkbox", "label": "Use TLS"},
            {"id": "notes", "type": "textarea", "label": "Notes", "maxLength": 20},
            {"id": "tags", "type": "multiselect", "label": "Tags", "options": ["dev", "prod"], "maxItems": 1}
        ]),
    )
    .unwrap()
}

#[test]
fn seed_fields_read_into_the_one_model_and_back_to_the_wire_shape() {
    let form = port_form();
    let types: Vec<&str> = form.fields.iter().map(Field::type_name).collect();
    assert_eq!(
        types,
        ["integer", "select", "boolean", "textarea", "multiselect"]
    );
    let wire = form.to_json();
    assert_eq!(wire["type"], "form");
    assert_eq!(
        wire["fields"][0],
        json!({"id": "port", "type": "integer", "label": "Port", "required": true,
               "default": 8080, "minimum": 1024, "maximum": 65535,
               "hint": "A whole number from 1024 to 65535."})
    );
    assert_eq!(
        wire["fields"][1]["options"],
        json!([{"value": "127.0.0.1", "label": "Only this machine"},
               {"value": "0.0.0.0", "label": "Every interface"}])
    );
    // The wire shape reads back as the same form: one format for every surface.
    let again = InputForm::from_fields(&form.prompt, &wire["fields"]).unwrap();
    assert_eq!(again.to_json(), wire);
}

#[test]
fn a_submission_is_checked_and_typed() {
    let form = port_form();
    let typed = form
        .check(&json!({"port": "9000", "host": "Every interface", "tls": "yes", "tags": "dev"}))
        .unwrap();
    assert_eq!(
        Value::Object(typed.clone()),
        json!({"port": 9000, "host": "0.0.0.0", "tls": true, "tags": ["dev"]})
    );
    assert_eq!(
        form.summary(&typed),
        "Port: 9000; Interface: Every interface; Use TLS: yes; Tags: dev"
    );
    let errors = form
        .check(
            &json!({"port": 80, "host": "everywhere", "tls": "maybe", "tags": ["dev", "prod"],
                        "colour": "red"}),
        )
        .unwrap_err();
    let said: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e.field.as_str(), e.message.as_str()))
        .collect();
    assert_eq!(
        said,
        [
            (
                "colour",
                "There is no field \"colour\"; the fields are port, host, tls, notes, tags."
            ),
            (
                "port",
                "Port: \"80\" is not a whole number from 1024 to 65535."
            ),
            (
                "host",
                "Interface: choose from Only this machine, Every interface."
            ),
            ("tls", "Use TLS: answer yes or no."),
            ("tags", "Tags: Choose at most 1."),
        ]
    );
    let missing = form.check(&json!({"port": ""})).unwrap_err();
    assert_eq!(missing[0].message, "\"Port\" needs an answer.");
    // An omitted field with a default gets it.
    assert_eq!(form.check(&json!({})).unwrap()["port"], json!(8080));
    let not_text = form.check(&json!({"port": 8080, "notes": 12})).unwrap_err();
    assert_eq!(
        not_text[0].message,
        "\"Notes\" is text: give it as a string, not 12."
    );
    let none = json!({"properties": {"pick": {"type": "string", "enum": []}}});
    let none = InputForm::from_schema("", &none, &[]).unwrap();
    assert_eq!(
        none.check(&json!({"pick": "x"})).unwrap_err()[0].message,
        "pick: no answer fits: its list of choices is empty."
    );
    assert!(form.check(&json!("8080")).is_err());
}

#[test]
fn a_reprompt_keeps_what_was_entered() {
    let entered = json!({"port": 70000, "notes": "first try"});
    let form = port_form().with_initial(entered.as_object().unwrap());
    let questions = form.questions();
    assert_eq!(questions[0].id, "_prompt");
    let port = questions.iter().find(|q| q.id == "port").unwrap();
    assert_eq!(port.default.as_deref(), Some("70000"));
    assert_eq!(
        port.misfit(&ReplyValue::One("70000".into())).as_deref(),
        Some("\"70000\" is not a whole number from 1024 to 65535.")
    );
    assert_eq!(form.to_json()["fields"][3]["initial"], "first try");
    // A field the form does not have is not kept.
    let form = port_form().with_initial(json!({"other": 1}).as_object().unwrap());
    assert!(form.initial.is_empty());
}

#[test]
fn replies_typed_in_the_terminal_become_the_same_input() {
    let form = port_form();
    let reply = |id: &str, value: ReplyValue| Reply {
        id: id.into(),
        value,
        attachments: vec![],
    };
    let input = form
        .from_replies(&[
            reply("port", ReplyValue::One("8443".into())),
            reply("tls", ReplyValue::One("No".into())),
            reply("tags", ReplyValue::Many(vec!["prod".into()])),
        ])
        .unwrap();
    assert_eq!(
        Value::Object(input),
        json!({"port": 8443, "tls": false, "tags": ["prod"]})
    );
    assert_eq!(form.from_replies(&[]).unwrap_err(), "Port needs an answer");
}

#[test]
fn wrong_fields_are_named() {
    let cases = [
        (json!([]), "non-empty list"),
        (json!([{"type": "text"}]), "fields[0].id: missing"),
        (
            json!([{"id": "a", "type": "colour"}]),
            "field \"a\": the type \"colour\"",
        ),
        (
            json!([{"id": "a", "type": "select"}]),
            "field \"a\": a select needs \"options\"",
        ),
        (
            json!([{"id": "a", "minimum": "1"}]),
            "\"minimum\" is a number",
        ),
        (
            json!([{"id": "a"}, {"id": "a"}]),
            "field \"a\" is given twice",
        ),
    ];
    for (fields, said) in cases {
        let why = InputForm::from_fields("", &fields).unwrap_err();
        assert!(why.contains(said), "{fields}: {why}");
    }
}

/// The schema server-everything 2026.8.31 sends from `trigger-elicitation-request`
/// (tests/fixtures/mcp/), cut to one field of each kind: MCP's requested schema reads into
/// the same model as seed 003's fields.
#[test]
fn an_mcp_requested_schema_is_the_same_model() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "title": "Full name", "minLength": 1, "maxLength": 50},
        "check": {"type": "boolean", "title": "Agree?", "default": false},
        "integer": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2"], "enumNames": ["Option One", "Option Two"]},
        "untitledMultipleSelectEnum": {"type": "array", "items": {"type": "string", "enum": ["Piano", "Drums", "Guitar"]}, "maxItems": 2}
    }, "required": ["name"]});
    let order = [
        "name",
        "check",
        "integer",
        "legacyEnum",
        "untitledMultipleSelectEnum",
    ];
    let form = InputForm::from_schema("Please provide inputs", &schema, &order).unwrap();
    let keys: Vec<(&str, &str, bool)> = form
        .fields
        .iter()
        .map(|f| (f.key.as_str(), f.type_name(), f.required))
        .collect();
    assert_eq!(
        keys,
        [
            ("name", "text", true),
            ("check", "boolean", false),
            ("integer", "integer", false),
            ("legacyEnum", "select", false),
            ("untitledMultipleSelectEnum", "multiselect", false),
        ]
    );
    assert_eq!(
        Value::Object(
            form.check(&json!({"name": "Marvin", "check": true, "integer": 42,
                               "legacyEnum": "Option Two", "untitledMultipleSelectEnum": ["Piano"]}))
                .unwrap()
        ),
        json!({"name": "Marvin", "check": true, "integer": 42, "legacyEnum": "opt2",
               "untitledMultipleSelectEnum": ["Piano"]})
    );
    assert!(InputForm::from_schema("", &json!({"type": "object"}), &[]).is_err());
}

#[test]
fn words_a_person_types_are_an_input() {
    let form = port_form();
    let input = form
        .from_words("port=9000, Use TLS: yes; tags=dev")
        .unwrap();
    assert_eq!(input, json!({"port": "9000", "tls": "yes", "tags": "dev"}));
    assert_eq!(
        Value::Object(form.check(&input).unwrap()),
        json!({"port": 9000, "tls": true, "tags": ["dev"]})
    );
    let lines = form.from_words("port: 8080\nnotes: one, two").unwrap();
    assert_eq!(lines, json!({"port": "8080", "notes": "one, two"}));
    assert!(
        form.from_words("8080")
            .unwrap_err()
            .contains("names no field")
    );
    let one = InputForm::from_fields("", &json!([{"id": "email", "type": "email"}])).unwrap();
    assert_eq!(
        one.from_words("m@example.com").unwrap(),
        json!({"email": "m@example.com"})
    );
}

#[test]
fn a_choice_is_its_value_before_another_options_label() {
    let form = InputForm::from_fields(
        "",
        &json!([{"id": "n", "type": "select", "label": "N",
                 "options": [{"value": "1", "label": "2"}, {"value": "2", "label": "1"}]}]),
    )
    .unwrap();
    assert_eq!(
        Value::Object(form.check(&json!({"n": "2"})).unwrap()),
        json!({"n": "2"})
    );
}

/// Every type doc/interactive-tools.md ("Form fields") and the README list is read, as the
/// guide says; `defaultValue` and `default` both give the default, `defaultValue` first.
#[test]
fn every_field_type_the_guide_lists_is_read() {
    let with_options = |kind: &str| json!({"id": "f", "type": kind, "options": ["a", "b"]});
    let cases = [
        (json!({"id": "f"}), "text", None),
        (json!({"id": "f", "type": "text"}), "text", None),
        (json!({"id": "f", "type": "string"}), "text", None),
        (json!({"id": "f", "type": "textarea"}), "textarea", None),
        (json!({"id": "f", "type": "email"}), "text", Some("email")),
        (json!({"id": "f", "type": "url"}), "text", Some("uri")),
        (json!({"id": "f", "type": "date"}), "text", Some("date")),
        (json!({"id": "f", "type": "number"}), "number", None),
        (json!({"id": "f", "type": "integer"}), "integer", None),
        (json!({"id": "f", "type": "boolean"}), "boolean", None),
        (json!({"id": "f", "type": "checkbox"}), "boolean", None),
        (with_options("checkbox"), "multiselect", None),
        (with_options("select"), "select", None),
        (with_options("radio"), "select", None),
        (with_options("choice"), "select", None),
        (with_options("multiselect"), "multiselect", None),
    ];
    let mut read = Vec::new();
    for (field, wire, format) in cases {
        let form = InputForm::from_fields("", &json!([field])).unwrap();
        let out = &form.to_json()["fields"][0];
        assert_eq!(out["type"], wire, "{field}");
        assert_eq!(out["format"].as_str(), format, "{field}");
        if let Some(kind) = field["type"].as_str() {
            read.push(kind.to_string());
        }
    }
    read.dedup();
    assert_eq!(read, super::read::FIELD_TYPES);
    let why = InputForm::from_fields("", &json!([{"id": "f", "type": "colour"}])).unwrap_err();
    assert!(why.ends_with(&super::read::FIELD_TYPES.join(", ")), "{why}");

    let default = |field: Value| {
        let form = InputForm::from_fields("", &json!([field])).unwrap();
        form.to_json()["fields"][0]["default"].clone()
    };
    assert_eq!(
        default(json!({"id": "n", "type": "integer", "defaultValue": 2})),
        2
    );
    assert_eq!(
        default(json!({"id": "n", "type": "integer", "default": 3})),
        3
    );
    assert_eq!(
        default(json!({"id": "n", "type": "integer", "defaultValue": 2, "default": 3})),
        2
    );
}
