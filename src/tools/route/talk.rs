//! What a model answers by itself, as retrieval sees it: writing and rewriting, explaining,
//! advice, arithmetic and small talk. It ranks beside the families; a message it ranks first
//! brings none of them (a joke about records needs no music tools, a haiku about the rain no
//! forecast). Its entry is in the built index (`built.rs`) with the families'.

#[cfg(test)]
use super::index::Entry;

/// The id it ranks under; never a family's.
pub(crate) const TALK: &str = "talk";

/// Whether `text` only talks: a remark about how the person feels or what happened ("my alarm
/// clock broke this morning lol", "thanks, that fix looks good") that asks for nothing. Such
/// a message shares words with families ("alarm", "fix") without wanting any of them.
pub(crate) fn only_talks(text: &str) -> bool {
    const OPENERS: &[&str] = &[
        "thanks",
        "thank you",
        "nice",
        "cool",
        "great",
        "awesome",
        "lol",
    ];
    const FEELINGS: &[&str] = &[
        "lol",
        "haha",
        "ugh",
        "omg",
        "yay",
        "so annoying",
        "fed up",
        "what a",
        "i love",
        "i hate",
        "sucks",
        "awful",
    ];
    const ASKING: &[&str] = &[
        "please",
        "can you",
        "could you",
        "would you",
        "remind",
        "tell me",
        "show",
        "set",
        "play",
        "find",
        "search",
        "send",
        "add",
        "create",
        "make",
        "open",
        "start",
        "want",
        "need",
        "like to",
        "let me know",
        "look",
        "check",
        "what",
        "how",
        "when",
        "where",
        "who",
        "which",
    ];
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |phrase: &str| {
        let phrase: Vec<&str> = phrase.split(' ').collect();
        words.windows(phrase.len()).any(|w| w == phrase.as_slice())
    };
    let opens = OPENERS.iter().any(|o| {
        let o: Vec<&str> = o.split(' ').collect();
        words.starts_with(&o)
    });
    // "…, what a day" exclaims after saying what happened; it asks nothing.
    let exclaims = [", what a", ". what a", "! what a"]
        .iter()
        .any(|e| lower.contains(e));
    let asks = |a: &&str| has(a) && !(*a == "what" && exclaims);
    let remark = !text.contains('?')
        && (opens || FEELINGS.iter().any(|f| has(f)))
        && !ASKING.iter().any(asks);
    // A goodbye may mean to close Marvin, which its system family can.
    if super::terms_of(text)
        .iter()
        .any(|t| t == "bye" || t == "goodby")
    {
        return false;
    }
    let greets = !after_greeting(text).chars().any(char::is_alphanumeric);
    greets
        || remark
        || is_a_reply(&words)
        || is_a_sum(&words)
        || is_small_talk(text, &words)
        || speaks_of_itself(&words, text)
}

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
        "there", "marvin", "buddy", "friend", "mate", "again", "everyone", "all", "you",
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

/// Whether `text` speaks to the assistant about itself and nothing else ("how are you
/// today?", "what's your name?", "are you a robot?"): every word that counts is one of
/// small talk's.
fn is_small_talk(text: &str, words: &[&str]) -> bool {
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
        && super::terms_of(text).iter().all(|term| {
            ABOUT_ITSELF
                .iter()
                .any(|word| super::stem::stem(word) == *term)
        })
}

/// Whether `words` (of `text`) ask about the assistant itself ("where are you from?", "do
/// you have any pets", "who do you work for", "what's your favourite film"): "you" is who
/// is asked about, not who is asked to do something ("can you set…", "would you find…") nor
/// anyone at all ("how do you make pancakes"), and no word names what a family is for
/// ("what do you think the weather will do" asks for the weather).
fn speaks_of_itself(words: &[&str], text: &str) -> bool {
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
    let families = super::built::BUILT;
    super::terms_of(text).iter().any(|term| {
        let holding = families.iter().filter(|e| e.holds(term)).count();
        holding <= 2
            && families
                .iter()
                .filter(|e| e.id != TALK)
                .any(|e| e.weight(term).is_some_and(|w| w >= 8.0))
    })
}

