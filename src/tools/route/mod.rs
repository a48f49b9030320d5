//! Which tool families a message asks for, decided here, without a model call: lexical
//! retrieval (BM25 on English stems, see `index`) over what each family is: its words, what
//! it is for, its tools' names, descriptions and parameters, and requests that ask for it. A
//! message may ask several things (its parts are ranked too), a web address brings the web
//! family, a weak match brings nothing, and only a question of fact gets Wikipedia's family
//! when nothing else fits.

mod built;
mod index;
mod offer;
mod stem;
mod talk;
mod terms;

pub(crate) use index::{Entry, rank};
#[cfg(test)]
pub(crate) use talk::made as made_talk;
pub(crate) use talk::{TALK, after_greeting, only_talks};
pub(crate) use terms::terms_of;

/// What a model answers by itself, as retrieval sees it (see `talk`).
pub(crate) fn talk() -> &'static Entry {
    built_in(TALK).expect("the built index holds what a model answers itself")
}

/// What retrieval knows of the built-in family `id` (made when Marvin was built).
pub(crate) fn built_in(id: &str) -> Option<&'static Entry> {
    built::BUILT
        .binary_search_by(|e| e.id.as_ref().cmp(id))
        .ok()
        .map(|i| &built::BUILT[i])
}

/// The text of `built.rs` for `entries` (see the registry's `built_tests`).
#[cfg(test)]
pub(crate) fn built_source(entries: &[Entry]) -> String {
    built::source(entries)
}
pub use offer::Offer;

/// The most families one message brings in: a message rarely needs more, and every family is
/// a few kilobytes more in the request.
pub(crate) const MOST: usize = 3;

/// The least score a family needs to come with a message (BM25, see `index`).
pub(crate) const ENOUGH: f64 = 1.5;

/// A score from which a family is taken to be what the message is about: below it, a
/// question of fact brings Wikipedia too.
pub(crate) const STRONG: f64 = 5.0;

/// A family whose score is below this share of the best one's stays out.
pub(crate) const NEAR_THE_TOP: f64 = 0.5;

/// The same share when the best is a family every request offers already (the coding core
/// in coding mode): a message about the code asks for more only when it clearly does.
pub(crate) const NEAR_THE_OFFERED: f64 = 0.8;

/// The parts of a message that asks several things ("what's the weather, and set an alarm
/// for six"), split where a sentence or a clause ends or "and", "also", "then" or "plus"
/// joins two; none for a message of one part.
pub(crate) fn parts(text: &str) -> Vec<&str> {
    let sentences: Vec<&str> = sentences(text).collect();
    let mut parts = Vec::new();
    for &sentence in &sentences {
        let mut rest = sentence;
        loop {
            let lower = rest.to_lowercase();
            let cut = [", ", " and ", " also ", " then ", " plus "]
                .iter()
                .filter_map(|joint| lower.find(joint).map(|at| (at, joint.len())))
                .min();
            match cut {
                Some((at, len)) if rest.is_char_boundary(at) && rest.is_char_boundary(at + len) => {
                    parts.push(&rest[..at]);
                    rest = &rest[at + len..];
                }
                _ => break,
            }
        }
        parts.push(rest);
    }
    // A part needs two words that count, or one in a message of several sentences, where
    // each sentence asks by itself ("what's in notes.txt? and which folder is this?").
    let asking = sentences.iter().filter(|s| !terms_of(s).is_empty()).count();
    let least = if asking > 1 { 1 } else { 2 };
    parts.retain(|part| terms_of(part).len() >= least);
    if parts.len() < 2 {
        parts.clear();
    }
    parts
}

/// The sentences of `text`: split where a question, an exclamation, a semicolon or a line
/// ends it, or a full stop before a space (not the one in `strings.rs` or `3.5`).
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends: Vec<(usize, usize)> = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|(_, n)| *n);
        let ends_here = matches!(c, '?' | '!' | ';' | '\n')
            || (c == '.' && next.is_none_or(char::is_whitespace));
        if ends_here {
            ends.push((start, at));
            start = at + c.len_utf8();
        }
    }
    ends.push((start, text.len()));
    ends.into_iter().map(move |(from, to)| &text[from..to])
}

