//! Lexical retrieval over what each tool family is (its words, what it is for, its tools'
//! names, descriptions and parameters, the requests that ask for it): BM25, the ranking
//! function search engines start from, on English stems with the little words left out. A
//! message's families are the ones it ranks high enough.

use std::collections::HashMap;

use super::stem::stem;

/// BM25's saturation: how fast more of the same word stops counting.
const K1: f64 = 1.2;
/// BM25's length normalisation: how much a long document is discounted.
const B: f64 = 0.75;

/// A family as retrieval sees it: its weighted terms.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub id: String,
    terms: HashMap<String, f64>,
    length: f64,
}

impl Entry {
    /// The family `id` made of `fields`, each text with the weight its words carry (a
    /// family's own words count more than its tools' parameter descriptions).
    pub(crate) fn new(id: &str, fields: &[(&str, f64)]) -> Self {
        let mut terms: HashMap<String, f64> = HashMap::new();
        let mut length = 0.0;
        for (text, weight) in fields {
            for term in terms_of(text) {
                *terms.entry(term).or_default() += weight;
                length += weight;
            }
        }
        Self {
            id: id.to_string(),
            terms,
            length,
        }
    }
}

impl Entry {
    /// Whether the family holds `term` (a stem, as `terms_of` gives it).
    pub(crate) fn holds(&self, term: &str) -> bool {
        self.terms.contains_key(term)
    }
}

/// The families of `entries` in the order `query` ranks them, each with its score; those it
/// shares no term with are left out.
pub(crate) fn rank<'a>(query: &str, entries: &[&'a Entry]) -> Vec<(&'a str, f64)> {
    let mut query_terms: Vec<String> = terms_of(query)
        .into_iter()
        .map(|term| mended(term, entries))
        .collect();
    query_terms.sort();
    query_terms.dedup();
    if entries.is_empty() || query_terms.is_empty() {
        return Vec::new();
    }
    let count = entries.len() as f64;
    let average = entries.iter().map(|e| e.length).sum::<f64>() / count;
    let idf: Vec<f64> = query_terms
        .iter()
        .map(|term| {
            let holding = entries
                .iter()
                .filter(|e| e.terms.contains_key(term))
                .count() as f64;
            ((count - holding + 0.5) / (holding + 0.5) + 1.0).ln()
        })
        .collect();
    let mut ranked: Vec<(&'a str, f64)> = entries
        .iter()
        .filter_map(|entry| {
            let score: f64 = query_terms
                .iter()
                .zip(&idf)
                .filter_map(|(term, idf)| {
                    let tf = *entry.terms.get(term)?;
                    let norm = K1 * (1.0 - B + B * entry.length / average.max(1.0));
                    Some(idf * tf * (K1 + 1.0) / (tf + norm))
                })
                .sum();
            (score > 0.0).then_some((entry.id.as_str(), score))
        })
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked
}

/// `term`, or the one word of the families' a letter away from it when no family has it and it
/// is long enough to be a slip of the keys ("wether" is "weather"); a word two families'
/// words are a letter away from stays as it is.
fn mended(term: String, entries: &[&Entry]) -> String {
    if term.len() < 6 || entries.iter().any(|e| e.terms.contains_key(&term)) {
        return term;
    }
    let mut near: Vec<&String> = entries
        .iter()
        .flat_map(|e| e.terms.keys())
        .filter(|known| {
            known.len().abs_diff(term.len()) <= 1 && crate::tools::edit_distance(known, &term) == 1
        })
        .collect();
    near.sort();
    near.dedup();
    match near.as_slice() {
        [one] => one.to_string(),
        _ => term,
    }
}

/// The words of `text` retrieval counts: lower case, split at anything but letters and
/// digits (apostrophes dropped: "what's" is "whats"), the little words left out, stemmed.
pub(crate) fn terms_of(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['\'', '’'], "")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| {
            word.len() > 1 && !STOP.contains(word) && !word.bytes().all(|b| b.is_ascii_digit())
        })
        .map(stem)
        .collect()
}

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

    fn entries() -> Vec<Entry> {
        vec![
            Entry::new(
                "weather",
                &[
                    ("weather forecast rain snow temperature", 3.0),
                    ("Today's forecast for a city", 1.0),
                ],
            ),
            Entry::new(
                "alarms",
                &[("alarm wake", 3.0), ("Sets an alarm at a time of day", 1.0)],
            ),
            Entry::new(
                "recipes",
                &[
                    ("recipe cooking", 3.0),
                    ("Finds recipes by dish or ingredient", 1.0),
                ],
            ),
        ]
    }

    #[test]
    fn the_family_a_request_is_about_ranks_first() {
        let owned = entries();
        let all: Vec<&Entry> = owned.iter().collect();
        let first = |query: &str| rank(query, &all).first().map(|(id, _)| *id);
        assert_eq!(first("will it rain in Lyon tomorrow?"), Some("weather"));
        assert_eq!(first("wake me at seven"), Some("alarms"));
        assert_eq!(first("a recipe with leeks"), Some("recipes"));
        assert_eq!(first("wether in lyon"), Some("weather"));
        assert_eq!(first("thanks, that is all"), None);
        assert!(rank("", &all).is_empty());
    }

    #[test]
    fn terms_are_stems_without_the_little_words() {
        assert_eq!(
            terms_of("What's the forecast? Alarms, RAINING"),
            ["forecast", "alarm", "rain"]
        );
    }
}
