//! When a tool asks and nobody answers at once: `--on-ask` (what a `--non-interactive` run
//! does), how long a parked run waits (MARVIN_PARK_DAYS), and where a question left at the REPL
//! goes (MARVIN_PHONE_TOPIC, MARVIN_PHONE_AFTER), and that a topic questions go to is one
//! nobody could guess (MARVIN_NTFY_ANY_TOPIC to insist on another).

use std::time::Duration;

use super::{ConfigError, Env};

/// How the questions of a run without a terminal are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnAsk {
    /// Denied at once ("no one to ask"), so the model goes on without: the default.
    #[default]
    Deny,
    /// The run ends with exit status 3, saying which question it could not ask.
    Fail,
    /// Each question goes out as a `--json` event and its answer comes back as one JSON line
    /// on stdin.
    Stdin,
    /// Each question goes to the `--ntfy` topic with buttons that answer it from the phone.
    Notify,
    /// Each question goes to every surface the run has (stdin with `--json`, the phone with
    /// `--ntfy`) and is denied after this many seconds without an answer.
    Wait(u64),
    /// The run is saved with the question and ends with exit status 4; `marvin --resume ID
    /// --answer TEXT` goes on from there.
    Park,
}

impl OnAsk {
    pub const NAMES: [&'static str; 5] = ["deny", "fail", "stdin", "notify", "park"];

    /// The mode `--on-ask TEXT` names, or why there is none.
    pub fn parse(text: &str) -> Result<OnAsk, String> {
        match text {
            "deny" => Ok(OnAsk::Deny),
            "fail" => Ok(OnAsk::Fail),
            "stdin" => Ok(OnAsk::Stdin),
            "notify" => Ok(OnAsk::Notify),
            "park" => Ok(OnAsk::Park),
            other => match other.strip_prefix("wait:").map(str::parse::<u64>) {
                Some(Ok(seconds @ 1..=86_400)) => Ok(OnAsk::Wait(seconds)),
                Some(_) => Err(format!(
                    "--on-ask {other:?}: wait:SECONDS takes 1 to 86400 seconds, e.g. wait:600"
                )),
                None => Err(format!(
                    "--on-ask {other:?}: choose one of {} or wait:SECONDS",
                    OnAsk::NAMES.join(", ")
                )),
            },
        }
    }
}

/// Where the REPL's unanswered questions go, and after how long.
#[derive(Debug, Clone, PartialEq)]
pub struct PhoneRelay {
    pub topic: String,
    pub after: Duration,
}

/// MARVIN_PHONE_TOPIC (an ntfy topic; none: off) and MARVIN_PHONE_AFTER (0 to 1440 minutes,
/// default 10).
pub(super) fn phone_relay(env: &Env) -> Result<Option<PhoneRelay>, ConfigError> {
    let Some(topic) = env
        .get("MARVIN_PHONE_TOPIC")
        .filter(|t| !t.trim().is_empty())
    else {
        return Ok(None);
    };
    if !crate::store::is_plain_name(topic.trim(), 64) {
        return Err(ConfigError::Invalid(format!(
            "MARVIN_PHONE_TOPIC is an ntfy topic: 1-64 letters, digits, - or _, not {topic:?} (generate_ntfy_topic makes an unguessable one)"
        )));
    }
    unguessable("MARVIN_PHONE_TOPIC", topic.trim(), env)?;
    let minutes = match env.get("MARVIN_PHONE_AFTER") {
        None => 10,
        Some(text) => match text.trim().parse::<u64>() {
            Ok(minutes @ 0..=1440) => minutes,
            _ => {
                return Err(ConfigError::Invalid(format!(
                    "MARVIN_PHONE_AFTER is how many minutes a question waits at the terminal before it goes to the phone: 0 to 1440, not {text:?}"
                )));
            }
        },
    };
    Ok(Some(PhoneRelay {
        topic: topic.trim().to_string(),
        after: Duration::from_secs(minutes * 60),
    }))
}

/// Checks the `--ntfy` topic of a run whose questions go there (`--on-ask` notify, wait or
/// park).
pub(super) fn question_topic(
    on_ask: OnAsk,
    topic: Option<&str>,
    env: &Env,
) -> Result<(), ConfigError> {
    match (on_ask, topic) {
        (OnAsk::Notify | OnAsk::Wait(_) | OnAsk::Park, Some(topic)) => {
            unguessable(&format!("--ntfy {topic}"), topic, env)
        }
        _ => Ok(()),
    }
}

/// Whoever can read an ntfy topic can answer the questions sent to it (each button carries
/// its question's secret), so a topic that questions go to must look generated, unless the
/// person insists (MARVIN_NTFY_ANY_TOPIC=1: the topic is protected by the server's access
/// control and NTFY_TOKEN).
fn unguessable(what: &str, topic: &str, env: &Env) -> Result<(), ConfigError> {
    if looks_generated(topic) || matches!(env.get("MARVIN_NTFY_ANY_TOPIC"), Some("1")) {
        return Ok(());
    }
    let example = crate::secret::random_hex(12)
        .map(|hex| format!(", such as marvin-{hex} (made just now)"))
        .unwrap_or_default();
    Err(ConfigError::Invalid(format!(
        "{what}: whoever can read an ntfy topic can answer the questions sent to it, and this name could be guessed; use one nobody can guess{example}, or set MARVIN_NTFY_ANY_TOPIC=1 if the server lets only you read it (NTFY_TOKEN)"
    )))
}

/// Whether `topic` has a part (between `-` and `_`) of at least 16 letters and digits with
/// both in it, as a random name has (generate_ntfy_topic makes `marvin-` and 24 hex digits).
pub(crate) fn looks_generated(topic: &str) -> bool {
    topic.split(['-', '_']).any(|part| {
        part.len() >= 16
            && part.chars().all(|c| c.is_ascii_alphanumeric())
            && part.chars().any(|c| c.is_ascii_digit())
            && part.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// MARVIN_PARK_DAYS: 1 to 90 days, default 7.
pub(super) fn park_for(env: &Env) -> Result<Duration, ConfigError> {
    const DAY: u64 = 24 * 60 * 60;
    match env.get("MARVIN_PARK_DAYS") {
        None => Ok(Duration::from_secs(7 * DAY)),
        Some(text) => match text.trim().parse::<u64>() {
            Ok(days @ 1..=90) => Ok(Duration::from_secs(days * DAY)),
            _ => Err(ConfigError::Invalid(format!(
                "MARVIN_PARK_DAYS is how many days a parked run waits for its answer: 1 to 90, not {text:?}"
            ))),
        },
    }
}

/// MARVIN_QUESTION_TIMEOUT: seconds a question of `marvin serve` waits for a client (1 to
/// 86400); none: the tool's own time (ten minutes for most).
pub(super) fn question_timeout(env: &Env) -> Result<Option<Duration>, ConfigError> {
    let Some(text) = env.get("MARVIN_QUESTION_TIMEOUT") else {
        return Ok(None);
    };
    match text.trim().parse::<u64>() {
        Ok(seconds @ 1..=86_400) => Ok(Some(Duration::from_secs(seconds))),
        _ => Err(ConfigError::Invalid(format!(
            "MARVIN_QUESTION_TIMEOUT is how many seconds a served session's question waits for an answer: 1 to 86400, not {text:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topic_looks_generated_when_a_part_of_it_is_long_and_random() {
        for generated in [
            "marvin-4f1c0a9e7b2d3c5a6e8f9012",
            "xK9mPq2vL8nR4tW7",
            "builds_a1b2c3d4e5f6a7b8",
        ] {
            assert!(looks_generated(generated), "{generated}");
        }
        for guessable in [
            "my-runs",
            "marvin-k3f9a2c1e0d4",
            "supercalifragilistic",
            "1234567890123456",
            "my-phone-alerts-for-builds",
        ] {
            assert!(!looks_generated(guessable), "{guessable}");
        }
    }

    #[test]
    fn modes_parse_and_others_are_named_as_wrong() {
        assert_eq!(OnAsk::parse("deny"), Ok(OnAsk::Deny));
        assert_eq!(OnAsk::parse("fail"), Ok(OnAsk::Fail));
        assert_eq!(OnAsk::parse("stdin"), Ok(OnAsk::Stdin));
        assert_eq!(OnAsk::parse("notify"), Ok(OnAsk::Notify));
        assert_eq!(OnAsk::parse("wait:600"), Ok(OnAsk::Wait(600)));
        assert_eq!(OnAsk::parse("park"), Ok(OnAsk::Park));
        assert_eq!(
            OnAsk::parse("ask"),
            Err(
                "--on-ask \"ask\": choose one of deny, fail, stdin, notify, park or wait:SECONDS"
                    .into()
            )
        );
        for bad in ["wait:", "wait:0", "wait:ten", "wait:90000"] {
            assert!(
                OnAsk::parse(bad)
                    .unwrap_err()
                    .contains("1 to 86400 seconds"),
                "{bad}"
            );
        }
    }
}
