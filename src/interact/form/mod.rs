//! The interview (seed 000): a browser form that gathers many answers at once. `questions`
//! parses the questions file and checks the answers the form sends back; `uploads` checks and
//! keeps the images sent with them;
//! `server` serves the page and takes the answers.

pub mod questions;
pub mod server;
pub mod uploads;
