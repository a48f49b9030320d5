//! Which tool families a message asks for, decided here, without a model call: each family's
//! words (see `Family`) are looked for in the message. A word counts less the more families
//! share it ("near me" is places' and location's both), a weak hint (`~tomorrow`) counts less
//! than a word that names the family's matter, and the families with the most are chosen.

mod offer;
mod words;

pub use offer::Offer;
use words::Pattern;
pub(crate) use words::words;

/// The most families one message brings in: a message rarely needs more, and every family is
/// a few kilobytes more in the request.
pub(crate) const MOST: usize = 3;

/// What weak hints count, against 1 for a word of the family's matter.
const WEAK: f64 = 0.3;

/// A family a message asks for, and the word that said so.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chosen {
    pub family: String,
    pub why: String,
}

/// The families (id, words) `text` asks for, most asked first, at most `most`; ties keep the
/// order of `families`. A word is only made ready (stemmed, split into a phrase) when the
/// message holds its first letters: a message is a few words, the families' a thousand.
pub(crate) fn choose(families: &[(&str, &[String])], text: &str, most: usize) -> Vec<Chosen> {
    let plain = text.to_lowercase().replace(['\'', '’'], "");
    let text = words(&plain);
    let mut scored: Vec<(f64, usize, Chosen)> = Vec::new();
    for (order, (id, own)) in families.iter().enumerate() {
        let mut score = 0.0;
        let mut best: Option<(f64, &str)> = None;
        for written in own.iter().filter(|w| may_stand_in(w, &plain)) {
            let pattern = Pattern::new(written);
            if !pattern.found_in(&text) {
                continue;
            }
            let weight = weight(&pattern, families);
            score += weight;
            if best.is_none_or(|(w, _)| weight > w) {
                best = Some((
                    weight,
                    written.trim_start_matches('~').trim_end_matches('*'),
                ));
            }
        }
        if let Some((_, why)) = best {
            let chosen = Chosen {
                family: id.to_string(),
                why: why.to_string(),
            };
            scored.push((score, order, chosen));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(most).map(|(_, _, c)| c).collect()
}

/// Whether `written` can stand in `plain` (the message, lower case, without apostrophes):
/// the start its first word keeps whatever ending it has (what it shares with its own stem,
/// four letters at most) is there. A word of the message with the same stem starts so too.
fn may_stand_in(written: &str, plain: &str) -> bool {
    // Families' words are written in lower case.
    let first = written
        .trim_start_matches('~')
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or("");
    let stem = words::stem(first);
    let start: String = first
        .chars()
        .zip(stem.chars())
        .take_while(|(a, b)| a == b)
        .take(4)
        .map(|(a, _)| a)
        .collect();
    !start.is_empty() && plain.contains(&start)
}

/// What a word counts: 1 (a weak hint less), shared by the families that have it.
fn weight(pattern: &Pattern, families: &[(&str, &[String])]) -> f64 {
    let base = if pattern.weak { WEAK } else { 1.0 };
    let sharing = families
        .iter()
        .filter(|(_, own)| {
            own.iter()
                .any(|w| w.trim_start_matches('~').trim_end_matches('*') == pattern.shown)
        })
        .count()
        .max(1);
    base / sharing as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn families() -> Vec<(&'static str, Vec<String>)> {
        let family = |id: &'static str, words: &[&str]| {
            (id, words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
        };
        vec![
            family("weather", &["weather", "rain", "~outside", "near me"]),
            family("places", &["restaurant", "near me", "~eat"]),
            family("calendar", &["meeting", "remind*", "~tomorrow"]),
            family("alarms", &["alarm", "remind*", "wake me"]),
        ]
    }

    fn pick(text: &str, most: usize) -> Vec<Chosen> {
        let owned = families();
        let families: Vec<(&str, &[String])> =
            owned.iter().map(|(id, w)| (*id, w.as_slice())).collect();
        choose(&families, text, most)
    }

    #[test]
    fn the_families_with_the_most_words_are_chosen_and_say_why() {
        let chosen = pick("Will it rain tomorrow? What's the weather near me", 3);
        let families: Vec<&str> = chosen.iter().map(|c| c.family.as_str()).collect();
        assert_eq!(families, ["weather", "places", "calendar"]);
        assert_eq!(chosen[0].why, "weather");
        assert_eq!(chosen[2].why, "tomorrow");
        assert_eq!(pick("Will it rain tomorrow?", 1).len(), 1);
        assert!(pick("hello there", 3).is_empty());
    }

    #[test]
    fn a_word_is_only_looked_for_where_its_start_is() {
        for (written, plain, may) in [
            ("meeting", "my meetings", true),
            ("flies", "the fly", true),
            ("parties", "a party", true),
            ("~tomorrow", "tomorrow", true),
            ("remind*", "reminder", true),
            ("in two hours", "in an hour", true),
            ("weather", "what a day", false),
        ] {
            assert_eq!(may_stand_in(written, plain), may, "{written} in {plain}");
        }
    }

    #[test]
    fn a_word_two_families_share_counts_half_and_ties_keep_the_catalogue_order() {
        let chosen = pick("remind me", 3);
        let families: Vec<&str> = chosen.iter().map(|c| c.family.as_str()).collect();
        assert_eq!(families, ["calendar", "alarms"]);
        // A family's own word beats a shared one and a weak hint.
        let chosen = pick("remind me to wake me at seven tomorrow", 3);
        assert_eq!(chosen[0].family, "alarms");
        assert_eq!(chosen[0].why, "wake me");
    }
}
