//! English stemming as the Snowball project's English stemmer ("Porter2") does it, written from
//! its published description (snowballstem.org/algorithms/english) and held to its test
//! vocabulary: "saved", "saves" and "saving" are all "save", "notifications" is "notif",
//! "upcoming" is "upcom". Words are lower-case ASCII letters and apostrophes; anything else is
//! given back as it came.

/// The stem of `word`.
pub(crate) fn stem(word: &str) -> String {
    if word.len() <= 2 || !word.bytes().all(|b| b.is_ascii_lowercase() || b == b'\'') {
        return word.to_string();
    }
    if let Some(special) = exception(word) {
        return special.to_string();
    }
    let mut w: Vec<u8> = word.strip_prefix('\'').unwrap_or(word).bytes().collect();
    mark_consonant_ys(&mut w);
    let r1 = region1(&w);
    let r2 = region_after(&w, r1);
    step0(&mut w);
    step1a(&mut w);
    step1b(&mut w, r1);
    step1c(&mut w);
    step2(&mut w, r1);
    step3(&mut w, r1, r2);
    step4(&mut w, r2);
    step5(&mut w, r1, r2);
    for b in &mut w {
        if *b == b'Y' {
            *b = b'y';
        }
    }
    String::from_utf8_lossy(&w).into_owned()
}

/// Words the algorithm leaves to a list.
fn exception(word: &str) -> Option<&'static str> {
    Some(match word {
        "skis" => "ski",
        "skies" => "sky",
        "idly" => "idl",
        "gently" => "gentl",
        "ugly" => "ugli",
        "early" => "earli",
        "only" => "onli",
        "singly" => "singl",
        "sky" => "sky",
        "news" => "news",
        "howe" => "howe",
        "atlas" => "atlas",
        "cosmos" => "cosmos",
        "bias" => "bias",
        "andes" => "andes",
        _ => return None,
    })
}

fn vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y')
}

/// A `y` at the start or after a vowel is a consonant: `Y`.
fn mark_consonant_ys(w: &mut [u8]) {
    for i in 0..w.len() {
        if w[i] == b'y' && (i == 0 || vowel(w[i - 1])) {
            w[i] = b'Y';
        }
    }
}

/// Where R1 starts: after the first non-vowel that follows a vowel (after `gener`, `commun`,
/// `arsen`, `past`, `univers`, `later`, `emerg`, `organ` and `inter` when the word starts so).
fn region1(w: &[u8]) -> usize {
    for prefix in [
        "gener", "commun", "arsen", "past", "univers", "later", "emerg", "organ", "inter",
    ] {
        if w.starts_with(prefix.as_bytes()) {
            return prefix.len();
        }
    }
    region_after(w, 0)
}

/// The region after the first non-vowel following a vowel, from `from` on.
fn region_after(w: &[u8], from: usize) -> usize {
    (from + 1..w.len())
        .find(|&i| !vowel(w[i]) && vowel(w[i - 1]))
        .map_or(w.len(), |i| i + 1)
}

fn ends(w: &[u8], suffix: &str) -> bool {
    w.ends_with(suffix.as_bytes())
}

fn replace(w: &mut Vec<u8>, suffix: &str, with: &str) {
    w.truncate(w.len() - suffix.len());
    w.extend_from_slice(with.as_bytes());
}

/// The longest of `suffixes` that `w` ends with.
fn longest<'a>(w: &[u8], suffixes: &[&'a str]) -> Option<&'a str> {
    suffixes
        .iter()
        .filter(|s| ends(w, s))
        .max_by_key(|s| s.len())
        .copied()
}

/// A short syllable ends at `end` (exclusive): consonant, vowel, consonant but w, x or Y; or a
/// vowel then a consonant at the very start; or `past` (pasted, pasting).
fn short_syllable_at(w: &[u8], end: usize) -> bool {
    if w[..end].ends_with(b"past") {
        return true;
    }
    match end {
        2 => vowel(w[0]) && !vowel(w[1]),
        n if n >= 3 => {
            !vowel(w[n - 3]) && vowel(w[n - 2]) && !vowel(w[n - 1]) && !b"wxY".contains(&w[n - 1])
        }
        _ => false,
    }
}

fn step0(w: &mut Vec<u8>) {
    if let Some(s) = longest(w, &["'s'", "'s", "'"]) {
        replace(w, s, "");
    }
}

/// Plurals.
fn step1a(w: &mut Vec<u8>) {
    match longest(w, &["sses", "ied", "ies", "us", "ss", "s"]) {
        Some("sses") => replace(w, "sses", "ss"),
        Some(s @ ("ied" | "ies")) => {
            let with = if w.len() > 4 { "i" } else { "ie" };
            replace(w, s, with);
        }
        Some("s") => {
            let before = &w[..w.len() - 1];
            if before.len() >= 2 && before[..before.len() - 1].iter().any(|&b| vowel(b)) {
                w.pop();
            }
        }
        _ => {}
    }
}

