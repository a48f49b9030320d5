//! Serves the interview form with a questions file and prints what the page sends back, for
//! working on the page and for the browser tests:
//! `cargo run --example form_preview -- form/example-questions.json [TIMEOUT_SECS]`.
//! Prints the URL on the first line, then the tool's result when the form is answered,
//! cancelled or times out.

use std::time::Duration;

use marvin::interact::form;
use marvin::interact::form::questions::{self, Status};
use marvin::interact::form::server::{FormEvent, FormServer};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "form/example-questions.json".into());
    let timeout: u64 = args.next().and_then(|t| t.parse().ok()).unwrap_or(600);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let interview = questions::parse(&value).unwrap_or_else(|e| panic!("{path}: {e}"));
    let asked = interview.questions.clone();
    let uploads = std::env::temp_dir().join(format!("marvin-form-preview-{}", std::process::id()));
    let server =
        FormServer::start(interview, form::page(), uploads, timeout).expect("the form server");
    println!("{}", server.url());
    let (status, replies) = match server.wait(Duration::from_secs(timeout)) {
        Some(FormEvent::Submitted(replies)) => (Status::Completed, replies),
        Some(FormEvent::Cancelled) => (Status::Cancelled, Vec::new()),
        None => (Status::Timeout, Vec::new()),
    };
    let text = questions::result_text(status, Some("browser"), &asked, &replies, timeout);
    println!("{text}");
}
