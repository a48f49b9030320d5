//! Whether a message speaks to or about the assistant itself ("how are you today?", "where
//! are you from?", "who made this ai"), which asks for nothing a tool does.

use super::TALK;

/// Whether `text` speaks to the assistant about itself and nothing else ("how are you
/// today?", "what's your name?", "are you a robot?"): every word that counts is one of
/// small talk's.
pub(super) fn is_small_talk(text: &str, words: &[&str]) -> bool {
    const ABOUT_ITSELF: &[&str] = &[
        "today",
        "tonight",
        "day",
        "morning",
        "evening",
        "name",
        "called",
        "call",
        "refer",
        "old",
        "age",
        "born",
        "birth",
        "birthday",
        "year",
        "years",
        "doing",
        "going",
        "feel",
        "feeling",
        "real",
        "human",
        "person",
        "computer",
        "machine",
        "robot",
        "bot",
        "alive",
        "live",
        "being",
        "ai",
        "artificial",
        "intelligence",
        "friend",
        "happy",
        "sad",
        "bored",
        "tired",
        "fine",
        "well",
        "good",
        "great",
        "nice",
        "ok",
        "okay",
        "there",
        "hello",
        "hi",
        "hey",
        "origin",
        "native",
        "home",
        "country",
        "made",
        "make",
        "created",
        "create",
        "built",
        "build",
        "formed",
        "programmed",
        "designed",
        "trained",
        "invented",
        "company",
        "boss",
        "work",
        "working",
        "commands",
        "owns",
        "hobby",
        "hobbies",
        "fun",
        "spare",
        "free",
        "time",
        "enjoy",
        "like",
        "love",
        "prefer",
        "favorite",
        "favourite",
        "pet",
        "pets",
        "dog",
        "dogs",
        "cat",
        "cats",
        "animal",
        "animals",
        "talk",
        "talking",
        "chat",
        "chatting",
        "think",
        "believe",
        "answer",
        "help",
        "helpful",
        "appreciate",
        "best",
        "smart",
    ];
    let addressed = words
        .iter()
        .any(|w| matches!(*w, "you" | "your" | "yourself" | "youre" | "you're" | "u"));
    addressed
        && super::super::terms_of(text).iter().all(|term| {
            ABOUT_ITSELF
                .iter()
                .any(|word| super::super::stem::stem(word) == *term)
        })
}

