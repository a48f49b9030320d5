//! The gateway's API (the shape of seeds 001/004): sessions listed and created, a message sent
//! (409 while a turn runs), the events streamed from a sequence number, a turn cancelled, and
//! questions answered (400 for an answer that does not fit, 404 for no such question, 409 for
//! one already answered).

use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tiny_http::{Method, Request, Response};

use super::answers::{self, Refused};
use super::broadcast::Broadcaster;
use super::questions::{NotTaken, Which};
use super::{Gateway, Served, sse};
use crate::interact::{Request as Asked, Response as Answered};
use crate::web::{self, HttpResponse, json_response};

/// The largest body taken: a message, or an answer.
pub(super) const MAX_BODY: usize = 1024 * 1024;
const BODY_DEADLINE: Duration = Duration::from_secs(30);

/// Answers one admitted request.
pub(crate) fn answer(gateway: &Gateway, mut request: Request) {
    let (path, query) = web::path_and_query(&request);
    let (path, query) = (path.to_string(), query.to_string());
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let method = request.method().clone();
    let response = match (&method, parts.as_slice()) {
        (Method::Get, [""]) => Ok(page(gateway)),
        (Method::Get, ["gateway.css"]) => Ok(web::asset(super::css(), "text/css; charset=utf-8")),
        (Method::Get, ["gateway.js"]) => {
            Ok(web::asset(super::js(), "text/javascript; charset=utf-8"))
        }
        (Method::Get, ["cards.js"]) => {
            Ok(web::asset(super::cards(), "text/javascript; charset=utf-8"))
        }
        (Method::Get, ["markdown.js"]) => Ok(web::asset(
            super::markdown(),
            "text/javascript; charset=utf-8",
        )),
        (Method::Get, ["api"]) => Ok(index()),
        (Method::Get, ["api", "sessions"]) => Ok(list(gateway)),
        (Method::Post, ["api", "sessions"]) => {
            body(&mut request).and_then(|body| create(gateway, &body))
        }
        (Method::Get, ["api", "sessions", id, "events"]) => {
            return stream(gateway, request, id, &query);
        }
        (Method::Post, ["api", "sessions", id, action]) => served(gateway, id)
            .and_then(|served| Ok((served, body(&mut request)?)))
            .and_then(|(served, body)| act(&served, action, &body)),
        _ => Err(error(404, "no such route: GET /api lists them")),
    };
    let _ = request.respond(response.unwrap_or_else(|refused| refused));
}

fn error(status: u16, message: &str) -> HttpResponse {
    json_response(status, &json!({ "error": message }))
}

/// A body over [`MAX_BODY`], announced (refused at the gate) or sent.
pub(super) fn too_big() -> HttpResponse {
    error(
        413,
        "the body is larger than 1 MB: send a shorter message or answer",
    )
}

/// The body's JSON object; no body at all is `{}` (`cancel` needs nothing).
fn body(request: &mut Request) -> Result<Value, HttpResponse> {
    let deadline = Instant::now() + BODY_DEADLINE;
    let bytes = web::read_body(request, MAX_BODY, deadline, too_big)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value) if value.is_object() => Ok(value),
        Ok(_) => Err(error(
            400,
            "the body is a JSON object, such as {\"content\": \"hello\"}: GET /api lists each route's fields",
        )),
        Err(why) => Err(error(
            400,
            &format!(
                "the body is not JSON ({why}): send an object, such as {{\"content\": \"hello\"}}"
            ),
        )),
    }
}

fn served(gateway: &Gateway, id: &str) -> Result<Arc<Served>, HttpResponse> {
    gateway
        .find(id)
        .ok_or_else(|| {
            error(
                404,
                "no session with that id is served: take it up with POST /api/sessions {\"resume\": ID} (or in the page)",
            )
        })
}

/// The page: only its own scripts, styles and requests, never framed.
fn page(gateway: &Gateway) -> HttpResponse {
    let policy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                  img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    web::with_headers(
        Response::from_string(gateway.page()),
        "text/html; charset=utf-8",
    )
    .with_header(web::header("Content-Security-Policy", policy))
}

fn index() -> HttpResponse {
    json_response(
        200,
        &json!({"routes": [
            "GET /api/sessions", "POST /api/sessions {resume?, code?}",
            "POST /api/sessions/:id/messages {content}", "GET /api/sessions/:id/events?since=N",
            "POST /api/sessions/:id/cancel",
            "POST /api/sessions/:id/respond {interactionId | toolCallId, action: approve|deny|submit|cancel, approvalScope?, input?, reason?, answers?, by?}",
            "POST /api/sessions/:id/submit-answers {toolCallId, answers, client?}",
            "POST /api/sessions/:id/approve {toolCallId, scope, client?}", "POST /api/sessions/:id/deny {toolCallId, reason, client?}",
            "POST /api/sessions/:id/interaction-mode {client, enabled}",
        ]}),
    )
}

