//! Channels: a route is a [`futures::Sink`] of the label enum for sending and a
//! [`futures::TryStream`] of it (a `Stream<Item = Result<Label, E>>`) for receiving, plus
//! [`Abort`]; this module has the [`Bidirectional`] wrapper, the [`Pair`] trait
//! `#[derive(Roles)]` uses to create routes, and ready-made in-memory [`Unbounded`],
//! [`Bounded`] and [`Spsc`] channels ([`Spsc`]: one route per pair of roles, the fastest).
//!
//! # What the runtime asks of a route
//!
//! * **Receiving** polls the stream; an `Err(e)` item fails the receive with
//!   [`ReceiveErrorKind::Transport`](crate::ReceiveErrorKind::Transport) carrying `e`, and
//!   the end of the stream is
//!   [`ReceiveErrorKind::Disconnected`](crate::ReceiveErrorKind::Disconnected).
//! * **Sending** is `poll_ready` then `start_send`, *without* a flush: a buffered transport
//!   may hold the message. The runtime flushes every route of the role
//!   ([`Role::poll_flush`](crate::Role::poll_flush)) when the role is about to wait on a
//!   receive (a receive that is not ready at once) and when the session reaches `End`, so a
//!   peer never waits for a message that sits in a buffer (unless no route of the role
//!   buffers: [`Abort::BUFFERED`]). A transport that wants to write past a size threshold
//!   does so in its own `poll_ready`/`start_send` (its policy).
//! * **Aborting out of band** ([`Abort::DETACHED`], [`Abort::handle`]): a route may give
//!   a handle that aborts it without borrowing it; when every route of a role does,
//!   `try_session` aborts through the handles and the session steps carry no abort code.
//! * **Beginning** ([`Abort::begin`]): [`try_session`](crate::try_session) tells every
//!   route of the role that a session begins, before its first step.
//! * **Aborting** ([`Abort::abort`]): when a session ends without reaching `End` (an error,
//!   or its future dropped), the runtime calls `abort` on every route of the role, at once
//!   and without waiting. The route must make its peer's pending and later receives fail
//!   (e.g. close the channel or the socket; messages sent before may still be delivered to
//!   a peer session that began before the abort), must never deliver a message of the
//!   failed session to a peer session that begins after it, and must refuse later use of
//!   its own end.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::{Sink, Stream};

mod memory;
mod queue;
mod spsc;
mod waker;

pub use memory::{
    Bounded, BoundedEnd, ChannelError, Close, Receiver, Sender, Unbounded, bounded, unbounded,
};
pub use spsc::{Spsc, spsc};

/// How a route tells its peer that the session of its role ended without reaching `End`.
///
/// `#[derive(Role)]` calls [`Abort::abort`] on every route of the role from
/// [`Role::abort`](crate::Role::abort), which the runtime calls when a session fails or
/// its future is dropped (see [`try_session`](crate::try_session)).
pub trait Abort {
    /// Called when a session of the role begins ([`try_session`](crate::try_session) is
    /// called), before any step: a route can note here what belongs to earlier sessions.
    /// The default does nothing.
    #[inline]
    fn begin(&mut self) {}

    /// Signals the peer and closes this end: the peer's pending and later receives must
    /// fail promptly (the stream ends or yields an error), and this end must refuse every
    /// later send and receive (the channel may hold messages of the dead session).
    ///
    /// Called from a destructor: it must not block, and must not panic.
    fn abort(&mut self);

    /// Whether [`Abort::handle`] aborts this route *out of band*: through a handle taken
    /// when a session begins, without borrowing the route. The default is `false`.
    ///
    /// When every route of a role says `true` (`#[derive(Role)]` computes
    /// [`Role::DETACHED`](crate::Role::DETACHED)), [`try_session`](crate::try_session)
    /// holds the role's handles for the session and aborts through them when the session
    /// ends without reaching `End`, and the session state has nothing to do when it is
    /// dropped: the steps of the happy path carry no abort code. Otherwise the session
    /// state's destructor calls [`Abort::abort`] in place. Say `true` only when
    /// [`Abort::handle`] is overridden to do what `abort` does.
    const DETACHED: bool = false;

    /// Whether a message this route has taken (`start_send`) may still wait in it until
    /// `poll_flush` (a buffered transport). The default is `true`. When no route of a role
    /// buffers (`#[derive(Role)]` computes [`Role::BUFFERED`](crate::Role::BUFFERED)), the
    /// runtime skips flushing the role before each wait and at `End`.
    const BUFFERED: bool = true;

