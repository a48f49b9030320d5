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
}

impl OnAsk {
    pub const NAMES: [&'static str; 4] = ["deny", "fail", "stdin", "notify"];

    /// The mode `--on-ask TEXT` names, or why there is none.
    pub fn parse(text: &str) -> Result<OnAsk, String> {
        match text {
            "deny" => Ok(OnAsk::Deny),
            "fail" => Ok(OnAsk::Fail),
            "stdin" => Ok(OnAsk::Stdin),
            "notify" => Ok(OnAsk::Notify),
            other => Err(format!(
                "--on-ask {other:?}: choose one of {}",
                OnAsk::NAMES.join(", ")
            )),
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
        assert_eq!(
            OnAsk::parse("ask"),
            Err("--on-ask \"ask\": choose one of deny, fail, stdin, notify".into())
        );
    }
}
