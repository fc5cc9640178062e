//! An endpoint's mailbox: envelopes filed by sender and integrity key, receives waiting
//! for theirs, and the bounds on what nobody has claimed (a count, a byte total and an
//! age), so that messages for sessions that never start cannot hold memory forever.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::time::Instant;

use super::EndpointStats;
use super::numbers::Numbers;
use crate::key::{Key, Site};
use crate::role::RoleName;
use crate::transport::Envelope;

/// Why a waiting receive ends without its envelope.
#[derive(Debug)]
pub(crate) enum Gone {
    /// The endpoint's incoming stream ended.
    Closed,
    /// The transport lost the expected sender; the transport error's text.
    Lost(String),
    /// The receive waited [`crate::EndpointConfig::recv_timeout`] in vain.
    TimedOut,
}

/// Where a waiting receive gets its envelope, or why none comes.
pub(crate) type Reply = oneshot::Sender<Result<Envelope, Gone>>;

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
    /// Filed before anyone claimed it: the envelope and its number in `unclaimed`.
    Arrived(Envelope, u64),
    /// Claimed by a receive that waits for it.
    Waiting(Reply),
    /// Timed out: a delivery is then late, and dropped without a count (as one for a
    /// receive that was dropped while it waited).
    Abandoned,
    /// Taken: a later delivery of this key is a duplicate.
    Consumed,
}

/// Where an envelope is filed: its sender and its key. Filing by sender as well keeps an
/// envelope that names the wrong sender from taking the slot of the right one.
pub(crate) type Address = (RoleName, Key);

/// Bounds on unclaimed envelopes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    pub(crate) count: usize,
    pub(crate) bytes: usize,
    pub(crate) age: Duration,
}

#[derive(Default)]
pub(crate) struct Mailbox {
    pub(crate) slots: HashMap<Address, Slot>,
    /// Keys claimed by receives: where, and from which sender.
    pub(crate) receives: HashMap<Key, (Site, RoleName)>,
    pub(crate) sends: HashMap<(RoleName, Key), Site>,
    /// Unclaimed envelopes in arrival order: number -> (arrival, address, payload size).
    pub(super) unclaimed: BTreeMap<u64, (Instant, Address, usize)>,
    pub(super) unclaimed_bytes: usize,
    next_number: u64,
    /// Senders the transport lost, with its error's text.
    pub(crate) lost: HashMap<RoleName, String>,
    // The negative control (`ignore_keys`): per-sender queues, bound in arrival order.
    pub(crate) fifo_arrived: HashMap<RoleName, VecDeque<Envelope>>,
    /// The keys of the receives waiting per sender, in claiming order.
    pub(crate) fifo_waiting: HashMap<RoleName, VecDeque<Key>>,
    pub(crate) stats: EndpointStats,
    pub(crate) closed: bool,
    /// Sessions started here (so a number is never run twice), finished here (whose keys
    /// are forgotten and whose late messages are refused), and the keys each running one
    /// holds.
    pub(crate) numbers: Numbers,
    /// The deadlines of waiting receives, in claiming order (so in deadline order, since
    /// every receive waits the same time): the endpoint's one task fails those that pass
    /// (`waiting.rs`). Entries of receives that completed stay until they reach the front
    /// or the queue is trimmed.
    pub(crate) deadlines: VecDeque<(Instant, Address)>,
    /// How many slots are [`Slot::Waiting`].
    pub(crate) waiting: usize,
}

impl Mailbox {
    /// Files one incoming envelope at its address (its sender and key), in one look-up of
    /// its slot: hands it to the receive waiting there, drops it if that receive timed
    /// out (late), or keeps it unclaimed (then drops the oldest unclaimed envelopes
    /// beyond `bounds`). Gives it back, counted, if it is refused: a duplicate of one
    /// delivered already, or from a sender other than the one its receive claimed.
    pub(crate) fn file(&mut self, env: Envelope, bounds: Bounds) -> Result<(), Envelope> {
        let claimed_by = |receives: &HashMap<Key, (Site, RoleName)>, env: &Envelope| {
            receives.get(&env.key).map(|(_, from)| from != &env.from)
        };
        match self.slots.entry((env.from.clone(), env.key.clone())) {
            Entry::Occupied(mut slot) => match slot.get_mut() {
                slot @ Slot::Waiting(_) => {
                    let _ = settle(slot, Ok(env), Slot::Consumed);
                    self.waiting -= 1;
                    Ok(())
                }
                // That receive timed out: the message is late.
                slot @ Slot::Abandoned => {
                    *slot = Slot::Consumed;
                    Ok(())
                }
                Slot::Arrived(..) | Slot::Consumed => {
                    if claimed_by(&self.receives, &env) == Some(true) {
                        self.stats.wrong_sender_refused += 1;
                    } else {
                        self.stats.duplicates_refused += 1;
                    }
                    Err(env)
                }
            },
            Entry::Vacant(slot) => {
                if claimed_by(&self.receives, &env) == Some(true) {
                    self.stats.wrong_sender_refused += 1;
                    return Err(env);
                }
                let number = self.next_number;
                self.next_number += 1;
                let size = env.payload.len();
                let now = Instant::now();
                self.unclaimed
                    .insert(number, (now, slot.key().clone(), size));
                self.unclaimed_bytes += size;
                slot.insert(Slot::Arrived(env, number));
                self.expire(bounds, now);
                Ok(())
            }
        }
    }