/// The sessions served now, then the stored ones (the profile's history) not served.
/// A served session is named as it is stored (once its first turn is saved).
fn list(gateway: &Gateway) -> HttpResponse {
    let served = gateway.served();
    let stored = match &gateway.home {
        Some(home) => crate::store::sessions::list(home, &crate::store::Warnings::default()),
        None => Vec::new(),
    };
    let mut listed: Vec<Value> = served
        .iter()
        .map(|s| {
            let name = stored
                .iter()
                .find(|m| m.id == s.id)
                .map(|m| m.name.as_str());
            json!({"id": s.id, "name": name, "served": true, "running": s.is_running(),
                   "events": s.events.len()})
        })
        .collect();
    for meta in stored {
        if served.iter().any(|s| s.id == meta.id) {
            continue;
        }
        listed.push(json!({
            "id": meta.id, "name": meta.name, "served": false, "updated": meta.updated,
            "working_dir": meta.working_dir, "messages": meta.messages, "cost_usd": meta.cost,
            "parked": meta.parked.is_some(),
        }));
    }
    json_response(200, &json!({ "sessions": listed }))
}

/// A new session, or a stored one taken up (`{"resume": "ID or name"}`).
fn create(gateway: &Gateway, body: &Value) -> Result<HttpResponse, HttpResponse> {
    let fields = body
        .as_object()
        .map(|o| o.keys().collect::<Vec<_>>())
        .unwrap_or_default();
    if let Some(other) = fields
        .iter()
        .find(|key| !["resume", "code"].contains(&key.as_str()))
    {
        return Err(error(
            400,
            &format!(
                "unknown field {other:?}: send {{}} for a new session, {{\"code\": true}} for one in coding mode, or {{\"resume\": \"ID or name\"}}"
            ),
        ));
    }
    let code = match &body["code"] {
        Value::Null => None,
        Value::Bool(on) => Some(*on),
        _ => return Err(error(400, "\"code\" is true (coding mode) or false")),
    };
    let resume = match &body["resume"] {
        Value::Null if fields.iter().any(|key| key.as_str() == "resume") => {
            return Err(error(400, "\"resume\" is a session's id or name, a string"));
        }
        Value::Null => None,
        Value::String(key) if !key.trim().is_empty() => Some(key.trim()),
        _ => return Err(error(400, "\"resume\" is a session's id or name, a string")),
    };
    let mut session = (gateway.new_session)();
    let id = match resume {
        Some(key) => {
            let meta = session.find_session(key).map_err(|why| error(404, &why))?;
            if let Some(served) = gateway.find(&meta.id) {
                return Ok(json_response(
                    200,
                    &json!({"id": served.id, "resumed": true}),
                ));
            }
            let id = meta.id.clone();
            let parked = meta.parked.is_some();
            if parked && meta.working_dir != session.working_dir() {
                let why = format!(
                    "run {id} was parked in {}: serve from there, or take it up with marvin --resume {id}",
                    meta.working_dir.display()
                );
                return Err(error(409, &why));
            }
            session.open_session(meta).map_err(|why| error(409, &why))?;
            if parked {
                return serve_parked(gateway, id, session);
            }
            id
        }
        None => session
            .begin_session()
            .unwrap_or_else(crate::store::sessions::new_id),
    };
    let coding = session.coding_mode();
    let served = serve(gateway, id.clone(), session);
    // Said as a notice too, so every page (and a reload) shows the mode.
    let coding = match code {
        Some(on) if on != coding => served
            .set_coding(Some(on))
            .map_err(|why| error(409, &why))?,
        _ => coding,
    };
    Ok(json_response(201, &json!({ "id": id, "coding": coding })))
}

/// A parked run taken up: served like any session, and its turn goes on at once, its
/// question going to the clients.
fn serve_parked(
    gateway: &Gateway,
    id: String,
    session: crate::session::Session,
) -> Result<HttpResponse, HttpResponse> {
    let served = serve(gateway, id.clone(), session);
    served.resume_parked().map_err(|why| error(409, &why))?;
    Ok(json_response(201, &json!({ "id": id, "parked": true })))
}

/// Serves `session` as `id`, its events going on from what its log kept.
fn serve(gateway: &Gateway, id: String, session: crate::session::Session) -> Arc<Served> {
    let log = gateway
        .home
        .as_ref()
        .map(|home| home.join("sessions").join(&id).join("events.jsonl"));
    let served = Arc::new(Served::new(
        id.clone(),
        session,
        Broadcaster::open(log),
        gateway.question_timeout,
    ));
    gateway
        .sessions
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id, Arc::clone(&served));
    served
}

