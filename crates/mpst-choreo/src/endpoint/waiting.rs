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

use super::cells::{CellId, Cells};
use super::mailbox::{Address, Closed, Filed, Gone, HashMap, Mailbox, Slot};
use super::table::Table;
use super::unclaimed::Unclaimed;
use super::{Pending, after, session_of};
use crate::key::Key;
use crate::role::RoleName;
use crate::transport::Envelope;

/// Entries the deadline queue may hold beyond twice the waiting receives before the
/// completed ones are trimmed out of it.
const SLACK: usize = 64;

impl Mailbox {
    /// [`Mailbox::claim`] at `now`.
    #[cfg(test)]
    pub(crate) fn claim_slot(
        &mut self,
        from: &RoleName,
        key: &Key,
        now: Instant,
        wait: Duration,
    ) -> Option<Pending> {
        self.claim(from, key, Some(now), wait)
    }

    /// Claims the slot of `key` for a receive from `from`, in one look-up in its session's
    /// entry: its envelope if it has arrived (no clock read, no cell, no deadline), else
    /// the receive waits there with a deadline `wait` from `now` (the clock is read then
    /// if the caller has not), or fails at once if its sender is lost or nothing more
    /// arrives. An envelope held for the key from another sender is refused, counted, as
    /// from the wrong sender. `None` if a receive claimed the key already.
    pub(crate) fn claim(
        &mut self,
        from: &RoleName,
        key: &Key,
        now: Option<Instant>,
        wait: Duration,
    ) -> Option<Pending> {
        let session = self.sessions.get_or_make(session_of(key));
        let refused = match session.slots.get_mut(key) {
            Some((held_from, slot)) => {
                if !matches!(slot, Slot::Arrived(..)) {
                    return None;
                }
                let Slot::Arrived(payload, number) = std::mem::replace(slot, Slot::Consumed) else {
                    unreachable!("matched as arrived");
                };
                if held_from == from {
                    self.unclaimed.release(number);
                    return Some(Pending::Ready(payload));
                }
                *held_from = from.clone();
                number
            }
            None => {
                // Nothing arrived for the key: the receive waits in the slot made here (one
                // look-up), unless it completes or fails at once.
                let (strays, unclaimed) = (&mut session.strays, &mut self.unclaimed);
                if let Some(done) = at_once(strays, unclaimed, &self.lost, self.closed, from, key) {
                    (session.slots).insert_new(key.clone(), (from.clone(), Slot::Consumed));
                    return Some(done);
                }
                let cell = open_cell(&mut self.cells, &mut self.deadlines, now, wait);
                (session.slots).insert_new(key.clone(), (from.clone(), Slot::Waiting(cell)));
                return Some(Pending::Wait(cell));
            }
        };
        // Held for the key from another sender: refused.
        self.stats.wrong_sender_refused += 1;
        self.unclaimed.release(refused);
        // The slot is this receive's now (marked consumed until it is known to wait).
        let (strays, unclaimed) = (&mut session.strays, &mut self.unclaimed);
        if let Some(done) = at_once(strays, unclaimed, &self.lost, self.closed, from, key) {
            return Some(done);
        }
        Some(Pending::Wait(self.wait_at(key, now, wait)))
    }

    /// Makes the slot of `key` (claimed by a receive from `from`) wait in a new cell, with
    /// a deadline `wait` from `now`.
    pub(crate) fn wait_for(
        &mut self,
        from: &RoleName,
        key: &Key,
        now: Instant,
        wait: Duration,
    ) -> CellId {
        let slots = &mut self.sessions.get_or_make(session_of(key)).slots;
        match slots.get_mut(key) {
            Some(filed) => *filed = (from.clone(), Slot::Consumed),
            None => slots.insert_new(key.clone(), (from.clone(), Slot::Consumed)),
        }
        self.wait_at(key, Some(now), wait)
    }

    /// Makes the claimed slot of `key` wait in a new cell, with a deadline `wait` from
    /// `now`.
    fn wait_at(&mut self, key: &Key, now: Option<Instant>, wait: Duration) -> CellId {
        let cell = open_cell(&mut self.cells, &mut self.deadlines, now, wait);
        if let Some((_, slot)) = self.slot_mut(key) {
            *slot = Slot::Waiting(cell);
        }
        cell
    }