    /// Drops unclaimed envelopes older than the age bound, and the oldest while there are
    /// more than the count or byte bound allows.
    pub(crate) fn expire(&mut self, bounds: Bounds, now: Instant) {
        if self.unclaimed.is_empty() {
            return;
        }
        while let Some((&number, (arrived, _, _))) = self.unclaimed.first_key_value() {
            let too_old = now.saturating_duration_since(*arrived) >= bounds.age;
            let too_many = self.unclaimed.len() > bounds.count;
            let too_big = self.unclaimed_bytes > bounds.bytes;
            if !(too_old || too_many || too_big) {
                return;
            }
            if let Some((_, (_, address, size))) = self.unclaimed.pop_first() {
                self.unclaimed_bytes -= size;
                if let Some(Slot::Arrived(_, n)) = self.slots.get(&address) {
                    if *n == number {
                        self.slots.remove(&address);
                        self.stats.unclaimed_dropped += 1;
                    }
                }
            }
        }
    }

    /// When the oldest unclaimed envelope expires, if any is held.
    pub(crate) fn next_expiry(&self, bounds: Bounds) -> Option<Instant> {
        let (_, (arrived, _, _)) = self.unclaimed.first_key_value()?;
        Some(super::after(*arrived, bounds.age))
    }

    /// The negative control (`ignore_keys`): binds `env` to the oldest receive waiting
    /// for its sender, whatever its key, or queues it for the next one.
    pub(crate) fn deliver_in_arrival_order(&mut self, mut env: Envelope) {
        while let Some(key) = self
            .fifo_waiting
            .get_mut(&env.from)
            .and_then(VecDeque::pop_front)
        {
            let address = (env.from.clone(), key);
            if let Some(slot) = self.slots.get_mut(&address) {
                if let Slot::Waiting(reply) = slot {
                    if reply.is_closed() {
                        // That receive gave up: offer the message to the next one.
                        continue;
                    }
                }
                match settle(slot, Ok(env), Slot::Consumed) {
                    Ok(()) => {
                        self.waiting -= 1;
                        return;
                    }
                    Err(Ok(back)) => env = back,
                    Err(Err(_)) => return,
                }
            }
        }
        self.fifo_arrived
            .entry(env.from.clone())
            .or_default()
            .push_back(env);
    }

    /// Forgets every key of finished session `n` (`ours` tells them) and marks it
    /// finished.
    pub(crate) fn finish(&mut self, n: u64, ours: impl Fn(&Key) -> bool) {
        if self.unclaimed.is_empty() && self.numbers.alone() {
            // Only running sessions claim keys, and every other slot holds an unclaimed
            // envelope: with none held and no other session running, every key here is
            // session `n`'s.
            self.slots.clear();
            self.receives.clear();
            self.sends.clear();
            self.waiting = 0;
            self.numbers.finish(n);
            return;
        }
        let (unclaimed, bytes, waiting) = (
            &mut self.unclaimed,
            &mut self.unclaimed_bytes,
            &mut self.waiting,
        );
        self.slots.retain(|(_, key), slot| {
            if !ours(key) {
                return true;
            }
            match slot {
                Slot::Arrived(_, number) => {
                    if let Some((_, _, size)) = unclaimed.remove(number) {
                        *bytes -= size;
                    }
                }
                Slot::Waiting(_) => *waiting -= 1,
                Slot::Abandoned | Slot::Consumed => {}
            }
            false
        });
        self.receives.retain(|key, _| !ours(key));
        self.sends.retain(|(_, key), _| !ours(key));
        self.numbers.finish(n);
    }

