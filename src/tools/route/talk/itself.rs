//! Whether a message speaks to or about the assistant itself ("how are you today?", "where
//! are you from?", "who made this ai"), which asks for nothing a tool does.

use super::super::listed;
use super::TALK;

/// The words that say "you".
const YOU: &str = "you your yourself youre you're yours";

/// Where "you" (`_`) is asked to do something ("can you…", "I need you to…"), is anyone at
/// all ("how do you make…", "what do you put in…") or is a shop asked what it does ("do you
/// deliver"), not the assistant asked about itself.
const NOT_ABOUT_IT: &str = "can _|could _|would _|will _|are _ able|do _ know|thank _|let _|\
    tell _|how do _|how can _|how would _|how should _|where do _|where can _|what do _ call|\
    do _ need|if _|_ should|should _|_ can|_ could|_ need|_ have to|did _|have _|need _|\
    want _|like _ to|do _ think|do _ use|don't _|dont _|for _ to|how about _|_ know|\
    do _ serve|do _ offer|do _ provide|do _ deliver|do _ sell|do _ open|do _ close|\
    _ provide|_ offer|do _ put|do _ mix|do _ add|do _ buy|do _ purchase|do _ dump|do _ cook|\
    do _ bake|do _ make|do _ wear|do _ bring|do _ see|_ see|told _|hear _|needing _|\
    do _ have|have _ got";

/// What "do you have …" asks about the assistant's own ("do you have any pets"); else it asks
/// for something ("do you have a recipe for…").
const ITS_OWN: &str = "pets pet dog cat name names nickname hobbies hobby feelings emotions \
    family friends friend favorite favourite boss age birthday body children kids parents \
    brothers sisters siblings girlfriend boyfriend wife husband life dreams";

/// What one asks of a life ("where do you come from", "how long have you been alive").
const LIFE: &str = "live lived living come came grow grew been ever always stay stayed \
    work worked working exist existed born";

/// What the assistant keeps for the person, who owns it: "your list", "your calendar".
const KEPT: &str = "list lists calendar schedule notes note reminders reminder alarms alarm \
    timer timers agenda playlist playlists recommendation recommendations suggestion \
    suggestions availability input";

/// After these comes what is said, not who is spoken of: "how do I say I love you".
const SAYING: &str = "say says saying said translate translation phrase expression word words \
    sentence";

/// Asking for something done: "play your favourite song", "you know what, play some jazz".
const DO: &str = "search find show play set add make put remind list open start book order \
    read check look get call send repeat describe translate convert recommend";

/// What the assistant works in or on for the person: "which folder are you working in?"
/// asks for the working directory, not about the assistant.
const WORKS_ON: &str = "folder folders directory directories dir repo repository branch file \
    files project code codebase path";

/// What the assistant may be asked whether it is: "am I talking to a real person?".
const BEING: &str = "person human bot robot computer machine ai being";

/// The words of small talk about the assistant (see `is_small_talk`).
const ABOUT_ITSELF: &str = "today tonight day morning evening name called old age born birth \
    birthday doing going feel feeling real human person computer machine robot bot alive \
    being ai artificial intelligence friend happy sad bored tired fine well good great nice \
    ok okay there hello hi hey origin native made created programmed designed trained \
    invented hobby hobbies fun pets pet favorite favourite talk talking chat chatting think \
    believe smart";

/// Whether `text` speaks to the assistant about itself and nothing else ("how are you
/// today?", "what's your name?", "are you a robot?"): it is asked about (see `asked_about`)
/// and every word that counts is one of small talk's.
pub(super) fn is_small_talk(text: &str, words: &[&str]) -> bool {
    let about: Vec<String> = ABOUT_ITSELF
        .split_whitespace()
        .map(super::super::stem::stem)
        .collect();
    asked_about(words)
        && super::super::terms_of(text)
            .iter()
            .all(|term| about.contains(term))
}

/// Whether `words` (of `text`) ask about the assistant itself ("where are you from?", "do
/// you have any pets", "who do you work for", "is this a bot?"): nothing is asked to be done,
/// "you" is who is asked about (see `asked_about`), and no word names what a family is for
/// ("what do you think the weather will do" asks for the weather).
pub(super) fn speaks_of_itself(words: &[&str], text: &str) -> bool {
    // Not "like to read", nor the person doing it to the assistant: "should I call you",
    // "describe your hobbies".
    let asks_to_do = words.iter().enumerate().any(|(at, w)| {
        listed(DO, w)
            && (at == 0 || words[at - 1] != "to")
            && !words.get(at + 1).is_some_and(|next| listed(YOU, next))
    });
    if asks_to_do {
        return false;
    }
    let named_as_ai = words
        .windows(2)
        .any(|w| matches!(w[0], "this" | "the") && matches!(w[1], "ai" | "assistant" | "bot"));
    let talking_to = words.starts_with(&["am", "i"])
        && words
            .iter()
            .any(|w| matches!(*w, "talking" | "speaking" | "chatting"))
        && words.iter().any(|w| listed(BEING, w));
    let is_this = words.starts_with(&["is", "this"])
        && matches!(words.get(2), Some(&("a" | "an")))
        && match words.get(3) {
            Some(&("real" | "live" | "actual")) => words.get(4).is_some_and(|w| listed(BEING, w)),
            Some(w) => listed(BEING, w),
            None => false,
        };
    // "tell me if you are a real person", "are you human or a computer".
    let what_it_is = words.windows(2).enumerate().any(|(at, w)| {
        matches!(
            w,
            ["you", "are"] | ["are", "you"] | ["youre", _] | ["you're", _]
        ) && words[at + 1..].iter().take(5).any(|w| listed(BEING, w))
    });
    (named_as_ai || talking_to || is_this || what_it_is || asked_about(words))
        && !names_what_a_family_is_for(text)
}