    /// The slot of `key`, if its session's entry holds it.
    pub(crate) fn slot_mut(&mut self, key: &Key) -> Option<&mut Filed> {
        self.sessions.of(key)?.slots.get_mut(key)
    }

    /// Fails the waiting receives whose deadline has passed; returns when the endpoint's
    /// task must look again (the next deadline, or `wait` from now while none waits).
    pub(crate) fn time_out(&mut self, now: Instant, wait: Duration) -> Instant {
        while let Some(&(deadline, cell)) = self.deadlines.front() {
            if deadline > now {
                return deadline;
            }
            self.deadlines.pop_front();
            // Its slot stays waiting with a cell that no longer waits: a delivery for it
            // is late. A receive that completed meanwhile is settled already: nothing.
            let _ = self.cells.settle(cell, Err(Gone::TimedOut));
        }
        after(now, wait.max(Duration::from_millis(1)))
    }
}

/// Opens the cell of a receive that waits and queues its deadline: `wait` from `now`
/// (the clock is read here if the caller has not), and never before the last deadline
/// queued (so the queue stays in order even if two threads read the clock in the other
/// order). Only a receive that waits pays for it. The entries of receives that no
/// longer wait are dropped first: all of them when none waits, else once the queue holds
/// more than twice as many as wait (so it stays within twice the waiting receives, at an
/// amortised look-up of a cell per receive).
fn open_cell(
    cells: &mut Cells,
    deadlines: &mut VecDeque<(Instant, CellId)>,
    now: Option<Instant>,
    wait: Duration,
) -> CellId {
    let waiting = cells.waiting();
    if waiting == 0 {
        // Every entry belongs to a receive that has completed (a clear with nothing to
        // drop: an entry is two numbers and an index).
        deadlines.clear();
    } else if deadlines.len() > 2 * waiting + SLACK {
        deadlines.retain(|(_, cell)| cells.waits(*cell));
    }
    let cell = cells.open();
    let now = now.unwrap_or_else(Instant::now);
    let last = deadlines.back().map_or(now, |d| d.0);
    deadlines.push_back((after(now, wait).max(last), cell));
    cell
}

/// How a receive from `from` at `key`, whose slot holds no envelope, completes without
/// waiting: with the envelope of its sender kept apart for the key (`strays`), or failed
/// because its sender is lost or nothing more arrives. `None`: it waits.
fn at_once(
    strays: &mut Table<Address, (Envelope, u64)>,
    unclaimed: &mut Unclaimed,
    lost: &HashMap<RoleName, String>,
    closed: Closed,
    from: &RoleName,
    key: &Key,
) -> Option<Pending> {
    if !strays.is_empty() {
        if let Some((env, number)) = strays.remove(&(from.clone(), key.clone())) {
            unclaimed.release(number);
            return Some(Pending::Ready(env.payload));
        }
    }
    failure(lost, closed, from).map(Pending::Failed)
}

/// Why a receive from `from` that would wait fails at once instead, if it does: its
/// sender is lost (the transport's text), or the mailbox lets nothing wait any more.
/// One rule for the keyed claim and the negative control's queues alike.
pub(crate) fn failure(
    lost: &HashMap<RoleName, String>,
    closed: Closed,
    from: &RoleName,
) -> Option<Gone> {
    let failed = match lost.is_empty() {
        true => None,
        false => lost.get(from).map(|text| Gone::Lost(text.clone())),
    };
    failed.or_else(|| closed.gone())
}

#[cfg(test)]
mod tests {
    use super::super::mailbox::settle;
    use super::*;
    use crate::key::{Site, Token};

    fn key(n: u64) -> Key {
        Key::new(Site::from_id(1), Token::session(n))
    }

