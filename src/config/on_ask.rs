//! `--on-ask`: what a `--non-interactive` run does when a tool asks the person something.

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

#[cfg(test)]
mod tests {
    use super::*;

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
