//! The interview (seed 000): a browser form that gathers many answers at once. `questions`
//! parses the questions file and checks the answers the form sends back.

pub mod questions;
