//! The in-memory channels: [`Bounded`] ends built on `futures::channel::mpsc`, whose halves
//! ([`Sender`], [`Receiver`]) yield `Result<T, ChannelError>` and kill the whole pair on
//! [`Abort`], and the name [`Unbounded`] of the [`Spsc`](super::Spsc) route.
//!
//! The four halves of a pair share one flag, set when either end aborts. A receiver
//! reads it when a session of its role begins ([`Abort::begin`]): if the pair is already
//! dead, everything still queued belongs to a session that failed before this one began
//! (the peer may have run it alone), so the receiver delivers nothing; if the pair dies
//! during the session, the messages the peer sent before it failed are delivered, then the
//! stream ends. A sender refuses to send on a dead pair.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};

use futures::channel::mpsc;
use futures::{Sink, Stream};

use super::{Abort, AbortHandle, Bidirectional, Pair};

/// Why an in-memory channel refused a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChannelError {
    /// The peer's end is gone: its session failed or was cancelled, or it was dropped.
    #[error("the peer's end of the channel is closed")]
    Disconnected,
    /// A bounded channel was full (only when sending without waiting for capacity).
    #[error("the channel is full")]
    Full,
    /// This end was closed when a session of its role ended without reaching `End`; the
    /// channel may still hold messages of that session, so it refuses all later use.
    /// Create new roles (`Roles::default()`) to run another session.
    #[error(
        "this channel was closed when an earlier session of the role failed or was \
         cancelled; create new roles to run another session"
    )]
    Aborted,
}

impl From<mpsc::SendError> for ChannelError {
    #[inline]
    fn from(error: mpsc::SendError) -> Self {
        if error.is_full() {
            ChannelError::Full
        } else {
            ChannelError::Disconnected
        }
    }
}

/// The halves of `futures::channel::mpsc` that can be closed without being dropped.
pub trait Close: private::Sealed {
    /// Closes the channel from this side.
    fn close(&mut self);

    /// Whether the half can be closed out of band, through [`Close::closer`].
    #[doc(hidden)]
    const DETACHED: bool;

    /// What closes the channel from this side without borrowing the half.
    #[doc(hidden)]
    type Closer: private::CloseShared;

    /// A [`Close::Closer`] for this half.
    #[doc(hidden)]
    fn closer(&self) -> Self::Closer;
}

mod private {
    /// Closes a channel through a shared reference.
    pub trait CloseShared {
        fn close(&self);
    }

    /// Nothing to close (the half's pair is not aborted out of band, or the half is a
    /// receiver: the peer's sender notices the dead flag).
    impl CloseShared for () {
        fn close(&self) {}
    }

    pub trait Sealed {}
    impl<T> Sealed for super::mpsc::Sender<T> {}
    impl<T> Sealed for super::mpsc::Receiver<T> {}
}

/// A bounded sender is not cloned for a handle: each clone adds a slot to the channel.
impl<T> Close for mpsc::Sender<T> {
    fn close(&mut self) {
        self.close_channel();
    }

    const DETACHED: bool = false;
    type Closer = ();

    fn closer(&self) {}
}

impl<T> Close for mpsc::Receiver<T> {
    fn close(&mut self) {
        mpsc::Receiver::close(self);
    }

    const DETACHED: bool = true;
    type Closer = ();

    #[inline]
    fn closer(&self) {}
}

/// The state a pair of ends shares: bit [`DEAD`] once either end aborted, and bit
/// `ABORTED << side` once end `side` was aborted out of band.
#[derive(Debug, Default)]
struct Link(AtomicU8);

/// Either end of the pair was aborted.
const DEAD: u8 = 1;
/// End 0 was aborted out of band (end 1: shifted left once).
const ABORTED: u8 = 2;

impl Link {
    #[inline]
    fn load(&self) -> u8 {
        self.0.load(Ordering::Acquire)
    }
}

/// The shared state of a pair, held by its four halves.
type Dead = Arc<Link>;

/// The sending half of an in-memory channel (`S` is an `mpsc` sender).
#[derive(Debug)]
pub struct Sender<S> {
    inner: S,
    aborted: bool,
    dead: Dead,
    /// Which end of the pair this half belongs to (0 or 1).
    side: u8,
}

/// The receiving half of an in-memory channel (`R` is an `mpsc` receiver): a stream of
/// `Result<T, ChannelError>`.
#[derive(Debug)]
pub struct Receiver<R> {
    inner: R,
    /// Open, or closed to this session: see [`Closed`].
    closed: Closed,
    dead: Dead,
    /// Which end of the pair this half belongs to (0 or 1).
    side: u8,
}

/// Why a receiver delivers nothing (one byte, tested once per poll).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closed {
    /// It delivers.
    Open,
    /// The pair was dead when the current session began: nothing queued is for it.
    Stale,
    /// This end was aborted.
    Aborted,
}