/// Whether `text` names a web address (`https://…`, `www.…`, `example.org/page`).
pub(crate) fn names_a_web_address(text: &str) -> bool {
    text.split_whitespace().any(|word| {
        let word = word.trim_matches(|c: char| "()[]<>\"'.,;:!?".contains(c));
        let lower = word.to_ascii_lowercase();
        lower.starts_with("http://")
            || lower.starts_with("https://")
            || lower.starts_with("www.")
            || (lower.contains('/')
                && lower.split('/').next().is_some_and(|host| {
                    host.contains('.')
                        && host.rsplit('.').next().is_some_and(|tld| {
                            tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic())
                        })
                }))
    })
}

/// Whether `text` asks a question of fact ("who was…", "what is…", "tell me about…"): the
/// only message that asks for no family in particular and still gets one (Wikipedia's).
pub(crate) fn asks_a_fact(text: &str) -> bool {
    let whole = text.trim().to_lowercase();
    let asked = without_asking(&whole);
    let starts = [
        "who ",
        "what ",
        "whats ",
        "what's ",
        "when ",
        "where ",
        "which ",
        "why ",
        "how many ",
        "how much ",
        "how old ",
        "how long ",
        "how far ",
        "how big ",
        "how tall ",
        "tell me about ",
        "explain ",
        "define ",
        "is ",
        "are ",
        "was ",
        "were ",
        "did ",
        "does ",
    ];
    let starts_asking = |lower: &str| starts.iter().any(|s| lower.starts_with(s));
    starts_asking(&whole) || starts_asking(&asked) || whole.ends_with('?')
}

/// `lower` without the words that only ask ("please", "can you tell me", "hey siri"), which
/// a question of fact may start with.
fn without_asking(lower: &str) -> String {
    const ASKING: &[&str] = &[
        "hey",
        "ok",
        "okay",
        "siri",
        "alexa",
        "olly",
        "marvin",
        "please",
        "can you",
        "could you",
        "would you",
        "will you",
        "do you know",
        "i want to know",
        "i would like to know",
        "id like to know",
        "tell me",
        "let me know",
    ];
    let mut rest = lower.trim_start_matches(|c: char| !c.is_alphanumeric());
    while let Some(shorter) = ASKING.iter().find_map(|word| after_word(rest, word)) {
        rest = shorter;
    }
    rest.to_string()
}

/// `text` in lower case, without apostrophes and the words that only ask.
fn asked_of(text: &str) -> String {
    without_asking(&text.trim().to_lowercase().replace(['\'', '’'], ""))
}

