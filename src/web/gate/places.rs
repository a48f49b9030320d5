//! Who holds a place at the gate. A connection waits among the strangers until it has shown a
//! whole head that passes the server's checks (its token above all): a few at once, the oldest
//! let go when another comes, so idle or half-sent connections cost a stranger only other
//! strangers' places. A connection that has shown one takes one of the server's own places,
//! which strangers can never hold.

use std::collections::VecDeque;
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Connections waiting at once before they have shown a head with the token.
pub(super) const STRANGERS: usize = 16;

pub(super) struct Places {
    /// The strangers, oldest first: a number each and the connection, to let it go.
    strangers: Mutex<Waiting>,
    /// The server's own places taken.
    served: AtomicUsize,
    /// How many the server has.
    limit: usize,
}

#[derive(Default)]
struct Waiting {
    next: u64,
    queue: VecDeque<(u64, TcpStream)>,
}

/// The place a connection holds, given back when this is dropped.
pub(super) struct Place {
    places: Arc<Places>,
    held: Held,
}

enum Held {
    /// Among the strangers, by its number.
    Waiting(u64),
    /// One of the server's own.
    Seat,
    /// None: the connection was refused one of the server's.
    Turned(NoSeat),
}

/// Why a stranger gets no place of the server's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum NoSeat {
    /// It was let go for a newer stranger (its connection is shut already).
    LetGo,
    /// The server's places are all taken.
    Full,
}

impl Places {
    /// `limit` places of the server's own, and room for [`STRANGERS`] strangers.
    pub(super) fn new(limit: usize) -> Arc<Places> {
        Arc::new(Places {
            strangers: Mutex::new(Waiting::default()),
            served: AtomicUsize::new(0),
            limit,
        })
    }

    /// Lets `client` wait among the strangers; when they are [`STRANGERS`] already, the oldest
    /// is let go: its connection is shut, which ends whatever its thread was reading.
    pub(super) fn enter(self: &Arc<Self>, client: &TcpStream) -> std::io::Result<Place> {
        let handle = client.try_clone()?;
        let mut waiting = self.waiting();
        while waiting.queue.len() >= STRANGERS {
            if let Some((_, oldest)) = waiting.queue.pop_front() {
                let _ = oldest.shutdown(Shutdown::Both);
            }
        }
        let number = waiting.next;
        waiting.next += 1;
        waiting.queue.push_back((number, handle));
        Ok(Place {
            places: Arc::clone(self),
            held: Held::Waiting(number),
        })
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.strangers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Stranger `number` out of the queue and into one of the server's places.
    fn seat(&self, number: u64) -> Result<(), NoSeat> {
        if !self.leave(number) {
            return Err(NoSeat::LetGo);
        }
        if self.served.fetch_add(1, Ordering::SeqCst) >= self.limit {
            self.served.fetch_sub(1, Ordering::SeqCst);
            return Err(NoSeat::Full);
        }
        Ok(())
    }

    /// Takes stranger `number` out of the queue; false when it was let go already.
    fn leave(&self, number: u64) -> bool {
        let mut waiting = self.waiting();
        let at = waiting.queue.iter().position(|(n, _)| *n == number);
        at.and_then(|at| waiting.queue.remove(at)).is_some()
    }
}

impl Place {
    /// Trades the place among the strangers for one of the server's own, for a connection that
    /// has shown a head passing the server's checks (asked again, the same answer). On `Err`
    /// the connection holds no place.
    pub(super) fn take_seat(&mut self) -> Result<(), NoSeat> {
        let number = match self.held {
            Held::Waiting(number) => number,
            Held::Seat => return Ok(()),
            Held::Turned(why) => return Err(why),
        };
        let taken = self.places.seat(number);
        self.held = match taken {
            Ok(()) => Held::Seat,
            Err(why) => Held::Turned(why),
        };
        taken
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        match self.held {
            Held::Waiting(number) => {
                self.places.leave(number);
            }
            Held::Seat => {
                self.places.served.fetch_sub(1, Ordering::SeqCst);
            }
            Held::Turned(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;
    use std::time::Duration;

    /// A connected pair: the client's end and the server's.
    fn pair(listener: &TcpListener) -> (TcpStream, TcpStream) {
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        (client, server)
    }

    /// Whether the server let the client's connection go: its end reads the close.
    fn let_go(client: &mut TcpStream) -> bool {
        client
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        matches!(client.read(&mut [0u8; 1]), Ok(0))
    }

    /// Whether the client's connection is open still: nothing to read, not even a close.
    fn open(client: &mut TcpStream) -> bool {
        client.set_nonblocking(true).unwrap();
        let open = matches!(client.read(&mut [0u8; 1]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
        client.set_nonblocking(false).unwrap();
        open
    }

    #[test]
    fn the_oldest_stranger_is_let_go_for_a_new_one_and_the_served_never_are() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let places = Places::new(2);
        let mut clients = Vec::new();
        let mut strangers = Vec::new();
        for _ in 0..STRANGERS {
            let (client, server) = pair(&listener);
            strangers.push(places.enter(&server).unwrap());
            clients.push((client, server));
        }
        // The second shows its head and is served: the place it leaves is taken by no one.
        let mut seated = strangers.remove(1);
        seated.take_seat().unwrap();
        let (mut client, server) = pair(&listener);
        let mut newest = places.enter(&server).unwrap();
        assert!(open(&mut clients[0].0), "a place was free");
        // One more: now the oldest goes.
        let (_, server) = pair(&listener);
        let _newer = places.enter(&server).unwrap();
        assert!(let_go(&mut clients[0].0), "the oldest is let go");
        assert!(open(&mut clients[1].0), "the served one stays");
        assert!(open(&mut client));
        assert_eq!(strangers[0].take_seat(), Err(NoSeat::LetGo));
        assert_eq!(strangers[0].take_seat(), Err(NoSeat::LetGo), "asked again");
        // Two places of the server's: the third that shows its head is told they are taken.
        newest.take_seat().unwrap();
        newest.take_seat().unwrap();
        assert_eq!(strangers[1].take_seat(), Err(NoSeat::Full));
        drop(seated);
        assert_eq!(strangers[2].take_seat(), Ok(()));
    }
}
