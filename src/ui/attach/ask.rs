//! A served session's question asked in the attached terminal with the REPL's own asker (the
//! chooser, the fields of an input form, Esc to close a form, Ctrl+C to cancel the turn), and
//! every answer sent as `POST …/respond`. While a question is asked here the session's events
//! wait (`Hold`) and are shown after it, so nothing is printed over the fields (the terminal's
//! own lines are printed holding it too, `say`, so neither cuts into the other); one that says
//! the question closed (answered elsewhere, cancelled) stops the asking. An input form the
//! gateway refuses (400, with the fields that are wrong) has just those fields asked again,
//! with what was entered and the gateway's words in red above them.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::{Map, Value, json};

use super::Target;
use super::acts::{cancel, refused};
use super::request;
use super::shown::Open;
use crate::interact::{InputForm, Prompt, Request, Response};
use crate::ui::ask::Asker;
use crate::ui::output::Out;
use crate::ui::style::Style;

/// What the typed commands and the asking share: the gateway, the session, who this terminal
/// is to it, the questions shown, and the events held while one is asked here.
pub(super) struct Desk {
    pub target: Arc<Target>,
    pub session: String,
    /// This terminal's name as a client of the gateway (`by` in its answers).
    pub client: String,
    pub open: Open,
    pub hold: Hold,
    pub style: Style,
}

/// The events that arrive while a question is asked here.
pub(super) type Hold = Arc<Mutex<Held>>;

#[derive(Default)]
pub(super) struct Held {
    /// The question asked here now, and what stops the asking (why it closed).
    asking: Option<(String, Arc<OnceLock<String>>)>,
    lines: Vec<String>,
}

/// Shows `lines` (what an event says) with `print`, or keeps them while a question is asked
/// here; an event that closes that question stops the asking.
pub(super) fn show(hold: &Hold, event: &Value, lines: String, print: impl FnOnce(String)) {
    let mut held = hold.lock().unwrap_or_else(PoisonError::into_inner);
    let Some((id, withdrawn)) = &held.asking else {
        if !lines.is_empty() {
            print(lines);
        }
        return;
    };
    if event["type"] == "interaction_response" && closes(event, id) {
        let outcome = event["outcome"].as_str().unwrap_or("over");
        let why = match outcome {
            "cancelled" | "timed out" => outcome.to_string(),
            _ => format!("answered elsewhere: {outcome}"),
        };
        let _ = withdrawn.set(crate::ui::sanitize::sanitize(&why).into_owned());
    }
    if !lines.is_empty() {
        held.lines.push(lines);
    }
}

/// Prints `text` of this terminal's own (the banner, what a command did), wrapped at words to
/// the line's width; while the prompt is down, the session's events are printed as they come
/// by their own thread, so it waits for a line of theirs to end and theirs for it.
pub(super) fn say(hold: &Hold, text: &str) {
    let _held = hold.lock().unwrap_or_else(PoisonError::into_inner);
    println!(
        "{}",
        crate::ui::width::fit(text, crate::ui::width::line_width())
    );
}

/// Whether `event` (an `interaction_response`) closes question `id`.
fn closes(event: &Value, id: &str) -> bool {
    match &event["interactionId"] {
        Value::String(closed) => closed == id,
        id_number => id_number.as_u64().is_some_and(|n| n.to_string() == id),
    }
}

/// Asks question `id` here and sends the answer; what to say after.
pub(super) fn here(desk: &Desk, id: &str) -> String {
    let event = desk
        .open
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(id)
        .cloned();
    let Some(event) = event else {
        return format!("No question {id} waits here.");
    };
    let prompt = match request::prompt_of(&event) {
        Ok(prompt) => prompt,
        Err(why) => return format!("Question {id} cannot be answered here: {why}."),
    };
    match asked(desk, id, &prompt) {
        Some(Response::Cancelled) => cancel(&desk.target, &desk.session),
        Some(response) => {
            match request::respond_body(id, &prompt.request, &response, &desk.client) {
                Some(body) => send(desk, body),
                None => String::new(),
            }
        }
        None => String::new(),
    }
}

/// Sends `body`, an answer to the question it names; an input form whose fields the gateway
/// refuses has them asked here again, then goes again. What to say.
pub(super) fn send(desk: &Desk, body: Value) -> String {
    let id = body["interactionId"].as_str().unwrap_or("").to_string();
    let path = format!("/api/sessions/{}/respond", desk.session);
    let mut body = body;
    loop {
        // Marked before it is sent: the gateway tells every client before it replies.
        mark(&desk.open, &id, true);
        let reply = desk.target.call("POST", &path, Some(&body));
        if !matches!(reply, Ok((200 | 202, _))) {
            mark(&desk.open, &id, false);
        }
        match reply {
            Ok((200 | 202, _)) => return String::new(),
            Ok((400, reply)) if reply["fields"].is_array() && body["input"].is_object() => {
                match fix(desk, &id, &body, &reply) {
                    Ok(again) => body = again,
                    Err(said) => return said,
                }
            }
            Ok((404, _)) => return format!("No question {id} waits here."),
            Ok((409, _)) => {
                return "That question is over: answered already (elsewhere, perhaps), timed out or cancelled."
                    .into();
            }
            Ok((_, reply)) => return refused(&reply),
            Err(why) => return why,
        }
    }
}

