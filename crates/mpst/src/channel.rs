//! Channels: any [`futures::Sink`] + [`futures::Stream`] pair is a route; this module has
//! the [`Bidirectional`] wrapper, the [`Pair`] trait `#[derive(Roles)]` uses to create
//! routes, and ready-made in-memory [`Unbounded`] and [`Bounded`] channels.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::channel::mpsc;
use futures::{Sink, Stream};

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
}

/// One end of a pair of in-memory unbounded channels carrying `T` (the label enum).
///
/// Sending never waits. Built on `futures::channel::mpsc`, so it works on any executor and
/// across threads.
pub type Unbounded<T> = Bidirectional<mpsc::UnboundedSender<T>, mpsc::UnboundedReceiver<T>>;

impl<T> Pair<Self> for Unbounded<T> {
    #[inline]
    fn pair() -> (Self, Self) {
        unbounded()
    }
}

/// Creates two connected [`Unbounded`] ends.
pub fn unbounded<T>() -> (Unbounded<T>, Unbounded<T>) {
    let (left_tx, left_rx) = mpsc::unbounded();
    let (right_tx, right_rx) = mpsc::unbounded();
    (
        Bidirectional::new(left_tx, right_rx),
        Bidirectional::new(right_tx, left_rx),
    )
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
pub type BoundedEnd<T> = Bidirectional<mpsc::Sender<T>, mpsc::Receiver<T>>;

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
    (
        Bidirectional::new(left_tx, right_rx),
        Bidirectional::new(right_tx, left_rx),
    )
}

impl<T, const N: usize> Sink<T> for Bounded<T, N> {
    type Error = mpsc::SendError;

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
    type Item = T;

    #[inline]
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        Pin::new(&mut self.0).poll_next(cx)
    }
}
