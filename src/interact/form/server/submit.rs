//! A submission before it is taken: its answers checked against the questions, the required
//! ones given, typed image paths naming readable pictures, uploads saved; every problem told
//! at its question's field.

use serde_json::{Value, json};

use super::super::answers::{FieldError, misfits, unanswered};
use super::super::questions::{Kind, Reply, ReplyValue, check_replies};
use super::super::uploads::{MAX_IMAGES, check_image_path};
use super::{FormEvent, Shared, State, finish, lock, refusal_if_closed};
use crate::web::{HttpResponse, json_response};

pub(super) fn submit(shared: &Shared, body: &Value) -> Result<HttpResponse, HttpResponse> {
    if let Some(refusal) = refusal_if_closed(*lock(&shared.state)) {
        return Err(refusal);
    }
    let field_error = |e: FieldError| field_errors(&[e]);
    let mut replies = check_replies(
        &shared.interview,
        body.get("responses").unwrap_or(&Value::Null),
    )
    .map_err(field_error)?;
    let images = match body.get("images") {
        None | Some(Value::Null) => &Vec::new(),
        Some(Value::Array(images)) => images,
        Some(_) => {
            return Err(field_error(FieldError::new(
                "images",
                "images: expected a list.".into(),
            )));
        }
    };
    if images.len() > MAX_IMAGES {
        return Err(field_error(FieldError::new(
            "images",
            format!("Too many images: {} (at most {MAX_IMAGES}).", images.len()),
        )));
    }
    let uploading: Vec<&str> = images
        .iter()
        .filter(|image| image.get("isAttachment").and_then(Value::as_bool) != Some(true))
        .filter_map(|image| image.get("id").and_then(Value::as_str))
        .collect();
    // Every question left unanswered or answered in a way that does not fit is told at once,
    // at its field; the page keeps all the other answers.
    let mut wrong = unanswered(&shared.interview, &replies, &uploading);
    wrong.extend(misfits(&shared.interview, &replies));
    if !wrong.is_empty() {
        return Err(field_errors(&wrong));
    }
    check_typed_paths(shared, &mut replies).map_err(|errors| field_errors(&errors))?;
    for (index, image) in images.iter().enumerate() {
        save_image(shared, image, index, &mut replies)
            .map_err(|(f, m)| field_error(FieldError::new(&f, m)))?;
    }
    finish(shared, State::Submitted, FormEvent::Submitted(replies))
}

/// 400 with every field's error: `field` and `error` for the first, `errors` for all, so
/// the page shows each at its question.
fn field_errors(errors: &[FieldError]) -> HttpResponse {
    let all: Vec<Value> = errors
        .iter()
        .map(|e| json!({"field": e.field, "message": e.message}))
        .collect();
    let first = errors.first();
    json_response(
        400,
        &json!({"ok": false, "error": first.map(|e| e.message.as_str()),
            "field": first.map(|e| e.field.as_str()), "errors": all}),
    )
}

/// Image paths typed in the page: each must name a readable picture; they reach the model as
/// absolute paths.
fn check_typed_paths(shared: &Shared, replies: &mut [Reply]) -> Result<(), Vec<FieldError>> {
    let mut errors = Vec::new();
    for reply in replies.iter_mut() {
        let is_image = shared
            .interview
            .questions
            .iter()
            .any(|q| q.id == reply.id && q.kind == Kind::Image);
        if !is_image {
            continue;
        }
        let typed = match &reply.value {
            ReplyValue::One(one) => vec![one.clone()],
            ReplyValue::Many(many) => many.clone(),
        };
        let mut checked = Vec::new();
        for path in typed.iter().filter(|p| !p.trim().is_empty()) {
            match check_image_path(path, &shared.base_dir) {
                Ok(path) => checked.push(path.display().to_string()),
                Err(why) => errors.push(FieldError::new(&reply.id, why)),
            }
        }
        reply.value = ReplyValue::Many(checked);
    }
    match errors.is_empty() {
        true => Ok(()),
        false => Err(errors),
    }
}

/// Saves one image and adds its path to the answer of its question: as the value of an
/// image question, or as an attachment of any question when `isAttachment` is set.
fn save_image(
    shared: &Shared,
    image: &Value,
    index: usize,
    replies: &mut Vec<Reply>,
) -> Result<(), (String, String)> {
    let Some(id) = image.get("id").and_then(Value::as_str) else {
        let field = format!("images[{index}]");
        return Err((
            field.clone(),
            format!("{field}.id: expected the question id."),
        ));
    };
    let Some(question) = shared.interview.questions.iter().find(|q| q.id == id) else {
        return Err((id.into(), format!("Unknown question id \"{id}\".")));
    };
    let attachment = image.get("isAttachment").and_then(Value::as_bool) == Some(true);
    if !attachment && question.kind != Kind::Image {
        return Err((id.into(), format!("\"{id}\" does not take an image.")));
    }
    let (Some(filename), Some(data)) = (
        image.get("filename").and_then(Value::as_str),
        image.get("data").and_then(Value::as_str),
    ) else {
        return Err((
            id.into(),
            "Invalid image payload: filename and data are needed.".into(),
        ));
    };
    let path = shared
        .uploads
        .save(filename, data)
        .map_err(|m| (id.to_string(), m))?;
    let path = path.display().to_string();
    let index = match replies.iter().position(|r| r.id == id) {
        Some(index) => index,
        None => {
            replies.push(Reply {
                id: id.to_string(),
                value: ReplyValue::Many(Vec::new()),
                attachments: Vec::new(),
            });
            replies.len() - 1
        }
    };
    let reply = &mut replies[index];
    if attachment {
        reply.attachments.push(path);
    } else {
        match &mut reply.value {
            ReplyValue::Many(paths) => paths.push(path),
            ReplyValue::One(one) if one.is_empty() => reply.value = ReplyValue::Many(vec![path]),
            ReplyValue::One(one) => reply.value = ReplyValue::Many(vec![one.clone(), path]),
        }
    }
    Ok(())
}
