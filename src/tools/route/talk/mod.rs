//! What a model answers by itself, as retrieval sees it: writing and rewriting, explaining,
//! advice, arithmetic and small talk. It ranks beside the families; a message it ranks first
//! brings none of them (a joke about records needs no music tools, a haiku about the rain no
//! forecast). Its entry is in the built index (`built.rs`) with the families'.

#[cfg(test)]
use super::index::Entry;

mod itself;
mod replies;

use itself::{is_small_talk, speaks_of_itself};
pub(crate) use replies::after_greeting;
use replies::is_a_reply;

/// The id it ranks under; never a family's.
pub(crate) const TALK: &str = "talk";

/// Whether `text` only talks, asking for nothing a tool does though it may share words with
/// families ("alarm", "fix", "morning"): a remark about how the person feels or what happened
/// ("my alarm clock broke this morning lol", "thanks, that fix looks good"), a greeting, a
/// plain yes, no or maybe, a sum, or a question about the assistant itself (see `itself`).
/// A goodbye does not: it may ask to close Marvin, which the system family can.
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
    // "great, now what's the weather": a question word with its "is" run in.
    let asks_run_in = words.iter().any(|w| {
        matches!(
            w.replace(['\'', '’'], "").as_str(),
            "whats" | "wheres" | "hows" | "whos" | "whens" | "whys" | "whatre"
        )
    });
    let remark = !text.contains('?')
        && (opens || FEELINGS.iter().any(|f| has(f)))
        && !ASKING.iter().any(asks)
        && !asks_run_in;
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
    "hello hi hey thanks thank cool nice great awesome lol haha ok okay never mind night yourself name bored love fed annoying feel feeling appreciate grateful thankful",
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
    use super::only_talks;

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
        // A remark, then a question with its "is" run in.
        for text in [
            "great, now what's the weather tomorrow",
            "thanks, what's on my calendar today",
            "cool, where's the nearest pharmacy",
        ] {
            assert!(!only_talks(text), "{text}");
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
