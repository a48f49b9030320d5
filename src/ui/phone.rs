//! Questions answered from the phone (`--on-ask notify`, MARVIN_PHONE_TOPIC, a parked run's
//! `--ntfy`): each question goes to the run's ntfy topic as a notification (see `phone_note`)
//! whose answers are published to a reply topic of its own, which Marvin polls. No connection
//! ever comes in to the machine Marvin runs on, so it works behind SSH and NAT. Every answer
//! must carry its question's secret (a button's JSON) or code (words typed by hand): a stray
//! publish to the reply topic cannot approve anything. An answer that is not used is told back.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::Duration;

use serde_json::Value;

use super::park;
use super::phone_note::{self, code, notification};
use crate::cancel::CancelToken;
use crate::interact::Request;
use crate::store::ntfy::Subscription;
use crate::tools::everyday::ntfy::Ntfy;

/// How often the reply topic is looked at.
const POLL_EVERY: Duration = Duration::from_secs(1);
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// What an answer without its question's secret or code is told.
const NOT_VOUCHED: &str = "the answer does not carry its question's secret: it is ignored";

pub(crate) struct Phone {
    ntfy: Ntfy,
    topic: String,
    /// Where answers are published: the topic, a dash and 16 random hex digits.
    reply: String,
    /// The questions sent, by id: the secret their answers carry, and what was asked.
    asked: HashMap<u64, (String, Request)>,
    stop: Arc<AtomicBool>,
}

/// A body published to a reply topic, vouched for: the JSON answer, or the words after the
/// question's number and code.
enum Said {
    Json(Value),
    Words(String),
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
            asked: HashMap::new(),
            stop,
        })
    }

    /// Sends question `id` (with the error of a reprompt); its answer must carry the secret
    /// made for it.
    pub(crate) fn send(
        &mut self,
        id: u64,
        request: &Request,
        error: Option<&str>,
    ) -> Result<(), String> {
        let secret =
            crate::secret::random_hex(16).map_err(|e| format!("no secure randomness: {e}"))?;
        let url = self.reply_url();
        let reply = phone_note::Reply {
            url: &url,
            id,
            secret: &secret,
            code: &code(&secret),
        };
        let message = notification(&self.topic, &reply, request, error);
        self.ntfy
            .publish_json(&message, CALL_TIMEOUT, &CancelToken::new())?;
        self.asked.insert(id, (secret, request.clone()));
        Ok(())
    }

    /// What `body` answers: the question's id and the answer as the JSON `--on-ask stdin`
    /// reads (not yet checked against the question); `Err` says why it is not used, and
    /// which question it named if it could be read.
    pub(crate) fn read(&self, body: &str) -> Result<(u64, Value), (Option<u64>, String)> {
        let secret_of = |id: u64| self.asked.get(&id).map(|(secret, _)| secret.as_str());
        let (id, said) = read_body(body, secret_of)?;
        match said {
            Said::Json(answer) => Ok((id, answer)),
            Said::Words(words) => {
                let Some((_, request)) = self.asked.get(&id) else {
                    return Err((Some(id), NOT_VOUCHED.into()));
                };
                park::answer_from_text(request, &words)
                    .map(|answer| (id, answer))
                    .map_err(|why| (Some(id), why))
            }
        }
    }

    /// Tells the phone an answer was not used, and why (on a thread of its own: nothing
    /// waits for the phone).
    pub(crate) fn refuse(&self, id: Option<u64>, why: &str) {
        let message = match id.and_then(|id| self.asked.get(&id).map(|a| (id, a))) {
            Some((id, (secret, _))) => format!(
                "Your answer to question {id} was not used: {why}\nAnswer again: {id} {} …",
                code(secret)
            ),
            None => format!("An answer was not used: {why}"),
        };
        tell(&self.ntfy, &self.topic, "Marvin: answer not used", message);
    }

    fn reply_url(&self) -> String {
        format!("{}/{}", self.ntfy.base(), self.reply)
    }
}