/// `POST /api/sessions/:id/ACTION`.
fn act(served: &Arc<Served>, action: &str, body: &Value) -> Result<HttpResponse, HttpResponse> {
    match action {
        "messages" => {
            let content = body["content"]
                .as_str()
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .ok_or_else(|| error(400, "\"content\" is the message: a non-empty string"))?;
            // `!code`, as in the REPL: the mode changes, nothing goes to the model.
            if content == "!code" {
                let on = served.set_coding(None).map_err(|why| error(409, &why))?;
                return Ok(json_response(200, &json!({"coding": on})));
            }
            served
                .start_turn(content.to_string())
                .map_err(|why| error(409, &why))?;
            Ok(json_response(202, &json!({"ok": true})))
        }
        "cancel" => Ok(json_response(
            200,
            &json!({"running": served.stop_from_page()}),
        )),
        "interaction-mode" => {
            let client = body["client"]
                .as_str()
                .filter(|c| !c.is_empty())
                .ok_or_else(|| error(400, "\"client\" is the id the client's event stream gave"))?;
            let on = body["enabled"]
                .as_bool()
                .ok_or_else(|| error(400, "\"enabled\" is true or false"))?;
            let answering = served.followers.set_interactive(client, on);
            Ok(json_response(
                200,
                &json!({"enabled": on, "answering_clients": answering}),
            ))
        }
        "respond" => answer_with(served, body, |asked| answers::respond(asked, body)),
        "submit-answers" => answer_with(served, body, |asked| {
            Ok(answers::answers_response(asked, &body["answers"])?)
        }),
        "approve" => answer_with(served, body, |asked| {
            Ok(answers::approval_response(asked, &body["scope"])?)
        }),
        "deny" => answer_with(served, body, |asked| {
            Ok(answers::denial_response(asked, &body["reason"])?)
        }),
        _ => Err(error(404, "no such action: GET /api lists them")),
    }
}

fn answer_with(
    served: &Arc<Served>,
    body: &Value,
    answer: impl FnOnce(&Asked) -> Result<Answered, Refused>,
) -> Result<HttpResponse, HttpResponse> {
    let prompt = match &body["interactionId"] {
        Value::Null => None,
        Value::Number(n) => Some(n.to_string()),
        Value::String(id) => Some(id.clone()),
        _ => Some(String::new()),
    };
    let call = body["toolCallId"].as_str().filter(|id| !id.is_empty());
    // Who answers (`by`, or `client` as the older routes name it), told to every client with
    // the outcome (a page knows its own answer again after a reload).
    let by = body["by"]
        .as_str()
        .or(body["client"].as_str())
        .filter(|c| !c.is_empty() && c.len() <= 64);
    let which = match (prompt, call) {
        (Some(id), _) => Which::Prompt(id.parse().map_err(|_| {
            error(
                400,
                "\"interactionId\" is the question event's interactionId",
            )
        })?),
        (None, Some(call)) => Which::Call(call.to_string()),
        (None, None) => {
            return Err(error(
                400,
                "name the question: \"toolCallId\" (or \"interactionId\") from its event",
            ));
        }
    };
    match served.answer(&which, by, answer) {
        Ok(()) => Ok(json_response(200, &json!({"ok": true}))),
        Err(NotTaken::ReadOnly(client)) => Err(error(
            403,
            &format!(
                "client {client:?} switched its interactive mode off, so it only watches and its answers are not taken: switch it on (POST /api/sessions/{}/interaction-mode {{\"client\": {client:?}, \"enabled\": true}}, or tick \"Answer questions in this page\") and answer again",
                served.id
            ),
        )),
        Err(NotTaken::Unknown) => Err(error(404, "no question is pending under that id")),
        Err(NotTaken::Closed) => Err(error(
            409,
            "that question is over: answered already (perhaps by another client), timed out or cancelled",
        )),
        Err(NotTaken::Invalid(Refused { error, fields })) if fields.is_empty() => {
            Err(self::error(400, &error))
        }
        Err(NotTaken::Invalid(Refused { error, fields })) => Err(json_response(
            400,
            &json!({"error": error, "fields": fields}),
        )),
    }
}

/// `GET /api/sessions/:id/events?since=N`: the stream, on this thread until it ends.
fn stream(gateway: &Gateway, request: Request, id: &str, query: &str) {
    let served = match served(gateway, id) {
        Ok(served) => served,
        Err(refused) => {
            let _ = request.respond(refused);
            return;
        }
    };
    let since = web::query_param(query, "since")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let client = web::query_param(query, "client")
        .filter(|c| !c.is_empty() && c.len() <= 64)
        .unwrap_or_else(|| format!("anonymous-{}", crate::store::sessions::new_id()));
    let (backlog, live) = served.events.subscribe(since);
    let _following = served.followers.follow(&client);
    // tiny_http would hold a streamed body back in 8 KB chunks: the connection is taken over
    // once the headers are sent, and each event written to it as it comes.
    let headers = Response::empty(200)
        .with_header(web::header("Content-Type", "text/event-stream"))
        .with_header(web::header("Cache-Control", "no-store"))
        .with_header(web::header("X-Content-Type-Options", "nosniff"));
    let mut client = request.upgrade("server-sent-events", headers);
    sse::pump(&mut client, backlog, &live);
}
