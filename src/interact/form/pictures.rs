//! The pictures a questions file shows (`media` of type `image` with a path on this machine):
//! checked when the questions are read (the path resolved against the working directory, a
//! readable PNG, JPEG, GIF or WebP), and served to the page by question and item number only,
//! so the page can ask for nothing but what the questions name.

use std::io::Read;
use std::path::Path;

use super::media::MediaBody;
use super::questions::Interview;
use super::uploads::{ImageKind, MAX_IMAGE_BYTES, check_image_path};
use crate::web::{HttpResponse, text, with_headers};

/// Whether `src` names a file here (not a data URI, not an address elsewhere).
fn is_local(src: &str) -> bool {
    !src.starts_with("data:") && !src.starts_with("http://") && !src.starts_with("https://")
}

/// Checks every picture of `interview` and replaces its path by the absolute one; a data URI
/// must hold a PNG, JPEG, GIF or WebP image (not SVG, which can carry scripts).
pub fn resolve(interview: &mut Interview, base: &Path) -> Result<(), String> {
    for question in &mut interview.questions {
        for (m, item) in question.media.iter_mut().enumerate() {
            let MediaBody::Image { src, .. } = &mut item.body else {
                continue;
            };
            let field = format!("Question \"{}\": media[{m}].src", question.id);
            if let Some(kind) = src.strip_prefix("data:") {
                if !["image/png;", "image/jpeg;", "image/gif;", "image/webp;"]
                    .iter()
                    .any(|k| kind.starts_with(k))
                {
                    return Err(format!(
                        "{field}: a data URI must hold a PNG, JPEG, GIF or WebP image."
                    ));
                }
            } else if is_local(src) {
                let path = check_image_path(src, base).map_err(|why| format!("{field}: {why}"))?;
                *src = path.display().to_string();
            }
        }
    }
    Ok(())
}

/// `/media/Q/M`: the question and item numbers.
pub fn route(path: &str) -> Option<(usize, usize)> {
    let (q, m) = path.strip_prefix("/media/")?.split_once('/')?;
    Some((q.parse().ok()?, m.parse().ok()?))
}

/// The picture of item `m` of question `q`, when it is a file here that is still an image.
pub fn serve(interview: &Interview, q: usize, m: usize) -> HttpResponse {
    let item = interview
        .questions
        .get(q)
        .and_then(|question| question.media.get(m));
    let Some(MediaBody::Image { src, .. }) = item.map(|item| &item.body) else {
        return text(404, "Not found");
    };
    if !is_local(src) {
        return text(404, "Not found");
    }
    let mut bytes = Vec::new();
    let read = std::fs::File::open(src).and_then(|file| {
        file.take(MAX_IMAGE_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
    });
    if read.is_err() || bytes.len() > MAX_IMAGE_BYTES {
        return text(404, "The picture cannot be read");
    }
    let kind = match ImageKind::sniff(&bytes) {
        Some(ImageKind::Png) => "image/png",
        Some(ImageKind::Jpeg) => "image/jpeg",
        Some(ImageKind::Gif) => "image/gif",
        Some(ImageKind::Webp) => "image/webp",
        None => return text(404, "Not a picture"),
    };
    with_headers(tiny_http::Response::from_data(bytes), kind)
}
