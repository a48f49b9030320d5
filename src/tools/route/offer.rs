//! The families a session's requests offer beyond the core, in the order they were first
//! needed (a message asked for them, `find_tools` loaded them, or the model called one of
//! their tools). They stay for the rest of the session and are never reordered, so each
//! request starts with the same tools as the one before (providers cache that prefix).

use std::sync::{Mutex, PoisonError};

/// A family offered, and what brought it in (a word of the message, `find_tools`, a call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    pub family: String,
    pub why: String,
}

/// The session's families, in the order they came.
#[derive(Debug, Default)]
pub struct Offer(Mutex<Vec<Loaded>>);

impl Offer {
    /// Offers `family` from the next request on; false when it already was.
    pub fn load(&self, family: &str, why: &str) -> bool {
        let mut loaded = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if family.is_empty() || loaded.iter().any(|l| l.family == family) {
            return false;
        }
        loaded.push(Loaded {
            family: family.to_string(),
            why: why.to_string(),
        });
        true
    }

    /// The families offered, oldest first.
    pub fn families(&self) -> Vec<Loaded> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many there are: it only grows, so a new count means new tools.
    pub fn count(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_kept_once_in_the_order_they_came() {
        let offer = Offer::default();
        assert!(offer.load("weather", "rain"));
        assert!(offer.load("calendar", "meeting"));
        assert!(!offer.load("weather", "forecast"));
        assert!(!offer.load("", "nothing"));
        let families: Vec<(String, String)> = offer
            .families()
            .into_iter()
            .map(|l| (l.family, l.why))
            .collect();
        assert_eq!(
            families,
            [
                ("weather".to_string(), "rain".to_string()),
                ("calendar".to_string(), "meeting".to_string())
            ]
        );
        assert_eq!(offer.count(), 2);
    }
}