/// Marks the pair dead, and end `side` aborted when `out_of_band` (before closing, so
/// that the woken peer sees the mark).
fn kill(dead: &Dead, side: u8, out_of_band: bool) {
    let aborted = if out_of_band { ABORTED << side } else { 0 };
    dead.0.fetch_or(DEAD | aborted, Ordering::Release);
}

impl<S> Sender<S> {
    fn new(inner: S, dead: Dead, side: u8) -> Self {
        Self {
            inner,
            aborted: false,
            dead,
            side,
        }
    }

    /// Whether this end was aborted ([`Abort::abort`] or out of band) and now refuses all
    /// use.
    pub fn is_aborted(&self) -> bool {
        self.aborted || self.dead.load() & (ABORTED << self.side) != 0
    }

    /// Whether either end of the pair was aborted.
    pub fn is_dead(&self) -> bool {
        self.dead.load() & DEAD != 0
    }

    /// Why this half may not send: its end was aborted, or the pair is dead (the peer
    /// aborted out of band, leaving its receiver open). One relaxed load.
    #[inline]
    fn refused(&self) -> Option<ChannelError> {
        if self.aborted {
            return Some(aborted());
        }
        let link = self.dead.0.load(Ordering::Relaxed);
        (link != 0).then(|| refusal(link, self.side))
    }
}

/// The error of a send on a dead pair (cold: only after an abort).
#[cold]
fn refusal(link: u8, side: u8) -> ChannelError {
    if link & (ABORTED << side) != 0 {
        ChannelError::Aborted
    } else {
        ChannelError::Disconnected
    }
}

impl<R> Receiver<R> {
    fn new(inner: R, dead: Dead, side: u8) -> Self {
        Self {
            inner,
            closed: Closed::Open,
            dead,
            side,
        }
    }

    /// Whether this end was aborted ([`Abort::abort`] or out of band) and now refuses all
    /// use.
    pub fn is_aborted(&self) -> bool {
        self.closed == Closed::Aborted || self.dead.load() & (ABORTED << self.side) != 0
    }

    /// Whether either end of the pair was aborted.
    pub fn is_dead(&self) -> bool {
        self.dead.load() & DEAD != 0
    }
}

impl<S: Close> Abort for Sender<S> {
    #[inline]
    fn abort(&mut self) {
        self.aborted = true;
        kill(&self.dead, self.side, false);
        self.inner.close();
    }

    const DETACHED: bool = S::DETACHED;

    /// A sent message is in the `mpsc` queue already (a bounded channel's capacity is
    /// waited for in `poll_ready`, before the send).
    const BUFFERED: bool = false;

    #[inline]
    fn handle(&self) -> impl AbortHandle + use<S> {
        HalfHandle {
            closer: self.inner.closer(),
            dead: self.dead.clone(),
            side: self.side,
        }
    }
}

impl<R: Close> Abort for Receiver<R> {
    /// An end aborted out of band during the last session refuses use from now on (the
    /// session that aborted it is over, so no receive polls in between); otherwise a pair
    /// dead before this session delivers nothing of earlier sessions.
    #[inline]
    fn begin(&mut self) {
        if self.closed == Closed::Open {
            let link = self.dead.load();
            if link & (ABORTED << self.side) != 0 {
                self.closed = Closed::Aborted;
            } else if link & DEAD != 0 {
                self.closed = Closed::Stale;
            }
        }
    }

    #[inline]
    fn abort(&mut self) {
        self.closed = Closed::Aborted;
        kill(&self.dead, self.side, false);
        self.inner.close();
    }

    const DETACHED: bool = R::DETACHED;

    /// A receiving half sends nothing.
    const BUFFERED: bool = false;

    #[inline]
    fn handle(&self) -> impl AbortHandle + use<R> {
        HalfHandle {
            closer: self.inner.closer(),
            dead: self.dead.clone(),
            side: self.side,
        }
    }
}

/// Aborts one half out of band ([`Abort::handle`]): marks its end aborted and the pair
/// dead, and closes the channel of a sending half (the peer's stream ends after what was
/// sent). The half notices the mark at its next use; the peer's sender notices the dead
/// pair at its next send.
struct HalfHandle<C> {
    closer: C,
    dead: Dead,
    side: u8,
}

impl<C: private::CloseShared> AbortHandle for HalfHandle<C> {
    fn abort(&self) {
        kill(&self.dead, self.side, true);
        self.closer.close();
    }
}

/// The error of a half whose own end aborted.
#[cold]
fn aborted() -> ChannelError {
    ChannelError::Aborted
}

