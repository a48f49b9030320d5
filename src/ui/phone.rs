//! Questions answered from the phone (`--on-ask notify`): each question goes to the run's ntfy
//! topic as a notification with buttons that publish the answer to a reply topic of its own,
//! which Marvin polls. No connection ever comes in to the machine Marvin runs on, so it works
//! behind SSH and NAT. Every answer must carry its question's secret: a stray publish to the
//! reply topic cannot approve anything.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::Duration;

use serde_json::{Value, json};

use crate::cancel::CancelToken;
use crate::interact::Request;
use crate::store::ntfy::Subscription;
use crate::tools::everyday::ntfy::Ntfy;

/// How often the reply topic is looked at.
const POLL_EVERY: Duration = Duration::from_secs(1);
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// ntfy shows at most three buttons.
const MAX_BUTTONS: usize = 3;

pub(crate) struct Phone {
    ntfy: Ntfy,
    topic: String,
    /// Where answers are published: the topic, a dash and 16 random hex digits.
    reply: String,
    secrets: HashMap<u64, String>,
    stop: Arc<AtomicBool>,
}

impl Phone {
    /// Questions go to `topic`; answers are read from a new reply topic on a thread that
    /// sends each message's body to `lines`.
    pub(crate) fn start(
        ntfy: Ntfy,
        topic: String,
        lines: Sender<Option<String>>,
    ) -> Result<Phone, String> {
        let suffix =
            crate::secret::random_hex(8).map_err(|e| format!("no secure randomness: {e}"))?;
        let reply = format!("{topic}-{suffix}");
        let stop = Arc::new(AtomicBool::new(false));
        let (poller, flag, topic_polled) = (ntfy.clone(), Arc::clone(&stop), reply.clone());
        std::thread::Builder::new()
            .name("marvin-phone".into())
            .spawn(move || poll(&poller, topic_polled, &lines, &flag))
            .map_err(|e| format!("cannot start polling ntfy: {e}"))?;
        Ok(Phone {
            ntfy,
            topic,
            reply,
            secrets: HashMap::new(),
            stop,
        })
    }

    /// Sends question `id` to the phone; its answer must carry the secret made for it.
    pub(crate) fn send(&mut self, id: u64, request: &Request) -> Result<(), String> {
        let secret =
            crate::secret::random_hex(16).map_err(|e| format!("no secure randomness: {e}"))?;
        let message = notification(&self.topic, &self.reply_url(), id, &secret, request);
        self.ntfy
            .publish_json(&message, CALL_TIMEOUT, &CancelToken::new())?;
        self.secrets.insert(id, secret);
        Ok(())
    }

    /// Whether `answer` carries the secret of the question it names.
    pub(crate) fn vouches_for(&self, id: u64, answer: &Value) -> bool {
        let given = answer["secret"].as_str().unwrap_or("");
        self.secrets
            .get(&id)
            .is_some_and(|secret| crate::secret::same(given.as_bytes(), secret.as_bytes()))
    }

    fn reply_url(&self) -> String {
        format!("{}/{}", self.ntfy.base(), self.reply)
    }
}

/// Sends the question a parked run waits for (`--on-ask park` with `--ntfy`): nobody polls
/// now, so the answer stays on its reply topic until `marvin --resume ID` looks. Returns the
/// reply topic and the secret the answer must carry.
pub(crate) fn send_parked(
    ntfy: &Ntfy,
    topic: &str,
    request: &Request,
    resume: &str,
) -> Result<(String, String), String> {
    let random =
        |bytes| crate::secret::random_hex(bytes).map_err(|e| format!("no secure randomness: {e}"));
    let reply = format!("{topic}-{}", random(8)?);
    let secret = random(16)?;
    let url = format!("{}/{reply}", ntfy.base());
    let mut message = notification(topic, &url, PARKED_ID, &secret, request);
    if let Some(text) = message["message"].as_str() {
        message["message"] = json!(format!(
            "{text}\nThe run waits; it goes on with the answer at: {resume}"
        ));
    }
    ntfy.publish_json(&message, CALL_TIMEOUT, &CancelToken::new())?;
    Ok((reply, secret))
}

/// The id a parked run's question has on the phone.
const PARKED_ID: u64 = 1;

/// The answer to a parked run's question published to `reply` since `since` (unix seconds)
/// with its `secret`, if the phone answered; the latest one counts.
pub(crate) fn parked_answer(
    ntfy: &Ntfy,
    reply: &str,
    secret: &str,
    since: i64,
) -> Result<Option<Value>, String> {
    let mut subscription = Subscription {
        topic: reply.to_string(),
        since: since.to_string(),
    };
    let bodies = ntfy.poll_bodies(&mut subscription, CALL_TIMEOUT, &CancelToken::new())?;
    Ok(bodies
        .iter()
        .rev()
        .filter_map(|body| serde_json::from_str::<Value>(body).ok())
        .find(|answer| {
            let given = answer["secret"].as_str().unwrap_or("");
            answer["id"].as_u64() == Some(PARKED_ID)
                && crate::secret::same(given.as_bytes(), secret.as_bytes())
        }))
}

