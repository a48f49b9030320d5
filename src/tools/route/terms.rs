//! The terms retrieval counts in a message (and in what a family is): its words, stemmed,
//! without the little ones, and what some ways of asking mean when their words alone say
//! little ("where am I", a time of day, saying a thing in a language, letters spelled out).

use super::stem::stem;
use super::{listed, words_of};

/// The words of `text` retrieval counts: lower case, split at anything but letters and
/// digits (apostrophes dropped: "what's" is "whats"), the little words left out, stemmed.
pub(crate) fn terms_of(text: &str) -> Vec<String> {
    let mut text = joined_initials(&text.to_lowercase().replace(['\'', '’'], ""));
    for (phrase, meaning) in PHRASES {
        if text.contains(phrase) {
            text = text.replace(phrase, meaning);
        }
    }
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    let mut terms = Vec::new();
    if asks_where_one_is(&text) {
        terms.push(WHERE_ONE_IS.to_string());
    }
    for (at, word) in words.iter().enumerate() {
        if word.len() > 1 && !STOP.contains(word) && !word.bytes().all(|b| b.is_ascii_digit()) {
            terms.push(stem(word));
        }
        // A list one keeps ("my list", "the shopping list", "lists") is a thing of its own;
        // "list my alarms" asks to see some.
        let kept = *word == "lists"
            || (*word == "list" && at > 0 && !matches!(words[at - 1], "to" | "please" | "and"));
        if kept {
            terms.push("checklist".to_string());
        }
        if names_a_clock_time(&words, at) && !terms.iter().any(|t| t == CLOCK_TIME) {
            terms.push(CLOCK_TIME.to_string());
        }
    }
    // A goodbye may ask to close Marvin (the system family's `exit_app`).
    if says_goodbye(&text) {
        terms.push("bye".to_string());
    }
    // Saying a thing in a language is translating it ("how do they say hello in Danish",
    // "what is Latin for I love you").
    if says_in_a_language(&words) {
        terms.push(stem("translate"));
    }
    // "play …" is music, unless what is played is named as something else.
    const PLAYED: &[&str] = &[
        "game",
        "games",
        "video",
        "videos",
        "movie",
        "movies",
        "film",
        "trailer",
        "podcast",
        "episode",
        "audiobook",
        "book",
    ];
    let asks_to_play = words.contains(&"play")
        && super::words_of(&super::asked_of(&text)).first() == Some(&"play");
    if asks_to_play && !words.iter().any(|w| PLAYED.contains(w)) {
        terms.push("music".to_string());
    }
    terms
}

/// The term asking where the person is adds ("where am I?", "my location"): the location
/// family's, which its own asks give it.
const WHERE_ONE_IS: &str = "whereami";

/// Whether `lower` asks where the person is ("where am I?", "where am I right now, and…"),
/// all little words to retrieval; not "where am I on that visa thing".
fn asks_where_one_is(lower: &str) -> bool {
    const OWN_PLACE: &[&str] = &[
        "my location",
        "my current location",
        "my position",
        "my whereabouts",
        "my exact whereabouts",
        "my coordinates",
        "my longitude",
        "my latitude",
        "locate me",
        "im lost",
    ];
    // Asked for, not where something else is: not "traffic near my location", "shops close to
    // my current location".
    // Whole words only: not "allocate memory", "Tim lost his keys".
    let starts_a_word = |at: usize| !lower[..at].ends_with(char::is_alphanumeric);
    let asked_for = OWN_PLACE.iter().any(|said| {
        lower.match_indices(said).any(|(at, _)| {
            let ends_a_word = !lower[at + said.len()..].starts_with(char::is_alphanumeric);
            let before = lower[..at].split_whitespace().next_back().unwrap_or("");
            starts_a_word(at)
                && ends_a_word
                && !matches!(
                    before,
                    "near" | "of" | "to" | "from" | "at" | "around" | "by" | "in"
                )
        })
    });
    if asked_for {
        return true;
    }
    let on_a_map = lower.contains("map");
    ["where am i", "where i am", "where exactly am i"]
        .iter()
        .flat_map(|said| lower.match_indices(said))
        .filter(|(at, _)| starts_a_word(*at))
        .any(|(at, phrase)| {
            let rest = lower[at + phrase.len()..].trim_start();
            let word = rest
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("");
            rest.is_empty()
                || rest.starts_with(|c: char| !c.is_alphanumeric())
                || matches!(word, "now" | "right" | "exactly" | "currently")
                || (on_a_map && word == "on")
        })
}