impl<T, S> Sink<T> for Sender<S>
where
    S: Sink<T, Error = mpsc::SendError> + Unpin,
{
    type Error = ChannelError;

    #[inline]
    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if let Some(refused) = self.refused() {
            return Poll::Ready(Err(refused));
        }
        Pin::new(&mut self.inner).poll_ready(cx).map_err(Into::into)
    }

    /// Checks only this end's in-place abort: `poll_ready`, which a send calls first,
    /// checked the shared flags.
    #[inline]
    fn start_send(mut self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        if self.aborted {
            return Err(aborted());
        }
        Pin::new(&mut self.inner)
            .start_send(item)
            .map_err(Into::into)
    }

    #[inline]
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.aborted {
            return Poll::Ready(Err(aborted()));
        }
        match Pin::new(&mut self.inner).poll_flush(cx) {
            // Nothing is buffered on this side, so a gone peer leaves nothing unflushed:
            // the next send or receive with it reports it.
            Poll::Ready(Err(error)) if error.is_disconnected() => Poll::Ready(Ok(())),
            other => other.map_err(Into::into),
        }
    }

    #[inline]
    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.inner).poll_close(cx).map_err(Into::into)
    }
}

impl<R: Stream + Unpin> Stream for Receiver<R> {
    type Item = Result<R::Item, ChannelError>;

    #[inline]
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.closed != Closed::Open {
            // Our own abort is an error; a peer dead before the session began ends the
            // stream (`Disconnected`) without delivering what it sent to earlier sessions.
            return Poll::Ready((self.closed == Closed::Aborted).then(|| Err(aborted())));
        }
        Pin::new(&mut self.inner)
            .poll_next(cx)
            .map(|item| item.map(Ok))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// One end of an in-memory unbounded route carrying `T` (the label enum) both ways: the
/// [`Spsc`](super::Spsc) route under the name that says what it does.
///
/// Sending never waits. Each end has one owner (its role), so a pair of ends shares one
/// allocation with a ring buffer per direction, and a message costs no heap node (see
/// [`Spsc`](super::Spsc) for what a send and a receive do, and how an abort is signalled).
/// Works on any executor and across threads. Until issue 25 this was a pair of
/// `futures::channel::mpsc` unbounded channels; [`bounded`] still is.
pub type Unbounded<T> = super::Spsc<T>;

/// Creates two connected [`Unbounded`] ends (the same as [`spsc`](super::spsc)).
#[inline]
pub fn unbounded<T>() -> (Unbounded<T>, Unbounded<T>) {
    super::spsc()
}

/// One end of a pair of in-memory bounded channels carrying `T` in each direction.
///
/// A send waits while `N` messages are in flight towards the peer (`futures`' bounded
/// channel, whose capacity is `N` plus one slot for the single sender, so `N = 0` still
/// lets one message through without waiting). Use [`bounded`] when the capacity is only
/// known at run time.
#[derive(Debug)]
pub struct Bounded<T, const N: usize>(pub BoundedEnd<T>);

/// One end of a pair of bounded channels whose capacity is chosen at run time by
/// [`bounded`].
pub type BoundedEnd<T> = Bidirectional<Sender<mpsc::Sender<T>>, Receiver<mpsc::Receiver<T>>>;

impl<T, const N: usize> Pair<Self> for Bounded<T, N> {
    #[inline]
    fn pair() -> (Self, Self) {
        let (left, right) = bounded(N);
        (Self(left), Self(right))
    }
}

/// Creates two connected bounded ends of capacity `buffer` (see [`Bounded`]).
pub fn bounded<T>(buffer: usize) -> (BoundedEnd<T>, BoundedEnd<T>) {
    let (left_tx, left_rx) = mpsc::channel(buffer);
    let (right_tx, right_rx) = mpsc::channel(buffer);
    join(left_tx, left_rx, right_tx, right_rx)
}

/// Crosses two channels into two ends sharing one [`Dead`] flag.
#[allow(clippy::type_complexity)]
fn join<S, R>(
    left_tx: S,
    left_rx: R,
    right_tx: S,
    right_rx: R,
) -> (
    Bidirectional<Sender<S>, Receiver<R>>,
    Bidirectional<Sender<S>, Receiver<R>>,
) {
    let dead = Dead::default();
    (
        Bidirectional::new(
            Sender::new(left_tx, dead.clone(), 0),
            Receiver::new(right_rx, dead.clone(), 0),
        ),
        Bidirectional::new(
            Sender::new(right_tx, dead.clone(), 1),
            Receiver::new(left_rx, dead, 1),
        ),
    )
}

impl<T, const N: usize> Abort for Bounded<T, N> {
    #[inline]
    fn begin(&mut self) {
        self.0.begin();
    }

    const BUFFERED: bool = false;

    #[inline]
    fn abort(&mut self) {
        self.0.abort();
    }
}

impl<T, const N: usize> Sink<T> for Bounded<T, N> {
    type Error = ChannelError;

    #[inline]
    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.0).poll_ready(cx)
    }

    #[inline]
    fn start_send(mut self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        Pin::new(&mut self.0).start_send(item)
    }

    #[inline]
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    #[inline]
    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.0).poll_close(cx)
    }
}

impl<T, const N: usize> Stream for Bounded<T, N> {
    type Item = Result<T, ChannelError>;

    #[inline]
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.0).poll_next(cx)
    }
}