/// `-eed`, `-ed`, `-ing` and their `-ly` forms.
fn step1b(w: &mut Vec<u8>, r1: usize) {
    let Some(found) = longest(w, &["eedly", "eed", "ingly", "edly", "ing", "ed"]) else {
        return;
    };
    let stem_len = w.len() - found.len();
    if found == "eed" || found == "eedly" {
        let left_alone = ["proc", "exc", "succ"]
            .iter()
            .any(|s| w[..stem_len] == *s.as_bytes());
        if stem_len >= r1 && !left_alone {
            replace(w, found, "ee");
        }
        return;
    }
    if found == "ing" {
        let stem = &w[..stem_len];
        // dying, lying, tying, vying: a lone consonant and `y`.
        if stem.len() == 2 && stem[1] == b'y' && !vowel(stem[0]) {
            w.truncate(1);
            w.extend_from_slice(b"ie");
            return;
        }
        if ["inn", "out", "cann", "herr", "earr", "even"]
            .iter()
            .any(|s| stem == s.as_bytes())
        {
            return;
        }
    }
    if !w[..stem_len].iter().any(|&b| vowel(b)) {
        return;
    }
    w.truncate(stem_len);
    if ends(w, "at") || ends(w, "bl") || ends(w, "iz") {
        w.push(b'e');
        return;
    }
    let n = w.len();
    if n >= 2 && w[n - 1] == w[n - 2] && b"bdfgmnprt".contains(&w[n - 1]) {
        // Not after a lone a, e or o at the start (add, ebb, err).
        if !(n == 3 && b"aeo".contains(&w[0])) {
            w.pop();
        }
    } else if r1 == n && short_syllable_at(w, n) {
        w.push(b'e');
    }
}

fn step1c(w: &mut [u8]) {
    let n = w.len();
    if n > 2 && (w[n - 1] == b'y' || w[n - 1] == b'Y') && !vowel(w[n - 2]) {
        w[n - 1] = b'i';
    }
}

fn step2(w: &mut Vec<u8>, r1: usize) {
    const RULES: &[(&str, &str)] = &[
        ("ational", "ate"),
        ("tional", "tion"),
        ("enci", "ence"),
        ("anci", "ance"),
        ("abli", "able"),
        ("entli", "ent"),
        ("izer", "ize"),
        ("ization", "ize"),
        ("ation", "ate"),
        ("ator", "ate"),
        ("alism", "al"),
        ("aliti", "al"),
        ("alli", "al"),
        ("fulness", "ful"),
        ("ousli", "ous"),
        ("ousness", "ous"),
        ("iveness", "ive"),
        ("iviti", "ive"),
        ("biliti", "ble"),
        ("bli", "ble"),
        ("ogist", "og"),
        ("ogi", "og"),
        ("fulli", "ful"),
        ("lessli", "less"),
        ("li", ""),
    ];
    let suffixes: Vec<&str> = RULES.iter().map(|(s, _)| *s).collect();
    let Some(found) = longest(w, &suffixes) else {
        return;
    };
    if w.len() - found.len() < r1 {
        return;
    }
    let before = w.len() - found.len();
    match found {
        "ogi" if before == 0 || w[before - 1] != b'l' => {}
        "li" if before == 0 || !b"cdeghkmnrt".contains(&w[before - 1]) => {}
        _ => {
            let with = RULES.iter().find(|(s, _)| *s == found).map_or("", |r| r.1);
            replace(w, found, with);
        }
    }
}

fn step3(w: &mut Vec<u8>, r1: usize, r2: usize) {
    const RULES: &[(&str, &str)] = &[
        ("tional", "tion"),
        ("ational", "ate"),
        ("alize", "al"),
        ("icate", "ic"),
        ("iciti", "ic"),
        ("ical", "ic"),
        ("ful", ""),
        ("ness", ""),
        ("ative", ""),
    ];
    let suffixes: Vec<&str> = RULES.iter().map(|(s, _)| *s).collect();
    let Some(found) = longest(w, &suffixes) else {
        return;
    };
    let before = w.len() - found.len();
    if before < r1 || (found == "ative" && before < r2) {
        return;
    }
    let with = RULES.iter().find(|(s, _)| *s == found).map_or("", |r| r.1);
    replace(w, found, with);
}

fn step4(w: &mut Vec<u8>, r2: usize) {
    let suffixes = [
        "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ism",
        "ate", "iti", "ous", "ive", "ize", "ion",
    ];
    let Some(found) = longest(w, &suffixes) else {
        return;
    };
    let before = w.len() - found.len();
    if before < r2 {
        return;
    }
    if found == "ion" && !(before > 0 && matches!(w[before - 1], b's' | b't')) {
        return;
    }
    replace(w, found, "");
}

fn step5(w: &mut Vec<u8>, r1: usize, r2: usize) {
    let n = w.len();
    if ends(w, "e") {
        let before = n - 1;
        if before >= r2 || (before >= r1 && !short_syllable_at(w, before)) {
            w.pop();
        }
    } else if ends(w, "l") && n > r2 && n >= 2 && w[n - 2] == b'l' {
        w.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_people_ask_with_stem_together() {
        for (words, stemmed) in [
            (&["save", "saved", "saves", "saving"][..], "save"),
            (&["notify", "notifies", "notified"][..], "notifi"),
            (&["meeting", "meetings"][..], "meet"),
            (&["reminder", "reminders"][..], "remind"),
            (&["directions", "direction"][..], "direct"),
        ] {
            for word in words {
                assert_eq!(stem(word), stemmed, "{word}");
            }
        }
        assert_eq!(stem("é"), "é");
        assert_eq!(stem("5pm"), "5pm");
    }

    /// The Snowball project's English test vocabulary, a sample of it (tests/fixtures/stem):
    /// every word stems as the project's own implementation stems it.
    #[test]
    fn snowballs_vocabulary_stems_as_snowball_stems_it() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/stem/english.tsv"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let mut wrong = Vec::new();
        let mut count = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (word, expected) = line.split_once('\t').unwrap();
            count += 1;
            if stem(word) != expected {
                wrong.push(format!("{word}: {} (Snowball: {expected})", stem(word)));
            }
        }
        assert!(count > 10_000, "{count}");
        assert!(
            wrong.is_empty(),
            "{} of {count} differ:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }
}
