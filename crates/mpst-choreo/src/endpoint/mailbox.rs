//! An endpoint's mailbox: a table by integrity key per session (`session.rs`), whose
//! slot holds its sender and either the envelope that arrived or the receive that waits
//! for it (one look-up per delivery and per claim), and the bounds on what nobody has
//! claimed (a count, a byte total and an age), so that messages for sessions that never
//! start cannot hold memory forever.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use super::cells::{CellId, Cells};
use super::numbers::Numbers;
use super::session::{Session, Sessions};
use super::unclaimed::Unclaimed;
use super::{EndpointStats, session_of};
use crate::key::Key;
use crate::role::RoleName;
use crate::transport::Envelope;

/// Whether a mailbox still lets receives wait (one byte: it sits in the mailbox beside
/// the tables the delivery path reads).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Closed {
    /// Receives may wait.
    #[default]
    Open,
    /// The incoming stream ended, or the endpoint's task stopped after it had slept (its
    /// runtime shut down): receives fail with [`Gone::Closed`].
    Stream,
    /// The task that times receives out stopped: they fail with [`Gone::NoTimer`].
    NoTimer,
}

impl Closed {
    /// How a receive that would wait fails, if it does.
    pub(crate) fn gone(self) -> Option<Gone> {
        match self {
            Closed::Open => None,
            Closed::Stream => Some(Gone::Closed),
            Closed::NoTimer => Some(Gone::NoTimer),
        }
    }
}

/// Why a waiting receive ends without its envelope.
#[derive(Debug, Clone)]
pub(crate) enum Gone {
    /// The endpoint's incoming stream ended.
    Closed,
    /// The endpoint's task, which times receives out, stopped before its first sleep
    /// (its runtime has no timer).
    NoTimer,
    /// The transport lost the expected sender; the transport error's text.
    Lost(String),
    /// The receive waited [`crate::EndpointConfig::recv_timeout`] in vain.
    TimedOut,
}

/// The mailbox's hasher: aHash, keyed at random per process. Several tables are filed
/// by keys that a peer chooses (unclaimed envelopes), so the hash must stay keyed, as
/// SipHash is, against flooding with colliding keys; aHash is keyed and costs a fraction
/// of SipHash-1-3 on the short keys here (an unkeyed hash such as FxHash would not do).
pub(crate) type Hasher = ahash::RandomState;
/// A hash map with the mailbox's [`Hasher`].
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, Hasher>;
/// A hash set with the mailbox's [`Hasher`].
pub(crate) type HashSet<K> = std::collections::HashSet<K, Hasher>;

pub(crate) enum Slot {
    /// Filed before anyone claimed it: the envelope's payload (its sender and key are
    /// the slot's) and its number in `unclaimed`.
    Arrived(Vec<u8>, u64),
    /// Claimed by a receive that waits for it in this cell. Once that cell is settled
    /// otherwise (the receive timed out) or freed (the receive was dropped while it
    /// waited), a delivery is late, and dropped without a count.
    Waiting(CellId),
    /// Taken: a later delivery of this key is a duplicate.
    Consumed,
}

/// An envelope's sender and key: where an unclaimed one is recorded. The slot of a key
/// names one sender; an envelope for a key whose slot holds an unclaimed envelope of
/// another sender is kept apart ([`Session::strays`]), so an envelope that names the
/// wrong sender never takes the slot of the right one.
pub(crate) type Address = (RoleName, Key);

/// A key's slot: the sender it is filed for (the sender its receive claimed, or else the
/// sender of the envelope that arrived first) and its state.
pub(crate) type Filed = (RoleName, Slot);

/// Bounds on unclaimed envelopes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    pub(crate) count: usize,
    pub(crate) bytes: usize,
    pub(crate) age: Duration,
}

