//! [`Spsc`]: an in-memory route specialised for its two owners. Each end of a route is
//! owned by exactly one role, so a pair of ends needs no multi-producer queue: both
//! directions share one allocation holding two ring buffers (inline, so neither a message
//! nor a direction allocates until more than four messages wait) and the two receivers'
//! wakers behind one uncontended lock.
//!
//! Compared with a pair of `futures::channel::mpsc` queues (what
//! [`Unbounded`](super::Unbounded) was before it became this route, and what
//! [`Bounded`](super::Bounded) still is) a message costs no heap node (the ring buffer is
//! reused), a send takes the lock once and wakes the peer only if it is waiting, and a
//! receiver that waits again on the same task keeps its registered waker instead of
//! cloning a new one. No `unsafe`.

use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use futures::{Sink, Stream};

use super::queue::Queue;
use super::{Abort, AbortHandle, ChannelError, Pair};
use crate::wiring::{Parked, SharedEnds};

/// One end of an in-memory, unbounded, two-way route between two roles, carrying `T` (the
/// label enum) in both directions.
///
/// * Sending never waits; [`Sink::start_send`] fails with [`ChannelError::Disconnected`]
///   once the peer's end is dropped or aborted, and [`ChannelError::Aborted`] once this end
///   was aborted.
/// * Receiving ([`Stream`]) yields `Ok(message)` in the order the peer sent them. When the
///   peer's end is dropped or aborted during a session, the messages it sent before are
///   still delivered, then the stream ends; a session that begins ([`Abort::begin`]) after
///   the peer aborted receives none of them (after a plain drop, it receives them).
/// * [`Abort::abort`] closes both directions at once (the peer's pending receive ends),
///   drops the messages waiting for this end, and makes this end refuse all later use.
/// * Closing the sink ([`Sink::poll_close`]) closes the route like dropping this end.
///
/// Works on any executor and across threads (`Spsc<T>` is `Send` and `Sync` when `T` is
/// `Send`). `derive(Roles)` creates the two ends with [`Pair`]; [`spsc`] does it by hand.
pub struct Spsc<T> {
    shared: Arc<Mutex<Shared<T>>>,
    /// Which end this is: it receives from `queues[side]`, sends to `queues[1 - side]`.
    side: usize,
    aborted: bool,
}

/// The state both ends share.
struct Shared<T> {
    /// `queues[i]`: the messages sent to end `i`, oldest first.
    queues: [Queue<T>; 2],
    /// `wakers[i]`: the waker end `i` last waited with, kept to be reused.
    wakers: [Option<Waker>; 2],
    /// `waiting[i]`: end `i` waits for a message and must be woken by the next send.
    waiting: [bool; 2],
    /// An end was dropped, closed or aborted: sends fail, receives drain then end.
    closed: bool,
    /// An end was aborted (its session failed or was dropped before `End`): what is still
    /// queued belongs to that failed session. A plain drop or close (a peer that finished
    /// its sessions) leaves its messages deliverable to a session that begins later.
    dead: bool,
    /// `aborted[i]`: end `i` was aborted through its [`SpscHandle`] (out of band); it
    /// refuses later use when it notices (a send, or a receive that finds nothing).
    aborted: [bool; 2],
}

/// Creates the two connected ends of a [`Spsc`] route.
pub fn spsc<T>() -> (Spsc<T>, Spsc<T>) {
    let shared = Arc::new(Mutex::new(Shared {
        queues: [Queue::default(), Queue::default()],
        wakers: [None, None],
        waiting: [false, false],
        closed: false,
        dead: false,
        aborted: [false, false],
    }));
    let end = |side| Spsc {
        shared: shared.clone(),
        side,
        aborted: false,
    };
    (end(0), end(1))
}

impl<T: 'static> Pair<Self> for Spsc<T> {
    #[inline]
    fn pair() -> (Self, Self) {
        spsc()
    }

    /// Parks the shared state and the side, not the end: no box.
    #[inline]
    fn park(mut peer: Self) -> Parked {
        let parked = Parked::shared(peer.shared.clone(), peer.side);
        // Dropping the end must not close the route: the parked state is its end now.
        peer.aborted = true;
        parked
    }

    #[inline]
    fn unpark(parked: Parked) -> Option<Self> {
        let (shared, side) = parked.into_shared::<Mutex<Shared<T>>>()?;
        Some(Spsc {
            shared,
            side,
            aborted: false,
        })
    }
}

/// A parked end that is never taken closes the route, as dropping it would.
impl<T: 'static> SharedEnds for Mutex<Shared<T>> {
    fn close(&self, side: usize) {
        let waker = {
            let mut shared = self.lock().unwrap_or_else(PoisonError::into_inner);
            shared.closed = true;
            peer_waker(&mut shared, side)
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    #[inline]
    fn put(self: Arc<Self>, side: usize, slot: &mut dyn std::any::Any) {
        match slot.downcast_mut::<Option<Arc<Self>>>() {
            Some(slot) => *slot = Some(self),
            None => self.close(side),
        }
    }
}

impl<T> fmt::Debug for Spsc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spsc")
            .field("side", &self.side)
            .field("aborted", &self.aborted)
            .finish_non_exhaustive()
    }
}

