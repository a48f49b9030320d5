//! Text as the router reads it: lower-case words of letters and digits (apostrophes dropped,
//! so "what's" is "whats"), each cut to a rough stem ("meetings" and "meeting" are one word,
//! as are "raining" and "rain"), and the patterns a family's words make of it.

/// The words of `text`, stemmed.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['\'', '’'], "")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(stem)
        .collect()
}

/// A rough English stem: a plural `-s` or `-ies`, then `-ing` or `-ed`, cut from words long
/// enough to have them ("meetings", "meeting" and "meet" are one word). Both sides of a match
/// are cut the same way, so it only has to be consistent.
pub(crate) fn stem(word: &str) -> String {
    let n = word.chars().count();
    let mut word = word.to_string();
    if n > 4 && word.ends_with("ies") {
        word.truncate(word.len() - 3);
        word.push('y');
    } else if n > 3 && word.ends_with('s') && !word.ends_with("ss") {
        word.pop();
    }
    let n = word.chars().count();
    if n > 5 && word.ends_with("ing") {
        word.truncate(word.len() - 3);
    } else if n > 4 && word.ends_with("ed") {
        word.truncate(word.len() - 2);
    }
    word
}

/// One of a family's words or phrases, ready to be looked for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pattern {
    /// As the family wrote it, without its marks: what a choice is explained with.
    pub shown: String,
    /// Its words, stemmed; the last one is a prefix when `prefix`.
    words: Vec<String>,
    prefix: bool,
    /// A weak hint (`~tomorrow`): it counts less than a word that names the family's matter.
    pub weak: bool,
}

impl Pattern {
    /// `~` in front marks a weak hint, `*` at the end a prefix (`remind*`).
    pub(crate) fn new(written: &str) -> Self {
        let weak = written.starts_with('~');
        let bare = written.trim_start_matches('~');
        let prefix = bare.ends_with('*');
        let bare = bare.trim_end_matches('*');
        let words = match prefix {
            // A prefix is matched as written: its stem could be longer than itself.
            true => bare
                .to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .filter(|word| !word.is_empty())
                .map(str::to_string)
                .collect(),
            false => words(bare),
        };
        Self {
            shown: bare.to_string(),
            words,
            prefix,
            weak,
        }
    }

    /// Whether the pattern stands somewhere in `text` (words as [`words`] makes them).
    pub(crate) fn found_in(&self, text: &[String]) -> bool {
        let n = self.words.len();
        if n == 0 || text.len() < n {
            return false;
        }
        text.windows(n).any(|window| {
            window
                .iter()
                .zip(&self.words)
                .enumerate()
                .all(|(i, (got, want))| match self.prefix && i == n - 1 {
                    true => got.starts_with(want.as_str()),
                    false => got == want,
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lower_case_stemmed_and_without_apostrophes() {
        assert_eq!(
            words("What's on my Calendar? Meetings, RAINING, parties; it’s 5pm"),
            [
                "what", "on", "my", "calendar", "meet", "rain", "party", "its", "5pm"
            ]
        );
        assert_eq!(words("bus class glass"), ["bus", "class", "glass"]);
        assert_eq!(
            words("¿Qué tiempo hará mañana?"),
            ["qué", "tiempo", "hará", "mañana"]
        );
    }

    #[test]
    fn patterns_match_words_phrases_and_prefixes() {
        let text = words("please remind me about the meetings in two hours");
        for (pattern, found) in [
            ("meeting", true),
            ("meetings", true),
            ("remind*", true),
            ("remind me", true),
            ("in two hours", true),
            ("two hour", true),
            ("~about", true),
            ("remind you", false),
            ("hours in", false),
            ("mind", false),
        ] {
            assert_eq!(Pattern::new(pattern).found_in(&text), found, "{pattern}");
        }
        let weak = Pattern::new("~tomorrow");
        assert!(weak.weak && weak.shown == "tomorrow");
        assert!(!Pattern::new("").found_in(&text));
    }
}
