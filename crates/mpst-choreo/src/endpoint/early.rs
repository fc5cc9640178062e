//! Envelopes that arrive before their session starts at this endpoint: held apart, by
//! session, until it starts, so that a session's end clears its own keys without
//! sifting through the envelopes of the sessions that run after it (a role that runs
//! ahead, such as a source that only sends, fills its peers' mailboxes with those).

use std::collections::hash_map::Entry;

use tokio::time::Instant;

use super::mailbox::{Bounds, Mailbox, Slot};
use super::session_of;
use crate::key::Key;
use crate::transport::Envelope;

/// Emptied vectors kept for later sessions' early envelopes.
const SPARE: usize = 16;
/// Vectors larger than this are not kept (a hostile peer can fill one session's vector up
/// to the unclaimed bound; that memory is not held after the session starts).
const SPARE_CAPACITY: usize = 16;

impl Mailbox {
    /// Holds `env`, of session `n` that has not started here, unclaimed until `n` starts
    /// (bounded with every other unclaimed envelope).
    pub(crate) fn file_early(&mut self, n: u64, env: Envelope, bounds: Bounds) {
        let now = Instant::now();
        let number = (self.unclaimed).hold(&env.from, &env.key, env.payload.len(), now);
        let spare = &mut self.spare_early;
        let held = self.early.entry(n);
        held.or_insert_with(|| spare.pop().unwrap_or_default())
            .push((env, number));
        self.early_held += 1;
        self.expire(bounds, now);
    }

    /// Session `n` starts: files the envelopes held for it into the slots, in arrival
    /// order (a second one of the same sender and key is a duplicate, refused).
    pub(crate) fn start_early(&mut self, n: u64) {
        let Some(mut held) = self.early.remove(&n) else {
            return;
        };
        self.early_held -= held.len();
        for (env, number) in held.drain(..) {
            let duplicate = match self.slots.entry(env.key.clone()) {
                Entry::Vacant(slot) => {
                    slot.insert((env.from.clone(), Slot::Arrived(env, number)));
                    false
                }
                Entry::Occupied(filed) if filed.get().0 == env.from => true,
                Entry::Occupied(_) => {
                    match self.strays.entry((env.from.clone(), env.key.clone())) {
                        Entry::Vacant(slot) => {
                            slot.insert((env, number));
                            false
                        }
                        Entry::Occupied(_) => true,
                    }
                }
            };
            if duplicate {
                self.stats.duplicates_refused += 1;
                self.release(number);
            }
        }
        if self.spare_early.len() < SPARE && held.capacity() <= SPARE_CAPACITY {
            self.spare_early.push(held);
        }
    }

    /// Drops unclaimed envelope `number`, filed under `key`, if it is held for a session
    /// that has not started; whether it was.
    pub(crate) fn drop_early(&mut self, key: &Key, number: u64) -> bool {
        let Some(n) = session_of(key) else {
            return false;
        };
        let Entry::Occupied(mut held) = self.early.entry(n) else {
            return false;
        };
        let Some(at) = held.get().iter().position(|(_, m)| *m == number) else {
            return false;
        };
        held.get_mut().remove(at);
        if held.get().is_empty() {
            held.remove();
        }
        self.early_held -= 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::Pending;
    use super::*;
    use crate::key::{Site, Token};
    use crate::role::RoleName;

    const BOUNDS: Bounds = Bounds {
        count: 10,
        bytes: 1000,
        age: Duration::from_secs(10),
    };

    fn env(session: u64, site: u64) -> Envelope {
        Envelope {
            from: RoleName::from("A"),
            to: RoleName::from("B"),
            key: Key::new(Site::from_id(site), Token::session(session)),
            payload: vec![0; 10],
        }
    }

    #[test]
    fn a_later_sessions_envelopes_wait_apart_and_are_claimed_once_it_starts() {
        let mut mailbox = Mailbox::default();
        let ours = |n| move |key: &Key| session_of(key) == Some(n);
        assert!(mailbox.numbers.start(0));
        mailbox.file_early(1, env(1, 1), BOUNDS);
        mailbox.file_early(1, env(1, 1), BOUNDS);
        mailbox.file_early(2, env(2, 1), BOUNDS);
        assert!(mailbox.file(env(0, 1), BOUNDS).is_ok());
        let a = RoleName::from("A");
        let claimed = mailbox.claim_slot(&a, &env(0, 1).key, Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(Pending::Ready(_))));
        // Session 0 ends alone with only later sessions' envelopes held: nothing sifted.
        mailbox.finish(0, ours(0));
        assert!(mailbox.slots.is_empty());
        assert_eq!((mailbox.early_held, mailbox.unclaimed.len()), (3, 3));
        assert!(mailbox.numbers.start(1));
        mailbox.start_early(1);
        assert_eq!(mailbox.stats.duplicates_refused, 1, "the second copy");
        assert_eq!((mailbox.early_held, mailbox.unclaimed.len()), (1, 2));
        let claimed = mailbox.claim_slot(&a, &env(1, 1).key, Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(Pending::Ready(_))));
        // Session 2's envelope expires where it waits.
        mailbox.expire(BOUNDS, Instant::now() + Duration::from_secs(11));
        assert_eq!((mailbox.early_held, mailbox.unclaimed.len()), (0, 0));
        assert!(mailbox.early.is_empty());
        assert_eq!(mailbox.stats.unclaimed_dropped, 1);
        assert_eq!(mailbox.unclaimed.bytes, 0);
    }

    #[test]
    fn envelopes_held_early_count_against_the_bounds() {
        let mut mailbox = Mailbox::default();
        let three = Bounds { count: 3, ..BOUNDS };
        for n in 1..=5 {
            mailbox.file_early(n, env(n, 1), three);
        }
        assert_eq!((mailbox.early_held, mailbox.unclaimed.len()), (3, 3));
        assert_eq!(mailbox.stats.unclaimed_dropped, 2);
        assert!(!mailbox.early.contains_key(&1) && mailbox.early.contains_key(&3));
    }
}