/// Whether `list` (words between spaces, as the word lists of `terms` and `talk` are kept:
/// one string, not a table of them) holds `word`.
fn listed(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

/// The words of `text`: runs of letters and digits.
fn words_of(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `text` asks what a word or a thing means ("what does ennui mean", "define
/// passive", "the meaning of kitsch"): never small talk, even of a word small talk uses
/// ("what does joke mean"), and asked of the families that know.
pub(crate) fn asks_a_definition(text: &str) -> bool {
    let asked = asked_of(text);
    let words = words_of(&asked);
    let has = |word: &str| words.contains(&word);
    // "what does that mean" asks about what was just said, not a word.
    let named = |w: &&str| !matches!(*w, "that" | "this" | "it" | "he" | "she" | "they" | "you");
    let what_does_mean = matches!(words.first(), Some(&"what"))
        && matches!(words.get(1), Some(&("does" | "do" | "did")))
        && words
            .iter()
            .position(|w| matches!(*w, "mean" | "means"))
            .is_some_and(|end| words[2..end.max(2)].iter().any(named));
    // "how does a cheetah look" asks what it is like.
    // Not "how does my day look" (the calendar) nor "how does the weather look".
    const OWN_OR_OUTSIDE: &[&str] = &[
        "my", "our", "your", "it", "today", "tonight", "tomorrow", "week", "weekend", "day",
        "morning", "evening", "weather", "forecast", "traffic", "road", "roads", "schedule",
        "calendar", "sky",
    ];
    let how_does_look = asked.starts_with("how does ")
        && matches!(words.last(), Some(&("look" | "looks")))
        && words.len() > 3
        && !words.iter().any(|w| OWN_OR_OUTSIDE.contains(w));
    // What life means is asked of a model, not of a dictionary.
    if asked.contains("of life") || asked.contains("of existence") {
        return false;
    }
    what_does_mean
        || how_does_look
        || matches!(words.first(), Some(&"define"))
        || has("definition")
        || asked.contains("meaning of")
}

/// Whether `text` asks what a thing is, in a word or two ("what is a sphere?", "what's
/// kombucha", "what are lichens"): a question for the families that know, whatever family
/// the thing's name also belongs to.
pub(crate) fn asks_what_a_thing_is(text: &str) -> bool {
    let asked = asked_of(text);
    let words = words_of(&asked);
    let thing = match words.as_slice() {
        ["what", "is" | "are", rest @ ..] | ["whats", rest @ ..] => rest,
        _ => return false,
    };
    let thing = match thing {
        ["a" | "an" | "the", rest @ ..] => rest,
        rest => rest,
    };
    const NOT_A_THING: &[&str] = &[
        "it",
        "this",
        "that",
        "up",
        "new",
        "on",
        "next",
        "time",
        "my",
        "your",
        "good",
        "best",
        "happening",
        "going",
        "there",
        "weather",
        "forecast",
        "date",
        "day",
        "today",
    ];
    (1..=2).contains(&thing.len()) && !thing.iter().any(|w| NOT_A_THING.contains(w))
}

/// Whether `text` asks something a model cannot answer by itself however it is worded: what a
/// word means (`asks_a_definition`), what a thing is (`asks_what_a_thing_is`), or when a thing is or happens ("when is Dale's
/// birthday?", "when does the game start?"), which small talk's words ("birthday") would
/// otherwise claim.
pub(crate) fn never_talk(text: &str) -> bool {
    let asked = asked_of(text);
    let when = [
        "when is ",
        "when are ",
        "whens ",
        "when will ",
        "when does ",
        "when do ",
    ];
    asks_a_definition(text)
        || asks_what_a_thing_is(text)
        || when.iter().any(|w| asked.starts_with(w))
}

/// What follows `word` at the start of `text`, without the spaces and marks after it; none
/// when `text` does not start with that word.
fn after_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let after = text.strip_prefix(word)?;
    let ends = after.is_empty() || after.starts_with(|c: char| !c.is_alphanumeric());
    ends.then(|| after.trim_start_matches(|c: char| !c.is_alphanumeric()))
}

/// Whether `text` asks what is known of the world, not of the person's own things or day: why
/// a thing is so, what a name stands for, how two things differ, which of two kinds a thing
/// is, how many of one thing another holds, a fun fact. Such a question borrows families'
/// words ("why is the sky blue" is no song, "how many days are in a leap year" no calendar)
/// and brings only the families that know (the registry's `KNOWING`); one that is about the
/// person ("why did my alarm not go off") or their day ("why is it so cold this week") is
/// asked as any other.
pub(crate) fn asks_what_is_known(text: &str) -> bool {
    // Words that put the question in the person's own things, place or day ("it" as in "why
    // is it so cold").
    const PERSONAL: &str = "i im me my mine we our us it its here near now currently today \
        todays tonight tonights tomorrow tomorrows yesterday yesterdays this next last";
    let lower = text.trim().to_lowercase().replace(['\'', '’'], "");
    let lower = format!(" {} ", lower.replace(|c: char| !c.is_alphanumeric(), " "));
    // "tell me", "give me" ask; they say nothing of whom the question is about.
    let asking = lower.replace(" tell me ", " ").replace(" give me ", " ");
    let personal = |word: &str| PERSONAL.split_whitespace().any(|p| p == word);
    if asking.split_whitespace().any(personal) {
        return false;
    }
    let question = lower.trim_start();
    let shapes = [
        " stand for ",
        " stands for ",
        " short for ",
        " fun fact",
        " a fact about ",
        " trivia ",
        " difference between ",
        " differently from ",
        " differ from ",
    ];
    let either = ["is ", "are ", "was "]
        .iter()
        .any(|s| question.starts_with(s))
        && [" or a ", " or an "].iter().any(|s| lower.contains(s));
    let how_many_in = question.starts_with("how many ")
        && [" are in ", " are there in ", " is in ", " in a ", " in an "]
            .iter()
            .any(|s| lower.contains(s));
    // "why don't you play some jazz", "why not set a timer" suggest; they do not ask why.
    let suggests = ["why dont ", "why not ", "why dont you "]
        .iter()
        .any(|s| question.starts_with(s));
    (question.starts_with("why ") && !suggests)
        || either
        || how_many_in
        || shapes.iter().any(|s| lower.contains(s))
}

/// The words of `text` that `entry` holds, for saying why a family came.
pub(crate) fn shared_words(text: &str, entry: &Entry) -> String {
    let shared: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| terms_of(word).first().is_some_and(|t| entry.holds(t)))
        .map(str::to_lowercase)
        .collect();
    shared.join(", ")
}

/// A family a message asks for, and the word that said so.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chosen {
    pub family: String,
    pub why: String,
    /// How strongly the message asks for it (its retrieval score).
    pub strength: f64,
}