    /// Fails every receive waiting for `peer` with the transport's text, and remembers
    /// that it is lost so that later receives from it fail at once.
    pub(crate) fn lose(&mut self, peer: &RoleName, text: &str) {
        self.lost.insert(peer.clone(), text.to_string());
        let mut settled = 0;
        for ((from, _), slot) in self.slots.iter_mut() {
            if from == peer
                && settle(slot, Err(Gone::Lost(text.to_string())), Slot::Consumed).is_ok()
            {
                settled += 1;
            }
        }
        self.waiting -= settled;
        self.fifo_waiting.remove(peer);
    }

    /// Fails every waiting receive: the incoming stream ended.
    pub(crate) fn close(&mut self) {
        self.closed = true;
        for slot in self.slots.values_mut() {
            let _ = settle(slot, Err(Gone::Closed), Slot::Consumed);
        }
        self.waiting = 0;
        self.fifo_waiting.clear();
    }
}

/// Completes a waiting receive's slot with `outcome` (the slot becomes `then`); gives
/// `outcome` back if the slot was not waiting. The caller counts the slot out of
/// [`Mailbox::waiting`]. A receive that was dropped while it waited has closed its end:
/// what it would have got is dropped, as late.
pub(crate) fn settle(
    slot: &mut Slot,
    outcome: Result<Envelope, Gone>,
    then: Slot,
) -> Result<(), Result<Envelope, Gone>> {
    if !matches!(slot, Slot::Waiting(_)) {
        return Err(outcome);
    }
    if let Slot::Waiting(reply) = std::mem::replace(slot, then) {
        let _ = reply.send(outcome);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Token;

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
        assert_eq!(mailbox.slots.len(), 3);
        assert_eq!(mailbox.stats.unclaimed_dropped, 2);
        let oldest = (RoleName::from("A"), env(2, 0).key);
        assert!(mailbox.slots.contains_key(&oldest));
        file(&mut mailbox, env(9, 995));
        assert_eq!(mailbox.slots.len(), 1, "bytes bound");
        let later = Instant::now() + Duration::from_secs(11);
        mailbox.expire(BOUNDS, later);
        assert!(mailbox.slots.is_empty());
        assert_eq!(mailbox.unclaimed_bytes, 0);
        assert!(mailbox.next_expiry(BOUNDS).is_none());
    }

    #[test]
    fn finishing_a_session_forgets_its_keys_only_and_alone_clears_every_table() {
        use super::super::{Pending, session_of};
        let ours = |n| move |key: &Key| session_of(key) == Some(n);
        let mut mailbox = Mailbox::default();
        assert!(mailbox.numbers.start(0));
        let mine = (RoleName::from("A"), env(0, 0).key);
        let claimed = mailbox.claim_slot(mine.clone(), Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(Pending::Wait(_))));
        // Session 1's envelope, arrived before session 1 started: kept.
        file(&mut mailbox, env(1, 10));
        mailbox.finish(0, ours(0));
        assert!(!mailbox.slots.contains_key(&mine));
        assert_eq!((mailbox.slots.len(), mailbox.waiting), (1, 0));
        assert_eq!(mailbox.unclaimed_bytes, 10);
        // Session 1 alone with nothing unclaimed once it takes its envelope.
        assert!(mailbox.numbers.start(1));
        let early = (RoleName::from("A"), env(1, 0).key);
        let claimed = mailbox.claim_slot(early, Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(Pending::Ready(_))));
        let waits = (RoleName::from("B"), env(1, 0).key);
        let claimed = mailbox.claim_slot(waits, Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(Pending::Wait(_))));
        mailbox.finish(1, ours(1));
        assert!(mailbox.slots.is_empty() && mailbox.receives.is_empty());
        assert_eq!(mailbox.waiting, 0);
        assert!(mailbox.numbers.is_finished(1) && !mailbox.numbers.is_finished(2));
    }

    #[test]
    fn a_claimed_envelope_no_longer_counts() {
        let mut mailbox = Mailbox::default();
        file(&mut mailbox, env(0, 10));
        let address = (RoleName::from("A"), env(0, 0).key);
        let claimed = mailbox.claim_slot(address.clone(), Instant::now(), BOUNDS.age);
        assert!(matches!(claimed, Some(super::super::Pending::Ready(_))));
        assert_eq!(mailbox.unclaimed_bytes, 0);
        mailbox.expire(BOUNDS, Instant::now() + Duration::from_secs(11));
        assert!(matches!(mailbox.slots.get(&address), Some(Slot::Consumed)));
        assert_eq!(mailbox.stats.unclaimed_dropped, 0);
    }
}
