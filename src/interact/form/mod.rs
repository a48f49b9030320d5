//! The interview (seed 000): a browser form that gathers many answers at once. `repair`
//! reads a questions file a model wrote, `questions` (with `content`, `media`, `recommend`)
//! checks it, `answers` checks the answers sent back; `uploads` checks and
//! keeps the images sent with them and the image paths typed instead; `server` serves the
//! page and takes the answers.

pub mod answers;
pub mod content;
pub mod draft;
mod format;
pub mod media;
pub mod pictures;
pub mod questions;
#[cfg(test)]
mod questions_props;
mod recommend;
pub mod record;
pub mod repair;
mod rule;
#[cfg(test)]
mod schema_tests;
pub mod server;
mod trace;
pub mod uploads;

/// The page in `form/`, built into the binary (deflated, inflated on the first call: see
/// `web::packed`): no CDN, no build step, works offline.
pub fn page() -> server::Assets {
    use crate::web::packed::page_file;
    server::Assets {
        html: page_file!("index.html"),
        css: page_file!("styles.css"),
        js: page_file!("script.js"),
        blocks: page_file!("blocks.js"),
    }
}