/// Whether `lower` ends by taking leave: its last clause is a goodbye ("bye", "see you
/// later, Marvin", "ok, gotta go"), perhaps opened by a thanks or an "ok" and closed by
/// whom or when ("for now", "tomorrow"). Not "how do I take care of a cactus" nor "I'm off
/// tomorrow, cancel my alarm".
fn says_goodbye(lower: &str) -> bool {
    const GOODBYES: &str = "bye|bye bye|goodbye|good bye|see you|see ya|talk to you later|\
        talk later|catch you later|until next time|im outta here|im out of here|\
        gotta go|got to go|have to go|i have to go|i gotta go|i must go|take care|farewell|\
        signing off|ttyl|later|later gator|later alligator|cheerio|adios|sayonara|ciao|\
        tata for now|ta ta|night night";
    const OPENING: &str = "ok okay well alright right so thanks thank you cool great anyway \
        then and but";
    const CLOSING: &str = "marvin buddy friend mate all everyone guys for now then again soon \
        later tomorrow tonight";
    let last = lower
        .split([',', '.', '!', '?', ';', '\n'])
        .rfind(|clause| clause.chars().any(char::is_alphanumeric))
        .unwrap_or("");
    let words = words_of(last);
    let mut said = words.as_slice();
    while let [first, rest @ ..] = said {
        if !listed(OPENING, first) {
            break;
        }
        said = rest;
    }
    let goodbye = |said: &[&str]| {
        GOODBYES
            .split('|')
            .any(|g| g.split(' ').eq(said.iter().copied()))
    };
    let mut closed = said;
    loop {
        if goodbye(closed) {
            return true;
        }
        match closed {
            [rest @ .., last] if listed(CLOSING, last) => closed = rest,
            _ => return false,
        }
    }
}

/// Whether `words` ask how a thing is said in a language: a word of saying and a language's
/// name (or its speakers'), or "what is Latin for …". Not "call my French teacher" nor
/// "Italian for dinner".
fn says_in_a_language(words: &[&str]) -> bool {
    const SAYING: &str = "say says saying said word words phrase slang expression mean means \
        pronounce greet";
    const LANGUAGES: &str = "english french spanish german italian portuguese dutch swedish \
        norwegian danish finnish icelandic polish czech slovak hungarian romanian bulgarian \
        serbian croatian greek turkish russian ukrainian arabic hebrew persian farsi hindi urdu \
        bengali punjabi tamil telugu chinese mandarin cantonese japanese korean vietnamese thai \
        indonesian malay tagalog filipino swahili latin hawaiian irish welsh esperanto catalan \
        basque";
    let language = |w: &&str| {
        listed(LANGUAGES, w) || w.strip_suffix('s').is_some_and(|w| listed(LANGUAGES, w))
    };
    let says = words.iter().any(|w| listed(SAYING, w))
        || words
            .windows(3)
            .any(|w| w == ["what", "do", "you"] || w == ["what", "is", "it"])
            && words.contains(&"call");
    // "what is Latin for I love you" names the language and the saying at once.
    let language_for = matches!(words, ["what", "is", ..] | ["whats", ..])
        && words.windows(2).any(|w| language(&w[0]) && w[1] == "for");
    words.iter().any(language) && (says || language_for)
}

/// The term a time of day adds ("at four pm", "7am", "three o'clock"): a time is when an
/// alarm rings or an event starts. A family lists it among its words as `clocktime`.
const CLOCK_TIME: &str = "clocktim";

/// Whether the `at`-th of `words` ends a time of day.
fn names_a_clock_time(words: &[&str], at: usize) -> bool {
    let word = words[at];
    let number = |w: &str| {
        w.bytes().all(|b| b.is_ascii_digit())
            || matches!(
                w,
                "one"
                    | "two"
                    | "three"
                    | "four"
                    | "five"
                    | "six"
                    | "seven"
                    | "eight"
                    | "nine"
                    | "ten"
                    | "eleven"
                    | "twelve"
                    | "fifteen"
                    | "thirty"
                    | "fortyfive"
            )
            || (w.len() > 4 && (w.ends_with("teen") || w.ends_with("ty")))
    };
    let digits_then = |suffix: &str| {
        word.strip_suffix(suffix)
            .is_some_and(|d| !d.is_empty() && d.len() <= 2 && d.bytes().all(|b| b.is_ascii_digit()))
    };
    match word {
        "am" | "pm" => at > 0 && number(words[at - 1]),
        "oclock" | "noon" | "midnight" => true,
        _ => digits_then("am") || digits_then("pm"),
    }
}

