//! The events clients written to seeds 001 and 004 wait for, sent beside seed 003's
//! `interaction_request` for the same prompt: `question_prompt` (`toolCallId`, `questions`)
//! for questions and `approval_required` (`toolCallId`, `toolName`, `input`: the call's
//! arguments as a JSON string) for approvals. Each carries the prompt's correlation too, its
//! `interactionId` above all, so the one `interaction_response` that closes the prompt
//! closes both (a seed-001/004 client matches it by `toolCallId`, a seed-003 one by
//! `interactionId`), and a page that shows the `interaction_request` knows the other for the
//! same card.

use serde_json::{Value, json};

use crate::interact::{Prompt, Request};
use crate::session::Correlation;

/// The seed-001/004 event for `prompt`, when its kind has one (input forms and pages to open
/// are seed 003's alone). `arguments` are the asking call's, when the turn showed them.
pub(crate) fn for_prompt(
    prompt: &Prompt,
    correlation: &Correlation,
    arguments: Option<&Value>,
) -> Option<(&'static str, Value)> {
    let (kind, mut value) = match &prompt.request {
        Request::Questions(questions) => (
            "question_prompt",
            json!({"questions": questions.iter().map(question).collect::<Vec<_>>()}),
        ),
        Request::Approval(approval) => {
            let tool = match approval.tool.is_empty() {
                true => &correlation.tool_name,
                false => &approval.tool,
            };
            // What will run, when the call's own arguments are not known (an approval asked
            // outside a call).
            let shown = json!({"summary": approval.summary, "detail": approval.detail});
            let input = arguments.unwrap_or(&shown).to_string();
            (
                "approval_required",
                json!({"toolName": tool, "input": input}),
            )
        }
        Request::Input(_) | Request::Form(_) => return None,
    };
    if let (Some(fields), Ok(Value::Object(more))) =
        (value.as_object_mut(), serde_json::to_value(correlation))
    {
        for (name, field) in more {
            fields.entry(name).or_insert(field);
        }
    }
    if let Some(error) = &prompt.error {
        value["error"] = json!(error);
    }
    Some((kind, value))
}

/// A question as seed 001's `QuestionItem` has it: `header`, `question`, `options`
/// (`label`, `description`) and `multiSelect`.
fn question(question: &crate::interact::Question) -> Value {
    json!({"header": question.header, "question": question.question,
           "options": question.options, "multiSelect": question.multi_select})
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::interact::{Approval, Choice, InputForm, Question};

    fn correlation(tool: &str) -> Correlation {
        Correlation {
            timestamp: "2026-11-29T10:00:00.000Z".into(),
            turn_id: "turn-1".into(),
            response_id: "turn-1/1".into(),
            tool_call_id: "call_7".into(),
            interaction_id: "4".into(),
            tool_name: tool.into(),
        }
    }

    #[test]
    fn questions_become_a_question_prompt_with_seed_001_s_fields_and_the_prompt_s_id() {
        let asked = Request::Questions(vec![Question {
            header: "Database".into(),
            question: "Which database?".into(),
            options: vec![Choice {
                label: "SQLite".into(),
                description: "a file".into(),
            }],
            multi_select: true,
            initial: None,
        }]);
        let prompt = Prompt::new(asked, Duration::from_secs(1));
        let (kind, value) = for_prompt(&prompt, &correlation("ask_user"), None).unwrap();
        assert_eq!(kind, "question_prompt");
        assert_eq!(value["toolCallId"], "call_7");
        assert_eq!(value["interactionId"], "4");
        assert_eq!(
            value["questions"],
            json!([{"header": "Database", "question": "Which database?", "multiSelect": true,
                    "options": [{"label": "SQLite", "description": "a file"}]}])
        );
    }

    #[test]
    fn an_approval_names_its_tool_and_the_call_s_arguments_as_a_json_string() {
        let approval = |tool: &str| {
            Request::Approval(Approval {
                tool: tool.into(),
                summary: "wants to run:".into(),
                detail: "make".into(),
                covers: String::new(),
                all_edits: false,
                scopes: Vec::new(),
            })
        };
        let prompt = Prompt::new(approval("run_command"), Duration::from_secs(1));
        let arguments = json!({"command": "make"});
        let (kind, value) =
            for_prompt(&prompt, &correlation("run_command"), Some(&arguments)).unwrap();
        assert_eq!(kind, "approval_required");
        assert_eq!(value["toolName"], "run_command");
        assert_eq!(value["toolCallId"], "call_7");
        let input: Value = serde_json::from_str(value["input"].as_str().unwrap()).unwrap();
        assert_eq!(input, arguments);
        // No call's arguments known, and no tool named: what will run, under the call's tool.
        let prompt = Prompt::new(approval(""), Duration::from_secs(1));
        let (_, value) = for_prompt(&prompt, &correlation("mcp"), None).unwrap();
        assert_eq!(value["toolName"], "mcp");
        assert!(value["input"].as_str().unwrap().contains("make"), "{value}");
    }

    #[test]
    fn input_forms_have_no_older_event() {
        let form = InputForm::from_fields("Where?", &json!([{"id": "p", "type": "text"}]));
        let prompt = Prompt::new(Request::Input(form.unwrap()), Duration::from_secs(1));
        assert!(for_prompt(&prompt, &correlation("t"), None).is_none());
    }
}