#[derive(Default)]
pub(crate) struct Mailbox {
    /// The keys of each session (`session.rs`): its slots (delivered, claimed by a
    /// receive, or held unclaimed) and its strays. Envelopes of
    /// sessions not started here are filed into their session's entry as they arrive.
    pub(crate) sessions: Sessions,
    /// Unclaimed envelopes in arrival order: number -> (arrival, address, payload size).
    pub(super) unclaimed: Unclaimed,
    /// Senders the transport lost, with its error's text.
    pub(crate) lost: HashMap<RoleName, String>,
    // The negative control (`ignore_keys`): per-sender queues, bound in arrival order.
    pub(crate) fifo_arrived: HashMap<RoleName, VecDeque<Envelope>>,
    /// The keys of the receives waiting per sender, in claiming order.
    pub(crate) fifo_waiting: HashMap<RoleName, VecDeque<Key>>,
    pub(crate) stats: EndpointStats,
    /// Whether every receive that would wait fails at once instead, and why.
    pub(crate) closed: Closed,
    /// Sessions finished here (whose keys are forgotten and whose late messages are
    /// refused).
    pub(crate) numbers: Numbers,
    /// The deadlines of waiting receives with their cells, in claiming order (so in
    /// deadline order, since every receive waits the same time): the endpoint's one task
    /// fails those that pass (`waiting.rs`). Entries of receives that completed stay
    /// until they reach the front or the queue is trimmed; an entry holds no key, so
    /// nothing is cloned to queue it or dropped to clear it.
    pub(crate) deadlines: VecDeque<(Instant, CellId)>,
    /// Where waiting receives get their envelopes (`cells.rs`); it counts those that
    /// wait.
    pub(crate) cells: Cells,
}