/// Whether one of `words` says "you" of the assistant itself: not of what it keeps for the
/// person ("your list"), not inside what is said ("how do I say I love you"), not asked to do
/// something nor anyone at all (`NOT_ABOUT_IT`), unless it is asked of its own things or life
/// ("do you have any pets", "where do you come from").
fn asked_about(words: &[&str]) -> bool {
    // "how do I say I love you", not "would you say you work for me".
    let quoting_from = words
        .iter()
        .enumerate()
        .position(|(at, w)| listed(SAYING, w) && (at == 0 || words[at - 1] != "you"));
    if words.iter().any(|w| listed(WORKS_ON, w)) {
        return false;
    }
    words.iter().enumerate().any(|(at, word)| {
        listed(YOU, word)
            && quoting_from.is_none_or(|from| at < from)
            && !words[at + 1..].iter().take(2).any(|w| listed(KEPT, w))
            && !not_about_it(words, at)
    })
}

/// Whether the "you" at `at` of `words` is in one of `NOT_ABOUT_IT`'s phrases, and not asked
/// of the assistant's own things or life there.
fn not_about_it(words: &[&str], at: usize) -> bool {
    NOT_ABOUT_IT.split('|').any(|phrase| {
        let phrase: Vec<&str> = phrase.split_whitespace().collect();
        let Some(place) = phrase.iter().position(|w| *w == "_") else {
            return false;
        };
        let Some(start) = at.checked_sub(place) else {
            return false;
        };
        let fits = words.len() >= start + phrase.len()
            && phrase
                .iter()
                .zip(&words[start..])
                .all(|(p, w)| *p == "_" || p == w);
        let after = &words[at + 1..];
        let has = matches!(phrase.last(), Some(&("have" | "got")));
        let own = after.iter().take(4).any(|w| listed(ITS_OWN, w))
            || after
                .windows(2)
                .take(4)
                .any(|w| matches!(w[0], "free" | "spare") && w[1] == "time");
        let asks = matches!(phrase[0], "where" | "how" | "did" | "have" | "do");
        let life = asks && after.first().is_some_and(|w| listed(LIFE, w));
        fits && !(has && own) && !life
    })
}

/// Whether one of `text`'s words is what a built-in family is for: a word it holds among its
/// strongest (weight ≥ 8) that at most one other family holds ("weather", "alarm",
/// "recipe", "playlist").
fn names_what_a_family_is_for(text: &str) -> bool {
    let families = super::super::built::BUILT;
    super::super::terms_of(text).iter().any(|term| {
        let holding = families.iter().filter(|e| e.holds(term)).count();
        holding <= 2
            && families
                .iter()
                .filter(|e| e.id != TALK)
                .any(|e| e.weight(term).is_some_and(|w| w >= 8.0))
    })
}

#[cfg(test)]
mod tests {
    use super::super::only_talks;

    #[test]
    fn a_question_about_the_assistant_itself_asks_for_nothing() {
        for text in [
            "where are you from?",
            "who made you",
            "do you have any pets",
            "what are your hobbies",
            "who do you work for",
            "how old are you exactly",
            "are you a real person or a bot",
            "what's your favourite colour",
            "can you tell me your name",
            "who made this ai",
            "am I talking to a real person?",
            "is this a computer or a human",
            "where do you come from",
            "how long have you been alive",
            "would you say you work for me",
            "do you like to read",
        ] {
            assert!(only_talks(text), "{text}");
        }
        for text in [
            // Asked to do something.
            "can you set an alarm for six",
            "could you find a pharmacy nearby",
            "i need you to remind me to call mum",
            "search for your favorite meal",
            "can you call my boss",
            "could you call home",
            "can you play your favorite song",
            "why don't you play some jazz",
            "you know what, play some jazz",
            "how about you play some abba",
            "is it possible for you to call mum",
            "do you like jazz? play some",
            "do you have free delivery",
            "is this a good place for people with dogs",
            // What it works in for the person.
            "which folder are you working in right now?",
            // Anyone at all.
            "how do you make pancakes",
            "what do you put in chili",
            "where can you buy stamps",
            // What is said, not who is spoken of.
            "how do I say I love you in Japanese",
            // A shop asked what it does.
            "do you offer home delivery",
            // What the assistant keeps for the person.
            "what's on your list",
            "read me your calendar for today",
            // What a family is for, named.
            "what do you think the weather will do tomorrow",
            "do you have any recipes for lasagna",
            "did you set my alarm",
            // Letters spelled out.
            "how many euros for one u. s. d.",
        ] {
            assert!(!only_talks(text), "{text}");
        }
    }
}