/// Whether `words` only answer yes, no or maybe ("that's right", "not true", "no idea",
/// "absolutely correct"): a reply to what the model asked, which asks for nothing itself.
fn is_a_reply(words: &[&str]) -> bool {
    const REPLY: &[&str] = &[
        "yes",
        "yeah",
        "yep",
        "yup",
        "sure",
        "correct",
        "right",
        "true",
        "affirmative",
        "absolutely",
        "definitely",
        "certainly",
        "indeed",
        "exactly",
        "agreed",
        "agree",
        "no",
        "nope",
        "nah",
        "not",
        "wrong",
        "false",
        "negative",
        "never",
        "maybe",
        "perhaps",
        "possibly",
        "probably",
        "unsure",
        "idea",
        "know",
        "dont",
        "don't",
        "do",
        "think",
        "so",
        "guess",
        "that",
        "that's",
        "thats",
        "is",
        "it",
        "it's",
        "its",
        "the",
        "answer",
        "statement",
        "i",
        "i'm",
        "im",
        "am",
        "would",
        "say",
        "from",
        "me",
        "to",
        "question",
        "hard",
        "a",
        "just",
        "actually",
        "really",
        "totally",
        "completely",
        "sorry",
        "fact",
        "of",
        "course",
        "all",
        "at",
        "was",
        "you",
        "said",
        "what",
        "my",
        "either",
        "one",
        "work",
        "works",
        "fine",
        "ok",
        "okay",
        "appears",
        "seems",
        "seem",
        "be",
        "will",
        "response",
        "reply",
        "vote",
        "depends",
        "pass",
        "i'll",
        "ill",
        "case",
        "turns",
        "out",
        "should",
        "have",
        "how",
        "can",
        "can't",
        "cant",
        "afraid",
        "isn't",
        "isnt",
        "well",
        "or",
        "very",
        "much",
        "quite",
        "pretty",
        "sounds",
        "good",
        "great",
        "believe",
        "for",
        "way",
        "wouldn't",
        "doesn't",
        "does",
        "there",
    ];
    const SAYS: &[&str] = &[
        "yes",
        "yeah",
        "yep",
        "yup",
        "sure",
        "correct",
        "right",
        "true",
        "affirmative",
        "absolutely",
        "definitely",
        "certainly",
        "indeed",
        "exactly",
        "agreed",
        "no",
        "nope",
        "nah",
        "wrong",
        "false",
        "negative",
        "maybe",
        "perhaps",
        "possibly",
        "probably",
        "unsure",
        "idea",
        "depends",
        "pass",
        "case",
    ];
    (1..=10).contains(&words.len())
        && words.iter().all(|w| REPLY.contains(w))
        && words.iter().any(|w| SAYS.contains(w))
}

/// Whether `words` hold a sum: two numbers joined by an operator ("17 times 23", "12 x 9",
/// "100 divided by 7"), which a model works out itself.
fn is_a_sum(words: &[&str]) -> bool {
    const OPERATORS: &[&str] = &[
        "times",
        "x",
        "plus",
        "minus",
        "divided",
        "multiplied",
        "over",
    ];
    let number = |w: &str| w.parse::<f64>().is_ok();
    words
        .windows(3)
        .any(|w| number(w[0]) && OPERATORS.contains(&w[1]) && number(w[2]))
        || words.windows(4).any(|w| {
            number(w[0])
                && ["divided", "multiplied"].contains(&w[1])
                && w[2] == "by"
                && number(w[3])
        })
}

/// The words of each kind of request a model answers itself.
#[cfg(test)]
const WORDS: &[&str] = &[
    // Writing, and mending what the person wrote.
    "write compose draft poem haiku limerick sonnet verse rhyme rhymes story tale joke jokes pun riddle essay speech toast caption slogan lyrics birthday message wish",
    "rewrite rephrase paraphrase reword proofread polish improve formal informal casual tone grammar spelling passive voice sentence sound",
    // Explaining and knowing.
    "explain explanation difference between meaning concept understand like I'm five simply briefly plot summary theory trait interface monad recursion complexity",
    // Advice and ideas.
    "tips advice ideas suggest suggestions better way good learn learning thinking should names",
    // Arithmetic.
    "plus minus times multiplied divided square root percent sum math maths",
    // Chance.
    "flip coin toss heads tails roll dice random",
    // Laughing.
    "laugh funny hilarious giggle",
    // Small talk.
    "hello hi hey thanks thank cool nice great awesome lol haha ok okay never mind yourself name bored love fed annoying feel feeling appreciate grateful thankful",
    // What life is for.
    "life existence",
];

/// How people ask for these.
#[cfg(test)]
const ASKS: &[&str] = &[
    "write me a poem about the sea",
    "tell me a joke",
    "give me three ideas for a name",
    "rewrite this to sound friendlier",
    "proofread my paragraph",
    "explain how a compiler works",
    "what's the difference between a list and a set",
    "any tips for sleeping better",
    "what's 12 times 9",
    "thanks, that was great",
    "how are you",
    "tell me about yourself",
];

/// Its entry, as the built index holds it.
#[cfg(test)]
pub(crate) fn made() -> Entry {
    let mut fields: Vec<(&str, f64)> = WORDS.iter().map(|words| (*words, 3.0)).collect();
    fields.extend(ASKS.iter().map(|ask| (*ask, 2.0)));
    Entry::new(TALK, &fields)
}

#[cfg(test)]
mod tests {
    use super::{after_greeting, only_talks};

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
    fn a_remark_or_small_talk_asks_for_nothing() {
        for text in [
            "thanks, that fix looks good",
            "my alarm clock broke this morning lol",
            "I just got back from Berlin, what a trip",
            "how are you today?",
            "what's your name?",
            "are you a robot?",
            "17 times 23",
        ] {
            assert!(only_talks(text), "{text}");
        }
        for text in [
            "what a sunny day, will it rain later?",
            "describe to me what a ball looks like",
            "can you set an alarm for six",
            "what's your forecast for tomorrow",
            "how do you cook an omelette",
            "did you add tomorrow's meeting to my calendar",
        ] {
            assert!(!only_talks(text), "{text}");
        }
    }
}
