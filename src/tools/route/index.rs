//! Lexical retrieval over what each tool family is (its words, what it is for, its tools'
//! names, descriptions and parameters, the requests that ask for it): BM25, the ranking
//! function search engines start from, on English stems with the little words left out. A
//! message's families are the ones it ranks high enough.

use std::borrow::Cow;
use std::collections::HashMap;

use super::terms::terms_of;

/// BM25's saturation: how fast more of the same word stops counting.
const K1: f64 = 1.2;
/// BM25's length normalisation: how much a long document is discounted.
const B: f64 = 0.75;

/// A family as retrieval sees it: its weighted terms, sorted.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) id: Cow<'static, str>,
    pub(super) terms: Terms,
    pub(super) length: f64,
}

/// A family's terms with their weights, sorted by term: the built-in families' made when
/// Marvin was built (`built.rs`), the others' (a project, an MCP server, a person's tools)
/// made when asked.
#[derive(Debug, Clone)]
pub(crate) enum Terms {
    /// The terms run together in `text`, the i-th ending at `ends[i]` and weighing
    /// `tenths[i]` / 10: a few bytes a term where a table of strings and floats takes 24.
    Built {
        text: &'static str,
        ends: &'static [u16],
        tenths: &'static [u16],
    },
    Made(Vec<(String, f64)>),
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
        let mut terms: Vec<(String, f64)> = terms.into_iter().collect();
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        Self {
            id: Cow::Owned(id.to_string()),
            terms: Terms::Made(terms),
            length,
        }
    }

    /// The weight of `term` (a stem, as `terms_of` gives it) in the family, if it holds it.
    pub(crate) fn weight(&self, term: &str) -> Option<f64> {
        let (mut low, mut high) = (0, self.count());
        while low < high {
            let middle = (low + high) / 2;
            let (known, weight) = self.term(middle);
            match known.cmp(term) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(weight),
            }
        }
        None
    }

    /// How many terms the family has.
    fn count(&self) -> usize {
        match &self.terms {
            Terms::Built { ends, .. } => ends.len(),
            Terms::Made(terms) => terms.len(),
        }
    }

    /// The `i`-th term, with its weight.
    fn term(&self, i: usize) -> (&str, f64) {
        match &self.terms {
            Terms::Built { text, ends, tenths } => {
                let start = if i == 0 { 0 } else { ends[i - 1] as usize };
                (&text[start..ends[i] as usize], f64::from(tenths[i]) / 10.0)
            }
            Terms::Made(terms) => (&terms[i].0, terms[i].1),
        }
    }

    /// Whether the family holds `term`.
    pub(crate) fn holds(&self, term: &str) -> bool {
        self.weight(term).is_some()
    }

    /// Its terms with their weights, in order.
    pub(crate) fn terms(&self) -> impl Iterator<Item = (&str, f64)> {
        (0..self.count()).map(|i| self.term(i))
    }

    pub(crate) fn length(&self) -> f64 {
        self.length
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
    let average = entries.iter().map(|e| e.length()).sum::<f64>() / count;
    let idf: Vec<f64> = query_terms
        .iter()
        .map(|term| {
            let holding = entries.iter().filter(|e| e.holds(term)).count() as f64;
            ln((count - holding + 0.5) / (holding + 0.5) + 1.0)
        })
        .collect();
    let mut ranked: Vec<(&'a str, f64)> = entries
        .iter()
        .filter_map(|entry| {
            let score: f64 = query_terms
                .iter()
                .zip(&idf)
                .filter_map(|(term, idf)| {
                    let tf = entry.weight(term)?;
                    let norm = K1 * (1.0 - B + B * entry.length() / average.max(1.0));
                    Some(idf * tf * (K1 + 1.0) / (tf + norm))
                })
                .sum();
            (score > 0.0).then_some((entry.id.as_ref(), score))
        })
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked
}

/// The natural logarithm of `x` (> 0) to about 1e-15, without the C library's `log`: the
/// binary would otherwise link libm for this one call. `x` = m·2^e with m in [1, 2), and
/// ln m = 2·atanh((m − 1)/(m + 1)), whose series converges fast for that argument (≤ 1/3).
fn ln(x: f64) -> f64 {
    debug_assert!(x > 0.0 && x.is_finite());
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mantissa = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    let s = (mantissa - 1.0) / (mantissa + 1.0);
    let square = s * s;
    let (mut term, mut sum) = (s, 0.0);
    for odd in (1..40).step_by(2) {
        sum += term / f64::from(odd);
        term *= square;
    }
    exponent as f64 * std::f64::consts::LN_2 + 2.0 * sum
}

/// `term`, or the one word of the families' a letter away from it when no family has it and it
/// is long enough to be a slip of the keys ("wether" is "weather"); a word two families'
/// words are a letter away from stays as it is.
fn mended(term: String, entries: &[&Entry]) -> String {
    if term.len() < 6 || entries.iter().any(|e| e.holds(&term)) {
        return term;
    }
    let mut near: Vec<String> = entries
        .iter()
        .flat_map(|e| e.terms())
        .map(|(known, _)| known)
        .filter(|known| {
            known.len().abs_diff(term.len()) <= 1
                && crate::edit_distance::edit_distance(known, &term) == 1
        })
        .map(str::to_string)
        .collect();
    near.sort();
    near.dedup();
    match near.as_slice() {
        [one] => one.clone(),
        _ => term,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_logarithm_agrees_with_the_c_librarys() {
        for x in [
            1.0,
            1.5,
            2.0,
            std::f64::consts::E,
            3.0,
            7.25,
            100.0,
            1e6,
            123456.789,
            1e300,
        ] {
            let (ours, libm) = (ln(x), x.ln());
            assert!(
                (ours - libm).abs() <= 1e-14 * libm.abs().max(1.0),
                "{x}: {ours} {libm}"
            );
        }
    }

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
}
