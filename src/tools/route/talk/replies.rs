//! Greetings and plain replies ("good morning!", "that's right", "no idea"): a message of
//! them asks for nothing, and what follows a greeting is what is asked.

use super::super::listed;

/// `text` after the greeting it opens with ("good morning!", "hey there, …", "what's up,
/// Marvin?"), or all of it when it opens with none: a greeting asks for nothing, and its words
/// ("good", "morning", "up", "new") are families' words too. A greeting is followed by the
/// end, a mark ("hi, …") or, for "good morning" and its kin, anything; "what's up with my
/// flight" greets no one.
pub(crate) fn after_greeting(text: &str) -> &str {
    const GREETINGS: &[&[&str]] = &[
        &["good", "morning"],
        &["good", "afternoon"],
        &["good", "evening"],
        &["good", "night"],
        &["good", "day"],
        &["whats", "up"],
        &["whats", "new"],
        &["whats", "good"],
        &["whats", "happening"],
        &["whats", "going", "on"],
        &["hows", "it", "going"],
        &["hows", "everything"],
        &["morning"],
        &["evening"],
        &["hello"],
        &["hi"],
        &["hey"],
        &["hiya"],
        &["howdy"],
        &["yo"],
        &["greetings"],
        &["wassup"],
        &["sup"],
    ];
    const ADDRESSED: &[&str] = &[
        "there", "marvin", "buddy", "friend", "mate", "again", "everyone", "all", "you", "right",
        "now",
    ];
    let mut words: Vec<(usize, usize, String)> = Vec::new();
    let mut start = None;
    for (at, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let in_word = c.is_alphanumeric() || c == '\'' || c == '’';
        match (in_word, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                let key: String = text[from..at]
                    .to_lowercase()
                    .chars()
                    .filter(|c| c.is_alphanumeric())
                    .collect();
                words.push((from, at, key));
                start = None;
            }
            _ => {}
        }
    }
    for greeting in GREETINGS {
        let opens = words.len() >= greeting.len()
            && words.iter().zip(greeting.iter()).all(|(w, g)| w.2 == *g);
        if !opens {
            continue;
        }
        let mut said = greeting.len();
        while said < words.len() && ADDRESSED.contains(&words[said].2.as_str()) {
            said += 1;
        }
        let rest = words.get(said).map_or(text.len(), |w| w.0);
        let between = &text[words[said - 1].1..rest];
        let ended = said == words.len()
            || between.contains([',', '!', '.', '?', ';', ':', '-', '—'])
            || (greeting.len() == 2 && greeting[0] == "good");
        if ended {
            return &text[rest..];
        }
    }
    text
}

/// Whether `words` only answer yes, no or maybe ("that's right", "not true", "no idea",
/// "absolutely correct"): a reply to what the model asked, which asks for nothing itself.
pub(super) fn is_a_reply(words: &[&str]) -> bool {
    const REPLY: &str = "yes yeah yep yup sure correct right true affirmative absolutely \
        definitely certainly indeed exactly agreed agree no nope nah not wrong false negative \
        never maybe perhaps possibly probably unsure idea know dont don't do think so guess that \
        that's thats is it it's its the answer statement i i'm im am would say from me to \
        question hard a just actually really totally completely sorry fact of course all at was \
        you said what my either one work works fine ok okay appears seems seem be will response \
        reply vote depends pass i'll ill case turns out should have how can can't cant afraid \
        isn't isnt well or very much quite pretty sounds good great believe for way wouldn't \
        doesn't does there an both other could might must gotta definite resounding positive \
        proper";
    const SAYS: &str = "yes yeah yep yup sure correct right true affirmative absolutely \
        definitely certainly indeed exactly agreed no nope nah wrong false negative maybe \
        perhaps possibly probably unsure idea depends pass case know answer definite positive";
    (1..=10).contains(&words.len())
        && words.iter().all(|w| listed(REPLY, w))
        && words.iter().any(|w| listed(SAYS, w))
}

#[cfg(test)]
mod tests {
    use super::super::only_talks;
    use super::after_greeting;

    #[test]
    fn a_greeting_asks_for_nothing_and_what_follows_it_is_asked() {
        for greeting in [
            "good morning",
            "Good morning, Marvin!",
            "what's up",
            "whats up marvin?",
            "hey there",
            "hi!",
            "what's new?",
            "morning",
            "yo",
        ] {
            assert!(only_talks(greeting), "{greeting}");
            assert_eq!(
                after_greeting(greeting).trim_matches(|c: char| !c.is_alphanumeric()),
                "",
                "{greeting}"
            );
        }
        for (text, rest) in [
            (
                "good morning! what's the weather like?",
                "what's the weather like?",
            ),
            ("Good evening set an alarm for six", "set an alarm for six"),
            ("hey there, play some jazz", "play some jazz"),
            ("hi marvin - is it raining", "is it raining"),
            (
                "what's up with my flight to Oslo",
                "what's up with my flight to Oslo",
            ),
            ("what's new in rust 1.90", "what's new in rust 1.90"),
            ("morning alarm at 7", "morning alarm at 7"),
            ("hello world in python", "hello world in python"),
            ("high tide times", "high tide times"),
        ] {
            assert_eq!(after_greeting(text), rest, "{text}");
        }
        for text in ["what's up with my flight to Oslo", "morning alarm at 7"] {
            assert!(!only_talks(text), "{text}");
        }
    }

    #[test]
    fn a_reply_of_yes_no_or_maybe_asks_for_nothing() {
        for text in [
            "yes",
            "that's right",
            "not true",
            "no idea",
            "absolutely correct",
            "i guess maybe",
        ] {
            assert!(only_talks(text), "{text}");
        }
        for text in [
            "yes, set it for seven",
            "no, play something else",
            "right turn at the lights?",
        ] {
            assert!(!only_talks(text), "{text}");
        }
    }
}
