//! Which tool families a message asks for, decided here, without a model call: each family's
//! words (see `Family`) are looked for in the message. A word counts less the more families
//! share it ("near me" is places' and location's both), a weak hint (`~tomorrow`) counts less
//! than a word that names the family's matter, and the families with the most are chosen.

mod offer;
mod words;

use std::collections::HashMap;

pub use offer::Offer;
use words::Pattern;
pub(crate) use words::words;

/// The most families one message brings in: a message rarely needs more, and every family is
/// a few kilobytes more in the request.
pub(crate) const MOST: usize = 3;

/// What weak hints count, against 1 for a word of the family's matter.
const WEAK: f64 = 0.3;

/// The families' words, ready to be looked for.
pub(crate) struct Router {
    families: Vec<Entry>,
}

struct Entry {
    id: String,
    patterns: Vec<(Pattern, f64)>,
}

/// A family a message asks for, and the word that said so.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chosen {
    pub family: String,
    pub why: String,
}

impl Router {
    /// A router over `families` (id, words), in the order ties are broken.
    pub(crate) fn new<'a>(families: impl IntoIterator<Item = (&'a str, Vec<String>)>) -> Self {
        let compiled: Vec<(String, Vec<Pattern>)> = families
            .into_iter()
            .map(|(id, words)| {
                let patterns = words.iter().map(|w| Pattern::new(w)).collect();
                (id.to_string(), patterns)
            })
            .collect();
        // How many families have each word: a word they share tells them apart less.
        let mut shared: HashMap<&str, f64> = HashMap::new();
        for (_, patterns) in &compiled {
            let mut own: Vec<&str> = patterns.iter().map(|p| p.shown.as_str()).collect();
            own.sort_unstable();
            own.dedup();
            for shown in own {
                *shared.entry(shown).or_default() += 1.0;
            }
        }
        let shared = |pattern: &Pattern| shared.get(pattern.shown.as_str()).copied().unwrap_or(1.0);
        let families = compiled
            .iter()
            .map(|(id, patterns)| Entry {
                id: id.clone(),
                patterns: patterns
                    .iter()
                    .map(|p| {
                        let base = if p.weak { WEAK } else { 1.0 };
                        (p.clone(), base / shared(p))
                    })
                    .collect(),
            })
            .collect();
        Self { families }
    }

    /// The families `text` asks for, most asked first, at most `most`.
    pub(crate) fn choose(&self, text: &str, most: usize) -> Vec<Chosen> {
        let text = words(text);
        let mut scored: Vec<(f64, usize, Chosen)> = Vec::new();
        for (order, entry) in self.families.iter().enumerate() {
            let mut score = 0.0;
            let mut best: Option<(f64, &str)> = None;
            for (pattern, weight) in &entry.patterns {
                if pattern.found_in(&text) {
                    score += weight;
                    if best.is_none_or(|(w, _)| *weight > w) {
                        best = Some((*weight, &pattern.shown));
                    }
                }
            }
            if let Some((_, why)) = best {
                let chosen = Chosen {
                    family: entry.id.clone(),
                    why: why.to_string(),
                };
                scored.push((score, order, chosen));
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
            .into_iter()
            .take(most)
            .map(|(_, _, chosen)| chosen)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn router() -> Router {
        let family = |id: &'static str, words: &[&str]| {
            (id, words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
        };
        Router::new([
            family("weather", &["weather", "rain", "~outside", "near me"]),
            family("places", &["restaurant", "near me", "~eat"]),
            family("calendar", &["meeting", "remind*", "~tomorrow"]),
            family("alarms", &["alarm", "remind*", "wake me"]),
        ])
    }

    #[test]
    fn the_families_with_the_most_words_are_chosen_and_say_why() {
        let router = router();
        let chosen = router.choose("Will it rain tomorrow? What's the weather near me", 3);
        let families: Vec<&str> = chosen.iter().map(|c| c.family.as_str()).collect();
        assert_eq!(families, ["weather", "places", "calendar"]);
        assert_eq!(chosen[0].why, "weather");
        assert_eq!(chosen[2].why, "tomorrow");
        assert_eq!(router.choose("Will it rain tomorrow?", 1).len(), 1);
        assert!(router.choose("hello there", 3).is_empty());
    }

    #[test]
    fn a_word_two_families_share_counts_half_and_ties_keep_the_catalogue_order() {
        let router = router();
        let chosen = router.choose("remind me", 3);
        let families: Vec<&str> = chosen.iter().map(|c| c.family.as_str()).collect();
        assert_eq!(families, ["calendar", "alarms"]);
        // A family's own word beats a shared one and a weak hint.
        let chosen = router.choose("remind me to wake me at seven tomorrow", 3);
        assert_eq!(chosen[0].family, "alarms");
        assert_eq!(chosen[0].why, "wake me");
    }
}
