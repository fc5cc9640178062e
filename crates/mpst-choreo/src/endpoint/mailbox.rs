//! An endpoint's mailbox: envelopes filed by sender and integrity key, receives waiting
//! for theirs, and the bounds on what nobody has claimed (a count, a byte total and an
//! age), so that messages for sessions that never start cannot hold memory forever.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use tokio::time::Instant;

use super::EndpointStats;
use super::numbers::{Numbers, Table};
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
    /// Claimed by a receive that waits for it: the waker of its last poll, if polled.
    Waiting(Option<std::task::Waker>),
    /// What the waiting receive gets at its next poll: its envelope, or why none comes.
    Done(Result<Envelope, Gone>),
    /// Given up by its receive (dropped while waiting): a delivery is then late, and
    /// dropped without a count, as it was when a receive's channel was closed.
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
    unclaimed: BTreeMap<u64, (Instant, Address, usize)>,
    unclaimed_bytes: usize,
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
    /// Files `env`, unclaimed, then drops the oldest unclaimed envelopes beyond `bounds`.
    /// `address` is the envelope's own (its sender and key).
    pub(crate) fn file_unclaimed(&mut self, env: Envelope, address: Address, bounds: Bounds) {
        let number = self.next_number;
        self.next_number += 1;
        let size = env.payload.len();
        self.unclaimed
            .insert(number, (Instant::now(), address.clone(), size));
        self.unclaimed_bytes += size;
        self.slots.insert(address, Slot::Arrived(env, number));
        self.expire(bounds, Instant::now());
    }

    /// Takes the envelope filed at `address`, if any, leaving the slot consumed.
    pub(crate) fn take_arrived(&mut self, address: &Address) -> Option<Envelope> {
        let slot = self.slots.get_mut(address)?;
        if !matches!(slot, Slot::Arrived(..)) {
            return None;
        }
        let Slot::Arrived(env, number) = std::mem::replace(slot, Slot::Consumed) else {
            return None;
        };
        self.forget_unclaimed(number);
        Some(env)
    }

    fn forget_unclaimed(&mut self, number: u64) {
        if let Some((_, _, size)) = self.unclaimed.remove(&number) {
            self.unclaimed_bytes -= size;
        }
    }

    /// Drops unclaimed envelopes older than the age bound, and the oldest while there are
    /// more than the count or byte bound allows.
    pub(crate) fn expire(&mut self, bounds: Bounds, now: Instant) {
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
                match settle(slot, Ok(env)) {
                    Ok(()) => {
                        self.waiting -= 1;
                        return;
                    }
                    // That receive gave up: offer the message to the next one.
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

    /// Forgets the keys that finished session `n` held and marks it finished.
    pub(crate) fn finish(&mut self, n: u64) {
        for (table, address) in self.numbers.finish(n) {
            match table {
                Table::Receive => {
                    self.receives.remove(&address.1);
                    if let Some(Slot::Waiting(_)) = self.slots.remove(&address) {
                        self.waiting -= 1;
                    }
                }
                Table::Send => {
                    self.sends.remove(&address);
                }
                Table::Unclaimed => {
                    if let Some(Slot::Arrived(_, number)) = self.slots.remove(&address) {
                        self.forget_unclaimed(number);
                    }
                }
            }
        }
    }

    /// Fails every receive waiting for `peer` with the transport's text, and remembers
    /// that it is lost so that later receives from it fail at once.
    pub(crate) fn lose(&mut self, peer: &RoleName, text: &str) {
        self.lost.insert(peer.clone(), text.to_string());
        let mut settled = 0;
        for ((from, _), slot) in self.slots.iter_mut() {
            if from == peer && settle(slot, Err(Gone::Lost(text.to_string()))).is_ok() {
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
            let _ = settle(slot, Err(Gone::Closed));
        }
        self.waiting = 0;
        self.fifo_waiting.clear();
    }
}

/// Completes a waiting receive's slot with `outcome` and wakes it; gives `outcome` back
/// if the slot was not waiting. The caller counts the slot out of [`Mailbox::waiting`].
pub(crate) fn settle(
    slot: &mut Slot,
    outcome: Result<Envelope, Gone>,
) -> Result<(), Result<Envelope, Gone>> {
    if !matches!(slot, Slot::Waiting(_)) {
        return Err(outcome);
    }
    if let Slot::Waiting(Some(waker)) = std::mem::replace(slot, Slot::Done(outcome)) {
        waker.wake();
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
        let address = (env.from.clone(), env.key.clone());
        mailbox.file_unclaimed(env, address, BOUNDS);
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
    fn a_claimed_envelope_no_longer_counts() {
        let mut mailbox = Mailbox::default();
        file(&mut mailbox, env(0, 10));
        let address = (RoleName::from("A"), env(0, 0).key);
        assert!(mailbox.take_arrived(&address).is_some());
        mailbox.expire(BOUNDS, Instant::now() + Duration::from_secs(11));
        assert!(matches!(mailbox.slots.get(&address), Some(Slot::Consumed)));
        assert_eq!(mailbox.stats.unclaimed_dropped, 0);
    }
}
