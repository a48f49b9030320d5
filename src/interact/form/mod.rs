//! The interview (seed 000): a browser form that gathers many answers at once. `questions`
//! parses the questions file and checks the answers the form sends back; `uploads` checks and
//! keeps the images sent with them.

pub mod questions;
pub mod uploads;