#[cfg(test)]
mod tests {
    use super::{asks_what_is_known, parts};

    #[test]
    fn a_question_of_what_is_known_is_told_from_one_about_the_persons_things() {
        for known in [
            "why do songs get stuck in your head?",
            "what does GPS stand for?",
            "how many minutes are in a day?",
            "is a podcast a radio show or a blog?",
            "what is the difference between weather and climate?",
            "tell me a fun fact about the moon",
        ] {
            assert!(asks_what_is_known(known), "{known}");
        }
        for own in [
            "why did my alarm not go off?",
            "why is it so cold in Oslo?",
            "how many events are in the calendar tomorrow?",
            "is tomorrow's forecast rain or a storm?",
            "play a song about the sky",
            "what's the weather in Oslo?",
            "why don't you play some jazz",
            "why not set a timer for the eggs",
        ] {
            assert!(!asks_what_is_known(own), "{own}");
        }
    }

    #[test]
    fn a_question_of_fact_may_start_by_asking() {
        use super::asks_a_fact;
        for fact in [
            "tell me what a workhouse is",
            "please tell me what a crankshaft is",
            "hey siri, can you tell me who wrote dracula",
            "i want to know when the eiffel tower was built",
            "tell me about morel mushrooms",
        ] {
            assert!(asks_a_fact(fact), "{fact}");
        }
        for meaning in [
            "what does joke mean",
            "hey olly what is the definition of passive",
            "define serendipity",
            "can you tell me the meaning of kitsch",
            "how does a cheetah look",
        ] {
            assert!(super::asks_a_definition(meaning), "{meaning}");
        }
        for not in [
            "what does the fox say",
            "i mean it",
            "what is love",
            "what does that mean",
            "how does my day look",
            "how does the weather look",
        ] {
            assert!(!super::asks_a_definition(not), "{not}");
        }
        for not in [
            "tell me a joke",
            "please play some jazz",
            "can you set a timer",
        ] {
            assert!(!asks_a_fact(not), "{not}");
        }
    }

    #[test]
    fn a_message_is_cut_into_the_things_it_asks_at_sentences_and_joints() {
        assert_eq!(
            parts("what's the weather in Oslo, and set an alarm for six"),
            ["what's the weather in Oslo", "and set an alarm for six"]
        );
        // A sentence of its own asks by itself, even in one word that counts.
        assert_eq!(
            parts("what is in notes.txt? and which folder is this?"),
            ["what is in notes.txt", "which folder is this"]
        );
        // A full stop inside a word ends nothing; one part is no parts.
        assert_eq!(
            parts("delete the unused helpers in strings.rs"),
            Vec::<&str>::new()
        );
        assert_eq!(parts("scale it by 2.5 and rotate it"), Vec::<&str>::new());
    }
}
