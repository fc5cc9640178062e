//! The deadlines of receives waiting in the mailbox: one queue per endpoint, served by
//! its one task (no timer registered per receive).
//!
//! Every receive of an endpoint waits the same [`crate::EndpointConfig::recv_timeout`],
//! so deadlines come in the order receives are claimed and the queue is a FIFO. The
//! endpoint's task sleeps until the front deadline, or, while none waits, until
//! `recv_timeout` from now: any receive claimed later has a deadline at or after that,
//! so it is never woken late and nothing needs to wake it early.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use std::collections::hash_map::Entry;

use tokio::sync::oneshot;

use super::mailbox::{Address, Gone, Mailbox, Reply, Slot, settle};
use super::{Pending, after};

/// Entries the deadline queue may hold beyond twice the waiting receives before the
/// completed ones are trimmed out of it.
const SLACK: usize = 64;

impl Mailbox {
    /// Claims the slot at `address` for a receive, in one look-up: its envelope if it
    /// has arrived, else the receive waits there with a deadline `wait` from `now` (or
    /// fails at once if its sender is lost or nothing more arrives). `None` if the slot
    /// was taken already.
    pub(crate) fn claim_slot(
        &mut self,
        address: Address,
        now: Instant,
        wait: Duration,
    ) -> Option<Pending> {
        self.trim_deadlines();
        let lost = match self.lost.is_empty() {
            true => None,
            false => self.lost.get(&address.0).cloned(),
        };
        match self.slots.entry(address) {
            Entry::Occupied(mut slot) => {
                if !matches!(slot.get(), Slot::Arrived(..)) {
                    return None;
                }
                let Slot::Arrived(env, number) = std::mem::replace(slot.get_mut(), Slot::Consumed)
                else {
                    unreachable!("matched as arrived");
                };
                if let Some((_, _, size)) = self.unclaimed.remove(&number) {
                    self.unclaimed_bytes -= size;
                }
                Some(Pending::Ready(env))
            }
            Entry::Vacant(slot) => {
                if let Some(text) = lost {
                    return Some(Pending::Failed(Gone::Lost(text)));
                }
                if self.closed {
                    return Some(Pending::Failed(Gone::Closed));
                }
                let (reply, rx) = oneshot::channel();
                queue_deadline(&mut self.deadlines, slot.key(), now, wait);
                slot.insert(Slot::Waiting(reply));
                self.waiting += 1;
                Some(Pending::Wait(rx))
            }
        }
    }

    /// Makes the slot at `address` a receive waiting for `reply`, with a deadline `wait`
    /// from `now`.
    pub(crate) fn wait_for(
        &mut self,
        address: Address,
        reply: Reply,
        now: Instant,
        wait: Duration,
    ) {
        self.trim_deadlines();
        queue_deadline(&mut self.deadlines, &address, now, wait);
        self.slots.insert(address, Slot::Waiting(reply));
        self.waiting += 1;
    }

    /// Drops the entries of receives that no longer wait: all of them when none waits,
    /// else once the queue holds more than twice as many as wait (so it stays within
    /// twice the waiting receives, at an amortised look-up per receive).
    fn trim_deadlines(&mut self) {
        if self.waiting == 0 {
            // Every entry belongs to a receive that has completed.
            self.deadlines.clear();
        } else if self.deadlines.len() > 2 * self.waiting + SLACK {
            let slots = &self.slots;
            self.deadlines
                .retain(|(_, a)| matches!(slots.get(a), Some(Slot::Waiting(_))));
        }
    }

    /// Fails the waiting receives whose deadline has passed; returns when the endpoint's
    /// task must look again (the next deadline, or `wait` from now while none waits).
    pub(crate) fn time_out(&mut self, now: Instant, wait: Duration) -> Instant {
        while let Some((deadline, address)) = self.deadlines.front() {
            if *deadline > now {
                return *deadline;
            }
            if let Some(slot) = self.slots.get_mut(address) {
                if settle(slot, Err(Gone::TimedOut), Slot::Abandoned).is_ok() {
                    self.waiting -= 1;
                }
            }
            self.deadlines.pop_front();
        }
        after(now, wait.max(Duration::from_millis(1)))
    }
}

/// Queues the deadline of a receive waiting at `address`: `wait` from `now`, and never
/// before the last deadline queued (so the queue stays in order even if two threads read
/// the clock in the other order). Only a receive that waits pays for it.
fn queue_deadline(
    deadlines: &mut VecDeque<(Instant, Address)>,
    address: &Address,
    now: Instant,
    wait: Duration,
) {
    let deadline = after(now, wait).max(deadlines.back().map_or(now, |d| d.0));
    deadlines.push_back((deadline, address.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Key, Site, Token};
    use crate::role::RoleName;

    fn address(n: u64) -> Address {
        (
            RoleName::from("A"),
            Key::new(Site::from_id(1), Token::session(n)),
        )
    }

    const WAIT: Duration = Duration::from_secs(5);

    #[test]
    fn a_receive_fails_at_its_deadline_and_its_slot_is_then_late() {
        let mut mailbox = Mailbox::default();
        let start = Instant::now();
        let Some(Pending::Wait(mut rx)) = mailbox.claim_slot(address(0), start, WAIT) else {
            panic!("a fresh slot waits");
        };
        let later = start + Duration::from_secs(1);
        let Some(Pending::Wait(_second)) = mailbox.claim_slot(address(1), later, WAIT) else {
            panic!("a fresh slot waits");
        };
        assert_eq!(
            mailbox.time_out(start, WAIT),
            start + WAIT,
            "the front's deadline"
        );
        assert!(rx.try_recv().is_err(), "not yet");
        let next = mailbox.time_out(start + WAIT, WAIT);
        assert_eq!(next, later + WAIT, "the second is next");
        assert!(matches!(rx.try_recv(), Ok(Err(Gone::TimedOut))));
        assert!(matches!(
            mailbox.slots.get(&address(0)),
            Some(Slot::Abandoned)
        ));
        assert_eq!(mailbox.waiting, 1);
        let idle = later + WAIT;
        assert_eq!(mailbox.time_out(idle, WAIT), idle + WAIT, "none waits");
        assert_eq!(mailbox.waiting, 0);
    }

    #[test]
    fn the_queue_stays_within_twice_the_receives_that_wait() {
        let mut mailbox = Mailbox::default();
        let now = Instant::now();
        // One receive waits throughout; a thousand others complete one after another.
        let _long = mailbox.claim_slot(address(0), now, WAIT);
        for n in 1..1000 {
            let claimed = mailbox.claim_slot(address(n), now, WAIT);
            assert!(matches!(claimed, Some(Pending::Wait(_))));
            let slot = mailbox.slots.get_mut(&address(n)).unwrap();
            assert!(settle(slot, Err(Gone::Closed), Slot::Consumed).is_ok());
            mailbox.waiting -= 1;
            assert!(mailbox.deadlines.len() <= 2 * mailbox.waiting + SLACK + 1);
        }
        assert_eq!(mailbox.waiting, 1);
        // The first is still the front: it times out, the rest were completed.
        let _ = mailbox.time_out(now + WAIT, WAIT);
        assert_eq!(mailbox.waiting, 0);
    }
}