/// The fields the gateway refused in `sent`, asked here again with its words above them and
/// what was entered filled in: the answer to send next, or what to say when there is none.
fn fix(desk: &Desk, id: &str, sent: &Value, reply: &Value) -> Result<Value, String> {
    let refused: Vec<(String, String)> = reply["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| Some((f["field"].as_str()?.into(), f["message"].as_str()?.into())))
        .collect();
    let event = desk
        .open
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(id)
        .cloned()
        .unwrap_or_default();
    let form = request::form(&event).map_err(|why| format!("Not taken: {why}"))?;
    let input = sent["input"].as_object().cloned().unwrap_or_default();
    let Some(again) = refused_fields(&form, &refused, &input) else {
        return Err(super::acts::refused(reply));
    };
    let mut prompt = request::prompt_of(&event).map_err(|why| format!("Not taken: {why}"))?;
    let said: Vec<&str> = refused
        .iter()
        .map(|(_, message)| message.as_str())
        .collect();
    prompt.error = Some(said.join("\n"));
    prompt.request = Request::Input(again);
    prompt.completed = crate::interact::CompletedView::default();
    match asked(desk, id, &prompt) {
        Some(Response::Submitted(fixed)) => {
            let mut input = input;
            input.extend(fixed);
            Ok(json!({"interactionId": id, "action": "submit", "input": input, "by": desk.client}))
        }
        Some(Response::Dismissed) => {
            Ok(json!({"interactionId": id, "action": "cancel", "by": desk.client}))
        }
        Some(Response::Cancelled) => Err(cancel(&desk.target, &desk.session)),
        _ => Err(String::new()),
    }
}

/// The form of only the `refused` fields, what was sent for them filled in; `None` when the
/// refusal names no field of the form.
fn refused_fields(
    form: &InputForm,
    refused: &[(String, String)],
    sent: &Map<String, Value>,
) -> Option<InputForm> {
    let fields: Vec<_> = form
        .fields
        .iter()
        .filter(|field| refused.iter().any(|(key, _)| *key == field.key))
        .cloned()
        .collect();
    if fields.is_empty() {
        return None;
    }
    let again = InputForm {
        prompt: form.prompt.clone(),
        fields,
        initial: Map::new(),
    };
    Some(again.with_initial(sent))
}

/// Notes (or forgets) that question `id` was answered from here.
fn mark(open: &Open, id: &str, here: bool) {
    let mut open = open.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(event) = open.get_mut(id) {
        event["answeredHere"] = json!(here);
    }
}

/// `prompt` asked here with the session's events held meanwhile (shown after it); `None` when
/// the question closed while it was asked.
fn asked(desk: &Desk, id: &str, prompt: &Prompt) -> Option<Response> {
    let withdrawn = Arc::new(OnceLock::new());
    desk.hold
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .asking = Some((id.to_string(), Arc::clone(&withdrawn)));
    let mut out = Out::stdout(false);
    let mut asker = Asker::new(&mut out, desk.style, false);
    asker.withdrawn = Some(Arc::clone(&withdrawn));
    let response = asker.ask(prompt);
    out.flush();
    let mut held = desk.hold.lock().unwrap_or_else(PoisonError::into_inner);
    held.asking = None;
    for lines in held.lines.drain(..) {
        println!("{lines}");
    }
    withdrawn.get().is_none().then_some(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_field_is_asked_again_alone_with_what_was_sent() {
        let form = InputForm::from_fields(
            "Where?",
            &json!([{"id": "port", "type": "integer", "label": "Port", "required": true},
                    {"id": "tls", "type": "boolean", "label": "TLS"}]),
        )
        .unwrap();
        let sent = json!({"port": "8080", "tls": true})
            .as_object()
            .unwrap()
            .clone();
        let refused = [("port".to_string(), "Port 8080 is taken.".to_string())];
        let again = refused_fields(&form, &refused, &sent).unwrap();
        assert_eq!(again.fields.len(), 1);
        assert_eq!(again.fields[0].key, "port");
        assert_eq!(Value::Object(again.initial), json!({"port": "8080"}));
        let elsewhere = [("colour".to_string(), "No such field.".to_string())];
        assert!(refused_fields(&form, &elsewhere, &sent).is_none());
    }

    #[test]
    fn events_wait_while_a_question_is_asked_here_and_its_closing_stops_it() {
        let hold: Hold = Arc::default();
        let mut printed = Vec::new();
        let text = json!({"type": "text_delta"});
        show(&hold, &text, "one".into(), |l| printed.push(l));
        let withdrawn = Arc::new(OnceLock::new());
        hold.lock().unwrap().asking = Some(("5".into(), Arc::clone(&withdrawn)));
        show(&hold, &text, "two".into(), |l| printed.push(l));
        let other = json!({"type": "interaction_response", "interactionId": "4", "outcome": "x"});
        show(&hold, &other, "three".into(), |l| printed.push(l));
        assert!(withdrawn.get().is_none());
        let closed =
            json!({"type": "interaction_response", "interactionId": "5", "outcome": "submitted"});
        show(&hold, &closed, "four".into(), |l| printed.push(l));
        assert_eq!(printed, ["one"]);
        assert_eq!(hold.lock().unwrap().lines, ["two", "three", "four"]);
        assert_eq!(
            withdrawn.get().map(String::as_str),
            Some("answered elsewhere: submitted")
        );
    }
}