/// `text` with letters said one at a time ("u. s. d.", as speech is written down) as the
/// word they spell ("usd").
fn joined_initials(text: &str) -> String {
    let initial = |word: &str| {
        let mut chars = word.chars();
        matches!((chars.next(), chars.next(), chars.next()), (Some(c), Some('.'), None) if c.is_alphabetic())
    };
    let words: Vec<&str> = text.split(' ').collect();
    if words.iter().filter(|w| initial(w)).count() < 2 {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < words.len() {
        let run = words[at..].iter().take_while(|w| initial(w)).count();
        if !out.is_empty() {
            out.push(' ');
        }
        if run >= 2 {
            out.extend(words[at..at + run].iter().map(|w| &w[..w.len() - 1]));
            at += run;
        } else {
            out.push_str(words[at]);
            at += 1;
        }
    }
    out
}

/// Ways of asking whose words alone say little, and what they mean.
const PHRASES: &[(&str, &str)] = &[
    // "to do" is two little words, but a to-do list is a thing of its own.
    ("to-do", "todo"),
    ("to do list", "todo list"),
    // What is planned: "what's on friday", "what do I have going on".
    ("whats on", "whats on schedule"),
    ("what is on", "what is on schedule"),
    ("going on", "going on schedule"),
    // Where to go for something is a place nearby.
    ("where can i get", "where can i get nearby"),
    ("where can i buy", "where can i buy nearby"),
    ("where should i go", "where should i go nearby"),
    ("where can i rent", "where can i rent nearby"),
    ("where can i eat", "where can i eat nearby"),
    ("in my area", "nearby"),
    ("around here", "nearby"),
    // Being got up is being woken.
    ("get me up", "wake me up"),
    ("get us up", "wake us up"),
    // What a thing looks like is what it is.
    ("looks like", "looks like describe"),
    ("look like", "look like describe"),
    ("description of", "describe"),
    ("description about", "describe"),
    // Food to take home from a restaurant.
    // (Not taking out the bins.)
    ("do take out", "do takeout"),
    ("for take out", "for takeout"),
    ("have take out", "have takeout"),
    ("get take out", "get takeout"),
    ("order take out", "order takeout"),
    ("do carry out", "do takeout"),
    ("for carry out", "for takeout"),
    // Where to go for something is a place nearby.
    ("where to buy", "where to buy nearby"),
    ("where to get", "where to get nearby"),
    ("where to find", "where to find nearby"),
    ("close by", "nearby"),
    // A road full of cars.
    ("bumper to bumper", "traffic"),
    // What a cinema shows.
    ("show times", "showtimes"),
    ("playing at", "playing at cinema"),
    // Rising at a time is being woken then.
    ("get up at", "wake up at"),
    // A reminder at a time of day rings then; a line headed "note:" is one to keep.
    ("remind me at", "remind me at alarm"),
    ("note:", "note jot:"),
    // What is still to do is a to-do.
    ("get done", "get done todo"),
    ("to be done", "todo"),
    ("undone", "todo"),
    ("wish list", "checklist"),
    // When a place opens or closes is its opening hours.
    ("close today", "close today opening hours"),
    ("closes today", "closes today opening hours"),
    ("open today", "open today opening hours"),
    ("where is a ", "where is a nearby "),
    ("where is the best", "where is the best nearby"),
    // Whether the day has room.
    ("am i free", "am i free busy"),
    // What a dish is served with.
    ("goes with", "goes with recipe"),
];

/// Words that say nothing of what a request is about: the little words, and numbers (a time,
/// a count or an amount belongs to no family more than another).
const STOP: &[&str] = &[
    "zero",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "hundred",
    "thousand",
    "half",
    "quarter",
    "am",
    "pm",
    "olly",
    "siri",
    "alexa",
    "marvin",
    "a",
    "about",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "for",
    "from",
    "get",
    "give",
    "go",
    "going",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hey",
    "hi",
    "him",
    "his",
    "how",
    "if",
    "im",
    "in",
    "into",
    "is",
    "it",
    "its",
    "ive",
    "just",
    "know",
    "let",
    "lets",
    "like",
    "me",
    "might",
    "mine",
    "more",
    "most",
    "much",
    "must",
    "my",
    "need",
    "no",
    "not",
    "now",
    "of",
    "off",
    "ok",
    "okay",
    "on",
    "one",
    "only",
    "or",
    "our",
    "out",
    "over",
    "please",
    "pls",
    "plz",
    "really",
    "she",
    "should",
    "so",
    "some",
    "something",
    "tell",
    "than",
    "thank",
    "thanks",
    "that",
    "thats",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "this",
    "those",
    "to",
    "too",
    "up",
    "us",
    "use",
    "very",
    "want",
    "wanna",
    "was",
    "we",
    "were",
    "what",
    "whats",
    "when",
    "where",
    "which",
    "who",
    "whos",
    "why",
    "will",
    "with",
    "would",
    "yes",
    "you",
    "your",
    "youre",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_am_i_asks_where_the_person_is_only_by_itself() {
        for asked in [
            "where am i",
            "where am i?",
            "where am i, and what's it like outside here?",
            "hey, where am i right now",
        ] {
            assert!(asks_where_one_is(asked), "{asked}");
            assert!(terms_of(asked).iter().any(|t| t == WHERE_ONE_IS), "{asked}");
        }
        for asked in [
            "show me where i am on the map",
            "id like to know where i am",
            "where exactly am i",
        ] {
            assert!(asks_where_one_is(asked), "{asked}");
        }
        for not in [
            "where am i on that visa thing?",
            "where am i going wrong with this",
            "i forgot where i am supposed to be",
            "whats the traffic near my location",
            "how do i allocate memory in c",
            "how do i claim lost luggage",
            "tim lost his keys, any tips",
            "what clothing shops are close to my current location",
        ] {
            assert!(!asks_where_one_is(not), "{not}");
        }
    }
    #[test]
    fn terms_are_stems_without_the_little_words() {
        assert_eq!(
            terms_of("What's the forecast? Alarms, RAINING"),
            ["forecast", "alarm", "rain"]
        );
    }
    #[test]
    fn a_list_one_keeps_is_told_from_a_list_to_see() {
        assert_eq!(
            terms_of("what's next on my list"),
            ["next", "list", "checklist"]
        );
        assert_eq!(terms_of("which lists do I have"), ["list", "checklist"]);
        assert_eq!(terms_of("list my alarms"), ["list", "alarm"]);
    }
    #[test]
    fn ways_of_asking_say_what_they_mean() {
        assert!(terms_of("where can I get organic wheat").contains(&"nearbi".to_string()));
        assert!(terms_of("what does haggis look like").contains(&"describ".to_string()));
        assert!(terms_of("what do I have going on tomorrow").contains(&"schedul".to_string()));
        assert!(terms_of("get me up at half six").contains(&"wake".to_string()));
        assert!(terms_of("does the golden dragon do take out").contains(&"takeout".to_string()));
        assert!(!terms_of("remind me to take out the bins").contains(&"takeout".to_string()));
        assert!(terms_of("are the roads bumper to bumper").contains(&"traffic".to_string()));
    }
    #[test]
    fn a_time_of_day_is_one_term() {
        for time in [
            "at four pm",
            "wake me 7am",
            "three o'clock",
            "at 6 30 am",
            "by noon",
        ] {
            assert!(terms_of(time).contains(&CLOCK_TIME.to_string()), "{time}");
        }
        for not in ["i am hungry", "the pm of the uk", "ten minutes"] {
            assert!(!terms_of(not).contains(&CLOCK_TIME.to_string()), "{not}");
        }
        assert_eq!(stem("clocktime"), CLOCK_TIME);
    }
    #[test]
    fn playing_is_music_unless_something_else_is_named() {
        assert!(terms_of("play ricky martin").contains(&"music".to_string()));
        assert!(terms_of("hey olly please play the beatles").contains(&"music".to_string()));
        assert!(!terms_of("play the trailer of dune").contains(&"music".to_string()));
        assert!(!terms_of("let's play a game").contains(&"music".to_string()));
    }
    #[test]
    fn a_goodbye_is_the_last_thing_said() {
        for said in [
            "bye",
            "bye bye!",
            "ok, see you later marvin",
            "thanks, gotta go",
            "it was great to see you again, see ya later!",
            "talk to you later",
        ] {
            assert!(says_goodbye(said), "{said}");
        }
        for not in [
            "how do i take care of a cactus",
            "remind me to take care of the plants",
            "im off tomorrow, cancel my 6am alarm",
            "i have to go to the dentist at 3, remind me at 2",
            "bye, and remind me at 6",
            "pasta takeaway near me",
        ] {
            assert!(!says_goodbye(not), "{not}");
        }
    }

    #[test]
    fn saying_a_thing_in_a_language_is_translating_it() {
        let says = |text: &str| says_in_a_language(&text.split(' ').collect::<Vec<_>>());
        for said in [
            "how do they say hello in danish",
            "what is latin for i love you",
            "how would i say goodbye if i were norwegian",
            "tell me how the russians say notebook",
            "what do you call a subway in german",
        ] {
            assert!(says(said), "{said}");
        }
        for not in [
            "call my french teacher",
            "italian for dinner tonight near me",
            "whats that thai place called",
            "a good spanish restaurant",
        ] {
            assert!(!says(not), "{not}");
        }
    }

    #[test]
    fn letters_said_one_at_a_time_are_the_word_they_spell() {
        assert_eq!(
            terms_of("how much is a g. b. p. in u. s. d."),
            ["gbp", "usd"]
        );
        assert_eq!(joined_initials("i. e. a plan. b. c."), "ie a plan. bc");
        assert_eq!(joined_initials("mr. smith at a. m."), "mr. smith at am");
        assert_eq!(joined_initials("plan b. then"), "plan b. then");
    }
}