/// Whether `words` (of `text`) ask about the assistant itself ("where are you from?", "do
/// you have any pets", "who do you work for", "what's your favourite film"): "you" is who
/// is asked about, not who is asked to do something ("can you set…", "would you find…") nor
/// anyone at all ("how do you make pancakes"), and no word names what a family is for
/// ("what do you think the weather will do" asks for the weather).
pub(super) fn speaks_of_itself(words: &[&str], text: &str) -> bool {
    const ASKED_TO: &[&[&str]] = &[
        &["can", "you"],
        &["could", "you"],
        &["would", "you"],
        &["will", "you"],
        &["are", "you", "able"],
        &["do", "you", "know"],
        &["thank", "you"],
        &["let", "you"],
        &["tell", "you"],
        &["how", "do", "you"],
        &["how", "can", "you"],
        &["how", "would", "you"],
        &["how", "should", "you"],
        &["where", "do", "you"],
        &["where", "can", "you"],
        &["what", "do", "you", "call"],
        &["do", "you", "need"],
        &["if", "you"],
        &["you", "should"],
        &["should", "you"],
        &["you", "can"],
        &["you", "need"],
        &["you", "have", "to"],
        &["did", "you"],
        &["have", "you"],
        &["need", "you"],
        &["want", "you"],
        &["like", "you", "to"],
        &["do", "you", "think"],
        &["do", "you", "use"],
        // A shop or a restaurant asked what it does.
        &["do", "you", "serve"],
        &["do", "you", "offer"],
        &["do", "you", "provide"],
        &["do", "you", "deliver"],
        &["do", "you", "sell"],
        &["do", "you", "open"],
        &["do", "you", "close"],
        &["you", "provide"],
        &["you", "offer"],
        // Anyone at all, making something: "what do you put in chili".
        &["do", "you", "put"],
        &["do", "you", "mix"],
        &["do", "you", "add"],
        &["do", "you", "buy"],
        &["do", "you", "purchase"],
        &["do", "you", "dump"],
        &["do", "you", "cook"],
        &["do", "you", "bake"],
        &["do", "you", "make"],
        &["do", "you", "wear"],
        &["do", "you", "bring"],
        &["do", "you", "see"],
        &["you", "see"],
        &["told", "you"],
        &["hear", "you"],
        &["needing", "you"],
        &["do", "you", "have"],
        &["have", "you", "got"],
    ];
    // "do you have …" asks about the assistant only when what it has is its own.
    const ITS_OWN: &[&str] = &[
        "pets",
        "pet",
        "dog",
        "cat",
        "name",
        "names",
        "nickname",
        "hobbies",
        "hobby",
        "feelings",
        "emotions",
        "family",
        "friends",
        "friend",
        "favorite",
        "favourite",
        "boss",
        "age",
        "birthday",
        "body",
        "children",
        "kids",
        "parents",
        "brothers",
        "sisters",
        "siblings",
        "girlfriend",
        "boyfriend",
        "wife",
        "husband",
        "life",
        "dreams",
        "free",
        "spare",
    ];
    // What one asks of a life: where it was lived, how long, since when.
    const LIFE: &[&str] = &[
        "live", "lived", "living", "come", "came", "grow", "grew", "been", "ever", "always",
        "stay", "stayed", "work", "worked", "working", "exist", "existed", "born",
    ];
    // What the assistant keeps for the person is the person's: "your list", "your calendar".
    const KEPT: &[&str] = &[
        "list",
        "lists",
        "calendar",
        "schedule",
        "notes",
        "note",
        "reminders",
        "reminder",
        "alarms",
        "alarm",
        "timer",
        "timers",
        "agenda",
        "playlist",
        "playlists",
        "recommendation",
        "recommendations",
        "suggestion",
        "suggestions",
        "availability",
        "input",
    ];
    // What follows these is what is said, not who is spoken of: "how do I say I love you".
    const SAYING: &[&str] = &[
        "say",
        "says",
        "saying",
        "said",
        "translate",
        "translation",
        "phrase",
        "expression",
        "word",
        "words",
        "sentence",
    ];
    // Asked to do something first: "search for your favourite meal", "play your best song".
    const DO: &[&str] = &[
        "search",
        "find",
        "show",
        "play",
        "set",
        "add",
        "make",
        "put",
        "remind",
        "list",
        "open",
        "start",
        "book",
        "order",
        "read",
        "check",
        "look",
        "get",
        "call",
        "send",
        "repeat",
        "describe",
        "translate",
        "convert",
    ];
    if words.first().is_some_and(|w| DO.contains(w)) {
        return false;
    }
    // "who made this ai", "am I talking to a real person?", "is this a computer or a human".
    const BEING: &[&str] = &[
        "person", "human", "bot", "robot", "computer", "machine", "ai", "people", "being",
    ];
    let named_as_ai = words
        .windows(2)
        .any(|w| matches!(w[0], "this" | "the") && matches!(w[1], "ai" | "assistant" | "bot"));
    let talking_to = (words.starts_with(&["am", "i"]) || words.starts_with(&["is", "this"]))
        && words.iter().any(|w| BEING.contains(w));
    if (named_as_ai || talking_to) && !names_what_a_family_is_for(text) {
        return true;
    }
    let mut asked_of_it = false;
    for (at, word) in words.iter().enumerate() {
        if !matches!(*word, "you" | "your" | "yourself" | "youre" | "you're") {
            continue;
        }
        if words[at + 1..].iter().take(2).any(|w| KEPT.contains(w)) {
            return false;
        }
        // "how do I say I love you", not "would you say you work for me".
        let quoted = words[..at]
            .iter()
            .enumerate()
            .any(|(i, w)| SAYING.contains(w) && (i == 0 || words[i - 1] != "you"));
        if quoted {
            continue;
        }
        let asked_to = ASKED_TO.iter().any(|phrase| {
            let place = phrase.iter().position(|w| *w == "you").unwrap_or(0);
            let fits = at >= place
                && words.len() >= at - place + phrase.len()
                && words[at - place..at - place + phrase.len()] == **phrase;
            let own = phrase.last() == Some(&"have") || phrase.last() == Some(&"got");
            let its_own = own && words[at + 1..].iter().take(4).any(|w| ITS_OWN.contains(w));
            // "where do you come from", "how long have you been alive", "did you grow up…".
            let asks = matches!(phrase[0], "where" | "how" | "did" | "have" | "do");
            let its_life = asks && words.get(at + 1).is_some_and(|w| LIFE.contains(w));
            fits && !its_own && !its_life
        });
        if !asked_to {
            asked_of_it = true;
        }
    }
    // Its own favourite is its own, whatever it is of.
    let favourite = words
        .windows(2)
        .any(|w| w[0] == "your" && matches!(w[1], "favorite" | "favourite"));
    asked_of_it && (favourite || !names_what_a_family_is_for(text))
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
            "what's your favourite film",
            "can you tell me your name",
        ] {
            assert!(only_talks(text), "{text}");
        }
        for text in [
            // Asked to do something.
            "can you set an alarm for six",
            "could you find a pharmacy nearby",
            "i need you to remind me to call mum",
            "search for your favorite meal",
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
