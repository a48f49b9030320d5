//! The families a session's requests offer beyond the core, in the order they were first
//! needed (a message asked for them, `find_tools` loaded them, or the model called one of
//! their tools). They are never reordered, so each request starts with the same tools as the
//! one before (providers cache that prefix). A family the session has not used for a while
//! leaves, but only in a batch, and only once the session holds many: a request then starts
//! differently once, rarely, instead of growing with every topic the session ever touched.

use std::sync::{Mutex, PoisonError};

/// The most families a session holds before the ones it has not used for a while leave.
pub(crate) const KEEP: usize = 6;

/// Turns (messages of the person) without use after which a family may leave.
pub(crate) const IDLE: u64 = 2;

/// A family offered, and what brought it in (a word of the message, `find_tools`, a call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    pub family: String,
    pub why: String,
}

#[derive(Debug, Default)]
struct State {
    /// The families, oldest first, each with the turn it was last used in.
    loaded: Vec<(Loaded, u64)>,
    turn: u64,
    /// Changes with every family that comes or goes.
    version: u64,
}

impl State {
    /// Every family whose last use does not pass `stays` leaves, at once; the ones that left.
    fn leave_unless(&mut self, stays: impl Fn(u64) -> bool) -> Vec<String> {
        let (stay, leave): (Vec<_>, Vec<_>) = std::mem::take(&mut self.loaded)
            .into_iter()
            .partition(|(_, used)| stays(*used));
        self.loaded = stay;
        if !leave.is_empty() {
            self.version += 1;
        }
        leave.into_iter().map(|(l, _)| l.family).collect()
    }
}

/// The session's families, in the order they came.
#[derive(Debug, Default)]
pub struct Offer(Mutex<State>);

impl Offer {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Offers `family` from the next request on (false when it already was: it is then only
    /// marked used in this turn).
    pub fn load(&self, family: &str, why: &str) -> bool {
        if family.is_empty() {
            return false;
        }
        let mut state = self.state();
        let turn = state.turn;
        if let Some((_, used)) = state.loaded.iter_mut().find(|(l, _)| l.family == family) {
            *used = turn;
            return false;
        }
        state.loaded.push((
            Loaded {
                family: family.to_string(),
                why: why.to_string(),
            },
            turn,
        ));
        state.version += 1;
        true
    }

    /// A new message of the person: when the session holds more than [`KEEP`] families,
    /// every one not used in the last [`IDLE`] turns leaves, all at once. The ones that left.
    pub fn next_turn(&self) -> Vec<String> {
        let mut state = self.state();
        state.turn += 1;
        if state.loaded.len() <= KEEP {
            return Vec::new();
        }
        let turn = state.turn;
        state.leave_unless(|used| turn - used <= IDLE)
    }

    /// Every family not used in this turn leaves, at once: the request has grown past what a
    /// request should carry. The ones that left.
    pub fn keep_this_turn_only(&self) -> Vec<String> {
        let mut state = self.state();
        let turn = state.turn;
        state.leave_unless(|used| used == turn)
    }

    /// The families offered, oldest first.
    pub fn families(&self) -> Vec<Loaded> {
        self.state().loaded.iter().map(|(l, _)| l.clone()).collect()
    }

    /// Changes whenever a family comes or goes: the tools offered are made again then.
    pub fn version(&self) -> u64 {
        self.state().version
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(offer: &Offer) -> Vec<String> {
        offer.families().into_iter().map(|l| l.family).collect()
    }

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
        assert_eq!(offer.version(), 2);
    }

    #[test]
    fn families_idle_for_a_while_leave_in_one_batch_once_there_are_many() {
        let offer = Offer::default();
        // Few families: none leaves, however long they wait.
        offer.load("weather", "rain");
        for _ in 0..5 {
            assert!(offer.next_turn().is_empty());
        }
        // Ten topics, one a turn; the weather is asked about again on the way.
        let mut batches = Vec::new();
        let mut most = 0;
        for topic in 1..=10 {
            let left = offer.next_turn();
            if !left.is_empty() {
                batches.push(left);
            }
            offer.load(&format!("topic{topic}"), "asked");
            if topic == 6 {
                offer.load("weather", "rain again");
            }
            most = most.max(offer.families().len());
        }
        assert_eq!(batches, [["topic1", "topic2", "topic3", "topic4"]]);
        assert_eq!(
            ids(&offer),
            [
                "weather", "topic5", "topic6", "topic7", "topic8", "topic9", "topic10"
            ]
        );
        assert!(most <= KEEP + 1, "{most}");
    }
}