impl Drop for Phone {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Reads the reply topic until told to stop or nobody listens; a failed poll is tried again.
fn poll(ntfy: &Ntfy, topic: String, lines: &Sender<Option<String>>, stop: &AtomicBool) {
    let mut subscription = Subscription {
        topic,
        since: crate::clock::unix_now().to_string(),
    };
    let cancel = CancelToken::new();
    while !stop.load(Ordering::Relaxed) {
        if let Ok(bodies) = ntfy.poll_bodies(&mut subscription, CALL_TIMEOUT, &cancel) {
            for body in bodies {
                if lines.send(Some(body)).is_err() {
                    return;
                }
            }
        }
        std::thread::sleep(POLL_EVERY);
    }
}

/// The notification for question `id`: what is asked, and buttons that publish the answer
/// (with its secret) to `reply`; where buttons cannot hold every answer, how to reply by hand.
fn notification(topic: &str, reply: &str, id: u64, secret: &str, request: &Request) -> Value {
    let button = |label: &str, answer: Value| {
        let mut body = answer;
        body["id"] = json!(id);
        body["secret"] = json!(secret);
        json!({"action": "http", "label": label, "url": reply, "method": "POST",
               "body": body.to_string(), "clear": true})
    };
    let (title, message, actions) = match request {
        Request::Approval(a) => {
            let detail: Vec<&str> = a.detail.lines().take(8).collect();
            let actions = vec![
                button("Allow once", json!({"approve": "once"})),
                button(
                    "Deny",
                    json!({"approve": "no", "reason": "denied from the phone"}),
                ),
            ];
            (
                format!("Marvin asks: {}", a.tool),
                format!("{}\n{}", a.summary, detail.join("\n")),
                actions,
            )
        }
        Request::Questions(questions) => {
            let mut text = Vec::new();
            for q in questions {
                text.push(q.question.clone());
                for (n, o) in q.options.iter().enumerate() {
                    text.push(
                        format!("{}. {} {}", n + 1, o.label, o.description)
                            .trim_end()
                            .to_string(),
                    );
                }
            }
            let single = questions.len() == 1 && !questions[0].multi_select;
            let actions: Vec<Value> = match single {
                true if questions[0].options.len() <= MAX_BUTTONS => questions[0]
                    .options
                    .iter()
                    .map(|o| button(&o.label, json!({"answers": [o.label]})))
                    .collect(),
                _ => {
                    text.push(format!(
                        "Answer by publishing to {reply}: {{\"id\": {id}, \"secret\": \"{secret}\", \"answers\": [one per question]}}"
                    ));
                    Vec::new()
                }
            };
            ("Marvin asks".to_string(), text.join("\n"), actions)
        }
        Request::Input(form) => {
            let mut text = vec![form.prompt.clone()];
            for field in &form.fields {
                let hint = field.hint().map(|h| format!(" ({h})")).unwrap_or_default();
                text.push(format!("{}: {}{hint}", field.key, field.label));
            }
            text.push(format!(
                "Answer by publishing to {reply}: {{\"id\": {id}, \"secret\": \"{secret}\", \"input\": {{\"FIELD\": VALUE, ...}}}}"
            ));
            ("Marvin asks".to_string(), text.join("\n"), Vec::new())
        }
        Request::Form(form) => (
            format!("Marvin asks: {}", form.title),
            "A form waits in the browser on the machine Marvin runs on.".to_string(),
            Vec::new(),
        ),
    };
    json!({"topic": topic, "title": title, "message": message, "actions": actions, "priority": 4})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interact::{Approval, Choice, Question};

    #[test]
    fn an_approval_has_allow_and_deny_buttons_carrying_the_secret() {
        let request = Request::Approval(Approval {
            tool: "run_command".into(),
            summary: "run_command wants to run:".into(),
            detail: "make deploy".into(),
            covers: "`make deploy`".into(),
            all_edits: false,
            scopes: Vec::new(),
        });
        let message = notification("t", "https://ntfy.sh/t-r", 4, "s3cret", &request);
        assert_eq!(message["topic"], "t");
        assert_eq!(message["title"], "Marvin asks: run_command");
        assert_eq!(message["message"], "run_command wants to run:\nmake deploy");
        let actions = message["actions"].as_array().unwrap();
        assert_eq!(actions.len(), 2);
        assert_eq!(actions[0]["url"], "https://ntfy.sh/t-r");
        let body: Value = serde_json::from_str(actions[0]["body"].as_str().unwrap()).unwrap();
        assert_eq!(
            body,
            json!({"approve": "once", "id": 4, "secret": "s3cret"})
        );
    }

    #[test]
    fn a_question_gets_a_button_per_option_or_how_to_reply() {
        let question = |n: usize, multi| Question {
            header: "Pick".into(),
            question: "Which?".into(),
            options: (0..n)
                .map(|i| Choice {
                    label: format!("o{i}"),
                    description: String::new(),
                })
                .collect(),
            multi_select: multi,
            initial: None,
        };
        let few = notification(
            "t",
            "u",
            1,
            "s",
            &Request::Questions(vec![question(3, false)]),
        );
        assert_eq!(few["actions"].as_array().unwrap().len(), 3);
        let body: Value =
            serde_json::from_str(few["actions"][2]["body"].as_str().unwrap()).unwrap();
        assert_eq!(body["answers"], json!(["o2"]));
        let many = notification(
            "t",
            "u",
            1,
            "s",
            &Request::Questions(vec![question(4, false)]),
        );
        assert!(many["actions"].as_array().unwrap().is_empty());
        assert!(
            many["message"]
                .as_str()
                .unwrap()
                .contains("\"secret\": \"s\""),
            "{many}"
        );
    }
}