impl Drop for Phone {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Publishes a notification to `topic` on a thread of its own.
pub(crate) fn tell(ntfy: &Ntfy, topic: &str, title: &str, message: String) {
    let note = serde_json::json!({"topic": topic, "title": title, "message": message});
    let ntfy = ntfy.clone();
    let _ = std::thread::Builder::new()
        .name("marvin-phone-told".into())
        .spawn(move || {
            let _ = ntfy.publish_json(&note, CALL_TIMEOUT, &CancelToken::new());
        });
}

/// A published body: JSON (`{"id": 7, "secret": "…", …}`) or words (`7 48213377 port=8080`),
/// vouched for by the secret `secret_of` gives for its question (in words, that secret's code
/// or the secret itself).
fn read_body<'a>(
    body: &str,
    secret_of: impl Fn(u64) -> Option<&'a str>,
) -> Result<(u64, Said), (Option<u64>, String)> {
    let body = body.trim();
    if body.starts_with('{') {
        let answer: Value = serde_json::from_str(body).map_err(|_| {
            let why = "the answer is not JSON: publish {\"id\": N, \"secret\": \"…\", …} or the words the notification shows";
            (None, why.to_string())
        })?;
        let Some(id) = answer["id"].as_u64() else {
            return Err((
                None,
                "the answer has no \"id\": give its question's number".into(),
            ));
        };
        let given = answer["secret"].as_str().unwrap_or("");
        return match secret_of(id) {
            Some(secret) if crate::secret::same(given.as_bytes(), secret.as_bytes()) => {
                Ok((id, Said::Json(answer)))
            }
            _ => Err((Some(id), NOT_VOUCHED.into())),
        };
    }
    let word = |text: &str| -> (String, String) {
        let text = text.trim_start();
        let (first, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        (first.to_string(), rest.trim().to_string())
    };
    let (number, rest) = word(body);
    let Ok(id) = number.parse::<u64>() else {
        let why = "start the answer with the question's number and code, as the notification shows: 7 48213377 ANSWER";
        return Err((None, why.into()));
    };
    let (given, rest) = word(&rest);
    // The code the notification shows, or the whole secret.
    let vouched = secret_of(id).is_some_and(|secret| {
        crate::secret::same(given.as_bytes(), code(secret).as_bytes())
            || crate::secret::same(given.as_bytes(), secret.as_bytes())
    });
    if !vouched {
        return Err((Some(id), NOT_VOUCHED.into()));
    }
    match rest.is_empty() {
        false => Ok((id, Said::Words(rest))),
        true => Err((
            Some(id),
            format!("write the answer after the code: {id} {given} ANSWER"),
        )),
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
    let note = phone_note::Reply {
        url: &url,
        id: PARKED_ID,
        secret: &secret,
        code: &code(&secret),
    };
    let mut message = notification(topic, &note, request, None);
    if let Some(text) = message["message"].as_str() {
        message["message"] = serde_json::json!(format!(
            "{text}\nThe run waits; it goes on with the answer at: {resume}"
        ));
    }
    ntfy.publish_json(&message, CALL_TIMEOUT, &CancelToken::new())?;
    Ok((reply, secret))
}

/// The id a parked run's question has on the phone.
const PARKED_ID: u64 = 1;

/// The answer to a parked run's question published to `reply` since `since` (unix seconds)
/// with its `secret` (or its code, in words), if the phone answered: the JSON answer or the
/// words, as `--answer` takes them; the latest one counts.
pub(crate) fn parked_answer(
    ntfy: &Ntfy,
    reply: &str,
    secret: &str,
    since: i64,
) -> Result<Option<String>, String> {
    let mut subscription = Subscription {
        topic: reply.to_string(),
        since: since.to_string(),
    };
    let bodies = ntfy.poll_bodies(&mut subscription, CALL_TIMEOUT, &CancelToken::new())?;
    let secret_of = |id: u64| (id == PARKED_ID).then_some(secret);
    Ok(bodies
        .iter()
        .rev()
        .find_map(|body| match read_body(body, secret_of) {
            Ok((_, Said::Json(answer))) => Some(answer.to_string()),
            Ok((_, Said::Words(words))) => Some(words),
            Err(_) => None,
        }))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SECRET: &str = "00000000075bcd15aaaaaaaaaaaaaaaa";

    fn read(body: &str) -> Result<(u64, &'static str), (Option<u64>, String)> {
        let secret_of = |id: u64| (id == 7).then_some(SECRET);
        read_body(body, secret_of).map(|(id, said)| match said {
            Said::Json(_) => (id, "json"),
            Said::Words(words) => (
                id,
                if words == "port=8080, tls=yes" {
                    "words"
                } else {
                    "other"
                },
            ),
        })
    }

    #[test]
    fn an_answer_carries_its_questions_secret_or_code() {
        let json_answer = json!({"id": 7, "secret": SECRET, "input": {"port": 8080}}).to_string();
        assert_eq!(read(&json_answer), Ok((7, "json")));
        assert_eq!(read("7 23456789 port=8080, tls=yes"), Ok((7, "words")));
        let whole = format!("7 {SECRET} port=8080, tls=yes");
        assert_eq!(read(&whole), Ok((7, "words")));
        assert_eq!(
            read("  7   23456789   port=8080, tls=yes "),
            Ok((7, "words"))
        );
        let refused = |body: &str| read(body).unwrap_err();
        assert_eq!(refused("7 11111111 port=8080").1, NOT_VOUCHED);
        assert_eq!(refused("8 23456789 port=8080").1, NOT_VOUCHED);
        assert_eq!(
            refused(&json!({"id": 7, "secret": "guessed"}).to_string()).1,
            NOT_VOUCHED
        );
        assert!(refused("port=8080").1.starts_with("start the answer with"));
        assert_eq!(
            refused("7 23456789").1,
            "write the answer after the code: 7 23456789 ANSWER"
        );
    }
}
