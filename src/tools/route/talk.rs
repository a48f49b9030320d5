//! What a model answers by itself, as retrieval sees it: writing and rewriting, explaining,
//! advice, arithmetic and small talk. It ranks beside the families; a message it ranks first
//! brings none of them (a joke about records needs no music tools, a haiku about the rain no
//! forecast). Its entry is in the built index (`built.rs`) with the families'.

#[cfg(test)]
use super::index::Entry;

/// The id it ranks under; never a family's.
pub(crate) const TALK: &str = "talk";

/// The words of each kind of request a model answers itself.
#[cfg(test)]
const WORDS: &[&str] = &[
    // Writing, and mending what the person wrote.
    "write compose draft poem haiku limerick sonnet verse rhyme rhymes story tale joke jokes pun riddle essay speech toast caption slogan lyrics birthday message wish",
    "rewrite rephrase paraphrase reword proofread polish improve formal informal casual tone grammar spelling passive voice sentence sound",
    // Explaining and knowing.
    "explain explanation difference between meaning concept understand like I'm five simply briefly plot summary theory trait interface monad recursion complexity",
    // Advice and ideas.
    "tips advice ideas suggest suggestions better way good learn learning thinking should",
    // Arithmetic.
    "plus minus times multiplied divided square root percent sum",
    // Small talk.
    "hello hi hey thanks thank cool nice great awesome lol haha ok okay never mind bye goodbye night yourself name bored love fed annoying feel feeling",
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