impl Mailbox {
    /// Files one incoming envelope by its key, in its session's entry (made if the
    /// session has not started here), in one look-up of its slot: hands it to the
    /// receive waiting there, drops it if that receive timed out (late), or keeps it
    /// unclaimed (then drops the oldest unclaimed envelopes beyond `bounds`). Gives it
    /// back, counted, if it is refused: a duplicate of one delivered already, or from a
    /// sender other than the one its receive claimed.
    #[allow(
        clippy::result_large_err,
        reason = "a refused envelope is handed back whole, rarely"
    )]
    pub(crate) fn file(&mut self, env: Envelope, bounds: Bounds) -> Result<(), Envelope> {
        let session = self.sessions.get_or_make(session_of(&env.key));
        let stray = match session.slots.get_mut(&env.key) {
            Some((from, slot)) => {
                let same = *from == env.from;
                match slot {
                    Slot::Waiting(cell) if same => {
                        // Dropped, as late, if that receive timed out or was dropped.
                        let _ = self.cells.settle(*cell, Ok(env.payload));
                        *slot = Slot::Consumed;
                        return Ok(());
                    }
                    Slot::Arrived(..) | Slot::Consumed if same => {
                        self.stats.duplicates_refused += 1;
                        return Err(env);
                    }
                    // Unclaimed from another sender: nobody has said who is right yet.
                    Slot::Arrived(..) => env,
                    Slot::Waiting(_) | Slot::Consumed => {
                        self.stats.wrong_sender_refused += 1;
                        return Err(env);
                    }
                }
            }
            None => {
                // The slot keeps the sender and key; the rest of the envelope is dropped.
                let Envelope {
                    from, key, payload, ..
                } = env;
                let now = Instant::now();
                let due = now.checked_add(bounds.age);
                let number = self.unclaimed.hold(&from, &key, payload.len(), due);
                let arrived = Slot::Arrived(payload, number);
                session.slots.insert_new(key, (from, arrived));
                self.expire(bounds, now);
                return Ok(());
            }
        };
        let address = (stray.from.clone(), stray.key.clone());
        if session.strays.get(&address).is_some() {
            self.stats.duplicates_refused += 1;
            return Err(stray);
        }
        let now = Instant::now();
        let due = now.checked_add(bounds.age);
        let number = (self.unclaimed).hold(&address.0, &address.1, stray.payload.len(), due);
        session.strays.insert_new(address, (stray, number));
        self.expire(bounds, now);
        Ok(())
    }

    /// Drops unclaimed envelopes older than the age bound, and the oldest while there are
    /// more than the count or byte bound allows. Nothing to drop (the usual case) is a
    /// few comparisons here, inlined; the loop that drops is apart.
    #[inline]
    pub(crate) fn expire(&mut self, bounds: Bounds, now: Instant) {
        if !self.unclaimed.within(bounds.count, bounds.bytes, now) {
            self.drop_expired(bounds, now);
        }
    }

    /// [`Mailbox::expire`]'s loop: drops the oldest unclaimed envelope while a bound is
    /// passed.
    #[inline(never)]
    fn drop_expired(&mut self, bounds: Bounds, now: Instant) {
        while !self.unclaimed.within(bounds.count, bounds.bytes, now) {
            let Some((number, (from, key))) = self.unclaimed.pop_oldest() else {
                return;
            };
            let n = session_of(&key);
            if self
                .sessions
                .get_mut(n)
                .is_some_and(|s| s.drop_unclaimed(number, from, key))
            {
                self.stats.unclaimed_dropped += 1;
                self.sessions.drop_if_idle(n);
            }
        }
    }

    /// Whether any envelope is held unclaimed (else no bound can be passed, at any time).
    #[inline]
    pub(crate) fn holds_unclaimed(&self) -> bool {
        self.unclaimed.holds_any()
    }

    /// When the oldest unclaimed envelope expires, if any is held.
    pub(crate) fn next_expiry(&self) -> Option<Instant> {
        self.unclaimed.oldest_due()
    }

    /// The negative control (`ignore_keys`): binds `env` to the oldest receive waiting
    /// for its sender, whatever its key, or queues it for the next one.
    pub(crate) fn deliver_in_arrival_order(&mut self, env: Envelope) {
        while let Some(key) = self
            .fifo_waiting
            .get_mut(&env.from)
            .and_then(VecDeque::pop_front)
        {
            let slots = self.sessions.of(&key).map(|session| &mut session.slots);
            if let Some((_, slot)) = slots.and_then(|slots| slots.get_mut(&key)) {
                match slot {
                    Slot::Waiting(cell) if self.cells.waits(*cell) => {
                        let _ = self.cells.settle(*cell, Ok(env.payload));
                        *slot = Slot::Consumed;
                        return;
                    }
                    // That receive gave up: offer the message to the next one.
                    _ => continue,
                }
            }
        }
        self.fifo_arrived
            .entry(env.from.clone())
            .or_default()
            .push_back(env);
    }

    /// Forgets every key of finished session `n` (its entry, dropped whole) and marks it
    /// finished. A receive still waiting (kept beyond its session) fails as closed.
    pub(crate) fn finish(&mut self, n: u64) {
        if let Some(mut session) = self.sessions.remove(n) {
            let (unclaimed, cells) = (&mut self.unclaimed, &mut self.cells);
            session.slots.for_each_mut(|_, (_, slot)| match slot {
                Slot::Arrived(_, number) => {
                    unclaimed.release(*number);
                }
                Slot::Waiting(cell) => {
                    let _ = cells.settle(*cell, Err(Gone::Closed));
                }
                Slot::Consumed => {}
            });
            session.strays.for_each_mut(|_, (_, number)| {
                unclaimed.release(*number);
            });
            self.sessions.recycle(session);
        }
        self.numbers.finish(n);
    }

    /// Fails every receive waiting for `peer` with the transport's text, and remembers
    /// that it is lost so that later receives from it fail at once.
    pub(crate) fn lose(&mut self, peer: &RoleName, text: &str) {
        self.lost.insert(peer.clone(), text.to_string());
        let cells = &mut self.cells;
        self.sessions.for_each_mut(|session| {
            session.slots.for_each_mut(|_, (from, slot)| {
                if from == peer {
                    let _ = settle(
                        cells,
                        slot,
                        Err(Gone::Lost(text.to_string())),
                        Slot::Consumed,
                    );
                }
            });
        });
        self.fifo_waiting.remove(peer);
    }

    /// Fails every waiting receive, and every later one that would wait, with `why`
    /// (the incoming stream ended, or the task that times receives out stopped). The first
    /// reason stays.
    pub(crate) fn close(&mut self, why: Closed) {
        if self.closed != Closed::Open {
            return;
        }
        let Some(gone) = why.gone() else {
            return;
        };
        let cells = &mut self.cells;
        self.sessions.for_each_mut(|session| {
            session.slots.for_each_mut(|_, (_, slot)| {
                let _ = settle(cells, slot, Err(gone.clone()), Slot::Consumed);
            });
        });
        self.closed = why;
        self.fifo_waiting.clear();
    }
}