impl<T> Spsc<T> {
    /// Whether this end was aborted ([`Abort::abort`] or its abort handle, [`Abort::handle`]) and now
    /// refuses all use.
    pub fn is_aborted(&self) -> bool {
        self.aborted || self.lock().aborted[self.side]
    }

    /// Whether the route is closed: an end was dropped, closed or aborted.
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Locks the shared state. The lock is never held across user code that can panic
    /// (only queue operations and waker bookkeeping), so a poisoned lock still holds
    /// consistent state and is used as is.
    #[inline]
    fn lock(&self) -> MutexGuard<'_, Shared<T>> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Closes the route and wakes the peer if it waits; with `drain`, also takes the
    /// messages waiting for this end (dropped by the caller after the lock is released).
    fn close(&mut self, drain: bool) -> Vec<T> {
        let side = self.side;
        let (waker, dead) = {
            let mut shared = self.lock();
            shared.closed = true;
            shared.dead |= drain;
            let dead = if drain {
                shared.queues[side].drain()
            } else {
                Vec::new()
            };
            (peer_waker(&mut shared, side), dead)
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        dead
    }
}

/// The waker of the peer of end `side` if it waits (it is then no longer waiting).
#[inline]
fn peer_waker<T>(shared: &mut Shared<T>, side: usize) -> Option<Waker> {
    let peer = 1 - side;
    if std::mem::take(&mut shared.waiting[peer]) {
        shared.wakers[peer].clone()
    } else {
        None
    }
}

impl<T> Drop for Spsc<T> {
    fn drop(&mut self) {
        if !self.aborted {
            self.close(false);
        }
    }
}

impl<T> Abort for Spsc<T> {
    /// If the route was aborted before this session began (a session of the peer failed),
    /// what is still queued for this end belongs to a session that is over: it is
    /// dropped, so this session receives nothing of it (its receives end at once). A peer
    /// that reached `End` and was then dropped (e.g. its task finished before this role's
    /// task first ran) leaves what it sent to be received.
    fn begin(&mut self) {
        let dead = {
            let mut shared = self.lock();
            if !shared.dead {
                return;
            }
            shared.queues[self.side].drain()
        };
        drop(dead);
    }

    fn abort(&mut self) {
        if !self.aborted {
            self.aborted = true;
            drop(self.close(true));
        }
    }

    const DETACHED: bool = true;

    /// A sent message is in the peer's queue already.
    const BUFFERED: bool = false;

    #[inline]
    fn handle(&self) -> impl AbortHandle + use<T> {
        SpscHandle {
            shared: self.shared.clone(),
            side: self.side,
        }
    }
}

/// Aborts one end of a [`Spsc`] route without borrowing it ([`Abort::handle`]): closes
/// the route, wakes the peer if it waits and drops the messages queued for that end, which
/// refuses its later sends and receives with [`ChannelError::Aborted`].
struct SpscHandle<T> {
    shared: Arc<Mutex<Shared<T>>>,
    side: usize,
}

impl<T> AbortHandle for SpscHandle<T> {
    fn abort(&self) {
        let side = self.side;
        let (waker, dead) = {
            let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            shared.aborted[side] = true;
            shared.closed = true;
            shared.dead = true;
            let dead = shared.queues[side].drain();
            (peer_waker(&mut shared, side), dead)
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        drop(dead);
    }
}

impl<T> Sink<T> for Spsc<T> {
    type Error = ChannelError;

    /// Always ready (the route is unbounded); reports only this end's abort, so that a
    /// send takes the lock once, in [`start_send`](Sink::start_send).
    #[inline]
    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.aborted {
            return Poll::Ready(Err(ChannelError::Aborted));
        }
        Poll::Ready(Ok(()))
    }

    #[inline]
    fn start_send(self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        if self.aborted {
            return Err(ChannelError::Aborted);
        }
        let waker = {
            let mut shared = self.lock();
            if shared.closed {
                return Err(if shared.aborted[self.side] {
                    ChannelError::Aborted
                } else {
                    ChannelError::Disconnected
                });
            }
            shared.queues[1 - self.side].push(item);
            peer_waker(&mut shared, self.side)
        };
        // Woken outside the lock: an executor may run the peer at once on another thread.
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Nothing is buffered on this side: a sent message is in the peer's queue already.
    #[inline]
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.aborted {
            return Poll::Ready(Err(ChannelError::Aborted));
        }
        Poll::Ready(Ok(()))
    }

    fn poll_close(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.close(false);
        Poll::Ready(Ok(()))
    }
}

impl<T> Stream for Spsc<T> {
    type Item = Result<T, ChannelError>;

    #[inline]
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.aborted {
            return Poll::Ready(Some(Err(ChannelError::Aborted)));
        }
        let side = self.side;
        let mut shared = self.lock();
        if let Some(message) = shared.queues[side].pop() {
            return Poll::Ready(Some(Ok(message)));
        }
        if shared.closed {
            // Aborted through its handle: nothing was queued for it since (sends to a
            // closed route fail), and it refuses use.
            return Poll::Ready(shared.aborted[side].then_some(Err(ChannelError::Aborted)));
        }
        // Keep the waker registered last time if it wakes the same task (the usual case:
        // a role's session runs on one task), so waiting does not clone it again.
        match &mut shared.wakers[side] {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        shared.waiting[side] = true;
        Poll::Pending
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.lock().queues[self.side].len(), None)
    }
}
