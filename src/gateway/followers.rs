//! Who follows a served session: each client by the id it gives, with its open event streams
//! and whether it answers questions (seed 003's interactive mode, on unless switched off). A
//! client that switched it off only watches; when no connected client answers, the reason
//! says which of the two it is.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

#[derive(Default)]
pub(crate) struct Followers {
    clients: Mutex<HashMap<String, Client>>,
}

#[derive(Clone, Copy)]
struct Client {
    streams: usize,
    interactive: bool,
}

/// Holds a client's place while its event stream is open.
pub(crate) struct Following<'a> {
    followers: &'a Followers,
    client: String,
}

impl Drop for Following<'_> {
    fn drop(&mut self) {
        let mut clients = self.followers.lock();
        if let Some(client) = clients.get_mut(&self.client) {
            client.streams = client.streams.saturating_sub(1);
        }
    }
}

impl Followers {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Client>> {
        self.clients.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Client `id` follows while the returned guard lives.
    pub(crate) fn follow(&self, id: &str) -> Following<'_> {
        let mut clients = self.lock();
        let client = clients.entry(id.to_string()).or_insert(Client {
            streams: 0,
            interactive: true,
        });
        client.streams += 1;
        Following {
            followers: self,
            client: id.to_string(),
        }
    }

    /// Switches client `id`'s interactive mode; says how many connected clients answer now.
    pub(crate) fn set_interactive(&self, id: &str, on: bool) -> usize {
        let mut clients = self.lock();
        clients
            .entry(id.to_string())
            .or_insert(Client {
                streams: 0,
                interactive: on,
            })
            .interactive = on;
        answering(&clients)
    }

    /// Whether client `id` switched its interactive mode off (seed 003: a disabled client
    /// sees the questions read-only, and its answers are not taken).
    pub(crate) fn watches_only(&self, id: &str) -> bool {
        self.lock()
            .get(id)
            .is_some_and(|client| !client.interactive)
    }

    /// Why no connected client answers questions, in the words the model hears; none when
    /// one does.
    pub(crate) fn why_nobody_answers(&self) -> Option<&'static str> {
        let clients = self.lock();
        if answering(&clients) > 0 {
            return None;
        }
        Some(match clients.values().any(|c| c.streams > 0) {
            true => "every client connected to the gateway switched its interactive mode off",
            false => "no client is connected to the gateway",
        })
    }
}

/// How many connected clients answer questions.
fn answering(clients: &HashMap<String, Client>) -> usize {
    clients
        .values()
        .filter(|c| c.streams > 0 && c.interactive)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_connected_interactive_clients_answer_and_the_reason_says_who_is_missing() {
        let followers = Followers::default();
        assert_eq!(
            followers.why_nobody_answers(),
            Some("no client is connected to the gateway")
        );
        // Switched off before it connects: it watches, and nobody answers.
        assert_eq!(followers.set_interactive("phone", false), 0);
        let phone = followers.follow("phone");
        assert!(followers.watches_only("phone"));
        assert_eq!(
            followers.why_nobody_answers(),
            Some("every client connected to the gateway switched its interactive mode off")
        );
        let desk = followers.follow("desk");
        assert!(!followers.watches_only("desk") && !followers.watches_only("stranger"));
        assert_eq!(followers.why_nobody_answers(), None);
        assert_eq!(followers.set_interactive("phone", true), 2);
        drop(desk);
        drop(phone);
        assert_eq!(
            followers.why_nobody_answers(),
            Some("no client is connected to the gateway")
        );
    }
}
