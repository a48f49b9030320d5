//! The interview (seed 000): a browser form that gathers many answers at once. `questions`
//! parses the questions file and checks the answers the form sends back; `uploads` checks and
//! keeps the images sent with them;
//! `server` serves the page and takes the answers.

pub mod questions;
pub mod server;
pub mod uploads;

/// The page in `form/`, built into the binary: no CDN, no build step, works offline.
pub const PAGE: server::Assets = server::Assets {
    html: include_str!("../../../form/index.html"),
    css: include_str!("../../../form/styles.css"),
    js: include_str!("../../../form/script.js"),
};