impl Session {
    /// Drops unclaimed envelope `number` of `from` at `key` (expired) if this entry holds
    /// it; whether it did.
    fn drop_unclaimed(&mut self, number: u64, from: RoleName, key: Key) -> bool {
        match self.slots.get(&key) {
            Some((f, Slot::Arrived(_, n))) if *n == number && *f == from => {
                self.slots.remove(&key);
                true
            }
            _ => {
                let address = (from, key);
                let held = self.strays.get(&address);
                held.is_some_and(|(_, n)| *n == number) && self.strays.remove(&address).is_some()
            }
        }
    }
}

/// Completes a waiting receive's slot with `outcome`, settling its cell (the slot becomes
/// `then`); gives `outcome` back if the slot was not waiting. A receive that timed out or
/// was dropped while it waited has a cell that no longer waits: what it would have got
/// is dropped, as late, and its slot stays as it is (a delivery for it is late too).
#[allow(
    clippy::result_large_err,
    reason = "an outcome not taken is handed back whole, rarely"
)]
pub(crate) fn settle(
    cells: &mut Cells,
    slot: &mut Slot,
    outcome: Result<Vec<u8>, Gone>,
    then: Slot,
) -> Result<(), Result<Vec<u8>, Gone>> {
    match *slot {
        Slot::Waiting(cell) => {
            if cells.settle(cell, outcome) {
                *slot = then;
            }
            Ok(())
        }
        _ => Err(outcome),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Pending;
    use super::*;
    use crate::key::{Site, Token};

    fn env(n: u64, size: usize) -> Envelope {
        Envelope {
            from: RoleName::from("A"),
            to: RoleName::from("B"),
            key: Key::new(Site::from_id(1), Token::session(n)),
            payload: vec![0; size],
        }
    }

    fn file(mailbox: &mut Mailbox, env: Envelope) {
        assert!(mailbox.file(env, BOUNDS).is_ok());
    }

    const BOUNDS: Bounds = Bounds {
        count: 3,
        bytes: 1000,
        age: Duration::from_secs(10),
    };

    #[test]
    fn the_oldest_unclaimed_go_first_by_count_bytes_and_age() {
        let mut mailbox = Mailbox::default();
        for n in 0..5 {
            file(&mut mailbox, env(n, 10));
        }
        assert_eq!(mailbox.sessions.held(), 3);
        assert_eq!(mailbox.stats.unclaimed_dropped, 2);
        assert!(mailbox.slot_mut(&env(2, 0).key).is_some());
        assert_eq!(mailbox.sessions.len(), 3, "the emptied entries are dropped");
        file(&mut mailbox, env(9, 995));
        assert_eq!(mailbox.sessions.held(), 1, "bytes bound");
        let later = Instant::now() + Duration::from_secs(11);
        mailbox.expire(BOUNDS, later);
        assert_eq!((mailbox.sessions.held(), mailbox.sessions.len()), (0, 0));
        assert_eq!(mailbox.unclaimed.bytes, 0);
        assert!(mailbox.next_expiry().is_none());
    }

    #[test]
    fn finishing_a_session_drops_its_entry_whole_and_keeps_the_later_ones() {
        let mut mailbox = Mailbox::default();
        mailbox.sessions.get_or_make(Some(0)).started = true;
        let (a, b) = (RoleName::from("A"), RoleName::from("B"));
        let mine = env(0, 0).key;
        let claimed = mailbox.claim_slot(&a, &mine, Instant::now(), BOUNDS.age);
        let Some(Pending::Wait(cell)) = claimed else {
            panic!("nothing arrived: the receive waits");
        };
        // Session 1's envelope, arrived before session 1 started: kept in its entry.
        file(&mut mailbox, env(1, 10));
        mailbox.finish(0);
        assert!(mailbox.slot_mut(&mine).is_none());
        assert_eq!((mailbox.sessions.held(), mailbox.cells.waiting()), (1, 0));
        assert!(
            !mailbox.cells.waits(cell),
            "the waiting receive failed as closed"
        );
        assert_eq!(mailbox.unclaimed.bytes, 10);
        mailbox.sessions.get_or_make(Some(1)).started = true;
        let claimed = mailbox.claim_slot(&a, &env(1, 0).key, Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(Pending::Ready(_))));
        let waits = Key::new(Site::from_id(2), Token::session(1));
        let claimed = mailbox.claim_slot(&b, &waits, Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(Pending::Wait(_))));
        mailbox.finish(1);
        assert_eq!((mailbox.sessions.held(), mailbox.sessions.len()), (0, 0));
        assert_eq!(mailbox.cells.waiting(), 0);
        assert!(mailbox.numbers.is_finished(1) && !mailbox.numbers.is_finished(2));
    }

    #[test]
    fn a_claimed_envelope_no_longer_counts() {
        let mut mailbox = Mailbox::default();
        file(&mut mailbox, env(0, 10));
        let key = env(0, 0).key;
        let claimed = mailbox.claim_slot(&RoleName::from("A"), &key, Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(Pending::Ready(_))));
        assert_eq!(mailbox.unclaimed.bytes, 0);
        mailbox.expire(BOUNDS, Instant::now() + Duration::from_secs(11));
        assert!(matches!(mailbox.slot_mut(&key), Some((_, Slot::Consumed))));
        assert_eq!(mailbox.stats.unclaimed_dropped, 0);
    }

    #[test]
    fn an_envelope_of_another_sender_is_kept_apart_and_refused_when_the_key_is_claimed() {
        let mut mailbox = Mailbox::default();
        let forged = Envelope {
            from: RoleName::from("M"),
            ..env(0, 10)
        };
        file(&mut mailbox, forged.clone());
        file(&mut mailbox, env(0, 20));
        let key = env(0, 0).key;
        let held = |mailbox: &mut Mailbox| {
            let session = mailbox.sessions.of(&key).unwrap();
            (session.slots.len(), session.strays.len())
        };
        assert_eq!(held(&mut mailbox), (1, 1));
        assert!(
            mailbox.file(env(0, 20), BOUNDS).is_err(),
            "a duplicate stray"
        );
        assert_eq!(mailbox.stats.duplicates_refused, 1);
        let claimed = mailbox.claim_slot(&RoleName::from("A"), &key, Instant::now(), BOUNDS.age);
        let Some(Pending::Ready(got)) = claimed else {
            panic!("the right sender's envelope is ready");
        };
        assert_eq!(got.len(), 20, "A's payload, not M's");
        assert_eq!(
            mailbox.stats.wrong_sender_refused, 1,
            "the other is refused"
        );
        assert_eq!((mailbox.unclaimed.bytes, mailbox.unclaimed.len()), (0, 0));
        assert_eq!(held(&mut mailbox), (1, 0));
        assert!(mailbox.file(forged, BOUNDS).is_err(), "claimed from A now");
        assert_eq!(mailbox.stats.wrong_sender_refused, 2);
    }
}