    /// A handle that aborts this route later without borrowing it (see
    /// [`Abort::DETACHED`]): its [`AbortHandle::abort`] must have the effect of
    /// [`Abort::abort`], possibly noticed by this end only at its next use (e.g. messages
    /// queued for it dropped then). Taken once per session, so it should be cheap (a
    /// reference count). The default, [`InPlace`], does nothing.
    #[inline]
    fn handle(&self) -> impl AbortHandle + use<Self> {
        InPlace
    }
}

/// Aborts a route from outside, without borrowing it: see [`Abort::handle`].
pub trait AbortHandle {
    /// Aborts the route the handle was taken from, like [`Abort::abort`]: must not block
    /// and must not panic.
    fn abort(&self);
}

/// The handle of a route that is aborted in place, by [`Abort::abort`] from the session
/// state's destructor: aborting through it does nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct InPlace;

impl AbortHandle for InPlace {
    #[inline]
    fn abort(&self) {}
}

/// No routes: nothing to abort.
impl AbortHandle for () {
    #[inline]
    fn abort(&self) {}
}

/// The handles of two routes (`#[derive(Role)]` nests them, one pair per route).
impl<A: AbortHandle, B: AbortHandle> AbortHandle for (A, B) {
    #[inline]
    fn abort(&self) {
        self.0.abort();
        self.1.abort();
    }
}

impl<S: Abort, R: Abort> Abort for Bidirectional<S, R> {
    #[inline]
    fn begin(&mut self) {
        self.sink.begin();
        self.stream.begin();
    }

    #[inline]
    fn abort(&mut self) {
        self.sink.abort();
        self.stream.abort();
    }

    const DETACHED: bool = S::DETACHED && R::DETACHED;

    /// Flushing a `Bidirectional` flushes its sink only.
    const BUFFERED: bool = S::BUFFERED;

    #[inline]
    fn handle(&self) -> impl AbortHandle + use<S, R> {
        (self.sink.handle(), self.stream.handle())
    }
}

/// A route made of a sink for sending and a stream for receiving.
///
/// It is a [`Sink`] and a [`Stream`] by delegation, so it can stand anywhere a route is
/// needed.
#[derive(Debug)]
pub struct Bidirectional<S, R> {
    /// The sending half.
    pub sink: S,
    /// The receiving half.
    pub stream: R,
}

impl<S, R> Bidirectional<S, R> {
    /// Joins a sink and a stream into one route.
    #[inline]
    pub fn new(sink: S, stream: R) -> Self {
        Self { sink, stream }
    }

    /// Splits the route back into its halves.
    #[inline]
    pub fn into_inner(self) -> (S, R) {
        (self.sink, self.stream)
    }
}

impl<T, S: Sink<T> + Unpin, R: Unpin> Sink<T> for Bidirectional<S, R> {
    type Error = S::Error;

    #[inline]
    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        Pin::new(&mut self.sink).poll_ready(cx)
    }

    #[inline]
    fn start_send(mut self: Pin<&mut Self>, item: T) -> Result<(), S::Error> {
        Pin::new(&mut self.sink).start_send(item)
    }

    #[inline]
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        Pin::new(&mut self.sink).poll_flush(cx)
    }

    #[inline]
    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        Pin::new(&mut self.sink).poll_close(cx)
    }
}

impl<S: Unpin, R: Stream + Unpin> Stream for Bidirectional<S, R> {
    type Item = R::Item;

    #[inline]
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<R::Item>> {
        Pin::new(&mut self.stream).poll_next(cx)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.stream.size_hint()
    }
}

/// A kind of route that can be created as two connected ends: `Self` for one role and `P`
/// for its peer.
///
/// `#[derive(Roles)]` calls it once per pair of roles that route to each other.
pub trait Pair<P>: Sized {
    /// Creates two connected ends: what one sends, the other receives.
    fn pair() -> (Self, P);

    /// Stores the peer's end of a new pair until the peer's role takes it
    /// (`#[derive(Roles)]`'s wiring); [`Pair::unpark`] gets it back. The default boxes it.
    #[doc(hidden)]
    #[inline]
    fn park(peer: P) -> crate::wiring::Parked
    where
        P: 'static,
    {
        crate::wiring::Parked::boxed(peer)
    }

    /// The end [`Pair::park`] of this same implementation stored (`None` if it holds
    /// another type).
    #[doc(hidden)]
    #[inline]
    fn unpark(parked: crate::wiring::Parked) -> Option<P>
    where
        P: 'static,
    {
        parked.unbox()
    }
}
