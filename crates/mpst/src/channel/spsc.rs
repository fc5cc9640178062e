//! [`Spsc`]: an in-memory route specialised for its two owners. Each end of a route is
//! owned by exactly one role, so a pair of ends needs no multi-producer queue: both
//! directions share one allocation holding two lock-free single-producer single-consumer
//! rings (inline, so neither a message nor a direction allocates until more than four
//! messages wait; `queue.rs`), the two receivers' wakers and the route's state flags.
//!
//! Compared with a pair of `futures::channel::mpsc` queues (what
//! [`Unbounded`](super::Unbounded) was before it became this route, and what
//! [`Bounded`](super::Bounded) still is) a message costs no heap node (the ring is
//! reused) and no lock: a send is a slot write, a release store and a wake of the
//! receiver's armed waker; a receive is an acquire load and a slot read, and a receiver
//! that waits arms its [`WakerCell`] (`waker.rs`), which keeps the waker across waits: a
//! send wakes it by reference and re-arming for the same task clones nothing.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};

use futures::{Sink, Stream};

use super::queue::Queue;
use super::waker::WakerCell;
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
    shared: Arc<Shared<T>>,
    /// Which end this is: it receives from `queues[side]`, sends to `queues[1 - side]`
    /// (a byte, so that an end is two words: role futures hold their routes).
    side: u8,
    /// This end was aborted (in place, or noticed from its handle) and refuses all use.
    aborted: bool,
    /// The session that began last began after the route died ([`DEAD`]): nothing it
    /// could receive belongs to it, so its receives end at once.
    stale: bool,
}

/// The route is closed: an end was dropped, closed or aborted; sends fail, receives drain
/// then end.
const CLOSED: u8 = 1;
/// An end was aborted (its session failed or was dropped before `End`): what is still
/// queued belongs to that failed session. A plain drop or close (a peer that finished its
/// sessions) leaves its messages deliverable to a session that begins later.
const DEAD: u8 = 2;
/// `ABORTED << i`: end `i` was aborted through its [`SpscHandle`] (out of band); it
/// refuses later use when it notices (its next send or receive).
const ABORTED: u8 = 4;

/// The state both ends share.
struct Shared<T> {
    /// `queues[i]`: the messages sent to end `i`, oldest first. End `1 - i` is its only
    /// producer and end `i` its only consumer.
    queues: [Queue<T>; 2],
    /// `wakers[i]`: the waker end `i` waits with, armed only by end `i`; woken by a send
    /// to it and by the route's closing (from any thread).
    wakers: [WakerCell; 2],
    /// [`CLOSED`], [`DEAD`] and [`ABORTED`] bits; once set, never cleared.
    flags: AtomicU8,
}

impl<T> Shared<T> {
    /// Sets `bits` and wakes the receiver at end `1 - side` (the peer of `side`), so that
    /// its pending receive notices.
    #[inline]
    fn close(&self, side: usize, bits: u8) {
        self.flags.fetch_or(CLOSED | bits, Ordering::AcqRel);
        self.wakers[1 - side].wake();
    }
}

impl<T> Shared<T> {
    /// A new route's state, built in its allocation: the rings' slots stay uninitialised
    /// and nothing is built on the stack first and copied in (which `Arc::new` of the
    /// whole state does: a `memcpy` of some 400 bytes for every route created).
    #[inline]
    fn new_arc() -> Arc<Self> {
        let mut shared = Arc::<Self>::new_uninit();
        let state = Arc::get_mut(&mut shared)
            .expect("a new allocation has one owner")
            .as_mut_ptr();
        // SAFETY: `state` points to the new allocation, which nothing else can reach; each
        // field other than the rings' slots is written once here (`Queue::init`), and the
        // slots are `MaybeUninit`, valid uninitialised. So the whole state is initialised
        // before `assume_init`.
        unsafe {
            Queue::init(&raw mut (*state).queues[0]);
            Queue::init(&raw mut (*state).queues[1]);
            (&raw mut (*state).wakers).write([WakerCell::default(), WakerCell::default()]);
            (&raw mut (*state).flags).write(AtomicU8::new(0));
            shared.assume_init()
        }
    }
}

/// Creates the two connected ends of a [`Spsc`] route.
#[inline]
pub fn spsc<T>() -> (Spsc<T>, Spsc<T>) {
    let shared = Shared::new_arc();
    (Spsc::new(shared.clone(), 0), Spsc::new(shared, 1))
}

