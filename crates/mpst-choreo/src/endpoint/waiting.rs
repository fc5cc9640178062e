//! Receives waiting in the mailbox: the future that waits for one slot (woken by the
//! delivery that fills it, with no channel between), and the endpoint's queue of their
//! deadlines, which its one task serves (no timer registered per receive).
//!
//! Every receive of an endpoint waits the same [`crate::EndpointConfig::recv_timeout`],
//! so deadlines come in the order receives are claimed and the queue is a FIFO. The
//! endpoint's task sleeps until the front deadline, or, while none waits, until
//! `recv_timeout` from now: any receive claimed later has a deadline at or after that,
//! so it is never woken late and nothing needs to wake it early.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Instant;

use super::mailbox::{Address, Gone, Mailbox, Slot, settle};
use super::{Shared, after};
use crate::transport::Envelope;

/// Entries the deadline queue may hold beyond twice the waiting receives before the
/// completed ones are trimmed out of it.
const SLACK: usize = 64;

impl Mailbox {
    /// Makes the slot at `address` a waiting receive with a deadline `wait` from `now`.
    pub(crate) fn wait_for(&mut self, address: Address, now: Instant, wait: Duration) {
        if self.waiting == 0 {
            // Every entry belongs to a receive that has completed.
            self.deadlines.clear();
        } else if self.deadlines.len() > 2 * self.waiting + SLACK {
            let slots = &self.slots;
            self.deadlines
                .retain(|(_, a)| matches!(slots.get(a), Some(Slot::Waiting(_))));
        }
        let deadline = after(now, wait).max(self.deadlines.back().map_or(now, |d| d.0));
        self.deadlines.push_back((deadline, address.clone()));
        self.slots.insert(address, Slot::Waiting(None));
        self.waiting += 1;
    }

    /// Fails the waiting receives whose deadline has passed; returns when the endpoint's
    /// task must look again (the next deadline, or `wait` from now while none waits).
    pub(crate) fn time_out(&mut self, now: Instant, wait: Duration) -> Instant {
        while let Some((deadline, address)) = self.deadlines.front() {
            if *deadline > now {
                return *deadline;
            }
            if let Some(slot) = self.slots.get_mut(address) {
                if settle(slot, Err(Gone::TimedOut)).is_ok() {
                    self.waiting -= 1;
                }
            }
            self.deadlines.pop_front();
        }
        after(now, wait.max(Duration::from_millis(1)))
    }
}

impl Shared {
    /// The outcome of the receive claimed at `address`, or `Pending` (its waker kept).
    fn poll_slot(&self, address: &Address, cx: &mut Context<'_>) -> Poll<Result<Envelope, Gone>> {
        let mut mailbox = self.mailbox();
        let Some(slot) = mailbox.slots.get_mut(address) else {
            // The session was forgotten under a receive still polled (not one of its own).
            return Poll::Ready(Err(Gone::Closed));
        };
        match slot {
            Slot::Waiting(waker) => {
                if !waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    *waker = Some(cx.waker().clone());
                }
                Poll::Pending
            }
            Slot::Done(_) => match std::mem::replace(slot, Slot::Consumed) {
                Slot::Done(outcome) => Poll::Ready(outcome),
                _ => unreachable!("matched as done"),
            },
            Slot::Arrived(..) | Slot::Abandoned | Slot::Consumed => Poll::Ready(Err(Gone::Closed)),
        }
    }

    /// A receive dropped while it waits gives its slot up.
    fn abandon(&self, address: &Address) {
        let mut mailbox = self.mailbox();
        if let Some(slot @ Slot::Waiting(_)) = mailbox.slots.get_mut(address) {
            *slot = Slot::Abandoned;
            mailbox.waiting -= 1;
        }
    }
}

/// The wait of one claimed receive for its slot: woken by the delivery, the loss of its
/// peer, the end of the transport or its deadline, whichever comes first.
pub(crate) struct Waiting<'a> {
    pub(crate) shared: &'a Shared,
    pub(crate) address: &'a Address,
    pub(crate) done: bool,
}

impl Future for Waiting<'_> {
    type Output = Result<Envelope, Gone>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let out = self.shared.poll_slot(self.address, cx);
        self.done = out.is_ready();
        out
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.shared.abandon(self.address);
        }
    }
}
