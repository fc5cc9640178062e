//! The unclaimed envelopes' accounting, in arrival order: a queue of arrival numbers
//! (numbers only grow, so the queue is sorted by number), where an envelope claimed or
//! dropped out of order leaves a tombstone instead of being unlinked from a tree. The
//! front is always a live envelope (the oldest), and tombstones are swept out once they
//! outnumber the live entries, so the queue stays within twice the envelopes held.

use std::collections::VecDeque;

use tokio::time::Instant;

use super::mailbox::Address;
use crate::key::Key;
use crate::role::RoleName;

/// Tombstones the queue may hold beyond the live entries before it is swept.
const SLACK: usize = 64;

struct Held {
    number: u64,
    /// When it expires (its arrival plus the age bound; `None`: never, the bound is
    /// too long to add).
    due: Option<Instant>,
    address: Address,
    size: usize,
    live: bool,
}

/// Unclaimed envelopes in arrival order: their number, arrival, address and size.
#[derive(Default)]
pub(crate) struct Unclaimed {
    queue: VecDeque<Held>,
    live: usize,
    /// The payload bytes of the envelopes held.
    pub(crate) bytes: usize,
    next: u64,
}

impl Unclaimed {
    /// Counts an envelope of `size` payload bytes from `from` at `key`, which expires at
    /// `due` (its arrival plus the age bound, computed once here rather than at every
    /// look at the bounds; `None`: never); its number.
    pub(crate) fn hold(
        &mut self,
        from: &RoleName,
        key: &Key,
        size: usize,
        due: Option<Instant>,
    ) -> u64 {
        let number = self.next;
        self.next += 1;
        self.queue.push_back(Held {
            number,
            due,
            address: (from.clone(), key.clone()),
            size,
            live: true,
        });
        self.live += 1;
        self.bytes += size;
        number
    }

    /// No longer counts envelope `number` (claimed, refused or dropped); whether it was
    /// counted.
    pub(crate) fn release(&mut self, number: u64) -> bool {
        let Some(at) = self.find(number) else {
            return false;
        };
        let held = &mut self.queue[at];
        if !held.live {
            return false;
        }
        held.live = false;
        self.live -= 1;
        self.bytes -= held.size;
        self.sweep();
        true
    }

    /// Where envelope `number` is in the queue. Numbers are consecutive from the front
    /// until a sweep drops tombstones from the middle, so its distance from the front's
    /// number is tried first; a binary search (numbers only grow) after a sweep.
    fn find(&self, number: u64) -> Option<usize> {
        let first = self.queue.front()?.number;
        let guess = usize::try_from(number.checked_sub(first)?).ok()?;
        if self
            .queue
            .get(guess)
            .is_some_and(|held| held.number == number)
        {
            return Some(guess);
        }
        let at = self.queue.binary_search_by_key(&number, |held| held.number);
        at.ok()
    }

    /// Drops the tombstones at the front, and all of them once they outnumber the live
    /// entries by more than [`SLACK`].
    fn sweep(&mut self) {
        while self.queue.front().is_some_and(|held| !held.live) {
            self.queue.pop_front();
        }
        if self.queue.len() > 2 * self.live + SLACK {
            self.queue.retain(|held| held.live);
        }
    }

    /// How many envelopes are held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// Whether none is held.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Whether any envelope is held.
    #[inline]
    pub(crate) fn holds_any(&self) -> bool {
        self.live != 0
    }

    /// When the oldest envelope held expires (`None` if none is held or it never does).
    pub(crate) fn oldest_due(&self) -> Option<Instant> {
        self.queue.front().and_then(|held| held.due)
    }

    /// Whether no bound can be passed at `now`: at most `count` envelopes and `bytes`
    /// bytes held, and the oldest not due (so none is: the queue is in arrival order and
    /// every envelope waits the same age). A few comparisons, no loop: the filing and
    /// claiming paths ask this first.
    #[inline]
    pub(crate) fn within(&self, count: usize, bytes: usize, now: Instant) -> bool {
        self.live <= count
            && self.bytes <= bytes
            && self
                .queue
                .front()
                .is_none_or(|held| held.due.is_none_or(|due| due > now))
    }

    /// Stops counting the oldest envelope held: its number and address.
    pub(crate) fn pop_oldest(&mut self) -> Option<(u64, Address)> {
        let held = self.queue.pop_front()?;
        self.live -= 1;
        self.bytes -= held.size;
        self.sweep();
        Some((held.number, held.address))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Site, Token};

    #[test]
    fn released_out_of_order_the_queue_keeps_the_oldest_live_first_and_stays_small() {
        let mut unclaimed = Unclaimed::default();
        let (from, now) = (RoleName::from("A"), Instant::now());
        let key = |n| Key::new(Site::from_id(1), Token::session(n));
        let long = unclaimed.hold(&from, &key(0), 5, Some(now));
        for n in 1..1000 {
            let number = unclaimed.hold(&from, &key(n), 1, Some(now));
            assert!(unclaimed.release(number));
            assert!(!unclaimed.release(number), "once");
            assert!(unclaimed.queue.len() <= 2 * unclaimed.len() + SLACK + 1);
        }
        assert_eq!((unclaimed.len(), unclaimed.bytes), (1, 5));
        // After a sweep numbers are no longer consecutive from the front: still found.
        let later: Vec<u64> = (0..3)
            .map(|n| unclaimed.hold(&from, &key(n), 2, Some(now)))
            .collect();
        assert!(unclaimed.release(later[1]) && !unclaimed.release(later[1]));
        assert!(unclaimed.release(later[2]) && unclaimed.release(later[0]));
        assert_eq!((unclaimed.len(), unclaimed.bytes), (1, 5));
        let (number, (_, at)) = unclaimed.pop_oldest().unwrap();
        assert_eq!((number, at), (long, key(0)));
        assert!(unclaimed.is_empty() && unclaimed.queue.is_empty());
        assert_eq!((unclaimed.bytes, unclaimed.oldest_due()), (0, None));
        assert!(unclaimed.within(0, 0, now));
    }
}