impl<T: 'static> Pair<Self> for Spsc<T> {
    #[inline]
    fn pair() -> (Self, Self) {
        spsc()
    }

    /// Parks the shared state and the side, not the end: no box.
    #[inline]
    fn park(peer: Self) -> Parked {
        let side = peer.side();
        // The end is not dropped (that would close the route: the parked state is its
        // end now); its `Arc` moves into the parked state, with no count taken and given.
        let peer = std::mem::ManuallyDrop::new(peer);
        // SAFETY: `peer` is never used or dropped again, so its `Arc` is moved, not
        // copied; the end's other fields are plain values.
        let shared = unsafe { std::ptr::read(&peer.shared) };
        Parked::shared(shared, side)
    }

    #[inline]
    fn unpark(parked: Parked) -> Option<Self> {
        let (shared, side) = parked.into_shared::<Shared<T>>()?;
        Some(Spsc::new(shared, side))
    }
}

/// A parked end that is never taken closes the route, as dropping it would.
impl<T: 'static> SharedEnds for Shared<T> {
    fn close(&self, side: usize) {
        Shared::close(self, side, 0);
    }

    #[inline]
    fn put(self: Arc<Self>, side: usize, slot: &mut dyn std::any::Any) {
        match slot.downcast_mut::<Option<Arc<Self>>>() {
            Some(slot) => *slot = Some(self),
            None => SharedEnds::close(&*self, side),
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
    /// End `side` of the route `shared` (at most one live end per side: the queues have
    /// one producer and one consumer each).
    #[inline]
    fn new(shared: Arc<Shared<T>>, side: usize) -> Self {
        debug_assert!(side < 2);
        Spsc {
            shared,
            side: side as u8,
            aborted: false,
            stale: false,
        }
    }

    /// Which end this is (see the field).
    #[inline]
    fn side(&self) -> usize {
        usize::from(self.side)
    }

    /// Whether this end was aborted ([`Abort::abort`] or its abort handle, [`Abort::handle`]) and now
    /// refuses all use.
    pub fn is_aborted(&self) -> bool {
        self.aborted || self.flags() & (ABORTED << self.side()) != 0
    }

    /// Whether the route is closed: an end was dropped, closed or aborted.
    pub fn is_closed(&self) -> bool {
        self.flags() & CLOSED != 0
    }

    #[inline]
    fn flags(&self) -> u8 {
        self.shared.flags.load(Ordering::Acquire)
    }

    /// Takes every message waiting for this end (dropped by the caller).
    #[cold]
    fn drain(&mut self) -> Vec<T> {
        // SAFETY: `&mut self` is the one consumer of `queues[side]` (see `Shared`).
        unsafe { self.shared.queues[self.side()].drain() }
    }

    /// This end was aborted through its handle: it refuses all use from now on, and drops
    /// what was queued for it.
    #[cold]
    fn noticed_abort(&mut self) -> ChannelError {
        self.aborted = true;
        drop(self.drain());
        ChannelError::Aborted
    }

    /// [`Stream::poll_next`] on an end in good standing whose ring is empty: takes from
    /// the spill if the producer spilled, or else arms the waker and looks again. Out of
    /// line, so that the ready path inlines.
    #[inline(never)]
    fn wait(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, ChannelError>>> {
        let side = self.side();
        // SAFETY: `&mut self` is the one consumer of `queues[side]` (see `Shared`).
        if let Some(message) = unsafe { self.shared.queues[side].pop_spilled_if_any() } {
            return Poll::Ready(Some(Ok(message)));
        }
        // Arm, then look again: a send or a close after the first look either is seen
        // now or wakes the waker armed here (kept in the cell across waits).
        // SAFETY: `&mut self` is the one receiver of `wakers[side]` (see `Shared`).
        unsafe { self.shared.wakers[side].arm(cx.waker()) };
        // The state before the second look: a peer that sent and then closed has its
        // messages visible to the look that follows.
        let flags = self.flags();
        if flags & (ABORTED << side) != 0 {
            return Poll::Ready(Some(Err(self.noticed_abort())));
        }
        // SAFETY: `&mut self` is the one consumer of `queues[side]` (see `Shared`).
        if let Some(message) = unsafe { self.shared.queues[side].pop() } {
            return Poll::Ready(Some(Ok(message)));
        }
        if flags & CLOSED != 0 {
            // The peer is gone and everything it sent was taken.
            return Poll::Ready(None);
        }
        Poll::Pending
    }

    /// What a receive on an end that is not in good standing yields: this end was
    /// aborted (in place, or through its handle: noticed now), or its session is stale.
    #[cold]
    fn refused(&mut self) -> Option<Result<T, ChannelError>> {
        if self.aborted {
            return Some(Err(ChannelError::Aborted));
        }
        if self.flags() & (ABORTED << self.side()) != 0 {
            return Some(Err(self.noticed_abort()));
        }
        // Stale: nothing this session could receive is left for it.
        None
    }

    /// The error of a send on a closed route.
    #[cold]
    fn send_refused(&mut self, flags: u8) -> ChannelError {
        if flags & (ABORTED << self.side()) != 0 {
            self.noticed_abort()
        } else {
            ChannelError::Disconnected
        }
    }
}

impl<T> Drop for Spsc<T> {
    fn drop(&mut self) {
        if !self.aborted {
            self.shared.close(self.side(), 0);
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
        if self.flags() & DEAD != 0 && !self.aborted {
            // A send the aborted peer made as it aborted may still land after this drain:
            // `stale` keeps it from this session.
            self.stale = true;
            drop(self.drain());
        }
    }

    fn abort(&mut self) {
        if !self.aborted {
            self.aborted = true;
            self.shared.close(self.side(), DEAD);
            drop(self.drain());
        }
    }

    const DETACHED: bool = true;

    /// A sent message is in the peer's queue already.
    const BUFFERED: bool = false;

    #[inline]
    fn handle(&self) -> impl AbortHandle + use<T> {
        SpscHandle {
            shared: self.shared.clone(),
            side: self.side(),
        }
    }
}

/// Aborts one end of a [`Spsc`] route without borrowing it ([`Abort::handle`]): closes
/// the route and wakes the peer if it waits; the end refuses its later sends and receives
/// with [`ChannelError::Aborted`] and drops what was queued for it when it notices (the
/// handle may run on another thread than the end, so it leaves the end's queue to it).
struct SpscHandle<T> {
    shared: Arc<Shared<T>>,
    side: usize,
}

impl<T> AbortHandle for SpscHandle<T> {
    fn abort(&self) {
        self.shared.close(self.side, DEAD | (ABORTED << self.side));
        // The end itself may wait on a receive: wake it too, so that it notices.
        self.shared.wakers[self.side].wake();
    }
}

impl<T> Sink<T> for Spsc<T> {
    type Error = ChannelError;

    /// Always ready (the route is unbounded); reports only this end's abort, so that a
    /// send reads the route's state once, in [`start_send`](Sink::start_send).
    #[inline]
    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.aborted {
            return Poll::Ready(Err(ChannelError::Aborted));
        }
        Poll::Ready(Ok(()))
    }

    #[inline]
    fn start_send(self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        let this = self.get_mut();
        if this.aborted {
            return Err(ChannelError::Aborted);
        }
        let flags = this.flags();
        if flags & CLOSED != 0 {
            return Err(this.send_refused(flags));
        }
        let peer = 1 - this.side();
        // SAFETY: `&mut self` is the one producer of `queues[1 - side]` (see `Shared`).
        unsafe { this.shared.queues[peer].push(item) };
        this.shared.wakers[peer].wake();
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

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.shared.close(self.side(), 0);
        Poll::Ready(Ok(()))
    }
}

impl<T> Stream for Spsc<T> {
    type Item = Result<T, ChannelError>;

    /// The ready path (a message in the ring of an end in good standing) is small
    /// enough to inline into the session's receive; the rest is out of line.
    #[inline]
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let side = this.side();
        if !(this.aborted | this.stale) && this.flags() & (ABORTED << side) == 0 {
            // SAFETY: `&mut self` is the one consumer of `queues[side]` (see `Shared`).
            if let Some(message) = unsafe { this.shared.queues[side].pop_ring() } {
                return Poll::Ready(Some(Ok(message)));
            }
            return this.wait(cx);
        }
        Poll::Ready(this.refused())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.shared.queues[self.side()].len(), None)
    }
}