    #[test]
    fn a_closed_mailbox_fails_waiting_and_later_receives_with_its_first_reason() {
        let (a, wait) = (RoleName::from("A"), Duration::from_secs(1));
        let mut mailbox = Mailbox::default();
        let Some(Pending::Wait(cell)) = mailbox.claim_slot(&a, &key(0), Instant::now(), wait)
        else {
            panic!("nothing arrived: the receive waits");
        };
        mailbox.close(Closed::NoTimer);
        assert!(!mailbox.cells.waits(cell), "the waiting receive is failed");
        mailbox.close(Closed::Stream);
        let later = mailbox.claim_slot(&a, &key(1), Instant::now(), wait);
        assert!(
            matches!(later, Some(Pending::Failed(Gone::NoTimer))),
            "a later receive fails at once, for the first reason"
        );
        let mut ended = Mailbox::default();
        ended.close(Closed::Stream);
        ended.close(Closed::NoTimer);
        let later = ended.claim_slot(&a, &key(0), Instant::now(), wait);
        assert!(matches!(later, Some(Pending::Failed(Gone::Closed))));
    }

    fn claim(mailbox: &mut Mailbox, n: u64, now: Instant) -> Option<Pending> {
        mailbox.claim_slot(&RoleName::from("A"), &key(n), now, WAIT)
    }

    const WAIT: Duration = Duration::from_secs(5);

    #[test]
    fn a_receive_fails_at_its_deadline_and_its_slot_is_then_late() {
        let mut mailbox = Mailbox::default();
        let start = Instant::now();
        let Some(Pending::Wait(first)) = claim(&mut mailbox, 0, start) else {
            panic!("a fresh slot waits");
        };
        let later = start + Duration::from_secs(1);
        let Some(Pending::Wait(_second)) = claim(&mut mailbox, 1, later) else {
            panic!("a fresh slot waits");
        };
        assert_eq!(
            mailbox.time_out(start, WAIT),
            start + WAIT,
            "the front's deadline"
        );
        assert!(mailbox.cells.waits(first), "not yet");
        let next = mailbox.time_out(start + WAIT, WAIT);
        assert_eq!(next, later + WAIT, "the second is next");
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(matches!(
            mailbox.cells.poll(first, &mut cx),
            std::task::Poll::Ready(Err(Gone::TimedOut))
        ));
        assert_eq!(mailbox.cells.waiting(), 1);
        // The timed-out receive's slot still names its (freed) cell: a delivery is late,
        // dropped without a count, and a second one is a duplicate.
        let late = Envelope {
            from: RoleName::from("A"),
            to: RoleName::from("B"),
            key: key(0),
            payload: vec![1],
        };
        let bounds = super::super::mailbox::Bounds {
            count: 10,
            bytes: 100,
            age: WAIT,
        };
        assert!(mailbox.file(late.clone(), bounds).is_ok());
        assert!(matches!(
            mailbox.slot_mut(&key(0)),
            Some((_, Slot::Consumed))
        ));
        assert_eq!(mailbox.stats.duplicates_refused, 0);
        assert!(mailbox.file(late, bounds).is_err());
        assert_eq!(mailbox.stats.duplicates_refused, 1);
        assert_eq!(mailbox.cells.len(), 1, "only the second receive's cell");
        let idle = later + WAIT;
        assert_eq!(mailbox.time_out(idle, WAIT), idle + WAIT, "none waits");
        assert_eq!(mailbox.cells.waiting(), 0);
        assert!(mailbox.deadlines.is_empty());
    }

    #[test]
    fn the_queue_stays_within_twice_the_receives_that_wait() {
        let mut mailbox = Mailbox::default();
        let now = Instant::now();
        // One receive waits throughout; a thousand others complete one after another.
        let _long = claim(&mut mailbox, 0, now);
        for n in 1..1000 {
            let claimed = claim(&mut mailbox, n, now);
            assert!(matches!(claimed, Some(Pending::Wait(_))));
            let session = mailbox.sessions.of(&key(n)).unwrap();
            let (_, slot) = session.slots.get_mut(&key(n)).unwrap();
            assert!(settle(&mut mailbox.cells, slot, Err(Gone::Closed), Slot::Consumed).is_ok());
            assert_eq!(mailbox.cells.waiting(), 1);
            assert!(mailbox.deadlines.len() <= 2 * mailbox.cells.waiting() + SLACK + 1);
        }
        // The first is still the front: it times out, the rest were completed.
        let _ = mailbox.time_out(now + WAIT, WAIT);
        assert_eq!(mailbox.cells.waiting(), 0);
        assert!(mailbox.deadlines.is_empty());
    }
}
